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

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

using Coeff = std::int32_t;

// Halving that rounds toward zero (Daala's OD_DCT_RSHIFT with shift 1 is
// the only use here): adding the sign bit before the arithmetic shift makes
// negative odd values round up instead of down.
inline int half_toward_zero(int v) {
  const std::uint32_t bits = static_cast<std::uint32_t>(v);
  return static_cast<std::int32_t>(bits + (bits >> 31)) >> 1;
}

// Difference butterfly: hi ← lo − hi, then lo ← lo − hi/2 (lo becomes the
// rounded mean). Returns the halved difference.
inline int difference_butterfly(int& lo, int& hi) {
  hi = lo - hi;
  const int half = half_toward_zero(hi);
  lo -= half;
  return half;
}

// Sum butterfly: lo ← lo + hi, then hi ← hi − lo/2. Returns the halved sum.
inline int sum_butterfly(int& lo, int& hi) {
  lo += hi;
  const int half = half_toward_zero(lo);
  hi -= half;
  return half;
}

// One lifting multiplier: round(v · mul / 2^shift), rounding half up, applied
// with `sign` (+1 adds the product, −1 subtracts it).
struct Lift {
  int sign;
  int mul;
  int shift;
};

inline int lifted(int v, const Lift& l) {
  return l.sign * ((v * l.mul + (1 << (l.shift - 1))) >> l.shift);
}

// An integer-reversible plane rotation written as three alternating lifting
// steps: p ← p ± f₀(q), q ← q ± f₁(p), p ← p ± f₂(q).
inline void rotate_by_lifting(int& p, int& q, const Lift (&steps)[3]) {
  p += lifted(q, steps[0]);
  q += lifted(p, steps[1]);
  p += lifted(q, steps[2]);
}

// Lifting coefficients of the rotations (multipliers are tangents / sines of
// multiples of π/16 in Q13–Q15), from Daala's 8-point integer DCT.
constexpr Lift kRotEvenDc[3] = {{-1, 13573, 15}, {+1, 11585, 14}, {-1, 13573, 15}};
constexpr Lift kRotEvenAc[3] = {{-1, 21895, 15}, {+1, 15137, 14}, {-1, 21895, 15}};
constexpr Lift kRotOddMid[3] = {{+1, 19195, 15}, {+1, 11585, 14}, {-1, 7489, 13}};
constexpr Lift kRotOddOuter[3] = {{+1, 3227, 15}, {-1, 6393, 15}, {+1, 3227, 15}};
constexpr Lift kRotOddInner[3] = {{+1, 2485, 13}, {-1, 18205, 15}, {+1, 2485, 13}};

// Where each input sample lands in the working register file `r` below: the
// butterflies are written on register numbers, and register k holds output
// coefficient k once the transform is done.
constexpr int kInputSlot[8] = {0, 4, 2, 6, 7, 3, 5, 1};

// The 8-point type-II integer DCT of Daala (od_bin_fdct8 in the Xiph code
// bundled with libvmaf, libvmaf/src/feature/third_party/xiph/psnr_hvs.c):
// a lifting factorisation, so every step is exact integer arithmetic. Reads 8
// samples `stride` apart starting at `in`, writes 8 contiguous coefficients.
void dct8_lifting(Coeff* out, const Coeff* in, int stride) {
  int r[8];
  for (int k = 0; k < 8; ++k) r[kInputSlot[k]] = in[k * stride];

  // Stage 1: sum/difference butterflies on the mirrored pairs; each hands
  // back its halved sum/difference for the later stages.
  const int half_r1 = difference_butterfly(r[0], r[1]);
  const int half_r4 = sum_butterfly(r[4], r[5]);
  difference_butterfly(r[2], r[3]);
  const int half_r6 = sum_butterfly(r[6], r[7]);
  r[7] = -r[7];

  // Stage 2: the even half, a 4-point DCT-II built from a butterfly and two
  // rotations.
  r[0] += half_r6;
  r[6] = r[0] - r[6];
  r[2] = half_r4 - r[2];
  r[4] = r[2] - r[4];
  rotate_by_lifting(r[0], r[4], kRotEvenDc);
  rotate_by_lifting(r[6], r[2], kRotEvenAc);

  // Stage 3: the odd half, a 4-point DST-IV: one rotation, a butterfly, then
  // two more rotations.
  rotate_by_lifting(r[3], r[5], kRotOddMid);
  r[7] = half_toward_zero(r[5]) - r[7];
  r[5] -= r[7];
  r[3] = half_r1 - r[3];
  r[1] -= r[3];
  rotate_by_lifting(r[7], r[1], kRotOddOuter);
  rotate_by_lifting(r[5], r[3], kRotOddInner);

  for (int k = 0; k < 8; ++k) out[k] = r[k];
}

// Transforms every column of the row-major 8×8 `in` and stores the result of
// column c as row c of `out` (a transform plus a transpose).
void dct_columns_to_rows(Coeff* out, const Coeff* in) {
  for (int c = 0; c < 8; ++c) dct8_lifting(out + 8 * c, in + c, 8);
}

// Separable 2-D 8×8 DCT in place: two column passes, each transposing, so the
// second pass transforms the rows of the original block.
void dct8x8(Coeff* block) {
  Coeff transposed[64];
  dct_columns_to_rows(transposed, block);
  dct_columns_to_rows(block, transposed);
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
constexpr int kBlockSize = kBlock * kBlock;

// Sum of the samples of the n×n square at (row0, col0) of a row-major 8×8
// block, visited row by row, accumulated in float.
float square_sum(const Coeff* block, int row0, int col0, int n) {
  float sum = 0;
  for (int r = row0; r < row0 + n; ++r)
    for (int c = col0; c < col0 + n; ++c) sum += block[r * kBlock + c];
  return sum;
}

// Sum of squared deviations from `mean` over the same square, same order.
float square_sq_dev(const Coeff* block, int row0, int col0, int n, float mean) {
  float sum = 0;
  for (int r = row0; r < row0 + n; ++r)
    for (int c = col0; c < col0 + n; ++c)
      sum += (block[r * kBlock + c] - mean) * (block[r * kBlock + c] - mean);
  return sum;
}

// Variance-based sum of squares of an n×n square: the unbiased variance
// scaled back by n² (i.e. ssd·n²/(n²−1)), with the factor formed in float.
float unbiased_scaled_ssd(const Coeff* block, int row0, int col0, int n) {
  const int count = n * n;
  const float mean = square_sum(block, row0, col0, n) / static_cast<float>(count);
  const float ssd = square_sq_dev(block, row0, col0, n, mean);
  return ssd * (1 / static_cast<float>(count - 1) * count);
}

// PSNR-HVS-M's activity factor of a pixel block: the summed variances of its
// four 4×4 quadrants over the variance of the whole block (0 for a flat
// block). Quadrants are summed top-left, bottom-left, top-right, bottom-right,
// as in the Xiph implementation.
float quadrant_activity(const Coeff* block) {
  const float whole = unbiased_scaled_ssd(block, 0, 0, kBlock);
  float quadrants = 0;
  for (int col0 = 0; col0 < kBlock; col0 += 4)
    for (int row0 = 0; row0 < kBlock; row0 += 4)
      quadrants += unbiased_scaled_ssd(block, row0, col0, 4);
  return whole > 0 ? quadrants / whole : whole;
}

// Masking energy of a DCT block: Σ coeff²·weight over the AC coefficients.
float ac_energy(const Coeff* dct, const float (&weight)[8][8]) {
  float energy = 0;
  for (int u = 0; u < kBlock; ++u)
    for (int v = (u == 0 ? 1 : 0); v < kBlock; ++v) {
      const Coeff c = dct[u * kBlock + v];
      energy += c * c * weight[u][v];
    }
  return energy;
}

// Contrast-masking level of one block (PSNR-HVS-M, Ponomarenko et al. 2007):
// sqrt(AC energy · activity) / 32, formed in double and stored as float.
float masking_level(const Coeff* dct, float activity, const float (&weight)[8][8]) {
  return static_cast<float>(
      std::sqrt(static_cast<double>(ac_energy(dct, weight) * activity)) / 32.f);
}

// Adds the CSF-weighted squared coefficient errors of one block to `total`.
// AC errors below the masking threshold (level / weight) count as zero and
// above it are reduced by it; the DC error is never masked.
void add_block_error(float& total, const Coeff* src_dct, const Coeff* dst_dct, float level,
                     const float (&weight)[8][8], const float (&csf)[8][8]) {
  for (int u = 0; u < kBlock; ++u) {
    for (int v = 0; v < kBlock; ++v) {
      const int k = u * kBlock + v;
      float diff = static_cast<float>(std::abs(src_dct[k] - dst_dct[k]));
      if (k != 0) {
        const float threshold = level / weight[u][v];
        diff = diff < threshold ? 0 : diff - threshold;
      }
      total += (diff * csf[u][v]) * (diff * csf[u][v]);
    }
  }
}

// Copies the 8×8 block at (x, y) of a plane into a row-major block.
template <typename T>
void load_block(Coeff* block, const Plane& plane, int x, int y) {
  for (int r = 0; r < kBlock; ++r) {
    const T* samples = plane.row<T>(y + r) + x;
    for (int c = 0; c < kBlock; ++c) block[r * kBlock + c] = samples[c];
  }
}

// Mean PSNR-HVS-M error of one plane (width × height samples of type T,
// values up to 2^bit_depth − 1), normalised by the squared peak. The error is
// accumulated in float, as Xiph's calc_psnrhvs (the definition followed
// here) does. Needs width, height >= 8.
template <typename T>
double plane_error(const Plane& src_plane, const Plane& dst_plane, int bit_depth,
                   const float (&csf)[8][8]) {
  // Masking weights: (csf · 0.3885746225901003)², computed in double, stored float.
  float weight[8][8];
  for (int u = 0; u < 8; ++u)
    for (int v = 0; v < 8; ++v)
      weight[u][v] = static_cast<float>((csf[u][v] * 0.3885746225901003) *
                                        (csf[u][v] * 0.3885746225901003));

  float total = 0;
  int blocks = 0;
  Coeff src_block[kBlockSize];
  Coeff dst_block[kBlockSize];
  for (int y = 0; y + kBlock <= src_plane.height; y += kStep) {
    for (int x = 0; x + kBlock <= src_plane.width; x += kStep) {
      load_block<T>(src_block, src_plane, x, y);
      load_block<T>(dst_block, dst_plane, x, y);
      const float src_activity = quadrant_activity(src_block);
      const float dst_activity = quadrant_activity(dst_block);
      dct8x8(src_block);
      dct8x8(dst_block);
      const float level = std::max(masking_level(src_block, src_activity, weight),
                                   masking_level(dst_block, dst_activity, weight));
      add_block_error(total, src_block, dst_block, level, weight, csf);
      ++blocks;
    }
  }
  total /= blocks * kBlockSize;
  const std::int32_t sample_max = (1 << bit_depth) - 1;
  total /= sample_max * sample_max;
  return total;
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

}  // namespace

const ExtractorInfo& psnr_hvs_extractor() {
  static const ExtractorInfo info{
      .name = "psnr_hvs",
      .options = {},
      .provided_features = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"},
      .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<PsnrHvs>(o);
      },
  };
  return info;
}

}  // namespace vqe
