// SPDX-License-Identifier: BSD-2-Clause
// PSNR over Y, Cb and Cr from exact integer sums of squared errors, as
// libvmaf's `psnr` extractor (libvmaf/src/feature/integer_psnr.c).

#include <cstdint>
#include <cstdlib>

#include "features/psnr/psnr_kernels.h"
#include "features/psnr/psnr_score.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

/// Σ (ref − dist)² over one plane (width × height samples, strides in
/// bytes), exact, with the job's kernels (psnr_kernels.h).
std::uint64_t plane_sse(const psnr::PsnrDsp& dsp, int bit_depth, const Plane& ref,
                        const Plane& dist) {
  if (bit_depth == 8)
    return dsp.sse8(ref.row<std::uint8_t>(0), ref.stride, dist.row<std::uint8_t>(0), dist.stride,
                    ref.width, ref.height);
  return dsp.sse16(ref.row<std::uint16_t>(0), ref.stride / 2, dist.row<std::uint16_t>(0),
                   dist.stride / 2, ref.width, ref.height);
}

class PsnrExtractor final : public FeatureExtractor {
 public:
  PsnrExtractor(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), dsp_(psnr::psnr_dsp(level)), scorer_(opts) {}

  void init(const VideoFormat& format) override {
    format_ = format;
    scorer_.init(format);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& ref, const Picture& dist, unsigned index,
               FeatureCollector& out) override {
    for (int p = 0; p < scorer_.planes(); ++p)
      scorer_.add(p, plane_sse(dsp_, format_.bit_depth, ref.plane(p), dist.plane(p)), index, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

  // Every frame, also under --subsample (libvmaf's psnr is TEMPORAL), but on
  // the worker threads: the APSNR totals are shared integer sums.
  bool every_frame() const override { return true; }

  bool needs_chroma() const override { return scorer_.planes() > 1; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    auto copy = std::make_unique<PsnrExtractor>(opts_, level_);
    copy->scorer_.share_totals_with(scorer_);
    return copy;
  }

 private:
  ParsedOptions opts_;
  simd::Level level_;
  const psnr::PsnrDsp& dsp_;
  psnr::Scorer scorer_;
  VideoFormat format_{};
};

using T = OptionSpec::Type;
}  // namespace

const ExtractorInfo& psnr_extractor() {
  static const ExtractorInfo info{
      "psnr",
      {
          {.name = "enable_chroma", .type = T::kBool, .default_value = 1, .feature_param = false,
           .help = "compute psnr_cb and psnr_cr"},
          {.name = "enable_mse", .type = T::kBool, .default_value = 0, .feature_param = false,
           .help = "also emit mse_y, mse_cb, mse_cr"},
          {.name = "enable_apsnr", .type = T::kBool, .default_value = 0, .feature_param = false,
           .help = "emit aggregate PSNR over all frames (apsnr_y/cb/cr)"},
          {.name = "reduced_hbd_peak", .type = T::kBool, .default_value = 0,
           .feature_param = false,
           .help = "peak 255·2^(bpc−8) instead of 2^bpc−1 above 8 bits"},
          {.name = "min_sse", .type = T::kDouble, .default_value = 0, .min = 0, .max = 1.7e308,
           .feature_param = false, .help = "lowest SSE assumed when capping PSNR"},
      },
      {"psnr_y", "psnr_cb", "psnr_cr"},
      [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<PsnrExtractor>(o, l);
      },
      VQE_CUDA_TWIN(psnr::make_cuda),
      VQE_VULKAN_TWIN(psnr::make_vulkan),
  };
  return info;
}

}  // namespace vqe
