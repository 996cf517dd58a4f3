// SPDX-License-Identifier: BSD-2-Clause
// The "float_psnr" extractor: luma PSNR computed on samples converted to
// float and scaled to the 8-bit range (libvmaf 3.2.0
// libvmaf/src/feature/float_psnr.c, psnr.c, picture_copy.c).

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/float_plane.h"
#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

constexpr const char* kExtractor = "float_psnr";
constexpr const char* kFeature = "float_psnr";

// Peak (the maximum sample scaled to 8 bits) and the PSNR ceiling by bit
// depth, as libvmaf's float_psnr init().
struct PsnrConstants {
  double peak;
  double psnr_max;
};

PsnrConstants constants_for(int bit_depth) {
  switch (bit_depth) {
    case 8: return {255.0, 60.0};
    case 10: return {255.75, 72.0};
    case 12: return {255.9375, 84.0};
    case 16: return {255.99609375, 108.0};
    default: throw Error("float_psnr: unsupported bit depth " + std::to_string(bit_depth) +
                         " (accepted: 8, 10, 12, 16)");
  }
}

/// float_psnr: 10·log10(peak² / MSE) on the luma plane, MSE accumulated in
/// double from float squared differences in raster order (as libvmaf's
/// compute_psnr), clipped to psnr_max (60/72/84/108 dB at 8/10/12/16 bits).
/// Any size >= 1x1; an identical pair gives psnr_max.
class FloatPsnr final : public FeatureExtractor {
 public:
  explicit FloatPsnr(const ParsedOptions& opts) : opts_(opts) {}

  void init(const VideoFormat& format) override {
    validate_format(format, kExtractor);
    format_ = format;
    constants_ = constants_for(format.bit_depth);
    ref_row_.assign(format.width, 0.0f);
    dis_row_.assign(format.width, 0.0f);
    name_ = opts_.feature_name(kFeature);
  }

  std::vector<std::string> feature_names() const override {
    return {opts_.feature_name(kFeature)};
  }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const int w = format_.width, h = format_.height;
    double noise = 0;
    for (int y = 0; y < h; ++y) {
      row_to_float(reference.plane(0), y, format_.bit_depth, 0.0f, ref_row_.data());
      row_to_float(distorted.plane(0), y, format_.bit_depth, 0.0f, dis_row_.data());
      for (int x = 0; x < w; ++x) {
        const float diff = ref_row_[x] - dis_row_[x];
        noise += diff * diff;  // float product, double sum
      }
    }
    noise /= static_cast<double>(w * h);
    const double eps = 1e-10;
    const double floor_noise = noise > eps ? noise : eps;
    const double psnr = 10 * std::log10(constants_.peak * constants_.peak / floor_noise);
    out.set(name_, index, psnr < constants_.psnr_max ? psnr : constants_.psnr_max);
  }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatPsnr>(opts_);
  }

 private:
  ParsedOptions opts_;
  VideoFormat format_{};
  PsnrConstants constants_{};
  std::string name_;
  std::vector<float> ref_row_, dis_row_;
};

const bool kRegistered = register_extractor({
    .name = kExtractor,
    .options = {},
    .provided_features = {kFeature},
    .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<FloatPsnr>(o);
    },
});

}  // namespace
}  // namespace vqe
