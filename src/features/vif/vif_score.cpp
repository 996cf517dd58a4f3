// SPDX-License-Identifier: BSD-2-Clause
#include "features/vif/vif_score.h"

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::vif {
namespace {
constexpr std::size_t kNumScores = 4;
}  // namespace

std::vector<OptionSpec> options() {
  using T = OptionSpec::Type;
  return {
      {.name = "debug",
       .type = T::kBool,
       .feature_param = false,
       .help = "also emit integer_vif, its numerator and denominator, and each scale's "
               "numerator and denominator"},
      {.name = "vif_enhn_gain_limit",
       .alias = "egl",
       .type = T::kDouble,
       .default_value = 100.0,
       .min = 1.0,
       .max = 100.0,
       .help = "upper bound on the VIF gain of distorted over reference (1..100; 1 credits no "
               "enhancement)"},
      {.name = "vif_skip_scale0",
       .alias = "ssclz",
       .type = T::kBool,
       .help = "leave scale 0 out; its score is reported as 0"},
  };
}

const std::vector<std::string>& provided_features() {
  static const std::vector<std::string> names = {
      "VMAF_integer_feature_vif_scale0_score",
      "VMAF_integer_feature_vif_scale1_score",
      "VMAF_integer_feature_vif_scale2_score",
      "VMAF_integer_feature_vif_scale3_score",
      "integer_vif",
      "integer_vif_num",
      "integer_vif_den",
      "integer_vif_num_scale0",
      "integer_vif_den_scale0",
      "integer_vif_num_scale1",
      "integer_vif_den_scale1",
      "integer_vif_num_scale2",
      "integer_vif_den_scale2",
      "integer_vif_num_scale3",
      "integer_vif_den_scale3",
  };
  return names;
}

void check_format(int width, int height, int bit_depth) {
  if (bit_depth != 8 && bit_depth != 10 && bit_depth != 12 && bit_depth != 16)
    throw Error(fmt::format("vif: unsupported bit depth {} (8, 10, 12 or 16)", bit_depth));
  if (width < kMinWidth || height < kMinHeight)
    throw Error(fmt::format(
        "vif: frame {}x{} is smaller than the minimum {}x{} (each of the 4 scales halves the "
        "size and needs at least 2 samples per direction)",
        width, height, kMinWidth, kMinHeight));
}

Scorer::Scorer(const ParsedOptions& opts)
    : debug_(opts.get_bool("debug")),
      skip_scale0_(opts.get_bool("vif_skip_scale0")),
      gain_limit_(opts.get_double("vif_enhn_gain_limit")) {
  for (const std::string& f : provided_features()) names_.push_back(opts.feature_name(f));
}

void Scorer::init(const VideoFormat& format) const {
  validate_format(format, "vif");
  check_format(format.width, format.height, format.bit_depth);
}

std::vector<std::string> Scorer::feature_names() const {
  const std::size_t n = debug_ ? names_.size() : kNumScores;
  return {names_.begin(), names_.begin() + static_cast<std::ptrdiff_t>(n)};
}

void Scorer::emit(unsigned index, const VifValues& v, FeatureCollector& out) const {
  // Per-scale scores: float num / float den; scale 0 is 0 when skipped.
  out.set(names_[0], index, skip_scale0_ ? 0.0 : v.scale[0].score());
  for (std::size_t s = 1; s < kNumScores; ++s) out.set(names_[s], index, v.scale[s].score());
  if (!debug_) return;

  // Totals in double over the scales computed, in scale order.
  double num = 0, den = 0;
  for (std::size_t s = skip_scale0_ ? 1 : 0; s < kNumScores; ++s) {
    num += static_cast<double>(v.scale[s].num);
    den += static_cast<double>(v.scale[s].den);
  }
  out.set(names_[4], index, den == 0.0 ? 1.0 : num / den);
  out.set(names_[5], index, num);
  out.set(names_[6], index, den);
  for (std::size_t s = 0; s < kNumScores; ++s) {
    double sn = static_cast<double>(v.scale[s].num);
    double sd = static_cast<double>(v.scale[s].den);
    if (s == 0 && skip_scale0_) {
      sn = 0.0;
      sd = -1.0;
    }
    out.set(names_[7 + 2 * s], index, sn);
    out.set(names_[8 + 2 * s], index, sd);
  }
}

}  // namespace vqe::vif
