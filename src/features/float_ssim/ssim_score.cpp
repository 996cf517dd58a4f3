// SPDX-License-Identifier: BSD-2-Clause
#include "features/float_ssim/ssim_score.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::ssim {

std::vector<OptionSpec> options() {
  using T = OptionSpec::Type;
  return {
      {.name = "enable_lcs",
       .type = T::kBool,
       .feature_param = false,
       .help = "also emit the mean luminance, contrast and structure terms (float_ssim_l, _c, "
               "_s)"},
      {.name = "enable_db",
       .type = T::kBool,
       .feature_param = false,
       .help = "report -10·log10(1 - SSIM) in dB instead of SSIM"},
      {.name = "clip_db",
       .type = T::kBool,
       .feature_param = false,
       .help = "with enable_db, cap the dB score at a ceiling set by frame size and bit depth"},
      {.name = "scale",
       .type = T::kInt,
       .default_value = 0,
       .min = 0,
       .max = 10,
       .feature_param = false,
       .help = "box-filter decimation factor: 0 picks max(1, round(min(W, H) / 256)), 1 keeps "
               "full size, 2..10 force that factor"},
  };
}

int iqa_round(float a) {
  const int sign = a > 0.0f ? 1 : -1;
  const int t = static_cast<int>(a);
  return a - t >= 0.5 ? t + sign : t;
}

double db_ceiling(bool clip_db, const VideoFormat& format) {
  if (!clip_db) return std::numeric_limits<double>::infinity();
  const unsigned peak = (1u << format.bit_depth) - 1u;
  const double mse = 0.5 / static_cast<double>(static_cast<unsigned>(format.width) *
                                               static_cast<unsigned>(format.height));
  return std::ceil(10. * std::log10(static_cast<double>(peak * peak) / mse));
}

iqa::SsimMeans means_of_sums(const double sums[4], int width, int height) {
  return iqa::ssim_means(sums[0], sums[1], sums[2], sums[3],
                         (width - (iqa::kGaussianLen - 1)) * (height - (iqa::kGaussianLen - 1)));
}

Scorer::Scorer(const ParsedOptions& opts)
    : enable_lcs_(opts.get_bool("enable_lcs")),
      enable_db_(opts.get_bool("enable_db")),
      clip_db_(opts.get_bool("clip_db")),
      scale_option_(opts.get_int("scale")) {
  names_.push_back(opts.feature_name("float_ssim"));
  if (enable_lcs_)
    for (const char* n : {"float_ssim_l", "float_ssim_c", "float_ssim_s"})
      names_.push_back(opts.feature_name(n));
}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, "float_ssim");
  const int w = format.width;
  const int h = format.height;
  scale_ = scale_option_ > 0
               ? scale_option_
               : std::max(1, iqa_round(static_cast<float>(std::min(w, h)) / 256.0f));
  work_w_ = scale_ > 1 ? iqa::decimated_size(w, scale_) : w;
  work_h_ = scale_ > 1 ? iqa::decimated_size(h, scale_) : h;
  if (work_w_ < iqa::kGaussianLen || work_h_ < iqa::kGaussianLen) {
    if (scale_ > 1)
      throw Error(fmt::format(
          "float_ssim: frame {}x{} downscaled by {} is {}x{}, smaller than the minimum {}x{} "
          "(the SSIM Gaussian window); use a smaller scale",
          w, h, scale_, work_w_, work_h_, iqa::kGaussianLen, iqa::kGaussianLen));
    throw Error(fmt::format(
        "float_ssim: frame {}x{} is smaller than the minimum {}x{} (the SSIM Gaussian window)",
        w, h, iqa::kGaussianLen, iqa::kGaussianLen));
  }
  max_db_ = db_ceiling(clip_db_, format);
}

void Scorer::emit(unsigned index, const iqa::SsimMeans& m, FeatureCollector& out) const {
  double score = m.ssim;
  if (enable_db_) {
    const double db = -10. * std::log10(1 - score);
    score = db < max_db_ ? db : max_db_;  // libvmaf's MIN(db, max_db)
  }
  out.set(names_[0], index, score);
  if (enable_lcs_) {
    out.set(names_[1], index, m.luminance);
    out.set(names_[2], index, m.contrast);
    out.set(names_[3], index, m.structure);
  }
}

}  // namespace vqe::ssim
