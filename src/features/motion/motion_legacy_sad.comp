#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer motion, motion_legacy: Σ|blur(prev) − blur(cur)| of the blurred
// frames kStep apart (motion_legacy_blur.comp's layout), exact in uint64
// (vqe_reduce.glsl). Frames with index < kStep (push arg 0: index of z = 0)
// are skipped. Partials: [result slot][kGroups][1][2].
#include "vqe_common.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Blurred { uint blurred[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Partials { uint partials[]; };
layout(constant_id = 24) const uint kGroups = 1u;
layout(constant_id = 25) const uint kStep = 1u;

#define VQE_REDUCE_K 1
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

void main() {
  const uint z = gl_WorkGroupID.z;
  if (pc.arg[0] + z < kStep) return;
  const uint slot = vqe_ring_slot(z);
  const uint pitch = uint(kWidth0 + 1) / 2u;
  const uint cur = slot * pitch * uint(kHeight0);
  const uint prev = ((slot + kSlots - kStep) % kSlots) * pitch * uint(kHeight0);
  uint64_t acc[1];
  acc[0] = 0ul;
  for (uint y = gl_WorkGroupID.x; y < uint(kHeight0); y += kGroups)
    for (uint i = gl_LocalInvocationID.x; i < pitch; i += 256u) {
      const uint a = blurred[prev + y * pitch + i], b = blurred[cur + y * pitch + i];
      const int lo = int(a & 0xffffu) - int(b & 0xffffu);
      const int hi = int(a >> 16) - int(b >> 16);
      acc[0] += uint64_t(uint(abs(lo)) + uint(abs(hi)));
    }
  vqe_reduce_store(acc, (vqe_result_slot(z) * kGroups + gl_WorkGroupID.x) * 2u);
}
