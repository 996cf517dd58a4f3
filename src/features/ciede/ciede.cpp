// SPDX-License-Identifier: BSD-2-Clause
/// @file The `ciede` extractor: CIEDE2000 colour difference, as libvmaf's
/// libvmaf/src/feature/ciede.c (itself a port of av-metrics' ciede2000).
///
/// Emits `ciede2000` = 45 − 20·log10(mean ΔE00) over all luma positions.
/// Each position's Y'CbCr (limited range, BT.709 matrix) is converted to
/// sRGB-like linear RGB, XYZ (D65) and L*a*b*, and ΔE00 is taken with
/// kL = 0.65, kC = 1, kH = 4. Chroma is upsampled by sample repetition.
/// Accepts 8, 10, 12 and 16 bits (samples scaled by 2^(bpc−8)) and 4:2:0,
/// 4:2:2 and 4:4:4; 4:0:0 is refused.
///
/// Differences from libvmaf, where libvmaf is defective:
///  - 4:2:2: libvmaf indexes the half-width chroma rows at full width and
///    steps chroma rows at half rate (it swaps the horizontal/vertical
///    flags), reading past each chroma row. VQE uses chroma sample
///    (y, x/2), the nearest-neighbour upsampling libvmaf applies to 4:2:0.
///  - Odd sizes: libvmaf sizes chroma planes by rounding down and reads past
///    them; VQE's chroma planes are ceil-sized, so (y/2, x/2) is in bounds.
/// 4:2:0 and 4:4:4 with even sizes are computed exactly as libvmaf does (same
/// float/double mix and operation order).

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

constexpr double kPi = 3.14159265358979323846;  // M_PI

struct Lab {
  float l, a, b;
};

// The helpers below mirror libvmaf's float/double types one for one: values
// stored as float are rounded there, math functions take and return double
// (C's sqrt/pow/atan2/...), powf/fabsf stay in float.

float hue_angle(float x, float y) {
  if (x == 0.0 && y == 0.0) return 0.0f;
  float angle = static_cast<float>(std::atan2(static_cast<double>(x), static_cast<double>(y)));
  if (angle < 0.0) angle = static_cast<float>(angle + 2. * kPi);
  return angle;
}

float delta_hue(float c1, float c2, float h1, float h2) {
  if (c1 == 0.0 || c2 == 0.0) return 0.0f;
  if (std::fabs(h1 - h2) <= kPi) return h2 - h1;  // fabsf on float, compared in double
  if (h2 <= h1) return static_cast<float>((h2 - h1) + 2. * kPi);
  return static_cast<float>((h2 - h1) - 2. * kPi);
}

float mean_hue(float h1, float h2) {
  return static_cast<float>(std::fabs(static_cast<double>(h1 - h2)) > kPi
                                ? ((h1 + h2) + 2.0 * kPi) / 2.0
                                : (h1 + h2) / 2.0);
}

float hue_weight_t(float h) {
  const double hd = h;
  return static_cast<float>(1.0 - 0.17 * std::cos(hd - kPi / 6.0) + 0.24 * std::cos(2.0 * hd) +
                            0.32 * std::cos(3.0 * hd + kPi / 30.0) -
                            0.20 * std::cos(4.0 * hd - 7.0 * kPi / 20.0));
}

float to_degrees(float radians) { return static_cast<float>(radians * (180.0 / kPi)); }
float to_radians(float degrees) { return static_cast<float>(degrees * (kPi / 180.0)); }

float rotation_term(float c_bar_prime, float h_bar_prime) {
  const float t = static_cast<float>((to_degrees(h_bar_prime) - 275.0) * (1.0 / 25.0));
  const float c7 = ::powf(c_bar_prime, 7.0f);
  const float ratio = c7 / (c7 + ::powf(25.0f, 7.0f));
  const double angle = 60.0 * std::exp(-static_cast<double>(::powf(t, 2.0f)));
  return static_cast<float>(-2.0 * std::sqrt(static_cast<double>(ratio)) *
                            std::sin(static_cast<double>(to_radians(static_cast<float>(angle)))));
}

inline double sq(double x) { return std::pow(x, 2.0); }

float ciede2000(const Lab& c1, const Lab& c2) {
  constexpr float kL = 0.65f, kC = 1.0f, kH = 4.0f;
  const double pow25_7 = std::pow(25.0, 7.0);

  const float delta_l = c2.l - c1.l;
  const float l_bar = (c1.l + c2.l) / 2;
  const float chroma1 = static_cast<float>(std::sqrt(sq(c1.a) + sq(c1.b)));
  const float chroma2 = static_cast<float>(std::sqrt(sq(c2.a) + sq(c2.b)));
  const float c_bar = (chroma1 + chroma2) / 2;
  const double g = 1 - std::sqrt(std::pow(static_cast<double>(c_bar), 7.0) /
                                 (std::pow(static_cast<double>(c_bar), 7.0) + pow25_7));
  const float a1 = static_cast<float>(c1.a + (c1.a / 2) * g);
  const float a2 = static_cast<float>(c2.a + (c2.a / 2) * g);
  const float cp1 = static_cast<float>(std::sqrt(sq(a1) + sq(c1.b)));
  const float cp2 = static_cast<float>(std::sqrt(sq(a2) + sq(c2.b)));
  const float cp_bar = (cp1 + cp2) / 2;
  const float delta_cp = cp2 - cp1;
  const double l50 = static_cast<float>(l_bar - 50);
  const float s_l = static_cast<float>(1. + ((0.015 * sq(l50)) / std::sqrt(20 + sq(l50))));
  const float s_c = static_cast<float>(1. + 0.045 * cp_bar);
  const float h1 = hue_angle(c1.b, a1);
  const float h2 = hue_angle(c2.b, a2);
  const float dh = delta_hue(chroma1, chroma2, h1, h2);
  const float delta_big_h = static_cast<float>(
      2.0 * std::sqrt(static_cast<double>(cp1 * cp2)) * std::sin(dh / 2.0));
  const float h_bar = mean_hue(h1, h2);
  const float t = hue_weight_t(h_bar);
  const float s_h = static_cast<float>(1.0 + 0.015 * cp_bar * t);
  const float r_t = rotation_term(cp_bar, h_bar);
  const float lightness = delta_l / (kL * s_l);
  const float chroma = delta_cp / (kC * s_c);
  const float hue = delta_big_h / (kH * s_h);
  return static_cast<float>(
      std::sqrt(sq(lightness) + sq(chroma) + sq(hue) + static_cast<double>(r_t * chroma * hue)));
}

double srgb_to_linear(double c) {
  if (c > 10. / 255.) return std::pow((c + 0.055) * (1.0 / 1.055), 2.4);
  return c * (1.0 / 12.92);
}

float lab_f(double c) {
  constexpr double kKappa = 24389.0 / 27.0;
  constexpr double kEpsilon = 216.0 / 24389.0;
  if (c > kEpsilon) return static_cast<float>(std::pow(c, 1.0 / 3.0));
  return static_cast<float>((kKappa * c + 16.0) * (1.0 / 116.0));
}

// Maps a Y'CbCr code value to its nominal range: (v − offset·scale) /
// (span·scale), the reciprocal formed first (studio-swing levels scaled to
// the bit depth by `scale`).
double normalize_code(double value, double offset, double span, double scale) {
  return (value - offset * scale) * (1. / (span * scale));
}

// Linear-light RGB → CIE XYZ (sRGB primaries, D65 white) and the D65 white
// point, as the coefficients libvmaf's ciede.c uses.
constexpr double kRgbToXyz[3][3] = {
    {0.4124564390896921, 0.357576077643909, 0.18043748326639894},
    {0.21267285140562248, 0.715152155287818, 0.07217499330655958},
    {0.019333895582329317, 0.119192025881303, 0.9503040785363677}};
constexpr double kWhiteD65[3] = {0.95047, 1.0, 1.08883};

// Y'CbCr sample values (integers, bit depth given through `scale`) to
// CIE L*a*b*: the conversion chain of libvmaf's ciede.c (get_lab_color),
// i.e. BT.709 Y'CbCr → R'G'B', the sRGB transfer inverse, RGB → XYZ, then
// the CIE 1976 L*a*b* definition relative to D65.
Lab to_lab(double y, double u, double v, double scale) {
  const double luma = normalize_code(y, 16., 219., scale);
  const double cb = normalize_code(u, 128., 224., scale);
  const double cr = normalize_code(v, 128., 224., scale);

  // BT.709 inverse matrix, then linearise each component.
  const double linear[3] = {srgb_to_linear(luma + 1.28033 * cr),
                            srgb_to_linear(luma - 0.21482 * cb - 0.38059 * cr),
                            srgb_to_linear(luma + 2.12798 * cb)};

  // f(X/Xn), f(Y/Yn), f(Z/Zn); f's float result is kept in a double.
  double f[3];
  for (int row = 0; row < 3; ++row) {
    const double tristimulus = linear[0] * kRgbToXyz[row][0] + linear[1] * kRgbToXyz[row][1] +
                               linear[2] * kRgbToXyz[row][2];
    f[row] = lab_f(tristimulus * (1.0 / kWhiteD65[row]));
  }
  const double lightness = 116.0 * f[1] - 16.0;
  const double red_green = 500.0 * (f[0] - f[1]);
  const double yellow_blue = 200.0 * (f[1] - f[2]);
  return Lab{static_cast<float>(lightness), static_cast<float>(red_green),
             static_cast<float>(yellow_blue)};
}

class Ciede final : public FeatureExtractor {
 public:
  // Emitted names are resolved at construction; no ParsedOptions is kept.
  explicit Ciede(const ParsedOptions& opts)
      : names_({opts.feature_name("ciede2000")}) {}
  explicit Ciede(std::vector<std::string> names) : names_(std::move(names)) {}

  void init(const VideoFormat& format) override {
    if (format.chroma == ChromaFormat::k400)
      throw Error("ciede: needs chroma planes; 4:0:0 (monochrome) input has none");
    if (format.bit_depth != 8 && format.bit_depth != 10 && format.bit_depth != 12 &&
        format.bit_depth != 16)
      throw Error(fmt::format("ciede: unsupported bit depth {} (8, 10, 12 or 16)",
                              format.bit_depth));
    format_ = format;
  }

  std::vector<std::string> feature_names() const override { return names_; }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error("ciede: picture format differs from the format given to init()");
    const double sum = format_.bit_depth == 8 ? sum_delta_e<std::uint8_t>(reference, distorted)
                                              : sum_delta_e<std::uint16_t>(reference, distorted);
    const double pixels =
        static_cast<double>(static_cast<unsigned>(format_.width) * static_cast<unsigned>(format_.height));
    out.set(names_[0], index, 45. - 20. * std::log10(sum / pixels));
  }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<Ciede>(names_);
  }

 private:
  template <typename T>
  double sum_delta_e(const Picture& ref, const Picture& dist) const {
    const int shift_x = format_.chroma == ChromaFormat::k444 ? 0 : 1;
    const int shift_y = format_.chroma == ChromaFormat::k420 ? 1 : 0;
    const double scale = static_cast<double>(1 << (format_.bit_depth - 8));
    double sum = 0.;
    for (int i = 0; i < format_.height; ++i) {
      const T* ry = ref.plane(0).row<T>(i);
      const T* ru = ref.plane(1).row<T>(i >> shift_y);
      const T* rv = ref.plane(2).row<T>(i >> shift_y);
      const T* dy = dist.plane(0).row<T>(i);
      const T* du = dist.plane(1).row<T>(i >> shift_y);
      const T* dv = dist.plane(2).row<T>(i >> shift_y);
      for (int j = 0; j < format_.width; ++j) {
        const int jc = j >> shift_x;
        const Lab c1 = to_lab(ry[j], ru[jc], rv[jc], scale);
        const Lab c2 = to_lab(dy[j], du[jc], dv[jc], scale);
        sum += ciede2000(c1, c2);
      }
    }
    return sum;
  }

  VideoFormat format_{};
  std::vector<std::string> names_;
};

}  // namespace

const ExtractorInfo& ciede_extractor() {
  static const ExtractorInfo info{
      .name = "ciede",
      .options = {},
      .provided_features = {"ciede2000"},
      .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<Ciede>(o);
      },
  };
  return info;
}

}  // namespace vqe
