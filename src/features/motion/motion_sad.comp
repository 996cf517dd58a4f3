#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer motion (libvmaf 3.2.0 definition) on Vulkan: the SAD of the
// blurred difference of the reference luma and the one kStep frames before
// (both resident in the ring), exact. Per row: the vertical 5-tap pass over
// prev − cur (64-bit, rounded to bpc bits), then the horizontal pass (rounded
// to 16 fractional bits), |.|, summed in uint64 (vqe_reduce.glsl). Borders:
// reflect-101 in both directions, as motion_kernels.cpp. A workgroup takes
// rows x, x + kGroups, ... and, per row, 256 columns at a time with the
// vertical results (and the 2 mirrored columns on each side) in shared
// memory. Frames with index < kStep (push arg 0: index of z = 0) have no
// comparison and are skipped.
// Partials: [result slot][kGroups][1][2]. Also the SAD of motion_v2
// (motion_v2_vulkan.cpp, kStep = 1): the same integers.
#include "vqe_frames.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Partials { uint partials[]; };
layout(constant_id = 24) const uint kGroups = 1u;
layout(constant_id = 25) const uint kStep = 1u;

#define VQE_REDUCE_K 1
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

const int kFilter[5] = {3571, 16004, 26386, 16004, 3571};
shared int vertical[260];

int reflect101(int i, int n) {
  if (n <= 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

void main() {
  const uint z = gl_WorkGroupID.z;
  if (pc.arg[0] + z < kStep) return;  // the whole workgroup: no comparison
  const uint slot = vqe_ring_slot(z);
  const uint cur = vqe_ref_plane(slot, 0);
  const uint prev = vqe_ref_plane((slot + kSlots - kStep) % kSlots, 0);
  const int lane = int(gl_LocalInvocationID.x);
  const int64_t v_round = int64_t(1) << (kBpc - 1);
  uint64_t acc[1];
  acc[0] = 0ul;
  for (int y = int(gl_WorkGroupID.x); y < kHeight0; y += int(kGroups)) {
    int rows[5];
    for (int k = 0; k < 5; ++k) rows[k] = reflect101(y - 2 + k, kHeight0);
    for (int x0 = 0; x0 < kWidth0; x0 += 256) {
      for (int i = lane; i < 260; i += 256) {
        const int c = reflect101(x0 - 2 + i, kWidth0);
        int64_t a = 0;
        for (int k = 0; k < 5; ++k) {
          const int d = int(vqe_sample(prev, kPitch0, c, rows[k])) -
                        int(vqe_sample(cur, kPitch0, c, rows[k]));
          a += int64_t(kFilter[k]) * int64_t(d);
        }
        vertical[i] = int((a + v_round) >> kBpc);
      }
      barrier();
      if (x0 + lane < kWidth0) {
        int64_t s = 0;
        for (int k = 0; k < 5; ++k) s += int64_t(kFilter[k]) * int64_t(vertical[lane + k]);
        acc[0] += uint64_t(abs(int((s + 32768) >> 16)));
      }
      barrier();
    }
  }
  vqe_reduce_store(acc, (vqe_result_slot(z) * kGroups + gl_WorkGroupID.x) * 2u);
}
