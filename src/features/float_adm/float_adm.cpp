// SPDX-License-Identifier: BSD-2-Clause
// The float_adm extractor: libvmaf's floating-point ADM / DLM
// (libvmaf/src/feature/float_adm.c) on the luma plane.
//
// Emits VMAF_feature_adm2_score, _aim_score, _adm3_score and
// _adm_scale0..3_score (aliases adm2, aim, adm3, adm_scale0..3) and, with
// debug=true, adm, adm_num, adm_den, adm_num_scale0..3 and adm_den_scale0..3,
// with libvmaf's option suffixes ("adm" is emitted without a suffix, as
// libvmaf does, because it is missing from libvmaf's provided-feature list).
// Accepts 8, 10, 12 and 16 bits (samples mapped to x / 2^(bpc-8) - 128).
// Refuses frames narrower or shorter than 17 samples: libvmaf reads outside
// its buffers there.

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "features/float_adm/adm_kernels.h"
#include "core/float_plane.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

using float_adm::AdmComputer;
using float_adm::AdmParams;
using float_adm::AdmResult;

constexpr const char* kName = "float_adm";

// libvmaf's provided_features of float_adm, verbatim (including the unused
// "adm_scale0" entry).
const char* const kProvided[] = {
    "VMAF_feature_adm2_score",       "VMAF_feature_aim_score",
    "VMAF_feature_adm3_score",       "VMAF_feature_adm_scale0_score",
    "VMAF_feature_adm_scale1_score", "VMAF_feature_adm_scale2_score",
    "VMAF_feature_adm_scale3_score", "adm_num",
    "adm_den",                       "adm_scale0",
    "adm_num_scale0",                "adm_den_scale0",
    "adm_num_scale1",                "adm_den_scale1",
    "adm_num_scale2",                "adm_den_scale2",
    "adm_num_scale3",                "adm_den_scale3",
};

std::vector<OptionSpec> adm_options() {
  using T = OptionSpec::Type;
  std::vector<OptionSpec> o;
  o.push_back(
      OptionSpec{.name = "debug", .type = T::kBool, .default_value = 0, .feature_param = false,
                 .help = "also emit adm, adm_num, adm_den and each scale's numerator and denominator"});
  o.push_back(
      OptionSpec{.name = "adm_enhn_gain_limit", .alias = "egl", .type = T::kDouble,
                 .default_value = 100.0, .min = 1.0, .max = 100.0, .feature_param = true,
                 .help = "cap on the enhancement credited to restored detail (1..100; 1 credits none)"});
  o.push_back(OptionSpec{.name = "adm_norm_view_dist", .alias = "nvd", .type = T::kDouble,
                         .default_value = 3.0, .min = 0.75, .max = 24.0, .feature_param = true,
                         .help = "viewing distance in multiples of the display height"});
  o.push_back(
      OptionSpec{.name = "adm_noise_weight", .alias = "nw", .type = T::kDouble,
                 .default_value = 0.03125, .min = 0.0, .max = 1500.0, .feature_param = true,
                 .help = "weight of the noise floor added to each band's pooled masking and denominator"});
  o.push_back(OptionSpec{.name = "adm_csf_scale", .alias = "scf", .type = T::kDouble,
                         .default_value = 1.0, .min = 0.0, .max = 50.0, .feature_param = true,
                         .help = "multiplier on the Barten CSF for the horizontal and vertical bands "
                         "(adm_csf_mode=1)"});
  o.push_back(OptionSpec{.name = "adm_csf_diag_scale", .alias = "scfd", .type = T::kDouble,
                         .default_value = 1.0, .min = 0.0, .max = 50.0, .feature_param = true,
                         .help = "multiplier on the Barten CSF for the diagonal band (adm_csf_mode=1)"});
  o.push_back(OptionSpec{.name = "adm_ref_display_height", .alias = "rdf", .type = T::kInt,
                         .default_value = 1080, .min = 1, .max = 4320, .feature_param = true,
                         .help = "display height in pixels assumed by the CSF"});
  o.push_back(
      OptionSpec{.name = "adm_csf_mode", .alias = "csf", .type = T::kInt, .default_value = 0,
                 .min = 0, .max = 9, .feature_param = true,
                 .help = "CSF model: 0 Watson, 1 Barten, 2 ADM's own; 3..9 behave as 0 (as in libvmaf's "
                 "float ADM)"});
  o.push_back(OptionSpec{.name = "adm_bypass_cm", .alias = "bcm", .type = T::kInt,
                         .default_value = 0, .min = 0, .max = 1, .feature_param = true,
                         .help = "1: pool the CSF-weighted bands without the masking threshold"});
  o.push_back(
      OptionSpec{.name = "adm_adm3_apply_hm", .alias = "aah", .type = T::kBool, .default_value = 0,
                 .feature_param = true,
                 .help = "adm3 = harmonic mean of adm2 and aim instead of the adm_dlm_weight blend"});
  o.push_back(OptionSpec{.name = "adm_p_norm", .alias = "apn", .type = T::kDouble,
                         .default_value = 3.0, .min = 1.0, .max = 20.0, .feature_param = true,
                         .help = "Minkowski exponent used to pool band coefficients"});
  o.push_back(OptionSpec{.name = "adm_dlm_weight", .alias = "dlmw", .type = T::kDouble,
                         .default_value = 0.5, .min = 0.0, .max = 1.0, .feature_param = true,
                         .help = "w in adm3 = w·adm2 + (1 − w)·(1 − aim); 1 keeps adm2 alone"});
  o.push_back(
      OptionSpec{.name = "adm_min_val", .alias = "min", .type = T::kDouble, .default_value = 0.0,
                 .min = 0.0, .max = 1.0, .feature_param = true, .help = "floor applied to adm3"});
  for (int f = 1; f <= 2; ++f)
    for (int s = 0; s < 4; ++s)
      o.push_back(OptionSpec{.name = fmt::format("adm_f{}s{}", f, s),
                             .alias = fmt::format("f{}s{}", f, s), .type = T::kDouble,
                             .default_value = -1.0, .min = -1.0, .max = 10.0, .feature_param = true,
                             .help = fmt::format("override of the {} CSF factor at DWT scale {} (negative: use the CSF model)",
                                          f == 1 ? "horizontal/vertical" : "diagonal", s)});
  o.push_back(OptionSpec{.name = "adm_skip_aim_scale", .alias = "sasc", .type = T::kInt,
                         .default_value = -1, .min = 0, .max = 3, .feature_param = true,
                         .help = "DWT scale (0..3) left out of the aim sums; -1 keeps all"});
  o.push_back(OptionSpec{.name = "adm_skip_scale0", .alias = "ssz", .type = T::kBool,
                         .default_value = 0, .feature_param = true,
                         .help = "leave DWT scale 0 out (numerator 0, denominator 1e-10)"});
  return o;
}

class FloatAdm final : public FeatureExtractor {
 public:
  explicit FloatAdm(const ParsedOptions& opts) : opts_(opts) {
    debug_ = opts.get_bool("debug");
    params_.enhn_gain_limit = opts.get_double("adm_enhn_gain_limit");
    params_.norm_view_dist = opts.get_double("adm_norm_view_dist");
    params_.noise_weight = opts.get_double("adm_noise_weight");
    params_.csf_scale = opts.get_double("adm_csf_scale");
    params_.csf_diag_scale = opts.get_double("adm_csf_diag_scale");
    params_.ref_display_height = opts.get_int("adm_ref_display_height");
    params_.csf_mode = opts.get_int("adm_csf_mode");
    params_.bypass_cm = opts.get_int("adm_bypass_cm");
    params_.p_norm = opts.get_double("adm_p_norm");
    for (int s = 0; s < 4; ++s) {
      params_.f1[s] = opts.get_double(fmt::format("adm_f1s{}", s));
      params_.f2[s] = opts.get_double(fmt::format("adm_f2s{}", s));
    }
    params_.skip_aim_scale = opts.get_int("adm_skip_aim_scale");
    params_.skip_scale0 = opts.get_bool("adm_skip_scale0");
    apply_hm_ = opts.get_bool("adm_adm3_apply_hm");
    dlm_weight_ = opts.get_double("adm_dlm_weight");
    min_val_ = opts.get_double("adm_min_val");
    for (const char* f : kProvided) names_.push_back(opts.feature_name(f));
  }

  void init(const VideoFormat& format) override {
    w_ = format.width;
    h_ = format.height;
    if (w_ < float_adm::kMinSide || h_ < float_adm::kMinSide)
      throw Error(fmt::format("{}: frame {}x{} is smaller than the minimum {}x{} (each of the "
                              "4 DWT levels needs bands of at least 2x2 samples)",
                              kName, w_, h_, float_adm::kMinSide, float_adm::kMinSide));
    const std::size_t n = static_cast<std::size_t>(w_) * h_;
    scratch().get_pair<float>(kScratchPlanes, n);  // the planes as float
    computer_ = AdmComputer(w_, h_, params_);
    computer_.reserve(scratch());  // the bands, beside the planes
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> out(names_.begin(), names_.begin() + 7);
    if (debug_) {
      out.push_back("adm");
      out.push_back(names_[7]);  // adm_num
      out.push_back(names_[8]);  // adm_den
      for (int k = 10; k < 18; ++k) out.push_back(names_[k]);
    }
    return out;
  }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const std::size_t n = static_cast<std::size_t>(w_) * h_;
    const auto [ref, dis] = scratch().get_pair<float>(kScratchPlanes, n);
    plane_to_float(reference.plane(0), reference.bit_depth(), -128.0f, ref);
    plane_to_float(distorted.plane(0), distorted.bit_depth(), -128.0f, dis);
    const AdmResult r = computer_.compute(ref, dis, w_, scratch());

    auto at_least = [](double x, double floor) { return x > floor ? x : floor; };
    out.set(names_[0], index, r.score);
    out.set(names_[1], index, r.score_aim);
    const double adm3 =
        apply_hm_ ? 2 * r.score * r.score_aim / (r.score + r.score_aim)
                  : r.score * dlm_weight_ + (1 - r.score_aim) * (1 - dlm_weight_);
    out.set(names_[2], index, at_least(adm3, min_val_));
    for (int s = 0; s < 4; ++s) out.set(names_[3 + s], index, r.num[s] / r.den[s]);
    if (!debug_) return;
    out.set("adm", index, r.score);
    out.set(names_[7], index, r.num_total);
    out.set(names_[8], index, r.den_total);
    for (int s = 0; s < 4; ++s) {
      out.set(names_[10 + 2 * s], index, r.num[s]);
      out.set(names_[11 + 2 * s], index, r.den[s]);
    }
  }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatAdm>(opts_);
  }

 private:
  ParsedOptions opts_;
  bool debug_ = false;
  AdmParams params_;
  bool apply_hm_ = false;
  double dlm_weight_ = 0.5;
  double min_val_ = 0.0;
  std::vector<std::string> names_;
  int w_ = 0, h_ = 0;
  AdmComputer computer_;
};

}  // namespace

const ExtractorInfo& float_adm_extractor() {
  static const ExtractorInfo info{
      .name = kName,
      .options = adm_options(),
      .provided_features = {std::begin(kProvided), std::end(kProvided)},
      .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatAdm>(o);
      },
  };
  return info;
}

}  // namespace vqe
