#version 460
// SPDX-License-Identifier: BSD-2-Clause
// SSIM on Vulkan: one decimation of the reference and the distorted image
// (table entry pc.arg[0], ssim_common.glsl), as iqa::decimate_rows_scalar:
// every `factor`-th pixel filtered with the full 2-D kernel (rows top to
// bottom, taps left to right), float products summed in double (VqeFsum,
// replayed through sd_add where the exact fast path does not apply),
// rounded to float; symmetric borders, output size W/f + (W&1).
// float_ssim's box (f×f taps of 1/f²) from the luma planes, float_ms_ssim's
// 9×9 low-pass (factor 2) from the luma planes or the previous scale.
// Grid: 16×16 outputs per workgroup, z = frame of the chunk.
#include "vqe_frames.glsl"
#include "vqe_softdouble.glsl"
#include "vqe_float_exact.glsl"
#define SSIM_TABLE_BINDING 1
#define SSIM_PYRAMID_BINDING 2
#include "ssim_common.glsl"

layout(local_size_x = 16, local_size_y = 16) in;

void main() {
  const uint level = pc.arg[0];
  const int sw = int(ssim_level_word(level, 0u)), sh = int(ssim_level_word(level, 1u));
  const uint src = ssim_level_word(level, 2u);
  const int dw = int(ssim_level_word(level, 3u)), dh = int(ssim_level_word(level, 4u));
  const uint dst = ssim_level_word(level, 5u);
  const int factor = int(ssim_level_word(level, 6u)), ksize = int(ssim_level_word(level, 7u));
  const int x = int(gl_GlobalInvocationID.x), y = int(gl_GlobalInvocationID.y);
  const uint z = gl_WorkGroupID.z;
  if (x >= dw || y >= dh) return;
  const int half_k = ksize / 2;
  const int last = half_k - ((ksize & 1) == 0 ? 1 : 0);  // taps span [−half_k, last]
  const int cx = x * factor, cy = y * factor;
  for (int img = 0; img < 2; ++img) {
    VqeFsum f = vqe_fsum_new();
    int k = 0;
    for (int v = -half_k; v <= last; ++v) {
      const int ry = ssim_reflect(cy + v, sh);
      for (int u = -half_k; u <= last; ++u, ++k) {
        precise float p = ssim_read(z, src, sw, sh, img, ssim_reflect(cx + u, sw), ry) * ssim_tap(k);
        vqe_fsum_add(f, p);
      }
    }
    float result;
    if (f.ok) {
      result = vqe_fsum_float(f);
    } else {  // the CPU's rounded double steps
      uint64_t acc = uint64_t(0);
      k = 0;
      for (int v = -half_k; v <= last; ++v) {
        const int ry = ssim_reflect(cy + v, sh);
        for (int u = -half_k; u <= last; ++u, ++k) {
          precise float p = ssim_read(z, src, sw, sh, img, ssim_reflect(cx + u, sw), ry) * ssim_tap(k);
          acc = sd_add(acc, sd_from_float(p));
        }
      }
      result = sd_to_float(acc);
    }
    pyr[z * ssim_pyramid_stride() + dst + uint(img) * uint(dw) * uint(dh) + uint(y) * uint(dw) +
        uint(x)] = result;
  }
}
