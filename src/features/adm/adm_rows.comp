#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer ADM on Vulkan: one workgroup per scored row of every level (grid
// x: the levels' row blocks in order, z: frame of the chunk) sums exactly,
// in 64 bits, the row's denominator terms (h, v, d), the contrast-masked
// restored terms (numerator) and, unless adm_skip_aim, the masked additive
// terms (AIM), as integer_adm.cpp does per row; the masking threshold uses
// the reference's 3 x 3 neighbourhood with its border rule and int32
// wrap-around. The raw row sums leave as lo/hi words (vqe_reduce.glsl); the
// host applies the reference's per-row rounding and shifts and adds the rows.
// Push args: 2 AIM terms, 3 row blocks per frame.
// Buffers: 0 and 1 scratch (adm_common.glsl), 2 tables, 3 partials
// [result slot][row block][9][2].
#include "vqe_common.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 2) readonly buffer Tables { uint tables[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Partials { uint partials[]; };
#define ADM_SCRATCH_ACCESS readonly
#define ADM_SCRATCH0 0
#define ADM_SCRATCH123 1

#include "adm_common.glsl"

#define VQE_REDUCE_K 9
#define VQE_PARTIALS partials
#include "vqe_reduce.glsl"

// integer_adm.cpp masking_threshold at (i, j).
int threshold(uint z, int level, uint mask, uint centre, int i, int j, int w, int h) {
  const int yb = i == 0 ? 1 : i - 1, ya = i == h - 1 ? h - 1 : i + 1;
  const int xb = j == 0 ? 1 : j - 1, xa = j == w - 1 ? w - 1 : j + 1;
  uint sum = uint(band(z, level, centre, i, j));
  sum += uint(band(z, level, mask, yb, xb)) + uint(band(z, level, mask, yb, xa));
  sum += uint(band(z, level, mask, yb, j));
  sum += uint(band(z, level, mask, i, xb)) + uint(band(z, level, mask, i, xa));
  sum += uint(band(z, level, mask, ya, xb)) + uint(band(z, level, mask, ya, xa));
  sum += uint(band(z, level, mask, ya, j));
  return int(sum);
}

// The masked cube of coefficient x_in of orientation t against threshold thr.
int64_t masked(int level, int x_in, int thr, int t, uint fixed_t) {
  const uint cub_shift = level_word(level, L_CUB_SHIFT + uint(level == 0 ? t : 0));
  const int64_t cub_add = cub_shift == 0u ? int64_t(0) : int64_t(1) << (cub_shift - 1u);
  int x;
  int x_sq;
  if (level == 0) {
    const int thr_shift = t == 2 ? 12 : 10;
    const int sq_shift = t == 2 ? 30 : 29;
    const int64_t sq_add = t == 2 ? int64_t(536870912) : int64_t(268435456);
    x = x_in * int(fixed_t);
    const uint th = uint(thr) << uint(thr_shift);
    x = int(uint(wrap_abs(x)) - th);
    if (x < 0) x = 0;
    x_sq = int((int64_t(x) * int64_t(x) + sq_add) >> sq_shift);
  } else {
    x = int((int64_t(x_in) * int64_t(fixed_t) + int64_t(1 << 27)) >> 28);
    x = int(uint(wrap_abs(x)) - uint(thr));
    if (x < 0) x = 0;
    x_sq = int((int64_t(x) * int64_t(x) + int64_t(536870912)) >> 30);
  }
  return (int64_t(x_sq) * int64_t(x) + cub_add) >> cub_shift;
}

void main() {
  const uint z = gl_WorkGroupID.z;
  const uint block = gl_WorkGroupID.x;
  int level = 0;
  for (int l = 1; l < 4; ++l)
    if (block >= level_word(l, L_FIRST_ROW)) level = l;
  const bool aim = pc.arg[2] != 0u;
  const int i = level_int(level, L_TOP) + int(block - level_word(level, L_FIRST_ROW));
  const int w = level_int(level, L_W), h = level_int(level, L_H);
  const int left = level_int(level, L_LEFT), right = level_int(level, L_RIGHT);
  const uint shift_sq = level_word(level, L_DEN_SHIFT_SQ), shift_cub = level_word(level, L_DEN_SHIFT_CUB);
  const uint64_t add_sq = level == 0 ? uint64_t(0) : uint64_t(1) << shift_sq;  // 1.0, as the reference
  const uint64_t add_cub = shift_cub == 0u ? uint64_t(0) : uint64_t(1) << (shift_cub - 1u);
  uint weights[3];
  for (int t = 0; t < 3; ++t) weights[t] = level_word(level, L_FIXED + uint(t));
  uint64_t v[9];
  for (int q = 0; q < 9; ++q) v[q] = uint64_t(0);
  for (int j = left + int(gl_LocalInvocationID.x); j < right; j += 256) {
    for (int t = 0; t < 3; ++t) {
      const int r = band(z, level, 2u + uint(t), i, j);
      if (level == 0) {
        const uint64_t m = uint64_t(uint(abs(r)) & 0xffffu);
        v[t] += m * m * m;
      } else {
        const uint64_t m = uint64_t(uint(wrap_abs(r)));
        v[t] += ((((m * m + add_sq) >> shift_sq) * m) + add_cub) >> shift_cub;
      }
    }
    const int thr_n = threshold(z, level, 11u, 12u, i, j, w, h);
    for (int t = 0; t < 3; ++t)
      v[3 + t] += uint64_t(masked(level, band(z, level, 5u + uint(t), i, j), thr_n, t, weights[t]));
    if (aim) {
      const int thr_a = threshold(z, level, 13u, 14u, i, j, w, h);
      for (int t = 0; t < 3; ++t)
        v[6 + t] += uint64_t(masked(level, band(z, level, 8u + uint(t), i, j), thr_a, t, weights[t]));
    }
  }
  vqe_reduce_store(v, (vqe_result_slot(z) * pc.arg[3] + block) * 18u);
}
