// SPDX-License-Identifier: BSD-2-Clause
// The `adm` feature extractor: libvmaf's integer ADM
// (libvmaf/src/feature/integer_adm.c), emitting integer_adm2, integer_aim,
// integer_adm3 and integer_adm_scale0..3 (plus num/den values with debug).

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "features/adm/integer_adm.h"
#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

// libvmaf's internal names, in its provided_features order. The first seven
// are always emitted; the rest only with debug=true.
constexpr const char* kAdm2 = "VMAF_integer_feature_adm2_score";
constexpr const char* kAim = "VMAF_integer_feature_aim_score";
constexpr const char* kAdm3 = "VMAF_integer_feature_adm3_score";
constexpr const char* kScale[4] = {"integer_adm_scale0", "integer_adm_scale1",
                                   "integer_adm_scale2", "integer_adm_scale3"};
constexpr const char* kDebugAdm = "integer_adm";
constexpr const char* kDebugNum = "integer_adm_num";
constexpr const char* kDebugDen = "integer_adm_den";
constexpr const char* kDebugNumScale[4] = {"integer_adm_num_scale0", "integer_adm_num_scale1",
                                           "integer_adm_num_scale2", "integer_adm_num_scale3"};
constexpr const char* kDebugDenScale[4] = {"integer_adm_den_scale0", "integer_adm_den_scale1",
                                           "integer_adm_den_scale2", "integer_adm_den_scale3"};

/// Everything an instance needs, read once from the parsed options (kept
/// instead of ParsedOptions so that clone() depends on nothing else).
struct AdmConfig {
  adm::AdmParams params;
  bool debug = false;
  double dlm_weight = 0.5;
  double min_val = 0.0;
  struct Names {
    std::string adm2, aim, adm3, scale[4];
    std::string adm, num, den, num_scale[4], den_scale[4];
  } names;

  simd::Level level = simd::Level::scalar;  ///< CPU level of the kernels

  AdmConfig(const ParsedOptions& opts, simd::Level cpu_level) : level(cpu_level) {
    debug = opts.get_bool("debug");
    dlm_weight = opts.get_double("adm_dlm_weight");
    min_val = opts.get_double("adm_min_val");
    params.enhn_gain_limit = opts.get_double("adm_enhn_gain_limit");
    params.csf.norm_view_dist = opts.get_double("adm_norm_view_dist");
    params.csf.ref_display_height = opts.get_int("adm_ref_display_height");
    params.csf.mode = static_cast<adm::CsfMode>(opts.get_int("adm_csf_mode"));
    params.csf.csf_scale = opts.get_double("adm_csf_scale");
    params.csf.csf_diag_scale = opts.get_double("adm_csf_diag_scale");
    params.noise_weight = opts.get_double("adm_noise_weight");
    params.skip_aim = opts.get_bool("adm_skip_aim");
    params.skip_scale0 = opts.get_bool("adm_skip_scale0");

    names.adm2 = opts.feature_name(kAdm2);
    names.aim = opts.feature_name(kAim);
    names.adm3 = opts.feature_name(kAdm3);
    for (int s = 0; s < 4; ++s) {
      names.scale[s] = opts.feature_name(kScale[s]);
      names.num_scale[s] = opts.feature_name(kDebugNumScale[s]);
      names.den_scale[s] = opts.feature_name(kDebugDenScale[s]);
    }
    names.adm = opts.feature_name(kDebugAdm);
    names.num = opts.feature_name(kDebugNum);
    names.den = opts.feature_name(kDebugDen);
  }
};

class IntegerAdmExtractor final : public FeatureExtractor {
 public:
  explicit IntegerAdmExtractor(AdmConfig config) : cfg_(std::move(config)) {}

  void init(const VideoFormat& format) override {
    adm_.emplace(format.width, format.height, format.bit_depth, cfg_.params, cfg_.level);
    format_ = format;
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> out = {cfg_.names.adm2, cfg_.names.aim, cfg_.names.adm3};
    for (int s = 0; s < 4; ++s) out.push_back(cfg_.names.scale[s]);
    if (cfg_.debug) {
      out.push_back(cfg_.names.adm);
      out.push_back(cfg_.names.num);
      out.push_back(cfg_.names.den);
      for (int s = 0; s < 4; ++s) {
        out.push_back(cfg_.names.num_scale[s]);
        out.push_back(cfg_.names.den_scale[s]);
      }
    }
    return out;
  }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (!adm_) throw Error("adm: extract() called before init()");
    for (const Picture* p : {&reference, &distorted})
      if (p->width() != format_.width || p->height() != format_.height ||
          p->bit_depth() != format_.bit_depth)
        throw Error("adm: picture format differs from the one given to init()");
    const adm::AdmResult r = adm_->compute(reference.plane(0), distorted.plane(0), tiles_);
    out.set(cfg_.names.adm2, index, r.adm2);
    out.set(cfg_.names.aim, index, r.aim);
    // ADM3 blends detail loss with additive impairment, floored at adm_min_val.
    const double adm3 = r.adm2 * cfg_.dlm_weight + (1 - r.aim) * (1 - cfg_.dlm_weight);
    out.set(cfg_.names.adm3, index, adm3 > cfg_.min_val ? adm3 : cfg_.min_val);
    for (int s = 0; s < 4; ++s) out.set(cfg_.names.scale[s], index, r.scale_score(s));
    if (!cfg_.debug) return;
    out.set(cfg_.names.adm, index, r.adm2);
    out.set(cfg_.names.num, index, r.num);
    out.set(cfg_.names.den, index, r.den);
    for (int s = 0; s < 4; ++s) {
      out.set(cfg_.names.num_scale[s], index, r.num_scale[s]);
      out.set(cfg_.names.den_scale[s], index, r.den_scale[s]);
    }
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<IntegerAdmExtractor>(cfg_);
  }

 private:
  AdmConfig cfg_;
  VideoFormat format_{};
  std::optional<adm::IntegerAdm> adm_;
  TileRunner* tiles_ = nullptr;  // null: one thread
};

using T = OptionSpec::Type;

/// One option as libvmaf declares it (alias "" = none).
OptionSpec option(const char* name, const char* alias, T type, double default_value,
                  double min, double max, bool feature_param, const char* help) {
  OptionSpec o;
  o.name = name;
  o.alias = alias;
  o.type = type;
  o.default_value = default_value;
  o.min = min;
  o.max = max;
  o.feature_param = feature_param;
  o.help = help;
  return o;
}

// Names, aliases, defaults, ranges and feature-param flags of libvmaf 3.2.0.
const bool kRegistered = register_extractor({
    "adm",
    {
        option("debug", "", T::kBool, 0, 0, 1, false,
               "also emit integer_adm, its numerator and denominator, and per-scale values"),
        option("adm_csf_scale", "scf", T::kDouble, 1.0, 0.0, 50.0, true,
               "multiplier on the Barten CSF for the horizontal and vertical bands (adm_csf_mode=1)"),
        option("adm_csf_diag_scale", "scfd", T::kDouble, 1.0, 0.0, 50.0, true,
               "multiplier on the Barten CSF for the diagonal band (adm_csf_mode=1)"),
        option("adm_dlm_weight", "dlmw", T::kDouble, 0.5, 0.0, 1.0, true,
               "w in integer_adm3 = w·adm2 + (1 − w)·(1 − aim); 1 keeps adm2 alone"),
        option("adm_enhn_gain_limit", "egl", T::kDouble, 100.0, 1.0, 100.0, true,
               "cap on the enhancement credited to restored detail (1..100; 1 credits none)"),
        option("adm_norm_view_dist", "nvd", T::kDouble, 3.0, 0.75, 24.0, true,
               "viewing distance in multiples of the display height"),
        option("adm_ref_display_height", "rdh", T::kInt, 1080, 1, 4320, true,
               "display height in pixels assumed by the CSF"),
        option("adm_csf_mode", "csf", T::kInt, 0, 0, 3, true,
               "CSF: 0 Watson 1997, 1 Barten, 2 Barten-Watson blend, 3 blend with MAE fix"),
        option("adm_noise_weight", "nw", T::kDouble, 0.03125, 0.0, 1500.0, true,
               "weight of the noise floor added to each band's pooled masking and denominator"),
        option("adm_skip_aim", "", T::kBool, 0, 0, 1, false,
               "skip the AIM computation (integer_aim = 0)"),
        option("adm_skip_scale0", "ssz", T::kBool, 0, 0, 1, true,
               "skip scale 0 (numerator 0, denominator 1e-10)"),
        option("adm_min_val", "min", T::kDouble, 0.0, 0.0, 1.0, true,
               "floor applied to integer_adm3"),
    },
    {kAdm2, kAim, kAdm3, kScale[0], kScale[1], kScale[2], kScale[3], kDebugAdm, kDebugNum,
     kDebugDen, kDebugNumScale[0], kDebugDenScale[0], kDebugNumScale[1], kDebugDenScale[1],
     kDebugNumScale[2], kDebugDenScale[2], kDebugNumScale[3], kDebugDenScale[3]},
    [](const ParsedOptions& o, simd::Level l) {
      return std::make_unique<IntegerAdmExtractor>(AdmConfig(o, l));
    },
});

}  // namespace
}  // namespace vqe
