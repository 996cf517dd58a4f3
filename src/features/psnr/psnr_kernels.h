// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Sum of squared errors of one plane, the kernel of the "psnr"
/// extractor (libvmaf 3.2.0 libvmaf/src/feature/integer_psnr.c).

#include <cstddef>
#include <cstdint>

namespace vqe::psnr {

/// Σ (a − b)² over a `width` × `height` plane, exact: each square as a
/// 32-bit unsigned value (a 16-bit difference squared fits), row sums and
/// the total in 64 bits. Strides in SAMPLES. Any width, height >= 0; sample
/// values need not be below 2^bpc. Runs the Highway SIMD kernel when
/// simd::use_simd(), else plane_sse_scalar (identical result).
std::uint64_t plane_sse(const std::uint8_t* a, std::ptrdiff_t a_stride, const std::uint8_t* b,
                        std::ptrdiff_t b_stride, int width, int height);
/// 10/12/16-bit samples.
std::uint64_t plane_sse(const std::uint16_t* a, std::ptrdiff_t a_stride, const std::uint16_t* b,
                        std::ptrdiff_t b_stride, int width, int height);

/// The scalar references of plane_sse (never SIMD).
std::uint64_t plane_sse_scalar(const std::uint8_t* a, std::ptrdiff_t a_stride,
                               const std::uint8_t* b, std::ptrdiff_t b_stride, int width,
                               int height);
std::uint64_t plane_sse_scalar(const std::uint16_t* a, std::ptrdiff_t a_stride,
                               const std::uint16_t* b, std::ptrdiff_t b_stride, int width,
                               int height);

}  // namespace vqe::psnr
