#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_motion on Vulkan: per row, the CPU's sequential float sum of
// |a − b| (mean_abs_difference; libvmaf adds each |difference| in double and
// rounds the line sum to float, which equals the float addition: double has
// more than 2·24 + 2 bits, so the double rounding is innocuous). Scale 0
// (grid y = 0) compares the blurred previous and current frames of plane
// `p`; scale 1 (y = 1, motion_add_scale1) their half-size copies, or the
// blurred frames themselves when the plan keeps the size (push arg 4 = 1).
// Push args: 0 index of z = 0, 1 plane, 2 dst_w, 3 dst_h, 4 same size.
// Grid: x = 64 rows, y = scale, z = frame. Output: rows[z][scale][rows_max].
#include "vqe_common.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Blur { float blur[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scaled { float scaled[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Rows { float rows[]; };
layout(constant_id = 24) const uint kRowsMax = 1u;

void main() {
  const uint z = gl_WorkGroupID.z;
  if (pc.arg[0] + z == 0u) return;
  const int p = int(pc.arg[1]);
  const uint scale = gl_WorkGroupID.y;
  const bool half_size = scale == 1u && pc.arg[4] == 0u;
  const uint w = half_size ? pc.arg[2] : uint(vqe_width(p));
  const uint h = half_size ? pc.arg[3] : uint(vqe_height(p));
  const uint y = gl_GlobalInvocationID.x;
  if (y >= h) return;
  precise float line = 0.0;
  if (half_size) {
    const uint a = (z * 2u) * w * h + y * w, b = a + w * h;
    for (uint x = 0u; x < w; ++x) line = line + abs(scaled[a + x] - scaled[b + x]);
  } else {
    const uint slot = vqe_ring_slot(z);
    const uint a = ((slot + kSlots - 1u) % kSlots) * w * h + y * w, b = slot * w * h + y * w;
    for (uint x = 0u; x < w; ++x) line = line + abs(blur[a + x] - blur[b + x]);
  }
  rows[(z * 2u + scale) * kRowsMax + y] = line;
}
