#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_motion on Vulkan, motion_add_scale1: the blurred previous (y <
// dst_h) and current (y >= dst_h) frames of plane `p` scaled to half size
// with the host's bilinear plan (float_motion_kernels.cpp bilinear_scale,
// same float operation order). Push args: 0 index of z = 0, 1 plane, 2
// dst_w, 3 dst_h. Frame 0 has no previous frame and is skipped.
// Grid: x = 256 columns, y = 2·dst_h rows, z = frame.
// Output: scaled[z][0 = prev, 1 = cur][dst_h][dst_w].
#include "vqe_common.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Blur { float blur[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Scaled { float scaled[]; };
// x1[dst_w], x2[dst_w], dx[dst_w] (float bits), y1[dst_h], y2[dst_h], dy[dst_h].
layout(std430, set = 0, binding = 2) readonly buffer Plan { uint plan[]; };

void main() {
  const uint z = gl_WorkGroupID.z;
  if (pc.arg[0] + z == 0u) return;
  const int p = int(pc.arg[1]);
  const uint w = uint(vqe_width(p)), h = uint(vqe_height(p));
  const uint dw = pc.arg[2], dh = pc.arg[3];
  const uint x = gl_GlobalInvocationID.x;
  if (x >= dw) return;
  const uint image = gl_WorkGroupID.y / dh, y = gl_WorkGroupID.y % dh;
  const uint slot = vqe_ring_slot(z);
  const uint src_slot = image == 0u ? (slot + kSlots - 1u) % kSlots : slot;
  const uint src = src_slot * w * h;
  const uint x1 = plan[x], x2 = plan[dw + x];
  const float dx = uintBitsToFloat(plan[2u * dw + x]);
  const uint y1 = plan[3u * dw + y], y2 = plan[3u * dw + dh + y];
  const float dy = uintBitsToFloat(plan[3u * dw + 2u * dh + y]);
  const uint r1 = src + y1 * w, r2 = src + y2 * w;
  precise float v = (1.0 - dy) * (1.0 - dx) * blur[r1 + x1];
  v = v + (1.0 - dy) * dx * blur[r1 + x2];
  v = v + dy * (1.0 - dx) * blur[r2 + x1];
  v = v + dy * dx * blur[r2 + x2];
  scaled[(z * 2u + image) * dw * dh + y * dw + x] = v;
}
