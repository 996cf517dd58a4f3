// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The plane sums behind float_moment (libvmaf 3.2.0
/// libvmaf/src/feature/float_moment.c computes the same moments in floats;
/// see float_moment.cpp for why exact integer sums give its values).

#include <cstddef>
#include <cstdint>

namespace vqe::moment {

/// Exact sums of one plane: Σx and Σx² of the integer samples.
/// Bounds: x < 2^16 and N <= 2^30 give Σx² < 2^62.
struct PlaneSums {
  std::uint64_t sum = 0;
  std::uint64_t sum_sq = 0;
};

/// Σx and Σx² over `width` × `height` samples, stride in SAMPLES; any sample
/// values. Highway SIMD when simd::use_simd(), else plane_sums_scalar
/// (identical: exact integers).
PlaneSums plane_sums(const std::uint8_t* data, std::ptrdiff_t stride, int width, int height);
/// 10/12/16-bit samples.
PlaneSums plane_sums(const std::uint16_t* data, std::ptrdiff_t stride, int width, int height);

/// The scalar references of plane_sums (never SIMD).
PlaneSums plane_sums_scalar(const std::uint8_t* data, std::ptrdiff_t stride, int width,
                            int height);
PlaneSums plane_sums_scalar(const std::uint16_t* data, std::ptrdiff_t stride, int width,
                            int height);

}  // namespace vqe::moment
