// SPDX-License-Identifier: BSD-2-Clause
// The "float_ansnr" extractor: anti-noise SNR and PSNR (libvmaf 3.2.0
// libvmaf/src/feature/float_ansnr.c, ansnr.c, ansnr_tools.c,
// picture_copy.c).
//
// Reference and distorted luma are converted to float on the 8-bit scale and
// shifted by -128. The reference is smoothed with a 3x3 binomial filter and
// the distorted with a 5x5 one (the distortion the eye is assumed not to
// see); signal = Σ ref_f², noise = Σ (ref_f - dis_f)², both in float.
//   float_ansnr  = 10·log10(signal / noise)  (psnr_max when noise == 0)
//   float_anpsnr = min(10·log10(peak²·N / noise), psnr_max)

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

constexpr const char* kExtractor = "float_ansnr";

struct PsnrConstants {
  double peak;
  double psnr_max;
};

// As libvmaf's float_ansnr init().
PsnrConstants constants_for(int bit_depth) {
  switch (bit_depth) {
    case 8: return {255.0, 60.0};
    case 10: return {255.75, 72.0};
    case 12: return {255.9375, 84.0};
    case 16: return {255.99609375, 108.0};
    default: throw Error("float_ansnr: unsupported bit depth " + std::to_string(bit_depth) +
                         " (accepted: 8, 10, 12, 16)");
  }
}

// The 2-D filters of ansnr_tools.c: a/16 (3x3) and b/571 (5x5), each
// coefficient computed in double and rounded to float.
struct Filters {
  float ref[9];
  float dis[25];
};

const Filters& filters() {
  static const Filters f = [] {
    Filters out{};
    const int ref_taps[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    const int dis_taps[25] = {2,  7,  12, 7,  2,  7,  31, 52, 31, 7,  12, 52, 127,
                              52, 12, 7,  31, 52, 31, 7,  2,  7,  12, 7,  2};
    for (int i = 0; i < 9; ++i) out.ref[i] = static_cast<float>(ref_taps[i] / 16.0);
    for (int i = 0; i < 25; ++i) out.dis[i] = static_cast<float>(dis_taps[i] / 571.0);
    return out;
  }();
  return f;
}

// ansnr's border rule: -i before the start, 2n-1-i past the end (the edge
// sample repeats), folded again until inside [0, n) so that frames smaller
// than the filter stay in bounds (libvmaf reads outside them).
int mirror(int i, int n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

/// 2-D filtering with a fwidth × fwidth kernel (row-major), in libvmaf's
/// per-pixel order: for each kernel row a float partial sum over its columns
/// (taps left to right), then the partials summed in float, top to bottom.
/// The loops run over x innermost (each pixel keeps its own order, so the
/// result is the same) to let the compiler use vector registers.
/// `cols` holds the mirrored column index of x - r .. x + r for each x
/// (w × fwidth entries); `inner` and `accum` are scratch rows of w floats.
void filter2d(const float* kernel, int fwidth, const float* src, float* dst, int w, int h,
              const int* cols, float* inner, float* accum) {
  const int r = fwidth / 2;
  // Columns whose taps all fall inside the row read src directly.
  const int x_lo = r < w ? r : w;
  const int x_hi = w - r > x_lo ? w - r : x_lo;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) accum[x] = 0;
    for (int fi = 0; fi < fwidth; ++fi) {
      const float* row = src + static_cast<std::size_t>(mirror(y - r + fi, h)) * w;
      for (int x = 0; x < w; ++x) inner[x] = 0;
      for (int fj = 0; fj < fwidth; ++fj) {
        const float k = kernel[fi * fwidth + fj];
        for (int x = 0; x < x_lo; ++x) inner[x] += k * row[cols[x * fwidth + fj]];
        const int shift = fj - r;
        for (int x = x_lo; x < x_hi; ++x) inner[x] += k * row[x + shift];
        for (int x = x_hi; x < w; ++x) inner[x] += k * row[cols[x * fwidth + fj]];
      }
      for (int x = 0; x < w; ++x) accum[x] += inner[x];
    }
    float* out = dst + static_cast<std::size_t>(y) * w;
    for (int x = 0; x < w; ++x) out[x] = accum[x];
  }
}

/// float_ansnr: emits float_ansnr and float_anpsnr per frame. Any size
/// >= 1x1, 8/10/12/16 bits. Buffers (4 float planes) are allocated in init().
class FloatAnsnr final : public FeatureExtractor {
 public:
  explicit FloatAnsnr(const ParsedOptions& opts)
      : opts_(opts),
        ansnr_name_(opts.feature_name("float_ansnr")),
        anpsnr_name_(opts.feature_name("float_anpsnr")) {}

  void init(const VideoFormat& format) override {
    validate_format(format, kExtractor);
    format_ = format;
    constants_ = constants_for(format.bit_depth);
    const std::size_t n = static_cast<std::size_t>(format.width) * format.height;
    ref_.assign(n, 0);
    dis_.assign(n, 0);
    ref_filtered_.assign(n, 0);
    dis_filtered_.assign(n, 0);
    inner_.assign(format.width, 0);
    accum_.assign(format.width, 0);
    cols3_.resize(static_cast<std::size_t>(format.width) * 3);
    cols5_.resize(static_cast<std::size_t>(format.width) * 5);
    for (int x = 0; x < format.width; ++x) {
      for (int k = 0; k < 3; ++k) cols3_[x * 3 + k] = mirror(x - 1 + k, format.width);
      for (int k = 0; k < 5; ++k) cols5_[x * 5 + k] = mirror(x - 2 + k, format.width);
    }
  }

  std::vector<std::string> feature_names() const override { return {ansnr_name_, anpsnr_name_}; }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const int w = format_.width, h = format_.height;
    plane_to_float(reference.plane(0), format_.bit_depth, -128.0f, ref_.data());
    plane_to_float(distorted.plane(0), format_.bit_depth, -128.0f, dis_.data());
    filter2d(filters().ref, 3, ref_.data(), ref_filtered_.data(), w, h, cols3_.data(),
             inner_.data(), accum_.data());
    filter2d(filters().dis, 5, dis_.data(), dis_filtered_.data(), w, h, cols5_.data(),
             inner_.data(), accum_.data());

    // ansnr_mse: per-row float partial sums, added into float totals.
    float signal = 0, noise = 0;
    for (int y = 0; y < h; ++y) {
      const float* r = ref_filtered_.data() + static_cast<std::size_t>(y) * w;
      const float* d = dis_filtered_.data() + static_cast<std::size_t>(y) * w;
      float signal_row = 0, noise_row = 0;
      for (int x = 0; x < w; ++x) {
        signal_row += r[x] * r[x];
        noise_row += (r[x] - d[x]) * (r[x] - d[x]);
      }
      signal += signal_row;
      noise += noise_row;
    }

    // The ratio is a float division, as in libvmaf.
    const double ansnr = noise == 0 ? constants_.psnr_max
                                    : 10.0 * std::log10(static_cast<double>(signal / noise));
    const double eps = 1e-10;
    const double noise_floor = static_cast<double>(noise) > eps ? static_cast<double>(noise) : eps;
    const double anpsnr = 10 * std::log10(constants_.peak * constants_.peak * w * h / noise_floor);
    out.set(ansnr_name_, index, ansnr);
    out.set(anpsnr_name_, index, anpsnr < constants_.psnr_max ? anpsnr : constants_.psnr_max);
  }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatAnsnr>(opts_);
  }

 private:
  ParsedOptions opts_;
  std::string ansnr_name_, anpsnr_name_;
  VideoFormat format_{};
  PsnrConstants constants_{};
  std::vector<float> ref_, dis_, ref_filtered_, dis_filtered_, inner_, accum_;
  std::vector<int> cols3_, cols5_;
};

const bool kRegistered = register_extractor({
    .name = kExtractor,
    .options = {},
    .provided_features = {"float_ansnr"},
    .make = [](const ParsedOptions& o) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<FloatAnsnr>(o);
    },
});

}  // namespace
}  // namespace vqe
