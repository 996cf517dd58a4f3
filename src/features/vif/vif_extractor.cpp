// SPDX-License-Identifier: BSD-2-Clause
// The `vif` extractor: libvmaf's integer VIF (libvmaf/src/feature/integer_vif.c,
// vmaf_fex_integer_vif) on the luma plane, with its options and outputs.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "features/vif/integer_vif.h"
#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

// libvmaf's provided_features, in its order: the four per-scale scores, then
// the debug outputs (emitted only with debug=true).
const std::vector<std::string> kProvided = {
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
constexpr std::size_t kNumScores = 4;

std::vector<OptionSpec> vif_options() {
  std::vector<OptionSpec> o;
  {
    OptionSpec s;
    s.name = "debug";
    s.type = OptionSpec::Type::kBool;
    s.default_value = 0;
    s.feature_param = false;
    s.help = "also emit integer_vif, its numerator and denominator, and each scale's "
             "numerator and denominator";
    o.push_back(s);
  }
  {
    OptionSpec s;
    s.name = "vif_enhn_gain_limit";
    s.alias = "egl";
    s.type = OptionSpec::Type::kDouble;
    s.default_value = 100.0;
    s.min = 1.0;
    s.max = 100.0;
    s.feature_param = true;
    s.help = "upper bound on the VIF gain of distorted over reference (1..100; 1 credits no "
             "enhancement)";
    o.push_back(s);
  }
  {
    OptionSpec s;
    s.name = "vif_skip_scale0";
    s.alias = "ssclz";
    s.type = OptionSpec::Type::kBool;
    s.default_value = 0;
    s.feature_param = true;
    s.help = "leave scale 0 out; its score is reported as 0";
    o.push_back(s);
  }
  return o;
}

/// Integer VIF on luma: emits integer_vif_scale0..3 (plus libvmaf's debug
/// outputs with debug=true). Accepts 8/10/12/16-bit pictures of at least
/// 16x16 luma samples; non-temporal, cloneable.
class VifExtractor final : public FeatureExtractor {
 public:
  // Everything an instance needs from its options. Kept by value (not the
  // ParsedOptions) so clones never refer back to the options they came from.
  struct Config {
    bool debug = false;
    bool skip_scale0 = false;
    double gain_limit = 100.0;
    simd::Level level = simd::Level::scalar;  // CPU level of the kernels
    std::vector<std::string> names;  // emitted names, kProvided order
  };

  static Config make_config(const ParsedOptions& opts, simd::Level level) {
    Config c;
    c.level = level;
    c.debug = opts.get_bool("debug");
    c.skip_scale0 = opts.get_bool("vif_skip_scale0");
    c.gain_limit = opts.get_double("vif_enhn_gain_limit");
    for (const std::string& f : kProvided) c.names.push_back(opts.feature_name(f));
    return c;
  }

  explicit VifExtractor(Config config)
      : cfg_(std::move(config)), kernel_(cfg_.gain_limit, cfg_.skip_scale0, cfg_.level) {}

  void init(const VideoFormat& format) override {
    validate_format(format, "vif");
    kernel_.init(format.width, format.height, format.bit_depth);
    format_ = format;
  }

  std::vector<std::string> feature_names() const override {
    const std::size_t n = cfg_.debug ? cfg_.names.size() : kNumScores;
    return {cfg_.names.begin(), cfg_.names.begin() + static_cast<std::ptrdiff_t>(n)};
  }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error(fmt::format("vif: frame {} does not have the initialised format {}x{} {}-bit",
                              index, format_.width, format_.height, format_.bit_depth));
    const vif::VifValues v = kernel_.compute(reference.plane(0), distorted.plane(0), tiles_);
    const std::vector<std::string>& names = cfg_.names;

    // Per-scale scores: float num / float den; scale 0 is 0 when skipped.
    out.set(names[0], index, cfg_.skip_scale0 ? 0.0 : v.scale[0].score());
    for (std::size_t s = 1; s < kNumScores; ++s) out.set(names[s], index, v.scale[s].score());
    if (!cfg_.debug) return;

    // Totals in double over the scales computed, in scale order.
    double num = 0, den = 0;
    for (std::size_t s = cfg_.skip_scale0 ? 1 : 0; s < kNumScores; ++s) {
      num += static_cast<double>(v.scale[s].num);
      den += static_cast<double>(v.scale[s].den);
    }
    out.set(names[4], index, den == 0.0 ? 1.0 : num / den);
    out.set(names[5], index, num);
    out.set(names[6], index, den);
    for (std::size_t s = 0; s < kNumScores; ++s) {
      double sn = static_cast<double>(v.scale[s].num);
      double sd = static_cast<double>(v.scale[s].den);
      if (s == 0 && cfg_.skip_scale0) {
        sn = 0.0;
        sd = -1.0;
      }
      out.set(names[7 + 2 * s], index, sn);
      out.set(names[8 + 2 * s], index, sd);
    }
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<VifExtractor>(cfg_);
  }

 private:
  Config cfg_;
  vif::IntegerVifKernel kernel_;  // working buffers of this instance only
  VideoFormat format_{};
  TileRunner* tiles_ = nullptr;  // null: one thread
};

const bool kRegistered = register_extractor(ExtractorInfo{
    "vif", vif_options(), kProvided,
    [](const ParsedOptions& opts, simd::Level level) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<VifExtractor>(VifExtractor::make_config(opts, level));
    }});

}  // namespace
}  // namespace vqe
