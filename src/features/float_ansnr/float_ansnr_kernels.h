// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The 2-D filter of float_ansnr (libvmaf 3.2.0
/// libvmaf/src/feature/ansnr_tools.c), scalar reference and Highway SIMD
/// kernels per CPU level.

#include "vqe/cpu.h"

namespace vqe::ansnr {

/// libvmaf's mirror for the ANSNR filters: -i below 0, 2n-1-i at or above
/// n, repeated until inside [0, n).
int mirror(int i, int n);

/// The filter kernel of one CPU level (core/simd.h). filter2d filters `src`
/// (`w` × `h` floats, dense) with the `fwidth` × `fwidth` row-major
/// `kernel` (fwidth odd, <= 5) into `dst` (same shape). Per output sample
/// and kernel row, the products k·x are summed in float from 0 in tap
/// order, and the row sums added in float from 0 in row order (libvmaf's
/// order). `cols` holds the mirrored column of every (x, tap): w × fwidth
/// ints, cols[x·fwidth + j] = mirror(x − fwidth/2 + j, w). `inner` and
/// `accum`: w floats of scratch each. Every level (SIMD: vectorised across
/// x, same per-sample operations, no FMA) gives filter2d_scalar's bits.
struct AnsnrDsp {
  void (*filter2d)(const float* kernel, int fwidth, const float* src, float* dst, int w, int h,
                   const int* cols, float* inner, float* accum);
};

/// The table of `level` (filled once; valid for the process's lifetime).
const AnsnrDsp& ansnr_dsp(simd::Level level);

/// The scalar reference of AnsnrDsp::filter2d (any odd fwidth).
void filter2d_scalar(const float* kernel, int fwidth, const float* src, float* dst, int w, int h,
                     const int* cols, float* inner, float* accum);

}  // namespace vqe::ansnr
