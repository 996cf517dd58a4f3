// SPDX-License-Identifier: BSD-2-Clause
#include "features/float_ansnr/ansnr_score.h"

#include <cmath>

namespace vqe::ansnr {

const Filters& filters() {
  static const Filters f = [] {
    Filters out{};
    const int ref_taps[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    const int dis_taps[25] = {2,  7,  12, 7,  2,  7,  31, 52, 31, 7,  12, 52, 127,
                              52, 12, 7,  31, 52, 31, 7,  2,  7,  12, 7,  2};
    for (int i = 0; i < 9; ++i) out.ref[i] = static_cast<float>(ref_taps[i] / 16.0);
    for (int i = 0; i < 25; ++i) out.dis[i] = static_cast<float>(dis_taps[i] / 571.0);
    return out;
  }();
  return f;
}

Scorer::Scorer(const ParsedOptions& opts)
    : ansnr_name_(opts.feature_name("float_ansnr")),
      anpsnr_name_(opts.feature_name("float_anpsnr")) {}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, "float_ansnr");
  format_ = format;
  constants_ = float_psnr::peak_constants(format.bit_depth, "float_ansnr");
}

void Scorer::emit(unsigned index, float signal, float noise, FeatureCollector& out) const {
  const int w = format_.width, h = format_.height;
  const double psnr_max = constants_.psnr_max, peak = constants_.peak;
  const double ansnr =
      noise == 0 ? psnr_max : 10.0 * std::log10(static_cast<double>(signal / noise));
  const double eps = 1e-10;
  const double noise_floor = static_cast<double>(noise) > eps ? static_cast<double>(noise) : eps;
  const double anpsnr = 10 * std::log10(peak * peak * w * h / noise_floor);
  out.set(ansnr_name_, index, ansnr);
  out.set(anpsnr_name_, index, anpsnr < psnr_max ? anpsnr : psnr_max);
}

}  // namespace vqe::ansnr
