#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_motion on Vulkan, pass 1: plane `p` (push arg 1) of the reference
// blurred as float_motion_kernels.cpp's convolve(): samples to float as
// plane_to_float with offset −128 (÷2^(bpc−8) as an exact multiplication by
// its inverse), a vertical pass 0 + f[0]·s[0] + f[1]·s[1] + ... and a
// horizontal pass in the same order over the vertical results (`precise`:
// no contraction); reflect-101 borders in both directions. A workgroup
// computes 256 outputs of one row, with the vertical results of its columns
// and their mirrored neighbours in shared memory.
// Grid: x = 256 columns, y = row, z = frame. Output: blur[ring slot][h][w].
#include "vqe_frames.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) writeonly buffer Blur { float blur[]; };
layout(constant_id = 24) const int kTaps = 5;
layout(constant_id = 25) const uint kF0 = 0u;  // filter coefficients as float bits
layout(constant_id = 26) const uint kF1 = 0u;
layout(constant_id = 27) const uint kF2 = 0u;
layout(constant_id = 28) const uint kF3 = 0u;
layout(constant_id = 29) const uint kF4 = 0u;

shared float vertical[260];

float tap(int k) {
  return uintBitsToFloat(k == 0 ? kF0 : k == 1 ? kF1 : k == 2 ? kF2 : k == 3 ? kF3 : kF4);
}

int reflect101(int i, int n) {
  if (n <= 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

void main() {
  const int p = int(pc.arg[1]);
  const int w = vqe_width(p), h = vqe_height(p);
  const uint z = gl_WorkGroupID.z;
  const uint slot = vqe_ring_slot(z);
  const uint src = vqe_ref_plane(slot, p), pitch = vqe_pitch(p);
  const int y = int(gl_WorkGroupID.y), x0 = int(gl_WorkGroupID.x) * 256;
  const int lane = int(gl_LocalInvocationID.x);
  const int r = kTaps / 2;
  for (int i = lane; i < 256 + 2 * r; i += 256) {
    const int c = reflect101(x0 - r + i, w);
    precise float acc = 0.0;
    for (int k = 0; k < kTaps; ++k) {
      precise float s = float(vqe_sample(src, pitch, c, reflect101(y - r + k, h)));
      if (kBpc != 8) s = s * (1.0 / float(1 << (kBpc - 8)));
      s = s + -128.0;
      acc += tap(k) * s;
    }
    vertical[i] = acc;
  }
  barrier();
  const int x = x0 + lane;
  if (x >= w) return;
  precise float acc = 0.0;
  for (int k = 0; k < kTaps; ++k) acc += tap(k) * vertical[lane + k];
  blur[slot * uint(w) * uint(h) + uint(y) * uint(w) + uint(x)] = acc;
}
