// SPDX-License-Identifier: BSD-2-Clause
// The float_vif extractor: libvmaf's floating-point multi-scale VIF
// (libvmaf/src/feature/float_vif.c) on the luma plane.
//
// Emits VMAF_feature_vif_scale0..3_score (aliases vif_scale0..3) and, with
// debug=true, vif, vif_num, vif_den, vif_num_scale0..3 and vif_den_scale0..3,
// each with libvmaf's option suffix. Accepts 8, 10, 12 and 16 bits; samples
// are mapped to x / 2^(bpc-8) - 128 in float as libvmaf's picture_copy does.
// Refuses frames whose (prescaled) side is below the size at which libvmaf's
// mirrored filter reads stay inside the picture (16 for the default options).

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "features/float_vif/vif_kernels.h"
#include "core/float_plane.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

using float_vif::ScaleMethod;
using float_vif::VifComputer;
using float_vif::VifParams;
using float_vif::VifResult;

constexpr const char* kName = "float_vif";

const char* const kProvided[] = {
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
    "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score",
    "vif", "vif_num", "vif_den", "vif_num_scale0", "vif_den_scale0",
    "vif_num_scale1", "vif_den_scale1", "vif_num_scale2", "vif_den_scale2",
    "vif_num_scale3", "vif_den_scale3",
};

std::vector<OptionSpec> vif_options() {
  using T = OptionSpec::Type;
  std::vector<OptionSpec> o;
  o.push_back(
      OptionSpec{.name = "debug", .type = T::kBool, .default_value = 0, .feature_param = false,
                 .help = "also emit vif, vif_num, vif_den and each scale's numerator and denominator"});
  o.push_back(
      OptionSpec{.name = "vif_enhn_gain_limit", .alias = "egl", .type = T::kDouble,
                 .default_value = 100.0, .min = 1.0, .max = 100.0, .feature_param = true,
                 .help = "upper bound on the VIF gain of distorted over reference (1..100; 1 credits no "
                 "enhancement)"});
  o.push_back(
      OptionSpec{.name = "vif_kernelscale", .alias = "ks", .type = T::kDouble, .default_value = 1.0,
                 .min = 0.1, .max = 4.0, .feature_param = true,
                 .help = "multiplier on the Gaussian filters' sigma and length; only libvmaf's "
                 "tabulated values are accepted"});
  o.push_back(OptionSpec{.name = "vif_prescale", .alias = "ps", .type = T::kDouble,
                         .default_value = 1.0, .min = 0.1, .max = 4.0, .feature_param = true,
                         .help = "resize factor applied to both pictures before VIF (2 doubles width and height)"});
  for (int s = 1; s <= 3; ++s)
    o.push_back(OptionSpec{.name = fmt::format("vif_scale{}_min_val", s),
                           .alias = fmt::format("s{}miv", s), .type = T::kDouble,
                           .default_value = 0.0, .min = 0.0, .max = 1.0, .feature_param = true,
                           .help = fmt::format("floor applied to the scale-{} VIF score", s)});
  o.push_back(OptionSpec{.name = "vif_prescale_method", .alias = "pm", .type = T::kString,
                         .default_value = 0, .default_string = "nearest", .feature_param = true,
                         .help = "resampling filter for vif_prescale: nearest, bilinear, bicubic or lanczos4"});
  o.push_back(OptionSpec{.name = "vif_sigma_nsq", .alias = "snsq", .type = T::kDouble,
                         .default_value = 2.0, .min = 0.0, .max = 5.0, .feature_param = true,
                         .help = "variance of the additive neural-noise term in the VIF model"});
  o.push_back(OptionSpec{.name = "vif_skip_scale0", .alias = "ssclz", .type = T::kBool,
                         .default_value = 0, .feature_param = true,
                         .help = "leave scale 0 out; its score is reported as 0"});
  return o;
}

class FloatVif final : public FeatureExtractor {
 public:
  explicit FloatVif(const ParsedOptions& opts) : opts_(opts) {
    debug_ = opts.get_bool("debug");
    params_.enhn_gain_limit = opts.get_double("vif_enhn_gain_limit");
    params_.kernelscale = opts.get_double("vif_kernelscale");
    params_.skip_scale0 = opts.get_bool("vif_skip_scale0");
    params_.sigma_nsq = opts.get_double("vif_sigma_nsq");
    prescale_ = opts.get_double("vif_prescale");
    for (int s = 1; s <= 3; ++s) min_val_[s] = opts.get_double(fmt::format("vif_scale{}_min_val", s));
    const std::string& method = opts.get_string("vif_prescale_method");
    if (!float_vif::parse_scale_method(method, &method_))
      throw Error(fmt::format("{}: invalid vif_prescale_method '{}' (supported: nearest, "
                              "bilinear, bicubic, lanczos4)",
                              kName, method));
    if (!float_vif::kernelscale_is_valid(params_.kernelscale))
      throw Error(fmt::format("{}: invalid vif_kernelscale {:g} (accepted: 1, 0.5, 1.5, 2, 2/3, "
                              "2.4, 360/97, 4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, "
                              "1.54, 1.6, 1.06667, 0.711111, 0.74074, 1.111111)",
                              kName, params_.kernelscale));
    for (const char* f : kProvided) names_.push_back(opts.feature_name(f));
  }

  void init(const VideoFormat& format) override {
    w_ = format.width;
    h_ = format.height;
    scaled_w_ = static_cast<int>(w_ * prescale_ + 0.5);
    scaled_h_ = static_cast<int>(h_ * prescale_ + 0.5);
    if (method_ == ScaleMethod::kBilinear && scaled_w_ > float_vif::kBilinearMaxWidth)
      throw Error(fmt::format("{}: bilinear prescaling to width {} exceeds the maximum {}", kName,
                              scaled_w_, float_vif::kBilinearMaxWidth));
    const int min = float_vif::min_side(static_cast<float>(params_.kernelscale),
                                        params_.skip_scale0);
    if (scaled_w_ < min || scaled_h_ < min) {
      const std::string scaled =
          (scaled_w_ != w_ || scaled_h_ != h_)
              ? fmt::format(" (prescaled to {}x{})", scaled_w_, scaled_h_)
              : std::string();
      throw Error(fmt::format("{}: frame {}x{}{} is smaller than the minimum {}x{} for "
                              "vif_kernelscale={:g}{}",
                              kName, w_, h_, scaled, min, min, params_.kernelscale,
                              params_.skip_scale0 ? " with vif_skip_scale0" : ""));
    }
    // The planes as float (and prescaled), from the arena.
    const std::size_t n = static_cast<std::size_t>(w_) * h_;
    scratch().get_pair<float>(kScratchPlanes, n);
    prescaled_ = scaled_w_ != w_ || scaled_h_ != h_;
    if (prescaled_) {
      const std::size_t m = static_cast<std::size_t>(scaled_w_) * scaled_h_;
      scratch().get_pair<float>(kScratchSecond, m);
    }
    computer_ = VifComputer(scaled_w_, scaled_h_, params_);
  }

  std::vector<std::string> feature_names() const override {
    if (debug_) return names_;
    return {names_.begin(), names_.begin() + 4};
  }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const std::size_t n = static_cast<std::size_t>(w_) * h_;
    const auto [ref, dis] = scratch().get_pair<float>(kScratchPlanes, n);
    plane_to_float(reference.plane(0), reference.bit_depth(), -128.0f, ref);
    plane_to_float(distorted.plane(0), distorted.bit_depth(), -128.0f, dis);
    const float* r = ref;
    const float* d = dis;
    if (prescaled_) {
      const std::size_t m = static_cast<std::size_t>(scaled_w_) * scaled_h_;
      const auto [ref_scaled, dis_scaled] = scratch().get_pair<float>(kScratchSecond, m);
      float_vif::scale_frame(method_, ref, w_, h_, w_, ref_scaled, scaled_w_, scaled_h_,
                             scaled_w_);
      float_vif::scale_frame(method_, dis, w_, h_, w_, dis_scaled, scaled_w_, scaled_h_,
                             scaled_w_);
      r = ref_scaled;
      d = dis_scaled;
    }
    const VifResult v = computer_.compute(r, d, scaled_w_);

    // max(x, floor) evaluated as libvmaf's MAX macro (a NaN ratio gives floor).
    auto at_least = [](double x, double floor) { return x > floor ? x : floor; };
    out.set(names_[0], index, params_.skip_scale0 ? 0.0 : v.num[0] / v.den[0]);
    for (int s = 1; s <= 3; ++s) out.set(names_[s], index, at_least(v.num[s] / v.den[s], min_val_[s]));
    if (!debug_) return;
    out.set(names_[4], index, v.score);
    out.set(names_[5], index, v.num_total);
    out.set(names_[6], index, v.den_total);
    for (int s = 0; s < 4; ++s) {
      const bool skipped = s == 0 && params_.skip_scale0;
      out.set(names_[7 + 2 * s], index, skipped ? 0.0 : v.num[s]);
      out.set(names_[8 + 2 * s], index, skipped ? -1.0 : v.den[s]);
    }
  }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatVif>(opts_);
  }

 private:
  ParsedOptions opts_;
  bool debug_ = false;
  VifParams params_;
  double prescale_ = 1.0;
  double min_val_[4] = {0, 0, 0, 0};
  ScaleMethod method_ = ScaleMethod::kNearest;
  std::vector<std::string> names_;
  int w_ = 0, h_ = 0, scaled_w_ = 0, scaled_h_ = 0;
  bool prescaled_ = false;
  VifComputer computer_;
};

}  // namespace

const ExtractorInfo& float_vif_extractor() {
  static const ExtractorInfo info{
      .name = kName,
      .options = vif_options(),
      .provided_features = {std::begin(kProvided), std::end(kProvided)},
      .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatVif>(o);
      },
  };
  return info;
}

}  // namespace vqe
