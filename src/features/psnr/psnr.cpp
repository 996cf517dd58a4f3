// SPDX-License-Identifier: BSD-2-Clause
// PSNR over Y, Cb and Cr from exact integer sums of squared errors, as
// libvmaf's `psnr` extractor (libvmaf/src/feature/integer_psnr.c).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "features/psnr/psnr_kernels.h"
#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

/// Σ (ref − dist)² over one plane (width × height samples of T, strides in
/// bytes). Exact: per-sample squares fit in 32 bits at 16 bits per sample and
/// the sum is 64-bit. SIMD or scalar per simd::use_simd() (psnr_kernels.h).
template <typename T>
std::uint64_t plane_sse(const Plane& ref, const Plane& dist) {
  return psnr::plane_sse(ref.row<T>(0), ref.stride / static_cast<std::ptrdiff_t>(sizeof(T)),
                         dist.row<T>(0), dist.stride / static_cast<std::ptrdiff_t>(sizeof(T)),
                         ref.width, ref.height);
}

class PsnrExtractor final : public FeatureExtractor {
 public:
  explicit PsnrExtractor(const ParsedOptions& opts)
      : opts_(opts),
        enable_chroma_(opts.get_bool("enable_chroma")),
        enable_mse_(opts.get_bool("enable_mse")),
        enable_apsnr_(opts.get_bool("enable_apsnr")),
        reduced_hbd_peak_(opts.get_bool("reduced_hbd_peak")),
        min_sse_(opts.get_double("min_sse")) {}

  void init(const VideoFormat& format) override {
    format_ = format;
    const unsigned bpc = static_cast<unsigned>(format.bit_depth);
    peak_ = reduced_hbd_peak_ ? 255u << (bpc - 8) : (1u << bpc) - 1;
    planes_ = (enable_chroma_ && format.chroma != ChromaFormat::k400) ? 3 : 1;
    for (int p = 0; p < 3; ++p) {
      if (min_sse_ != 0.0) {
        // libvmaf sizes the cap with the plane's own sample count; VQE uses
        // the ceil-sized chroma planes it scores (equal for even sizes).
        const double n = static_cast<double>(format.plane_width(p)) * format.plane_height(p);
        const double mse = min_sse_ / n;
        psnr_max_[p] = std::ceil(10.0 * std::log10(static_cast<double>(peak_) * peak_ / mse));
      } else {
        psnr_max_[p] = 6.0 * bpc + 12.0;
      }
    }
    apsnr_sse_[0] = apsnr_sse_[1] = apsnr_sse_[2] = 0;
    apsnr_pixels_[0] = apsnr_pixels_[1] = apsnr_pixels_[2] = 0;
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names;
    for (int p = 0; p < planes_; ++p) {
      names.push_back(kPsnrNames[p]);
      if (enable_mse_) names.push_back(kMseNames[p]);
    }
    return names;
  }

  void extract(const Picture& ref, const Picture& dist, unsigned index,
               FeatureCollector& out) override {
    // libvmaf's 8-bit path always uses peak 255, whatever reduced_hbd_peak.
    const double peak = format_.bit_depth == 8 ? 255.0 : static_cast<double>(peak_);
    for (int p = 0; p < planes_; ++p) {
      const std::uint64_t sse = format_.bit_depth == 8
                                    ? plane_sse<std::uint8_t>(ref.plane(p), dist.plane(p))
                                    : plane_sse<std::uint16_t>(ref.plane(p), dist.plane(p));
      const std::uint64_t n =
          static_cast<std::uint64_t>(ref.plane(p).width) * ref.plane(p).height;
      apsnr_sse_[p] += sse;
      apsnr_pixels_[p] += n;
      const double mse = static_cast<double>(sse) / static_cast<double>(n);
      const double psnr =
          std::min(10.0 * std::log10(peak * peak / std::max(mse, 1e-16)), psnr_max_[p]);
      out.set(kPsnrNames[p], index, psnr);
      if (enable_mse_) out.set(kMseNames[p], index, mse);
    }
  }

  void flush(FeatureCollector& out) override {
    if (!enable_apsnr_) return;
    const double peak_sq = static_cast<double>(peak_) * peak_;
    for (int p = 0; p < planes_; ++p) {
      const double apsnr = 10.0 * (std::log10(peak_sq) +
                                   std::log10(static_cast<double>(apsnr_pixels_[p])) -
                                   std::log10(static_cast<double>(apsnr_sse_[p])));
      // peak² · n · 2 as an exact integer (libvmaf's uint64 product, which
      // VQE keeps from overflowing on long 16-bit videos).
      const unsigned __int128 cap_arg = static_cast<unsigned __int128>(
                                            static_cast<std::uint64_t>(peak_) * peak_) *
                                        apsnr_pixels_[p] * 2u;
      const double max_apsnr = std::ceil(10.0 * std::log10(static_cast<double>(cap_arg)));
      out.set_aggregate(kApsnrNames[p], apsnr < max_apsnr ? apsnr : max_apsnr);
    }
  }

  bool temporal() const override { return true; }  // accumulates APSNR in frame order

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<PsnrExtractor>(opts_);
  }

 private:
  static constexpr const char* kPsnrNames[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
  static constexpr const char* kMseNames[3] = {"mse_y", "mse_cb", "mse_cr"};
  static constexpr const char* kApsnrNames[3] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};

  ParsedOptions opts_;
  bool enable_chroma_, enable_mse_, enable_apsnr_, reduced_hbd_peak_;
  double min_sse_;
  VideoFormat format_{};
  unsigned peak_ = 255;
  int planes_ = 3;
  double psnr_max_[3] = {60, 60, 60};
  std::uint64_t apsnr_sse_[3] = {0, 0, 0};
  std::uint64_t apsnr_pixels_[3] = {0, 0, 0};
};

using T = OptionSpec::Type;
const bool kRegistered = register_extractor({
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
    [](const ParsedOptions& o) { return std::make_unique<PsnrExtractor>(o); },
});

}  // namespace
}  // namespace vqe
