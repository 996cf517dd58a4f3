// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `float_ssim` extractor's definition, shared by its CPU compute
/// (float_ssim.cpp), its CUDA compute (ssim_cuda.cu) and its Vulkan compute
/// (float_ssim_vulkan.cpp): options, emitted
/// names, the decimation factor and working size, refusals and the score
/// from the SSIM means (libvmaf 3.2.0 libvmaf/src/feature/float_ssim.c,
/// ssim.c). Also the dB ceiling float_ms_ssim shares.

#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "features/float_ssim/iqa_ssim.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::ssim {

/// libvmaf's options of `float_ssim`.
std::vector<OptionSpec> options();

/// libvmaf's _round (iqa/math_utils.c): half away from zero via truncation.
int iqa_round(float a);

/// The ceiling of enable_db scores with clip_db (libvmaf's init()):
/// ceil(10·log10(peak² / (0.5 / (W·H)))) dB, peak = 2^bpc − 1; +inf without
/// clip_db.
double db_ceiling(bool clip_db, const VideoFormat& format);

/// The means of SSIM map sums {Σ l·c·s, Σ l, Σ c, Σ s} over a `width` ×
/// `height` image's valid region ((width − 10) × (height − 10) pixels).
iqa::SsimMeans means_of_sums(const double sums[4], int width, int height);

/// The outputs of one `float_ssim` instance: float_ssim (0–1, or dB with
/// enable_db) and, with enable_lcs, float_ssim_l, _c, _s.
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// The decimation factor (max(1, round(min(W, H) / 256)) unless the
  /// `scale` option sets it) and working size for `format`; refuses frames
  /// whose working size is below the 11×11 window.
  void init(const VideoFormat& format);
  std::vector<std::string> feature_names() const { return names_; }
  /// Emits frame `index` from the SSIM means of its working images.
  void emit(unsigned index, const iqa::SsimMeans& means, FeatureCollector& out) const;

  int scale() const { return scale_; }         ///< decimation factor, >= 1
  int work_width() const { return work_w_; }   ///< size SSIM runs at
  int work_height() const { return work_h_; }

 private:
  bool enable_lcs_, enable_db_, clip_db_;
  int scale_option_;
  std::vector<std::string> names_;
  int scale_ = 1, work_w_ = 0, work_h_ = 0;
  double max_db_ = 0;
};

/// The CUDA compute of `float_ssim` (ssim_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `float_ssim` (float_ssim_vulkan.cpp; Vulkan builds
/// only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::ssim
