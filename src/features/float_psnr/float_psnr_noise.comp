#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_psnr on Vulkan, exact and without floating point: the CPU forms each
// term as a float (diff = ref/s − dist/s, exact; diff² rounded to float) and
// adds the terms in double in raster order. With d = |ref − dist| (integer)
// each term times s² is round24(d²): d² rounded to 24 significant bits, an
// integer below 2^33. Those integers are summed exactly here (uint64 per
// invocation, vqe_reduce.glsl); while the total stays below 2^53 every
// partial sum of the CPU's double loop is exact too, so Σ/s² on the host is
// the CPU's sum bit for bit.
// Grid: x = workgroup (rows x, x + kGroups, ...), z = frame.
// Partials: [result slot][kGroups][1][2].
#include "vqe_frames.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Partials { uint partials[]; };
layout(constant_id = 24) const uint kGroups = 1u;

#define VQE_REDUCE_K 1
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

// v rounded to the nearest float (24 significant bits, ties to even), as an
// integer.
uint64_t round_to_float(uint v) {
  if (v < (1u << 24)) return uint64_t(v);
  const int shift = findMSB(v) - 23;
  const uint half_ulp = 1u << (shift - 1);
  const uint low = v & ((1u << shift) - 1u);
  uint q = v >> shift;
  if (low > half_ulp || (low == half_ulp && (q & 1u) != 0u)) q += 1u;
  return uint64_t(q) << shift;
}

void main() {
  const uint z = gl_WorkGroupID.z;
  const uint slot = vqe_ring_slot(z);
  const uint ref = vqe_ref_plane(slot, 0), dist = vqe_dist_plane(slot, 0);
  uint64_t acc[1];
  acc[0] = 0ul;
  for (int y = int(gl_WorkGroupID.x); y < kHeight0; y += int(kGroups))
    for (int x = int(gl_LocalInvocationID.x); x < kWidth0; x += 256) {
      const uint d = uint(abs(int(vqe_sample(ref, kPitch0, x, y)) - int(vqe_sample(dist, kPitch0, x, y))));
      acc[0] += round_to_float(d * d);
    }
  vqe_reduce_store(acc, (vqe_result_slot(z) * kGroups + gl_WorkGroupID.x) * 2u);
}
