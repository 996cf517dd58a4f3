#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_motion on Vulkan: the row sums of each scale added in row order in
// float (one invocation per frame and scale), as the CPU; the host divides
// by width·height in float. Push args as float_motion_rows.comp.
// Output: result[result slot][plane][scale] as float bits.
#include "vqe_common.glsl"

layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer Rows { float rows[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Result { uint result[]; };
layout(constant_id = 24) const uint kRowsMax = 1u;

void main() {
  const uint z = gl_WorkGroupID.z;
  if (pc.arg[0] + z == 0u) return;
  const int p = int(pc.arg[1]);
  const uint scale = gl_WorkGroupID.y;
  const uint h = scale == 1u && pc.arg[4] == 0u ? pc.arg[3] : uint(vqe_height(p));
  precise float acc = 0.0;
  for (uint y = 0u; y < h; ++y) acc += rows[(z * 2u + scale) * kRowsMax + y];
  result[(vqe_result_slot(z) * 3u + uint(p)) * 2u + scale] = floatBitsToUint(acc);
}
