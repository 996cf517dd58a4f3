// SPDX-License-Identifier: BSD-2-Clause
// Highway SIMD versions of the integer motion kernels (motion_kernels.h).
// Each one returns exactly what its scalar reference returns: the arithmetic
// is exact integer arithmetic, vectorised across output samples, and row
// sums wrap modulo 2^32 as the scalar's 32-bit row sums do.
//
// Products that may leave 32 bits (the horizontal pass of
// frame_difference_sad, and its vertical pass at 16 bits) are evaluated
// exactly in 32-bit lanes by splitting each input x = 256·hi + lo with
// lo in [0, 256): Σf·x = 256·A + B with A = Σf·hi, B = Σf·lo, both below
// 2^25 in magnitude, and floor((256·A + B + 2^15) / 2^16) =
// floor((A + floor((B + 2^15) / 2^8)) / 2^8).
//
// The 3.2.0 definition blurs the difference of two frames, so there is no
// per-frame blur to keep; the legacy (3.0) mode blurs each frame once and
// the extractor keeps the last blurred frames in a ring (motion.cpp).

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/motion/motion_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstdint>
#include <cstdlib>

#include "core/simd.h"
#include "core/simd_sum-inl.h"
#include "features/motion/motion_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace vqe::motion::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Σ f·x for the 5-tap filter with 32-bit x whose products may overflow,
// rounded as (acc + 2^15) >> 16 (see the file comment). The filter is
// symmetric (f0 = f4, f1 = f3), so mirrored taps are added first: the
// split parts of a sum of two samples are the sums of their parts, and
// those stay far inside 32 bits (|A| < 2^25, 0 <= B < 2^25).
template <class D, class V = hn::VFromD<D>>
HWY_INLINE V filter_round16_split(D d, V x0, V x1, V x2, V x3, V x4) {
  static_assert(kFilter[0] == kFilter[4] && kFilter[1] == kFilter[3], "symmetric filter");
  const V lo_mask = hn::Set(d, 255);
  const V f0 = hn::Set(d, kFilter[0]);
  const V f1 = hn::Set(d, kFilter[1]);
  const V f2 = hn::Set(d, kFilter[2]);
  const auto hi = [](V x) { return hn::ShiftRight<8>(x); };
  const auto lo = [&](V x) { return hn::And(x, lo_mask); };
  V a = hn::Mul(f0, hn::Add(hi(x0), hi(x4)));
  a = hn::Add(a, hn::Mul(f1, hn::Add(hi(x1), hi(x3))));
  a = hn::Add(a, hn::Mul(f2, hi(x2)));
  V b = hn::Mul(f0, hn::Add(lo(x0), lo(x4)));
  b = hn::Add(b, hn::Mul(f1, hn::Add(lo(x1), lo(x3))));
  b = hn::Add(b, hn::Mul(f2, lo(x2)));
  b = hn::ShiftRight<8>(hn::Add(b, hn::Set(d, 1 << 15)));
  return hn::ShiftRight<8>(hn::Add(a, b));
}

// Scalar form of filter_round16_split for the row tails (same value as the
// scalar reference's 64-bit arithmetic).
HWY_INLINE std::int32_t filter_round16_exact(const std::int32_t* x) {
  std::int64_t acc = 0;
  for (int k = 0; k < 5; ++k) acc += static_cast<std::int64_t>(kFilter[k]) * x[k];
  return static_cast<std::int32_t>((acc + (std::int64_t{1} << 15)) >> 16);
}

template <typename T>
std::uint64_t FrameDifferenceSadT(const T* prev, std::ptrdiff_t prev_stride, const T* cur,
                                  std::ptrdiff_t cur_stride, int width, int height, int bpc,
                                  std::int32_t* row) {
  const hn::ScalableTag<std::int32_t> d;
  const hn::Rebind<T, decltype(d)> dt;
  const hn::ScalableTag<std::uint32_t> du;
  using V = hn::Vec<decltype(d)>;
  const int n = static_cast<int>(hn::Lanes(d));
  const bool split = bpc > 12;  // 16-bit input: vertical products leave 32 bits
  const std::int32_t v_round = std::int32_t{1} << (bpc - 1);
  const V vround = hn::Set(d, v_round);
  std::int32_t* y = row + kRadius;

  std::uint64_t sad = 0;
  for (int i = 0; i < height; ++i) {
    const T* p[5];
    const T* c[5];
    for (int k = 0; k < 5; ++k) {
      const int r = mirror_reflect101(i - kRadius + k, height);
      p[k] = prev + r * prev_stride;
      c[k] = cur + r * cur_stride;
    }

    // Vertical pass over the frame difference.
    V any = hn::Zero(d);
    int j = 0;
    for (; j + n <= width; j += n) {
      V diff[5];
      for (int k = 0; k < 5; ++k)
        diff[k] = hn::Sub(hn::PromoteTo(d, hn::LoadU(dt, p[k] + j)),
                          hn::PromoteTo(d, hn::LoadU(dt, c[k] + j)));
      V out;
      if (split) {
        out = filter_round16_split(d, diff[0], diff[1], diff[2], diff[3], diff[4]);
      } else {
        // Symmetric filter: mirrored differences added first (exact).
        V acc = hn::Mul(hn::Set(d, kFilter[0]), hn::Add(diff[0], diff[4]));
        acc = hn::Add(acc, hn::Mul(hn::Set(d, kFilter[1]), hn::Add(diff[1], diff[3])));
        acc = hn::Add(acc, hn::Mul(hn::Set(d, kFilter[2]), diff[2]));
        out = hn::ShiftRightSame(hn::Add(acc, vround), bpc);
      }
      hn::StoreU(out, d, y + j);
      any = hn::Or(any, out);
    }
    std::int32_t any_nonzero = hn::AllTrue(d, hn::Eq(any, hn::Zero(d))) ? 0 : 1;
    for (; j < width; ++j) {
      std::int32_t diff[5];
      for (int k = 0; k < 5; ++k)
        diff[k] = static_cast<std::int32_t>(p[k][j]) - static_cast<std::int32_t>(c[k][j]);
      if (split) {
        y[j] = filter_round16_exact(diff);
      } else {
        std::int32_t acc = 0;
        for (int k = 0; k < 5; ++k) acc += kFilter[k] * diff[k];
        y[j] = (acc + v_round) >> bpc;
      }
      any_nonzero |= y[j];
    }
    if (!any_nonzero) continue;  // an all-zero row adds nothing

    // Horizontal pass on the padded row, |.|, 32-bit wrapping row sum.
    y[-2] = y[mirror_reflect101(-2, width)];
    y[-1] = y[mirror_reflect101(-1, width)];
    y[width] = y[mirror_reflect101(width, width)];
    y[width + 1] = y[mirror_reflect101(width + 1, width)];
    auto acc_sad = hn::Zero(du);
    j = 0;
    for (; j + n <= width; j += n) {
      const std::int32_t* s = y + j - kRadius;
      const V v = filter_round16_split(d, hn::LoadU(d, s), hn::LoadU(d, s + 1),
                                       hn::LoadU(d, s + 2), hn::LoadU(d, s + 3),
                                       hn::LoadU(d, s + 4));
      acc_sad = hn::Add(acc_sad, hn::BitCast(du, hn::Abs(v)));
    }
    std::uint32_t row_sad = simd::HWY_NAMESPACE::WrappingSumOfLanes(du, acc_sad);
    for (; j < width; ++j)
      row_sad += static_cast<std::uint32_t>(std::abs(filter_round16_exact(y + j - kRadius)));
    sad += row_sad;
  }
  return sad;
}

std::uint64_t FrameDifferenceSad8(const std::uint8_t* prev, std::ptrdiff_t prev_stride,
                                  const std::uint8_t* cur, std::ptrdiff_t cur_stride, int width,
                                  int height, int bpc, std::int32_t* row) {
  return FrameDifferenceSadT(prev, prev_stride, cur, cur_stride, width, height, bpc, row);
}

std::uint64_t FrameDifferenceSad16(const std::uint16_t* prev, std::ptrdiff_t prev_stride,
                                   const std::uint16_t* cur, std::ptrdiff_t cur_stride, int width,
                                   int height, int bpc, std::int32_t* row) {
  return FrameDifferenceSadT(prev, prev_stride, cur, cur_stride, width, height, bpc, row);
}

// legacy_blur: every sum fits unsigned 32 bits (65536 · 65535 + 2^15 < 2^32).
template <typename T>
void LegacyBlurT(const T* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                 std::ptrdiff_t dst_stride, int width, int height, int bpc, std::uint16_t* row) {
  const hn::ScalableTag<std::uint32_t> d;
  const hn::RebindToSigned<decltype(d)> di;
  const hn::Rebind<T, decltype(d)> dt;
  const hn::Rebind<std::uint16_t, decltype(d)> d16;
  using V = hn::Vec<decltype(d)>;
  const int n = static_cast<int>(hn::Lanes(d));
  const std::uint32_t v_round = std::uint32_t{1} << (bpc - 1);
  const std::uint32_t h_round = std::uint32_t{1} << 15;
  const V vround = hn::Set(d, v_round);
  const V hround = hn::Set(d, h_round);
  const V mask16 = hn::Set(d, 0xFFFFu);
  V f[5];
  for (int k = 0; k < 5; ++k) f[k] = hn::Set(d, static_cast<std::uint32_t>(kFilter[k]));
  std::uint16_t* t = row + kRadius;

  for (int i = 0; i < height; ++i) {
    const T* s[5];
    for (int k = 0; k < 5; ++k) s[k] = src + mirror_legacy(i - kRadius + k, height) * src_stride;

    int j = 0;
    for (; j + n <= width; j += n) {
      V acc = hn::Mul(f[0], hn::PromoteTo(d, hn::LoadU(dt, s[0] + j)));
      for (int k = 1; k < 5; ++k)
        acc = hn::Add(acc, hn::Mul(f[k], hn::PromoteTo(d, hn::LoadU(dt, s[k] + j))));
      // Keep the low 16 bits, as the scalar's cast does (exact for valid samples).
      const V out = hn::And(hn::ShiftRightSame(hn::Add(acc, vround), bpc), mask16);
      hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, out)), d16, t + j);
    }
    for (; j < width; ++j) {
      std::uint32_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += static_cast<std::uint32_t>(kFilter[k]) * s[k][j];
      t[j] = static_cast<std::uint16_t>((acc + v_round) >> bpc);
    }

    t[-2] = t[mirror_legacy(-2, width)];
    t[-1] = t[mirror_legacy(-1, width)];
    t[width] = t[mirror_legacy(width, width)];
    t[width + 1] = t[mirror_legacy(width + 1, width)];
    std::uint16_t* out = dst + i * dst_stride;
    j = 0;
    for (; j + n <= width; j += n) {
      const std::uint16_t* r = t + j - kRadius;
      V acc = hn::Mul(f[0], hn::PromoteTo(d, hn::LoadU(d16, r)));
      for (int k = 1; k < 5; ++k)
        acc = hn::Add(acc, hn::Mul(f[k], hn::PromoteTo(d, hn::LoadU(d16, r + k))));
      const V v = hn::ShiftRight<16>(hn::Add(acc, hround));  // < 2^16
      hn::StoreU(hn::DemoteTo(d16, hn::BitCast(di, v)), d16, out + j);
    }
    for (; j < width; ++j) {
      std::uint32_t acc = 0;
      for (int k = 0; k < 5; ++k)
        acc += static_cast<std::uint32_t>(kFilter[k]) * t[j - kRadius + k];
      out[j] = static_cast<std::uint16_t>((acc + h_round) >> 16);
    }
  }
}

void LegacyBlur8(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                 std::ptrdiff_t dst_stride, int width, int height, int bpc, std::uint16_t* row) {
  LegacyBlurT(src, src_stride, dst, dst_stride, width, height, bpc, row);
}

void LegacyBlur16(const std::uint16_t* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                  std::ptrdiff_t dst_stride, int width, int height, int bpc, std::uint16_t* row) {
  LegacyBlurT(src, src_stride, dst, dst_stride, width, height, bpc, row);
}

std::uint64_t LegacySad(const std::uint16_t* a, const std::uint16_t* b, std::ptrdiff_t stride,
                        int width, int height) {
  const hn::ScalableTag<std::uint32_t> d32;
  const hn::Rebind<std::uint16_t, decltype(d32)> d16;
  const int n = static_cast<int>(hn::Lanes(d32));
  std::uint64_t sad = 0;
  for (int i = 0; i < height; ++i) {
    const std::uint16_t* ra = a + i * stride;
    const std::uint16_t* rb = b + i * stride;
    auto acc = hn::Zero(d32);
    int j = 0;
    for (; j + n <= width; j += n) {
      const auto va = hn::LoadU(d16, ra + j);
      const auto vb = hn::LoadU(d16, rb + j);
      acc = hn::Add(acc, hn::PromoteTo(d32, hn::Sub(hn::Max(va, vb), hn::Min(va, vb))));
    }
    std::uint32_t row_sad = simd::HWY_NAMESPACE::WrappingSumOfLanes(d32, acc);
    for (; j < width; ++j)
      row_sad += static_cast<std::uint32_t>(
          std::abs(static_cast<int>(ra[j]) - static_cast<int>(rb[j])));
    sad += row_sad;
  }
  return sad;
}

}  // namespace vqe::motion::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vqe::motion {

const MotionDsp& motion_dsp(simd::Level level) {
  static const simd::LevelTables<MotionDsp> tables([](simd::Level l) {
    MotionDsp d{frame_difference_sad_scalar<std::uint8_t>, frame_difference_sad_scalar<std::uint16_t>,
                legacy_blur_scalar<std::uint8_t>, legacy_blur_scalar<std::uint16_t>,
                legacy_sad_scalar};
    if (l != simd::Level::scalar) {
      d.sad8 = VQE_SIMD_PICK(l, FrameDifferenceSad8);
      d.sad16 = VQE_SIMD_PICK(l, FrameDifferenceSad16);
      d.legacy_blur8 = VQE_SIMD_PICK(l, LegacyBlur8);
      d.legacy_blur16 = VQE_SIMD_PICK(l, LegacyBlur16);
      d.legacy_sad = VQE_SIMD_PICK(l, LegacySad);
    }
    return d;
  });
  return tables[level];
}

}  // namespace vqe::motion
#endif  // HWY_ONCE
