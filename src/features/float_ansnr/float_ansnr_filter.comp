#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_ansnr on Vulkan, pass 1: the reference filtered with the 3x3 and the
// distorted with the 5x5 filter of ansnr_tools.c, in the CPU's float order
// (per kernel row a sum of its taps from 0 left to right, the row sums
// added from 0 top to bottom; `precise` keeps products and sums apart, as
// -ffp-contract=off on the CPU). Samples become float as plane_to_float
// with offset −128 (÷2^(bpc−8) as an exact multiplication by its inverse).
// Border: float_ansnr's mirror (−i before the start, 2n−1−i past the end).
// Grid: x = 256 columns, y = row, z = frame of the run.
// Output: filtered[z][0 = ref, 1 = dist][h][w] floats.
#include "vqe_frames.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Filtered { float filtered[]; };
layout(std430, set = 0, binding = 2) readonly buffer Coeffs { float coeff_ref[9]; float coeff_dis[25]; };

int ansnr_mirror(int i, int n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

float sample_float(uint base, int x, int y) {
  precise float v = float(vqe_sample(base, kPitch0, x, y));
  if (kBpc != 8) v = v * (1.0 / float(1 << (kBpc - 8)));
  return v + -128.0;
}

void main() {
  const int x = int(gl_GlobalInvocationID.x), y = int(gl_WorkGroupID.y);
  const uint z = gl_WorkGroupID.z;
  if (x >= kWidth0) return;
  const uint slot = vqe_ring_slot(z);
  const uint ref = vqe_ref_plane(slot, 0), dist = vqe_dist_plane(slot, 0);
  const uint n = uint(kWidth0) * uint(kHeight0);
  const uint at = uint(y) * uint(kWidth0) + uint(x);

  precise float accum = 0.0;
  for (int fi = 0; fi < 3; ++fi) {
    const int yy = ansnr_mirror(y - 1 + fi, kHeight0);
    precise float inner = 0.0;
    for (int fj = 0; fj < 3; ++fj)
      inner += coeff_ref[fi * 3 + fj] * sample_float(ref, ansnr_mirror(x - 1 + fj, kWidth0), yy);
    accum += inner;
  }
  filtered[z * 2u * n + at] = accum;

  accum = 0.0;
  for (int fi = 0; fi < 5; ++fi) {
    const int yy = ansnr_mirror(y - 2 + fi, kHeight0);
    precise float inner = 0.0;
    for (int fj = 0; fj < 5; ++fj)
      inner += coeff_dis[fi * 5 + fj] * sample_float(dist, ansnr_mirror(x - 2 + fj, kWidth0), yy);
    accum += inner;
  }
  filtered[(z * 2u + 1u) * n + at] = accum;
}
