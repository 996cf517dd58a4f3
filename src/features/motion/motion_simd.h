// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Highway SIMD entry points of the integer motion kernels. Same
/// contracts and bit-identical results as the scalar kernels of the same
/// name in motion_kernels.h (which dispatch here when simd::use_simd());
/// the target (SSE4/AVX2/AVX-512) follows simd::set_level().

#include <cstddef>
#include <cstdint>

namespace vqe::motion {

/// SIMD frame_difference_sad (see motion_kernels.h): 8-bit samples.
std::uint64_t frame_difference_sad_simd(const std::uint8_t* prev, std::ptrdiff_t prev_stride,
                                        const std::uint8_t* cur, std::ptrdiff_t cur_stride,
                                        int width, int height, int bpc, std::int32_t* row);
/// SIMD frame_difference_sad: 10/12/16-bit samples.
std::uint64_t frame_difference_sad_simd(const std::uint16_t* prev, std::ptrdiff_t prev_stride,
                                        const std::uint16_t* cur, std::ptrdiff_t cur_stride,
                                        int width, int height, int bpc, std::int32_t* row);
/// SIMD legacy_blur: 8-bit samples.
void legacy_blur_simd(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                      std::ptrdiff_t dst_stride, int width, int height, int bpc,
                      std::uint16_t* row);
/// SIMD legacy_blur: 10/12/16-bit samples.
void legacy_blur_simd(const std::uint16_t* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                      std::ptrdiff_t dst_stride, int width, int height, int bpc,
                      std::uint16_t* row);
/// SIMD legacy_sad.
std::uint64_t legacy_sad_simd(const std::uint16_t* a, const std::uint16_t* b,
                              std::ptrdiff_t stride, int width, int height);

}  // namespace vqe::motion
