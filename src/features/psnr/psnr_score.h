// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file PSNR, MSE and APSNR values from per-plane sums of squared errors,
/// shared by the CPU extractor and its CUDA twin (libvmaf's integer_psnr.c
/// definitions: peak 255 at 8 bits, 2^bpc − 1 or 255·2^(bpc−8) above; PSNR
/// capped at 6·bpc + 12 dB or by min_sse).

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vqe/feature_collector.h"
#include "core/extractor.h"
#include "core/options.h"
#include "vqe/picture.h"

namespace vqe::psnr {

/// Scores one video: per-frame psnr_y/cb/cr (dB) and mse_y/cb/cr (squared
/// sample units), and the aggregate apsnr_y/cb/cr (dB) over all frames.
/// Options are the `psnr` extractor's (enable_chroma, enable_mse,
/// enable_apsnr, reduced_hbd_peak, min_sse). Bit depths 8–16.
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Sets the peak and caps for `format`.
  void init(const VideoFormat& format);
  /// Makes this scorer add into `other`'s APSNR totals (for per-thread
  /// copies of one extractor: the totals are integer sums, so the order in
  /// which threads add frames does not matter).
  void share_totals_with(const Scorer& other) { totals_ = other.totals_; }
  /// Planes scored: 3, or 1 for 4:0:0 input or enable_chroma=false.
  int planes() const { return planes_; }
  /// Emitted names, in output order (psnr_y, [mse_y], psnr_cb, ...).
  std::vector<std::string> feature_names() const;
  /// Records plane `plane`'s Σ(ref − dist)² for frame `index`. Frames may
  /// come in any order and from several threads; each must come once.
  void add(int plane, std::uint64_t sse, unsigned index, FeatureCollector& out);
  /// Emits the APSNR aggregates when enable_apsnr is set.
  void flush(FeatureCollector& out) const;

 private:
  bool enable_chroma_, enable_mse_, enable_apsnr_, reduced_hbd_peak_;
  double min_sse_;
  VideoFormat format_{};
  unsigned peak_ = 255;
  int planes_ = 1;
  double psnr_max_[3] = {60, 60, 60};
  struct Totals {
    std::atomic<std::uint64_t> sse[3] = {0, 0, 0};
    std::atomic<std::uint64_t> pixels[3] = {0, 0, 0};
  };
  std::shared_ptr<Totals> totals_ = std::make_shared<Totals>();
};

/// The CUDA compute of `psnr` (psnr_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `psnr` (psnr_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::psnr
