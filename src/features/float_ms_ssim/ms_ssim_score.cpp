// SPDX-License-Identifier: BSD-2-Clause
#include "features/float_ms_ssim/ms_ssim_score.h"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "features/float_ssim/ssim_score.h"
#include "vqe/error.h"

namespace vqe::ms_ssim {
namespace {

// Per-scale exponents (Wang's MS-SSIM weights as libvmaf types them).
constexpr float kAlpha[kScales] = {0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f};
constexpr float kBeta[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
constexpr float kGamma[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

}  // namespace

// clang-format off
const float kLowPass[kLpfLen * kLpfLen] = {
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    0.016114f,  -0.010146f, -0.047149f, 0.160885f,  0.363505f,  0.160885f,  -0.047149f, -0.010146f, 0.016114f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
};
// clang-format on

std::vector<OptionSpec> options() {
  using T = OptionSpec::Type;
  return {
      {.name = "enable_lcs",
       .type = T::kBool,
       .feature_param = false,
       .help = "also emit each scale's mean luminance, contrast and structure terms"},
      {.name = "enable_db",
       .type = T::kBool,
       .feature_param = false,
       .help = "report -10·log10(1 - MS-SSIM) in dB instead"},
      {.name = "clip_db",
       .type = T::kBool,
       .feature_param = false,
       .help = "with enable_db, cap the dB score at a ceiling set by frame size and bit depth"},
  };
}

Scorer::Scorer(const ParsedOptions& opts)
    : enable_lcs_(opts.get_bool("enable_lcs")),
      enable_db_(opts.get_bool("enable_db")),
      clip_db_(opts.get_bool("clip_db")) {
  names_.push_back(opts.feature_name("float_ms_ssim"));
  if (enable_lcs_)
    for (const char* term : {"l", "c", "s"})
      for (int k = 0; k < kScales; ++k)
        names_.push_back(opts.feature_name(fmt::format("float_ms_ssim_{}_scale{}", term, k)));
}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, "float_ms_ssim");
  const int w = format.width;
  const int h = format.height;
  if (w < kMinSide || h < kMinSide)
    throw Error(fmt::format(
        "float_ms_ssim: frame {}x{} is smaller than the minimum {}x{} ({} scales, each at "
        "least {}x{} for the SSIM window)",
        w, h, kMinSide, kMinSide, kScales, iqa::kGaussianLen, iqa::kGaussianLen));
  max_db_ = ssim::db_ceiling(clip_db_, format);
  int cw = w, ch = h;
  for (int k = 0; k < kScales; ++k) {
    widths_[k] = cw;
    heights_[k] = ch;
    cw = iqa::decimated_size(cw, 2);
    ch = iqa::decimated_size(ch, 2);
  }
}

void Scorer::emit(unsigned index, const std::array<iqa::SsimMeans, kScales>& means,
                  FeatureCollector& out) const {
  double l[kScales], c[kScales], s[kScales];
  double ms_ssim = 1.0;
  for (int k = 0; k < kScales; ++k) {
    const iqa::SsimMeans& m = means[k];
    ms_ssim *= std::pow(static_cast<double>(m.luminance), static_cast<double>(kAlpha[k])) *
               std::pow(static_cast<double>(m.contrast), static_cast<double>(kBeta[k])) *
               std::pow(static_cast<double>(m.structure), static_cast<double>(kGamma[k]));
    l[k] = m.luminance;
    c[k] = m.contrast;
    s[k] = m.structure;
    if (ms_ssim == std::numeric_limits<double>::infinity())
      throw Error(fmt::format("float_ms_ssim: frame {}: the score is infinite", index));
  }
  double score = ms_ssim;
  if (enable_db_) {
    const double db = -10. * std::log10(1 - score);
    score = db < max_db_ ? db : max_db_;  // libvmaf's MIN(db, max_db)
  }
  out.set(names_[0], index, score);
  if (enable_lcs_) {
    std::size_t i = 1;
    for (const double* term : {l, c, s})
      for (int k = 0; k < kScales; ++k) out.set(names_[i++], index, term[k]);
  }
}

}  // namespace vqe::ms_ssim
