// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file float_psnr's definition shared by every backend: options, emitted
/// name, refusals and the score from a frame's noise sum (libvmaf 3.2.0
/// libvmaf/src/feature/float_psnr.c, psnr.c). Also the peak and ceiling
/// table that float_ansnr shares with it.

#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::float_psnr {

/// Peak (the maximum sample scaled to the 8-bit range) and the dB ceiling
/// by bit depth, as libvmaf's float_psnr and float_ansnr init().
struct PeakConstants {
  double peak;      ///< 255, 255.75, 255.9375 or 255.99609375
  double psnr_max;  ///< 60, 72, 84 or 108 dB
};

/// The constants of `bit_depth` (8, 10, 12, 16). Throws vqe::Error naming
/// `extractor` for any other depth.
PeakConstants peak_constants(int bit_depth, const char* extractor);

/// float_psnr of one video format: 10·log10(peak² / MSE), clipped to
/// psnr_max (dB).
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Checks `format` (any size >= 1x1, 8/10/12/16 bits; throws vqe::Error)
  /// and sets the constants.
  void init(const VideoFormat& format);
  std::vector<std::string> feature_names() const { return {name_}; }
  /// Emits frame `index`'s score from `noise`, the sum over the luma plane
  /// of the squared differences of the samples on the 8-bit scale (libvmaf
  /// forms each term in float and adds them in double, in raster order).
  void emit(unsigned index, double noise, FeatureCollector& out) const;

 private:
  std::string name_;
  VideoFormat format_{};
  PeakConstants constants_{255.0, 60.0};
};

/// The CUDA compute of `float_psnr` (float_psnr_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `float_psnr` (float_psnr_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::float_psnr
