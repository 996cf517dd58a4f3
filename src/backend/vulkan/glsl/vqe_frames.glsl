// SPDX-License-Identifier: BSD-2-Clause
// The frame ring at binding 0 and sample reads from it: rows `pitch` words
// apart, four 8-bit or two 16-bit little-endian samples per word (no 8- or
// 16-bit storage feature needed).
#include "vqe_common.glsl"

layout(std430, set = 0, binding = 0) readonly buffer VqeFrames { uint vqe_frames[]; };

// Sample (x, y) of the plane starting at word `base` with `pitch` words per
// row (0 <= x < width, 0 <= y < height).
uint vqe_sample(uint base, uint pitch, int x, int y) {
  const uint row = base + uint(y) * pitch;
  if (kBpc == 8) {
    const uint w = vqe_frames[row + (uint(x) >> 2)];
    return (w >> ((uint(x) & 3u) * 8u)) & 0xffu;
  }
  const uint w = vqe_frames[row + (uint(x) >> 1)];
  return (w >> ((uint(x) & 1u) * 16u)) & 0xffffu;
}
