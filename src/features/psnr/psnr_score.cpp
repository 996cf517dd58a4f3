// SPDX-License-Identifier: BSD-2-Clause
#include "features/psnr/psnr_score.h"

#include <algorithm>
#include <cmath>

namespace vqe::psnr {
namespace {
constexpr const char* kPsnrNames[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
constexpr const char* kMseNames[3] = {"mse_y", "mse_cb", "mse_cr"};
constexpr const char* kApsnrNames[3] = {"apsnr_y", "apsnr_cb", "apsnr_cr"};
}  // namespace

Scorer::Scorer(const ParsedOptions& options)
    : enable_chroma_(options.get_bool("enable_chroma")),
      enable_mse_(options.get_bool("enable_mse")),
      enable_apsnr_(options.get_bool("enable_apsnr")),
      reduced_hbd_peak_(options.get_bool("reduced_hbd_peak")),
      min_sse_(options.get_double("min_sse")) {}

void Scorer::init(const VideoFormat& format) {
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
}

std::vector<std::string> Scorer::feature_names() const {
  std::vector<std::string> names;
  for (int p = 0; p < planes_; ++p) {
    names.push_back(kPsnrNames[p]);
    if (enable_mse_) names.push_back(kMseNames[p]);
  }
  return names;
}

void Scorer::add(int plane, std::uint64_t sse, unsigned index, FeatureCollector& out) {
  // libvmaf's 8-bit path always uses peak 255, whatever reduced_hbd_peak.
  const double peak = format_.bit_depth == 8 ? 255.0 : static_cast<double>(peak_);
  const std::uint64_t n = static_cast<std::uint64_t>(format_.plane_width(plane)) *
                          static_cast<std::uint64_t>(format_.plane_height(plane));
  totals_->sse[plane].fetch_add(sse, std::memory_order_relaxed);
  totals_->pixels[plane].fetch_add(n, std::memory_order_relaxed);
  const double mse = static_cast<double>(sse) / static_cast<double>(n);
  const double psnr =
      std::min(10.0 * std::log10(peak * peak / std::max(mse, 1e-16)), psnr_max_[plane]);
  out.set(kPsnrNames[plane], index, psnr);
  if (enable_mse_) out.set(kMseNames[plane], index, mse);
}

void Scorer::flush(FeatureCollector& out) const {
  if (!enable_apsnr_) return;
  const double peak_sq = static_cast<double>(peak_) * peak_;
  for (int p = 0; p < planes_; ++p) {
    const std::uint64_t sse = totals_->sse[p].load(), pixels = totals_->pixels[p].load();
    const double apsnr = 10.0 * (std::log10(peak_sq) +
                                 std::log10(static_cast<double>(pixels)) -
                                 std::log10(static_cast<double>(sse)));
    // peak² · n · 2 as an exact integer (libvmaf's uint64 product, which
    // VQE keeps from overflowing on long 16-bit videos).
    const unsigned __int128 cap_arg =
        static_cast<unsigned __int128>(static_cast<std::uint64_t>(peak_) * peak_) *
        pixels * 2u;
    const double max_apsnr = std::ceil(10.0 * std::log10(static_cast<double>(cap_arg)));
    out.set_aggregate(kApsnrNames[p], apsnr < max_apsnr ? apsnr : max_apsnr);
  }
}

}  // namespace vqe::psnr
