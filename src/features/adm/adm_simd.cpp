// SPDX-License-Identifier: BSD-2-Clause
// Highway SIMD row kernels of the integer ADM (see adm_kernels.h). Each one
// reproduces the scalar reference in integer_adm.cpp bit for bit: the
// reference's int64 intermediates are either proven to fit 32 bits, split
// into exact 32-bit parts, or computed in 64-bit lanes; its int16/int32
// truncations are reproduced with sign extensions and wrap-around
// arithmetic. Loop tails, the masking kernels' first and last columns,
// non-integer adm_enhn_gain_limit values and (at levels 1-3, rarely) angle
// tests whose products round to a float midpoint call the scalar kernels.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/adm/adm_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include <hwy/highway.h>

#include <cmath>
#include <cstdint>

#include "core/simd.h"
#include "core/simd_sum-inl.h"
#include "features/adm/adm_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace vqe::adm::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR
// One-lane vectors gain nothing: the scalar kernels serve.
void Dwt0VerticalU8(const std::uint8_t* const* rows, int w, int bd, std::int16_t* lo,
                    std::int16_t* hi) {
  kernels::dwt0_vertical_u8(rows, w, bd, lo, hi);
}
void Dwt0VerticalU16(const std::uint16_t* const* rows, int w, int bd, std::int16_t* lo,
                     std::int16_t* hi) {
  kernels::dwt0_vertical_u16(rows, w, bd, lo, hi);
}
void Dwt0Horizontal(const std::int16_t* lo, const std::int16_t* hi, int half_w, std::int16_t* a,
                    std::int16_t* v, std::int16_t* h, std::int16_t* d) {
  kernels::dwt0_horizontal(lo, hi, half_w, a, v, h, d);
}
void Dwt1Vertical(const std::int16_t* const* rows, int w, std::int32_t* lo, std::int32_t* hi) {
  kernels::dwt1_vertical(rows, w, lo, hi);
}
void Dwt23Vertical(const std::int32_t* const* rows, int w, std::int32_t* lo, std::int32_t* hi) {
  kernels::dwt23_vertical(rows, w, lo, hi);
}
void Dwt123Horizontal(const std::int32_t* lo, const std::int32_t* hi, int half_w, int shift,
                      std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* d) {
  kernels::dwt123_horizontal(lo, hi, half_w, shift, a, v, h, d);
}
void Decouple0RowGather(const DecoupleRow<std::int16_t>& r, int b, int e, float c, double g) {
  kernels::decouple0_row(r, b, e, c, g);
}
void Decouple0RowDivide(const DecoupleRow<std::int16_t>& r, int b, int e, float c, double g) {
  kernels::decouple0_row(r, b, e, c, g);
}
void Decouple123RowGather(const DecoupleRow<std::int32_t>& r, int b, int e, float c, double g) {
  kernels::decouple123_row(r, b, e, c, g);
}
void Decouple123RowDivide(const DecoupleRow<std::int32_t>& r, int b, int e, float c, double g) {
  kernels::decouple123_row(r, b, e, c, g);
}
void Csf0Row(const std::int16_t* h, const std::int16_t* v, const std::int16_t* d, int b, int e,
             const std::uint16_t* f, std::int32_t* m, std::int32_t* c) {
  kernels::csf0_row(h, v, d, b, e, f, m, c);
}
void Csf123Row(const std::int32_t* h, const std::int32_t* v, const std::int32_t* d, int b, int e,
               const std::uint32_t* f, std::int32_t* m, std::int32_t* c) {
  kernels::csf123_row(h, v, d, b, e, f, m, c);
}
void Masked0Row(const MaskRow<std::int16_t>& r, int b, int e, const std::uint16_t* f,
                const std::uint32_t* cs, std::int64_t* inner) {
  kernels::masked0_row(r, b, e, f, cs, inner);
}
void Masked123Row(const MaskRow<std::int32_t>& r, int b, int e, const std::uint32_t* f,
                  std::uint32_t cs, std::int64_t* inner) {
  kernels::masked123_row(r, b, e, f, cs, inner);
}
std::uint64_t Den0Row(const std::int16_t* row, int b, int e) {
  return kernels::den0_row(row, b, e);
}
std::uint64_t Den123Row(const std::int32_t* row, int b, int e, std::uint32_t ss,
                        std::uint32_t sc) {
  return kernels::den123_row(row, b, e, ss, sc);
}
#else

using D16 = hn::ScalableTag<std::int16_t>;
using D32 = hn::ScalableTag<std::int32_t>;
using DU32 = hn::ScalableTag<std::uint32_t>;
using D64 = hn::ScalableTag<std::int64_t>;
using DU64 = hn::ScalableTag<std::uint64_t>;
using DF32 = hn::ScalableTag<float>;
using DF64 = hn::ScalableTag<double>;
using V16 = hn::Vec<D16>;
using V32 = hn::Vec<D32>;
using VU64 = hn::Vec<DU64>;
using V64 = hn::Vec<D64>;

// db2 filters (Q15), as in integer_adm.cpp.
constexpr std::int32_t kLo[4] = {15826, 27411, 7345, -4240};
constexpr std::int32_t kHi[4] = {-4240, -7345, 27411, -15826};

/// The low 16 bits of each lane, sign-extended (a cast to int16_t).
HWY_INLINE V32 Sext16(V32 v) { return hn::ShiftRight<16>(hn::ShiftLeft<16>(v)); }

/// The odd 32-bit lanes moved to the even positions (upper halves zero).
HWY_INLINE V32 OddToEven(V32 v) {
  const D32 d;
  const DU64 du64;
  return hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(du64, v)));
}

/// Signed 32x32 -> 64-bit products of the even lanes and of the odd lanes.
HWY_INLINE V64 MulEvenS(V32 a, V32 b) { return hn::MulEven(a, b); }
HWY_INLINE V64 MulOddS(V32 a, V32 b) { return hn::MulEven(OddToEven(a), OddToEven(b)); }

/// Joins 64-bit lanes whose low halves hold the even (`even`) and odd
/// (`odd`) 32-bit results.
HWY_INLINE V32 JoinLow32(VU64 even, VU64 odd) {
  const D32 d;
  return hn::OddEven(hn::BitCast(d, hn::ShiftLeft<32>(odd)), hn::BitCast(d, even));
}

/// Sum of all lanes (wrap-around modulo 2^64) of a 64-bit vector, signed or
/// unsigned (see core/simd_sum-inl.h: never a signed addition).
template <class V>
HWY_INLINE std::uint64_t SumU64(V v) {
  const DU64 du64;
  return simd::HWY_NAMESPACE::WrappingSumOfLanes(du64, hn::BitCast(du64, v));
}

// ---------------------------------------------------------------------------
// DWT level 0

/// Pairs of int16 coefficients (c0 in the even lane, c1 in the odd one).
HWY_INLINE V16 CoeffPair(std::int32_t c0, std::int32_t c1) {
  const D16 d16;
  const D32 d;
  return hn::BitCast(d16, hn::Set(d, static_cast<std::int32_t>(
                                         (static_cast<std::uint32_t>(c1) << 16) |
                                         (static_cast<std::uint32_t>(c0) & 0xFFFFu))));
}

/// c0·x[2i] + c1·x[2i+1] + c2·y[2i] + c3·y[2i+1] per 32-bit lane i (exact:
/// the db2 taps keep every partial sum of int16 inputs within int32).
HWY_INLINE V32 PairFilter(V16 x, V16 y, V16 c01, V16 c23) {
  const D32 d;
  V32 sum1 = hn::Zero(d);
  V32 sum0 = hn::ReorderWidenMulAccumulate(d, x, c01, hn::Zero(d), sum1);
  sum0 = hn::ReorderWidenMulAccumulate(d, y, c23, sum0, sum1);
  return hn::RearrangeToOddPlusEven(sum0, sum1);
}

/// The vertical pass of outputs j..j+n-1 in 32-bit lanes (any sample value:
/// wrap-around products and sums as the reference's uint32 arithmetic).
template <typename T>
HWY_INLINE void Dwt0VerticalMul(const T* const* rows, int j, int bit_depth, V32 lo_add,
                                V32 hi_add, std::int16_t* lo, std::int16_t* hi) {
  const D32 d;
  const hn::Rebind<T, D32> ds;
  const hn::Rebind<std::int16_t, D32> d16;
  V32 l = lo_add, h = hi_add;
  for (int k = 0; k < 4; ++k) {
    const V32 s = hn::PromoteTo(d, hn::LoadU(ds, rows[k] + j));
    l = hn::Add(l, hn::Mul(hn::Set(d, kLo[k]), s));
    h = hn::Add(h, hn::Mul(hn::Set(d, kHi[k]), s));
  }
  l = Sext16(hn::ShiftRightSame(l, bit_depth));
  h = Sext16(hn::ShiftRightSame(h, bit_depth));
  hn::StoreU(hn::DemoteTo(d16, l), d16, lo + j);
  hn::StoreU(hn::DemoteTo(d16, h), d16, hi + j);
}

/// lo + add - offset as the reference's wrap-around uint32 sum.
HWY_INLINE V32 LowPassAdd(int bit_depth) {
  const std::uint32_t add = 1u << (bit_depth - 1);
  return hn::Set(D32(), static_cast<std::int32_t>(add - 46342u * add));
}

template <typename T>
void Dwt0VerticalT(const T* const* rows, int w, int bit_depth, std::int16_t* lo,
                   std::int16_t* hi) {
  const D32 d;
  const D16 d16;
  const hn::RebindToUnsigned<D16> du16;
  const hn::Rebind<T, D16> ds16;
  const int n = static_cast<int>(hn::Lanes(d));
  const int n16 = static_cast<int>(hn::Lanes(d16));
  const V32 lo_add = LowPassAdd(bit_depth);
  const V32 hi_add = hn::Set(d, std::int32_t{1} << (bit_depth - 1));
  int j = 0;
  // Samples within the bit depth (8 to 12 bits here) fit int16 lanes: rows
  // 0/1 and 2/3 interleaved into pairs, multiplied and summed pairwise (no
  // sum leaves int32). The in-block interleave and the in-block pack undo
  // each other's order.
  const V16 lo01 = CoeffPair(kLo[0], kLo[1]), lo23 = CoeffPair(kLo[2], kLo[3]);
  const V16 hi01 = CoeffPair(kHi[0], kHi[1]), hi23 = CoeffPair(kHi[2], kHi[3]);
  const V16 over_depth = hn::Set(d16, static_cast<std::int16_t>(~((1 << bit_depth) - 1)));
  for (; j + n16 <= w; j += n16) {
    V16 s[4];
    for (int k = 0; k < 4; ++k) {
      if constexpr (sizeof(T) == 1)
        s[k] = hn::BitCast(d16, hn::PromoteTo(du16, hn::LoadU(ds16, rows[k] + j)));
      else
        s[k] = hn::BitCast(d16, hn::LoadU(ds16, rows[k] + j));
    }
    if constexpr (sizeof(T) == 2) {
      // Samples above the bit depth (invalid input) take the 32-bit path,
      // which reproduces the reference's wrap-around.
      const V16 any = hn::Or(hn::Or(s[0], s[1]), hn::Or(s[2], s[3]));
      if (!hn::AllTrue(d16, hn::Eq(hn::And(any, over_depth), hn::Zero(d16)))) {
        for (int jj = j; jj < j + n16; jj += n)
          Dwt0VerticalMul(rows, jj, bit_depth, lo_add, hi_add, lo, hi);
        continue;
      }
    }
    // With samples below 2^bit_depth both passes stay within ±27420, so the
    // int16 casts and the saturating pack keep every value.
    const V16 p01l = hn::InterleaveLower(d16, s[0], s[1]);
    const V16 p01u = hn::InterleaveUpper(d16, s[0], s[1]);
    const V16 p23l = hn::InterleaveLower(d16, s[2], s[3]);
    const V16 p23u = hn::InterleaveUpper(d16, s[2], s[3]);
    const V32 ll = hn::ShiftRightSame(hn::Add(PairFilter(p01l, p23l, lo01, lo23), lo_add), bit_depth);
    const V32 lu = hn::ShiftRightSame(hn::Add(PairFilter(p01u, p23u, lo01, lo23), lo_add), bit_depth);
    const V32 hl = hn::ShiftRightSame(hn::Add(PairFilter(p01l, p23l, hi01, hi23), hi_add), bit_depth);
    const V32 hu = hn::ShiftRightSame(hn::Add(PairFilter(p01u, p23u, hi01, hi23), hi_add), bit_depth);
    hn::StoreU(hn::ReorderDemote2To(d16, ll, lu), d16, lo + j);
    hn::StoreU(hn::ReorderDemote2To(d16, hl, hu), d16, hi + j);
  }
  for (; j + n <= w; j += n) Dwt0VerticalMul(rows, j, bit_depth, lo_add, hi_add, lo, hi);
  if (j < w) {
    const T* tail[4] = {rows[0] + j, rows[1] + j, rows[2] + j, rows[3] + j};
    if constexpr (sizeof(T) == 1)
      kernels::dwt0_vertical_u8(tail, w - j, bit_depth, lo + j, hi + j);
    else
      kernels::dwt0_vertical_u16(tail, w - j, bit_depth, lo + j, hi + j);
  }
}

/// 16-bit samples use 32-bit lanes throughout (they do not fit int16).
void Dwt0Vertical16Bit(const std::uint16_t* const* rows, int w, std::int16_t* lo,
                       std::int16_t* hi) {
  const D32 d;
  const int n = static_cast<int>(hn::Lanes(d));
  const V32 lo_add = LowPassAdd(16);
  const V32 hi_add = hn::Set(d, std::int32_t{1} << 15);
  int j = 0;
  for (; j + n <= w; j += n) Dwt0VerticalMul(rows, j, 16, lo_add, hi_add, lo, hi);
  if (j < w) {
    const std::uint16_t* tail[4] = {rows[0] + j, rows[1] + j, rows[2] + j, rows[3] + j};
    kernels::dwt0_vertical_u16(tail, w - j, 16, lo + j, hi + j);
  }
}

void Dwt0VerticalU8(const std::uint8_t* const* rows, int w, int bd, std::int16_t* lo,
                    std::int16_t* hi) {
  Dwt0VerticalT(rows, w, bd, lo, hi);
}
void Dwt0VerticalU16(const std::uint16_t* const* rows, int w, int bd, std::int16_t* lo,
                     std::int16_t* hi) {
  if (bd > 12)
    Dwt0Vertical16Bit(rows, w, lo, hi);
  else
    Dwt0VerticalT(rows, w, bd, lo, hi);
}

void Dwt0Horizontal(const std::int16_t* lo, const std::int16_t* hi, int half_w, std::int16_t* a,
                    std::int16_t* v, std::int16_t* h, std::int16_t* dd) {
  const D16 d16;
  const D32 d;
  const hn::Rebind<std::int16_t, D32> d16h;
  const int n = static_cast<int>(hn::Lanes(d));
  const V16 lo01 = CoeffPair(kLo[0], kLo[1]), lo23 = CoeffPair(kLo[2], kLo[3]);
  const V16 hi01 = CoeffPair(kHi[0], kHi[1]), hi23 = CoeffPair(kHi[2], kHi[3]);
  const V32 round = hn::Set(d, 32768);
  int j = 0;
  // Output j reads taps 2j-1 .. 2j+2: the int16 pairs at 2j-1 and 2j+1.
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < half_w; j += n) {
    if (j + n > half_w) {
      if (half_w - 0 < n) break;
      j = half_w - n;
    }
    const V16 l01 = hn::LoadU(d16, lo + 2 * j - 1), l23 = hn::LoadU(d16, lo + 2 * j + 1);
    const V16 h01 = hn::LoadU(d16, hi + 2 * j - 1), h23 = hn::LoadU(d16, hi + 2 * j + 1);
    const V32 ra = hn::ShiftRight<16>(hn::Add(PairFilter(l01, l23, lo01, lo23), round));
    const V32 rv = hn::ShiftRight<16>(hn::Add(PairFilter(l01, l23, hi01, hi23), round));
    const V32 rh = hn::ShiftRight<16>(hn::Add(PairFilter(h01, h23, lo01, lo23), round));
    const V32 rd = hn::ShiftRight<16>(hn::Add(PairFilter(h01, h23, hi01, hi23), round));
    hn::StoreU(hn::DemoteTo(d16h, ra), d16h, a + j);
    hn::StoreU(hn::DemoteTo(d16h, rv), d16h, v + j);
    hn::StoreU(hn::DemoteTo(d16h, rh), d16h, h + j);
    hn::StoreU(hn::DemoteTo(d16h, rd), d16h, dd + j);
  }
  if (j < half_w)
    kernels::dwt0_horizontal(lo + 2 * j, hi + 2 * j, half_w - j, a + j, v + j, h + j, dd + j);
}

// ---------------------------------------------------------------------------
// DWT levels 1-3

void Dwt1Vertical(const std::int16_t* const* rows, int w, std::int32_t* lo, std::int32_t* hi) {
  const D32 d;
  const hn::Rebind<std::int16_t, D32> d16;
  const int n = static_cast<int>(hn::Lanes(d));
  int j = 0;
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < w; j += n) {
    if (j + n > w) {
      if (w - 0 < n) break;
      j = w - n;
    }
    V32 l = hn::Zero(d), h = hn::Zero(d);
    for (int k = 0; k < 4; ++k) {
      const V32 s = hn::PromoteTo(d, hn::LoadU(d16, rows[k] + j));
      l = hn::Add(l, hn::Mul(hn::Set(d, kLo[k]), s));
      h = hn::Add(h, hn::Mul(hn::Set(d, kHi[k]), s));
    }
    hn::StoreU(l, d, lo + j);
    hn::StoreU(h, d, hi + j);
  }
  if (j < w) {
    const std::int16_t* tail[4] = {rows[0] + j, rows[1] + j, rows[2] + j, rows[3] + j};
    kernels::dwt1_vertical(tail, w - j, lo + j, hi + j);
  }
}

/// int32((Σ c[k]·x[k] + 2^(kShift-1)) >> kShift) of the exact int64 sum, in
/// 32-bit lanes: x = xh·2^16 + xl (xl = low 16 bits, unsigned) gives
/// Σ = A·2^16 + B, A and B exact in 32 bits once B is offset by `off` (a
/// multiple of 2^kShift that makes B non-negative and below 2^32). The
/// result is taken modulo 2^32, as the reference's int32 cast.
template <int kShift>
HWY_INLINE V32 Filter4(const V32 x[4], const std::int32_t c[4], std::uint32_t off) {
  const D32 d;
  const DU32 du;
  const V32 mask16 = hn::Set(d, 0xFFFF);
  V32 a = hn::Zero(d);
  auto b = hn::Set(du, off + (1u << (kShift - 1)));
  for (int k = 0; k < 4; ++k) {
    const V32 ck = hn::Set(d, c[k]);
    a = hn::Add(a, hn::Mul(ck, hn::ShiftRight<16>(x[k])));
    b = hn::Add(b, hn::BitCast(du, hn::Mul(ck, hn::And(x[k], mask16))));
  }
  const V32 low = hn::Sub(hn::BitCast(d, hn::ShiftRight<kShift>(b)),
                          hn::Set(d, static_cast<std::int32_t>(off >> kShift)));
  return hn::Add(hn::ShiftLeft<16 - kShift>(a), low);
}
// Offsets: Σ c·xl lies in [-4240, 50582]·65535 for the low-pass filter and
// in [-27411, 27411]·65535 for the high-pass one.
constexpr std::uint32_t kLoOff = 1u << 29;
constexpr std::uint32_t kHiOff = 1u << 31;

void Dwt23Vertical(const std::int32_t* const* rows, int w, std::int32_t* lo, std::int32_t* hi) {
  const D32 d;
  const int n = static_cast<int>(hn::Lanes(d));
  int j = 0;
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < w; j += n) {
    if (j + n > w) {
      if (w - 0 < n) break;
      j = w - n;
    }
    V32 s[4];
    for (int k = 0; k < 4; ++k) s[k] = hn::LoadU(d, rows[k] + j);
    hn::StoreU(Filter4<16>(s, kLo, kLoOff), d, lo + j);
    hn::StoreU(Filter4<16>(s, kHi, kHiOff), d, hi + j);
  }
  if (j < w) {
    const std::int32_t* tail[4] = {rows[0] + j, rows[1] + j, rows[2] + j, rows[3] + j};
    kernels::dwt23_vertical(tail, w - j, lo + j, hi + j);
  }
}

template <int kShift>
void Dwt123HorizontalT(const std::int32_t* lo, const std::int32_t* hi, int half_w,
                       std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* dd) {
  const D32 d;
  const int n = static_cast<int>(hn::Lanes(d));
  int j = 0;
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < half_w; j += n) {
    if (j + n > half_w) {
      if (half_w - 0 < n) break;
      j = half_w - n;
    }
    for (int p = 0; p < 2; ++p) {
      const std::int32_t* src = p == 0 ? lo : hi;
      // Taps 2j-1+2i, 2j+2i, 2j+1+2i, 2j+2+2i of outputs j+i.
      const V32 x0 = hn::LoadU(d, src + 2 * j - 1), x1 = hn::LoadU(d, src + 2 * j - 1 + n);
      const V32 y0 = hn::LoadU(d, src + 2 * j + 1), y1 = hn::LoadU(d, src + 2 * j + 1 + n);
      const V32 taps[4] = {hn::ConcatEven(d, x1, x0), hn::ConcatOdd(d, x1, x0),
                           hn::ConcatEven(d, y1, y0), hn::ConcatOdd(d, y1, y0)};
      hn::StoreU(Filter4<kShift>(taps, kLo, kLoOff), d, (p == 0 ? a : h) + j);
      hn::StoreU(Filter4<kShift>(taps, kHi, kHiOff), d, (p == 0 ? v : dd) + j);
    }
  }
  if (j < half_w)
    kernels::dwt123_horizontal(lo + 2 * j, hi + 2 * j, half_w - j, kShift, a + j, v + j, h + j,
                               dd + j);
}

void Dwt123Horizontal(const std::int32_t* lo, const std::int32_t* hi, int half_w, int shift,
                      std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* d) {
  if (shift == 16)
    Dwt123HorizontalT<16>(lo, hi, half_w, a, v, h, d);
  else if (shift == 15)
    Dwt123HorizontalT<15>(lo, hi, half_w, a, v, h, d);
  else
    kernels::dwt123_horizontal(lo, hi, half_w, shift, a, v, h, d);
}

// ---------------------------------------------------------------------------
// Decoupling

/// True when `gain` is an integer (1..100 by the option's range), so that
/// restored·gain is exact in integer arithmetic.
HWY_INLINE bool IntegerGain(double gain) {
  return gain >= 1.0 && gain <= 100.0 && gain == std::floor(gain);
}

/// The angle test d >= 0 && d² >= cos²·o·t on float-rounded integers
/// promoted to double. The reference scales d, o and t by 1/4096 first;
/// scaling by a power of two changes no rounding here (no overflow or
/// underflow), so the comparison is the same without it.
HWY_INLINE hn::Mask<DF64> AngleMaskF(hn::Vec<DF64> dot, hn::Vec<DF64> o, hn::Vec<DF64> t,
                                     hn::Vec<DF64> cos_sq) {
  const DF64 df;
  return hn::And(hn::Ge(dot, hn::Zero(df)),
                 hn::Ge(hn::Mul(dot, dot), hn::Mul(hn::Mul(cos_sq, o), t)));
}

/// float(p1 + p2) for int32 p1, p2 whose exact sum lies in [-2^31, 2^31]:
/// the one sum that wraps, +2^31, shows as INT32_MIN with p1 > 0.
/// int32 -> float rounds to nearest even, as the reference's int64 -> float.
HWY_INLINE hn::Vec<DF32> SumToFloat(V32 p1, V32 p2) {
  const D32 d;
  const DF32 df;
  const V32 sum = hn::Add(p1, p2);
  const auto wrapped = hn::And(hn::Eq(sum, hn::Set(d, INT32_MIN)), hn::Gt(p1, hn::Zero(d)));
  return hn::IfThenElse(hn::RebindMask(df, wrapped), hn::Set(df, 2147483648.0f),
                        hn::ConvertTo(df, sum));
}

/// float lanes -> double, lower and upper halves.
HWY_INLINE hn::Vec<DF64> LowerF64(hn::Vec<DF32> v) {
  return hn::PromoteTo(DF64(), hn::LowerHalf(hn::Half<DF32>(), v));
}
HWY_INLINE hn::Vec<DF64> UpperF64(hn::Vec<DF32> v) {
  return hn::PromoteTo(DF64(), hn::UpperHalf(hn::Half<DF32>(), v));
}

/// -1 / 0 int32 lanes from two double masks (lower and upper lane halves).
HWY_INLINE V32 JoinMasks(hn::Mask<DF64> lower, hn::Mask<DF64> upper) {
  const DF64 df;
  const D32 d;
  const hn::Rebind<std::int32_t, DF64> dh;
  const auto minus1 = hn::Set(df, -1.0);
  const auto l = hn::DemoteTo(dh, hn::IfThenElseZero(lower, minus1));
  const auto u = hn::DemoteTo(dh, hn::IfThenElseZero(upper, minus1));
  return hn::Combine(d, u, l);
}

/// libvmaf's reciprocal table entry for i in -2^15..2^15: 2^30 / i
/// truncated, 0 for i = 0: read from the table with a gather, or
/// (kDivide) computed by a double division, which is exact: its rounding
/// error (< 2^-23) is smaller than the distance from 2^30 / i to the next
/// integer (>= 2^-15) unless the quotient is an integer, so truncation gives
/// the table's value. Which is faster depends on the CPU (adm_dsp).
template <bool kDivide>
HWY_INLINE V32 Reciprocal(V32 i, const std::int32_t* table) {
  const D32 d;
  if constexpr (kDivide) {
    (void)table;
    const DF64 df;
    const hn::Half<D32> dh;
    const hn::Rebind<std::int32_t, DF64> di;
    const auto num = hn::Set(df, 1073741824.0);
    const auto lo = hn::DemoteTo(di, hn::Div(num, hn::PromoteTo(df, hn::LowerHalf(dh, i))));
    const auto hi = hn::DemoteTo(di, hn::Div(num, hn::PromoteTo(df, hn::UpperHalf(dh, i))));
    return hn::IfThenZeroElse(hn::Eq(i, hn::Zero(d)), hn::Combine(d, hi, lo));
  } else {
    return hn::GatherIndex(d, table, hn::Add(i, hn::Set(d, 32768)));
  }
}

template <bool kDivide>
void Decouple0RowT(const DecoupleRow<std::int16_t>& r, int begin, int end, float cos_1deg_sq,
                   double gain) {
  if (!IntegerGain(gain)) {
    kernels::decouple0_row(r, begin, end, cos_1deg_sq, gain);
    return;
  }
  const D32 d;
  const DF64 df;
  const hn::Rebind<std::int16_t, D32> d16;
  const int n = static_cast<int>(hn::Lanes(d));
  const std::int32_t* recip = reciprocal_table_q30();
  const auto cos_sq = hn::Set(df, static_cast<double>(cos_1deg_sq));
  const V32 g = hn::Set(d, static_cast<std::int32_t>(gain));
  const V32 zero = hn::Zero(d);
  const V32 one_q15 = hn::Set(d, 32768);
  const V32 half_q15 = hn::Set(d, 16384);
  const V32 mask15 = hn::Set(d, 0x7FFF);
  const std::int16_t* os[3] = {r.oh, r.ov, r.od};
  const std::int16_t* ts[3] = {r.th, r.tv, r.td};
  std::int16_t* rs[3] = {r.rh, r.rv, r.rd};
  std::int16_t* as[3] = {r.ah, r.av, r.ad};
  int j = begin;
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < end; j += n) {
    if (j + n > end) {
      if (end - begin < n) break;
      j = end - n;
    }
    V32 o[3], t[3];
    hn::Vec<decltype(d16)> t16[3];
    for (int k = 0; k < 3; ++k) {
      o[k] = hn::PromoteTo(d, hn::LoadU(d16, os[k] + j));
      t16[k] = hn::LoadU(d16, ts[k] + j);
      t[k] = hn::PromoteTo(d, t16[k]);
    }
    // Angle test: int16 products are exact in int32, and so are their sums
    // but one (SumToFloat).
    const auto f_dot = SumToFloat(hn::Mul(o[0], t[0]), hn::Mul(o[1], t[1]));
    const auto f_o = SumToFloat(hn::Mul(o[0], o[0]), hn::Mul(o[1], o[1]));
    const auto f_t = SumToFloat(hn::Mul(t[0], t[0]), hn::Mul(t[1], t[1]));
    const auto m_lo = AngleMaskF(LowerF64(f_dot), LowerF64(f_o), LowerF64(f_t), cos_sq);
    const auto m_hi = AngleMaskF(UpperF64(f_dot), UpperF64(f_o), UpperF64(f_t), cos_sq);
    const auto angle = hn::MaskFromVec(JoinMasks(m_lo, m_hi));
    for (int k = 0; k < 3; ++k) {
      // k = (recip·t + 2^14) >> 15 with recip = rh·2^15 + rl, exact in int32.
      // Where ref = 0 the table holds 0, so k = 0 and restored = 0: the
      // reference's k = 1 gives the same restored value, and neither case
      // applies the enhancement.
      const V32 rec = Reciprocal<kDivide>(o[k], recip);
      const V32 q = hn::Add(hn::Mul(hn::ShiftRight<15>(rec), t[k]),
                            hn::ShiftRight<15>(hn::Add(hn::Mul(hn::And(rec, mask15), t[k]),
                                                       half_q15)));
      const V32 kk = hn::Min(hn::Max(q, zero), one_q15);
      const V32 rst = hn::ShiftRight<15>(hn::Add(hn::Mul(kk, o[k]), half_q15));
      // Enhancement: min(rst·g, t) for ref > 0, max(rst·g, t) for ref < 0
      // (|rst·g| <= 2^15·100: exact). Every candidate fits int16.
      const V32 scaled = hn::Mul(rst, g);
      const auto o_pos = hn::Gt(o[k], zero);
      const V32 lim = hn::IfThenElse(o_pos, hn::Min(scaled, t[k]), hn::Max(scaled, t[k]));
      const auto apply = hn::AndNot(hn::Eq(kk, zero), angle);
      const auto out16 = hn::DemoteTo(d16, hn::IfThenElse(apply, lim, rst));
      hn::StoreU(out16, d16, rs[k] + j);
      hn::StoreU(hn::Sub(t16[k], out16), d16, as[k] + j);  // int16 wrap-around
    }
  }
  if (j < end) kernels::decouple0_row(r, j, end, cos_1deg_sq, gain);
}

/// int64 -> double, rounded to nearest (Highway's exact conversion), and
/// the lanes where that double lies exactly halfway between two floats:
/// only there may rounding it to float differ from rounding the integer.
HWY_INLINE hn::Vec<DF64> I64ToF64(V64 v, hn::Mask<DU64>& midpoint) {
  const DF64 df;
  const DU64 du;
  const auto f = hn::ConvertTo(df, v);
  const auto low = hn::And(hn::BitCast(du, f), hn::Set(du, (std::uint64_t{1} << 29) - 1));
  midpoint = hn::Or(midpoint, hn::Eq(low, hn::Set(du, std::uint64_t{1} << 28)));
  return f;
}

/// The angle test from int64 values, rounded to float as the reference's
/// int64 -> float conversion, compared in double. Adds to `midpoint` the
/// lanes whose float rounding is not certain (see I64ToF64).
HWY_INLINE hn::Mask<DF64> AngleMaskI64(V64 dot, V64 o, V64 t, hn::Vec<DF64> cos_sq,
                                       hn::Mask<DU64>& midpoint) {
  const DF64 df;
  const hn::Rebind<float, DF64> df32;
  const auto dd = hn::PromoteTo(df, hn::DemoteTo(df32, I64ToF64(dot, midpoint)));
  const auto od = hn::PromoteTo(df, hn::DemoteTo(df32, I64ToF64(o, midpoint)));
  const auto td = hn::PromoteTo(df, hn::DemoteTo(df32, I64ToF64(t, midpoint)));
  return AngleMaskF(dd, od, td, cos_sq);
}

/// The angle test of lanes j..j+n-1 from exact int64 products; the
/// reference's per-lane test in the rare vectors where a double sits on a
/// float rounding midpoint.
HWY_NOINLINE hn::Mask<D32> AngleFromI64(const V32 o[3], const V32 t[3],
                                         const std::int32_t* const os[3],
                                         const std::int32_t* const ts[3], int j,
                                         float cos_1deg_sq, hn::Vec<DF64> cos_sq,
                                         std::int32_t* flags) {
  const D32 d;
  const DU64 du64;
  const DF64 df;
  const int n = static_cast<int>(hn::Lanes(d));
  const V64 dot_e = hn::Add(MulEvenS(o[0], t[0]), MulEvenS(o[1], t[1]));
  const V64 dot_o = hn::Add(MulOddS(o[0], t[0]), MulOddS(o[1], t[1]));
  const V64 om_e = hn::Add(MulEvenS(o[0], o[0]), MulEvenS(o[1], o[1]));
  const V64 om_o = hn::Add(MulOddS(o[0], o[0]), MulOddS(o[1], o[1]));
  const V64 tm_e = hn::Add(MulEvenS(t[0], t[0]), MulEvenS(t[1], t[1]));
  const V64 tm_o = hn::Add(MulOddS(t[0], t[0]), MulOddS(t[1], t[1]));
  auto midpoint = hn::FirstN(du64, 0);
  const auto m_e = AngleMaskI64(dot_e, om_e, tm_e, cos_sq, midpoint);
  const auto m_o = AngleMaskI64(dot_o, om_o, tm_o, cos_sq, midpoint);
  if (HWY_UNLIKELY(!hn::AllFalse(du64, midpoint))) {
    for (int i = 0; i < n; ++i)
      flags[i] = within_one_degree(os[0][j + i], os[1][j + i], ts[0][j + i], ts[1][j + i],
                                   cos_1deg_sq)
                     ? -1
                     : 0;
    return hn::MaskFromVec(hn::Load(d, flags));
  }
  return hn::MaskFromVec(hn::OddEven(hn::BitCast(d, hn::VecFromMask(df, m_o)),
                                     hn::BitCast(d, hn::VecFromMask(df, m_e))));
}

template <bool kDivide>
void Decouple123RowT(const DecoupleRow<std::int32_t>& r, int begin, int end, float cos_1deg_sq,
                     double gain) {
  if (!IntegerGain(gain)) {
    kernels::decouple123_row(r, begin, end, cos_1deg_sq, gain);
    return;
  }
  const D32 d;
  const DU32 du;
  const D64 d64;
  const DU64 du64;
  const DF64 df;
  const hn::RebindToFloat<D32> df32;
  const hn::Rebind<float, DF64> df32h;
  const int n = static_cast<int>(hn::Lanes(d));
  const std::int32_t* recip = reciprocal_table_q30();
  const auto cos_sq = hn::Set(df, static_cast<double>(cos_1deg_sq));
  const std::int32_t gi = static_cast<std::int32_t>(gain);
  const V32 g = hn::Set(d, gi);
  const V32 lim_pos = hn::Set(d, INT32_MAX / gi), lim_neg = hn::Set(d, -(INT32_MAX / gi));
  const V32 zero = hn::Zero(d);
  const V32 one_q15 = hn::Set(d, 32768);
  const V32 half_q15 = hn::Set(d, 16384);
  const V32 one = hn::Set(d, 1);
  const V32 mask16 = hn::Set(d, 0xFFFF);
  const VU64 low32 = hn::Set(du64, 0xFFFFFFFFull);
  const VU64 one64 = hn::Set(du64, 1);
  const V64 zero64 = hn::Zero(d64);
  const V64 q15_64 = hn::Set(d64, 32768);
  const std::int32_t* os[3] = {r.oh, r.ov, r.od};
  const std::int32_t* ts[3] = {r.th, r.tv, r.td};
  std::int32_t* rs[3] = {r.rh, r.rv, r.rd};
  std::int32_t* as[3] = {r.ah, r.av, r.ad};
  HWY_ALIGN std::int32_t flags[HWY_MAX_BYTES / 4];
  int j = begin;
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < end; j += n) {
    if (j + n > end) {
      if (end - begin < n) break;
      j = end - n;
    }
    V32 o[3], t[3];
    for (int k = 0; k < 3; ++k) {
      o[k] = hn::LoadU(d, os[k] + j);
      t[k] = hn::LoadU(d, ts[k] + j);
    }
    // Angle test. With |h|, |v| below 2^26 every product and sum is exact in
    // double (below 2^53), so rounding it to float is the reference's
    // int64 -> float; otherwise exact int64 products (AngleFromI64).
    hn::Mask<D32> angle;
    const V32 big_bits = hn::Or(hn::Or(hn::Abs(o[0]), hn::Abs(o[1])),
                                hn::Or(hn::Abs(t[0]), hn::Abs(t[1])));
    if (HWY_LIKELY(hn::AllTrue(du, hn::Eq(hn::ShiftRight<26>(hn::BitCast(du, big_bits)),
                                         hn::Zero(du))))) {
      const hn::Half<D32> dh;
      hn::Mask<DF64> m[2];
      for (int p = 0; p < 2; ++p) {
        hn::Vec<DF64> f[4];
        for (int k = 0; k < 2; ++k) {
          f[k] = hn::PromoteTo(df, p == 0 ? hn::LowerHalf(dh, o[k]) : hn::UpperHalf(dh, o[k]));
          f[k + 2] =
              hn::PromoteTo(df, p == 0 ? hn::LowerHalf(dh, t[k]) : hn::UpperHalf(dh, t[k]));
        }
        const auto dot = hn::Add(hn::Mul(f[0], f[2]), hn::Mul(f[1], f[3]));
        const auto om = hn::Add(hn::Mul(f[0], f[0]), hn::Mul(f[1], f[1]));
        const auto tm = hn::Add(hn::Mul(f[2], f[2]), hn::Mul(f[3], f[3]));
        m[p] = AngleMaskF(hn::PromoteTo(df, hn::DemoteTo(df32h, dot)),
                          hn::PromoteTo(df, hn::DemoteTo(df32h, om)),
                          hn::PromoteTo(df, hn::DemoteTo(df32h, tm)), cos_sq);
      }
      angle = hn::MaskFromVec(JoinMasks(m[0], m[1]));
    } else {
      angle = AngleFromI64(o, t, os, ts, j, cos_1deg_sq, cos_sq, flags);
    }
    for (int k = 0; k < 3; ++k) {
      // |ref| rounded to its top 15 significant bits (shift s), as
      // get_best15_from32: s = floor(log2|ref|) - 14 for |ref| >= 2^15; the
      // exponent of float(|ref| >> 8) (exact: below 2^24) is floor(log2).
      const V32 mag = hn::Abs(o[k]);
      const auto magu = hn::BitCast(du, mag);
      const auto big = hn::Ne(hn::BitCast(d, hn::ShiftRight<15>(magu)), zero);
      const V32 expo = hn::Sub(
          hn::ShiftRight<23>(
              hn::BitCast(d, hn::ConvertTo(df32, hn::BitCast(d, hn::ShiftRight<8>(magu))))),
          hn::Set(d, 127 + 6));
      const V32 s = hn::IfThenElseZero(big, expo);
      const auto sb = hn::BitCast(du, hn::IfThenElse(big, s, one));  // no shift by -1
      const auto rounded =
          hn::Shr(hn::Add(magu, hn::Shl(hn::BitCast(du, one), hn::Sub(sb, hn::BitCast(du, one)))),
                  sb);
      const V32 top15 = hn::IfThenElse(big, hn::And(hn::BitCast(d, rounded), mask16), mag);
      const V32 rec = Reciprocal<kDivide>(top15, recip);
      // k = (±recip·t + 2^(14+s)) >> (15+s), clamped to [0, 32768], in 64
      // bits; a negative sum clamps to 0, so a logical shift serves.
      const V32 negv = hn::VecFromMask(d, hn::Lt(o[k], zero));
      const V64 num[2] = {MulEvenS(rec, t[k]), MulOddS(rec, t[k])};
      const VU64 s64[2] = {hn::And(hn::BitCast(du64, s), low32),
                           hn::ShiftRight<32>(hn::BitCast(du64, s))};
      const VU64 neg64[2] = {hn::And(hn::BitCast(du64, negv), low32),
                             hn::ShiftRight<32>(hn::BitCast(du64, negv))};
      VU64 kq[2];
      for (int p = 0; p < 2; ++p) {
        const auto is_neg = hn::RebindMask(d64, hn::Ne(neg64[p], hn::Zero(du64)));
        const V64 sn = hn::IfThenElse(is_neg, hn::Neg(num[p]), num[p]);
        const V64 x =
            hn::Add(sn, hn::BitCast(d64, hn::Shl(one64, hn::Add(s64[p], hn::Set(du64, 14)))));
        const V64 sh =
            hn::BitCast(d64, hn::Shr(hn::BitCast(du64, x), hn::Add(s64[p], hn::Set(du64, 15))));
        const V64 kc = hn::IfThenElse(hn::Lt(x, zero64), zero64,
                                      hn::IfThenElse(hn::Gt(sh, q15_64), q15_64, sh));
        kq[p] = hn::BitCast(du64, kc);
      }
      const auto o_zero = hn::Eq(o[k], zero);
      const V32 kk = hn::IfThenElse(o_zero, one_q15, JoinLow32(kq[0], kq[1]));
      // rst = (k·ref + 2^14) >> 15 with ref = rh·2^16 + rl (rl unsigned):
      // 2·(k·rh) + ((k·rl + 2^14) >> 15), each product below 2^31.
      const V32 rst = hn::Add(
          hn::ShiftLeft<1>(hn::Mul(kk, hn::ShiftRight<16>(o[k]))),
          hn::ShiftRight<15>(hn::Add(hn::Mul(kk, hn::And(o[k], mask16)), half_q15)));
      // Enhancement with an integer gain: rst·g is exact unless it leaves
      // the int32 range, where the bound t wins anyway.
      const auto o_pos = hn::Gt(o[k], zero);
      const V32 scaled = hn::Mul(rst, g);
      const auto over = hn::Or(hn::And(o_pos, hn::Gt(rst, lim_pos)),
                               hn::AndNot(o_pos, hn::Lt(rst, lim_neg)));
      V32 lim = hn::IfThenElse(o_pos, hn::Min(scaled, t[k]), hn::Max(scaled, t[k]));
      lim = hn::IfThenElse(over, t[k], lim);
      const auto apply = hn::AndNot(hn::Or(o_zero, hn::Eq(kk, zero)), angle);
      const V32 out = hn::IfThenElse(apply, lim, rst);
      hn::StoreU(out, d, rs[k] + j);
      hn::StoreU(hn::Sub(t[k], out), d, as[k] + j);
    }
  }
  if (j < end) kernels::decouple123_row(r, j, end, cos_1deg_sq, gain);
}


// The decoupling kernels with reciprocals from the table (gathers) and by
// division.
void Decouple0RowGather(const DecoupleRow<std::int16_t>& r, int b, int e, float c, double g) {
  Decouple0RowT<false>(r, b, e, c, g);
}
void Decouple0RowDivide(const DecoupleRow<std::int16_t>& r, int b, int e, float c, double g) {
  Decouple0RowT<true>(r, b, e, c, g);
}
void Decouple123RowGather(const DecoupleRow<std::int32_t>& r, int b, int e, float c, double g) {
  Decouple123RowT<false>(r, b, e, c, g);
}
void Decouple123RowDivide(const DecoupleRow<std::int32_t>& r, int b, int e, float c, double g) {
  Decouple123RowT<true>(r, b, e, c, g);
}

// ---------------------------------------------------------------------------
// Masker terms

/// |int16((f·x + 2^14) >> 15)| (kShift15) or |int16((f·x + 65535) >> 17)|
/// per int16 lane, as uint16 (0..32768), for a uint16 weight f, exactly in
/// 16-bit lanes: f = 2^15·b + f' gives (f·x + 2^14) >> 15 = b·x +
/// MulFixedPoint15(x, f') (wrapping as the int16 cast); (X + 65535) >> 17 is
/// ceil(X / 2^16) >> 1, with floor(X / 2^16) = MulHigh(x, f - 2^16·b) + b·x
/// and the low product bits telling whether X / 2^16 is whole.
template <bool kShift15>
HWY_INLINE V16 CsfMagnitude16(V16 x, std::uint16_t f) {
  const D16 d16;
  const bool b = f >= 0x8000u;
  V16 csf;
  if constexpr (kShift15) {
    csf = hn::MulFixedPoint15(x, hn::Set(d16, static_cast<std::int16_t>(f & 0x7FFF)));
    if (b) csf = hn::Add(csf, x);
  } else {
    const V16 fs = hn::Set(d16, static_cast<std::int16_t>(f));
    V16 floor_hi = hn::MulHigh(x, fs);
    if (b) floor_hi = hn::Add(floor_hi, x);
    const V16 not_whole = hn::VecFromMask(d16, hn::Ne(hn::Mul(x, fs), hn::Zero(d16)));
    csf = hn::ShiftRight<1>(hn::Sub(floor_hi, not_whole));
  }
  return hn::Abs(csf);
}

/// Adds the sign-extended int16 lanes of v to the two int32 halves.
HWY_INLINE void AddWidened(V16 v, V32& lower, V32& upper) {
  const D32 d;
  const hn::Half<D16> dh;
  lower = hn::Add(lower, hn::PromoteTo(d, hn::LowerHalf(dh, v)));
  upper = hn::Add(upper, hn::PromoteTo(d, hn::UpperHalf(dh, v)));
}

void Csf0Row(const std::int16_t* h, const std::int16_t* v, const std::int16_t* dd, int begin,
             int end, const std::uint16_t* fixed, std::int32_t* mask, std::int32_t* centre) {
  const D16 d16;
  const D32 d;
  const int n16 = static_cast<int>(hn::Lanes(d16));
  const int n = static_cast<int>(hn::Lanes(d));
  const std::int16_t* in[3] = {h, v, dd};
  // |csf|/30 = (4369·u + 2^11) >> 12 = u + MulFixedPoint15(u, 2184) and
  // |csf|/15 = 2u + MulFixedPoint15(u, 4368), both modulo 2^16 as the
  // reference's int16 casts; u = 32768 reads as -32768 in MulFixedPoint15,
  // which the last terms correct.
  const V16 k30 = hn::Set(d16, 2184), k15 = hn::Set(d16, 4368);
  const V16 fix30 = hn::Set(d16, 4368), fix15 = hn::Set(d16, static_cast<std::int16_t>(8736));
  const V16 min16 = hn::Set(d16, static_cast<std::int16_t>(-32768));
  int j = begin;
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < end; j += n16) {
    if (j + n16 > end) {
      if (end - begin < n16) break;
      j = end - n16;
    }
    V32 m_lo = hn::Zero(d), m_hi = hn::Zero(d), c_lo = hn::Zero(d), c_hi = hn::Zero(d);
    for (int k = 0; k < 3; ++k) {
      const V16 x = hn::LoadU(d16, in[k] + j);
      const V16 u = k == 2 ? CsfMagnitude16<false>(x, fixed[k]) : CsfMagnitude16<true>(x, fixed[k]);
      const auto is_min = hn::Eq(u, min16);
      const V16 m_t = hn::Add(hn::Add(u, hn::MulFixedPoint15(u, k30)),
                              hn::IfThenElseZero(is_min, fix30));
      const V16 c_t = hn::Add(hn::Add(hn::Add(u, u), hn::MulFixedPoint15(u, k15)),
                              hn::IfThenElseZero(is_min, fix15));
      AddWidened(m_t, m_lo, m_hi);
      AddWidened(c_t, c_lo, c_hi);
    }
    hn::StoreU(m_lo, d, mask + j);
    hn::StoreU(m_hi, d, mask + j + n);
    hn::StoreU(c_lo, d, centre + j);
    hn::StoreU(c_hi, d, centre + j + n);
  }
  if (j < end) kernels::csf0_row(h, v, dd, j, end, fixed, mask, centre);
}

/// int32((int64(f)·x + 2^27) >> 28) for a uint32 weight f and int32 x.
HWY_INLINE V32 WeightQ28(V32 x, std::uint32_t f) {
  const D32 d;
  const DU64 du64;
  const V32 fv = hn::Set(d, static_cast<std::int32_t>(f));
  VU64 pe = hn::BitCast(du64, MulEvenS(x, fv));
  VU64 po = hn::BitCast(du64, MulOddS(x, fv));
  if (f >= 0x80000000u) {  // f read as int32 is f - 2^32: add x·2^32 back
    pe = hn::Add(pe, hn::ShiftLeft<32>(hn::BitCast(du64, x)));
    po = hn::Add(po, hn::ShiftLeft<32>(hn::BitCast(du64, OddToEven(x))));
  }
  const auto round = hn::Set(du64, std::uint64_t{1} << 27);
  pe = hn::ShiftRight<28>(hn::Add(pe, round));
  po = hn::ShiftRight<28>(hn::Add(po, round));
  return JoinLow32(pe, po);
}

/// The high 32 bits of int64(m)·k − 2^31 per lane (libvmaf's |csf|/30 and
/// |csf|/15 with its wrapped rounding term).
HWY_INLINE V32 HighOfProduct(V32 m, V32 k) {
  const D32 d;
  const D64 d64;
  const DU64 du64;
  const auto round = hn::Set(d64, -2147483648LL);
  const VU64 pe = hn::BitCast(du64, hn::Add(MulEvenS(m, k), round));
  const VU64 po = hn::BitCast(du64, hn::Add(MulOddS(m, k), round));
  return hn::OddEven(hn::BitCast(d, po), hn::BitCast(d, hn::ShiftRight<32>(pe)));
}

void Csf123Row(const std::int32_t* h, const std::int32_t* v, const std::int32_t* dd, int begin,
               int end, const std::uint32_t* fixed, std::int32_t* mask, std::int32_t* centre) {
  const D32 d;
  const int n = static_cast<int>(hn::Lanes(d));
  const std::int32_t* in[3] = {h, v, dd};
  const V32 k30 = hn::Set(d, 143165577), k15 = hn::Set(d, 286331153);
  int j = begin;
  // The last vector may overlap the previous one (same values rewritten).
  for (; j < end; j += n) {
    if (j + n > end) {
      if (end - begin < n) break;
      j = end - n;
    }
    V32 m = hn::Zero(d), c = hn::Zero(d);
    for (int k = 0; k < 3; ++k) {
      const V32 mag = hn::Abs(WeightQ28(hn::LoadU(d, in[k] + j), fixed[k]));
      m = hn::Add(m, HighOfProduct(mag, k30));
      c = hn::Add(c, HighOfProduct(mag, k15));
    }
    hn::StoreU(m, d, mask + j);
    hn::StoreU(c, d, centre + j);
  }
  if (j < end) kernels::csf123_row(h, v, dd, j, end, fixed, mask, centre);
}

// ---------------------------------------------------------------------------
// Contrast masking

/// The 3x3 masking threshold at columns j..j+n-1 (1 <= j, j+n <= width-1).
HWY_INLINE V32 Threshold(const std::int32_t* const rows[3], const std::int32_t* centre, int j) {
  const D32 d;
  V32 s = hn::LoadU(d, centre + j);
  s = hn::Add(s, hn::Add(hn::LoadU(d, rows[0] + j - 1), hn::LoadU(d, rows[0] + j + 1)));
  s = hn::Add(s, hn::Add(hn::LoadU(d, rows[1] + j - 1), hn::LoadU(d, rows[1] + j + 1)));
  s = hn::Add(s, hn::Add(hn::LoadU(d, rows[2] + j - 1), hn::LoadU(d, rows[2] + j + 1)));
  s = hn::Add(s, hn::Add(hn::LoadU(d, rows[0] + j), hn::LoadU(d, rows[2] + j)));
  return s;
}

/// Adds ((int32((x² + 2^(kSqShift-1)) >> kSqShift)·x + cub_add) >>
/// cub_shift) of every lane (0 <= x < 2^31) to the accumulator. Below 2^30
/// every product is non-negative and a logical shift equals the reference's
/// arithmetic one (cheaper on AVX2, which lacks 64-bit arithmetic shifts).
template <int kSqShift>
HWY_INLINE void AccumulateCube(V32 x, int cub_shift, V64 cub_add, V64& acc) {
  const D32 d;
  const DU32 du;
  const DU64 du64;
  const auto xu = hn::BitCast(du, x);
  const auto sq_add = hn::Set(du64, std::uint64_t{1} << (kSqShift - 1));
  const V32 xo = OddToEven(x);
  const auto xou = hn::BitCast(du, xo);
  // Unsigned squares; the int32 cast keeps bits kSqShift .. kSqShift+31.
  const V32 sq_e =
      hn::BitCast(d, hn::ShiftRight<kSqShift>(hn::Add(hn::MulEven(xu, xu), sq_add)));
  const V32 sq_o =
      hn::BitCast(d, hn::ShiftRight<kSqShift>(hn::Add(hn::MulEven(xou, xou), sq_add)));
  const V64 pe = hn::Add(hn::MulEven(sq_e, x), cub_add);
  const V64 po = hn::Add(hn::MulEven(sq_o, xo), cub_add);
  if (hn::AllTrue(du, hn::Eq(hn::ShiftRight<30>(xu), hn::Zero(du)))) {
    acc = hn::Add(acc, hn::BitCast(D64(), hn::Add(hn::ShiftRightSame(hn::BitCast(du64, pe), cub_shift),
                                                   hn::ShiftRightSame(hn::BitCast(du64, po), cub_shift))));
  } else {
    acc = hn::Add(acc, hn::Add(hn::ShiftRightSame(pe, cub_shift), hn::ShiftRightSame(po, cub_shift)));
  }
}

/// inner[k] += the lanes of acc[k], modulo 2^64 as the reference's sums.
HWY_INLINE void AddSums(const V64 acc[3], std::int64_t* inner) {
  for (int k = 0; k < 3; ++k)
    inner[k] = static_cast<std::int64_t>(static_cast<std::uint64_t>(inner[k]) + SumU64(acc[k]));
}

void Masked0Row(const MaskRow<std::int16_t>& r, int begin, int end, const std::uint16_t* fixed,
                const std::uint32_t* cub_shift, std::int64_t* inner) {
  const D32 d;
  const D64 d64;
  const hn::Rebind<std::int16_t, D32> d16;
  const int n = static_cast<int>(hn::Lanes(d));
  const int w = r.width;
  // Columns 0 and w-1 use mirrored neighbours: scalar.
  if (begin == 0) {
    kernels::masked0_row(r, 0, 1, fixed, cub_shift, inner);
    begin = 1;
  }
  const int stop = end == w ? w - 1 : end;
  V64 acc[3] = {hn::Zero(d64), hn::Zero(d64), hn::Zero(d64)};
  V64 cub_add[3];
  for (int k = 0; k < 3; ++k)
    cub_add[k] = hn::Set(d64, cub_shift[k] == 0 ? 0 : std::int64_t{1} << (cub_shift[k] - 1));
  const V32 zero = hn::Zero(d);
  int j = begin;
  for (; j + n <= stop; j += n) {
    const V32 thr = Threshold(r.mask, r.centre, j);
    for (int k = 0; k < 3; ++k) {
      const V32 x = hn::Mul(hn::PromoteTo(d, hn::LoadU(d16, r.x[k] + j)),
                            hn::Set(d, static_cast<std::int32_t>(fixed[k])));
      const V32 t = k == 2 ? hn::ShiftLeft<12>(thr) : hn::ShiftLeft<10>(thr);
      const V32 y = hn::Max(hn::Sub(hn::Abs(x), t), zero);
      if (k == 2)
        AccumulateCube<30>(y, static_cast<int>(cub_shift[k]), cub_add[k], acc[k]);
      else
        AccumulateCube<29>(y, static_cast<int>(cub_shift[k]), cub_add[k], acc[k]);
    }
  }
  AddSums(acc, inner);
  if (j < stop) kernels::masked0_row(r, j, stop, fixed, cub_shift, inner);
  if (stop < end) kernels::masked0_row(r, stop, end, fixed, cub_shift, inner);
}

void Masked123Row(const MaskRow<std::int32_t>& r, int begin, int end, const std::uint32_t* fixed,
                  std::uint32_t cub_shift, std::int64_t* inner) {
  const D32 d;
  const D64 d64;
  const int n = static_cast<int>(hn::Lanes(d));
  const int w = r.width;
  if (begin == 0) {
    kernels::masked123_row(r, 0, 1, fixed, cub_shift, inner);
    begin = 1;
  }
  const int stop = end == w ? w - 1 : end;
  V64 acc[3] = {hn::Zero(d64), hn::Zero(d64), hn::Zero(d64)};
  const V64 cub_add = hn::Set(d64, cub_shift == 0 ? 0 : std::int64_t{1} << (cub_shift - 1));
  const V32 zero = hn::Zero(d);
  int j = begin;
  for (; j + n <= stop; j += n) {
    const V32 thr = Threshold(r.mask, r.centre, j);
    for (int k = 0; k < 3; ++k) {
      const V32 x = WeightQ28(hn::LoadU(d, r.x[k] + j), fixed[k]);
      const V32 y = hn::Max(hn::Sub(hn::Abs(x), thr), zero);
      AccumulateCube<30>(y, static_cast<int>(cub_shift), cub_add, acc[k]);
    }
  }
  AddSums(acc, inner);
  if (j < stop) kernels::masked123_row(r, j, stop, fixed, cub_shift, inner);
  if (stop < end) kernels::masked123_row(r, stop, end, fixed, cub_shift, inner);
}

// ---------------------------------------------------------------------------
// Denominator

std::uint64_t Den0Row(const std::int16_t* row, int begin, int end) {
  const D32 d;
  const DU32 du;
  const DU64 du64;
  const hn::Rebind<std::int16_t, D32> d16;
  const int n = static_cast<int>(hn::Lanes(d));
  VU64 acc = hn::Zero(du64);
  int j = begin;
  for (; j + n <= end; j += n) {
    const auto m = hn::BitCast(du, hn::Abs(hn::PromoteTo(d, hn::LoadU(d16, row + j))));
    const auto m2 = hn::Mul(m, m);  // <= 2^30
    const auto mo = hn::BitCast(du, OddToEven(hn::BitCast(d, m)));
    const auto m2o = hn::BitCast(du, OddToEven(hn::BitCast(d, m2)));
    acc = hn::Add(acc, hn::Add(hn::MulEven(m2, m), hn::MulEven(m2o, mo)));
  }
  std::uint64_t sum = SumU64(acc);
  if (j < end) sum += kernels::den0_row(row, j, end);
  return sum;
}

std::uint64_t Den123Row(const std::int32_t* row, int begin, int end, std::uint32_t shift_sq,
                        std::uint32_t shift_cub) {
  const D32 d;
  const DU32 du;
  const DU64 du64;
  const int n = static_cast<int>(hn::Lanes(d));
  const auto add_sq = hn::Set(du64, std::uint64_t{1} << shift_sq);
  const auto add_cub = hn::Set(du64, shift_cub == 0 ? 0 : std::uint64_t{1} << (shift_cub - 1));
  const int ss = static_cast<int>(shift_sq), sc = static_cast<int>(shift_cub);
  VU64 acc = hn::Zero(du64);
  int j = begin;
  for (; j + n <= end; j += n) {
    const auto m = hn::BitCast(du, hn::Abs(hn::LoadU(d, row + j)));
    for (int p = 0; p < 2; ++p) {
      const auto mp = p == 0 ? m : hn::BitCast(du, OddToEven(hn::BitCast(d, m)));
      const VU64 a = hn::ShiftRightSame(hn::Add(hn::MulEven(mp, mp), add_sq), ss);
      // a·m mod 2^64 with a up to 33 bits: low and high 32-bit parts.
      const VU64 prod = hn::Add(hn::MulEven(hn::BitCast(du, a), mp),
                                hn::ShiftLeft<32>(hn::MulEven(
                                    hn::BitCast(du, hn::ShiftRight<32>(a)), mp)));
      acc = hn::Add(acc, hn::ShiftRightSame(hn::Add(prod, add_cub), sc));
    }
  }
  std::uint64_t sum = SumU64(acc);
  if (j < end) sum += kernels::den123_row(row, j, end, shift_sq, shift_cub);
  return sum;
}

#endif  // HWY_TARGET == HWY_SCALAR

}  // namespace vqe::adm::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vqe::adm {

namespace {

// Gathers or divisions for the reciprocals at `level` (see ReciprocalPath).
// Measured: AVX2 divisions faster on AMD EPYC and Intel Xeon; SSE4 (no
// gather instruction) table loads faster; AVX-512 gathers faster on Intel
// Xeon, divisions about 1.9x faster on AMD Zen 5 (decoupling at level 0).
bool divide_reciprocals(simd::Level level, ReciprocalPath path) {
  switch (path) {
    case ReciprocalPath::gather: return false;
    case ReciprocalPath::divide: return true;
    case ReciprocalPath::best: break;
  }
  return level == simd::Level::avx2 || (level == simd::Level::avx512 && simd::slow_gathers());
}

AdmDsp build_dsp(simd::Level l, ReciprocalPath path) {
  namespace k = kernels;
  AdmDsp d{k::dwt0_vertical_u8, k::dwt0_vertical_u16, k::dwt0_horizontal, k::dwt1_vertical,
           k::dwt23_vertical,   k::dwt123_horizontal, k::decouple0_row,   k::decouple123_row,
           k::csf0_row,         k::csf123_row,        k::masked0_row,     k::masked123_row,
           k::den0_row,         k::den123_row};
  if (l == simd::Level::scalar) return d;
  d.dwt0_vertical_u8 = VQE_SIMD_PICK(l, Dwt0VerticalU8);
  d.dwt0_vertical_u16 = VQE_SIMD_PICK(l, Dwt0VerticalU16);
  d.dwt0_horizontal = VQE_SIMD_PICK(l, Dwt0Horizontal);
  d.dwt1_vertical = VQE_SIMD_PICK(l, Dwt1Vertical);
  d.dwt23_vertical = VQE_SIMD_PICK(l, Dwt23Vertical);
  d.dwt123_horizontal = VQE_SIMD_PICK(l, Dwt123Horizontal);
  const bool divide = divide_reciprocals(l, path);
  d.decouple0_row = divide ? VQE_SIMD_PICK(l, Decouple0RowDivide)
                           : VQE_SIMD_PICK(l, Decouple0RowGather);
  d.decouple123_row = divide ? VQE_SIMD_PICK(l, Decouple123RowDivide)
                             : VQE_SIMD_PICK(l, Decouple123RowGather);
  d.csf0_row = VQE_SIMD_PICK(l, Csf0Row);
  d.csf123_row = VQE_SIMD_PICK(l, Csf123Row);
  d.masked0_row = VQE_SIMD_PICK(l, Masked0Row);
  d.masked123_row = VQE_SIMD_PICK(l, Masked123Row);
  d.den0_row = VQE_SIMD_PICK(l, Den0Row);
  d.den123_row = VQE_SIMD_PICK(l, Den123Row);
  return d;
}

}  // namespace

const AdmDsp& adm_dsp(simd::Level level, ReciprocalPath path) {
  static const simd::LevelTables<AdmDsp> best(
      [](simd::Level l) { return build_dsp(l, ReciprocalPath::best); });
  static const simd::LevelTables<AdmDsp> gather(
      [](simd::Level l) { return build_dsp(l, ReciprocalPath::gather); });
  static const simd::LevelTables<AdmDsp> divide(
      [](simd::Level l) { return build_dsp(l, ReciprocalPath::divide); });
  switch (path) {
    case ReciprocalPath::gather: return gather[level];
    case ReciprocalPath::divide: return divide[level];
    case ReciprocalPath::best: break;
  }
  return best[level];
}

}  // namespace vqe::adm
#endif  // HWY_ONCE
