#version 460
// SPDX-License-Identifier: BSD-2-Clause
// SSIM on Vulkan: the horizontal (first) pass of the 11-tap Gaussian over
// the valid region, for the five images the CPU blurs (reference a,
// distorted b, a·a, b·b, a·b; the squares and the product formed in float
// first), every scale of every frame of the chunk in one dispatch, as
// iqa::gaussian_blur_valid_scalar's first loop: per output, float products
// of the 11 taps summed in double from the left (exactly: vqe_fsum_of, or
// sd_add steps where that does not apply), rounded to float.
// Grid: x = 256 outputs of a row, y = row of the scales' rows stacked
// (table: first row of each scale), z = frame of the chunk. Output: per
// scale, five (w − 10) × h float images at the scale's row-pass offset.
#include "vqe_frames.glsl"
#include "vqe_softdouble.glsl"
#include "vqe_float_exact.glsl"
#define SSIM_TABLE_BINDING 1
#define SSIM_PYRAMID_BINDING 2
#include "ssim_common.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 3) writeonly buffer RowPass { float rowpass[]; };

shared float sa[256 + kSsimWindow - 1], sb[256 + kSsimWindow - 1];

float tap_product(int j, float a, float b, float t) {
  precise float v = j == 0 ? a : j == 1 ? b : j == 2 ? a * a : j == 3 ? b * b : a * b;
  precise float p = v * t;
  return p;
}

void main() {
  const uint z = gl_WorkGroupID.z, row = gl_WorkGroupID.y;
  uint s = 0u;
  while (s + 1u < ssim_scales() && row >= ssim_scale_word(s + 1u, 4u)) ++s;
  const int w = int(ssim_scale_word(s, 0u)), h = int(ssim_scale_word(s, 1u));
  const uint src = ssim_scale_word(s, 2u), out_off = ssim_scale_word(s, 3u);
  const int y = int(row - ssim_scale_word(s, 4u));
  const int out_w = w - (kSsimWindow - 1);
  const int x0 = int(gl_WorkGroupID.x) * 256;
  if (x0 >= out_w || y >= h) return;  // the whole workgroup: a narrower scale
  const int lane = int(gl_LocalInvocationID.x);
  for (int i = lane; i < 256 + kSsimWindow - 1; i += 256) {
    const int gx = x0 + i;
    sa[i] = gx < w ? ssim_read(z, src, w, h, 0, gx, y) : 0.0;
    sb[i] = gx < w ? ssim_read(z, src, w, h, 1, gx, y) : 0.0;
  }
  barrier();
  const int x = x0 + lane;
  if (x >= out_w) return;
  const uint plane_words = uint(out_w) * uint(h);
  const uint at = z * ssim_rowpass_stride() + out_off + uint(y) * uint(out_w) + uint(x);
  for (int j = 0; j < 5; ++j) {
    float p[kSsimWindow];
    [[unroll]] for (int k = 0; k < kSsimWindow; ++k)
      p[k] = tap_product(j, sa[lane + k], sb[lane + k], ssim_gauss(k));
    const VqeFsum f = vqe_fsum_of(p);
    float result;
    if (f.ok) {
      result = vqe_fsum_float(f);
    } else {  // the CPU's rounded double steps
      uint64_t acc = uint64_t(0);
      for (int k = 0; k < kSsimWindow; ++k) acc = sd_add(acc, sd_from_float(p[k]));
      result = sd_to_float(acc);
    }
    rowpass[at + uint(j) * plane_words] = result;
  }
}
