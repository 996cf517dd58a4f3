// SPDX-License-Identifier: BSD-2-Clause
/// @file The `psnr_hvs` extractor: PSNR-HVS-M (Ponomarenko et al.), as
/// libvmaf's libvmaf/src/feature/third_party/xiph/psnr_hvs.c (Xiph's Daala
/// tools version).
///
/// Per plane, 8×8 blocks placed every 7 samples (while the block fits) are
/// transformed with Daala's integer 8×8 DCT; coefficient errors below a
/// contrast-masking threshold are ignored and the rest are weighted by a
/// CSF table (luma table for Y, the 4:2:0 Cb/Cr tables for the chroma planes
/// whatever the subsampling). Emits `psnr_hvs_y`, `psnr_hvs_cb`,
/// `psnr_hvs_cr` (dB) and `psnr_hvs` = dB of 0.8·Y + 0.1·(Cb + Cr) errors.
///
/// Accepts 8, 10 and 12 bits; above 12 bits the squared 32-bit DCT
/// coefficients would overflow, and libvmaf refuses with "bpc must be less
/// than or equal to 12" — so does VQE. 4:0:0 is refused (no chroma). Every
/// plane must hold at least one 8×8 block (libvmaf would divide 0 by 0 and
/// report NaN); smaller pictures are refused in init(). Chroma planes are
/// VQE's ceil-sized planes; at odd sizes libvmaf (which cannot read such
/// files) would use floor-sized ones.

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

using Coeff = std::int32_t;

// Daala's unbiased right shift: rounds toward zero, as OD_DCT_RSHIFT.
inline std::int32_t unbiased_rshift(std::int32_t a, int b) {
  const std::uint32_t ua = static_cast<std::uint32_t>(a);
  return static_cast<std::int32_t>((ua >> (32 - b)) + ua) >> b;
}

// Daala's lifting-based 8-point type-II integer DCT (od_bin_fdct8): reads 8
// values spaced `stride` apart from `x`, writes 8 contiguous outputs to `y`.
void fdct8(Coeff* y, const Coeff* x, int stride) {
  int t0 = x[0 * stride];
  int t4 = x[1 * stride];
  int t2 = x[2 * stride];
  int t6 = x[3 * stride];
  int t7 = x[4 * stride];
  int t3 = x[5 * stride];
  int t5 = x[6 * stride];
  int t1 = x[7 * stride];
  // +1/-1 butterflies
  t1 = t0 - t1;
  const int t1h = unbiased_rshift(t1, 1);
  t0 -= t1h;
  t4 += t5;
  const int t4h = unbiased_rshift(t4, 1);
  t5 -= t4h;
  t3 = t2 - t3;
  t2 -= unbiased_rshift(t3, 1);
  t6 += t7;
  const int t6h = unbiased_rshift(t6, 1);
  t7 = t6h - t7;
  // inner DCT-II of size 4
  t0 += t6h;
  t6 = t0 - t6;
  t2 = t4h - t2;
  t4 = t2 - t4;
  // inner DCT-II of size 2 (lifting by tan(pi/8), sin(pi/4))
  t0 -= (t4 * 13573 + 16384) >> 15;
  t4 += (t0 * 11585 + 8192) >> 14;
  t0 -= (t4 * 13573 + 16384) >> 15;
  // inner DST-IV of size 2
  t6 -= (t2 * 21895 + 16384) >> 15;
  t2 += (t6 * 15137 + 8192) >> 14;
  t6 -= (t2 * 21895 + 16384) >> 15;
  // inner DST-IV of size 4
  t3 += (t5 * 19195 + 16384) >> 15;
  t5 += (t3 * 11585 + 8192) >> 14;
  t3 -= (t5 * 7489 + 4096) >> 13;
  t7 = unbiased_rshift(t5, 1) - t7;
  t5 -= t7;
  t3 = t1h - t3;
  t1 -= t3;
  t7 += (t1 * 3227 + 16384) >> 15;
  t1 -= (t7 * 6393 + 16384) >> 15;
  t7 += (t1 * 3227 + 16384) >> 15;
  t5 += (t3 * 2485 + 4096) >> 13;
  t3 -= (t5 * 18205 + 16384) >> 15;
  t5 += (t3 * 2485 + 4096) >> 13;
  y[0] = t0;
  y[1] = t1;
  y[2] = t2;
  y[3] = t3;
  y[4] = t4;
  y[5] = t5;
  y[6] = t6;
  y[7] = t7;
}

// 2-D 8×8 DCT of a row-major block, in place: columns first, then rows.
void fdct8x8(Coeff* block) {
  Coeff z[64];
  for (int i = 0; i < 8; ++i) fdct8(z + 8 * i, block + i, 8);
  for (int i = 0; i < 8; ++i) fdct8(block + 8 * i, z + i, 8);
}

// CSF weights (normalised inverse quantisation at the point of transparency)
// from Xiph's Daala tools, as libvmaf types them: double literals rounded to
// float (no `f` suffix, so the rounding path is the same as libvmaf's).
constexpr float kCsfY[8][8] = {
    {1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542},
    {2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551},
    {2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596},
    {1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565},
    {1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204},
    {0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321},
    {0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001},
    {0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276}};

constexpr float kCsfCb420[8][8] = {
    {1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242},
    {2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625},
    {1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837},
    {1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374},
    {1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034},
    {0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965},
    {0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733},
    {0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237}};

constexpr float kCsfCr420[8][8] = {
    {2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971},
    {2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198},
    {1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706},
    {1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023},
    {1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273},
    {0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543},
    {0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063},
    {0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658}};

constexpr int kBlock = 8;
constexpr int kStep = 7;

// Mean PSNR-HVS-M error of one plane (width × height samples of type T,
// values up to 2^bit_depth − 1), normalised by the squared peak. Returns
// float precision as libvmaf's calc_psnrhvs. Needs width, height >= 8.
template <typename T>
double plane_error(const Plane& src_plane, const Plane& dst_plane, int bit_depth,
                   const float (&csf)[8][8]) {
  // Masking weights: (csf · 0.3885746225901003)², computed in double, stored float.
  float mask[8][8];
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j)
      mask[i][j] = static_cast<float>((csf[i][j] * 0.3885746225901003) *
                                      (csf[i][j] * 0.3885746225901003));

  const int width = src_plane.width;
  const int height = src_plane.height;
  float ret = 0;
  int pixels = 0;
  Coeff dct_s[64];
  Coeff dct_d[64];
  for (int y = 0; y < height - 7; y += kStep) {
    for (int x = 0; x < width - 7; x += kStep) {
      float s_means[4] = {0, 0, 0, 0};
      float d_means[4] = {0, 0, 0, 0};
      float s_vars[4] = {0, 0, 0, 0};
      float d_vars[4] = {0, 0, 0, 0};
      float s_gmean = 0, d_gmean = 0, s_gvar = 0, d_gvar = 0, s_mask = 0, d_mask = 0;
      for (int i = 0; i < kBlock; ++i) {
        const T* srow = src_plane.row<T>(y + i) + x;
        const T* drow = dst_plane.row<T>(y + i) + x;
        for (int j = 0; j < kBlock; ++j) {
          const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);  // 4×4 quadrant
          dct_s[i * 8 + j] = srow[j];
          dct_d[i * 8 + j] = drow[j];
          s_gmean += dct_s[i * 8 + j];
          d_gmean += dct_d[i * 8 + j];
          s_means[sub] += dct_s[i * 8 + j];
          d_means[sub] += dct_d[i * 8 + j];
        }
      }
      s_gmean /= 64.f;
      d_gmean /= 64.f;
      for (int i = 0; i < 4; ++i) s_means[i] /= 16.f;
      for (int i = 0; i < 4; ++i) d_means[i] /= 16.f;
      for (int i = 0; i < kBlock; ++i) {
        for (int j = 0; j < kBlock; ++j) {
          const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
          s_gvar += (dct_s[i * 8 + j] - s_gmean) * (dct_s[i * 8 + j] - s_gmean);
          d_gvar += (dct_d[i * 8 + j] - d_gmean) * (dct_d[i * 8 + j] - d_gmean);
          s_vars[sub] += (dct_s[i * 8 + j] - s_means[sub]) * (dct_s[i * 8 + j] - s_means[sub]);
          d_vars[sub] += (dct_d[i * 8 + j] - d_means[sub]) * (dct_d[i * 8 + j] - d_means[sub]);
        }
      }
      // Unbiased variances, scaled back to sums (1/63·64 and 1/15·16 in float).
      s_gvar *= 1 / 63.f * 64;
      d_gvar *= 1 / 63.f * 64;
      for (int i = 0; i < 4; ++i) s_vars[i] *= 1 / 15.f * 16;
      for (int i = 0; i < 4; ++i) d_vars[i] *= 1 / 15.f * 16;
      if (s_gvar > 0) s_gvar = (s_vars[0] + s_vars[1] + s_vars[2] + s_vars[3]) / s_gvar;
      if (d_gvar > 0) d_gvar = (d_vars[0] + d_vars[1] + d_vars[2] + d_vars[3]) / d_gvar;
      fdct8x8(dct_s);
      fdct8x8(dct_d);
      for (int i = 0; i < 8; ++i)
        for (int j = (i == 0); j < 8; ++j)
          s_mask += dct_s[i * 8 + j] * dct_s[i * 8 + j] * mask[i][j];
      for (int i = 0; i < 8; ++i)
        for (int j = (i == 0); j < 8; ++j)
          d_mask += dct_d[i * 8 + j] * dct_d[i * 8 + j] * mask[i][j];
      s_mask = static_cast<float>(std::sqrt(static_cast<double>(s_mask * s_gvar)) / 32.f);
      d_mask = static_cast<float>(std::sqrt(static_cast<double>(d_mask * d_gvar)) / 32.f);
      if (d_mask > s_mask) s_mask = d_mask;
      for (int i = 0; i < 8; ++i) {
        for (int j = 0; j < 8; ++j) {
          float err = static_cast<float>(std::abs(dct_s[i * 8 + j] - dct_d[i * 8 + j]));
          if (i != 0 || j != 0)
            err = err < s_mask / mask[i][j] ? 0 : err - s_mask / mask[i][j];
          ret += (err * csf[i][j]) * (err * csf[i][j]);
          ++pixels;
        }
      }
    }
  }
  ret /= pixels;
  const std::int32_t sample_max = (1 << bit_depth) - 1;
  ret /= sample_max * sample_max;
  return ret;
}

double to_db(double error) { return 10 * (-1 * std::log10(1.0 * error)); }

class PsnrHvs final : public FeatureExtractor {
 public:
  // Emitted names are resolved at construction; no ParsedOptions is kept.
  explicit PsnrHvs(const ParsedOptions& opts)
      : names_({opts.feature_name("psnr_hvs_y"), opts.feature_name("psnr_hvs_cb"),
                opts.feature_name("psnr_hvs_cr"), opts.feature_name("psnr_hvs")}) {}
  explicit PsnrHvs(std::vector<std::string> names) : names_(std::move(names)) {}

  void init(const VideoFormat& format) override {
    if (format.bit_depth > 12)
      throw Error(fmt::format(
          "psnr_hvs: invalid bit depth ({}), bpc must be less than or equal to 12",
          format.bit_depth));
    if (format.chroma == ChromaFormat::k400)
      throw Error("psnr_hvs: needs chroma planes; 4:0:0 (monochrome) input has none");
    for (int p = 0; p < 3; ++p) {
      if (format.plane_width(p) < kBlock || format.plane_height(p) < kBlock)
        throw Error(fmt::format(
            "psnr_hvs: frame {}x{} ({}) is too small: every plane needs at least {}x{} samples, "
            "plane {} has {}x{}",
            format.width, format.height, to_string(format.chroma), kBlock, kBlock, p,
            format.plane_width(p), format.plane_height(p)));
    }
    format_ = format;
  }

  std::vector<std::string> feature_names() const override { return names_; }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error("psnr_hvs: picture format differs from the format given to init()");
    double score[3];
    for (int p = 0; p < 3; ++p) {
      const auto& csf = p == 0 ? kCsfY : p == 1 ? kCsfCb420 : kCsfCr420;
      score[p] = format_.bit_depth == 8
                     ? plane_error<std::uint8_t>(reference.plane(p), distorted.plane(p),
                                                 format_.bit_depth, csf)
                     : plane_error<std::uint16_t>(reference.plane(p), distorted.plane(p),
                                                  format_.bit_depth, csf);
      out.set(names_[p], index, to_db(score[p]));
    }
    const double combined = score[0] * .8 + .1 * (score[1] + score[2]);
    out.set(names_[3], index, to_db(combined));
  }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<PsnrHvs>(names_);
  }

 private:
  VideoFormat format_{};
  std::vector<std::string> names_;
};

const bool kRegistered = register_extractor({
    .name = "psnr_hvs",
    .options = {},
    .provided_features = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"},
    .make = [](const ParsedOptions& o) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<PsnrHvs>(o);
    },
});

}  // namespace
}  // namespace vqe
