// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF on Vulkan, one scale of a run of frames (grid z), bit-identical
// to integer_vif.cpp (libvmaf 3.2.0 integer_vif.c). The scale is the
// compile-time VIF_SCALE of the including vif_scaleN.comp, so that the
// filter widths and taps are constants and every tap loop unrolls (no tap
// is read from a buffer).
//
// A workgroup takes a 64 x 16 tile of the scale's image with its
// reflect-101 border (periodic, as vif::reflect101) in shared memory, runs
// the vertical filter of the means and second moments (4 rows per
// invocation: each border sample read once for 4 sums), then the horizontal
// filter (4 columns per invocation), with the reference's integer widths,
// roundings and shifts, and forms each pixel's sigmas; a last pass forms the
// VIF terms of each pixel from them (the reference's double-precision gain
// steps through vif_num.glsl: proven-equal float steps or
// vqe_softdouble.glsl's exact binary64, no fp64), apart from the filters so
// that their registers are not held at once. It also writes the next
// scale's image at the tile's even rows and columns (blur with the next
// scale's filter, 2x decimation). Sums are exact: int64 per invocation,
// vqe_reduce.glsl's fixed-order workgroup sum (two-level), lo/hi words per
// tile; the host adds the tiles.
//
// Buffers: 0 frames (scale 0), 1 images (scales 1..3 of every frame of the
// run: per sample one word, ref | dist << 16), 2 tables (log2 table entries
// 32767..65535), 3 partials
// [result slot][tile of every scale][4 sums][lo, hi].
// Push args: 1 1 = compute the statistic (0: scale 0 under
// vif_skip_scale0), 2 index of the scale's first tile among a frame's tiles.
// Shared memory at scale 0: the tile 10 KiB, the work area 20.25 KiB
// (moments, then sigmas, then the next scale's rows and the reduction).
#ifndef VIF_SCALE
#error "define VIF_SCALE (0..3) before including vif_scale.glsl"
#endif
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

// vif::kFilters (integer_vif.h) of this scale and of the next (the
// subsampling blur), as literals so that the taps are compile-time constants;
// the parity tests compare every scale with the CPU.
#if VIF_SCALE == 0
const int kFW = 17, kFWN = 9;
const uint kTaps[kFW] = uint[](489u, 935u, 1640u, 2640u, 3896u, 5274u, 6547u, 7455u, 7784u,
                               7455u, 6547u, 5274u, 3896u, 2640u, 1640u, 935u, 489u);
const uint kTapsNext[kFWN] = uint[](1244u, 3663u, 7925u, 12590u, 14692u, 12590u, 7925u, 3663u,
                                    1244u);
#elif VIF_SCALE == 1
const int kFW = 9, kFWN = 5;
const uint kTaps[kFW] = uint[](1244u, 3663u, 7925u, 12590u, 14692u, 12590u, 7925u, 3663u, 1244u);
const uint kTapsNext[kFWN] = uint[](3571u, 16004u, 26386u, 16004u, 3571u);
#elif VIF_SCALE == 2
const int kFW = 5, kFWN = 3;
const uint kTaps[kFW] = uint[](3571u, 16004u, 26386u, 16004u, 3571u);
const uint kTapsNext[kFWN] = uint[](10904u, 43728u, 10904u);
#else
const int kFW = 3, kFWN = 1;
const uint kTaps[kFW] = uint[](10904u, 43728u, 10904u);
const uint kTapsNext[kFWN] = uint[](0u);  // no next scale
#endif
const int kHalf = kFW / 2, kHalfN = kFWN / 2;

const int kTW = 64, kTH = 16;  // the tile
const int kRG = 4;             // rows per invocation, vertical pass
const int kCG = 4;             // columns per item, horizontal pass (2: same speed on the
                               // H200, more registers)
const int kHItems = kTH * (kTW / kCG) / 256;  // horizontal items per invocation (whole)
const int kIW = kTW + kFW - 1, kIH = kTH + kFW - 1;
const int kSW = kIW | 1;        // odd row stride of the moments: lanes walk down rows
const int kPlane = kTH * kSW;   // words per moment plane
const int kGW = kTW + 1;        // row stride of the sigma planes
const int kGPlane = kTH * kGW;  // words per sigma plane
const int kNextWords = (kTH / 2) * kIW;

shared uint s_in[kIH * kIW];  // ref | dist << 16
// The work area, in turn: the moments (planes mu1 | mu2 << 16, xx, yy, xy);
// the sigmas (planes sigma1_sq, sigma2_sq, sigma12: 3 kGPlane <= 4 kPlane);
// the next scale's vertical pass (ref | dist << 16, kNextWords) and, past
// it, the reduction's scratch (2048 words: kNextWords + 2048 <= 4 kPlane at
// every scale, 4288 words at scale 3).
shared uint s_work[4 * kPlane];

#define VQE_REDUCE_K 4
#define VQE_REDUCE_TWO_LEVEL
#define VQE_REDUCE_SCRATCH s_work
#define VQE_REDUCE_SCRATCH_BASE kNextWords
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

int reflect101(int i, int n) {
  if (i >= 0 && i < n) return i;
  const int period = 2 * (n - 1);
  // GLSL leaves % undefined for negative operands (NVIDIA's result differs
  // from C's): reduce |i| and mirror, all operands non-negative.
  const int m = i < 0 ? (period - (-i) % period) % period : i % period;
  return m < n ? m : period - m;
}

#define VIF_LOG2(i) tables[(i) - 32767u]
#include "vif_num.glsl"

// Word offset of scale s's (>= 1) image of frame z in `images`.
uint image_offset(uint z, int s) {
  uint off = z * kImageWords;
  for (int t = 1; t < s; ++t) off += uint(kWidth0 >> t) * uint(kHeight0 >> t);
  return off;
}

// The vertical pass of the moments for tile rows [r0, r0 + kRG), at
// tile column c, with second-moment sums of type SQ (uint where they fit 32
// bits: scale 0 at 8 bits, as the reference's shift 0 there).
#define VIF_VERTICAL(SQ)                                                         \
  {                                                                              \
    uint m1[kRG], m2[kRG];                                                       \
    SQ xx[kRG], yy[kRG], xy[kRG];                                                \
    [[unroll]] for (int k = 0; k < kRG; ++k) {                                   \
      m1[k] = 0u;                                                                \
      m2[k] = 0u;                                                                \
      xx[k] = SQ(0);                                                             \
      yy[k] = SQ(0);                                                             \
      xy[k] = SQ(0);                                                             \
    }                                                                            \
    [[unroll]] for (int f = 0; f < kFW + kRG - 1; ++f) {                         \
      const uint v = s_in[(r0 + f) * kIW + c];                                   \
      const uint x = v & 0xffffu, y = v >> 16;                                   \
      [[unroll]] for (int k = 0; k < kRG; ++k) {                                 \
        const int t = f - k;                                                     \
        if (t >= 0 && t < kFW) {                                                 \
          const uint cx = kTaps[t] * x, cy = kTaps[t] * y;                       \
          m1[k] += cx;                                                           \
          m2[k] += cy;                                                           \
          xx[k] += SQ(cx) * SQ(x);                                               \
          yy[k] += SQ(cy) * SQ(y);                                               \
          xy[k] += SQ(cx) * SQ(y);                                               \
        }                                                                        \
      }                                                                          \
    }                                                                            \
    [[unroll]] for (int k = 0; k < kRG; ++k) {                                   \
      const int o = (r0 + k) * kSW + c;                                          \
      s_work[o] = ((m1[k] + round_mu) >> shift_mu) |                             \
                  (((m2[k] + round_mu) >> shift_mu) << 16);                      \
      s_work[kPlane + o] = uint((uint64_t(xx[k]) + round_sq) >> shift_sq);       \
      s_work[2 * kPlane + o] = uint((uint64_t(yy[k]) + round_sq) >> shift_sq);   \
      s_work[3 * kPlane + o] = uint((uint64_t(xy[k]) + round_sq) >> shift_sq);   \
    }                                                                            \
  }

// One pixel's sigmas from its horizontally filtered moments (integer_vif.cpp
// `statistic`): sigma1_sq, sigma2_sq (clamped at 0), sigma12.
uvec3 sigmas(uint m1, uint m2, uint64_t xx, uint64_t yy, uint64_t xy) {
  const uint mu1_sq = uint((uint64_t(m1) * uint64_t(m1) + uint64_t(2147483648u)) >> 32);
  const uint mu2_sq = uint((uint64_t(m2) * uint64_t(m2) + uint64_t(2147483648u)) >> 32);
  const uint mu1_mu2 = uint((uint64_t(m1) * uint64_t(m2) + uint64_t(2147483648u)) >> 32);
  const uint xx_filt = uint((xx + uint64_t(32768)) >> 16);
  const uint yy_filt = uint((yy + uint64_t(32768)) >> 16);
  const uint xy_filt = uint((xy + uint64_t(32768)) >> 16);
  return uvec3(xx_filt - mu1_sq, uint(max(int(yy_filt - mu2_sq), 0)), xy_filt - mu1_mu2);
}

// One pixel's terms from its sigmas (integer_vif.cpp `statistic`):
// acc = num_log, den_log, num_non_log, den_non_log.
void pixel_terms(int sigma1_sq, int sigma2_sq, int sigma12, uint64_t eps, uint64_t gain_limit,
                 uint64_t gain_sq, float eps_f, float gain_f, inout uint64_t acc[4]) {
  if (sigma1_sq >= kSigmaNsq) {
    acc[1] += uint64_t(int64_t(vif_log2_32(uint(sigma1_sq) + uint(kSigmaNsq)) - 2048 * 17));
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

void main() {
  const bool stat = pc.arg[1] != 0u;
  const uint z = gl_WorkGroupID.z;
  const int w = kWidth0 >> VIF_SCALE, h = kHeight0 >> VIF_SCALE;
  const int x0 = int(gl_WorkGroupID.x) * kTW, y0 = int(gl_WorkGroupID.y) * kTH;
  const int tid = int(gl_LocalInvocationID.x);

  // 1. The tile and its border.
#if VIF_SCALE == 0
  const uint slot = vqe_ring_slot(z);
  const uint ref0 = vqe_ref_plane(slot, 0), dist0 = vqe_dist_plane(slot, 0);
#else
  const uint image = image_offset(z, VIF_SCALE);
#endif
  for (int i = tid; i < kIH * kIW; i += 256) {
    const int r = i / kIW, c = i - r * kIW;
    const int gy = reflect101(y0 - kHalf + r, h), gx = reflect101(x0 - kHalf + c, w);
#if VIF_SCALE == 0
    s_in[i] = vqe_sample(ref0, kPitch0, gx, gy) | (vqe_sample(dist0, kPitch0, gx, gy) << 16);
#else
    s_in[i] = images[image + uint(gy) * uint(w) + uint(gx)];
#endif
  }
  barrier();

  const uint shift_mu = VIF_SCALE == 0 ? uint(kBpc) : 16u;
  const uint round_mu = 1u << (shift_mu - 1u);

  // 2. The statistic.
  uint64_t acc[4];
  for (int k = 0; k < 4; ++k) acc[k] = uint64_t(0);
  if (stat) {
    const uint shift_sq = VIF_SCALE == 0 ? uint(2 * (kBpc - 8)) : 16u;
    const uint64_t round_sq = shift_sq == 0u ? uint64_t(0) : uint64_t(1) << (shift_sq - 1u);
    // Vertical: kTH rows x kIW columns, kRG rows per invocation.
    for (int i = tid; i < (kTH / kRG) * kIW; i += 256) {
      const int g = i / kIW, c = i - g * kIW;
      const int r0 = g * kRG;
      if (VIF_SCALE == 0 && kBpc == 8)
        VIF_VERTICAL(uint)
      else
        VIF_VERTICAL(uint64_t)
    }
    barrier();
    // Horizontal: kTH rows x kTW columns, kCG columns per invocation and
    // item (kHItems items per invocation), to the sigmas, held until every
    // invocation has read the moments.
    uvec3 sig[kHItems * kCG];
    [[unroll]] for (int j = 0; j < kHItems; ++j) {
      const int item = tid + 256 * j;
      const int r = item % kTH, c0 = (item / kTH) * kCG;
      uint m1[kCG], m2[kCG];
      uint64_t xx[kCG], yy[kCG], xy[kCG];
      [[unroll]] for (int k = 0; k < kCG; ++k) {
        m1[k] = 0u;
        m2[k] = 0u;
        xx[k] = uint64_t(0);
        yy[k] = uint64_t(0);
        xy[k] = uint64_t(0);
      }
      [[unroll]] for (int f = 0; f < kFW + kCG - 1; ++f) {
        const int o = r * kSW + c0 + f;
        const uint mu = s_work[o], vxx = s_work[kPlane + o], vyy = s_work[2 * kPlane + o],
                   vxy = s_work[3 * kPlane + o];
        [[unroll]] for (int k = 0; k < kCG; ++k) {
          const int t = f - k;
          if (t >= 0 && t < kFW) {
            m1[k] += kTaps[t] * (mu & 0xffffu);
            m2[k] += kTaps[t] * (mu >> 16);
            xx[k] += uint64_t(kTaps[t]) * uint64_t(vxx);
            yy[k] += uint64_t(kTaps[t]) * uint64_t(vyy);
            xy[k] += uint64_t(kTaps[t]) * uint64_t(vxy);
          }
        }
      }
      [[unroll]] for (int k = 0; k < kCG; ++k)
        sig[j * kCG + k] = sigmas(m1[k], m2[k], xx[k], yy[k], xy[k]);
    }
    barrier();
    [[unroll]] for (int j = 0; j < kHItems; ++j) {
      const int item = tid + 256 * j;
      const int r = item % kTH, c0 = (item / kTH) * kCG;
      [[unroll]] for (int k = 0; k < kCG; ++k) {
        const int o = r * kGW + c0 + k;
        s_work[o] = sig[j * kCG + k].x;
        s_work[kGPlane + o] = sig[j * kCG + k].y;
        s_work[2 * kGPlane + o] = sig[j * kCG + k].z;
      }
    }
    barrier();
    // The terms: one pixel per invocation and step, along the rows.
    const uint64_t eps = uint64_t(kEpsLo) | (uint64_t(kEpsHi) << 32);
    const uint64_t gain_limit = uint64_t(kGainLo) | (uint64_t(kGainHi) << 32);
    const uint64_t gain_sq = sd_mul(gain_limit, gain_limit);
    const float eps_f = sd_estimate(eps), gain_f = sd_estimate(gain_limit);
    for (int i = tid; i < kTH * kTW; i += 256) {
      const int pr = i / kTW, px = i - pr * kTW;
      if (y0 + pr < h && x0 + px < w) {
        const int o = pr * kGW + px;
        pixel_terms(int(s_work[o]), int(s_work[kGPlane + o]), int(s_work[2 * kGPlane + o]), eps,
                    gain_limit, gain_sq, eps_f, gain_f, acc);
      }
    }
    barrier();  // the next scale's rows overwrite the sigmas
  }

  // 3. The next scale's samples: vertical blur at the tile's even rows (into
  // the work area), then horizontal blur and 2x decimation.
#if VIF_SCALE < 3
  for (int i = tid; i < kNextWords; i += 256) {
    const int rr = i / kIW, c = i - rr * kIW;
    const int base = kHalf + 2 * rr - kHalfN;
    uint acc_r = 0u, acc_d = 0u;
    [[unroll]] for (int f = 0; f < kFWN; ++f) {
      const uint v = s_in[(base + f) * kIW + c];
      acc_r += kTapsNext[f] * (v & 0xffffu);
      acc_d += kTapsNext[f] * (v >> 16);
    }
    s_work[i] = ((acc_r + round_mu) >> shift_mu) | (((acc_d + round_mu) >> shift_mu) << 16);
  }
  barrier();
  const int ow = w / 2, oh = h / 2;
  const uint next_image = image_offset(z, VIF_SCALE + 1);
  for (int i = tid; i < (kTH / 2) * (kTW / 2); i += 256) {
    const int rr = i / (kTW / 2), cc = i - rr * (kTW / 2);
    const int oy = y0 / 2 + rr, ox = x0 / 2 + cc;
    if (oy < oh && ox < ow) {
      const int base = kHalf + 2 * cc - kHalfN;
      uint acc_r = 0u, acc_d = 0u;
      [[unroll]] for (int f = 0; f < kFWN; ++f) {
        const uint v = s_work[rr * kIW + base + f];
        acc_r += kTapsNext[f] * (v & 0xffffu);
        acc_d += kTapsNext[f] * (v >> 16);
      }
      images[next_image + uint(oy) * uint(ow) + uint(ox)] =
          ((acc_r + 32768u) >> 16) | (((acc_d + 32768u) >> 16) << 16);
    }
  }
#endif
  // The reduction's scratch lies past the next scale's rows (its own barrier
  // orders it after every read of the sigmas).
  const uint tile = pc.arg[2] + gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
  vqe_reduce_store(acc, (vqe_result_slot(z) * kTilesPerFrame + tile) * 8u);
}
