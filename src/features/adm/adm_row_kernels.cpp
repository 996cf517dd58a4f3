// SPDX-License-Identifier: BSD-2-Clause
// The scalar row kernels of the integer ADM (adm_kernels.h), the reference
// for every SIMD level: libvmaf's libvmaf/src/feature/integer_adm.c plain C path.

#include "features/adm/integer_adm.h"

#include <math.h>  // pow, powf, log2, ceil, cos: the C functions libvmaf calls

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "features/adm/adm_internal.h"
#include "features/adm/adm_kernels.h"
#include "vqe/error.h"

namespace vqe::adm {
using namespace detail;  // NOLINT(google-build-using-namespace): this metric's own helpers

namespace {

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

}  // namespace

namespace detail {
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
}  // namespace detail

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
}  // namespace vqe::adm
