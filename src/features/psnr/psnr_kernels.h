// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Sum of squared errors of one plane, the kernel of the "psnr"
/// extractor (libvmaf 3.2.0 libvmaf/src/feature/integer_psnr.c).

#include <cstddef>
#include <cstdint>

#include "vqe/cpu.h"

namespace vqe::psnr {

/// The SSE kernels of one CPU level (core/simd.h). Each computes
/// Σ (a − b)² over a `width` × `height` plane, exactly: each square as a
/// 32-bit unsigned value (a 16-bit difference squared fits), row sums and
/// the total in 64 bits. Strides in SAMPLES. Any width, height >= 0; sample
/// values need not be below 2^bpc. Every level returns plane_sse_scalar's
/// result.
struct PsnrDsp {
  std::uint64_t (*sse8)(const std::uint8_t* a, std::ptrdiff_t a_stride, const std::uint8_t* b,
                        std::ptrdiff_t b_stride, int width, int height);
  std::uint64_t (*sse16)(const std::uint16_t* a, std::ptrdiff_t a_stride,
                         const std::uint16_t* b, std::ptrdiff_t b_stride, int width, int height);
};

/// The table of `level` (filled once; valid for the process's lifetime).
const PsnrDsp& psnr_dsp(simd::Level level);

/// The scalar references (libvmaf integer_psnr.c's loop).
std::uint64_t plane_sse_scalar(const std::uint8_t* a, std::ptrdiff_t a_stride,
                               const std::uint8_t* b, std::ptrdiff_t b_stride, int width,
                               int height);
std::uint64_t plane_sse_scalar(const std::uint16_t* a, std::ptrdiff_t a_stride,
                               const std::uint16_t* b, std::ptrdiff_t b_stride, int width,
                               int height);

}  // namespace vqe::psnr
