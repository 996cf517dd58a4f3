// SPDX-License-Identifier: BSD-2-Clause
// VIF's numerator term of one pixel (integer_vif.cpp; libvmaf 3.2.0
// integer_vif.c): log2_64(numer1_tmp) − log2_64(numer1) from sigma1_sq,
// sigma12 and sigma2_sq, with the reference's double-precision steps either
// proven unneeded (vif_num_fast) or replayed in exact software binary64
// (vif_num_exact). Included by vif_scale.glsl and by the self-test
// vif_num_selftest.comp (tests/gpu/test_vif_num.cpp), after
// vqe_softdouble.glsl and a definition of VIF_LOG2(i): entry i (2^15 <= i <
// 2^16) of vif::log2_table().

const int kSigmaNsq = 65536 << 1;

// As libvmaf's log2_32 (and its log2_64 of the same value), 2^15 <= v < 2^32.
int vif_log2_32(uint v) {
  const int shift = findMSB(v) - 15;
  return int(VIF_LOG2(v >> uint(shift))) + 2048 * shift;
}

// As libvmaf's log2_64, v >= 2^17.
int log2_64(uint64_t v) {
  const int shift = sd_msb64(v) - 15;
  return int(VIF_LOG2(uint(v >> uint(shift)))) + 2048 * shift;
}

// A double's value as a float (nearest below; an estimate for vif_num_fast).
float sd_estimate(uint64_t d) {
  return sd_is_zero(d) ? 0.0 : ldexp(float(uint(sd_mant(d) >> 29)), sd_exp(d) - 23);
}

// q = floor(a / d) and rest = a − q·d for a < 2^62 and 2^17 <= d < 2^31,
// where q < 2^36 (false otherwise, or where the check below fails),
// without a 64-bit division (a long integer routine on GPUs): a float
// estimate of q (relative error below 2^-20 with Vulkan's 2.5-ulp division:
// within 2^16 of q), one float correction from the exact remainder (then
// within 1), one integer step.
bool vif_div_q36(uint64_t a, uint d, out uint64_t q, out uint rest) {
  if ((a >> 36) >= uint64_t(d)) return false;  // q >= 2^36
  const float inv = 1.0 / float(d);
  int64_t qe = int64_t(float(a) * inv);
  int64_t r = int64_t(a) - qe * int64_t(d);  // |r| < 2^16 · 2^31
  qe += int64_t(floor(float(r) * inv));
  r = int64_t(a) - qe * int64_t(d);  // −d <= r < 2d
  if (r < int64_t(0)) {
    qe -= int64_t(1);
    r += int64_t(d);
  } else if (r >= int64_t(d)) {
    qe += int64_t(1);
    r -= int64_t(d);
  }
  // 0 <= r < d defines floor division: checked, so that a driver whose float
  // steps were less precise than the bounds above falls back (false), never
  // returns a wrong quotient.
  if (r < int64_t(0) || r >= int64_t(d)) return false;
  q = uint64_t(qe);
  rest = uint(r);
  return true;
}

// The numerator term of one pixel, log2_64(numer1_tmp) − log2_64(numer1),
// without binary64 arithmetic where that is certain to give the same bits:
// with A = sigma12², Q = floor(A / sigma1_sq), f = the rest / sigma1_sq and
// c = (A / sigma1_sq) · eps / sigma1_sq, the exact g·sigma12 is Q + f − c and
// the exact g²·sigma1_sq is Q + f − 2c (to far below 1e-9). The reference's
// doubles lie within 3e-5 of those for Q < 2^36, the float parts here within
// 1e-5; with a margin kVifDelta, both ends of each truncation are tried and
// the answer is kept only where they agree (sv_sq, the gain limit test, and
// numer1_tmp's top 16 bits, which are all log2_64 reads). Returns false
// (about one pixel in a few hundred) where they do not: the caller then runs
// the reference's steps in software binary64.
const float kVifDelta = 1.0e-3;
bool vif_num_fast(int s1, int s12, int s2, float eps_f, float gain_f, uint64_t gain_sq,
                  out int term) {
  const uint64_t a = uint64_t(uint(s12)) * uint64_t(uint(s12));
  uint64_t q;
  uint rest;
  if (!vif_div_q36(a, uint(s1), q, rest)) return false;
  const float fs1 = float(s1);
  const float f = float(rest) / fs1;
  const float c = (float(q) + f) * (eps_f / fs1);
  // sv_sq = max(trunc(sigma2_sq − g·sigma12), 0) = max(floor(K − y), 0).
  const int64_t k = int64_t(s2) - int64_t(q);
  const float y = f - c;
  const int64_t sv_lo = max(k - int64_t(ceil(y + kVifDelta)), int64_t(0));
  const int64_t sv_hi = max(k - int64_t(ceil(y - kVifDelta)), int64_t(0));
  if (sv_lo != sv_hi) return false;
  const uint numer1 = uint(sv_lo) + uint(kSigmaNsq);
  // The gain limit: g >= limit takes g = limit.
  const float ratio = float(s12) / fs1;
  uint64_t t_lo, t_hi;
  if (ratio >= gain_f * (1.0 + 1.0e-5)) {
    t_lo = t_hi = uint64_t(sd_trunc_int64(sd_mul(gain_sq, sd_from_int32(s1))));
  } else if (ratio <= gain_f * (1.0 - 1.0e-5)) {
    const float tf = f - 2.0 * c;
    t_lo = uint64_t(int64_t(q) + int64_t(floor(tf - kVifDelta)));
    t_hi = uint64_t(int64_t(q) + int64_t(floor(tf + kVifDelta)));
  } else {
    return false;
  }
  const int l_lo = log2_64(t_lo + uint64_t(numer1));
  if (t_hi != t_lo && l_lo != log2_64(t_hi + uint64_t(numer1))) return false;
  term = l_lo - vif_log2_32(numer1);  // numer1 is a uint32 in the reference too
  return true;
}

// The reference's steps in software binary64, bit for bit (sigma1_sq >=
// kSigmaNsq, sigma12 > 0, sigma2_sq > 0; eps and gain_limit as double bits).
int vif_num_exact(int sigma1_sq, int sigma12, int sigma2_sq, uint64_t eps, uint64_t gain_limit) {
  const uint64_t d_s1 = sd_from_int32(sigma1_sq);
  const uint64_t d_s12 = sd_from_int32(sigma12);
  uint64_t g = sd_div(d_s12, sd_add(d_s1, eps));
  int sv_sq = sd_trunc_int32(sd_sub(sd_from_int32(sigma2_sq), sd_mul(g, d_s12)));
  sv_sq = max(sv_sq, 0);
  if (!sd_less(g, gain_limit)) g = gain_limit;
  const uint numer1 = uint(sv_sq) + uint(kSigmaNsq);
  const int64_t numer1_tmp = sd_trunc_int64(sd_mul(sd_mul(g, g), d_s1)) + int64_t(numer1);
  return log2_64(uint64_t(numer1_tmp)) - vif_log2_32(numer1);
}
