// SPDX-License-Identifier: BSD-2-Clause
// The psnr SSE kernel: scalar reference and Highway SIMD version. Both are
// exact integer sums, so they agree bit for bit. The 16-bit SIMD version
// squares 32-bit differences (a 16-bit difference squared fits unsigned 32
// bits) and accumulates the low and high 16 bits of each square separately
// in 32-bit lanes, which cannot overflow within 65536 vectors; the total is
// hi·2^16 + lo in 64 bits. The 8-bit version uses a widening multiply-add.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/psnr/psnr_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstdint>

#include "core/simd.h"
#include "core/simd_sum-inl.h"
#include "features/psnr/psnr_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace vqe::psnr::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using simd::HWY_NAMESPACE::WideningSumOfLanes;

template <typename T>
std::uint64_t PlaneSseT(const T* a, std::ptrdiff_t a_stride, const T* b, std::ptrdiff_t b_stride,
                        int width, int height) {
  const hn::ScalableTag<std::int32_t> di;
  const hn::RebindToUnsigned<decltype(di)> du;
  const hn::Rebind<T, decltype(di)> dt;
  const int n = static_cast<int>(hn::Lanes(di));
  const int chunk = 65536 * n;  // samples per lane-sum flush
  const auto low16 = hn::Set(du, 0xFFFFu);
  std::uint64_t sse = 0;
  for (int y = 0; y < height; ++y) {
    const T* ra = a + y * a_stride;
    const T* rb = b + y * b_stride;
    std::uint64_t row = 0;
    int x = 0;
    while (x + n <= width) {
      const int end = width - x > chunk ? x + chunk : width;
      auto lo = hn::Zero(du);
      auto hi = hn::Zero(du);
      for (; x + n <= end; x += n) {
        const auto e = hn::Sub(hn::PromoteTo(di, hn::LoadU(dt, ra + x)),
                               hn::PromoteTo(di, hn::LoadU(dt, rb + x)));
        const auto sq = hn::BitCast(du, hn::Mul(e, e));
        lo = hn::Add(lo, hn::And(sq, low16));
        hi = hn::Add(hi, hn::ShiftRight<16>(sq));
      }
      row += WideningSumOfLanes(du, lo) + (WideningSumOfLanes(du, hi) << 16);
    }
    for (; x < width; ++x) {
      const std::int64_t e = static_cast<std::int64_t>(ra[x]) - static_cast<std::int64_t>(rb[x]);
      row += static_cast<std::uint64_t>(e * e);
    }
    sse += row;
  }
  return sse;
}

// 8-bit: differences fit int16, so pairs of squares are summed by one
// widening multiply-add (pmaddwd) into int32 lanes; each adds at most
// 2·255², so 16384 vectors cannot overflow a lane.
std::uint64_t PlaneSse8(const std::uint8_t* a, std::ptrdiff_t a_stride, const std::uint8_t* b,
                        std::ptrdiff_t b_stride, int width, int height) {
  const hn::ScalableTag<std::int16_t> d16;
  const hn::Rebind<std::uint8_t, decltype(d16)> d8;
  const hn::Repartition<std::int32_t, decltype(d16)> d32;
  const hn::RebindToUnsigned<decltype(d32)> du32;
  const int n = static_cast<int>(hn::Lanes(d16));
  const int chunk = 16384 * n;
  std::uint64_t sse = 0;
  for (int y = 0; y < height; ++y) {
    const std::uint8_t* ra = a + y * a_stride;
    const std::uint8_t* rb = b + y * b_stride;
    std::uint64_t row = 0;
    int x = 0;
    while (x + n <= width) {
      const int end = width - x > chunk ? x + chunk : width;
      auto sum0 = hn::Zero(d32);
      auto sum1 = hn::Zero(d32);
      for (; x + n <= end; x += n) {
        const auto e = hn::Sub(hn::PromoteTo(d16, hn::LoadU(d8, ra + x)),
                               hn::PromoteTo(d16, hn::LoadU(d8, rb + x)));
        sum0 = hn::ReorderWidenMulAccumulate(d32, e, e, sum0, sum1);
      }
      row += WideningSumOfLanes(du32, hn::BitCast(du32, sum0)) +
             WideningSumOfLanes(du32, hn::BitCast(du32, sum1));
    }
    for (; x < width; ++x) {
      const std::int64_t e = static_cast<std::int64_t>(ra[x]) - static_cast<std::int64_t>(rb[x]);
      row += static_cast<std::uint64_t>(e * e);
    }
    sse += row;
  }
  return sse;
}

std::uint64_t PlaneSse16(const std::uint16_t* a, std::ptrdiff_t a_stride, const std::uint16_t* b,
                         std::ptrdiff_t b_stride, int width, int height) {
  return PlaneSseT(a, a_stride, b, b_stride, width, height);
}

}  // namespace vqe::psnr::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vqe::psnr {
namespace {

// libvmaf integer_psnr.c's loop: squares in 32 bits, row sums in 64.
template <typename T>
std::uint64_t sse_reference(const T* a, std::ptrdiff_t a_stride, const T* b,
                            std::ptrdiff_t b_stride, int width, int height) {
  std::uint64_t sse = 0;
  for (int y = 0; y < height; ++y) {
    const T* r = a + y * a_stride;
    const T* d = b + y * b_stride;
    std::uint64_t row = 0;
    for (int x = 0; x < width; ++x) {
      const std::int64_t e = static_cast<std::int64_t>(r[x]) - static_cast<std::int64_t>(d[x]);
      row += static_cast<std::uint32_t>(e * e);
    }
    sse += row;
  }
  return sse;
}

}  // namespace

std::uint64_t plane_sse_scalar(const std::uint8_t* a, std::ptrdiff_t a_stride,
                               const std::uint8_t* b, std::ptrdiff_t b_stride, int width,
                               int height) {
  return sse_reference(a, a_stride, b, b_stride, width, height);
}
std::uint64_t plane_sse_scalar(const std::uint16_t* a, std::ptrdiff_t a_stride,
                               const std::uint16_t* b, std::ptrdiff_t b_stride, int width,
                               int height) {
  return sse_reference(a, a_stride, b, b_stride, width, height);
}

const PsnrDsp& psnr_dsp(simd::Level level) {
  static const simd::LevelTables<PsnrDsp> tables([](simd::Level l) {
    PsnrDsp d{plane_sse_scalar, plane_sse_scalar};
    if (l != simd::Level::scalar) {
      d.sse8 = VQE_SIMD_PICK(l, PlaneSse8);
      d.sse16 = VQE_SIMD_PICK(l, PlaneSse16);
    }
    return d;
  });
  return tables[level];
}

}  // namespace vqe::psnr
#endif  // HWY_ONCE
