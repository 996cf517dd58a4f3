// SPDX-License-Identifier: BSD-2-Clause
// Integer ADM kernel (see integer_adm.h), after libvmaf's
// libvmaf/src/feature/integer_adm.c (plain C path).

#include "features/adm/integer_adm.h"

#include <math.h>  // pow, powf, log2, ceil, cos: the C functions libvmaf calls

#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

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
inline bool within_one_degree(std::int64_t oh, std::int64_t ov, std::int64_t th,
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

IntegerAdm::IntegerAdm(int width, int height, int bit_depth, const AdmParams& params)
    : width_(width), height_(height), bit_depth_(bit_depth), params_(params) {
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

  // Weights. Level 0 uses 16-bit fixed point: Q21 for h/v, Q23 for d, with
  // libvmaf's hard-coded constants for Watson at 3 heights × 1080 lines.
  for (int s = 0; s < kNumScales; ++s) {
    const float hv = csf_weight(c, s, false);
    const float dg = csf_weight(c, s, true);
    const float wts[3] = {hv, hv, dg};
    if (s == 0) {
      for (int k = 0; k < 3; ++k) w0_.weight[k] = wts[k];
      if (fabs(c.norm_view_dist * c.ref_display_height - 3.0 * 1080) < 1.0e-8 &&
          c.mode == CsfMode::kWatson97) {
        w0_.fixed[0] = 36453;
        w0_.fixed[1] = 36453;
        w0_.fixed[2] = 49417;
      } else {
        const double q21 = pow(2, 21), q23 = pow(2, 23);
        // libvmaf's (uint16_t) cast; out of range in Barten mode, where it
        // keeps the low 16 bits as x86 does.
        w0_.fixed[0] = x86_double_to_u16(static_cast<double>(wts[0]) * q21);
        w0_.fixed[1] = x86_double_to_u16(static_cast<double>(wts[1]) * q21);
        w0_.fixed[2] = x86_double_to_u16(static_cast<double>(wts[2]) * q23);
      }
    } else {
      const double q32 = pow(2, 32);
      for (int k = 0; k < 3; ++k) {
        wn_[s].weight[k] = wts[k];
        wn_[s].fixed[k] = x86_double_to_u32(static_cast<double>(wts[k]) * q32);
      }
    }
  }
  cos_1deg_sq_ = static_cast<float>(cos(1.0 * 3.14159265358979323846 / 180.0) *
                                    cos(1.0 * 3.14159265358979323846 / 180.0));

  // Level 0's bands are ceil(W/2) x ceil(H/2) (16 bits); levels 1-3 fit in
  // the size of level 1's, a quarter of that (32 bits).
  stride0_ = (width + 1) / 2;
  const int rows0 = (height + 1) / 2;
  stride1_ = (stride0_ + 1) / 2;
  const int rows1 = (rows0 + 1) / 2;
  const std::size_t band0 = static_cast<std::size_t>(stride0_) * rows0;
  const std::size_t band1 = static_cast<std::size_t>(stride1_) * rows1;
  for (Bands<std::int16_t>* b : {&ref16_, &dis16_, &restored16_, &additive16_}) {
    b->h.assign(band0, 0);
    b->v.assign(band0, 0);
    b->d.assign(band0, 0);
  }
  ref16_.a.assign(band0, 0);
  dis16_.a.assign(band0, 0);
  for (Bands<std::int32_t>* b : {&ref32_, &dis32_, &restored32_, &additive32_}) {
    b->h.assign(band1, 0);
    b->v.assign(band1, 0);
    b->d.assign(band1, 0);
  }
  ref32_.a.assign(band1, 0);
  dis32_.a.assign(band1, 0);
  mask_sum0_.assign(band0, 0);
  centre_sum0_.assign(band0, 0);
  mask_sum1_.assign(band1, 0);
  centre_sum1_.assign(band1, 0);
  ll_ref_.assign(band1, 0);
  ll_dis_.assign(band1, 0);
  tmp16_.assign(2 * static_cast<std::size_t>(width), 0);
  tmp32_.assign(4 * static_cast<std::size_t>(stride0_), 0);
  for (int k = 0; k < 4; ++k) {
    tap_y_[k].assign(rows0, 0);
    tap_x_[k].assign(stride0_, 0);
  }
  reciprocal_table();  // build it outside the per-frame path
}

// ---------------------------------------------------------------------------
// DWT

void IntegerAdm::make_tap_indices(int w, int h) {
  // Output index i reads taps 2i-1 .. 2i+2. Tap -1 reads 1; taps n and n+1
  // read n-1 and n-2 (2n - t - 1). With n >= 5 no other tap leaves 0..n-1.
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
  fill(tap_x_, w);
}

template <typename T>
void IntegerAdm::dwt_level0(const Plane& src, Bands<std::int16_t>& dst, int w, int h) {
  // Vertical pass on samples centred by subtracting half the range (folded
  // into the low-pass sum), rounded to 16 bits with a shift of bit_depth;
  // horizontal pass in Q16. libvmaf sums the vertical pass in int32, which
  // wraps at 16 bits before the offset is taken off; the offset sum always
  // fits in int32, so modular (uint32) arithmetic gives libvmaf's value.
  const int shift_vp = bit_depth_;
  const std::int32_t add_vp = std::int32_t{1} << (bit_depth_ - 1);
  const std::uint32_t offset = static_cast<std::uint32_t>(kLoSum) * static_cast<std::uint32_t>(add_vp);
  std::uint32_t lo_c[4], hi_c[4];
  for (int k = 0; k < 4; ++k) {
    lo_c[k] = static_cast<std::uint32_t>(kLo[k]);
    hi_c[k] = static_cast<std::uint32_t>(kHi[k]);
  }
  std::int16_t* tlo = tmp16_.data();
  std::int16_t* thi = tlo + w;
  const int half_w = (w + 1) / 2;
  const int half_h = (h + 1) / 2;
  for (int i = 0; i < half_h; ++i) {
    const T* r0 = src.row<T>(tap_y_[0][i]);
    const T* r1 = src.row<T>(tap_y_[1][i]);
    const T* r2 = src.row<T>(tap_y_[2][i]);
    const T* r3 = src.row<T>(tap_y_[3][i]);
    for (int j = 0; j < w; ++j) {
      const std::uint32_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
      const auto lo = static_cast<std::int32_t>(lo_c[0] * s0 + lo_c[1] * s1 + lo_c[2] * s2 +
                                                lo_c[3] * s3 - offset);
      const auto hi =
          static_cast<std::int32_t>(hi_c[0] * s0 + hi_c[1] * s1 + hi_c[2] * s2 + hi_c[3] * s3);
      tlo[j] = static_cast<std::int16_t>((lo + add_vp) >> shift_vp);
      thi[j] = static_cast<std::int16_t>((hi + add_vp) >> shift_vp);
    }
    const std::size_t row = static_cast<std::size_t>(i) * stride0_;
    for (int j = 0; j < half_w; ++j) {
      // Interior outputs read taps 2j-1..2j+2; only the first and the last
      // two need the mirrored taps.
      const bool edge = j == 0 || j >= half_w - 2;
      const int j0 = edge ? tap_x_[0][j] : 2 * j - 1, j1 = edge ? tap_x_[1][j] : 2 * j;
      const int j2 = edge ? tap_x_[2][j] : 2 * j + 1, j3 = edge ? tap_x_[3][j] : 2 * j + 2;
      const std::int32_t l0 = tlo[j0], l1 = tlo[j1], l2 = tlo[j2], l3 = tlo[j3];
      const std::int32_t h0 = thi[j0], h1 = thi[j1], h2 = thi[j2], h3 = thi[j3];
      dst.a[row + j] = static_cast<std::int16_t>(
          (kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + 32768) >> 16);
      dst.v[row + j] = static_cast<std::int16_t>(
          (kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + 32768) >> 16);
      dst.h[row + j] = static_cast<std::int16_t>(
          (kLo[0] * h0 + kLo[1] * h1 + kLo[2] * h2 + kLo[3] * h3 + 32768) >> 16);
      dst.d[row + j] = static_cast<std::int16_t>(
          (kHi[0] * h0 + kHi[1] * h1 + kHi[2] * h2 + kHi[3] * h3 + 32768) >> 16);
    }
  }
}

template <typename S>
void IntegerAdm::dwt_level123(const S* ref_ll, const S* dis_ll, int src_stride, int w, int h,
                              int scale) {
  // Per level: vertical rounding (add, shift) and horizontal rounding.
  static constexpr std::int64_t kAddV[3] = {0, 32768, 32768};
  static constexpr int kShiftV[3] = {0, 16, 16};
  static constexpr std::int64_t kAddH[3] = {16384, 32768, 16384};
  static constexpr int kShiftH[3] = {15, 16, 15};
  const std::int64_t add_v = kAddV[scale - 1], add_h = kAddH[scale - 1];
  const int shift_v = kShiftV[scale - 1], shift_h = kShiftH[scale - 1];
  std::int32_t* tmp[4] = {tmp32_.data(), tmp32_.data() + w, tmp32_.data() + 2 * w,
                          tmp32_.data() + 3 * w};  // ref lo, ref hi, dis lo, dis hi
  const S* srcs[2] = {ref_ll, dis_ll};
  Bands<std::int32_t>* dsts[2] = {&ref32_, &dis32_};
  const int half_w = (w + 1) / 2;
  const int half_h = (h + 1) / 2;
  for (int i = 0; i < half_h; ++i) {
    for (int p = 0; p < 2; ++p) {
      const S* r0 = srcs[p] + static_cast<std::size_t>(tap_y_[0][i]) * src_stride;
      const S* r1 = srcs[p] + static_cast<std::size_t>(tap_y_[1][i]) * src_stride;
      const S* r2 = srcs[p] + static_cast<std::size_t>(tap_y_[2][i]) * src_stride;
      const S* r3 = srcs[p] + static_cast<std::size_t>(tap_y_[3][i]) * src_stride;
      std::int32_t* tlo = tmp[2 * p];
      std::int32_t* thi = tmp[2 * p + 1];
      for (int j = 0; j < w; ++j) {
        const std::int64_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
        const std::int64_t lo = kLo[0] * s0 + kLo[1] * s1 + kLo[2] * s2 + kLo[3] * s3;
        const std::int64_t hi = kHi[0] * s0 + kHi[1] * s1 + kHi[2] * s2 + kHi[3] * s3;
        tlo[j] = static_cast<std::int32_t>((lo + add_v) >> shift_v);
        thi[j] = static_cast<std::int32_t>((hi + add_v) >> shift_v);
      }
    }
    const std::size_t row = static_cast<std::size_t>(i) * stride1_;
    for (int p = 0; p < 2; ++p) {
      const std::int32_t* tlo = tmp[2 * p];
      const std::int32_t* thi = tmp[2 * p + 1];
      Bands<std::int32_t>& dst = *dsts[p];
      for (int j = 0; j < half_w; ++j) {
        const bool edge = j == 0 || j >= half_w - 2;
        const int j0 = edge ? tap_x_[0][j] : 2 * j - 1, j1 = edge ? tap_x_[1][j] : 2 * j;
        const int j2 = edge ? tap_x_[2][j] : 2 * j + 1, j3 = edge ? tap_x_[3][j] : 2 * j + 2;
        const std::int64_t l0 = tlo[j0], l1 = tlo[j1], l2 = tlo[j2], l3 = tlo[j3];
        const std::int64_t h0 = thi[j0], h1 = thi[j1], h2 = thi[j2], h3 = thi[j3];
        dst.a[row + j] = static_cast<std::int32_t>(
            (kLo[0] * l0 + kLo[1] * l1 + kLo[2] * l2 + kLo[3] * l3 + add_h) >> shift_h);
        dst.v[row + j] = static_cast<std::int32_t>(
            (kHi[0] * l0 + kHi[1] * l1 + kHi[2] * l2 + kHi[3] * l3 + add_h) >> shift_h);
        dst.h[row + j] = static_cast<std::int32_t>(
            (kLo[0] * h0 + kLo[1] * h1 + kLo[2] * h2 + kLo[3] * h3 + add_h) >> shift_h);
        dst.d[row + j] = static_cast<std::int32_t>(
            (kHi[0] * h0 + kHi[1] * h1 + kHi[2] * h2 + kHi[3] * h3 + add_h) >> shift_h);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Decoupling

void IntegerAdm::decouple_level0(int w, int h) {
  // k = dis / ref in Q15 through the Q30 reciprocal table, clamped to
  // [0, 1]; restored = k·ref rounded; additive = dis − restored.
  const auto& recip = reciprocal_table();
  const Region r = work_region(w, h);
  const double gain = params_.enhn_gain_limit;
  for (int i = r.top; i < r.bottom; ++i) {
    for (int j = r.left; j < r.right; ++j) {
      const std::size_t at = static_cast<std::size_t>(i) * stride0_ + j;
      const std::int16_t o[3] = {ref16_.h[at], ref16_.v[at], ref16_.d[at]};
      const std::int16_t t[3] = {dis16_.h[at], dis16_.v[at], dis16_.d[at]};
      const bool angle_ok = within_one_degree(o[0], o[1], t[0], t[1], cos_1deg_sq_);
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
        restored16_.orient(theta)[at] = rst;
        additive16_.orient(theta)[at] = static_cast<std::int16_t>(t[theta] - rst);
      }
    }
  }
}

void IntegerAdm::decouple_level123(int w, int h) {
  // As level 0, but a 32-bit |ref| >= 2^15 is first rounded to its top 15
  // significant bits (shift s) so the table applies; the quotient is then
  // shifted down by s more (libvmaf's get_best15_from32).
  const auto& recip = reciprocal_table();
  const Region r = work_region(w, h);
  const double gain = params_.enhn_gain_limit;
  for (int i = r.top; i < r.bottom; ++i) {
    for (int j = r.left; j < r.right; ++j) {
      const std::size_t at = static_cast<std::size_t>(i) * stride1_ + j;
      const std::int32_t o[3] = {ref32_.h[at], ref32_.v[at], ref32_.d[at]};
      const std::int32_t t[3] = {dis32_.h[at], dis32_.v[at], dis32_.d[at]};
      const bool angle_ok = within_one_degree(o[0], o[1], t[0], t[1], cos_1deg_sq_);
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
        restored32_.orient(theta)[at] = rst;
        additive32_.orient(theta)[at] = static_cast<std::int32_t>(
            static_cast<std::uint32_t>(t[theta]) - static_cast<std::uint32_t>(rst));
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Denominator: Σ |csf(ref)|³ over the scored region, cube-rooted, plus noise

float IntegerAdm::csf_denominator_level0(int w, int h) const {
  const Region r = score_region(w, h);
  const int area = (r.bottom - r.top) * (r.right - r.left);
  // Rows are summed exactly, then scaled down so the total fits 64 bits.
  std::int32_t shift = static_cast<std::int32_t>(ceil(log2(area) - 20));
  shift = shift > 0 ? shift : 0;
  const std::uint64_t add = shift > 0 ? (std::uint64_t{1} << (shift - 1)) : 0;
  float total = 0.0f;
  const float noise = powf(static_cast<float>(area * params_.noise_weight), 1.0f / 3.0f);
  for (int theta = 0; theta < 3; ++theta) {
    const std::int16_t* band = ref16_.orient(theta);
    std::uint64_t accum = 0;
    for (int i = r.top; i < r.bottom; ++i) {
      const std::int16_t* row = band + static_cast<std::size_t>(i) * stride0_;
      std::uint64_t inner = 0;
      for (int j = r.left; j < r.right; ++j) {
        const std::uint64_t m = static_cast<std::uint16_t>(std::abs(static_cast<int>(row[j])));
        inner += m * m * m;
      }
      accum += (inner + add) >> shift;
    }
    // The weight is applied after cubing; 6 bits of the DWT's scale are
    // still pending, 18 after cubing.
    const double csf = static_cast<double>(static_cast<double>(accum) / pow(2, 18 - shift)) *
                       pow(static_cast<double>(w0_.weight[theta]), 3);
    const float term = powf(static_cast<float>(csf), 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

float IntegerAdm::csf_denominator_level123(int w, int h, int scale) const {
  static constexpr std::uint32_t kShiftSq[3] = {31, 30, 31};
  static constexpr std::uint32_t kToFloat[3] = {32, 27, 23};
  const std::uint32_t shift_sq = kShiftSq[scale - 1];
  const std::uint64_t add_sq = std::uint64_t{1} << shift_sq;  // libvmaf adds 1.0, not 0.5
  const Region r = score_region(w, h);
  const std::uint32_t shift_cub = ceil_log2(r.right - r.left);
  const std::uint64_t add_cub = half_of_pow2(shift_cub);
  const std::uint32_t shift_accum = ceil_log2(r.bottom - r.top);
  const std::uint64_t add_accum = half_of_pow2(shift_accum);
  const int area = (r.bottom - r.top) * (r.right - r.left);
  const float noise = powf(static_cast<float>(area * params_.noise_weight), 1.0f / 3.0f);
  const int exponent = static_cast<int>(kToFloat[scale - 1]) - static_cast<int>(shift_accum) -
                       static_cast<int>(shift_cub);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    const std::int32_t* band = ref32_.orient(theta);
    std::uint64_t accum = 0;
    for (int i = r.top; i < r.bottom; ++i) {
      const std::int32_t* row = band + static_cast<std::size_t>(i) * stride1_;
      std::uint64_t inner = 0;
      for (int j = r.left; j < r.right; ++j) {
        const std::uint64_t m = static_cast<std::uint32_t>(wrap_abs(row[j]));
        inner += ((((m * m + add_sq) >> shift_sq) * m) + add_cub) >> shift_cub;
      }
      accum += (inner + add_accum) >> shift_accum;
    }
    const double csf = static_cast<double>(static_cast<double>(accum) / pow(2, exponent)) *
                       pow(static_cast<double>(wn_[scale].weight[theta]), 3);
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
  static constexpr int kShift[3] = {15, 15, 17};
  static constexpr std::int32_t kAdd[3] = {16384, 16384, 65535};
  constexpr std::int32_t kOneBy30 = 4369;  // 2^17 / 30
  constexpr std::int32_t kOneBy15 = 8738;  // 2^17 / 15
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride0_;
    const std::int16_t* in[3] = {src.h.data() + row, src.v.data() + row, src.d.data() + row};
    std::int32_t* mask = mask_sum0_.data() + row;
    std::int32_t* centre = centre_sum0_.data() + row;
    for (int j = r.left; j < r.right; ++j) {
      std::int32_t m = 0, c = 0;
      for (int theta = 0; theta < 3; ++theta) {
        const std::int32_t x = static_cast<std::int32_t>(w0_.fixed[theta]) * in[theta][j];
        const int csf = std::abs(static_cast<int>(
            static_cast<std::int16_t>((x + kAdd[theta]) >> kShift[theta])));
        m += static_cast<std::int16_t>((kOneBy30 * csf + 2048) >> 12);
        c += static_cast<std::int16_t>((kOneBy15 * csf + 2048) >> 12);
      }
      mask[j] = m;
      centre[j] = c;
    }
  }
}

void IntegerAdm::csf_level123(const Bands<std::int32_t>& src, int w, int h, int scale) {
  constexpr std::int64_t kOneBy30 = 143165577;  // 2^32 / 30
  constexpr std::int64_t kOneBy15 = 286331153;  // 2^32 / 15
  // libvmaf stores the rounding term 1u << 31 in an int32_t, where it wraps
  // to -2^31 (x86 gcc): both terms are floor(|csf|·k − 0.5), so a zero
  // coefficient gives -1.
  constexpr std::int64_t kRound = -2147483648LL;
  const Region r = work_region(w, h);
  const ScaleNWeights& wt = wn_[scale];
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride1_;
    const std::int32_t* in[3] = {src.h.data() + row, src.v.data() + row, src.d.data() + row};
    std::int32_t* mask = mask_sum1_.data() + row;
    std::int32_t* centre = centre_sum1_.data() + row;
    for (int j = r.left; j < r.right; ++j) {
      std::uint32_t m = 0, c = 0;  // libvmaf's int32 sums, wrap-around kept
      for (int theta = 0; theta < 3; ++theta) {
        const auto csf = static_cast<std::int32_t>(
            (static_cast<std::int64_t>(wt.fixed[theta]) * in[theta][j] + (1 << 27)) >> 28);
        const std::int64_t mag = wrap_abs(csf);
        m += static_cast<std::uint32_t>(static_cast<std::int32_t>((kOneBy30 * mag + kRound) >> 32));
        c += static_cast<std::uint32_t>(static_cast<std::int32_t>((kOneBy15 * mag + kRound) >> 32));
      }
      mask[j] = static_cast<std::int32_t>(m);
      centre[j] = static_cast<std::int32_t>(c);
    }
  }
}

// ---------------------------------------------------------------------------
// Contrast masking: Σ max(|weight·target| − threshold, 0)³ over the scored
// region, rows rounded and summed, then scaled to float and cube-rooted.

namespace {

/// Masking threshold of position (i, j): the 3×3 sum of mask_sum around it
/// (libvmaf's border rule: before the first row/column the second is used,
/// after the last the last is repeated) with the centre replaced by
/// centre_sum. `rows` point at mask_sum rows before/at/after i; wrap-around
/// int32 arithmetic as in libvmaf.
inline std::int32_t masking_threshold(const std::int32_t* const rows[3], const std::int32_t* centre,
                                      int j, int w) {
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

float IntegerAdm::masked_sum_level0(const Bands<std::int16_t>& target, int w, int h,
                                    double noise_weight) const {
  // Per orientation (h, v, d): the threshold's scale (shift), the squaring
  // shift and its rounding, and the bits still to divide out at the end.
  static constexpr int kThrShift[3] = {10, 10, 12};
  static constexpr int kSqShift[3] = {29, 29, 30};
  static constexpr std::int64_t kSqAdd[3] = {268435456, 268435456, 536870912};
  static constexpr int kPending[3] = {52, 52, 57};
  // Cubes are shifted by a width-dependent amount so that rows fit 64 bits.
  const double log2w = log2(static_cast<double>(w));
  const std::uint32_t cub_shift[3] = {static_cast<std::uint32_t>(ceil(log2w - 4)),
                                      static_cast<std::uint32_t>(ceil(log2w - 4)),
                                      static_cast<std::uint32_t>(ceil(log2w - 3))};
  const std::int64_t cub_add[3] = {half_of_pow2(cub_shift[0]), half_of_pow2(cub_shift[1]),
                                   half_of_pow2(cub_shift[2])};
  const std::uint32_t row_shift = ceil_log2(h);
  const std::int64_t row_add = half_of_pow2(row_shift);
  const Region r = score_region(w, h);
  const std::size_t st = static_cast<std::size_t>(stride0_);

  std::int64_t accum[3] = {0, 0, 0};
  for (int i = r.top; i < r.bottom; ++i) {
    const Neighbours ny = neighbours(i, h);
    const std::int32_t* const rows[3] = {mask_sum0_.data() + ny.before * st,
                                         mask_sum0_.data() + ny.centre * st,
                                         mask_sum0_.data() + ny.after * st};
    const std::int32_t* centre = centre_sum0_.data() + i * st;
    const std::int16_t* x_rows[3] = {target.h.data() + i * st, target.v.data() + i * st,
                                     target.d.data() + i * st};
    std::int64_t inner[3] = {0, 0, 0};
    for (int j = r.left; j < r.right; ++j) {
      const std::int32_t thr = masking_threshold(rows, centre, j, w);
      for (int theta = 0; theta < 3; ++theta) {
        std::int32_t x = static_cast<std::int32_t>(x_rows[theta][j]) *
                         static_cast<std::int32_t>(w0_.fixed[theta]);
        const std::uint32_t t = static_cast<std::uint32_t>(thr) << kThrShift[theta];
        x = static_cast<std::int32_t>(static_cast<std::uint32_t>(wrap_abs(x)) - t);
        if (x < 0) x = 0;
        const auto x_sq = static_cast<std::int32_t>(
            (static_cast<std::int64_t>(x) * x + kSqAdd[theta]) >> kSqShift[theta]);
        inner[theta] +=
            (static_cast<std::int64_t>(x_sq) * x + cub_add[theta]) >> cub_shift[theta];
      }
    }
    for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + row_add) >> row_shift;
  }
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

float IntegerAdm::masked_sum_level123(const Bands<std::int32_t>& target, int w, int h,
                                      int scale, double noise_weight) const {
  static constexpr int kPending[3] = {45, 39, 36};  // per level 1..3
  const std::uint32_t cub_shift = ceil_log2(w);
  const std::int64_t cub_add = half_of_pow2(cub_shift);
  const std::uint32_t row_shift = ceil_log2(h);
  const std::int64_t row_add = half_of_pow2(row_shift);
  const Region r = score_region(w, h);
  const std::size_t st = static_cast<std::size_t>(stride1_);
  const ScaleNWeights& wt = wn_[scale];

  std::int64_t accum[3] = {0, 0, 0};
  for (int i = r.top; i < r.bottom; ++i) {
    const Neighbours ny = neighbours(i, h);
    const std::int32_t* const rows[3] = {mask_sum1_.data() + ny.before * st,
                                         mask_sum1_.data() + ny.centre * st,
                                         mask_sum1_.data() + ny.after * st};
    const std::int32_t* centre = centre_sum1_.data() + i * st;
    const std::int32_t* x_rows[3] = {target.h.data() + i * st, target.v.data() + i * st,
                                     target.d.data() + i * st};
    std::int64_t inner[3] = {0, 0, 0};
    for (int j = r.left; j < r.right; ++j) {
      const std::int32_t thr = masking_threshold(rows, centre, j, w);
      for (int theta = 0; theta < 3; ++theta) {
        std::int32_t x = static_cast<std::int32_t>(
            (static_cast<std::int64_t>(x_rows[theta][j]) * wt.fixed[theta] + (1 << 27)) >> 28);
        x = static_cast<std::int32_t>(static_cast<std::uint32_t>(wrap_abs(x)) -
                                      static_cast<std::uint32_t>(thr));
        if (x < 0) x = 0;
        const auto x_sq =
            static_cast<std::int32_t>((static_cast<std::int64_t>(x) * x + 536870912) >> 30);
        inner[theta] += (static_cast<std::int64_t>(x_sq) * x + cub_add) >> cub_shift;
      }
    }
    for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + row_add) >> row_shift;
  }
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

// ---------------------------------------------------------------------------
// One frame

AdmResult IntegerAdm::compute(const Plane& ref, const Plane& dis) {
  AdmResult res;
  int w = width_, h = height_;
  double num = 0, den = 0, aim_num = 0;
  for (int scale = 0; scale < kNumScales; ++scale) {
    float num_scale = 0.0f, den_scale = 0.0f, aim_scale = 0.0f;
    make_tap_indices(w, h);
    if (scale == 0) {
      if (bit_depth_ == 8) {
        dwt_level0<std::uint8_t>(ref, ref16_, w, h);
        dwt_level0<std::uint8_t>(dis, dis16_, w, h);
      } else {
        dwt_level0<std::uint16_t>(ref, ref16_, w, h);
        dwt_level0<std::uint16_t>(dis, dis16_, w, h);
      }
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      if (params_.skip_scale0) {
        // Level 0 only feeds its LL band on; libvmaf sets den to 1e-10 to
        // avoid a division by zero.
        den_scale = 1e-10f;
      } else {
        decouple_level0(w, h);
        den_scale = csf_denominator_level0(w, h);
        csf_level0(additive16_, w, h);
        num_scale = masked_sum_level0(restored16_, w, h, params_.noise_weight);
        if (!params_.skip_aim) {
          csf_level0(restored16_, w, h);
          aim_scale = masked_sum_level0(additive16_, w, h, 0.0);
        }
      }
    } else {
      // Level 1 reads level 0's 16-bit LL band; later levels the 32-bit one.
      if (scale == 1)
        dwt_level123(ref16_.a.data(), dis16_.a.data(), stride0_, w, h, scale);
      else
        dwt_level123(ll_ref_.data(), ll_dis_.data(), stride1_, w, h, scale);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      decouple_level123(w, h);
      den_scale = csf_denominator_level123(w, h, scale);
      csf_level123(additive32_, w, h, scale);
      num_scale = masked_sum_level123(restored32_, w, h, scale, params_.noise_weight);
      if (!params_.skip_aim) {
        csf_level123(restored32_, w, h, scale);
        aim_scale = masked_sum_level123(additive32_, w, h, scale, 0.0);
      }
      std::swap(ll_ref_, ref32_.a);
      std::swap(ll_dis_, dis32_.a);
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
