#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer motion, motion_legacy (libvmaf 3.0/3.1): the reference luma
// blurred on its own, as motion_kernels.cpp's legacy_blur: vertical 5-tap
// pass in uint32 rounded to bpc bits, horizontal pass rounded to 16 bits,
// border mirror −i before the start and 2n−1−i past the end. A workgroup
// takes rows x, x + kGroups, ... and 512 columns at a time; each invocation
// writes two horizontally adjacent results as one word.
// Output: blurred[ring slot][h][(w + 1) / 2] words of two uint16 (the high
// half of a row's last word is 0 for odd widths).
#include "vqe_frames.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Blurred { uint blurred[]; };
layout(constant_id = 24) const uint kGroups = 1u;

const uint kFilter[5] = {3571u, 16004u, 26386u, 16004u, 3571u};
shared uint vertical[516];

int mirror_legacy(int i, int n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

uint horizontal(int i) {
  uint a = 0u;
  for (int k = 0; k < 5; ++k) a += kFilter[k] * vertical[i + k];
  return (a + 32768u) >> 16;
}

void main() {
  const uint z = gl_WorkGroupID.z;
  const uint slot = vqe_ring_slot(z);
  const uint src = vqe_ref_plane(slot, 0);
  const int lane = int(gl_LocalInvocationID.x);
  const uint pitch = uint(kWidth0 + 1) / 2u;
  const uint out_base = slot * pitch * uint(kHeight0);
  const uint v_round = 1u << (kBpc - 1);
  for (int y = int(gl_WorkGroupID.x); y < kHeight0; y += int(kGroups)) {
    int rows[5];
    for (int k = 0; k < 5; ++k) rows[k] = mirror_legacy(y - 2 + k, kHeight0);
    for (int x0 = 0; x0 < kWidth0; x0 += 512) {
      for (int i = lane; i < 516; i += 256) {
        const int c = mirror_legacy(x0 - 2 + i, kWidth0);
        uint a = 0u;
        for (int k = 0; k < 5; ++k) a += kFilter[k] * vqe_sample(src, kPitch0, c, rows[k]);
        vertical[i] = (a + v_round) >> uint(kBpc);
      }
      barrier();
      const int x = x0 + 2 * lane;
      if (x < kWidth0) {
        const uint lo = horizontal(2 * lane);
        const uint hi = x + 1 < kWidth0 ? horizontal(2 * lane + 1) : 0u;
        blurred[out_base + uint(y) * pitch + uint(x >> 1)] = lo | (hi << 16);
      }
      barrier();
    }
  }
}
