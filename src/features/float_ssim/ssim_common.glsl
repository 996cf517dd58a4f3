// SPDX-License-Identifier: BSD-2-Clause
// Shared by the SSIM shaders of float_ssim and float_ms_ssim
// (ssim_decimate.comp, ssim_hpass.comp, ssim_map_sum.comp; host side in
// ssim_vulkan.cpp): the geometry table, sample reads and the borders.
//
// The table (a storage buffer of 32-bit words, SSIM_TABLE_BINDING):
//   [0..10]   the 11 Gaussian taps (float bits, iqa::kGaussianTaps)
//   [16]      scales; [17] pyramid words per frame; [18] row-pass words per
//             frame; [19..21] c1, c2, c3 (float bits, formed on the host as
//             the CPU forms them)
//   [32 + 8s] scale s: width, height, source (kSsimPlane: the frame's luma;
//             else the word offset of the reference image in the frame's
//             pyramid, the distorted one following it), offset of its five
//             row-pass images in the frame's row-pass block, first row of
//             the row-pass grid
//   [80 + 8l] decimation l: source width, height, source (as above),
//             destination width, height, offset in the pyramid, factor,
//             kernel size
//   [128..]   the decimation kernel (float bits, row-major)
// Frame z of a dispatch (its chunk of frames) owns pyramid words
// [z·[17], (z+1)·[17]) and row-pass words [z·[18], (z+1)·[18]).

#ifndef SSIM_TABLE_BINDING
#error "define SSIM_TABLE_BINDING"
#endif

layout(std430, set = 0, binding = SSIM_TABLE_BINDING) readonly buffer SsimTable { uint tab[]; };

const uint kSsimPlane = 0xffffffffu;
const uint kTabGlobals = 16u, kTabScale = 32u, kTabLevel = 80u, kTabTaps = 128u;
const int kSsimWindow = 11;

float ssim_gauss(int k) { return uintBitsToFloat(tab[uint(k)]); }
uint ssim_scales() { return tab[kTabGlobals]; }
uint ssim_pyramid_stride() { return tab[kTabGlobals + 1u]; }
uint ssim_rowpass_stride() { return tab[kTabGlobals + 2u]; }
float ssim_c1() { return uintBitsToFloat(tab[kTabGlobals + 3u]); }
float ssim_c2() { return uintBitsToFloat(tab[kTabGlobals + 4u]); }
float ssim_c3() { return uintBitsToFloat(tab[kTabGlobals + 5u]); }
uint ssim_scale_word(uint s, uint i) { return tab[kTabScale + 8u * s + i]; }
uint ssim_level_word(uint l, uint i) { return tab[kTabLevel + 8u * l + i]; }
float ssim_tap(int k) { return uintBitsToFloat(tab[kTabTaps + uint(k)]); }

// IQA's KBND_SYMMETRIC: −1 -> 0, n -> n − 1, one reflection, then clamped
// (iqa_ssim.cpp's reflect, from non-negative operands only).
int ssim_reflect(int i, int n) {
  if (i < 0) i = -1 - i;
  else if (i >= n) i = 2 * n - 1 - i;
  return clamp(i, 0, n - 1);
}

#ifdef SSIM_PYRAMID_BINDING
layout(std430, set = 0, binding = SSIM_PYRAMID_BINDING) buffer SsimPyramid { float pyr[]; };

// Sample (x, y) of image `img` (0 reference, 1 distorted) of frame z, from
// source `src` of width w and height h: the luma plane read as
// plane_to_float reads it (8-bit as is, deeper samples times 2^−(bpc−8),
// which is the CPU's exact division by a power of two), or a float image
// of the frame's pyramid.
float ssim_read(uint z, uint src, int w, int h, int img, int x, int y) {
  if (src == kSsimPlane) {
    const uint slot = vqe_ring_slot(z);
    const uint base = img == 0 ? vqe_ref_plane(slot, 0) : vqe_dist_plane(slot, 0);
    precise float v = float(vqe_sample(base, kPitch0, x, y));
    if (kBpc != 8) v = v * uintBitsToFloat(uint(127 - (kBpc - 8)) << 23);
    return v;
  }
  return pyr[z * ssim_pyramid_stride() + src + uint(img) * uint(w) * uint(h) +
             uint(y) * uint(w) + uint(x)];
}
#endif
