// SPDX-License-Identifier: BSD-2-Clause
// Integer ADM kernel (see integer_adm.h), after libvmaf's
// libvmaf/src/feature/integer_adm.c (plain C path).

#include "features/adm/integer_adm.h"

#include <math.h>  // pow, powf, log2, ceil, cos: the C functions libvmaf calls

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "features/adm/adm_kernels.h"
#include "vqe/error.h"

namespace vqe::adm {
namespace {

// db2 analysis filters in Q15 (low-pass sums to 46342 ≈ √2·2^15; high-pass
// sums to 0), tap order 2i-1, 2i, 2i+1, 2i+2.
constexpr std::int32_t kLo[4] = {15826, 27411, 7345, -4240};
constexpr std::int32_t kHi[4] = {-4240, -7345, 27411, -15826};
constexpr std::int32_t kLoSum = 46342;

constexpr double kBorderFactor = 0.1;  // share of each side left out of the score

/// Q30 reciprocals 2^30 / i for i in -32768..32768 at index i + 32768 (0 at
/// i = 0, never used), libvmaf's div_lookup.
const std::array<std::int32_t, 65537>& reciprocal_table() {
  static const std::array<std::int32_t, 65537> table = [] {
    std::array<std::int32_t, 65537> t{};
    for (int i = 1; i <= 32768; ++i) {
      const std::int32_t r = static_cast<std::int32_t>(1073741824 / i);
      t[32768 + i] = r;
      t[32768 - i] = -r;
    }
    return t;
  }();
  return table;
}

/// |x| with the wrap-around of the C `abs` on x86 (|INT32_MIN| stays
/// INT32_MIN instead of being undefined).
inline std::int32_t wrap_abs(std::int32_t x) {
  return x < 0 ? static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(x)) : x;
}

/// (uint32_t)pow(2, shift - 1) with libvmaf's unsigned shift: 0 when shift
/// is 0 (pow(2, 2^32-1) is inf, which x86 converts to 0).
inline std::uint32_t half_of_pow2(std::uint32_t shift) {
  return shift == 0 ? 0u : (1u << (shift - 1));
}

/// (uint32_t)ceil(log2(n)) in double, as libvmaf writes it.
inline std::uint32_t ceil_log2(int n) {
  return static_cast<std::uint32_t>(ceil(log2(static_cast<double>(n))));
}

/// The scored region of a band: libvmaf leaves (int)(n·0.1 − 0.5) samples
/// out on each side.
struct Region {
  int top, bottom, left, right;
};

Region score_region(int w, int h) {
  const int left = static_cast<int>(w * kBorderFactor - 0.5);
  const int top = static_cast<int>(h * kBorderFactor - 0.5);
  return {top, h - top, left, w - left};
}

/// The region where decoupling and CSF are evaluated: the scored region
/// grown by the masking filter's reach (one sample before, two after, as
/// libvmaf computes it), clipped to the band.
Region work_region(int w, int h) {
  int left = static_cast<int>(w * kBorderFactor - 0.5 - 1);
  int top = static_cast<int>(h * kBorderFactor - 0.5 - 1);
  int right = w - left + 2;
  int bottom = h - top + 2;
  left = std::max(left, 0);
  top = std::max(top, 0);
  right = std::min(right, w);
  bottom = std::min(bottom, h);
  return {top, bottom, left, right};
}

/// True when vectors (oh, ov) and (th, tv) point within 1° of each other,
/// checked as u·v >= 0 and (u·v)² >= cos²(1°)·|u|²·|v|², the integer products
/// rounded to float, scaled by 1/4096 in double (libvmaf's exact mix).
inline bool angle_within_one_degree(std::int64_t oh, std::int64_t ov, std::int64_t th,
                              std::int64_t tv, float cos_1deg_sq) {
  const std::int64_t dot = oh * th + ov * tv;
  const std::int64_t o_mag_sq = oh * oh + ov * ov;
  const std::int64_t t_mag_sq = th * th + tv * tv;
  const double d = static_cast<double>(static_cast<float>(dot)) / 4096.0;
  const double o = static_cast<double>(static_cast<float>(o_mag_sq)) / 4096.0;
  const double t = static_cast<double>(static_cast<float>(t_mag_sq)) / 4096.0;
  return d >= 0.0 && d * d >= static_cast<double>(cos_1deg_sq) * o * t;
}

/// Applies the enhancement gain limit to a restored coefficient `rst` of
/// type T: where the angle test passed, rst becomes min(rst·gain, dis) for a
/// positive restored value and max(rst·gain, dis) for a negative one, in
/// double, truncated back to T. The sign is that of libvmaf's float
/// (k / 32768)·(ref / 64), i.e. positive iff k > 0 and ref > 0.
template <typename T>
inline T limit_enhancement(T rst, T dis, std::int64_t k, std::int64_t ref, bool angle_ok,
                           double gain) {
  if (!angle_ok || k == 0 || ref == 0) return rst;
  const double scaled = static_cast<double>(rst) * gain;
  const double dis_d = static_cast<double>(dis);
  if (ref > 0) return static_cast<T>(scaled < dis_d ? scaled : dis_d);
  return static_cast<T>(scaled > dis_d ? scaled : dis_d);
}

/// Rows (or columns) of the 3×3 masking neighbourhood of index i in 0..n-1:
/// before the first sample the second is used (1 for -1), after the last the
/// last is repeated (n-1 for n), as libvmaf's ADM_CM_THRESH_* macros do.
struct Neighbours {
  int before, centre, after;
};
inline Neighbours neighbours(int i, int n) {
  return {i == 0 ? 1 : i - 1, i, i == n - 1 ? n - 1 : i + 1};
}

}  // namespace

const std::int32_t* reciprocal_table_q30() { return reciprocal_table().data(); }

bool within_one_degree(std::int64_t oh, std::int64_t ov, std::int64_t th, std::int64_t tv,
                       float cos_1deg_sq) {
  return angle_within_one_degree(oh, ov, th, tv, cos_1deg_sq);
}

// ---------------------------------------------------------------------------
// Scalar row kernels (the reference; see adm_kernels.h)

namespace kernels {

// a + b modulo 2^64. Real frames never come near int64's range; synthetic
// extreme rows in the SIMD equality tests can, and there the scalar
// reference must wrap like the vector lanes instead of overflowing.
inline std::int64_t wrapping_add(std::int64_t a, std::int64_t b) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
}

namespace {

template <typename T>
void dwt0_vertical(const T* const rows[4], int w, int bit_depth, std::int16_t* tlo,
                   std::int16_t* thi) {
  // Vertical pass on samples centred by subtracting half the range (folded
  // into the low-pass sum), rounded to 16 bits with a shift of bit_depth.
  // libvmaf sums in int32, which wraps at 16 bits before the offset is
  // taken off; the offset sum always fits in int32, so modular (uint32)
  // arithmetic gives libvmaf's value.
  const int shift_vp = bit_depth;
  const std::int32_t add_vp = std::int32_t{1} << (bit_depth - 1);
  const std::uint32_t offset =
      static_cast<std::uint32_t>(kLoSum) * static_cast<std::uint32_t>(add_vp);
  std::uint32_t lo_c[4], hi_c[4];
  for (int k = 0; k < 4; ++k) {
    lo_c[k] = static_cast<std::uint32_t>(kLo[k]);
    hi_c[k] = static_cast<std::uint32_t>(kHi[k]);
  }
  const T *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[3];
  for (int j = 0; j < w; ++j) {
    const std::uint32_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
    const auto lo = static_cast<std::int32_t>(lo_c[0] * s0 + lo_c[1] * s1 + lo_c[2] * s2 +
                                              lo_c[3] * s3 - offset);
    const auto hi =
        static_cast<std::int32_t>(hi_c[0] * s0 + hi_c[1] * s1 + hi_c[2] * s2 + hi_c[3] * s3);
    tlo[j] = static_cast<std::int16_t>((lo + add_vp) >> shift_vp);
    thi[j] = static_cast<std::int16_t>((hi + add_vp) >> shift_vp);
  }
}

}  // namespace

void dwt0_vertical_u8(const std::uint8_t* const rows[4], int w, int bit_depth, std::int16_t* lo,
                      std::int16_t* hi) {
  dwt0_vertical(rows, w, bit_depth, lo, hi);
}

void dwt0_vertical_u16(const std::uint16_t* const rows[4], int w, int bit_depth,
                       std::int16_t* lo, std::int16_t* hi) {
  dwt0_vertical(rows, w, bit_depth, lo, hi);
}

void dwt0_horizontal(const std::int16_t* tlo, const std::int16_t* thi, int half_w,
                     std::int16_t* a, std::int16_t* v, std::int16_t* h, std::int16_t* d) {
  // Output j reads taps 2j-1 .. 2j+2 (mirrored taps stored by the caller).
  for (int j = 0; j < half_w; ++j) {
    const std::int32_t l0 = tlo[2 * j - 1], l1 = tlo[2 * j], l2 = tlo[2 * j + 1],
                       l3 = tlo[2 * j + 2];
    const std::int32_t h0 = thi[2 * j - 1], h1 = thi[2 * j], h2 = thi[2 * j + 1],
                       h3 = thi[2 * j + 2];
    a[j] = static_cast<std::int16_t>(
        (kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + 32768) >> 16);
    v[j] = static_cast<std::int16_t>(
        (kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + 32768) >> 16);
    h[j] = static_cast<std::int16_t>(
        (kLo[0] * h0 + kLo[1] * h1 + kLo[2] * h2 + kLo[3] * h3 + 32768) >> 16);
    d[j] = static_cast<std::int16_t>(
        (kHi[0] * h0 + kHi[1] * h1 + kHi[2] * h2 + kHi[3] * h3 + 32768) >> 16);
  }
}

namespace {

template <typename S>
void dwt123_vertical(const S* const rows[4], int w, std::int64_t add_v, int shift_v,
                     std::int32_t* tlo, std::int32_t* thi) {
  const S *r0 = rows[0], *r1 = rows[1], *r2 = rows[2], *r3 = rows[3];
  for (int j = 0; j < w; ++j) {
    const std::int64_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
    const std::int64_t lo = kLo[0] * s0 + kLo[1] * s1 + kLo[2] * s2 + kLo[3] * s3;
    const std::int64_t hi = kHi[0] * s0 + kHi[1] * s1 + kHi[2] * s2 + kHi[3] * s3;
    tlo[j] = static_cast<std::int32_t>((lo + add_v) >> shift_v);
    thi[j] = static_cast<std::int32_t>((hi + add_v) >> shift_v);
  }
}

}  // namespace

void dwt1_vertical(const std::int16_t* const rows[4], int w, std::int32_t* lo,
                   std::int32_t* hi) {
  dwt123_vertical(rows, w, 0, 0, lo, hi);
}

void dwt23_vertical(const std::int32_t* const rows[4], int w, std::int32_t* lo,
                    std::int32_t* hi) {
  dwt123_vertical(rows, w, 32768, 16, lo, hi);
}

void dwt123_horizontal(const std::int32_t* tlo, const std::int32_t* thi, int half_w, int shift,
                       std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* d) {
  const std::int64_t add = std::int64_t{1} << (shift - 1);
  for (int j = 0; j < half_w; ++j) {
    const std::int64_t l0 = tlo[2 * j - 1], l1 = tlo[2 * j], l2 = tlo[2 * j + 1],
                       l3 = tlo[2 * j + 2];
    const std::int64_t h0 = thi[2 * j - 1], h1 = thi[2 * j], h2 = thi[2 * j + 1],
                       h3 = thi[2 * j + 2];
    a[j] = static_cast<std::int32_t>(
        (kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + add) >> shift);
    v[j] = static_cast<std::int32_t>(
        (kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + add) >> shift);
    h[j] = static_cast<std::int32_t>(
        (kLo[0] * h0 + kLo[1] * h1 + kLo[2] * h2 + kLo[3] * h3 + add) >> shift);
    d[j] = static_cast<std::int32_t>(
        (kHi[0] * h0 + kHi[1] * h1 + kHi[2] * h2 + kHi[3] * h3 + add) >> shift);
  }
}

void decouple0_row(const DecoupleRow<std::int16_t>& r, int begin, int end, float cos_1deg_sq,
                   double gain) {
  // k = dis / ref in Q15 through the Q30 reciprocal table, clamped to
  // [0, 1]; restored = k·ref rounded; additive = dis − restored.
  const auto& recip = reciprocal_table();
  std::int16_t* rst_out[3] = {r.rh, r.rv, r.rd};
  std::int16_t* add_out[3] = {r.ah, r.av, r.ad};
  for (int j = begin; j < end; ++j) {
    const std::int16_t o[3] = {r.oh[j], r.ov[j], r.od[j]};
    const std::int16_t t[3] = {r.th[j], r.tv[j], r.td[j]};
    const bool angle_ok = angle_within_one_degree(o[0], o[1], t[0], t[1], cos_1deg_sq);
    for (int theta = 0; theta < 3; ++theta) {
      std::int32_t k = 32768;
      if (o[theta] != 0) {
        const std::int64_t q =
            (static_cast<std::int64_t>(recip[o[theta] + 32768]) * t[theta] + 16384) >> 15;
        k = static_cast<std::int32_t>(q);
      }
      k = std::clamp(k, 0, 32768);
      auto rst = static_cast<std::int16_t>((k * o[theta] + 16384) >> 15);
      rst = limit_enhancement<std::int16_t>(rst, t[theta], k, o[theta], angle_ok, gain);
      rst_out[theta][j] = rst;
      add_out[theta][j] = static_cast<std::int16_t>(t[theta] - rst);
    }
  }
}

void decouple123_row(const DecoupleRow<std::int32_t>& r, int begin, int end, float cos_1deg_sq,
                     double gain) {
  // As level 0, but a 32-bit |ref| >= 2^15 is first rounded to its top 15
  // significant bits (shift s) so the table applies; the quotient is then
  // shifted down by s more (libvmaf's get_best15_from32).
  const auto& recip = reciprocal_table();
  std::int32_t* rst_out[3] = {r.rh, r.rv, r.rd};
  std::int32_t* add_out[3] = {r.ah, r.av, r.ad};
  for (int j = begin; j < end; ++j) {
    const std::int32_t o[3] = {r.oh[j], r.ov[j], r.od[j]};
    const std::int32_t t[3] = {r.th[j], r.tv[j], r.td[j]};
    const bool angle_ok = angle_within_one_degree(o[0], o[1], t[0], t[1], cos_1deg_sq);
    for (int theta = 0; theta < 3; ++theta) {
      std::int64_t k = 32768;
      if (o[theta] != 0) {
        const std::uint32_t mag = static_cast<std::uint32_t>(wrap_abs(o[theta]));
        const std::int64_t sign = o[theta] < 0 ? -1 : 1;
        int shift = 0;
        std::uint32_t top15 = mag;
        if (mag >= 32768) {
          shift = 17 - __builtin_clz(mag);
          top15 = static_cast<std::uint16_t>((mag + (1u << (shift - 1))) >> shift);
        }
        const std::int64_t num = static_cast<std::int64_t>(recip[top15 + 32768]) * t[theta];
        k = (num * sign + (std::int64_t{1} << (14 + shift))) >> (15 + shift);
      }
      k = std::clamp<std::int64_t>(k, 0, 32768);
      auto rst = static_cast<std::int32_t>((k * o[theta] + 16384) >> 15);
      rst = limit_enhancement<std::int32_t>(rst, t[theta], k, o[theta], angle_ok, gain);
      rst_out[theta][j] = rst;
      add_out[theta][j] = static_cast<std::int32_t>(static_cast<std::uint32_t>(t[theta]) -
                                                    static_cast<std::uint32_t>(rst));
    }
  }
}

void csf0_row(const std::int16_t* h, const std::int16_t* v, const std::int16_t* d, int begin,
              int end, const std::uint16_t fixed[3], std::int32_t* mask, std::int32_t* centre) {
  static constexpr int kShift[3] = {15, 15, 17};
  static constexpr std::int32_t kAdd[3] = {16384, 16384, 65535};
  constexpr std::int32_t kOneBy30 = 4369;  // 2^17 / 30
  constexpr std::int32_t kOneBy15 = 8738;  // 2^17 / 15
  const std::int16_t* in[3] = {h, v, d};
  for (int j = begin; j < end; ++j) {
    std::int32_t m = 0, c = 0;
    for (int theta = 0; theta < 3; ++theta) {
      const std::int32_t x = static_cast<std::int32_t>(fixed[theta]) * in[theta][j];
      const int csf = std::abs(
          static_cast<int>(static_cast<std::int16_t>((x + kAdd[theta]) >> kShift[theta])));
      m += static_cast<std::int16_t>((kOneBy30 * csf + 2048) >> 12);
      c += static_cast<std::int16_t>((kOneBy15 * csf + 2048) >> 12);
    }
    mask[j] = m;
    centre[j] = c;
  }
}

void csf123_row(const std::int32_t* h, const std::int32_t* v, const std::int32_t* d, int begin,
                int end, const std::uint32_t fixed[3], std::int32_t* mask,
                std::int32_t* centre) {
  constexpr std::int64_t kOneBy30 = 143165577;  // 2^32 / 30
  constexpr std::int64_t kOneBy15 = 286331153;  // 2^32 / 15
  // libvmaf stores the rounding term 1u << 31 in an int32_t, where it wraps
  // to -2^31 (x86 gcc): both terms are floor(|csf|·k − 0.5), so a zero
  // coefficient gives -1.
  constexpr std::int64_t kRound = -2147483648LL;
  const std::int32_t* in[3] = {h, v, d};
  for (int j = begin; j < end; ++j) {
    std::uint32_t m = 0, c = 0;  // libvmaf's int32 sums, wrap-around kept
    for (int theta = 0; theta < 3; ++theta) {
      const auto csf = static_cast<std::int32_t>(
          (static_cast<std::int64_t>(fixed[theta]) * in[theta][j] + (1 << 27)) >> 28);
      const std::int64_t mag = wrap_abs(csf);
      m += static_cast<std::uint32_t>(static_cast<std::int32_t>((kOneBy30 * mag + kRound) >> 32));
      c += static_cast<std::uint32_t>(static_cast<std::int32_t>((kOneBy15 * mag + kRound) >> 32));
    }
    mask[j] = static_cast<std::int32_t>(m);
    centre[j] = static_cast<std::int32_t>(c);
  }
}

namespace {

/// Masking threshold of position j: the 3×3 sum of mask-sum rows around it
/// (libvmaf's border rule: before the first column the second is used, after
/// the last the last is repeated) with the centre replaced by centre_sum;
/// wrap-around int32 arithmetic as in libvmaf.
inline std::int32_t masking_threshold(const std::int32_t* const rows[3],
                                      const std::int32_t* centre, int j, int w) {
  const Neighbours nx = neighbours(j, w);
  std::uint32_t sum = static_cast<std::uint32_t>(centre[j]);
  for (int dy = 0; dy < 3; ++dy) {
    sum += static_cast<std::uint32_t>(rows[dy][nx.before]) +
           static_cast<std::uint32_t>(rows[dy][nx.after]);
    if (dy != 1) sum += static_cast<std::uint32_t>(rows[dy][nx.centre]);
  }
  return static_cast<std::int32_t>(sum);
}

}  // namespace

void masked0_row(const MaskRow<std::int16_t>& r, int begin, int end,
                 const std::uint16_t fixed[3], const std::uint32_t cub_shift[3],
                 std::int64_t inner[3]) {
  // Per orientation (h, v, d): the threshold's scale (shift) and the
  // squaring shift and its rounding.
  static constexpr int kThrShift[3] = {10, 10, 12};
  static constexpr int kSqShift[3] = {29, 29, 30};
  static constexpr std::int64_t kSqAdd[3] = {268435456, 268435456, 536870912};
  const std::int64_t cub_add[3] = {half_of_pow2(cub_shift[0]), half_of_pow2(cub_shift[1]),
                                   half_of_pow2(cub_shift[2])};
  for (int j = begin; j < end; ++j) {
    const std::int32_t thr = masking_threshold(r.mask, r.centre, j, r.width);
    for (int theta = 0; theta < 3; ++theta) {
      std::int32_t x =
          static_cast<std::int32_t>(r.x[theta][j]) * static_cast<std::int32_t>(fixed[theta]);
      const std::uint32_t t = static_cast<std::uint32_t>(thr) << kThrShift[theta];
      x = static_cast<std::int32_t>(static_cast<std::uint32_t>(wrap_abs(x)) - t);
      if (x < 0) x = 0;
      const auto x_sq = static_cast<std::int32_t>(
          (static_cast<std::int64_t>(x) * x + kSqAdd[theta]) >> kSqShift[theta]);
      inner[theta] = wrapping_add(
          inner[theta], (static_cast<std::int64_t>(x_sq) * x + cub_add[theta]) >> cub_shift[theta]);
    }
  }
}

void masked123_row(const MaskRow<std::int32_t>& r, int begin, int end,
                   const std::uint32_t fixed[3], std::uint32_t cub_shift,
                   std::int64_t inner[3]) {
  const std::int64_t cub_add = half_of_pow2(cub_shift);
  for (int j = begin; j < end; ++j) {
    const std::int32_t thr = masking_threshold(r.mask, r.centre, j, r.width);
    for (int theta = 0; theta < 3; ++theta) {
      std::int32_t x = static_cast<std::int32_t>(
          (static_cast<std::int64_t>(r.x[theta][j]) * fixed[theta] + (1 << 27)) >> 28);
      x = static_cast<std::int32_t>(static_cast<std::uint32_t>(wrap_abs(x)) -
                                    static_cast<std::uint32_t>(thr));
      if (x < 0) x = 0;
      const auto x_sq =
          static_cast<std::int32_t>((static_cast<std::int64_t>(x) * x + 536870912) >> 30);
      inner[theta] =
          wrapping_add(inner[theta], (static_cast<std::int64_t>(x_sq) * x + cub_add) >> cub_shift);
    }
  }
}

std::uint64_t den0_row(const std::int16_t* row, int begin, int end) {
  std::uint64_t inner = 0;
  for (int j = begin; j < end; ++j) {
    const std::uint64_t m = static_cast<std::uint16_t>(std::abs(static_cast<int>(row[j])));
    inner += m * m * m;
  }
  return inner;
}

std::uint64_t den123_row(const std::int32_t* row, int begin, int end, std::uint32_t shift_sq,
                         std::uint32_t shift_cub) {
  const std::uint64_t add_sq = std::uint64_t{1} << shift_sq;  // libvmaf adds 1.0, not 0.5
  const std::uint64_t add_cub = half_of_pow2(shift_cub);
  std::uint64_t inner = 0;
  for (int j = begin; j < end; ++j) {
    const std::uint64_t m = static_cast<std::uint32_t>(wrap_abs(row[j]));
    inner += ((((m * m + add_sq) >> shift_sq) * m) + add_cub) >> shift_cub;
  }
  return inner;
}

}  // namespace kernels


namespace {

/// Level 0's contrast-masking total from its per-orientation row-rounded
/// sums (the end of masked_sum_level0).
float masked_level0_total(const std::int64_t accum[3], const std::uint32_t cub_shift[3],
                          std::uint32_t row_shift, const Region& r, double noise_weight) {
  static constexpr int kPending[3] = {52, 52, 57};
  const float noise = powf(
      static_cast<float>((r.bottom - r.top) * (r.right - r.left) * noise_weight), 1.0f / 3.0f);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    const int exponent = kPending[theta] - static_cast<int>(cub_shift[theta]) -
                         static_cast<int>(row_shift);
    const auto f = static_cast<float>(static_cast<double>(accum[theta]) / pow(2, exponent));
    const float term = powf(f, 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

/// Level 0's cube-shift per orientation and row shift for band size w x h.
void masked_level0_shifts(int w, int h, std::uint32_t cub_shift[3], std::uint32_t* row_shift) {
  const double log2w = log2(static_cast<double>(w));
  cub_shift[0] = static_cast<std::uint32_t>(ceil(log2w - 4));
  cub_shift[1] = static_cast<std::uint32_t>(ceil(log2w - 4));
  cub_shift[2] = static_cast<std::uint32_t>(ceil(log2w - 3));
  *row_shift = ceil_log2(h);
}

/// Levels 1-3's denominator shifts: squaring, cubing (row), accumulation.
struct Den123Shifts {
  std::uint32_t sq, cub, accum;
};
Den123Shifts den_level123_shifts(const Region& r, int scale) {
  static constexpr std::uint32_t kShiftSq[3] = {31, 30, 31};
  return {kShiftSq[scale - 1], ceil_log2(r.right - r.left), ceil_log2(r.bottom - r.top)};
}

/// Level 0's denominator row-sum shift (rows are scaled down so the total
/// fits 64 bits).
std::int32_t den_level0_shift(int area) {
  const auto shift = static_cast<std::int32_t>(ceil(log2(area) - 20));
  return shift > 0 ? shift : 0;
}

}  // namespace

FixedWeights fixed_weights(const CsfParams& c) {
  // Level 0 uses 16-bit fixed point: Q21 for h/v, Q23 for d, with libvmaf's
  // hard-coded constants for Watson at 3 heights x 1080 lines; levels 1-3
  // use Q32.
  FixedWeights fw;
  for (int s = 0; s < kNumScales; ++s) {
    const float hv = csf_weight(c, s, false);
    const float dg = csf_weight(c, s, true);
    const float wts[3] = {hv, hv, dg};
    if (s == 0) {
      if (fabs(c.norm_view_dist * c.ref_display_height - 3.0 * 1080) < 1.0e-8 &&
          c.mode == CsfMode::kWatson97) {
        fw.level0[0] = 36453;
        fw.level0[1] = 36453;
        fw.level0[2] = 49417;
      } else {
        const double q21 = pow(2, 21), q23 = pow(2, 23);
        // libvmaf's (uint16_t) cast; out of range in Barten mode, where it
        // keeps the low 16 bits as x86 does.
        fw.level0[0] = x86_double_to_u16(static_cast<double>(wts[0]) * q21);
        fw.level0[1] = x86_double_to_u16(static_cast<double>(wts[1]) * q21);
        fw.level0[2] = x86_double_to_u16(static_cast<double>(wts[2]) * q23);
      }
    } else {
      const double q32 = pow(2, 32);
      for (int k = 0; k < 3; ++k)
        fw.level123[s][k] = x86_double_to_u32(static_cast<double>(wts[k]) * q32);
    }
  }
  return fw;
}

void check_format(int width, int height, int bit_depth, const AdmParams& params) {
  if (width < kMinSize || height < kMinSize)
    throw Error(fmt::format(
        "adm: frame {}x{} is too small: width and height must be at least {} (the 4-level "
        "DWT needs 5 samples per side at its coarsest level; libvmaf 3.2.0 reads outside "
        "its buffers below that)",
        width, height, kMinSize));
  if (bit_depth != 8 && bit_depth != 10 && bit_depth != 12 && bit_depth != 16)
    throw Error(fmt::format("adm: unsupported bit depth {} (8, 10, 12 or 16)", bit_depth));
  const CsfParams& c = params.csf;
  if (c.norm_view_dist * c.ref_display_height < kMinViewDistTimesHeight)
    throw Error(fmt::format(
        "adm: adm_norm_view_dist x adm_ref_display_height = {:g} x {} is below {:g}: the "
        "fixed-point ADM cannot represent finer angular resolutions (libvmaf refuses them too)",
        c.norm_view_dist, c.ref_display_height, kMinViewDistTimesHeight));
  if (!blend_table_available(c))
    throw Error(fmt::format(
        "adm: adm_csf_mode={} has no CSF table for adm_ref_display_height={} at "
        "adm_norm_view_dist={:g} (tables exist for 480, 720, 1080, 2160 lines at 3 or 5 "
        "heights, and 2160 lines at 1.5)",
        static_cast<int>(c.mode), c.ref_display_height, c.norm_view_dist));
}

IntegerAdm::IntegerAdm(int width, int height, int bit_depth, const AdmParams& params,
                       simd::Level level)
    : width_(width),
      height_(height),
      bit_depth_(bit_depth),
      params_(params),
      dsp_(adm_dsp(level)),
      streamed_(level != simd::Level::scalar) {
  check_format(width, height, bit_depth, params);
  const CsfParams& c = params.csf;
  fixed_ = fixed_weights(c);
  cos_1deg_sq_ = static_cast<float>(cos(1.0 * 3.14159265358979323846 / 180.0) *
                                    cos(1.0 * 3.14159265358979323846 / 180.0));

  // Level 0's bands are ceil(W/2) x ceil(H/2) (16 bits); levels 1-3 fit in
  // the size of level 1's, a quarter of that (32 bits).
  stride0_ = (width + 1) / 2;
  const int rows0 = (height + 1) / 2;
  stride1_ = (stride0_ + 1) / 2;
  const int rows1 = (rows0 + 1) / 2;
  band0_ = static_cast<std::size_t>(stride0_) * rows0;
  band1_ = static_cast<std::size_t>(stride1_) * rows1;
  // The LL bands feed the next level on every path; the other full bands
  // only the scalar passes (allocate_full_bands()).
  ref16_.a.assign(band0_, 0);
  dis16_.a.assign(band0_, 0);
  ref32_.a.assign(band1_, 0);
  dis32_.a.assign(band1_, 0);
  ll_ref_.assign(band1_, 0);
  ll_dis_.assign(band1_, 0);
  scratch_.resize(1);
  // Vertical-pass rows with room for the mirrored taps (1 before, 2 after)
  // and slack.
  tmp_pitch0_ = width + kRowPad;
  tmp_pitch1_ = stride0_ + kRowPad;
  tmp16_.assign(2 * static_cast<std::size_t>(tmp_pitch0_), 0);
  tmp32_.assign(4 * static_cast<std::size_t>(tmp_pitch1_), 0);
  for (int k = 0; k < 4; ++k) {
    tap_y_[k].assign(rows0, 0);
  }
  reciprocal_table();  // build it outside the per-frame path
  scorer_.emplace(width, height, params);
}


void IntegerAdm::allocate_full_bands() {
  if (!mask_sum0_.empty()) return;
  for (Bands<std::int16_t>* b : {&ref16_, &dis16_, &restored16_, &additive16_}) {
    b->h.assign(band0_, 0);
    b->v.assign(band0_, 0);
    b->d.assign(band0_, 0);
  }
  for (Bands<std::int32_t>* b : {&ref32_, &dis32_, &restored32_, &additive32_}) {
    b->h.assign(band1_, 0);
    b->v.assign(band1_, 0);
    b->d.assign(band1_, 0);
  }
  mask_sum0_.assign(band0_, 0);
  centre_sum0_.assign(band0_, 0);
  mask_sum1_.assign(band1_, 0);
  centre_sum1_.assign(band1_, 0);
}

IntegerAdm::StreamSums IntegerAdm::add_tiles(const StreamSums* tiles, unsigned count) {
  StreamSums total;
  for (unsigned t = 0; t < count; ++t)
    for (int theta = 0; theta < 3; ++theta) {
      total.den[theta] += tiles[t].den[theta];
      for (int p = 0; p < 2; ++p) total.masked[p][theta] += tiles[t].masked[p][theta];
    }
  return total;
}

// ---------------------------------------------------------------------------
// DWT

void IntegerAdm::make_tap_indices(int h) {
  // Output row i reads rows 2i-1 .. 2i+2. Row -1 reads 1; rows n and n+1
  // read n-1 and n-2 (2n - t - 1). With n >= 5 no other tap leaves 0..n-1.
  // (Columns use the same rule through mirror_row.)
  auto fill = [](std::array<std::vector<int>, 4>& taps, int n) {
    const int half = (n + 1) / 2;
    for (int i = 0; i < half; ++i) {
      for (int k = 0; k < 4; ++k) {
        int t = 2 * i - 1 + k;
        if (t < 0) t = -t;
        if (t >= n) t = 2 * n - t - 1;
        taps[k][i] = t;
      }
    }
  };
  fill(tap_y_, h);
}

namespace {

/// Stores the horizontal pass's mirrored taps around a row of n samples:
/// index -1 reads 1, n reads n-1, n+1 reads n-2.
template <typename T>
inline void mirror_row(T* row, int n) {
  row[-1] = row[1];
  row[n] = row[n - 1];
  row[n + 1] = row[n - 2];
}

}  // namespace

template <typename T>
void IntegerAdm::dwt_level0(const Plane& src, Bands<std::int16_t>& dst, int w, int h) {
  std::int16_t* tlo = tmp16_.data() + 1;
  std::int16_t* thi = tlo + tmp_pitch0_;
  const int half_w = (w + 1) / 2;
  const int half_h = (h + 1) / 2;
  for (int i = 0; i < half_h; ++i) {
    const T* rows[4] = {src.row<T>(tap_y_[0][i]), src.row<T>(tap_y_[1][i]),
                        src.row<T>(tap_y_[2][i]), src.row<T>(tap_y_[3][i])};
    if constexpr (sizeof(T) == 1)
      dsp_.dwt0_vertical_u8(rows, w, bit_depth_, tlo, thi);
    else
      dsp_.dwt0_vertical_u16(rows, w, bit_depth_, tlo, thi);
    mirror_row(tlo, w);
    mirror_row(thi, w);
    const std::size_t row = static_cast<std::size_t>(i) * stride0_;
    dsp_.dwt0_horizontal(tlo, thi, half_w, dst.a.data() + row, dst.v.data() + row,
                         dst.h.data() + row, dst.d.data() + row);
  }
}

template <typename S>
void IntegerAdm::dwt_level123(const S* ref_ll, const S* dis_ll, int src_stride, int w, int h,
                              int scale) {
  // Horizontal rounding shift per level (the vertical one is fixed per
  // input type: none for level 1's int16 input, 16 for levels 2-3).
  static constexpr int kShiftH[3] = {15, 16, 15};
  const int shift_h = kShiftH[scale - 1];
  std::int32_t* tmp[4];  // ref lo, ref hi, dis lo, dis hi
  for (int k = 0; k < 4; ++k) tmp[k] = tmp32_.data() + 1 + k * tmp_pitch1_;
  const S* srcs[2] = {ref_ll, dis_ll};
  Bands<std::int32_t>* dsts[2] = {&ref32_, &dis32_};
  const int half_w = (w + 1) / 2;
  const int half_h = (h + 1) / 2;
  for (int i = 0; i < half_h; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride1_;
    for (int p = 0; p < 2; ++p) {
      const S* rows[4];
      for (int k = 0; k < 4; ++k)
        rows[k] = srcs[p] + static_cast<std::size_t>(tap_y_[k][i]) * src_stride;
      std::int32_t* tlo = tmp[2 * p];
      std::int32_t* thi = tmp[2 * p + 1];
      if constexpr (sizeof(S) == 2) {
        kernels::dwt1_vertical(rows, w, tlo, thi);
      } else {
        kernels::dwt23_vertical(rows, w, tlo, thi);
      }
      mirror_row(tlo, w);
      mirror_row(thi, w);
      Bands<std::int32_t>& dst = *dsts[p];
      kernels::dwt123_horizontal(tlo, thi, half_w, shift_h, dst.a.data() + row,
                                 dst.v.data() + row, dst.h.data() + row, dst.d.data() + row);
    }
  }
}

// ---------------------------------------------------------------------------
// Decoupling

void IntegerAdm::decouple_level0(int w, int h) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * stride0_;
    const DecoupleRow<std::int16_t> row{
        ref16_.h.data() + at,      ref16_.v.data() + at,      ref16_.d.data() + at,
        dis16_.h.data() + at,      dis16_.v.data() + at,      dis16_.d.data() + at,
        restored16_.h.data() + at, restored16_.v.data() + at, restored16_.d.data() + at,
        additive16_.h.data() + at, additive16_.v.data() + at, additive16_.d.data() + at};
    kernels::decouple0_row(row, r.left, r.right, cos_1deg_sq_, params_.enhn_gain_limit);
  }
}

void IntegerAdm::decouple_level123(int w, int h) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * stride1_;
    const DecoupleRow<std::int32_t> row{
        ref32_.h.data() + at,      ref32_.v.data() + at,      ref32_.d.data() + at,
        dis32_.h.data() + at,      dis32_.v.data() + at,      dis32_.d.data() + at,
        restored32_.h.data() + at, restored32_.v.data() + at, restored32_.d.data() + at,
        additive32_.h.data() + at, additive32_.v.data() + at, additive32_.d.data() + at};
    kernels::decouple123_row(row, r.left, r.right, cos_1deg_sq_, params_.enhn_gain_limit);
  }
}

// ---------------------------------------------------------------------------
// Denominator: Σ |csf(ref)|³ over the scored region, cube-rooted, plus noise

void IntegerAdm::csf_denominator_level0(int w, int h, std::uint64_t accum[3]) const {
  const Region r = score_region(w, h);
  const int area = (r.bottom - r.top) * (r.right - r.left);
  const std::int32_t shift = den_level0_shift(area);
  const std::uint64_t add = shift > 0 ? (std::uint64_t{1} << (shift - 1)) : 0;
  for (int theta = 0; theta < 3; ++theta) {
    const std::int16_t* band = ref16_.orient(theta);
    accum[theta] = 0;
    for (int i = r.top; i < r.bottom; ++i) {
      const std::int16_t* row = band + static_cast<std::size_t>(i) * stride0_;
      const std::uint64_t inner = kernels::den0_row(row, r.left, r.right);
      accum[theta] += (inner + add) >> shift;
    }
  }
}

float AdmScorer::den_level0_total(const std::uint64_t accum[3], int area) const {
  const std::int32_t shift = den_level0_shift(area);
  const float noise = powf(static_cast<float>(area * params_.noise_weight), 1.0f / 3.0f);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    // The weight is applied after cubing; 6 bits of the DWT's scale are
    // still pending, 18 after cubing.
    const double csf = static_cast<double>(static_cast<double>(accum[theta]) / pow(2, 18 - shift)) *
                       pow(static_cast<double>(weight_[0][theta]), 3);
    const float term = powf(static_cast<float>(csf), 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

void IntegerAdm::csf_denominator_level123(int w, int h, int scale,
                                          std::uint64_t accum[3]) const {
  const Region r = score_region(w, h);
  const Den123Shifts sh = den_level123_shifts(r, scale);
  const std::uint64_t add_accum = half_of_pow2(sh.accum);
  for (int theta = 0; theta < 3; ++theta) {
    const std::int32_t* band = ref32_.orient(theta);
    accum[theta] = 0;
    for (int i = r.top; i < r.bottom; ++i) {
      const std::int32_t* row = band + static_cast<std::size_t>(i) * stride1_;
      const std::uint64_t inner = kernels::den123_row(row, r.left, r.right, sh.sq, sh.cub);
      accum[theta] += (inner + add_accum) >> sh.accum;
    }
  }
}

float AdmScorer::den_level123_total(const std::uint64_t accum[3], int w, int h,
                                    int scale) const {
  static constexpr std::uint32_t kToFloat[3] = {32, 27, 23};
  const Region r = score_region(w, h);
  const Den123Shifts sh = den_level123_shifts(r, scale);
  const int area = (r.bottom - r.top) * (r.right - r.left);
  const float noise = powf(static_cast<float>(area * params_.noise_weight), 1.0f / 3.0f);
  const int exponent = static_cast<int>(kToFloat[scale - 1]) - static_cast<int>(sh.accum) -
                       static_cast<int>(sh.cub);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    const double csf = static_cast<double>(static_cast<double>(accum[theta]) / pow(2, exponent)) *
                       pow(static_cast<double>(weight_[scale][theta]), 3);
    const float term = powf(static_cast<float>(csf), 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

// ---------------------------------------------------------------------------
// CSF of the masker and its masking terms
//
// libvmaf weights the masker's h, v and d bands (csf = weight·x in fixed
// point) and keeps |csf|/30 per band; the threshold of a position is the sum
// over the three bands of that term at its 8 neighbours plus |csf|/15 at the
// position itself. Integer addition without overflow is exact in any order
// (and wrap-around addition is modular in any order), so the three bands'
// terms are summed here once per position: mask_sum = Σθ |csf_θ|/30 and
// centre_sum = Σθ |csf_θ|/15. The rounding of each term is libvmaf's.

void IntegerAdm::csf_level0(const Bands<std::int16_t>& src, int w, int h) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride0_;
    const std::int16_t *bh = src.h.data() + row, *bv = src.v.data() + row,
                       *bd = src.d.data() + row;
    std::int32_t* mask = mask_sum0_.data() + row;
    std::int32_t* centre = centre_sum0_.data() + row;
    kernels::csf0_row(bh, bv, bd, r.left, r.right, fixed_.level0, mask, centre);
  }
}

void IntegerAdm::csf_level123(const Bands<std::int32_t>& src, int w, int h, int scale) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride1_;
    const std::int32_t *bh = src.h.data() + row, *bv = src.v.data() + row,
                       *bd = src.d.data() + row;
    std::int32_t* mask = mask_sum1_.data() + row;
    std::int32_t* centre = centre_sum1_.data() + row;
    kernels::csf123_row(bh, bv, bd, r.left, r.right, fixed_.level123[scale], mask, centre);
  }
}

// ---------------------------------------------------------------------------
// Contrast masking: Σ max(|weight·target| − threshold, 0)³ over the scored
// region, rows rounded and summed, then scaled to float and cube-rooted.

void IntegerAdm::masked_sum_level0(const Bands<std::int16_t>& target, int w, int h,
                                   std::int64_t accum[3]) const {
  // Cubes are shifted by a width-dependent amount so that rows fit 64 bits.
  std::uint32_t cub_shift[3], row_shift;
  masked_level0_shifts(w, h, cub_shift, &row_shift);
  const std::int64_t row_add = half_of_pow2(row_shift);
  const Region r = score_region(w, h);
  const std::size_t st = static_cast<std::size_t>(stride0_);

  for (int theta = 0; theta < 3; ++theta) accum[theta] = 0;
  for (int i = r.top; i < r.bottom; ++i) {
    const Neighbours ny = neighbours(i, h);
    const MaskRow<std::int16_t> row{
        {mask_sum0_.data() + ny.before * st, mask_sum0_.data() + ny.centre * st,
         mask_sum0_.data() + ny.after * st},
        centre_sum0_.data() + i * st,
        {target.h.data() + i * st, target.v.data() + i * st, target.d.data() + i * st},
        w};
    std::int64_t inner[3] = {0, 0, 0};
    kernels::masked0_row(row, r.left, r.right, fixed_.level0, cub_shift, inner);
    for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + row_add) >> row_shift;
  }
}

IntegerAdm::StreamScratch& IntegerAdm::scratch(unsigned slot) {
  if (slot >= scratch_.size()) throw Error("adm: tile slot out of range");
  std::unique_ptr<StreamScratch>& sc = scratch_[slot];
  if (!sc) {
    // First use of this slot (the first frame): every row buffer of one
    // streamed pass.
    sc = std::make_unique<StreamScratch>();
    const auto st0 = static_cast<std::size_t>(stride0_);
    const auto st1 = static_cast<std::size_t>(stride1_);
    sc->tmp16.assign(2 * static_cast<std::size_t>(tmp_pitch0_), 0);
    sc->tmp32.assign(4 * static_cast<std::size_t>(tmp_pitch1_), 0);
    sc->ring16.assign(36 * st0, 0);
    sc->ring32.assign(36 * st1, 0);
    sc->ring_mask.assign(6 * st0, 0);
    sc->ring_centre.assign(6 * st0, 0);
    sc->ll16.assign(2 * st0, 0);
    sc->ll32.assign(2 * st1, 0);
  }
  return *sc;
}

template <typename B, typename Ops>
IntegerAdm::StreamSums IntegerAdm::stream_level(int w, int h, std::size_t st, int passes,
                                                B* ref_ll, B* dis_ll, const Ops& ops,
                                                TileRunner& runner) {
  // One level of the SIMD path as one pass over the band rows, so that every
  // band row is used while in cache: row i's DWT (the LL rows go to the full
  // LL bands for the next level, the detail rows to one-row buffers), its
  // decoupling and masker terms (into 3-row rings) and its denominator sums;
  // then the masking sums of row i-1, whose masker rows i-2..i are ready.
  // Each row's values and roundings are those of the separate scalar passes
  // (dwt_level*, decouple_level*, csf_denominator_level*, csf_level*,
  // masked_sum_level*); the row sums are integers, so their order does not
  // matter.
  //
  // Row tiles: a tile owns band rows [A, B) (their LL rows, denominator and
  // masking sums) and also runs rows A-1 and B, whose masker terms its
  // masking rows need, with their LL rows going to scratch.
  const Region r = score_region(w, h);
  const Region wr = work_region(w, h);
  const unsigned count = std::min(kMaxTiles, runner.tile_count(h, kMinTileRows, w));
  std::array<StreamSums, kMaxTiles> partial;
  runner.run(count, [&](unsigned tile, unsigned slot) {
    StreamScratch& sc = scratch(slot);
    StreamSums& sums = partial[tile];
    sums = StreamSums{};
    const TileRows own = tile_rows(tile, count, h);
    B* ring_base;
    B* ll_scratch;
    if constexpr (sizeof(B) == 2) {
      ring_base = sc.ring16.data();
      ll_scratch = sc.ll16.data();
    } else {
      ring_base = sc.ring32.data();
      ll_scratch = sc.ll32.data();
    }
    // Ring rows: [0..2] ref h, v, d; [3..5] dis h, v, d (one row each); then
    // restored h, v, d and additive h, v, d, 3 rows each.
    auto ring = [&](int band, int ring_slot) { return ring_base + (band * 3 + ring_slot) * st; };
    // Masking sums of score row m from the rings (its rows m-1..m+1 are done).
    auto masked_row = [&](int m) {
      const Neighbours ny = neighbours(m, h);
      for (int p = 0; p < passes; ++p) {
        auto mask = [&](int row) {
          return sc.ring_mask.data() + (static_cast<std::size_t>(p) * 3 + row % 3) * st;
        };
        const int target_band = p == 0 ? 6 : 9;  // restored, additive
        const MaskRow<B> row{
            {mask(ny.before), mask(ny.centre), mask(ny.after)},
            sc.ring_centre.data() + (static_cast<std::size_t>(p) * 3 + m % 3) * st,
            {ring(target_band, m % 3), ring(target_band + 1, m % 3),
             ring(target_band + 2, m % 3)},
            w};
        std::int64_t inner[3] = {0, 0, 0};
        ops.masked(row, r.left, r.right, inner);
        for (int theta = 0; theta < 3; ++theta)
          sums.masked[p][theta] += (inner[theta] + ops.row_add) >> ops.row_shift;
      }
    };
    int next_masked = std::max(own.begin, r.top);
    const int masked_end = std::min(own.end, r.bottom);
    const int last = std::min(h, own.end + 1);
    for (int i = std::max(0, own.begin - 1); i < last; ++i) {
      const bool owned = i >= own.begin && i < own.end;
      const std::size_t at = static_cast<std::size_t>(i) * st;
      ops.dwt(sc, true, i, owned ? ref_ll + at : ll_scratch, ring(1, 0), ring(0, 0), ring(2, 0));
      ops.dwt(sc, false, i, owned ? dis_ll + at : ll_scratch + st, ring(4, 0), ring(3, 0),
              ring(5, 0));
      if (i >= wr.top && i < wr.bottom) {
        const int rs = i % 3;
        const DecoupleRow<B> row{ring(0, 0),  ring(1, 0),  ring(2, 0),  ring(3, 0),
                                 ring(4, 0),  ring(5, 0),  ring(6, rs), ring(7, rs),
                                 ring(8, rs), ring(9, rs), ring(10, rs), ring(11, rs)};
        ops.decouple(row, wr.left, wr.right);
        for (int p = 0; p < passes; ++p) {
          const int masker_band = p == 0 ? 9 : 6;  // additive, restored
          const std::size_t ring_at = (static_cast<std::size_t>(p) * 3 + rs) * st;
          ops.csf(ring(masker_band, rs), ring(masker_band + 1, rs), ring(masker_band + 2, rs),
                  wr.left, wr.right, sc.ring_mask.data() + ring_at,
                  sc.ring_centre.data() + ring_at);
        }
      }
      if (owned && i >= r.top && i < r.bottom)
        for (int theta = 0; theta < 3; ++theta)
          sums.den[theta] += ops.den(ring(theta, 0), r.left, r.right);
      // Row m needs rows up to m+1 (h-1 at the last row).
      while (next_masked < masked_end && neighbours(next_masked, h).after <= i)
        masked_row(next_masked++);
    }
  });
  return add_tiles(partial.data(), count);
}

template <typename T>
void IntegerAdm::level0_streamed(const Plane& ref, const Plane& dis, LevelSums& sums,
                                 TileRunner& runner) {
  // Level 0 of the SIMD path (scale 0 not skipped): stream_level with the
  // 16-bit kernels.
  const int w0 = width_;
  const int w = (w0 + 1) / 2, h = (height_ + 1) / 2;
  const Region r = score_region(w, h);
  struct Ops {
    const IntegerAdm& adm;
    const Plane& ref;
    const Plane& dis;
    int w0, w;
    std::uint32_t cub_shift[3];
    std::uint32_t row_shift;
    std::int64_t row_add;
    std::int32_t den_shift;
    std::uint64_t den_add;
    void dwt(StreamScratch& sc, bool is_ref, int i, std::int16_t* a, std::int16_t* v,
             std::int16_t* hb, std::int16_t* d) const {
      const Plane& src = is_ref ? ref : dis;
      std::int16_t* tlo = sc.tmp16.data() + 1;
      std::int16_t* thi = tlo + adm.tmp_pitch0_;
      const T* rows[4] = {src.row<T>(adm.tap_y_[0][i]), src.row<T>(adm.tap_y_[1][i]),
                          src.row<T>(adm.tap_y_[2][i]), src.row<T>(adm.tap_y_[3][i])};
      if constexpr (sizeof(T) == 1)
        adm.dsp_.dwt0_vertical_u8(rows, w0, adm.bit_depth_, tlo, thi);
      else
        adm.dsp_.dwt0_vertical_u16(rows, w0, adm.bit_depth_, tlo, thi);
      mirror_row(tlo, w0);
      mirror_row(thi, w0);
      adm.dsp_.dwt0_horizontal(tlo, thi, w, a, v, hb, d);
    }
    void decouple(const DecoupleRow<std::int16_t>& row, int begin, int end) const {
      adm.dsp_.decouple0_row(row, begin, end, adm.cos_1deg_sq_, adm.params_.enhn_gain_limit);
    }
    void csf(const std::int16_t* h, const std::int16_t* v, const std::int16_t* d, int begin,
             int end, std::int32_t* mask, std::int32_t* centre) const {
      adm.dsp_.csf0_row(h, v, d, begin, end, adm.fixed_.level0, mask, centre);
    }
    void masked(const MaskRow<std::int16_t>& row, int begin, int end,
                std::int64_t inner[3]) const {
      adm.dsp_.masked0_row(row, begin, end, adm.fixed_.level0, cub_shift, inner);
    }
    std::uint64_t den(const std::int16_t* row, int begin, int end) const {
      return (adm.dsp_.den0_row(row, begin, end) + den_add) >> den_shift;
    }
  };
  Ops ops{*this, ref, dis, w0, w, {}, 0, 0, 0, 0};
  masked_level0_shifts(w, h, ops.cub_shift, &ops.row_shift);
  ops.row_add = half_of_pow2(ops.row_shift);
  const int den_area = (r.bottom - r.top) * (r.right - r.left);
  ops.den_shift = den_level0_shift(den_area);
  ops.den_add = ops.den_shift > 0 ? (std::uint64_t{1} << (ops.den_shift - 1)) : 0;

  const StreamSums total =
      stream_level(w, h, static_cast<std::size_t>(stride0_), params_.skip_aim ? 1 : 2,
                   ref16_.a.data(), dis16_.a.data(), ops, runner);
  total.store(sums, 0);
}

void IntegerAdm::masked_sum_level123(const Bands<std::int32_t>& target, int w, int h,
                                     int scale, std::int64_t accum[3]) const {
  const std::uint32_t cub_shift = ceil_log2(w);
  const std::uint32_t row_shift = ceil_log2(h);
  const std::int64_t row_add = half_of_pow2(row_shift);
  const Region r = score_region(w, h);
  const std::size_t st = static_cast<std::size_t>(stride1_);

  for (int theta = 0; theta < 3; ++theta) accum[theta] = 0;
  for (int i = r.top; i < r.bottom; ++i) {
    const Neighbours ny = neighbours(i, h);
    const MaskRow<std::int32_t> row{
        {mask_sum1_.data() + ny.before * st, mask_sum1_.data() + ny.centre * st,
         mask_sum1_.data() + ny.after * st},
        centre_sum1_.data() + i * st,
        {target.h.data() + i * st, target.v.data() + i * st, target.d.data() + i * st},
        w};
    std::int64_t inner[3] = {0, 0, 0};
    kernels::masked123_row(row, r.left, r.right, fixed_.level123[scale], cub_shift, inner);
    for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + row_add) >> row_shift;
  }
}

float AdmScorer::masked_level123_total(const std::int64_t accum[3], int w, int h, int scale,
                                       double noise_weight) const {
  static constexpr int kPending[3] = {45, 39, 36};  // per level 1..3
  const std::uint32_t cub_shift = ceil_log2(w);
  const std::uint32_t row_shift = ceil_log2(h);
  const Region r = score_region(w, h);
  // libvmaf divides the int64 sum by a float power of two, in float.
  const auto divisor = static_cast<float>(
      pow(2, kPending[scale - 1] - static_cast<int>(cub_shift) - static_cast<int>(row_shift)));
  const float noise = powf(
      static_cast<float>((r.bottom - r.top) * (r.right - r.left) * noise_weight), 1.0f / 3.0f);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    const float f = static_cast<float>(accum[theta]) / divisor;
    const float term = powf(f, 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

template <typename S>
void IntegerAdm::level123_streamed(const S* ref_ll, const S* dis_ll, int src_stride, int w_in,
                                   int h_in, int scale, LevelSums& sums, TileRunner& runner) {
  // Levels 1-3 of the SIMD path: stream_level with the 32-bit kernels, on
  // the previous LL bands (int16 at level 1, int32 after).
  static constexpr int kShiftH[3] = {15, 16, 15};
  const int w = (w_in + 1) / 2, h = (h_in + 1) / 2;
  const Region r = score_region(w, h);
  const Den123Shifts dsh = den_level123_shifts(r, scale);
  struct Ops {
    const IntegerAdm& adm;
    const S* ref_ll;
    const S* dis_ll;
    int src_stride, w_in, w, shift_h;
    const std::uint32_t* fixed;
    std::uint32_t cub_shift;
    std::uint32_t row_shift;
    std::int64_t row_add;
    Den123Shifts dsh;
    std::uint64_t den_add;
    void dwt(StreamScratch& sc, bool is_ref, int i, std::int32_t* a, std::int32_t* v,
             std::int32_t* hb, std::int32_t* d) const {
      const S* src = is_ref ? ref_ll : dis_ll;
      std::int32_t* tlo = sc.tmp32.data() + 1;
      std::int32_t* thi = tlo + adm.tmp_pitch1_;
      const S* rows[4];
      for (int k = 0; k < 4; ++k)
        rows[k] = src + static_cast<std::size_t>(adm.tap_y_[k][i]) * src_stride;
      if constexpr (sizeof(S) == 2)
        adm.dsp_.dwt1_vertical(rows, w_in, tlo, thi);
      else
        adm.dsp_.dwt23_vertical(rows, w_in, tlo, thi);
      mirror_row(tlo, w_in);
      mirror_row(thi, w_in);
      adm.dsp_.dwt123_horizontal(tlo, thi, w, shift_h, a, v, hb, d);
    }
    void decouple(const DecoupleRow<std::int32_t>& row, int begin, int end) const {
      adm.dsp_.decouple123_row(row, begin, end, adm.cos_1deg_sq_,
                                    adm.params_.enhn_gain_limit);
    }
    void csf(const std::int32_t* h, const std::int32_t* v, const std::int32_t* d, int begin,
             int end, std::int32_t* mask, std::int32_t* centre) const {
      adm.dsp_.csf123_row(h, v, d, begin, end, fixed, mask, centre);
    }
    void masked(const MaskRow<std::int32_t>& row, int begin, int end,
                std::int64_t inner[3]) const {
      adm.dsp_.masked123_row(row, begin, end, fixed, cub_shift, inner);
    }
    std::uint64_t den(const std::int32_t* row, int begin, int end) const {
      return (adm.dsp_.den123_row(row, begin, end, dsh.sq, dsh.cub) + den_add) >> dsh.accum;
    }
  };
  const std::uint32_t row_shift = ceil_log2(h);
  const Ops ops{*this,         ref_ll,        dis_ll,           src_stride,
                w_in,          w,             kShiftH[scale - 1], fixed_.level123[scale],
                ceil_log2(w),  row_shift,     half_of_pow2(row_shift), dsh,
                half_of_pow2(dsh.accum)};
  const StreamSums total =
      stream_level(w, h, static_cast<std::size_t>(stride1_), params_.skip_aim ? 1 : 2,
                   ref32_.a.data(), dis32_.a.data(), ops, runner);
  total.store(sums, scale);
}

// ---------------------------------------------------------------------------
// One frame

AdmResult IntegerAdm::compute(const Plane& ref, const Plane& dis, TileRunner* tiles) {
  TileRunner& runner = tiles ? *tiles : serial_tile_runner();
  if (scratch_.size() < runner.width()) scratch_.resize(runner.width());
  if (!streamed_ || params_.skip_scale0) allocate_full_bands();
  int w = width_, h = height_;
  LevelSums sums;
  for (int scale = 0; scale < kNumScales; ++scale) {
    make_tap_indices(h);
    if (scale == 0 && streamed_ && !params_.skip_scale0) {
      if (bit_depth_ == 8)
        level0_streamed<std::uint8_t>(ref, dis, sums, runner);
      else
        level0_streamed<std::uint16_t>(ref, dis, sums, runner);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
    } else if (scale == 0) {
      if (bit_depth_ == 8) {
        dwt_level0<std::uint8_t>(ref, ref16_, w, h);
        dwt_level0<std::uint8_t>(dis, dis16_, w, h);
      } else {
        dwt_level0<std::uint16_t>(ref, ref16_, w, h);
        dwt_level0<std::uint16_t>(dis, dis16_, w, h);
      }
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      // With adm_skip_scale0, level 0 only feeds its LL band on.
      if (!params_.skip_scale0) {
        decouple_level0(w, h);
        csf_denominator_level0(w, h, sums.den[0]);
        csf_level0(additive16_, w, h);
        masked_sum_level0(restored16_, w, h, sums.num[0]);
        if (!params_.skip_aim) {
          csf_level0(restored16_, w, h);
          masked_sum_level0(additive16_, w, h, sums.aim[0]);
        }
      }
    } else if (streamed_) {
      if (scale == 1)
        level123_streamed(ref16_.a.data(), dis16_.a.data(), stride0_, w, h, scale, sums, runner);
      else
        level123_streamed(ll_ref_.data(), ll_dis_.data(), stride1_, w, h, scale, sums, runner);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      std::swap(ll_ref_, ref32_.a);
      std::swap(ll_dis_, dis32_.a);
    } else {
      // Level 1 reads level 0's 16-bit LL band; later levels the 32-bit one.
      if (scale == 1)
        dwt_level123(ref16_.a.data(), dis16_.a.data(), stride0_, w, h, scale);
      else
        dwt_level123(ll_ref_.data(), ll_dis_.data(), stride1_, w, h, scale);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      decouple_level123(w, h);
      csf_denominator_level123(w, h, scale, sums.den[scale]);
      csf_level123(additive32_, w, h, scale);
      masked_sum_level123(restored32_, w, h, scale, sums.num[scale]);
      if (!params_.skip_aim) {
        csf_level123(restored32_, w, h, scale);
        masked_sum_level123(additive32_, w, h, scale, sums.aim[scale]);
      }
      std::swap(ll_ref_, ref32_.a);
      std::swap(ll_dis_, dis32_.a);
    }
  }
  return scorer_->score(sums);
}

// ---------------------------------------------------------------------------
// Scores from the integer sums (CPU and CUDA)

AdmScorer::AdmScorer(int width, int height, const AdmParams& params)
    : width_(width), height_(height), params_(params) {
  for (int s = 0; s < kNumScales; ++s) {
    weight_[s][0] = weight_[s][1] = csf_weight(params.csf, s, false);
    weight_[s][2] = csf_weight(params.csf, s, true);
  }
}

AdmResult AdmScorer::score(const LevelSums& sums) const {
  AdmResult res;
  double num = 0, den = 0, aim_num = 0;
  int w = width_, h = height_;
  for (int scale = 0; scale < kNumScales; ++scale) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    float num_scale = 0.0f, den_scale = 0.0f, aim_scale = 0.0f;
    if (scale == 0 && params_.skip_scale0) {
      // libvmaf sets den to 1e-10 to avoid a division by zero.
      den_scale = 1e-10f;
    } else if (scale == 0) {
      const Region r = score_region(w, h);
      std::uint32_t cub_shift[3], row_shift;
      masked_level0_shifts(w, h, cub_shift, &row_shift);
      den_scale = den_level0_total(sums.den[0], (r.bottom - r.top) * (r.right - r.left));
      num_scale = masked_level0_total(sums.num[0], cub_shift, row_shift, r, params_.noise_weight);
      if (!params_.skip_aim)
        aim_scale = masked_level0_total(sums.aim[0], cub_shift, row_shift, r, 0.0);
    } else {
      den_scale = den_level123_total(sums.den[scale], w, h, scale);
      num_scale = masked_level123_total(sums.num[scale], w, h, scale, params_.noise_weight);
      if (!params_.skip_aim)
        aim_scale = masked_level123_total(sums.aim[scale], w, h, scale, 0.0);
    }
    num += num_scale;
    den += den_scale;
    aim_num += aim_scale;
    res.num_scale[scale] = num_scale;
    res.den_scale[scale] = den_scale;
  }
  const double limit = 1e-10 * (width_ * height_) / (1920.0 * 1080.0);
  num = num < limit ? 0 : num;
  den = den < limit ? 0 : den;
  if (den == 0.0) {
    res.adm2 = 1.0;
    res.aim = 0.0;
  } else {
    res.aim = aim_num / den;
    res.adm2 = num / den;
  }
  res.num = num;
  res.den = den;
  return res;
}

}  // namespace vqe::adm
