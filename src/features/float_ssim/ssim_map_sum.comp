#version 460
// SPDX-License-Identifier: BSD-2-Clause
// SSIM on Vulkan: for one scale of one frame per workgroup, the vertical
// (second) Gaussian pass of the five row-pass images, the per-pixel SSIM
// terms and the four sums over the map, bit for bit as
// iqa::ssim_gaussian_scalar:
//   - the vertical pass: float products of the 11 taps summed in double from
//     the top (exactly: vqe_fsum_of, or sd_add steps), rounded to float:
//     mu_ref, mu_dist, and the blurred a·a, b·b, a·b;
//   - the terms, in the CPU's float/double mix: variances and covariance in
//     float (variances floored at 0), sigma_product = (float)sqrt((double)
//     (var_ref·var_dist)) (correctly rounded, vqe_sqrt_rn),
//     l = (2.0·mr·md + c1) / (double)(mr·mr + md·md + c1),
//     c = (2.0·sigma_product + c2) / (double)(var_ref + var_dist + c2) in
//     exact binary64 (vqe_softdouble.glsl), s = float quotient (correctly
//     rounded), l·c·s in binary64;
//   - the CPU's sequential double sums of l·c·s, l, c and s over the map in
//     row-major order (vqe_seqsum.glsl: 256 pixels per chunk, exact).
// `precise`: no contraction, as -ffp-contract=off on the CPU.
// A dispatch (pass pc.arg[0]) adds chunks [pass·n, (pass + 1)·n) of the map,
// n = pc.arg[1], to the sums the pass before left in the result slot, so no
// invocation runs into lavapipe's limit of 65,535 loop iterations
// (vqe_seqsum.glsl). Loops are kept rolled where unrolling would copy the
// softdouble code (lavapipe compiles every pipeline anew, and its time
// grows with the code).
// Grid: x = 1, y = scale, z = frame of the chunk; 256 invocations.
// Output: result[result slot][scale][l·c·s, l, c, s] as binary64 lo/hi
// words; the host divides by the map's size (ssim::means_of_sums).
#include "vqe_common.glsl"
#include "vqe_softdouble.glsl"
#include "vqe_float_exact.glsl"
#define VQE_SEQ_K 4
#include "vqe_seqsum.glsl"
#define SSIM_TABLE_BINDING 0
#include "ssim_common.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) readonly buffer RowPass { float rowpass[]; };
layout(std430, set = 0, binding = 2) buffer Result { uint result[]; };

// The vertical pass of row-pass image j at (x, y) (first row `at`, rows
// `stride` apart).
float vertical(uint at, uint stride) {
  float p[kSsimWindow];
  [[unroll]] for (int k = 0; k < kSsimWindow; ++k) {
    precise float t = rowpass[at + uint(k) * stride] * ssim_gauss(k);
    p[k] = t;
  }
  const VqeFsum f = vqe_fsum_of(p);
  if (f.ok) return vqe_fsum_float(f);
  uint64_t acc = uint64_t(0);  // the CPU's rounded double steps
  for (int k = 0; k < kSsimWindow; ++k) acc = sd_add(acc, sd_from_float(p[k]));
  return sd_to_float(acc);
}

// The terms {l·c·s, l, c, s} of one pixel (binary64 bits).
void terms(float mr, float md, float sq_ref, float sq_dist, float cross, out uint64_t t[4]) {
  const float c1 = ssim_c1(), c2 = ssim_c2(), c3 = ssim_c3();
  precise float var_ref = sq_ref - mr * mr;
  precise float var_dist = sq_dist - md * md;
  if (0.0 > var_ref) var_ref = 0.0;
  if (0.0 > var_dist) var_dist = 0.0;
  precise float covar = cross - mr * md;
  precise float var_product = var_ref * var_dist;
  const float sigma_product = vqe_sqrt_rn(var_product);
  precise float two_mr = 2.0 * mr;  // exact, as 2.0 * mr in double
  const uint64_t l_num = sd_add(sd_mul(sd_from_float(two_mr), sd_from_float(md)), sd_from_float(c1));
  precise float l_den = mr * mr + md * md + c1;
  const uint64_t l = sd_div_narrow(l_num, sd_from_float(l_den));
  precise float two_sigma = 2.0 * sigma_product;
  const uint64_t c_num = sd_add(sd_from_float(two_sigma), sd_from_float(c2));
  precise float c_den = var_ref + var_dist + c2;
  const uint64_t c = sd_div_narrow(c_num, sd_from_float(c_den));
  const float covar_clamped = (covar < 0.0 && sigma_product <= 0.0) ? 0.0 : covar;
  precise float s_num = covar_clamped + c3;
  precise float s_den = sigma_product + c3;
  const uint64_t s = sd_from_float(vqe_div_rn(s_num, s_den));
  t[0] = sd_mul(sd_mul(l, c), s);
  t[1] = l;
  t[2] = c;
  t[3] = s;
}

void main() {
  const uint s = gl_WorkGroupID.y, z = gl_WorkGroupID.z;
  const uint lane = gl_LocalInvocationIndex;
  const uint w = ssim_scale_word(s, 0u), h = ssim_scale_word(s, 1u);
  const uint out_w = w - uint(kSsimWindow - 1), out_h = h - uint(kSsimWindow - 1);
  const uint n = out_w * out_h;
  const uint plane_words = out_w * h;
  const uint base = z * ssim_rowpass_stride() + ssim_scale_word(s, 3u);
  const uint chunks = (n + kSeqLanes - 1u) / kSeqLanes;
  const uint pass = pc.arg[0], first_chunk = pass * pc.arg[1];
  if (first_chunk >= chunks) return;  // the whole workgroup: a smaller scale
  const uint at = (vqe_result_slot(z) * ssim_scales() + s) * 8u;
  uint64_t start[4] = uint64_t[4](uint64_t(0), uint64_t(0), uint64_t(0), uint64_t(0));
  if (pass > 0u)
    [[unroll]] for (int q = 0; q < 4; ++q)
      start[q] = uint64_t(result[at + 2u * uint(q)]) | (uint64_t(result[at + 2u * uint(q) + 1u]) << 32);
  vqe_seq_begin(start);
  const uint end = min(n, (first_chunk + pc.arg[1]) * kSeqLanes);
  for (uint first = first_chunk * kSeqLanes; first < end; first += kSeqLanes) {
    uint64_t t[4] = uint64_t[4](uint64_t(0), uint64_t(0), uint64_t(0), uint64_t(0));
    const uint i = first + lane;
    if (i < end) {
      const uint y = i / out_w, x = i - y * out_w;
      // mu_ref, mu_dist, blurred a·a, b·b, a·b (a loop: one copy of the code).
      float mr = 0.0, md = 0.0, sq_ref = 0.0, sq_dist = 0.0, cross = 0.0;
      for (uint j = 0u; j < 5u; ++j) {
        const float v = vertical(base + j * plane_words + y * out_w + x, out_w);
        mr = j == 0u ? v : mr;
        md = j == 1u ? v : md;
        sq_ref = j == 2u ? v : sq_ref;
        sq_dist = j == 3u ? v : sq_dist;
        cross = j == 4u ? v : cross;
      }
      terms(mr, md, sq_ref, sq_dist, cross, t);
    }
    vqe_seq_chunk(t, min(kSeqLanes, end - first));
  }
  if (lane == 0u) {
    [[unroll]] for (int q = 0; q < 4; ++q) {
      result[at + 2u * uint(q)] = uint(vqe_seq_sum[q] & uint64_t(0xffffffffu));
      result[at + 2u * uint(q) + 1u] = uint(vqe_seq_sum[q] >> 32);
    }
  }
}
