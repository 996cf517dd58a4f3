#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF on Vulkan, one scale (push arg 0) of a run of frames (grid z),
// bit-identical to integer_vif.cpp (libvmaf 3.2.0 integer_vif.c): a
// workgroup takes a 64 x 8 tile of the scale's image with its reflect-101
// border (periodic, as vif::reflect101) in shared memory, runs the vertical
// then the horizontal filter of the means and second moments with the
// reference's integer widths, roundings and shifts, forms each pixel's VIF
// terms (the reference's double-precision gain steps in
// vqe_softdouble.glsl's exact binary64, no fp64) and the next scale's image
// at the tile's even rows and columns (blur with the next scale's filter,
// 2x decimation). Sums are exact: int64 per invocation, vqe_reduce.glsl's
// fixed-order workgroup sum, lo/hi words per tile; the host adds the tiles.
//
// Buffers: 0 frames (scale 0), 1 images (scales 1..3 of every frame of the
// run: per sample one word, ref | dist << 16), 2 tables (vif::kFilters as
// 4 x 17 words, then log2 table entries 32767..65535), 3 partials
// [result slot][tile of every scale][4 sums][lo, hi].
// Push args: 0 scale, 1 1 = compute the statistic (0: scale 0 under
// vif_skip_scale0), 2 index of the scale's first tile among a frame's tiles.
// Shared memory: 27 KiB.
#include "vqe_frames.glsl"
#include "vqe_softdouble.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 1) buffer Images { uint images[]; };
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint tables[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Partials { uint partials[]; };
layout(constant_id = 24) const uint kEpsLo = 0u;  // 65536 · 1e-10 as double bits
layout(constant_id = 25) const uint kEpsHi = 0u;
layout(constant_id = 26) const uint kGainLo = 0u;  // vif_enhn_gain_limit as double bits
layout(constant_id = 27) const uint kGainHi = 0u;
layout(constant_id = 28) const uint kImageWords = 1u;  // words of scales 1..3 per frame
layout(constant_id = 29) const uint kTilesPerFrame = 1u;

#define VQE_REDUCE_K 4
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

const int kTW = 64, kTH = 8;
const int kIW = kTW + 16, kIH = kTH + 16;  // largest border: 17 taps

shared uint s_in[kIH * kIW];   // ref | dist << 16
shared uint s_mu[kTH * kIW];   // mu1 | mu2 << 16
shared uint s_xx[kTH * kIW];
shared uint s_yy[kTH * kIW];
shared uint s_xy[kTH * kIW];
shared uint s_next[(kTH / 2) * kIW];  // next scale, vertical pass: ref | dist << 16

int filter_width(int s) { return s == 0 ? 17 : s == 1 ? 9 : s == 2 ? 5 : 3; }
uint tap(int s, int k) { return tables[s * 17 + k]; }

int reflect101(int i, int n) {
  if (i >= 0 && i < n) return i;
  const int period = 2 * (n - 1);
  // GLSL leaves % undefined for negative operands (NVIDIA's result differs
  // from C's): reduce |i| and mirror, all operands non-negative.
  const int m = i < 0 ? (period - (-i) % period) % period : i % period;
  return m < n ? m : period - m;
}

int log2_32(uint v) {
  const int shift = findMSB(v) - 15;
  return int(tables[68u + (v >> uint(shift)) - 32767u]) + 2048 * shift;
}
#define VIF_LOG2(i) tables[68u + (i) - 32767u]
#include "vif_num.glsl"

// Word offset of scale s's (>= 1) image of frame z in `images`.
uint image_offset(uint z, int s) {
  uint off = z * kImageWords;
  for (int t = 1; t < s; ++t) off += uint(kWidth0 >> t) * uint(kHeight0 >> t);
  return off;
}

void main() {
  const int s = int(pc.arg[0]);
  const bool stat = pc.arg[1] != 0u;
  const uint z = gl_WorkGroupID.z;
  const int w = kWidth0 >> s, h = kHeight0 >> s;
  const int fw = filter_width(s), half_w = fw / 2;
  const bool next = s < 3;
  const int fwn = next ? filter_width(s + 1) : 1, halfn = fwn / 2;
  const int iw = kTW + fw - 1, ih = kTH + fw - 1;
  const int x0 = int(gl_WorkGroupID.x) * kTW, y0 = int(gl_WorkGroupID.y) * kTH;
  const int tid = int(gl_LocalInvocationID.x);
  const uint slot = vqe_ring_slot(z);
  const uint ref0 = vqe_ref_plane(slot, 0), dist0 = vqe_dist_plane(slot, 0);

  // 1. The tile and its border.
  for (int i = tid; i < ih * iw; i += 256) {
    const int r = i / iw, c = i - (i / iw) * iw;
    const int gy = reflect101(y0 - half_w + r, h), gx = reflect101(x0 - half_w + c, w);
    uint v;
    if (s == 0) {
      v = vqe_sample(ref0, kPitch0, gx, gy) | (vqe_sample(dist0, kPitch0, gx, gy) << 16);
    } else {
      v = images[image_offset(z, s) + uint(gy) * uint(w) + uint(gx)];
    }
    s_in[r * kIW + c] = v;
  }
  barrier();

  // 2. Vertical passes: the statistic's moments for each tile row; the next
  // scale's blur at the even rows.
  const uint shift_mu = s == 0 ? uint(kBpc) : 16u;
  const uint round_mu = 1u << (shift_mu - 1u);
  const uint shift_sq = s == 0 ? uint(2 * (kBpc - 8)) : 16u;
  const uint64_t round_sq = shift_sq == 0u ? uint64_t(0) : uint64_t(1) << (shift_sq - 1u);
  if (stat) {
    for (int i = tid; i < kTH * iw; i += 256) {
      const int r = i / iw, c = i - (i / iw) * iw;
      uint m1 = 0u, m2 = 0u;
      uint64_t xx = uint64_t(0), yy = uint64_t(0), xy = uint64_t(0);
      for (int f = 0; f < fw; ++f) {
        const uint v = s_in[(r + f) * kIW + c];
        const uint x = v & 0xffffu, y = v >> 16;
        const uint cf = tap(s, f);
        const uint cx = cf * x, cy = cf * y;
        m1 += cx;
        m2 += cy;
        xx += uint64_t(cx) * uint64_t(x);
        yy += uint64_t(cy) * uint64_t(y);
        xy += uint64_t(cx) * uint64_t(y);
      }
      s_mu[r * kIW + c] = ((m1 + round_mu) >> shift_mu) | (((m2 + round_mu) >> shift_mu) << 16);
      s_xx[r * kIW + c] = uint((xx + round_sq) >> shift_sq);
      s_yy[r * kIW + c] = uint((yy + round_sq) >> shift_sq);
      s_xy[r * kIW + c] = uint((xy + round_sq) >> shift_sq);
    }
  }
  if (next) {
    for (int i = tid; i < (kTH / 2) * iw; i += 256) {
      const int rr = i / iw, c = i - (i / iw) * iw;
      const int base = half_w + 2 * rr - halfn;
      uint acc_r = 0u, acc_d = 0u;
      for (int f = 0; f < fwn; ++f) {
        const uint v = s_in[(base + f) * kIW + c];
        const uint cf = tap(s + 1, f);
        acc_r += cf * (v & 0xffffu);
        acc_d += cf * (v >> 16);
      }
      s_next[rr * kIW + c] = ((acc_r + round_mu) >> shift_mu) | (((acc_d + round_mu) >> shift_mu) << 16);
    }
  }
  barrier();

  // 3. Horizontal passes: the next scale's samples; the statistic.
  if (next) {
    const int ow = w / 2, oh = h / 2;
    for (int i = tid; i < (kTH / 2) * (kTW / 2); i += 256) {
      const int rr = i / (kTW / 2), cc = i - (i / (kTW / 2)) * (kTW / 2);
      const int oy = y0 / 2 + rr, ox = x0 / 2 + cc;
      if (oy < oh && ox < ow) {
        const int base = half_w + 2 * cc - halfn;
        uint acc_r = 0u, acc_d = 0u;
        for (int f = 0; f < fwn; ++f) {
          const uint v = s_next[rr * kIW + base + f];
          const uint cf = tap(s + 1, f);
          acc_r += cf * (v & 0xffffu);
          acc_d += cf * (v >> 16);
        }
        images[image_offset(z, s + 1) + uint(oy) * uint(ow) + uint(ox)] =
            ((acc_r + 32768u) >> 16) | (((acc_d + 32768u) >> 16) << 16);
      }
    }
  }
  uint64_t acc[4];
  for (int k = 0; k < 4; ++k) acc[k] = uint64_t(0);
  if (stat) {
    const uint64_t eps = uint64_t(kEpsLo) | (uint64_t(kEpsHi) << 32);
    const uint64_t gain_limit = uint64_t(kGainLo) | (uint64_t(kGainHi) << 32);
    const uint64_t gain_sq = sd_mul(gain_limit, gain_limit);
    const float eps_f = sd_estimate(eps), gain_f = sd_estimate(gain_limit);
    for (int i = tid; i < kTH * kTW; i += 256) {
      const int r = i / kTW, c = i - (i / kTW) * kTW;
      if (y0 + r >= h || x0 + c >= w) continue;
      uint m1 = 0u, m2 = 0u;
      uint64_t xx = uint64_t(0), yy = uint64_t(0), xy = uint64_t(0);
      for (int f = 0; f < fw; ++f) {
        const uint cf = tap(s, f);
        const uint mu = s_mu[r * kIW + c + f];
        m1 += cf * (mu & 0xffffu);
        m2 += cf * (mu >> 16);
        xx += uint64_t(cf) * uint64_t(s_xx[r * kIW + c + f]);
        yy += uint64_t(cf) * uint64_t(s_yy[r * kIW + c + f]);
        xy += uint64_t(cf) * uint64_t(s_xy[r * kIW + c + f]);
      }
      // The reference's per-pixel terms.
      const uint mu1_sq = uint((uint64_t(m1) * uint64_t(m1) + uint64_t(2147483648u)) >> 32);
      const uint mu2_sq = uint((uint64_t(m2) * uint64_t(m2) + uint64_t(2147483648u)) >> 32);
      const uint mu1_mu2 = uint((uint64_t(m1) * uint64_t(m2) + uint64_t(2147483648u)) >> 32);
      const uint xx_filt = uint((xx + uint64_t(32768)) >> 16);
      const uint yy_filt = uint((yy + uint64_t(32768)) >> 16);
      const uint xy_filt = uint((xy + uint64_t(32768)) >> 16);
      const int sigma1_sq = int(xx_filt - mu1_sq);
      const int sigma2_sq = max(int(yy_filt - mu2_sq), 0);
      const int sigma12 = int(xy_filt - mu1_mu2);
      if (sigma1_sq >= kSigmaNsq) {
        acc[1] += uint64_t(int64_t(log2_32(uint(sigma1_sq) + uint(kSigmaNsq)) - 2048 * 17));
        if (sigma12 > 0 && sigma2_sq > 0) {
          int term;
          if (!vif_num_fast(sigma1_sq, sigma12, sigma2_sq, eps_f, gain_f, gain_sq, term))
            term = vif_num_exact(sigma1_sq, sigma12, sigma2_sq, eps, gain_limit);
          acc[0] += uint64_t(int64_t(term));
        }
      } else {
        acc[2] += uint64_t(int64_t(sigma2_sq));
        acc[3] += uint64_t(1);
      }
    }
  }
  const uint tile = pc.arg[2] + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  vqe_reduce_store(acc, (vqe_result_slot(z) * kTilesPerFrame + tile) * 8u);
}
