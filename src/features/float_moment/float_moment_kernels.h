// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The plane sums behind float_moment (libvmaf 3.2.0
/// libvmaf/src/feature/float_moment.c computes the same moments in floats;
/// see float_moment.cpp for why exact integer sums give its values).

#include <cstddef>
#include <cstdint>

#include "vqe/cpu.h"

namespace vqe::moment {

/// Exact sums of one plane: Σx and Σx² of the integer samples.
/// Bounds: x < 2^16 and N <= 2^30 give Σx² < 2^62.
struct PlaneSums {
  std::uint64_t sum = 0;
  std::uint64_t sum_sq = 0;
};

/// The plane-sum kernels of one CPU level (core/simd.h): Σx and Σx² over
/// `width` × `height` samples, stride in SAMPLES; any sample values. Every
/// level returns plane_sums_scalar's result (exact integers).
struct MomentDsp {
  PlaneSums (*sums8)(const std::uint8_t* data, std::ptrdiff_t stride, int width, int height);
  PlaneSums (*sums16)(const std::uint16_t* data, std::ptrdiff_t stride, int width, int height);
};

/// The table of `level` (filled once; valid for the process's lifetime).
const MomentDsp& moment_dsp(simd::Level level);

/// The scalar references (never SIMD).
PlaneSums plane_sums_scalar(const std::uint8_t* data, std::ptrdiff_t stride, int width,
                            int height);
PlaneSums plane_sums_scalar(const std::uint16_t* data, std::ptrdiff_t stride, int width,
                            int height);

}  // namespace vqe::moment
