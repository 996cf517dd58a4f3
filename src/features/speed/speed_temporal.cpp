// SPDX-License-Identifier: BSD-2-Clause
// The "speed_temporal" feature extractor: libvmaf 3.2.0's SpEED on luma frame
// differences (libvmaf/src/feature/speed.c, vmaf_fex_speed_temporal).
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "features/speed/speed_core.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

constexpr const char* kFeature = "Speed_temporal_feature_speed_temporal_score";

std::vector<OptionSpec> speed_temporal_options() {
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
       "accepted for compatibility and ignored: speed_temporal scores are never "
       "clamped"},
      {"speed_use_ref_diff", "urd", T::kBool, 0, -1e300, 1e300, "", true,
       "debug mode: take the distorted frame difference against the reference"},
  };
}

/// Option values of one speed_temporal instance, read once.
struct SpeedTemporalOptions {
  speed::Options engine;
  std::string method_name;
  bool use_ref_diff = false;
  std::string name;

  explicit SpeedTemporalOptions(const ParsedOptions& o)
      : method_name(o.get_string("speed_prescale_method")),
        use_ref_diff(o.get_bool("speed_use_ref_diff")),
        name(o.feature_name(kFeature)) {
    engine.kernelscale = o.get_double("speed_kernelscale");
    engine.prescale = o.get_double("speed_prescale");
    engine.sigma_nn = o.get_double("speed_sigma_nn");
    engine.nn_floor = o.get_double("speed_nn_floor");
    engine.weight_var_mode = 0;  // libvmaf leaves it at 0 for speed_temporal
  }
};

/// SpEED between consecutive luma frame differences (previous − current) of
/// reference and distorted. Frame 0 scores 0. Temporal: frames in order.
/// Refuses luma planes below 80x80 samples after speed_prescale.
class SpeedTemporalExtractor final : public FeatureExtractor {
 public:
  explicit SpeedTemporalExtractor(const SpeedTemporalOptions& opts) : opts_(opts) {}

  void init(const VideoFormat& format) override {
    speed::Options engine = opts_.engine;
    if (!speed::parse_scale_method(opts_.method_name, &engine.prescale_method))
      throw Error(fmt::format(
          "speed_temporal: invalid speed_prescale_method '{}' (nearest, bilinear, bicubic, "
          "lanczos4)",
          opts_.method_name));
    bit_depth_ = format.bit_depth;
    width_ = format.width;
    height_ = format.height;
    engine_.init(width_, height_, engine, "speed_temporal");
    const std::size_t size = engine_.stride() * std::max(height_, speed::scaled_side(height_, engine.prescale));
    for (auto* b : {&ref_[0], &ref_[1], &dis_[0], &dis_[1]}) b->assign(size, 0.0f);
  }

  std::vector<std::string> feature_names() const override { return {opts_.name}; }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const int cur = index % 2;
    const int prev = (index + 1) % 2;
    const std::size_t stride = engine_.stride();
    speed::copy_plane(reference.plane(0), bit_depth_, ref_[cur].data(), stride);
    speed::copy_plane(distorted.plane(0), bit_depth_, dis_[cur].data(), stride);
    if (index == 0) {
      out.set(opts_.name, index, 0.0);
      return;
    }
    // prev <- prev - cur (the previous frame's buffer is consumed here).
    const std::vector<float>& dis_base = opts_.use_ref_diff ? ref_[cur] : dis_[cur];
    for (int i = 0; i < height_; ++i)
      for (int j = 0; j < width_; ++j) {
        ref_[prev][i * stride + j] -= ref_[cur][i * stride + j];
        dis_[prev][i * stride + j] -= dis_base[i * stride + j];
      }
    float score = 0;
    engine_.score(ref_[prev].data(), dis_[prev].data(), &score);
    out.set(opts_.name, index, score);
  }

  bool temporal() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<SpeedTemporalExtractor>(opts_);
  }

 private:
  SpeedTemporalOptions opts_;
  int bit_depth_ = 8;
  int width_ = 0, height_ = 0;
  speed::Engine engine_;
  std::vector<float> ref_[2], dis_[2];
};

}  // namespace

const ExtractorInfo& speed_temporal_extractor() {
  static const ExtractorInfo info{
      "speed_temporal",
      speed_temporal_options(),
      {kFeature},
      [](const ParsedOptions& opts, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<SpeedTemporalExtractor>(SpeedTemporalOptions(opts));
      },
  };
  return info;
}

}  // namespace vqe
