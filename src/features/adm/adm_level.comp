#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer ADM on Vulkan, one DWT level (push arg 0) of the frames of a
// chunk (grid z), bit-identical to integer_adm.cpp (libvmaf 3.2.0
// integer_adm.c) and its CUDA twin: the db2 DWT of both pictures at each band
// position (the reference's asymmetric border taps and integer widths and
// wrap-arounds), and inside the work region the decoupling (angle test and
// enhancement limit in vqe_softdouble.glsl's exact binary64, no fp64) and the
// CSF masker terms. One invocation per band position.
// Push args: 0 level, 1 decouple (0: level 0 under adm_skip_scale0), 2 AIM
// terms (0 under adm_skip_aim).
// Buffers: 0 frames, 1 tables (Q30 reciprocals of −32768..32768, then the
// level table), 2 and 3 scratch (adm_common.glsl).
#include "vqe_frames.glsl"
#include "vqe_softdouble.glsl"

layout(local_size_x = 32, local_size_y = 8) in;
layout(std430, set = 0, binding = 1) readonly buffer Tables { uint tables[]; };
#define ADM_SCRATCH_ACCESS
#define ADM_SCRATCH0 2
#define ADM_SCRATCH123 3
layout(constant_id = 26) const uint kCosLo = 0u;  // double(cos²(1°) as float) bits
layout(constant_id = 27) const uint kCosHi = 0u;
layout(constant_id = 28) const uint kGainLo = 0u;  // adm_enhn_gain_limit bits
layout(constant_id = 29) const uint kGainHi = 0u;

#include "adm_common.glsl"

const int kLo0 = 15826, kLo1 = 27411, kLo2 = 7345, kLo3 = -4240;
const int kHi0 = -4240, kHi1 = -7345, kHi2 = 27411, kHi3 = -15826;
const int kLoSum = 46342;

// DWT input tap: −1 reads 1; n and n + 1 read n − 1 and n − 2.
int dwt_tap(int t, int n) {
  if (t < 0) t = -t;
  if (t >= n) t = 2 * n - t - 1;
  return t;
}

// Level 0: DWT of picture `side` (0 ref, 1 dist) at (i, j): a, h, v, d.
void dwt0(uint z, int side, int i, int j, int in_w, int in_h, out int res[4]) {
  const uint slot = vqe_ring_slot(z);
  const uint base = side == 0 ? vqe_ref_plane(slot, 0) : vqe_dist_plane(slot, 0);
  const int add_vp = 1 << (kBpc - 1);
  const uint offset = uint(kLoSum) * uint(add_vp);
  int rows[4];
  for (int k = 0; k < 4; ++k) rows[k] = dwt_tap(2 * i - 1 + k, in_h);
  int lo[4], hi[4];
  for (int k = 0; k < 4; ++k) {
    const int c = dwt_tap(2 * j - 1 + k, in_w);
    const uint s0 = vqe_sample(base, kPitch0, c, rows[0]), s1 = vqe_sample(base, kPitch0, c, rows[1]);
    const uint s2 = vqe_sample(base, kPitch0, c, rows[2]), s3 = vqe_sample(base, kPitch0, c, rows[3]);
    const int l = int(uint(kLo0) * s0 + uint(kLo1) * s1 + uint(kLo2) * s2 + uint(kLo3) * s3 - offset);
    const int h = int(uint(kHi0) * s0 + uint(kHi1) * s1 + uint(kHi2) * s2 + uint(kHi3) * s3);
    lo[k] = i16((l + add_vp) >> kBpc);
    hi[k] = i16((h + add_vp) >> kBpc);
  }
  res[0] = i16((kLo0 * lo[0] + kLo1 * lo[1] + kLo2 * lo[2] + kLo3 * lo[3] + 32768) >> 16);
  res[2] = i16((kHi0 * lo[0] + kHi1 * lo[1] + kHi2 * lo[2] + kHi3 * lo[3] + 32768) >> 16);
  res[1] = i16((kLo0 * hi[0] + kLo1 * hi[1] + kLo2 * hi[2] + kLo3 * hi[3] + 32768) >> 16);
  res[3] = i16((kHi0 * hi[0] + kHi1 * hi[1] + kHi2 * hi[2] + kHi3 * hi[3] + 32768) >> 16);
}

// Levels 1..3: DWT of the previous level's LL band of picture `side`.
void dwt123(uint z, int level, int side, int i, int j, int in_w, int in_h, out int res[4]) {
  const int s = level - 1;  // rounding of levels 1, 2, 3
  const int64_t add_v = s == 0 ? int64_t(0) : int64_t(32768);
  const int shift_v = s == 0 ? 0 : 16;
  const int64_t add_h = s == 1 ? int64_t(32768) : int64_t(16384);
  const int shift_h = s == 1 ? 16 : 15;
  int rows[4];
  for (int k = 0; k < 4; ++k) rows[k] = dwt_tap(2 * i - 1 + k, in_h);
  int64_t lo[4], hi[4];
  for (int k = 0; k < 4; ++k) {
    const int c = dwt_tap(2 * j - 1 + k, in_w);
    int64_t v[4];
    for (int r = 0; r < 4; ++r) v[r] = int64_t(band(z, level - 1, uint(side), rows[r], c));
    const int64_t l = int64_t(kLo0) * v[0] + int64_t(kLo1) * v[1] + int64_t(kLo2) * v[2] + int64_t(kLo3) * v[3];
    const int64_t h = int64_t(kHi0) * v[0] + int64_t(kHi1) * v[1] + int64_t(kHi2) * v[2] + int64_t(kHi3) * v[3];
    lo[k] = int64_t(int((l + add_v) >> shift_v));
    hi[k] = int64_t(int((h + add_v) >> shift_v));
  }
  res[0] = int((int64_t(kLo0) * lo[0] + int64_t(kLo1) * lo[1] + int64_t(kLo2) * lo[2] + int64_t(kLo3) * lo[3] + add_h) >> shift_h);
  res[2] = int((int64_t(kHi0) * lo[0] + int64_t(kHi1) * lo[1] + int64_t(kHi2) * lo[2] + int64_t(kHi3) * lo[3] + add_h) >> shift_h);
  res[1] = int((int64_t(kLo0) * hi[0] + int64_t(kLo1) * hi[1] + int64_t(kLo2) * hi[2] + int64_t(kLo3) * hi[3] + add_h) >> shift_h);
  res[3] = int((int64_t(kHi0) * hi[0] + int64_t(kHi1) * hi[1] + int64_t(kHi2) * hi[2] + int64_t(kHi3) * hi[3] + add_h) >> shift_h);
}

// integer_adm.cpp within_one_degree: int64 products wrapping as on x86,
// each rounded to float and divided by 4096 in double.
bool within_one_degree(int64_t oh, int64_t ov, int64_t th, int64_t tv) {
  const int64_t dot = int64_t(uint64_t(oh) * uint64_t(th) + uint64_t(ov) * uint64_t(tv));
  const int64_t o_mag = int64_t(uint64_t(oh) * uint64_t(oh) + uint64_t(ov) * uint64_t(ov));
  const int64_t t_mag = int64_t(uint64_t(th) * uint64_t(th) + uint64_t(tv) * uint64_t(tv));
  // / 4096.0 is exact: an exponent change (sd_div_pow2).
  const uint64_t d = sd_div_pow2(sd_float_of_int64(dot), 12);
  const uint64_t o = sd_div_pow2(sd_float_of_int64(o_mag), 12);
  const uint64_t t = sd_div_pow2(sd_float_of_int64(t_mag), 12);
  const uint64_t cos_sq = uint64_t(kCosLo) | (uint64_t(kCosHi) << 32);
  return !sd_negative(d) && !sd_less(sd_mul(d, d), sd_mul(sd_mul(cos_sq, o), t));
}

// integer_adm.cpp limit_enhancement: in double, truncated.
void store(uint z, int level, uint a, int i, int j, int v) {
  const uint at = band_at(z, level, a, i, j);
  if (level == 0)
    scratch0[at] = v;
  else
    scratch123[at] = v;
}

int limit_enhancement(int rst, int dis, bool positive_ref) {
  const uint64_t gain = uint64_t(kGainLo) | (uint64_t(kGainHi) << 32);
  const uint64_t scaled = sd_mul(sd_from_int32(rst), gain);
  const uint64_t dd = sd_from_int32(dis);
  const uint64_t v = positive_ref ? (sd_less(scaled, dd) ? scaled : dd) : (sd_less(dd, scaled) ? scaled : dd);
  return int(sd_trunc_int64(v));
}

// Level-0 CSF masker terms (csf_level0).
void csf_terms0(int x[3], uint fx[3], out int m, out int c) {
  m = 0;
  c = 0;
  for (int t = 0; t < 3; ++t) {
    const int shift = t == 2 ? 17 : 15;
    const int add = t == 2 ? 65535 : 16384;
    const int v = int(fx[t]) * x[t];
    const int csf = abs(i16((v + add) >> shift));
    m += i16((4369 * csf + 2048) >> 12);
    c += i16((8738 * csf + 2048) >> 12);
  }
}

// Levels 1..3 CSF masker terms (csf_level123), int32 sums wrapping.
void csf_terms123(int x[3], uint fx[3], out int m, out int c) {
  const int64_t kOneBy30 = int64_t(143165577), kOneBy15 = int64_t(286331153);
  const int64_t kRound = -int64_t(2147483648u);
  uint um = 0u, uc = 0u;
  for (int t = 0; t < 3; ++t) {
    const int csf = int((int64_t(fx[t]) * int64_t(x[t]) + int64_t(1 << 27)) >> 28);
    const int64_t mag = int64_t(wrap_abs(csf));
    um += uint(int((kOneBy30 * mag + kRound) >> 32));
    uc += uint(int((kOneBy15 * mag + kRound) >> 32));
  }
  m = int(um);
  c = int(uc);
}

void main() {
  const int level = int(pc.arg[0]);
  const bool decouple = pc.arg[1] != 0u, aim = pc.arg[2] != 0u;
  const int j = int(gl_GlobalInvocationID.x), i = int(gl_GlobalInvocationID.y);
  const uint z = gl_WorkGroupID.z;
  const int in_w = level_int(level, L_IN_W), in_h = level_int(level, L_IN_H);
  if (j >= (in_w + 1) / 2 || i >= (in_h + 1) / 2) return;
  int r[4], d[4];
  if (level == 0) {
    dwt0(z, 0, i, j, in_w, in_h, r);
    dwt0(z, 1, i, j, in_w, in_h, d);
  } else {
    dwt123(z, level, 0, i, j, in_w, in_h, r);
    dwt123(z, level, 1, i, j, in_w, in_h, d);
  }
  store(z, level, 0u, i, j, r[0]);
  store(z, level, 1u, i, j, d[0]);
  if (!decouple || i < level_int(level, L_WTOP) || i >= level_int(level, L_WBOTTOM) ||
      j < level_int(level, L_WLEFT) || j >= level_int(level, L_WRIGHT))
    return;
  for (int k = 0; k < 3; ++k) store(z, level, 2u + uint(k), i, j, r[k + 1]);
  const int o[3] = int[3](r[1], r[2], r[3]);
  const int t[3] = int[3](d[1], d[2], d[3]);
  const bool angle_ok = within_one_degree(int64_t(o[0]), int64_t(o[1]), int64_t(t[0]), int64_t(t[1]));
  int rst[3], add[3];
  for (int k = 0; k < 3; ++k) {
    int64_t kk = int64_t(32768);
    if (level == 0) {
      if (o[k] != 0) {
        const int recip = int(tables[uint(o[k] + 32768)]);  // 2^30 / o, Q30
        kk = int64_t(int((int64_t(recip) * int64_t(t[k]) + int64_t(16384)) >> 15));
      }
    } else if (o[k] != 0) {
      const uint mag = uint(wrap_abs(o[k]));
      const int64_t sign = o[k] < 0 ? int64_t(-1) : int64_t(1);
      int shift = 0;
      uint top15 = mag;
      if (mag >= 32768u) {
        shift = findMSB(mag) - 14;
        top15 = ((mag + (1u << uint(shift - 1))) >> uint(shift)) & 0xffffu;
      }
      const int64_t recip = int64_t(int(1073741824u / top15));
      const int64_t num = recip * int64_t(t[k]);
      kk = (num * sign + (int64_t(1) << (14 + shift))) >> (15 + shift);
    }
    kk = kk < int64_t(0) ? int64_t(0) : (kk > int64_t(32768) ? int64_t(32768) : kk);
    int rv = int((kk * int64_t(o[k]) + int64_t(16384)) >> 15);
    if (level == 0) rv = i16(rv);
    if (angle_ok && kk != int64_t(0) && o[k] != 0) {
      rv = limit_enhancement(rv, t[k], o[k] > 0);
      if (level == 0) rv = i16(rv);
    }
    rst[k] = rv;
    add[k] = level == 0 ? i16(t[k] - rv) : int(uint(t[k]) - uint(rv));
    store(z, level, 5u + uint(k), i, j, rst[k]);
    store(z, level, 8u + uint(k), i, j, add[k]);
  }
  uint fx[3];
  for (int k = 0; k < 3; ++k) fx[k] = level_word(level, L_FIXED + uint(k));
  int m, c;
  if (level == 0) csf_terms0(add, fx, m, c);
  else csf_terms123(add, fx, m, c);
  store(z, level, 11u, i, j, m);
  store(z, level, 12u, i, j, c);
  if (aim) {
    if (level == 0) csf_terms0(rst, fx, m, c);
    else csf_terms123(rst, fx, m, c);
    store(z, level, 13u, i, j, m);
    store(z, level, 14u, i, j, c);
  }
}
