// SPDX-License-Identifier: BSD-2-Clause
#include "features/float_psnr/float_psnr_score.h"

#include <cmath>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::float_psnr {

PeakConstants peak_constants(int bit_depth, const char* extractor) {
  switch (bit_depth) {
    case 8: return {255.0, 60.0};
    case 10: return {255.75, 72.0};
    case 12: return {255.9375, 84.0};
    case 16: return {255.99609375, 108.0};
    default:
      throw Error(fmt::format("{}: unsupported bit depth {} (accepted: 8, 10, 12, 16)", extractor,
                              bit_depth));
  }
}

Scorer::Scorer(const ParsedOptions& options) : name_(options.feature_name("float_psnr")) {}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, "float_psnr");
  format_ = format;
  constants_ = peak_constants(format.bit_depth, "float_psnr");
}

void Scorer::emit(unsigned index, double noise, FeatureCollector& out) const {
  noise /= static_cast<double>(format_.width * format_.height);
  const double eps = 1e-10;
  const double floor_noise = noise > eps ? noise : eps;
  const double psnr = 10 * std::log10(constants_.peak * constants_.peak / floor_noise);
  out.set(name_, index, psnr < constants_.psnr_max ? psnr : constants_.psnr_max);
}

}  // namespace vqe::float_psnr
