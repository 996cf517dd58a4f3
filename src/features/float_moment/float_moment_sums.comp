#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_moment on Vulkan: exact Σx, Σy, Σx², Σy² of both luma planes in the
// shape that also runs on Metal (no 64-bit atomics, no double): each of the
// 256 invocations of a workgroup accumulates its samples in uint64, writes
// them into a workgroup uint64[4][256] scratch, invocation 0 adds them
// serially, and the workgroup's four exact sums leave as lo/hi uint32 pairs
// (vqe_reduce.glsl). The host rebuilds each uint64, adds the workgroups in
// uint64 and divides as the CPU does (moment_score.h).
// Grid: x = workgroup (rows x, x + kGroups, ...), z = frame.
// Partials: [result slot][kGroups][4][2]: Σref, Σdist, Σref², Σdist².
#include "vqe_frames.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Partials { uint partials[]; };
layout(constant_id = 24) const uint kGroups = 1u;

#define VQE_REDUCE_K 4
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

void main() {
  const uint z = gl_WorkGroupID.z;
  const uint slot = vqe_ring_slot(z);
  const uint ref = vqe_ref_plane(slot, 0), dist = vqe_dist_plane(slot, 0);
  uint64_t acc[4];
  for (int k = 0; k < 4; ++k) acc[k] = 0ul;
  for (int y = int(gl_WorkGroupID.x); y < kHeight0; y += int(kGroups))
    for (int x = int(gl_LocalInvocationID.x); x < kWidth0; x += 256) {
      const uint a = vqe_sample(ref, kPitch0, x, y), b = vqe_sample(dist, kPitch0, x, y);
      acc[0] += uint64_t(a);
      acc[1] += uint64_t(b);
      acc[2] += uint64_t(a * a);
      acc[3] += uint64_t(b * b);
    }
  vqe_reduce_store(acc, (vqe_result_slot(z) * kGroups + gl_WorkGroupID.x) * 8u);
}
