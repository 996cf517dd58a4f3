// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Scalar kernels of the integer motion feature ("motion").
///
/// Two definitions live here:
///  - the libvmaf 3.2.0 one (libvmaf/src/feature/integer_motion.c): blur the
///    difference of two luma frames with a separable 5-tap integer filter
///    (reflect-101 borders on every side) and sum the absolute values;
///  - the libvmaf 3.0/3.1 one ("legacy"): blur each frame on its own (the
///    far border mirrors as 2n-1-i, the near one as -i), then take the sum of
///    absolute differences of two blurred frames.
/// Both are exact integer computations; the only rounding is in the final
/// normalisation (done by the caller).

#include <array>
#include <cstddef>
#include <cstdint>

#include "vqe/cpu.h"

namespace vqe::motion {

/// The 5-tap low-pass filter of libvmaf's integer motion (integer_motion.h).
/// The taps sum to 65536 (16 fractional bits).
inline constexpr std::array<std::int32_t, 5> kFilter = {3571, 16004, 26386, 16004, 3571};
inline constexpr int kRadius = 2;

/// Reflect-101 mirror ("dcb|abcd|cba" without repeating the edge sample):
/// -i below 0 and 2(n-1)-i at or above n, repeated until the index is inside
/// [0, n). For n >= 3 and |offset| <= 2 one reflection suffices, which is
/// what libvmaf does; smaller sizes (where libvmaf reads outside the frame)
/// get this defined folding. n == 1 always maps to 0.
int mirror_reflect101(int i, int n);

/// libvmaf 3.0's mixed mirror: -i below 0 (reflect-101) but 2n-1-i at or
/// above n (edge sample repeated), repeated until inside [0, n).
int mirror_legacy(int i, int n);

/// The motion kernels of one CPU level (core/simd.h); every level returns
/// exactly what the scalar references below return.
///
/// sad8/sad16: libvmaf 3.2.0 motion SAD of one frame pair: Σ |blur(prev -
/// cur)| with the vertical pass rounded to (bpc) fractional bits and the
/// horizontal one to 16, exactly as libvmaf's scalar pipeline. Divide by
/// 256·w·h for the score. `prev`, `cur`: luma planes of `width` × `height`
/// samples (uint8_t for 8-bit, uint16_t for 10/12/16-bit), strides in
/// SAMPLES. `bpc`: 8, 10, 12 or 16. `row`: scratch of at least width + 4
/// int32. Any width, height >= 1.
///
/// legacy_blur8/16: libvmaf 3.0/3.1 blur of one luma frame into 16-bit
/// samples: vertical pass (round to `bpc` fractional bits; 8 for 8-bit
/// input), then horizontal pass (round to 16), both with mirror_legacy
/// borders. `src`: `width` × `height` samples, stride in samples. `dst`:
/// width × height uint16_t, stride `dst_stride` samples. `row`: scratch of at
/// least width + 4 uint16_t. Any width, height >= 1.
///
/// legacy_sad: Σ |a - b| over two width × height uint16 planes, per-row
/// partial sums in 32 bits as libvmaf 3.0's sad_c.
struct MotionDsp {
  std::uint64_t (*sad8)(const std::uint8_t* prev, std::ptrdiff_t prev_stride,
                        const std::uint8_t* cur, std::ptrdiff_t cur_stride, int width, int height,
                        int bpc, std::int32_t* row);
  std::uint64_t (*sad16)(const std::uint16_t* prev, std::ptrdiff_t prev_stride,
                         const std::uint16_t* cur, std::ptrdiff_t cur_stride, int width,
                         int height, int bpc, std::int32_t* row);
  void (*legacy_blur8)(const std::uint8_t* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                       std::ptrdiff_t dst_stride, int width, int height, int bpc,
                       std::uint16_t* row);
  void (*legacy_blur16)(const std::uint16_t* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                        std::ptrdiff_t dst_stride, int width, int height, int bpc,
                        std::uint16_t* row);
  std::uint64_t (*legacy_sad)(const std::uint16_t* a, const std::uint16_t* b,
                              std::ptrdiff_t stride, int width, int height);
};

/// The table of `level` (filled once; valid for the process's lifetime).
const MotionDsp& motion_dsp(simd::Level level);

/// The scalar reference kernels (MotionDsp's entries at Level::scalar).
template <typename T>
std::uint64_t frame_difference_sad_scalar(const T* prev, std::ptrdiff_t prev_stride, const T* cur,
                                          std::ptrdiff_t cur_stride, int width, int height,
                                          int bpc, std::int32_t* row);
template <typename T>
void legacy_blur_scalar(const T* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                        std::ptrdiff_t dst_stride, int width, int height, int bpc,
                        std::uint16_t* row);
std::uint64_t legacy_sad_scalar(const std::uint16_t* a, const std::uint16_t* b,
                                std::ptrdiff_t stride, int width, int height);

}  // namespace vqe::motion
