// SPDX-License-Identifier: BSD-2-Clause
#include "features/adm/adm_score.h"

namespace vqe::adm {

std::vector<OptionSpec> options() {
  using T = OptionSpec::Type;
  // Names, aliases, defaults, ranges and feature-param flags of libvmaf 3.2.0.
  return {
      {.name = "debug",
       .type = T::kBool,
       .feature_param = false,
       .help = "also emit integer_adm, its numerator and denominator, and per-scale values"},
      {.name = "adm_csf_scale",
       .alias = "scf",
       .default_value = 1.0,
       .min = 0.0,
       .max = 50.0,
       .help = "multiplier on the Barten CSF for the horizontal and vertical bands "
               "(adm_csf_mode=1)"},
      {.name = "adm_csf_diag_scale",
       .alias = "scfd",
       .default_value = 1.0,
       .min = 0.0,
       .max = 50.0,
       .help = "multiplier on the Barten CSF for the diagonal band (adm_csf_mode=1)"},
      {.name = "adm_dlm_weight",
       .alias = "dlmw",
       .default_value = 0.5,
       .min = 0.0,
       .max = 1.0,
       .help = "w in integer_adm3 = w·adm2 + (1 − w)·(1 − aim); 1 keeps adm2 alone"},
      {.name = "adm_enhn_gain_limit",
       .alias = "egl",
       .default_value = 100.0,
       .min = 1.0,
       .max = 100.0,
       .help = "cap on the enhancement credited to restored detail (1..100; 1 credits none)"},
      {.name = "adm_norm_view_dist",
       .alias = "nvd",
       .default_value = 3.0,
       .min = 0.75,
       .max = 24.0,
       .help = "viewing distance in multiples of the display height"},
      {.name = "adm_ref_display_height",
       .alias = "rdh",
       .type = T::kInt,
       .default_value = 1080,
       .min = 1,
       .max = 4320,
       .help = "display height in pixels assumed by the CSF"},
      {.name = "adm_csf_mode",
       .alias = "csf",
       .type = T::kInt,
       .default_value = 0,
       .min = 0,
       .max = 3,
       .help = "CSF: 0 Watson 1997, 1 Barten, 2 Barten-Watson blend, 3 blend with MAE fix"},
      {.name = "adm_noise_weight",
       .alias = "nw",
       .default_value = 0.03125,
       .min = 0.0,
       .max = 1500.0,
       .help = "weight of the noise floor added to each band's pooled masking and denominator"},
      {.name = "adm_skip_aim",
       .type = T::kBool,
       .feature_param = false,
       .help = "skip the AIM computation (integer_aim = 0)"},
      {.name = "adm_skip_scale0",
       .alias = "ssz",
       .type = T::kBool,
       .help = "skip scale 0 (numerator 0, denominator 1e-10)"},
      {.name = "adm_min_val",
       .alias = "min",
       .default_value = 0.0,
       .min = 0.0,
       .max = 1.0,
       .help = "floor applied to integer_adm3"},
  };
}

const std::vector<std::string>& provided_features() {
  static const std::vector<std::string> names = {
      "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
      "VMAF_integer_feature_adm3_score", "integer_adm_scale0",
      "integer_adm_scale1",              "integer_adm_scale2",
      "integer_adm_scale3",              "integer_adm",
      "integer_adm_num",                 "integer_adm_den",
      "integer_adm_num_scale0",          "integer_adm_den_scale0",
      "integer_adm_num_scale1",          "integer_adm_den_scale1",
      "integer_adm_num_scale2",          "integer_adm_den_scale2",
      "integer_adm_num_scale3",          "integer_adm_den_scale3"};
  return names;
}

Scorer::Scorer(const ParsedOptions& opts) {
  debug_ = opts.get_bool("debug");
  dlm_weight_ = opts.get_double("adm_dlm_weight");
  min_val_ = opts.get_double("adm_min_val");
  params_.enhn_gain_limit = opts.get_double("adm_enhn_gain_limit");
  params_.csf.norm_view_dist = opts.get_double("adm_norm_view_dist");
  params_.csf.ref_display_height = opts.get_int("adm_ref_display_height");
  params_.csf.mode = static_cast<CsfMode>(opts.get_int("adm_csf_mode"));
  params_.csf.csf_scale = opts.get_double("adm_csf_scale");
  params_.csf.csf_diag_scale = opts.get_double("adm_csf_diag_scale");
  params_.noise_weight = opts.get_double("adm_noise_weight");
  params_.skip_aim = opts.get_bool("adm_skip_aim");
  params_.skip_scale0 = opts.get_bool("adm_skip_scale0");
  for (const std::string& f : provided_features()) names_.push_back(opts.feature_name(f));
}

void Scorer::init(const VideoFormat& format) const {
  validate_format(format, "adm");
  check_format(format.width, format.height, format.bit_depth, params_);
}

std::vector<std::string> Scorer::feature_names() const {
  const std::size_t n = debug_ ? names_.size() : 3 + kNumScales;
  return {names_.begin(), names_.begin() + static_cast<std::ptrdiff_t>(n)};
}

void Scorer::emit(unsigned index, const AdmResult& r, FeatureCollector& out) const {
  out.set(names_[0], index, r.adm2);
  out.set(names_[1], index, r.aim);
  // ADM3 blends detail loss with additive impairment, floored at adm_min_val.
  const double adm3 = r.adm2 * dlm_weight_ + (1 - r.aim) * (1 - dlm_weight_);
  out.set(names_[2], index, adm3 > min_val_ ? adm3 : min_val_);
  for (int s = 0; s < kNumScales; ++s) out.set(names_[3 + s], index, r.scale_score(s));
  if (!debug_) return;
  out.set(names_[7], index, r.adm2);
  out.set(names_[8], index, r.num);
  out.set(names_[9], index, r.den);
  for (int s = 0; s < kNumScales; ++s) {
    out.set(names_[10 + 2 * s], index, r.num_scale[s]);
    out.set(names_[11 + 2 * s], index, r.den_scale[s]);
  }
}

}  // namespace vqe::adm
