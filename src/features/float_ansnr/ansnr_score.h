// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `float_ansnr` extractor's definition, shared by its CPU compute
/// (float_ansnr.cpp) and its CUDA compute (float_ansnr_cuda.cu): the two 2-D
/// filters, emitted names, refusals and the scores from a frame's signal and
/// noise sums (libvmaf 3.2.0 libvmaf/src/feature/float_ansnr.c, ansnr.c,
/// ansnr_tools.c).
///
///   float_ansnr  = 10·log10(signal / noise)  (psnr_max when noise == 0)
///   float_anpsnr = min(10·log10(peak²·N / noise), psnr_max)

#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "features/float_psnr/float_psnr_score.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::ansnr {

/// The filters of ansnr_tools.c: the reference's 3x3 binomial a/16 and the
/// distorted's 5x5 b/571, row-major, each coefficient computed in double
/// and rounded to float.
struct Filters {
  float ref[9];
  float dis[25];
};
const Filters& filters();

/// The outputs of one `float_ansnr` instance: float_ansnr and float_anpsnr
/// (dB).
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Refusals for `format` (any size >= 1x1, 8/10/12/16 bits) and the peak
  /// constants.
  void init(const VideoFormat& format);
  std::vector<std::string> feature_names() const { return {ansnr_name_, anpsnr_name_}; }
  /// Emits frame `index` from the float sums signal = Σ ref_f² and noise =
  /// Σ (ref_f − dis_f)² of the filtered planes (the ratio is a float
  /// division, as in libvmaf).
  void emit(unsigned index, float signal, float noise, FeatureCollector& out) const;

 private:
  std::string ansnr_name_, anpsnr_name_;
  VideoFormat format_{};
  float_psnr::PeakConstants constants_{255.0, 60.0};
};

/// The CUDA compute of `float_ansnr` (float_ansnr_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `float_ansnr` (float_ansnr_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::ansnr
