// SPDX-License-Identifier: BSD-2-Clause
// The "speed_chroma" feature extractor: libvmaf 3.2.0's SpEED on the U and V
// planes (libvmaf/src/feature/speed.c, vmaf_fex_speed_chroma).
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "features/speed/speed_core.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

constexpr const char* kFeatureU = "Speed_chroma_feature_speed_chroma_u_score";
constexpr const char* kFeatureV = "Speed_chroma_feature_speed_chroma_v_score";
constexpr const char* kFeatureUV = "Speed_chroma_feature_speed_chroma_uv_score";

std::vector<OptionSpec> speed_chroma_options() {
  using T = OptionSpec::Type;
  // name, alias, type, default, min, max, default_string, feature_param, help
  return {
      {"speed_kernelscale", "ks", T::kDouble, 1.0, 0.1, 4.0, "", true,
       "multiplier on the Gaussian filter's sigma and length; only supported values are "
       "accepted"},
      {"speed_prescale", "ps", T::kDouble, 1.0, 0.1, 4.0, "", true,
       "resize factor applied before SpEED (2 doubles width and height)"},
      {"speed_prescale_method", "psm", T::kString, 0, -1e300, 1e300, "nearest", true,
       "resampling filter for speed_prescale: nearest, bilinear, bicubic or lanczos4"},
      {"speed_sigma_nn", "snn", T::kDouble, 0.29, 0.1, 2.0, "", true,
       "neural-noise level added to every eigenvalue term of the block entropies"},
      {"speed_nn_floor", "nnf", T::kDouble, 0.0, 0.0, 1.0, "", true,
       "blocks whose entropies both stay below that of noise at (1 + this) times "
       "speed_sigma_nn are ignored"},
      {"speed_max_val", "mxv", T::kDouble, 1000.0, 0.0, 1000.0, "", true,
       "ceiling of the reported scores; higher values are clamped to it"},
      {"speed_weight_var_mode", "wvm", T::kInt, 0, 0, 6, "", true,
       "variance weighting of block entropies: 0 each its own, 1 reference's, "
       "2 distorted's, 3 their mean; 4..6 reference's for the reference and a mix "
       "(1/2, 3/4, 1/4 reference) for the distorted"},
  };
}

/// Option values of one speed_chroma instance, read once.
struct SpeedChromaOptions {
  speed::Options engine;
  std::string method_name;
  double max_val = 1000.0;
  std::string name_u, name_v, name_uv;

  explicit SpeedChromaOptions(const ParsedOptions& o)
      : method_name(o.get_string("speed_prescale_method")),
        max_val(o.get_double("speed_max_val")),
        name_u(o.feature_name(kFeatureU)),
        name_v(o.feature_name(kFeatureV)),
        name_uv(o.feature_name(kFeatureUV)) {
    engine.kernelscale = o.get_double("speed_kernelscale");
    engine.prescale = o.get_double("speed_prescale");
    engine.sigma_nn = o.get_double("speed_sigma_nn");
    engine.nn_floor = o.get_double("speed_nn_floor");
    engine.weight_var_mode = o.get_int("speed_weight_var_mode");
  }
};

/// SpEED on the chroma planes. Emits speed_chroma_u, speed_chroma_v and
/// speed_chroma_uv (mean of the two, or the one that is not singular), each
/// clipped to speed_max_val. Scores the chroma planes as the file holds them
/// (ceil(W/2) for subsampled odd widths; libvmaf rounds down). Refuses 4:0:0
/// and chroma planes below 80x80 samples after speed_prescale.
class SpeedChromaExtractor final : public FeatureExtractor {
 public:
  explicit SpeedChromaExtractor(const SpeedChromaOptions& opts) : opts_(opts) {}

  void init(const VideoFormat& format) override {
    if (format.chroma == ChromaFormat::k400)
      throw Error("speed_chroma: the input has no chroma planes (4:0:0)");
    speed::Options engine = opts_.engine;
    if (!speed::parse_scale_method(opts_.method_name, &engine.prescale_method))
      throw Error(fmt::format(
          "speed_chroma: invalid speed_prescale_method '{}' (nearest, bilinear, bicubic, "
          "lanczos4)",
          opts_.method_name));
    bit_depth_ = format.bit_depth;
    engine_.init(format.plane_width(1), format.plane_height(1), engine, "speed_chroma");
  }

  std::vector<std::string> feature_names() const override {
    return {opts_.name_u, opts_.name_v, opts_.name_uv};
  }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    float score_u = 0, score_v = 0;
    const bool ok_u = score_plane(reference, distorted, 1, &score_u);
    const bool ok_v = score_plane(reference, distorted, 2, &score_v);
    // A singular (e.g. flat) plane takes the other plane's score.
    float score_uv;
    if (!ok_u && ok_v) {
      score_uv = score_v;
    } else if (!ok_v && ok_u) {
      score_uv = score_u;
    } else {
      score_uv = static_cast<float>((score_u + score_v) / 2.0);
    }
    out.set(opts_.name_u, index, clip(score_u));
    out.set(opts_.name_v, index, clip(score_v));
    out.set(opts_.name_uv, index, clip(score_uv));
  }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<SpeedChromaExtractor>(opts_);
  }

 private:
  bool score_plane(const Picture& reference, const Picture& distorted, int plane, float* score) {
    speed::copy_plane(reference.plane(plane), bit_depth_, engine_.reference_buffer(),
                      engine_.stride());
    speed::copy_plane(distorted.plane(plane), bit_depth_, engine_.distorted_buffer(),
                      engine_.stride());
    return engine_.score(engine_.reference_buffer(), engine_.distorted_buffer(), score);
  }

  // libvmaf's MIN(score, speed_max_val), in double.
  double clip(float score) const {
    return static_cast<double>(score) < opts_.max_val ? static_cast<double>(score)
                                                       : opts_.max_val;
  }

  SpeedChromaOptions opts_;
  int bit_depth_ = 8;
  speed::Engine engine_;
};

}  // namespace

const ExtractorInfo& speed_chroma_extractor() {
  static const ExtractorInfo info{
      "speed_chroma",
      speed_chroma_options(),
      {kFeatureU, kFeatureV, kFeatureUV},
      [](const ParsedOptions& opts, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<SpeedChromaExtractor>(SpeedChromaOptions(opts));
      },
  };
  return info;
}

}  // namespace vqe
