// SPDX-License-Identifier: BSD-2-Clause
// Highway SIMD versions of the integer VIF kernels (statistic_simd and
// subsample_simd in integer_vif.h). They return exactly what the scalar
// references in integer_vif.cpp return; the arithmetic is rearranged only
// where the rearrangement is exact:
//
// - Filters are symmetric, so taps k and fw-1-k are added before the
//   multiply. Every partial sum stays below 65536 * 65535 < 2^32 because the
//   coefficients sum to 65536 and every multiplicand is below 2^16.
// - The reference keeps the filtered second moments in 64 bits. Here each
//   32-bit moment v = 2^16 hi + lo is filtered as two 32-bit sums
//   H = sum c*hi and L = sum c*lo (both < 2^32), and
//   (2^16 H + L + r) >> s = (H << (16 - s)) + ((L + r) >> s) for s <= 16,
//   truncated to 32 bits as the reference truncates.
// - Where the coefficients fit int16 (scales 0-2), 16x16->32-bit
//   multiply-adds (pmaddwd) do two taps at once: the horizontal pass on
//   rows stored as int16 v - 2^15 (sum c*(v - 2^15) = sum c*v - 2^31 mod
//   2^32 because the coefficients sum to 2^16), the vertical pass of 8- to
//   12-bit samples on interleaved row pairs, and the vertical pass of 16-bit
//   samples (scales 1-2, 16-bit scale 0) on row pairs biased into int16, with
//   the bias removed exactly afterwards (VerticalStatRowPairs16). Lane
//   order inside a row then differs from the pixel order; the statistic
//   only sums over pixels, and the stored rows are put back in order.
// - The horizontal pass filters one channel over the whole row at a time
//   (into ws.hsum) so that its coefficients and accumulators stay in
//   registers; KeepInRegister stops the compiler from turning the
//   multiply-add chains into spilled trees. Neither changes any value.
// - Means squared, (m1 * m2 + 2^31) >> 32, use 32x32->64-bit products.
// - The per-pixel log terms are computed only for the pixels they apply
//   to: a row's pixels at or above the noise floor, and those with a num
//   term, are first compacted into lists (RowTerms). The terms run in double
//   lanes. Every integer they handle is below 2^53, so int32 -> double, sums
//   and the truncations are exact; g, sv_sq and g*g*sigma1_sq are the
//   reference's double operations in the reference's order (no FMA).
//   2048*log2 of an integer v in [2^17, 2^53) reads the exponent
//   e = floor(log2 v) and the table index floor(v / 2^(e-15)) straight from
//   the bits of the double, as log2_32/log2_64 do with a leading-zero count
//   and a shift; the table entry is a straight line in the index plus a
//   byte (log2_delta_table(), small enough for the L1 cache), read with
//   scalar loads (faster than gathers here).
// - Per-row sums are exact: exponents and line parts in uint64 lanes,
//   non-log sums in uint32 lanes (16-bit halves); they are added to the
//   64-bit totals once per row.
// - The split statistic (ref_statistic and pair_statistic, the reference
//   work shared by the jobs of a ladder) runs the same passes on a subset
//   of the channels (detail::Part): the reference part filters mu1 and xx
//   and keeps the den terms, the pair part filters mu2, yy and xy and keeps
//   the num terms. The reference part's rows (the filtered mean and
//   sigma1_sq) are stored in pixel order (the even/odd block order of the
//   pairwise horizontal pass interleaved back), so that the pair part of
//   any level reads those of any level. The generic vertical pass (row
//   tails, scale 3) still computes every channel (the reference part gives
//   it the reference as both inputs).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/vif/vif_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/simd.h"
#include "core/simd_sum-inl.h"
#include "features/vif/integer_vif.h"

#ifndef VQE_VIF_SIMD_ONCE
#define VQE_VIF_SIMD_ONCE
// Fully unrolls the following loop (its trip count is a compile-time
// constant: a filter length).
#if defined(__clang__)
#define VQE_UNROLL_ALL _Pragma("unroll")
#elif defined(__GNUC__)
#define VQE_UNROLL_ALL _Pragma("GCC unroll 17")
#else
#define VQE_UNROLL_ALL
#endif
namespace vqe::vif::detail {

// Returns v unchanged but hides its value from the optimiser, so that a
// filter coefficient is kept in a register rather than folded into every
// multiply-add as a memory operand (which doubles the loads of a
// load-bound loop).
inline std::uint32_t opaque(std::uint32_t v) {
#if defined(__GNUC__) || defined(__clang__)
  asm("" : "+r"(v));
#endif
  return v;
}

// Fills the `half` border samples on each side of a row of n >= 2 samples
// by reflect-101. One reflection suffices when half < n (every production
// size); reflect101's repeated mirror (with divisions) serves the rest.
template <typename R>
inline void pad_reflect(R* row, int n, int half) {
  if (half < n) {
    for (int f = 1; f <= half; ++f) {
      row[-f] = row[f];
      row[n - 1 + f] = row[n - 1 - f];
    }
    return;
  }
  for (int f = 1; f <= half; ++f) {
    row[-f] = row[reflect101(-f, n)];
    row[n - 1 + f] = row[reflect101(n - 1 + f, n)];
  }
}

// For every 8-lane mask m: the lane indices that move the set lanes to the
// front, in order, followed by the other lanes in order. For masks of fewer
// lanes (m < 2^N), the first N entries are all below N.
inline constexpr std::array<std::array<std::uint8_t, 8>, 256> kCompactIndices = [] {
  std::array<std::array<std::uint8_t, 8>, 256> t{};
  for (unsigned m = 0; m < 256; ++m) {
    unsigned pos = 0;
    for (unsigned lane = 0; lane < 8; ++lane)
      if (m & (1u << lane)) t[m][pos++] = static_cast<std::uint8_t>(lane);
    for (unsigned lane = 0; lane < 8; ++lane)
      if (!(m & (1u << lane))) t[m][pos++] = static_cast<std::uint8_t>(lane);
  }
  return t;
}();

// Which part of the statistic a pass computes: all of it (the fused pass),
// the reference part (ref_statistic: the reference's mean and variance, the
// den sums) or the pair part (pair_statistic: the rest, with the reference's
// mean and variance taken from the reference part's rows).
enum class Part { all, ref, pair };

// One row's reference-part results (RefRows at one row), pixels in order.
struct RowRef {
  std::uint32_t* mu1 = nullptr;
  std::int32_t* sigma1 = nullptr;
};

// Sums of the row tails, which use the reference's scalar arithmetic.
struct RowSums {
  std::int64_t num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;
};

}  // namespace vqe::vif::detail
#endif  // VQE_VIF_SIMD_ONCE

HWY_BEFORE_NAMESPACE();
namespace vqe::vif::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
// Targets without real vectors are never chosen for a CPU level; they
// forward to the scalar reference so that every target compiles.
ScaleSums Statistic8(const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                     std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                     double gain_limit, Workspace* ws, int row_begin, int row_end) {
  return statistic_scalar(
      KernelInput{ref, dis, ref_stride, dis_stride, w, h, true, row_begin, row_end}, scale,
      bit_depth, gain_limit, *ws);
}
ScaleSums Statistic16(const std::uint16_t* ref, std::ptrdiff_t ref_stride,
                      const std::uint16_t* dis, std::ptrdiff_t dis_stride, int w, int h,
                      int scale, int bit_depth, double gain_limit, Workspace* ws, int row_begin,
                      int row_end) {
  return statistic_scalar(
      KernelInput{ref, dis, ref_stride, dis_stride, w, h, false, row_begin, row_end}, scale,
      bit_depth, gain_limit, *ws);
}
ScaleSums RefStatisticRows(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                           const RefRows& out) {
  return ref_statistic_scalar(in, scale, bit_depth, ws, out);
}
ScaleSums PairStatisticRows(const KernelInput& in, int scale, int bit_depth, double gain_limit,
                            Workspace& ws, const RefRows& ref) {
  return pair_statistic_scalar(in, scale, bit_depth, gain_limit, ws, ref);
}
void Subsample8(const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth, Workspace* ws,
                std::uint16_t* out_ref, std::uint16_t* out_dis, int out_begin, int out_end) {
  subsample_scalar(
      KernelInput{ref, dis, ref_stride, dis_stride, w, h, true, out_begin, out_end}, scale,
      bit_depth, *ws, out_ref, out_dis);
}
void Subsample16(const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                 std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                 Workspace* ws, std::uint16_t* out_ref, std::uint16_t* out_dis, int out_begin,
                 int out_end) {
  subsample_scalar(
      KernelInput{ref, dis, ref_stride, dis_stride, w, h, false, out_begin, out_end}, scale,
      bit_depth, *ws, out_ref, out_dis);
}
#else
using DU32 = hn::ScalableTag<std::uint32_t>;
using DI32 = hn::ScalableTag<std::int32_t>;
using DU64 = hn::Repartition<std::uint64_t, DU32>;
using DU16H = hn::Rebind<std::uint16_t, DU32>;
using DF64 = hn::ScalableTag<double>;
using DI32Q = hn::Rebind<std::int32_t, DF64>;
using DU64F = hn::RebindToUnsigned<DF64>;
using DI64Q = hn::RebindToSigned<DF64>;
using VU32 = hn::Vec<DU32>;
using VF64 = hn::Vec<DF64>;

constexpr std::int32_t kNsq = kSigmaNsq;

// Loads N samples of type T and widens them to uint32 lanes.
template <typename T>
HWY_INLINE VU32 LoadWide(const T* HWY_RESTRICT p) {
  const DU32 d;
  const hn::Rebind<T, DU32> dt;
  return hn::PromoteTo(d, hn::LoadU(dt, p));
}

// Stores uint32 lanes that are < 2^16 as uint16.
HWY_INLINE void StoreNarrow(VU32 v, std::uint16_t* HWY_RESTRICT p) {
  const DI32 di;
  const DU16H d16;
  hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, v)), d16, p);
}

// Stores uint32 lanes v < 2^16 as the int16 bit pattern of v - 2^15.
HWY_INLINE void StoreBiased(VU32 v, std::uint16_t* HWY_RESTRICT p) {
  StoreNarrow(hn::Xor(v, hn::Set(DU32(), 0x8000u)), p);
}

// a[2i] * b[2i] + a[2i+1] * b[2i+1] in int32 lane i (wrapping), on every
// target. ReorderWidenMulAccumulate alone leaves the pair sums in their lanes
// only on x86 (pmaddwd; sum1 stays zero); on NEON it puts the products of the
// lower and upper halves into sum0 and sum1, and RearrangeToOddPlusEven adds
// them pairwise. On x86 that returns sum0 unchanged, so the code is the same.
template <class D32, class V16>
HWY_INLINE hn::Vec<D32> PairSums(D32 d32, V16 a, V16 b) {
  hn::Vec<D32> sum1 = hn::Zero(d32);
  const hn::Vec<D32> sum0 = hn::ReorderWidenMulAccumulate(d32, a, b, hn::Zero(d32), sum1);
  return hn::RearrangeToOddPlusEven(sum0, sum1);
}

// (a * b + 2^31) >> 32 per uint32 lane, from exact 64-bit products.
HWY_INLINE VU32 MulHiRound(VU32 a, VU32 b) {
  const DU32 d;
  const DU64 d64;
  const auto round = hn::Set(d64, std::uint64_t{1} << 31);
  const auto pe = hn::Add(hn::MulEven(a, b), round);
  const VU32 ao = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, a)));
  const VU32 bo = hn::BitCast(d, hn::ShiftRight<32>(hn::BitCast(d64, b)));
  const auto po = hn::Add(hn::MulEven(ao, bo), round);
  const auto hi_mask = hn::Set(d64, 0xFFFFFFFF00000000ull);
  return hn::BitCast(d, hn::Or(hn::ShiftRight<32>(pe), hn::And(po, hi_mask)));
}

// 2048 * log2(v) as log2_32/log2_64 define it, for doubles holding integers
// v in [2^17, 2^53), from the bits of the double: with e = floor(log2 v),
// the table index floor(v / 2^(e-15)) is 2^15 + m, m the top 15 fraction
// bits (51..37), and the biased exponent e + 1023 sits in bits 62..52, so
// the value is log2_table()[2^15 + m] + 2048 * (e + 1023) - 2048 * 1038,
// where log2_table()[2^15 + m] = 30720 + (m >> 4) + log2_delta_table()[m].
HWY_INLINE hn::Vec<DU64F> Log2Fraction(VF64 v) {
  const DU64F du;
  return hn::And(hn::ShiftRight<37>(hn::BitCast(du, v)), hn::Set(du, 0x7FFF));
}
HWY_INLINE hn::Vec<DU64F> Log2BiasedExp(VF64 v) {
  return hn::ShiftRight<52>(hn::BitCast(DU64F(), v));
}

// Scalar reference of one pixel's terms (row tails).
HWY_INLINE void PixelTerms(std::int32_t sigma1_sq, std::int32_t sigma2_sq, std::int32_t sigma12,
                           double gain_limit, detail::RowSums& s) {
  if (sigma1_sq >= kNsq) {
    s.den_log += log2_32(static_cast<std::uint32_t>(sigma1_sq) + static_cast<std::uint32_t>(kNsq)) -
                 2048 * 17;
    if (sigma12 > 0 && sigma2_sq > 0) {
      const double eps = 65536 * 1.0e-10;
      double g = sigma12 / (sigma1_sq + eps);
      std::int32_t sv_sq = static_cast<std::int32_t>(sigma2_sq - g * sigma12);
      sv_sq = std::max(sv_sq, 0);
      g = g < gain_limit ? g : gain_limit;
      const std::uint32_t numer1 = static_cast<std::uint32_t>(sv_sq + kNsq);
      const std::int64_t numer1_tmp =
          static_cast<std::int64_t>(g * g * sigma1_sq) + std::int64_t{numer1};
      s.num_log += log2_64(static_cast<std::uint64_t>(numer1_tmp)) - log2_64(numer1);
    }
  } else {
    s.num_non_log += sigma2_sq;
    s.den_non_log += 1;
  }
}

// Moves the int32 lanes of v whose mask lanes are set to the front, in
// order (the other lanes are unspecified). AVX-512 has the instruction;
// elsewhere the lanes are permuted with detail::kCompactIndices (Highway's
// own Compress builds its table on the stack on every call with GCC).
template <class D>
class Compactor {
 public:
  using V = hn::Vec<D>;
  using M = hn::Mask<D>;
  Compactor(D d, M mask) : mask_(mask) {
#if !(HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3)
    static_assert(hn::MaxLanes(D()) <= 8, "table has 8-lane masks");
    const hn::RebindToUnsigned<D> du;
    std::uint8_t bits[8] = {};
    hn::StoreMaskBits(d, mask, bits);
    const hn::Rebind<std::uint8_t, D> d8;
    idx_ = hn::IndicesFromVec(
        d, hn::BitCast(d, hn::PromoteTo(du, hn::LoadU(d8, detail::kCompactIndices[bits[0]].data()))));
#else
    (void)d;
#endif
  }
  V operator()(V v) const {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3
    return hn::Compress(v, mask_);
#else
    return hn::TableLookupLanes(v, idx_);
#endif
  }

 private:
  M mask_;
#if !(HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX3)
  decltype(hn::IndicesFromVec(D(), hn::Zero(D()))) idx_;
#endif
};

// Adds the VIF terms of w pixels (sigma arrays, sigma2 already clamped at 0)
// in passes over the row, so that work is spent only on the pixels a term
// applies to (on real content about half of them are below the noise floor
// and have neither log term):
// 1. every pixel, in int32 lanes: the non-log sums (masked; sigma2 < 2^31
//    split into 16-bit halves summed in uint32 lanes, far from overflow for
//    any row width), and the pixels at or above the noise floor (their
//    sigma1_sq, compacted into ws.den_s1) and those that also have a num
//    term (sigma12 > 0, sigma2 > 0; their three values compacted into
//    ws.num_s1/s2/s12);
// 2. the den terms of the compacted pixels in double lanes: exponents
//    summed, table indices stored; the list is padded to whole vectors with
//    sigma1_sq = 0, whose term is exactly 0 (log2(2^17) - 17);
// 3. the num terms of the compacted pixels (the reference's double
//    operations in its order, no FMA), padded likewise with sigma12 = 0,
//    whose term is exactly 0 (g = 0: both log arguments are sigma_nsq);
// 4. the table entries' deltas (log2_delta_table()), read with scalar loads
//    (independent of each other: faster than gathers on the CPUs measured).
// All sums are integer, so the order does not matter; exponent sums may wrap
// in uint64 lanes (their true totals are far inside int64). Not inlined, so
// the accumulators stay in registers. kDen: adds the sums of the reference
// alone (den_log, den_non_log; s2p and s12p are then not read unless kNum);
// kNum: those that need the distorted (num_log, num_non_log).
template <bool kDen = true, bool kNum = true>
HWY_NOINLINE void RowTerms(const std::int32_t* HWY_RESTRICT s1p,
                           const std::int32_t* HWY_RESTRICT s2p,
                           const std::int32_t* HWY_RESTRICT s12p, int w, double gain_limit,
                           Workspace& ws, ScaleSums& out) {
  const DI32 di;
  const DU32 du32;
  const int n32 = static_cast<int>(hn::Lanes(di));
  std::int32_t* HWY_RESTRICT ld = ws.den_s1;
  std::int32_t* HWY_RESTRICT l1 = ws.num_s1;
  std::int32_t* HWY_RESTRICT l2 = ws.num_s2;
  std::int32_t* HWY_RESTRICT l12 = ws.num_s12;
  const auto floor_minus_1 = hn::Set(di, kNsq - 1);
  const auto zero32 = hn::Zero(di);
  const auto lo16 = hn::Set(du32, 0xFFFF);
  auto nnl_lo = hn::Zero(du32), nnl_hi = hn::Zero(du32);
  std::size_t den_count = 0, num_count = 0, non_log_count = 0;
  int j = 0;
  for (; j + n32 <= w; j += n32) {
    const auto s1 = hn::LoadU(di, s1p + j);
    const auto m_den = hn::Gt(s1, floor_minus_1);
    const std::size_t dc = hn::CountTrue(di, m_den);
    if constexpr (kDen) {
      non_log_count += static_cast<std::size_t>(n32) - dc;
      if (!kNum) {
        if (dc == static_cast<std::size_t>(n32))
          hn::StoreU(s1, di, ld + den_count);
        else if (dc != 0)
          hn::StoreU(Compactor<DI32>(di, m_den)(s1), di, ld + den_count);
        den_count += dc;
        continue;
      }
    }
    if constexpr (kNum) {
      const auto s2 = hn::LoadU(di, s2p + j);
      const auto s12 = hn::LoadU(di, s12p + j);
      const auto below = hn::BitCast(du32, hn::IfThenZeroElse(m_den, s2));
      nnl_lo = hn::Add(nnl_lo, hn::And(below, lo16));
      nnl_hi = hn::Add(nnl_hi, hn::ShiftRight<16>(below));
      if (dc == 0) continue;
      const auto m_num = hn::And(m_den, hn::And(hn::Gt(s12, zero32), hn::Gt(s2, zero32)));
      const std::size_t nc = hn::CountTrue(di, m_num);
      if (nc == static_cast<std::size_t>(n32)) {  // common in detailed areas
        if constexpr (kDen) hn::StoreU(s1, di, ld + den_count);
        hn::StoreU(s1, di, l1 + num_count);
        hn::StoreU(s2, di, l2 + num_count);
        hn::StoreU(s12, di, l12 + num_count);
      } else {
        if constexpr (kDen) hn::StoreU(Compactor<DI32>(di, m_den)(s1), di, ld + den_count);
        const Compactor<DI32> num(di, m_num);
        hn::StoreU(num(s1), di, l1 + num_count);
        hn::StoreU(num(s2), di, l2 + num_count);
        hn::StoreU(num(s12), di, l12 + num_count);
      }
      den_count += dc;
      num_count += nc;
    }
  }

  const DF64 df;
  const DI32Q dq;
  const DU64F du;
  const int n = static_cast<int>(hn::Lanes(df));
  const VF64 nsq = hn::Set(df, static_cast<double>(kNsq));
  const VF64 zero = hn::Zero(df);
  // Whole vectors: pad with neutral pixels.
  hn::StoreU(zero32, di, ld + den_count);
  hn::StoreU(hn::Set(di, kNsq), di, l1 + num_count);
  hn::StoreU(zero32, di, l2 + num_count);
  hn::StoreU(zero32, di, l12 + num_count);
  const std::size_t den_padded = kDen ? (den_count + n - 1) / n * n : 0;
  const std::size_t num_padded = kNum ? (num_count + n - 1) / n * n : 0;

  // Per lane: the table entry's part 30720 + (m >> 4) and 2048 times the
  // exponent; the deltas are added by the scalar loops below.
  const hn::Rebind<std::uint16_t, DF64> d16;
  std::uint16_t* HWY_RESTRICT idx_d = ws.den_idx;
  auto den_vec = hn::Zero(du);
  for (std::size_t k = 0; k < den_padded; k += n) {
    // sigma1_sq + sigma_nsq < 2^31 + 2^17: exact.
    const VF64 arg = hn::Add(hn::PromoteTo(df, hn::LoadU(dq, ld + k)), nsq);
    const auto m = Log2Fraction(arg);
    hn::StoreU(hn::TruncateTo(d16, m), d16, idx_d + k);
    den_vec = hn::Add(den_vec, hn::Add(hn::ShiftRight<4>(m), hn::ShiftLeft<11>(Log2BiasedExp(arg))));
  }

  const VF64 eps = hn::Set(df, 65536 * 1.0e-10);
  const VF64 limit = hn::Set(df, gain_limit);
  std::uint16_t* HWY_RESTRICT idx_a = ws.num_idx_a;
  std::uint16_t* HWY_RESTRICT idx_b = ws.num_idx_b;
  auto num_vec = hn::Zero(du);
  for (std::size_t k = 0; k < num_padded; k += n) {
    const VF64 s1 = hn::PromoteTo(df, hn::LoadU(dq, l1 + k));
    const VF64 s2 = hn::PromoteTo(df, hn::LoadU(dq, l2 + k));
    const VF64 s12 = hn::PromoteTo(df, hn::LoadU(dq, l12 + k));
    VF64 g = hn::Div(s12, hn::Add(s1, eps));
    const VF64 sv = hn::Floor(hn::Max(hn::Sub(s2, hn::Mul(g, s12)), zero));
    g = hn::Min(g, limit);
    const VF64 numer1 = hn::Add(sv, nsq);
    const VF64 numer1_tmp = hn::Add(hn::Floor(hn::Mul(hn::Mul(g, g), s1)), numer1);
    const auto ma = Log2Fraction(numer1_tmp);
    const auto mb = Log2Fraction(numer1);
    hn::StoreU(hn::TruncateTo(d16, ma), d16, idx_a + k);
    hn::StoreU(hn::TruncateTo(d16, mb), d16, idx_b + k);
    const auto va = hn::Add(hn::ShiftRight<4>(ma), hn::ShiftLeft<11>(Log2BiasedExp(numer1_tmp)));
    const auto vb = hn::Add(hn::ShiftRight<4>(mb), hn::ShiftLeft<11>(Log2BiasedExp(numer1)));
    num_vec = hn::Add(num_vec, hn::Sub(va, vb));
  }

  // The deltas: a 32 KiB table (half of log2_table()'s used part, so that
  // it stays in the L1 cache), indices as uint16.
  const std::uint8_t* HWY_RESTRICT delta = log2_delta_table().data();
  std::int64_t den_deltas = 0, num_deltas = 0;
  for (std::size_t k = 0; k < den_padded; ++k) den_deltas += delta[idx_d[k]];
  for (std::size_t k = 0; k < num_padded; ++k)
    num_deltas += std::int32_t{delta[idx_a[k]]} - std::int32_t{delta[idx_b[k]]};

  namespace hs = simd::HWY_NAMESPACE;
  if constexpr (kDen) {
    const auto den_sum = static_cast<std::int64_t>(hs::WrappingSumOfLanes(du, den_vec));
    out.den_log += den_deltas + den_sum +
                   static_cast<std::int64_t>(den_padded) * (30720 - 2048 * 1038 - 2048 * 17);
    out.den_non_log += static_cast<std::int64_t>(non_log_count);
  }
  if constexpr (kNum) {
    const auto num_sum = static_cast<std::int64_t>(hs::WrappingSumOfLanes(du, num_vec));
    out.num_log += num_deltas + num_sum;
    const auto lo = static_cast<std::int64_t>(hs::WrappingSumOfLanes(du32, nnl_lo));
    const auto hi = static_cast<std::int64_t>(hs::WrappingSumOfLanes(du32, nnl_hi));
    out.num_non_log += hi * 65536 + lo;
  }
  if (j < w) {
    detail::RowSums t;
    for (; j < w; ++j)
      PixelTerms(s1p[j], kNum ? s2p[j] : 0, kNum ? s12p[j] : 0, gain_limit, t);
    if constexpr (kDen) {
      out.den_log += t.den_log;
      out.den_non_log += t.den_non_log;
    }
    if constexpr (kNum) {
      out.num_log += t.num_log;
      out.num_non_log += t.num_non_log;
    }
  }
}

// Forces v into a register at this point: keeps the compiler from
// reassociating a multiply-add chain into a tree of partial sums that it
// then spills.
template <class V>
HWY_INLINE void KeepInRegister(V& v) {
#if HWY_ARCH_X86 && (defined(__GNUC__) || defined(__clang__))
  asm("" : "+v"(v.raw));
#else
  (void)v;
#endif
}

// Vertical statistic pass at scale 0 for samples below 2^12 (8, 10 and 12
// bits) over whole blocks of 2N pixels; returns the number of pixels done.
// Rows k and fw-1-k are interleaved as int16 pairs, so one 16x16->32-bit
// multiply-add gives c*(xa + xb), xa^2 + xb^2 or xa*ya + xb*yb (below 2^25).
// At 8 bits c times such a sum fits 32 bits; above, each sum S is split as
// S = 2^16 Sh + Sl and c*Sh, c*Sl are summed apart (as in the file comment).
// The interleave works within 128-bit blocks; the saturating int16 pack of
// the two halves (values biased into int16 range) restores pixel order.
// Part::ref computes and stores only the reference's channels (mu1, xx; dr
// is not read), Part::pair only the others (mu2, yy, xy).
template <int scale, typename T, detail::Part kPart = detail::Part::all>
HWY_INLINE int VerticalStatRowPairs(const T* const* rr, const T* const* dr, int w, int bit_depth,
                                    Workspace& ws) {
  static_assert(scale == 0, "coefficients must fit int16 and samples 12 bits");
  constexpr bool kX = kPart != detail::Part::pair;  // mu1, xx
  constexpr bool kY = kPart != detail::Part::ref;   // mu2, yy, xy
  constexpr bool kWide = sizeof(T) == 2;  // 10/12-bit: split the products
  const DI32 d32;
  const DU32 du;
  const hn::Repartition<std::int16_t, DI32> d16;
  const hn::RebindToUnsigned<decltype(d16)> du16;
  const hn::Rebind<std::uint8_t, decltype(d16)> d8;
  using V16 = hn::Vec<decltype(d16)>;
  using V32 = hn::Vec<DI32>;
  const int n16 = static_cast<int>(hn::Lanes(d16));
  constexpr int fw = kFilterWidth[scale];
  constexpr int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale];
  const auto load = [&](const T* p) -> V16 {
    if constexpr (kWide)
      return hn::BitCast(d16, hn::LoadU(du16, reinterpret_cast<const std::uint16_t*>(p)));
    else
      return hn::BitCast(d16, hn::PromoteTo(du16, hn::LoadU(d8, p)));
  };
  std::uint16_t* const* out = ws.vrow.data();
  const V32 zero = hn::Zero(d32);
  const int shift_mu = bit_depth;
  const V32 round_mu = hn::Set(d32, 1 << (bit_depth - 1));
  const int shift_sq = 2 * (bit_depth - 8);
  const V32 round_sq = hn::Set(d32, shift_sq == 0 ? 0 : 1 << (shift_sq - 1));
  const V32 bias = hn::Set(d32, 32768);
  const V32 lo_mask = hn::Set(d32, 0xFFFF);
  const auto store = [&](V32 lo, V32 hi, std::uint16_t* p) {
    hn::StoreU(hn::ReorderDemote2To(d16, hn::Sub(lo, bias), hn::Sub(hi, bias)), d16,
               reinterpret_cast<std::int16_t*>(p));
  };
  const auto shr = [&](V32 v, int bits) {  // logical shift of the unsigned value
    return hn::BitCast(d32, hn::ShiftRightSame(hn::BitCast(du, v), bits));
  };
  // Coefficients as int16 pairs (c, c) and as int32.
  V16 cc[half + 1];
  V32 c32[half + 1];
  for (int k = 0; k <= half; ++k) {
    const std::uint32_t c = filt[k];
    cc[k] = hn::BitCast(d16, hn::Set(du, c | (c << 16)));
    c32[k] = hn::Set(d32, static_cast<std::int32_t>(c));
  }
  int j = 0;
  for (; j + n16 <= w; j += n16) {
    // Two passes over the taps, one per interleaved half, to keep the
    // accumulators of a half in registers.
    V32 res[2][5];
    VQE_UNROLL_ALL
    for (int part = 0; part < 2; ++part) {
      V32 m1 = zero, m2 = zero;
      V32 xl = zero, yl = zero, pl = zero, xh = zero, yh = zero, ph = zero;
      VQE_UNROLL_ALL
      for (int k = 0; k <= half; ++k) {
        const V16 xa = load(rr[k] + j);
        const V16 xb = k < half ? load(rr[fw - 1 - k] + j) : hn::Zero(d16);
        const V16 ix = part == 0 ? hn::InterleaveLower(d16, xa, xb)
                                 : hn::InterleaveUpper(d16, xa, xb);
        if constexpr (kX) {
          m1 = hn::Add(m1, PairSums(d32, ix, cc[k]));
          const V32 sx = PairSums(d32, ix, ix);
          if constexpr (kWide) {
            xh = hn::Add(xh, hn::Mul(c32[k], hn::ShiftRight<16>(sx)));
            xl = hn::Add(xl, hn::Mul(c32[k], hn::And(sx, lo_mask)));
          } else {
            xl = hn::Add(xl, hn::Mul(c32[k], sx));
          }
          KeepInRegister(m1);
          KeepInRegister(xl);
          if constexpr (kWide) KeepInRegister(xh);
        }
        if constexpr (kY) {
          const V16 ya = load(dr[k] + j);
          const V16 yb = k < half ? load(dr[fw - 1 - k] + j) : hn::Zero(d16);
          const V16 iy = part == 0 ? hn::InterleaveLower(d16, ya, yb)
                                   : hn::InterleaveUpper(d16, ya, yb);
          m2 = hn::Add(m2, PairSums(d32, iy, cc[k]));
          const V32 sy = PairSums(d32, iy, iy);
          const V32 sp = PairSums(d32, ix, iy);
          if constexpr (kWide) {
            yh = hn::Add(yh, hn::Mul(c32[k], hn::ShiftRight<16>(sy)));
            ph = hn::Add(ph, hn::Mul(c32[k], hn::ShiftRight<16>(sp)));
            yl = hn::Add(yl, hn::Mul(c32[k], hn::And(sy, lo_mask)));
            pl = hn::Add(pl, hn::Mul(c32[k], hn::And(sp, lo_mask)));
          } else {
            yl = hn::Add(yl, hn::Mul(c32[k], sy));
            pl = hn::Add(pl, hn::Mul(c32[k], sp));
          }
          KeepInRegister(m2);
          KeepInRegister(yl);
          KeepInRegister(pl);
          if constexpr (kWide) {
            KeepInRegister(yh);
            KeepInRegister(ph);
          }
        }
      }
      res[part][0] = hn::ShiftRightSame(hn::Add(m1, round_mu), shift_mu);
      res[part][1] = hn::ShiftRightSame(hn::Add(m2, round_mu), shift_mu);
      if constexpr (kWide) {
        // (2^16 H + L + r) >> s, truncated to 32 bits (s = 4 or 8).
        const int up = 16 - shift_sq;
        res[part][2] = hn::Add(hn::ShiftLeftSame(xh, up), shr(hn::Add(xl, round_sq), shift_sq));
        res[part][3] = hn::Add(hn::ShiftLeftSame(yh, up), shr(hn::Add(yl, round_sq), shift_sq));
        res[part][4] = hn::Add(hn::ShiftLeftSame(ph, up), shr(hn::Add(pl, round_sq), shift_sq));
      } else {
        // Shift 0 at 8 bits: the sums are the moments.
        res[part][2] = xl;
        res[part][3] = yl;
        res[part][4] = pl;
      }
    }
    if constexpr (kX) store(res[0][0], res[1][0], out[0] + j);
    if constexpr (kY) store(res[0][1], res[1][1], out[1] + j);
    // Second moments: up to 32 bits, read as unsigned.
    for (int m = kX ? 0 : 1; m < (kY ? 3 : 1); ++m) {
      store(shr(res[0][2 + m], 16), shr(res[1][2 + m], 16), out[2 + 2 * m] + j);
      store(hn::And(res[0][2 + m], lo_mask), hn::And(res[1][2 + m], lo_mask),
            out[3 + 2 * m] + j);
    }
  }
  return j;
}

// Vertical statistic pass for 16-bit samples where both shifts are 16
// (scales 1 and 2, and scale 0 at 16 bits: coefficients fit int16), over
// whole blocks of 2N pixels; returns the number of pixels done. Samples are
// biased into int16, xb = x - 2^15, and rows k and fw-1-k interleaved as
// pairs, so one 16x16->32-bit multiply-add gives c*(xa + xb) - 2^16 c,
// xa_b^2 + xb_b^2 (in [0, 2^31], read unsigned) or xa_b*ya_b + xb_b*yb_b
// (in [-2^31 + 2^16, 2^31], read as P' = P + 2^31 - 2^16 in [0, 2^32)).
// With A = sum c*x (< 2^32; the biased sums give A - 2^31 mod 2^32), the
// coefficients summing to 2^16 and x = xb + 2^15:
//   sum c*x^2 = S2 + 2^16 A - 2^46,  S2 = sum over pairs c*P = 2^16 H + L,
//   sum c*x*y = Sxy + 2^15 (A1 + A2) - 2^46,
//   Sxy = sum c*P' - (2^31 - 2^16) C = 2^16 (H' - (2^15 - 1) C) + L',
// where C is the sum of the coefficients of the pairs (centre tap paired
// with zero) and H, L (H', L') are the c-weighted sums of the high and low
// 16-bit halves of P (P'). Every such sum is below C * 65535 < 2^32 - 2^17,
// because C <= (65536 + 26386) / 2. Hence, modulo 2^32 (the reference
// truncates to 32 bits),
//   (sum c*x^2 + 2^15) >> 16 = A - 2^30 + H + ((L + 2^15) >> 16),
//   (sum c*x*y + 2^15) >> 16 = H' - (2^15 - 1) C + floor((A1 + A2) / 2) - 2^30
//                              + ((L' + 2^15 ((A1 + A2) & 1) + 2^15) >> 16).
// Pixel order is restored as in VerticalStatRowPairs; so is `part` (the
// pair part still sums c*x, which the covariance needs).
template <int scale, detail::Part kPart = detail::Part::all>
HWY_INLINE int VerticalStatRowPairs16(const std::uint16_t* const* rr,
                                      const std::uint16_t* const* dr, int w, Workspace& ws) {
  static_assert(scale <= 2, "coefficients must fit int16");
  constexpr bool kX = kPart != detail::Part::pair;  // xx (and storing mu1)
  constexpr bool kY = kPart != detail::Part::ref;   // mu2, yy, xy
  const DI32 d32;
  const DU32 du;
  const hn::Repartition<std::int16_t, DI32> d16;
  const hn::RebindToUnsigned<decltype(d16)> du16;
  using V16 = hn::Vec<decltype(d16)>;
  using V32 = hn::Vec<DU32>;
  const int n16 = static_cast<int>(hn::Lanes(d16));
  constexpr int fw = kFilterWidth[scale];
  constexpr int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale];
  std::uint32_t pair_coef_sum = 0;
  for (int k = 0; k <= half; ++k) pair_coef_sum += filt[k];
  const V32 xy_const = hn::Set(du, (std::uint32_t{1} << 30) + 32767u * pair_coef_sum);
  const V32 pxy_offset = hn::Set(du, 0x7FFF0000u);
  const V32 sign = hn::Set(du, 0x80000000u);
  const V32 two30 = hn::Set(du, std::uint32_t{1} << 30);
  const V32 round16 = hn::Set(du, 32768);
  const V32 lo_mask = hn::Set(du, 0xFFFF);
  const V32 one = hn::Set(du, 1);
  const auto bias16 = hn::Set(du16, 0x8000);
  const auto load = [&](const std::uint16_t* p) -> V16 {
    return hn::BitCast(d16, hn::Xor(hn::LoadU(du16, p), bias16));
  };
  std::uint16_t* const* out = ws.vrow.data();
  const hn::Vec<DI32> bias32 = hn::Set(d32, 32768);
  const auto store = [&](V32 lo, V32 hi, std::uint16_t* p) {
    hn::StoreU(hn::ReorderDemote2To(d16, hn::Sub(hn::BitCast(d32, lo), bias32),
                                    hn::Sub(hn::BitCast(d32, hi), bias32)),
               d16, reinterpret_cast<std::int16_t*>(p));
  };
  V16 cc[half + 1];
  V32 c32[half + 1];
  for (int k = 0; k <= half; ++k) {
    const std::uint32_t c = filt[k];
    cc[k] = hn::BitCast(d16, hn::Set(du, c | (c << 16)));
    c32[k] = hn::Set(du, c);
  }
  const auto madd = [&](V16 a, V16 b) {  // pair sums, as uint32 bit patterns
    return hn::BitCast(du, PairSums(d32, a, b));
  };
  int j = 0;
  for (; j + n16 <= w; j += n16) {
    V32 res[2][5];
    VQE_UNROLL_ALL
    for (int part = 0; part < 2; ++part) {
      V32 m1 = hn::Zero(du), m2 = m1, xh = m1, xl = m1, yh = m1, yl = m1, ph = m1, pl = m1;
      VQE_UNROLL_ALL
      for (int k = 0; k <= half; ++k) {
        const V16 xa = load(rr[k] + j);
        const V16 xb = k < half ? load(rr[fw - 1 - k] + j) : hn::Zero(d16);
        const V16 ix = part == 0 ? hn::InterleaveLower(d16, xa, xb)
                                 : hn::InterleaveUpper(d16, xa, xb);
        m1 = hn::Add(m1, madd(ix, cc[k]));
        KeepInRegister(m1);
        if constexpr (kX) {
          const V32 sx = madd(ix, ix);
          xh = hn::Add(xh, hn::Mul(c32[k], hn::ShiftRight<16>(sx)));
          xl = hn::Add(xl, hn::Mul(c32[k], hn::And(sx, lo_mask)));
          KeepInRegister(xh);
          KeepInRegister(xl);
        }
        if constexpr (kY) {
          const V16 ya = load(dr[k] + j);
          const V16 yb = k < half ? load(dr[fw - 1 - k] + j) : hn::Zero(d16);
          const V16 iy = part == 0 ? hn::InterleaveLower(d16, ya, yb)
                                   : hn::InterleaveUpper(d16, ya, yb);
          m2 = hn::Add(m2, madd(iy, cc[k]));
          const V32 sy = madd(iy, iy);
          const V32 sp = hn::Add(madd(ix, iy), pxy_offset);
          yh = hn::Add(yh, hn::Mul(c32[k], hn::ShiftRight<16>(sy)));
          yl = hn::Add(yl, hn::Mul(c32[k], hn::And(sy, lo_mask)));
          ph = hn::Add(ph, hn::Mul(c32[k], hn::ShiftRight<16>(sp)));
          pl = hn::Add(pl, hn::Mul(c32[k], hn::And(sp, lo_mask)));
          KeepInRegister(m2);
          KeepInRegister(yh);
          KeepInRegister(yl);
          KeepInRegister(ph);
          KeepInRegister(pl);
        }
      }
      const V32 a1 = hn::Xor(m1, sign);  // sum c*x
      const V32 a2 = hn::Xor(m2, sign);
      res[part][0] = hn::ShiftRight<16>(hn::Add(a1, round16));
      res[part][1] = hn::ShiftRight<16>(hn::Add(a2, round16));
      res[part][2] = hn::Add(hn::Sub(hn::Add(a1, xh), two30),
                             hn::ShiftRight<16>(hn::Add(xl, round16)));
      res[part][3] = hn::Add(hn::Sub(hn::Add(a2, yh), two30),
                             hn::ShiftRight<16>(hn::Add(yl, round16)));
      // floor((a1 + a2) / 2) and (a1 + a2) & 1 without a 33-bit sum.
      const V32 half_sum = hn::Add(hn::Add(hn::ShiftRight<1>(a1), hn::ShiftRight<1>(a2)),
                                   hn::And(hn::And(a1, a2), one));
      const V32 odd = hn::And(hn::Xor(a1, a2), one);
      const V32 low = hn::Add(hn::Add(pl, round16), hn::ShiftLeft<15>(odd));
      res[part][4] = hn::Add(hn::Sub(hn::Add(ph, half_sum), xy_const), hn::ShiftRight<16>(low));
    }
    if constexpr (kX) store(res[0][0], res[1][0], out[0] + j);
    if constexpr (kY) store(res[0][1], res[1][1], out[1] + j);
    for (int m = kX ? 0 : 1; m < (kY ? 3 : 1); ++m) {
      store(hn::ShiftRight<16>(res[0][2 + m]), hn::ShiftRight<16>(res[1][2 + m]),
            out[2 + 2 * m] + j);
      store(hn::And(res[0][2 + m], lo_mask), hn::And(res[1][2 + m], lo_mask),
            out[3 + 2 * m] + j);
    }
  }
  return j;
}

// Vertical statistic pass of one row: means and split second moments into
// ws.vrow (see Workspace), each stored as the int16 pattern of value - 2^15,
// for pixels [j0, w). `rr`/`dr`: the fw source rows of this output row.
template <int scale, typename T>
HWY_INLINE void VerticalStatRow(const T* const* rr, const T* const* dr, int j0, int w,
                                int bit_depth, Workspace& ws) {
  const DU32 d;
  const int n = static_cast<int>(hn::Lanes(d));
  const int fw = kFilterWidth[scale];
  const int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale];
  int shift_mu = 16, shift_sq = 16;
  std::uint32_t round_mu = 32768, round_sq = 32768;
  if (scale == 0) {
    shift_mu = bit_depth;
    round_mu = 1u << (bit_depth - 1);
    shift_sq = 2 * (bit_depth - 8);
    round_sq = shift_sq == 0 ? 0 : 1u << (shift_sq - 1);
  }
  constexpr bool kNarrow = sizeof(T) == 1;  // products of 8-bit samples fit 32 bits
  const VU32 lo_mask = hn::Set(d, 0xFFFF);
  std::uint16_t* const* out = ws.vrow.data();
  int j = j0;
  for (; j + n <= w; j += n) {
    VU32 m1 = hn::Zero(d), m2 = m1, xh = m1, xl = m1, yh = m1, yl = m1, ph = m1, pl = m1;
    VQE_UNROLL_ALL
    for (int k = 0; k <= half; ++k) {
      const VU32 c = hn::Set(d, filt[k]);
      const VU32 xa = LoadWide(rr[k] + j);
      const VU32 ya = LoadWide(dr[k] + j);
      VU32 xs, ys;
      VU32 sx, sy, sp;  // narrow: full squares; wide: split below
      if (k < half) {
        const VU32 xb = LoadWide(rr[fw - 1 - k] + j);
        const VU32 yb = LoadWide(dr[fw - 1 - k] + j);
        xs = hn::Add(xa, xb);
        ys = hn::Add(ya, yb);
        if constexpr (kNarrow) {
          sx = hn::Add(hn::Mul(xa, xa), hn::Mul(xb, xb));
          sy = hn::Add(hn::Mul(ya, ya), hn::Mul(yb, yb));
          sp = hn::Add(hn::Mul(xa, ya), hn::Mul(xb, yb));
          xl = hn::Add(xl, hn::Mul(c, sx));
          yl = hn::Add(yl, hn::Mul(c, sy));
          pl = hn::Add(pl, hn::Mul(c, sp));
        } else {
          const VU32 qxa = hn::Mul(xa, xa), qxb = hn::Mul(xb, xb);
          const VU32 qya = hn::Mul(ya, ya), qyb = hn::Mul(yb, yb);
          const VU32 qpa = hn::Mul(xa, ya), qpb = hn::Mul(xb, yb);
          xh = hn::Add(xh, hn::Mul(c, hn::Add(hn::ShiftRight<16>(qxa), hn::ShiftRight<16>(qxb))));
          xl = hn::Add(xl, hn::Mul(c, hn::Add(hn::And(qxa, lo_mask), hn::And(qxb, lo_mask))));
          yh = hn::Add(yh, hn::Mul(c, hn::Add(hn::ShiftRight<16>(qya), hn::ShiftRight<16>(qyb))));
          yl = hn::Add(yl, hn::Mul(c, hn::Add(hn::And(qya, lo_mask), hn::And(qyb, lo_mask))));
          ph = hn::Add(ph, hn::Mul(c, hn::Add(hn::ShiftRight<16>(qpa), hn::ShiftRight<16>(qpb))));
          pl = hn::Add(pl, hn::Mul(c, hn::Add(hn::And(qpa, lo_mask), hn::And(qpb, lo_mask))));
        }
      } else {
        xs = xa;
        ys = ya;
        const VU32 qx = hn::Mul(xa, xa), qy = hn::Mul(ya, ya), qp = hn::Mul(xa, ya);
        if constexpr (kNarrow) {
          xl = hn::Add(xl, hn::Mul(c, qx));
          yl = hn::Add(yl, hn::Mul(c, qy));
          pl = hn::Add(pl, hn::Mul(c, qp));
        } else {
          xh = hn::Add(xh, hn::Mul(c, hn::ShiftRight<16>(qx)));
          xl = hn::Add(xl, hn::Mul(c, hn::And(qx, lo_mask)));
          yh = hn::Add(yh, hn::Mul(c, hn::ShiftRight<16>(qy)));
          yl = hn::Add(yl, hn::Mul(c, hn::And(qy, lo_mask)));
          ph = hn::Add(ph, hn::Mul(c, hn::ShiftRight<16>(qp)));
          pl = hn::Add(pl, hn::Mul(c, hn::And(qp, lo_mask)));
        }
      }
      m1 = hn::Add(m1, hn::Mul(c, xs));
      m2 = hn::Add(m2, hn::Mul(c, ys));
    }
    const VU32 rmu = hn::Set(d, round_mu);
    StoreBiased(hn::ShiftRightSame(hn::Add(m1, rmu), shift_mu), out[0] + j);
    StoreBiased(hn::ShiftRightSame(hn::Add(m2, rmu), shift_mu), out[1] + j);
    VU32 vx, vy, vp;
    if constexpr (kNarrow) {
      // shift_sq = 0 at 8 bits: the sums are the moments.
      vx = xl;
      vy = yl;
      vp = pl;
    } else {
      const VU32 rsq = hn::Set(d, round_sq);
      const int up = 16 - shift_sq;
      vx = hn::Add(hn::ShiftLeftSame(xh, up), hn::ShiftRightSame(hn::Add(xl, rsq), shift_sq));
      vy = hn::Add(hn::ShiftLeftSame(yh, up), hn::ShiftRightSame(hn::Add(yl, rsq), shift_sq));
      vp = hn::Add(hn::ShiftLeftSame(ph, up), hn::ShiftRightSame(hn::Add(pl, rsq), shift_sq));
    }
    StoreBiased(hn::ShiftRight<16>(vx), out[2] + j);
    StoreBiased(hn::And(vx, lo_mask), out[3] + j);
    StoreBiased(hn::ShiftRight<16>(vy), out[4] + j);
    StoreBiased(hn::And(vy, lo_mask), out[5] + j);
    StoreBiased(hn::ShiftRight<16>(vp), out[6] + j);
    StoreBiased(hn::And(vp, lo_mask), out[7] + j);
  }
  // Row tail: the reference's arithmetic per column.
  const std::uint64_t round_sq64 = round_sq;
  for (; j < w; ++j) {
    std::uint32_t acc_mu1 = 0, acc_mu2 = 0;
    std::uint64_t acc_xx = 0, acc_yy = 0, acc_xy = 0;
    for (int fi = 0; fi < fw; ++fi) {
      const std::uint32_t c = filt[fi];
      const std::uint32_t x = rr[fi][j];
      const std::uint32_t y = dr[fi][j];
      const std::uint32_t cx = c * x;
      const std::uint32_t cy = c * y;
      acc_mu1 += cx;
      acc_mu2 += cy;
      acc_xx += std::uint64_t{cx} * x;
      acc_yy += std::uint64_t{cy} * y;
      acc_xy += std::uint64_t{cx} * y;
    }
    out[0][j] = static_cast<std::uint16_t>(((acc_mu1 + round_mu) >> shift_mu) ^ 0x8000u);
    out[1][j] = static_cast<std::uint16_t>(((acc_mu2 + round_mu) >> shift_mu) ^ 0x8000u);
    const auto vx = static_cast<std::uint32_t>((acc_xx + round_sq64) >> shift_sq);
    const auto vy = static_cast<std::uint32_t>((acc_yy + round_sq64) >> shift_sq);
    const auto vp = static_cast<std::uint32_t>((acc_xy + round_sq64) >> shift_sq);
    out[2][j] = static_cast<std::uint16_t>((vx >> 16) ^ 0x8000u);
    out[3][j] = static_cast<std::uint16_t>((vx & 0xFFFF) ^ 0x8000u);
    out[4][j] = static_cast<std::uint16_t>((vy >> 16) ^ 0x8000u);
    out[5][j] = static_cast<std::uint16_t>((vy & 0xFFFF) ^ 0x8000u);
    out[6][j] = static_cast<std::uint16_t>((vp >> 16) ^ 0x8000u);
    out[7][j] = static_cast<std::uint16_t>((vp & 0xFFFF) ^ 0x8000u);
  }
  for (int k = 0; k < 8; ++k) detail::pad_reflect(out[k], w, half);
}

// Per-pixel sigmas from the eight filtered sums of a vector of pixels
// (unsigned sums: mu1, mu2, then hi/lo halves of xx, yy, xy).
HWY_INLINE void StoreSigmas(const VU32* acc, Workspace& ws, int pos) {
  const DU32 d;
  const DI32 di;
  const VU32 round16 = hn::Set(d, 32768);
  const VU32 xx = hn::Add(acc[2], hn::ShiftRight<16>(hn::Add(acc[3], round16)));
  const VU32 yy = hn::Add(acc[4], hn::ShiftRight<16>(hn::Add(acc[5], round16)));
  const VU32 xy = hn::Add(acc[6], hn::ShiftRight<16>(hn::Add(acc[7], round16)));
  const VU32 mu1_sq = MulHiRound(acc[0], acc[0]);
  const VU32 mu2_sq = MulHiRound(acc[1], acc[1]);
  const VU32 mu1_mu2 = MulHiRound(acc[0], acc[1]);
  hn::StoreU(hn::BitCast(di, hn::Sub(xx, mu1_sq)), di, ws.sigma1 + pos);
  hn::StoreU(hn::Max(hn::BitCast(di, hn::Sub(yy, mu2_sq)), hn::Zero(di)), di, ws.sigma2 + pos);
  hn::StoreU(hn::BitCast(di, hn::Sub(xy, mu1_mu2)), di, ws.sigma12 + pos);
}

// Part::ref: sigma1_sq of a vector of pixels from the reference's filtered
// sums (mu1, and the hi/lo halves of xx), as StoreSigmas computes it.
HWY_INLINE hn::Vec<DI32> RefSigma1(VU32 mu1, VU32 xx_hi, VU32 xx_lo) {
  const VU32 xx = hn::Add(xx_hi, hn::ShiftRight<16>(hn::Add(xx_lo, hn::Set(DU32(), 32768))));
  return hn::BitCast(DI32(), hn::Sub(xx, MulHiRound(mu1, mu1)));
}

// Part::pair: sigma2_sq (clamped) and sigma12 of a vector of pixels, as
// StoreSigmas computes them, with the reference's filtered mean `mu1` from
// the reference part (acc as in StoreSigmas; channels 0, 2 and 3 unused).
HWY_INLINE void StorePairSigmas(VU32 mu1, const VU32* acc, Workspace& ws, int pos) {
  const DU32 d;
  const DI32 di;
  const VU32 round16 = hn::Set(d, 32768);
  const VU32 yy = hn::Add(acc[4], hn::ShiftRight<16>(hn::Add(acc[5], round16)));
  const VU32 xy = hn::Add(acc[6], hn::ShiftRight<16>(hn::Add(acc[7], round16)));
  const VU32 mu2_sq = MulHiRound(acc[1], acc[1]);
  const VU32 mu1_mu2 = MulHiRound(mu1, acc[1]);
  hn::StoreU(hn::Max(hn::BitCast(di, hn::Sub(yy, mu2_sq)), hn::Zero(di)), di, ws.sigma2 + pos);
  hn::StoreU(hn::BitCast(di, hn::Sub(xy, mu1_mu2)), di, ws.sigma12 + pos);
}

// Scalar horizontal pass for pixels [j0, w) (the reference's arithmetic on
// the unbiased values). Part::ref writes the reference part's row `rr`
// (mu1 and sigma1_sq); Part::pair takes them from it (copying sigma1_sq to
// ws.sigma1) and writes sigma2_sq and sigma12.
template <detail::Part kPart = detail::Part::all>
HWY_INLINE void HorizontalStatTail(int j0, int w, int scale, Workspace& ws,
                                   const detail::RowRef& rr = {}) {
  const int fw = kFilterWidth[scale];
  const int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale];
  const std::uint16_t* const* in = ws.vrow.data();
  for (int j = j0; j < w; ++j) {
    std::uint32_t acc_mu1 = 0, acc_mu2 = 0;
    std::uint64_t acc_xx = 0, acc_yy = 0, acc_xy = 0;
    for (int fj = 0; fj < fw; ++fj) {
      const std::uint32_t c = filt[fj];
      const int k = j - half + fj;
      const auto val = [&](int ch) { return std::uint32_t{in[ch][k]} ^ 0x8000u; };
      acc_mu1 += c * val(0);
      acc_mu2 += c * val(1);
      acc_xx += std::uint64_t{c} * ((val(2) << 16) | val(3));
      acc_yy += std::uint64_t{c} * ((val(4) << 16) | val(5));
      acc_xy += std::uint64_t{c} * ((val(6) << 16) | val(7));
    }
    if constexpr (kPart == detail::Part::pair) {
      acc_mu1 = rr.mu1[j];
      ws.sigma1[j] = rr.sigma1[j];
    }
    const auto mu1_sq =
        static_cast<std::uint32_t>((std::uint64_t{acc_mu1} * acc_mu1 + 2147483648u) >> 32);
    const auto mu2_sq =
        static_cast<std::uint32_t>((std::uint64_t{acc_mu2} * acc_mu2 + 2147483648u) >> 32);
    const auto mu1_mu2 =
        static_cast<std::uint32_t>((std::uint64_t{acc_mu1} * acc_mu2 + 2147483648u) >> 32);
    const auto xx_filt = static_cast<std::uint32_t>((acc_xx + 32768) >> 16);
    const auto yy_filt = static_cast<std::uint32_t>((acc_yy + 32768) >> 16);
    const auto xy_filt = static_cast<std::uint32_t>((acc_xy + 32768) >> 16);
    if constexpr (kPart == detail::Part::ref) {
      rr.mu1[j] = acc_mu1;
      rr.sigma1[j] = static_cast<std::int32_t>(xx_filt - mu1_sq);
      continue;
    }
    if constexpr (kPart == detail::Part::all) ws.sigma1[j] = static_cast<std::int32_t>(xx_filt - mu1_sq);
    ws.sigma2[j] = std::max(static_cast<std::int32_t>(yy_filt - mu2_sq), 0);
    ws.sigma12[j] = static_cast<std::int32_t>(xy_filt - mu1_mu2);
  }
}

// Horizontal statistic pass, any scale: filters the biased rows in uint32
// lanes and writes sigma1_sq, sigma2_sq (clamped) and sigma12 for pixels
// [0, w) in order. Whole vectors may run past w into the row slack; those
// lanes are never read. Part::ref and Part::pair (see HorizontalStatTail)
// run whole vectors only and finish the row with HorizontalStatTail, so
// that the reference part's rows are never read or written past w.
template <int scale, detail::Part kPart = detail::Part::all>
HWY_INLINE void HorizontalStatRowWide(int w, Workspace& ws, const detail::RowRef& rr = {}) {
  const DU32 d;
  const int n = static_cast<int>(hn::Lanes(d));
  const int fw = kFilterWidth[scale];
  const int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale];
  const std::uint16_t* const* in = ws.vrow.data();
  const VU32 bias = hn::Set(d, 0x8000u);
  const DI32 di;
  int j = 0;
  for (; kPart == detail::Part::all ? j < w : j + n <= w; j += n) {
    VU32 acc[8];
    for (int ch = 0; ch < 8; ++ch) acc[ch] = hn::Zero(d);
    for (int k = 0; k <= half; ++k) {
      const VU32 c = hn::Set(d, filt[k]);
      const int a = j - half + k;
      const int b = j + half - k;
      for (int ch = 0; ch < 8; ++ch) {
        VU32 v = hn::Xor(LoadWide(in[ch] + a), bias);
        if (k < half) v = hn::Add(v, hn::Xor(LoadWide(in[ch] + b), bias));
        acc[ch] = hn::Add(acc[ch], hn::Mul(c, v));
      }
    }
    if constexpr (kPart == detail::Part::all) {
      StoreSigmas(acc, ws, j);
    } else if constexpr (kPart == detail::Part::ref) {
      hn::StoreU(acc[0], d, rr.mu1 + j);
      hn::StoreU(RefSigma1(acc[0], acc[2], acc[3]), di, rr.sigma1 + j);
    } else {
      StorePairSigmas(hn::LoadU(d, rr.mu1 + j), acc, ws, j);
      hn::StoreU(hn::LoadU(di, rr.sigma1 + j), di, ws.sigma1 + j);
    }
  }
  if constexpr (kPart != detail::Part::all) HorizontalStatTail<kPart>(j, w, scale, ws, rr);
}

// Calls f(std::integral_constant<int, p>) for p = 0..count-1.
template <int count, class F>
HWY_INLINE void ForEachPair(F&& f) {
  [&]<int... p>(std::integer_sequence<int, p...>) {
    (f(std::integral_constant<int, p>{}), ...);
  }(std::make_integer_sequence<int, count>{});
}

#if HWY_TARGET == HWY_AVX3
// The int16 lanes 2p .. 2p+2N-1 of the concatenation lo:hi (hi above).
template <int p, class V>
HWY_INLINE V ShiftPairs(const std::pair<V, V>& lo_hi) {
  if constexpr (p == 0) return lo_hi.first;
  return V{_mm512_alignr_epi32(lo_hi.second.raw, lo_hi.first.raw, p)};
}
#endif

// Horizontal statistic pass for filters whose coefficients fit int16
// (scales 0-2), with 16x16->32-bit multiply-add of neighbouring taps on the
// biased rows: sum c*(v - 2^15) = sum c*v - 2^31 (mod 2^32), since the
// coefficients sum to 2^16. Each block of 2N pixels is written as its N
// even pixels then its N odd pixels (the statistic only sums over pixels);
// returns the number of pixels done, a multiple of 2N; the caller finishes
// the row. Part::ref filters only the reference's channels and writes the
// reference part's row `rr` in pixel order (even and odd pixels
// interleaved back); Part::pair filters the others and reads `rr` likewise
// (its sigma1_sq copied to ws.sigma1 in the block order of ws.sigma2).
template <int scale, detail::Part kPart = detail::Part::all>
HWY_INLINE int HorizontalStatRowPairs(int w, Workspace& ws, const detail::RowRef& rr = {}) {
  const DI32 d32;
  const DU32 du;
  const hn::Repartition<std::int16_t, DI32> d16;
  const int n = static_cast<int>(hn::Lanes(d32));
  constexpr int fw = kFilterWidth[scale];
  constexpr int half = fw / 2;
  constexpr int pairs = (fw + 1) / 2;
  const std::uint16_t* filt = kFilters[scale];
  hn::Vec<decltype(d16)> coef[9];
  for (int p = 0; p < pairs; ++p) {
    const std::uint32_t c0 = filt[2 * p];
    const std::uint32_t c1 = 2 * p + 1 < fw ? filt[2 * p + 1] : 0;
    coef[p] = hn::BitCast(d16, hn::Set(du, detail::opaque(c0 | (c1 << 16))));
  }
  const VU32 unbias = hn::Set(du, 0x80000000u);
  const int done = w / (2 * n) * (2 * n);
  // One channel at a time over the row (a short loop that keeps its
  // accumulators and coefficients in registers), into ws.hsum.
  for (int ch = 0; ch < 8; ++ch) {
    // The reference's channels: mu1 (0) and xx (2, 3).
    const bool ref_channel = ch == 0 || ch == 2 || ch == 3;
    if (kPart == detail::Part::ref && !ref_channel) continue;
    if (kPart == detail::Part::pair && ref_channel) continue;
    const std::int16_t* row =
        reinterpret_cast<const std::int16_t*>(ws.vrow[static_cast<std::size_t>(ch)]) - half;
    std::uint32_t* HWY_RESTRICT dst = ws.hsum + ch * ws.hsum_stride;
    for (int j = 0; j < done; j += 2 * n) {
      const std::int16_t* base = row + j;
      auto se = hn::Zero(d32), so = hn::Zero(d32), unused_e = hn::Zero(d32),
           unused_o = hn::Zero(d32);
#if HWY_TARGET == HWY_AVX3
      // AVX-512: the 18 windows from 4 loads by lane-crossing shifts of
      // 32-bit units (valignd); unaligned 64-byte loads nearly all cross a
      // cache line, and this is faster (measured on Zen 5).
      const auto ev = std::make_pair(hn::LoadU(d16, base), hn::LoadU(d16, base + 2 * n));
      const auto ov = std::make_pair(hn::LoadU(d16, base + 1), hn::LoadU(d16, base + 1 + 2 * n));
      ForEachPair<pairs>([&](auto pc) {
        constexpr int p = decltype(pc)::value;
        se = hn::ReorderWidenMulAccumulate(d32, ShiftPairs<p>(ev), coef[p], se, unused_e);
        so = hn::ReorderWidenMulAccumulate(d32, ShiftPairs<p>(ov), coef[p], so, unused_o);
        KeepInRegister(se);
        KeepInRegister(so);
      });
#else
      VQE_UNROLL_ALL
      for (int p = 0; p < pairs; ++p) {
        se = hn::ReorderWidenMulAccumulate(d32, hn::LoadU(d16, base + 2 * p), coef[p], se,
                                           unused_e);
        so = hn::ReorderWidenMulAccumulate(d32, hn::LoadU(d16, base + 2 * p + 1), coef[p], so,
                                           unused_o);
        KeepInRegister(se);
        KeepInRegister(so);
      }
#endif
      hn::StoreU(hn::Xor(hn::BitCast(du, hn::RearrangeToOddPlusEven(se, unused_e)), unbias), du,
                 dst + j);
      hn::StoreU(hn::Xor(hn::BitCast(du, hn::RearrangeToOddPlusEven(so, unused_o)), unbias), du,
                 dst + j + n);
    }
  }
  if constexpr (kPart == detail::Part::all) {
    for (int j = 0; j < done; j += n) {
      VU32 acc[8];
      for (int ch = 0; ch < 8; ++ch) acc[ch] = hn::LoadU(du, ws.hsum + ch * ws.hsum_stride + j);
      StoreSigmas(acc, ws, j);
    }
  } else if constexpr (kPart == detail::Part::ref) {
    const auto at = [&](int ch, int j) { return hn::LoadU(du, ws.hsum + ch * ws.hsum_stride + j); };
    for (int j = 0; j < done; j += 2 * n) {
      const VU32 mu_e = at(0, j), mu_o = at(0, j + n);
      hn::StoreInterleaved2(mu_e, mu_o, du, rr.mu1 + j);
      hn::StoreInterleaved2(RefSigma1(mu_e, at(2, j), at(3, j)),
                            RefSigma1(mu_o, at(2, j + n), at(3, j + n)), d32, rr.sigma1 + j);
    }
  } else {
    for (int j = 0; j < done; j += 2 * n) {
      VU32 mu[2];
      hn::Vec<DI32> s1[2];
      hn::LoadInterleaved2(du, rr.mu1 + j, mu[0], mu[1]);
      hn::LoadInterleaved2(d32, rr.sigma1 + j, s1[0], s1[1]);
      for (int half_block = 0; half_block < 2; ++half_block) {
        const int pos = j + half_block * n;
        VU32 acc[8];
        acc[0] = acc[2] = acc[3] = hn::Zero(du);  // the reference's: unused
        for (int ch : {1, 4, 5, 6, 7}) acc[ch] = hn::LoadU(du, ws.hsum + ch * ws.hsum_stride + pos);
        StorePairSigmas(mu[half_block], acc, ws, pos);
        hn::StoreU(s1[half_block], d32, ws.sigma1 + pos);
      }
    }
  }
  return done;
}

template <int scale, detail::Part kPart = detail::Part::all>
HWY_INLINE void HorizontalStatRow(int w, Workspace& ws, const detail::RowRef& rr = {}) {
  if constexpr (kFilters[scale][kFilterWidth[scale] / 2] <= 32767) {
    const int done = HorizontalStatRowPairs<scale, kPart>(w, ws, rr);
    HorizontalStatTail<kPart>(done, w, scale, ws, rr);
  } else {
    HorizontalStatRowWide<scale, kPart>(w, ws, rr);
  }
}

// One scale's statistic over rows [row_begin, row_end): all of it, or the
// reference part (writing `rows`; dis is not read) or the pair part
// (reading `rows`). The generic vertical pass (row tails, scale 3) computes
// every channel; the reference part gives it the reference as both inputs.
template <int scale, detail::Part kPart, typename T>
ScaleSums StatisticScale(const T* ref, std::ptrdiff_t ref_stride, const T* dis,
                         std::ptrdiff_t dis_stride, int w, int h, int bit_depth,
                         double gain_limit, Workspace* ws, int row_begin, int row_end,
                         const RefRows* rows) {
  constexpr int fw = kFilterWidth[scale];
  constexpr int half = fw / 2;
  const T* rr[fw];
  const T* dr[fw];
  ScaleSums sums;
  for (int i = row_begin; i < row_end; ++i) {
    for (int fi = 0; fi < fw; ++fi) {
      const int y = i - half + fi;
      const std::ptrdiff_t r = (y >= 0 && y < h) ? y : reflect101(y, h);
      rr[fi] = ref + r * ref_stride;
      dr[fi] = kPart == detail::Part::ref ? rr[fi] : dis + r * dis_stride;
    }
    int j0 = 0;
    if constexpr (scale == 0) {
      if (bit_depth <= 12) j0 = VerticalStatRowPairs<scale, T, kPart>(rr, dr, w, bit_depth, *ws);
    }
    if constexpr (sizeof(T) == 2 && scale <= 2) {
      if (scale > 0 || bit_depth == 16) j0 = VerticalStatRowPairs16<scale, kPart>(rr, dr, w, *ws);
    }
    VerticalStatRow<scale>(rr, dr, j0, w, bit_depth, *ws);
    if constexpr (kPart == detail::Part::all) {
      HorizontalStatRow<scale>(w, *ws);
      RowTerms(ws->sigma1, ws->sigma2, ws->sigma12, w, gain_limit, *ws, sums);
    } else {
      const detail::RowRef row{rows->mu1 + i * rows->stride, rows->sigma1 + i * rows->stride};
      HorizontalStatRow<scale, kPart>(w, *ws, row);
      if constexpr (kPart == detail::Part::ref)
        RowTerms<true, false>(row.sigma1, nullptr, nullptr, w, gain_limit, *ws, sums);
      else
        RowTerms<false, true>(ws->sigma1, ws->sigma2, ws->sigma12, w, gain_limit, *ws, sums);
    }
  }
  return sums;
}

template <detail::Part kPart = detail::Part::all, typename T>
ScaleSums StatisticImpl(const T* ref, std::ptrdiff_t ref_stride, const T* dis,
                        std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                        double gain_limit, Workspace* ws, int row_begin, int row_end,
                        const RefRows* rows = nullptr) {
  switch (scale) {
    case 0:
      return StatisticScale<0, kPart>(ref, ref_stride, dis, dis_stride, w, h, bit_depth,
                                      gain_limit, ws, row_begin, row_end, rows);
    case 1:
      return StatisticScale<1, kPart>(ref, ref_stride, dis, dis_stride, w, h, bit_depth,
                                      gain_limit, ws, row_begin, row_end, rows);
    case 2:
      return StatisticScale<2, kPart>(ref, ref_stride, dis, dis_stride, w, h, bit_depth,
                                      gain_limit, ws, row_begin, row_end, rows);
    default:
      return StatisticScale<3, kPart>(ref, ref_stride, dis, dis_stride, w, h, bit_depth,
                                      gain_limit, ws, row_begin, row_end, rows);
  }
}

ScaleSums Statistic8(const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                     std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                     double gain_limit, Workspace* ws, int row_begin, int row_end) {
  return StatisticImpl(ref, ref_stride, dis, dis_stride, w, h, scale, bit_depth, gain_limit, ws,
                       row_begin, row_end);
}

ScaleSums Statistic16(const std::uint16_t* ref, std::ptrdiff_t ref_stride,
                      const std::uint16_t* dis, std::ptrdiff_t dis_stride, int w, int h,
                      int scale, int bit_depth, double gain_limit, Workspace* ws, int row_begin,
                      int row_end) {
  return StatisticImpl(ref, ref_stride, dis, dis_stride, w, h, scale, bit_depth, gain_limit, ws,
                       row_begin, row_end);
}

// Blur with scale+1's filter, keep even rows and columns. The filter length
// is a template argument so that the tap loops unroll.
template <int scale, typename T>
void SubsampleScale(const T* ref, std::ptrdiff_t ref_stride, const T* dis,
                    std::ptrdiff_t dis_stride, int w, int h, int bit_depth, Workspace* ws,
                    std::uint16_t* out_ref_img, std::uint16_t* out_dis_img, int out_begin,
                    int out_end) {
  const DU32 d;
  const int n = static_cast<int>(hn::Lanes(d));
  constexpr int fw = kFilterWidth[scale + 1];
  constexpr int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale + 1];
  int shift = 16;
  std::uint32_t round = 32768;
  if (scale == 0) {
    shift = bit_depth;
    round = 1u << (bit_depth - 1);
  }
  const int ow = w / 2;
  std::uint32_t* conv_ref = ws->conv_ref;
  std::uint32_t* conv_dis = ws->conv_dis;
  const T* rr[17];
  const T* dr[17];
  const VU32 vround = hn::Set(d, round);
  const VU32 round16 = hn::Set(d, 32768);
  for (int oi = out_begin; oi < out_end; ++oi) {
    const int i = 2 * oi;
    // A side without output is not read: it filters the other side's rows
    // into its scratch row (never stored).
    for (int fi = 0; fi < fw; ++fi) {
      const int y = i - half + fi;
      const std::ptrdiff_t r = (y >= 0 && y < h) ? y : reflect101(y, h);
      rr[fi] = out_ref_img ? ref + r * ref_stride : dis + r * dis_stride;
      dr[fi] = out_dis_img ? dis + r * dis_stride : rr[fi];
    }
    int j = 0;
    for (; j + n <= w; j += n) {
      VU32 ar = hn::Zero(d), ad = ar;
      VQE_UNROLL_ALL
      for (int k = 0; k <= half; ++k) {
        const VU32 c = hn::Set(d, filt[k]);
        VU32 xr = LoadWide(rr[k] + j);
        VU32 xd = LoadWide(dr[k] + j);
        if (k < half) {
          xr = hn::Add(xr, LoadWide(rr[fw - 1 - k] + j));
          xd = hn::Add(xd, LoadWide(dr[fw - 1 - k] + j));
        }
        ar = hn::Add(ar, hn::Mul(c, xr));
        ad = hn::Add(ad, hn::Mul(c, xd));
      }
      hn::StoreU(hn::ShiftRightSame(hn::Add(ar, vround), shift), d, conv_ref + j);
      hn::StoreU(hn::ShiftRightSame(hn::Add(ad, vround), shift), d, conv_dis + j);
    }
    for (; j < w; ++j) {
      std::uint32_t acc_ref = 0, acc_dis = 0;
      for (int fi = 0; fi < fw; ++fi) {
        const std::uint32_t c = filt[fi];
        acc_ref += c * std::uint32_t{rr[fi][j]};
        acc_dis += c * std::uint32_t{dr[fi][j]};
      }
      conv_ref[j] = static_cast<std::uint16_t>((acc_ref + round) >> shift);
      conv_dis[j] = static_cast<std::uint16_t>((acc_dis + round) >> shift);
    }
    detail::pad_reflect(conv_ref, w, half);
    detail::pad_reflect(conv_dis, w, half);

    // Scratch outputs for a skipped side: ws->sub_ref / sub_dis hold at least
    // w + slack samples, more than ow.
    std::uint16_t* out_ref = out_ref_img ? out_ref_img + static_cast<std::ptrdiff_t>(oi) * ow
                                         : ws->sub_ref;
    std::uint16_t* out_dis = out_dis_img ? out_dis_img + static_cast<std::ptrdiff_t>(oi) * ow
                                         : ws->sub_dis;
    int oj = 0;
    for (; oj + n <= ow; oj += n) {
      VU32 ar = hn::Zero(d), ad = ar;
      VQE_UNROLL_ALL
      for (int k = 0; k <= half; ++k) {
        const VU32 c = hn::Set(d, filt[k]);
        const int a = 2 * oj - half + k;
        const int b = 2 * oj + half - k;
        VU32 xr = hn::ConcatEven(d, hn::LoadU(d, conv_ref + a + n), hn::LoadU(d, conv_ref + a));
        VU32 xd = hn::ConcatEven(d, hn::LoadU(d, conv_dis + a + n), hn::LoadU(d, conv_dis + a));
        if (k < half) {
          xr = hn::Add(xr, hn::ConcatEven(d, hn::LoadU(d, conv_ref + b + n),
                                          hn::LoadU(d, conv_ref + b)));
          xd = hn::Add(xd, hn::ConcatEven(d, hn::LoadU(d, conv_dis + b + n),
                                          hn::LoadU(d, conv_dis + b)));
        }
        ar = hn::Add(ar, hn::Mul(c, xr));
        ad = hn::Add(ad, hn::Mul(c, xd));
      }
      StoreNarrow(hn::ShiftRight<16>(hn::Add(ar, round16)), out_ref + oj);
      StoreNarrow(hn::ShiftRight<16>(hn::Add(ad, round16)), out_dis + oj);
    }
    for (; oj < ow; ++oj) {
      const int jj = 2 * oj;
      std::uint32_t acc_ref = 0, acc_dis = 0;
      for (int fj = 0; fj < fw; ++fj) {
        const std::uint32_t c = filt[fj];
        acc_ref += c * conv_ref[jj - half + fj];
        acc_dis += c * conv_dis[jj - half + fj];
      }
      out_ref[oj] = static_cast<std::uint16_t>((acc_ref + 32768) >> 16);
      out_dis[oj] = static_cast<std::uint16_t>((acc_dis + 32768) >> 16);
    }
  }
}

// Subsampling with 16x16->32-bit multiply-adds, for next-scale filters
// whose coefficients fit int16 (scales 0 and 1: 9 and 5 taps). Vertical
// pass (only the kept rows): rows k and fw-1-k interleaved as int16 pairs,
// so one multiply-add gives c*(xa + xb); samples below 2^15 (8 to 12 bits)
// enter as they are, 16-bit samples biased by -2^15 (each pair then gives
// c*(xa + xb) - 2^16 c, and the pairs' bias, -2^15 times the coefficient
// sum 2^16, is 2^31 modulo 2^32; the exact sum is below 2^32). The lanes of
// a block of 2N pixels come out in the interleave's order and are put back
// in pixel order by the pairing demotion (as in VerticalStatRowPairs). The
// blurred row is kept as int16 (v - 2^15); the horizontal pass reads the
// taps of output o at 2o - half + 2p, 2o - half + 2p + 1 as one 32-bit lane
// and multiplies-adds with the coefficient pair (c[2p], c[2p+1]) (the last
// pair's second coefficient 0); the bias again sums to 2^31.
template <int scale, typename T>
void SubsamplePairs(const T* ref, std::ptrdiff_t ref_stride, const T* dis,
                    std::ptrdiff_t dis_stride, int w, int h, int bit_depth, Workspace* ws,
                    std::uint16_t* out_ref_img, std::uint16_t* out_dis_img, int out_begin,
                    int out_end) {
  constexpr int fw = kFilterWidth[scale + 1];
  constexpr int half = fw / 2;
  constexpr int pairs = (fw + 1) / 2;
  const std::uint16_t* filt = kFilters[scale + 1];
  static_assert(kFilters[scale + 1][half] <= 32767, "coefficients must fit int16");
  const DI32 d32;
  const DU32 du;
  const hn::Repartition<std::int16_t, DI32> d16;
  const hn::RebindToUnsigned<decltype(d16)> du16;
  const hn::Rebind<std::uint8_t, decltype(d16)> d8;
  using V16 = hn::Vec<decltype(d16)>;
  const int n = static_cast<int>(hn::Lanes(d32));
  const int n16 = 2 * n;
  // Samples of 16 bits are biased into int16 (scale 1, or 16-bit video).
  const bool biased = sizeof(T) == 2 && (scale > 0 || bit_depth == 16);
  const int shift = scale == 0 ? bit_depth : 16;
  const std::uint32_t round = 1u << (shift - 1);
  const auto load = [&](const T* p) -> V16 {
    if constexpr (sizeof(T) == 1) {
      return hn::BitCast(d16, hn::PromoteTo(du16, hn::LoadU(d8, p)));
    } else {
      const auto v = hn::LoadU(du16, reinterpret_cast<const std::uint16_t*>(p));
      return hn::BitCast(d16, biased ? hn::Xor(v, hn::Set(du16, 0x8000)) : v);
    }
  };
  V16 cc[half + 1];
  for (int k = 0; k <= half; ++k) {
    const std::uint32_t c = filt[k];
    cc[k] = hn::BitCast(d16, hn::Set(du, detail::opaque(c | (c << 16))));
  }
  V16 hc[pairs];
  for (int p = 0; p < pairs; ++p) {
    const std::uint32_t c0 = filt[2 * p];
    const std::uint32_t c1 = 2 * p + 1 < fw ? filt[2 * p + 1] : 0;
    hc[p] = hn::BitCast(d16, hn::Set(du, detail::opaque(c0 | (c1 << 16))));
  }
  const VU32 unbias = hn::Set(du, biased ? 0x80000000u : 0u);
  const VU32 vround = hn::Set(du, round);
  const VU32 round16 = hn::Set(du, 32768);
  const VU32 hunbias = hn::Set(du, 0x80000000u);
  const hn::Vec<DI32> bias32 = hn::Set(d32, 32768);
  const int ow = w / 2;
  std::uint16_t* conv[2] = {ws->sub_ref, ws->sub_dis};
  const T* rows[2][fw];
  for (int oi = out_begin; oi < out_end; ++oi) {
    const int i = 2 * oi;
    for (int fi = 0; fi < fw; ++fi) {
      const int y = i - half + fi;
      const std::ptrdiff_t r = (y >= 0 && y < h) ? y : reflect101(y, h);
      if (out_ref_img) rows[0][fi] = ref + r * ref_stride;
      if (out_dis_img) rows[1][fi] = dis + r * dis_stride;
    }
    for (int side = 0; side < 2; ++side) {
      if (!(side == 0 ? out_ref_img : out_dis_img)) continue;  // side skipped
      const T* const* rr = rows[side];
      std::uint16_t* cv = conv[side];
      int j = 0;
      for (; j + n16 <= w; j += n16) {
        VU32 res[2];
        VQE_UNROLL_ALL
        for (int part = 0; part < 2; ++part) {
          auto acc = hn::Zero(d32);
          VQE_UNROLL_ALL
          for (int k = 0; k <= half; ++k) {
            const V16 xa = load(rr[k] + j);
            const V16 xb = k < half ? load(rr[fw - 1 - k] + j) : hn::Zero(d16);
            const V16 ix = part == 0 ? hn::InterleaveLower(d16, xa, xb)
                                     : hn::InterleaveUpper(d16, xa, xb);
            acc = hn::Add(acc, PairSums(d32, ix, cc[k]));
          }
          const VU32 sum = hn::Xor(hn::BitCast(du, acc), unbias);
          res[part] = hn::ShiftRightSame(hn::Add(sum, vround), shift);
        }
        hn::StoreU(hn::ReorderDemote2To(d16, hn::Sub(hn::BitCast(d32, res[0]), bias32),
                                        hn::Sub(hn::BitCast(d32, res[1]), bias32)),
                   d16, reinterpret_cast<std::int16_t*>(cv + j));
      }
      for (; j < w; ++j) {
        std::uint32_t acc = 0;
        for (int fi = 0; fi < fw; ++fi) acc += std::uint32_t{filt[fi]} * std::uint32_t{rr[fi][j]};
        cv[j] = static_cast<std::uint16_t>(((acc + round) >> shift) ^ 0x8000u);
      }
      detail::pad_reflect(cv, w, half);

      std::uint16_t* out = (side == 0 ? out_ref_img : out_dis_img) +
                           static_cast<std::ptrdiff_t>(oi) * ow;
      const std::int16_t* base = reinterpret_cast<const std::int16_t*>(cv) - half;
      int oj = 0;
      for (; oj + n <= ow; oj += n) {
        auto acc = hn::Zero(d32);
        VQE_UNROLL_ALL
        for (int p = 0; p < pairs; ++p)
          acc = hn::Add(acc, PairSums(d32, hn::LoadU(d16, base + 2 * oj + 2 * p), hc[p]));
        const VU32 sum = hn::Xor(hn::BitCast(du, acc), hunbias);
        StoreNarrow(hn::ShiftRight<16>(hn::Add(sum, round16)), out + oj);
      }
      for (; oj < ow; ++oj) {
        std::uint32_t acc = 0;
        for (int fj = 0; fj < fw; ++fj)
          acc += std::uint32_t{filt[fj]} * (std::uint32_t{cv[2 * oj - half + fj]} ^ 0x8000u);
        out[oj] = static_cast<std::uint16_t>((acc + 32768) >> 16);
      }
    }
  }
}

template <typename T>
void SubsampleImpl(const T* ref, std::ptrdiff_t ref_stride, const T* dis,
                   std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                   Workspace* ws, std::uint16_t* out_ref, std::uint16_t* out_dis, int out_begin,
                   int out_end) {
  switch (scale) {
    case 0:
      return SubsamplePairs<0>(ref, ref_stride, dis, dis_stride, w, h, bit_depth, ws, out_ref,
                               out_dis, out_begin, out_end);
    case 1:
      return SubsamplePairs<1>(ref, ref_stride, dis, dis_stride, w, h, bit_depth, ws, out_ref,
                               out_dis, out_begin, out_end);
    default:
      return SubsampleScale<2>(ref, ref_stride, dis, dis_stride, w, h, bit_depth, ws, out_ref,
                               out_dis, out_begin, out_end);
  }
}

void Subsample8(const std::uint8_t* ref, std::ptrdiff_t ref_stride, const std::uint8_t* dis,
                std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth, Workspace* ws,
                std::uint16_t* out_ref, std::uint16_t* out_dis, int out_begin, int out_end) {
  SubsampleImpl(ref, ref_stride, dis, dis_stride, w, h, scale, bit_depth, ws, out_ref, out_dis,
                out_begin, out_end);
}

void Subsample16(const std::uint16_t* ref, std::ptrdiff_t ref_stride, const std::uint16_t* dis,
                 std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                 Workspace* ws, std::uint16_t* out_ref, std::uint16_t* out_dis, int out_begin,
                 int out_end) {
  SubsampleImpl(ref, ref_stride, dis, dis_stride, w, h, scale, bit_depth, ws, out_ref, out_dis,
                out_begin, out_end);
}

// The split statistic's table entries (VifDsp::ref_statistic and
// pair_statistic) for this target.
ScaleSums RefStatisticRows(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                           const RefRows& out) {
  const int end = in.row_end < 0 ? in.height : in.row_end;
  if (in.eight_bit)
    return StatisticImpl<detail::Part::ref>(
        static_cast<const std::uint8_t*>(in.ref), in.ref_stride,
        static_cast<const std::uint8_t*>(nullptr), 0, in.width, in.height, scale, bit_depth, 1.0,
        &ws, in.row_begin, end, &out);
  return StatisticImpl<detail::Part::ref>(
      static_cast<const std::uint16_t*>(in.ref), in.ref_stride,
      static_cast<const std::uint16_t*>(nullptr), 0, in.width, in.height, scale, bit_depth, 1.0,
      &ws, in.row_begin, end, &out);
}

ScaleSums PairStatisticRows(const KernelInput& in, int scale, int bit_depth, double gain_limit,
                            Workspace& ws, const RefRows& ref) {
  const int end = in.row_end < 0 ? in.height : in.row_end;
  if (in.eight_bit)
    return StatisticImpl<detail::Part::pair>(
        static_cast<const std::uint8_t*>(in.ref), in.ref_stride,
        static_cast<const std::uint8_t*>(in.dis), in.dis_stride, in.width, in.height, scale,
        bit_depth, gain_limit, &ws, in.row_begin, end, &ref);
  return StatisticImpl<detail::Part::pair>(
      static_cast<const std::uint16_t*>(in.ref), in.ref_stride,
      static_cast<const std::uint16_t*>(in.dis), in.dis_stride, in.width, in.height, scale,
      bit_depth, gain_limit, &ws, in.row_begin, end, &ref);
}

#endif  // HWY_TARGET

// The table entries (VifDsp): one scale's statistic and subsampling on a
// KernelInput, for this target.
ScaleSums StatisticRows(const KernelInput& in, int scale, int bit_depth, double gain_limit,
                        Workspace& ws) {
  const int end = in.row_end < 0 ? in.height : in.row_end;
  if (in.eight_bit)
    return Statistic8(static_cast<const std::uint8_t*>(in.ref), in.ref_stride,
                      static_cast<const std::uint8_t*>(in.dis), in.dis_stride, in.width,
                      in.height, scale, bit_depth, gain_limit, &ws, in.row_begin, end);
  return Statistic16(static_cast<const std::uint16_t*>(in.ref), in.ref_stride,
                     static_cast<const std::uint16_t*>(in.dis), in.dis_stride, in.width,
                     in.height, scale, bit_depth, gain_limit, &ws, in.row_begin, end);
}

void SubsampleRows(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                   std::uint16_t* out_ref, std::uint16_t* out_dis) {
  const int end = in.row_end < 0 ? in.height / 2 : in.row_end;
  if (in.eight_bit)
    Subsample8(static_cast<const std::uint8_t*>(in.ref), in.ref_stride,
               static_cast<const std::uint8_t*>(in.dis), in.dis_stride, in.width, in.height,
               scale, bit_depth, &ws, out_ref, out_dis, in.row_begin, end);
  else
    Subsample16(static_cast<const std::uint16_t*>(in.ref), in.ref_stride,
                static_cast<const std::uint16_t*>(in.dis), in.dis_stride, in.width, in.height,
                scale, bit_depth, &ws, out_ref, out_dis, in.row_begin, end);
}

}  // namespace vqe::vif::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vqe::vif {

const VifDsp& vif_dsp(simd::Level level) {
  static const simd::LevelTables<VifDsp> tables([](simd::Level l) {
    VifDsp d{statistic_scalar, subsample_scalar, ref_statistic_scalar, pair_statistic_scalar};
    if (l != simd::Level::scalar) {
      d.statistic = VQE_SIMD_PICK(l, StatisticRows);
      d.subsample = VQE_SIMD_PICK(l, SubsampleRows);
      d.ref_statistic = VQE_SIMD_PICK(l, RefStatisticRows);
      d.pair_statistic = VQE_SIMD_PICK(l, PairStatisticRows);
    }
    return d;
  });
  return tables[level];
}

}  // namespace vqe::vif
#endif  // HWY_ONCE
