// SPDX-License-Identifier: BSD-2-Clause
// Exact sums Σx and Σx² of one luma plane for float_moment: the scalar
// reference and a Highway SIMD version. Both are exact integer sums, so they
// agree bit for bit. The SIMD version keeps 32-bit lanes: Σx directly, and
// the squares (< 2^32) split into their low and high 16 bits, none of which
// can overflow within 65536 vectors; totals are formed in 64 bits.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/float_moment/float_moment_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstdint>

#include "core/simd.h"
#include "core/simd_sum-inl.h"
#include "features/float_moment/float_moment_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace vqe::moment::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using simd::HWY_NAMESPACE::WideningSumOfLanes;

template <typename T>
PlaneSums PlaneSumsT(const T* data, std::ptrdiff_t stride, int width, int height) {
  const hn::ScalableTag<std::uint32_t> du;
  const hn::Rebind<T, decltype(du)> dt;
  const int n = static_cast<int>(hn::Lanes(du));
  const int chunk = 65536 * n;
  const auto low16 = hn::Set(du, 0xFFFFu);
  std::uint64_t total = 0, total_sq = 0;
  for (int y = 0; y < height; ++y) {
    const T* row = data + y * stride;
    std::uint64_t s = 0, sq = 0;
    int x = 0;
    while (x + n <= width) {
      const int end = width - x > chunk ? x + chunk : width;
      auto vs = hn::Zero(du);
      auto lo = hn::Zero(du);
      auto hi = hn::Zero(du);
      for (; x + n <= end; x += n) {
        const auto v = hn::PromoteTo(du, hn::LoadU(dt, row + x));
        const auto v2 = hn::Mul(v, v);
        vs = hn::Add(vs, v);
        lo = hn::Add(lo, hn::And(v2, low16));
        if (sizeof(T) > 1) hi = hn::Add(hi, hn::ShiftRight<16>(v2));
      }
      s += WideningSumOfLanes(du, vs);
      sq += WideningSumOfLanes(du, lo) + (WideningSumOfLanes(du, hi) << 16);
    }
    for (; x < width; ++x) {
      const std::uint64_t v = row[x];
      s += v;
      sq += v * v;
    }
    total += s;
    total_sq += sq;
  }
  return {total, total_sq};
}

PlaneSums PlaneSums8(const std::uint8_t* data, std::ptrdiff_t stride, int width, int height) {
  return PlaneSumsT(data, stride, width, height);
}
PlaneSums PlaneSums16(const std::uint16_t* data, std::ptrdiff_t stride, int width, int height) {
  return PlaneSumsT(data, stride, width, height);
}

}  // namespace vqe::moment::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vqe::moment {
namespace {

template <typename T>
PlaneSums sums_reference(const T* data, std::ptrdiff_t stride, int width, int height) {
  PlaneSums s;
  for (int y = 0; y < height; ++y) {
    const T* row = data + y * stride;
    // Per-row partials: a row of 32768 16-bit samples sums x² below 2^47.
    std::uint64_t sum = 0, sum_sq = 0;
    for (int x = 0; x < width; ++x) {
      const std::uint64_t v = row[x];
      sum += v;
      sum_sq += v * v;
    }
    s.sum += sum;
    s.sum_sq += sum_sq;
  }
  return s;
}

}  // namespace

PlaneSums plane_sums_scalar(const std::uint8_t* data, std::ptrdiff_t stride, int width,
                            int height) {
  return sums_reference(data, stride, width, height);
}
PlaneSums plane_sums_scalar(const std::uint16_t* data, std::ptrdiff_t stride, int width,
                            int height) {
  return sums_reference(data, stride, width, height);
}

const MomentDsp& moment_dsp(simd::Level level) {
  static const simd::LevelTables<MomentDsp> tables([](simd::Level l) {
    MomentDsp d{plane_sums_scalar, plane_sums_scalar};
    if (l != simd::Level::scalar) {
      d.sums8 = VQE_SIMD_PICK(l, PlaneSums8);
      d.sums16 = VQE_SIMD_PICK(l, PlaneSums16);
    }
    return d;
  });
  return tables[level];
}

}  // namespace vqe::moment
#endif  // HWY_ONCE
