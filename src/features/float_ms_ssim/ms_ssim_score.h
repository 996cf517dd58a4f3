// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `float_ms_ssim` extractor's definition, shared by its CPU
/// compute (float_ms_ssim.cpp), its CUDA compute (float_ssim/ssim_cuda.cu) and
/// its Vulkan compute (float_ms_ssim_vulkan.cpp):
/// options, emitted names, the scale pyramid's sizes, refusals, the 9×9
/// low-pass filter and the score from the five scales' SSIM means (libvmaf
/// 3.2.0 libvmaf/src/feature/float_ms_ssim.c, ms_ssim.c; Wang et al. 2003).

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "features/float_ssim/iqa_ssim.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::ms_ssim {

/// Scales of the pyramid.
inline constexpr int kScales = 5;
/// Smallest side accepted: libvmaf's check floor(side / 2^k) >= 11 for k < 5.
inline constexpr int kMinSide = iqa::kGaussianLen << (kScales - 1);  // 176
/// Side of the low-pass filter that builds the pyramid.
inline constexpr int kLpfLen = 9;
/// The 9×9 low-pass (9/7 biorthogonal wavelet) that builds the pyramid, as
/// typed in libvmaf's ms_ssim.c g_lpf (row-major, applied as a 2-D kernel).
extern const float kLowPass[kLpfLen * kLpfLen];

/// libvmaf's options of `float_ms_ssim`.
std::vector<OptionSpec> options();

/// The outputs of one `float_ms_ssim` instance: float_ms_ssim (0–1, or dB
/// with enable_db) and, with enable_lcs, float_ms_ssim_{l,c,s}_scale{0..4}.
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Refuses frames below kMinSide × kMinSide; sets the scale sizes (each
  /// decimated_size(previous, 2)).
  void init(const VideoFormat& format);
  std::vector<std::string> feature_names() const { return names_; }
  int width(int scale) const { return widths_[scale]; }
  int height(int scale) const { return heights_[scale]; }
  /// Emits frame `index` from the SSIM means of its five scales:
  /// Π_k l_k^α_k · c_k^β_k · s_k^γ_k with libvmaf's exponents. Throws
  /// vqe::Error when the product is infinite.
  void emit(unsigned index, const std::array<iqa::SsimMeans, kScales>& means,
            FeatureCollector& out) const;

 private:
  bool enable_lcs_, enable_db_, clip_db_;
  std::vector<std::string> names_;
  double max_db_ = 0;
  int widths_[kScales] = {}, heights_[kScales] = {};
};

/// The CUDA compute of `float_ms_ssim` (float_ssim/ssim_cuda.cu; CUDA builds
/// only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `float_ms_ssim` (float_ms_ssim_vulkan.cpp; Vulkan
/// builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::ms_ssim
