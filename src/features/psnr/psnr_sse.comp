#version 460
// SPDX-License-Identifier: BSD-2-Clause
// psnr on Vulkan: Σ(ref − dist)² of each plane, exact (uint64 per
// invocation, vqe_reduce.glsl's fixed-order workgroup sum, lo/hi pairs out).
// Grid: x = workgroup (rows x, x + kGroups, ...), y = plane, z = frame.
// Partials: [result slot][plane 0..2][kGroups][1][2].
#include "vqe_frames.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Partials { uint partials[]; };
layout(constant_id = 24) const uint kGroups = 1u;

#define VQE_REDUCE_K 1
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

void main() {
  const uint z = gl_WorkGroupID.z;
  const int p = int(gl_WorkGroupID.y);
  const uint slot = vqe_ring_slot(z);
  const uint ref = vqe_ref_plane(slot, p), dist = vqe_dist_plane(slot, p), pitch = vqe_pitch(p);
  const int w = vqe_width(p), h = vqe_height(p);
  uint64_t acc[1];
  acc[0] = 0ul;
  for (int y = int(gl_WorkGroupID.x); y < h; y += int(kGroups))
    for (int x = int(gl_LocalInvocationID.x); x < w; x += 256) {
      const int e = int(vqe_sample(ref, pitch, x, y)) - int(vqe_sample(dist, pitch, x, y));
      const uint a = uint(abs(e));
      acc[0] += uint64_t(a * a);  // < 2^32 at 16 bits
    }
  vqe_reduce_store(acc, ((vqe_result_slot(z) * 3u + uint(p)) * kGroups + gl_WorkGroupID.x) * 2u);
}
