// SPDX-License-Identifier: BSD-2-Clause
// IEEE-754 binary64 arithmetic in integers, for shaders that must reproduce
// the CPU's double-precision steps bit for bit without fp64 (the Metal
// subset: Apple GPUs have no doubles). Values are IEEE bit patterns in
// uint64_t; every operation rounds to nearest, ties to even, exactly as
// the hardware does. Supported: finite normal numbers and zero (no
// subnormals, infinities or NaN: results that would be subnormal flush to
// zero, which the callers' ranges never reach). Tested against the CPU's
// doubles on random and tie-breaking operands by tests/gpu/test_softdouble.cpp
// (shader backend/vulkan/softdouble_selftest.comp).
//
// Internally a value is (sign, unbiased exponent e, 53-bit significand m
// with the leading 1 at bit 52): value = m · 2^(e − 52).

const uint64_t kSdFracMask = (uint64_t(1) << 52) - uint64_t(1);

bool sd_is_zero(uint64_t a) { return (a & ~(uint64_t(1) << 63)) == uint64_t(0); }
bool sd_negative(uint64_t a) { return (a >> 63) != uint64_t(0) && !sd_is_zero(a); }
int sd_exp(uint64_t a) { return int((a >> 52) & uint64_t(0x7ff)) - 1023; }
uint64_t sd_mant(uint64_t a) { return (a & kSdFracMask) | (uint64_t(1) << 52); }

int sd_msb64(uint64_t v) {
  const uint hi = uint(v >> 32);
  return hi != 0u ? 32 + findMSB(hi) : findMSB(uint(v));
}

// Rounds m · 2^(e − 62) (m with its leading 1 at bit 62, `sticky`: nonzero
// bits below m were dropped) to a double of sign `neg`.
uint64_t sd_round_pack(bool neg, int e, uint64_t m, bool sticky) {
  const uint64_t low = m & uint64_t(0x3ff);
  m >>= 10;
  const uint64_t tie = uint64_t(0x200);
  if (low > tie || (low == tie && (sticky || (m & uint64_t(1)) != uint64_t(0)))) m += uint64_t(1);
  if (m == (uint64_t(1) << 53)) {
    m >>= 1;
    e += 1;
  }
  if (e < -1022) return neg ? (uint64_t(1) << 63) : uint64_t(0);  // flush to zero
  return (neg ? (uint64_t(1) << 63) : uint64_t(0)) | (uint64_t(e + 1023) << 52) | (m & kSdFracMask);
}

// Normalises m (nonzero) so that its leading 1 is at bit 62, adjusting e.
void sd_normalize(inout int e, inout uint64_t m) {
  const int shift = 62 - sd_msb64(m);
  if (shift > 0) m <<= shift;
  if (shift < 0) m >>= -shift;  // callers never drop set bits here
  e -= shift;
}

// The double nearest to the integer v.
uint64_t sd_from_int64(int64_t v) {
  if (v == int64_t(0)) return uint64_t(0);
  const bool neg = v < int64_t(0);
  uint64_t a = uint64_t(neg ? -v : v);
  const int msb = sd_msb64(a);
  bool sticky = false;
  if (msb > 62) {  // 2^63 (INT64_MIN): exact after one shift
    sticky = (a & uint64_t(1)) != uint64_t(0);
    a >>= 1;
  }
  int e = msb;
  uint64_t m = a;
  m <<= (62 - sd_msb64(m));
  return sd_round_pack(neg, e, m, sticky);
}

// The double nearest to ±a (a < 2^63, `neg`: negative), rounded to
// nearest even.
uint64_t sd_from_magnitude(bool neg, uint64_t a) {
  if (a == uint64_t(0)) return uint64_t(0);
  const int msb = sd_msb64(a);
  return sd_round_pack(neg, msb, a << (62 - msb), false);
}

// The double of the int32 v (exact). Use this rather than
// sd_from_int64(int64_t(v)) for 32-bit values.
uint64_t sd_from_int32(int v) {
  if (v == 0) return uint64_t(0);
  const bool neg = v < 0;
  const uint a = neg ? 0u - uint(v) : uint(v);
  const int msb = findMSB(a);
  const uint64_t m = uint64_t(a) << (62 - msb);
  return sd_round_pack(neg, msb, m, false);
}

// The int64 v rounded to float (nearest even), as a double: C's
// (double)(float)v. Sign and magnitude are taken in unsigned arithmetic.
uint64_t sd_float_of_int64(int64_t v) {
  const bool neg = (uint64_t(v) >> 63) != uint64_t(0);
  uint64_t a = neg ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  if (a >= (uint64_t(1) << 24)) {
    int shift = sd_msb64(a) - 23;
    const uint64_t low = a & ((uint64_t(1) << shift) - uint64_t(1));
    const uint64_t tie = uint64_t(1) << (shift - 1);
    uint64_t q = a >> shift;
    if (low > tie || (low == tie && (q & uint64_t(1)) != uint64_t(0))) q += uint64_t(1);
    if (q == (uint64_t(1) << 24)) {
      q >>= 1;
      shift += 1;
    }
    // ±q · 2^shift (q < 2^24).
    const int msb = sd_msb64(q);
    return sd_round_pack(neg, msb + shift, q << (62 - msb), false);
  }
  return sd_from_magnitude(neg, a);
}

// a + b.
uint64_t sd_add(uint64_t a, uint64_t b) {
  if (sd_is_zero(a)) return sd_is_zero(b) ? (a & b) : b;
  if (sd_is_zero(b)) return a;
  bool na = (a >> 63) != uint64_t(0), nb = (b >> 63) != uint64_t(0);
  int ea = sd_exp(a), eb = sd_exp(b);
  uint64_t ma = sd_mant(a) << 9, mb = sd_mant(b) << 9;  // leading 1 at bit 61
  // |a| >= |b|.
  if (eb > ea || (eb == ea && mb > ma)) {
    const bool tn = na; na = nb; nb = tn;
    const int te = ea; ea = eb; eb = te;
    const uint64_t tm = ma; ma = mb; mb = tm;
  }
  const int d = ea - eb;
  bool sticky = false;
  if (d >= 63) {
    sticky = true;
    mb = uint64_t(0);
  } else if (d > 0) {
    sticky = (mb & ((uint64_t(1) << d) - uint64_t(1))) != uint64_t(0);
    mb >>= d;
  }
  int e = ea;
  uint64_t m;
  if (na == nb) {
    m = ma + mb;  // < 2^63
    if ((m >> 62) != uint64_t(0)) {
      // leading 1 at bit 62 already
    } else {
      m <<= 1;
      e -= 1;
    }
    e += 1;  // the leading 1 of ma was at bit 61: value = m · 2^(e − 62)
    return sd_round_pack(na, e, m, sticky);
  }
  // Subtraction; a dropped sticky part of b makes the exact difference a
  // little smaller: borrow one unit and keep the sticky bit.
  m = ma - mb - (sticky ? uint64_t(1) : uint64_t(0));
  if (m == uint64_t(0)) return uint64_t(0);
  e += 1;
  sd_normalize(e, m);
  return sd_round_pack(na, e, m, sticky);
}

uint64_t sd_neg(uint64_t a) { return a ^ (uint64_t(1) << 63); }
uint64_t sd_sub(uint64_t a, uint64_t b) { return sd_add(a, sd_neg(b)); }

// a · b.
uint64_t sd_mul(uint64_t a, uint64_t b) {
  const bool neg = ((a ^ b) >> 63) != uint64_t(0);
  if (sd_is_zero(a) || sd_is_zero(b)) return neg ? (uint64_t(1) << 63) : uint64_t(0);
  const uint64_t ma = sd_mant(a), mb = sd_mant(b);
  const uint64_t a0 = ma & uint64_t(0xffffffffu), a1 = ma >> 32;
  const uint64_t b0 = mb & uint64_t(0xffffffffu), b1 = mb >> 32;
  // 106-bit product hi:lo.
  const uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  const uint64_t mid = (p00 >> 32) + (p01 & uint64_t(0xffffffffu)) + (p10 & uint64_t(0xffffffffu));
  const uint64_t lo = (p00 & uint64_t(0xffffffffu)) | (mid << 32);
  const uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  // The product's leading 1 is at bit 104 or 105 of hi:lo (hi bit 40 or 41).
  int e = sd_exp(a) + sd_exp(b);
  const int top = sd_msb64(hi) + 64;  // 104 or 105
  e += top - 104;
  // Bits top..top−62 into m (leading 1 at bit 62); the rest is sticky.
  const int drop = top - 62;  // 42 or 43 bits of lo
  const uint64_t m = (hi << (64 - drop)) | (lo >> drop);
  const bool sticky = (lo & ((uint64_t(1) << drop) - uint64_t(1))) != uint64_t(0);
  return sd_round_pack(neg, e, m, sticky);
}

// One step of sd_div's long division: the next `bits` (<= 21) quotient bits
// floor(r · 2^bits / mb) of a remainder r < mb (mb: a 53-bit significand),
// and the new remainder. `scale` is 2^(29 + bits) / mb in float: the
// estimate from r's top 24 bits is within 2 of the digit, and the remainder
// of an estimate, r · 2^bits − digit · mb, lies within ±3 mb < 2^55, so
// computing it modulo 2^64 (the products overflow) and reading it as a
// signed number gives it exactly; the corrections then make the digit exact.
uint sd_div_digit(inout uint64_t r, uint64_t mb, int bits, float scale) {
  uint d = uint(float(uint(r >> 29)) * scale);
  int64_t rem = int64_t((r << bits) - uint64_t(d) * mb);
  while (rem < int64_t(0)) {
    rem += int64_t(mb);
    d -= 1u;
  }
  while (rem >= int64_t(mb)) {
    rem -= int64_t(mb);
    d += 1u;
  }
  r = uint64_t(rem);
  return d;
}

// a / b (b nonzero): the 63 quotient bits floor(r · 2^62 / mb) of the
// normalised significands (r in [mb, 2 mb)) and whether a remainder is
// left, as a restoring bit-by-bit division gives them, in three digit steps
// of 21, 21 and 20 bits (sd_div_digit) after the leading 1.
uint64_t sd_div(uint64_t a, uint64_t b) {
  const bool neg = ((a ^ b) >> 63) != uint64_t(0);
  if (sd_is_zero(a)) return neg ? (uint64_t(1) << 63) : uint64_t(0);
  const uint64_t ma = sd_mant(a), mb = sd_mant(b);
  int e = sd_exp(a) - sd_exp(b);
  uint64_t r = ma;
  if (r < mb) {
    r <<= 1;
    e -= 1;
  }
  r -= mb;  // the leading quotient bit, 1
  const float s21 = 1125899906842624.0 / float(mb);  // 2^(29 + 21) / mb
  uint64_t q = uint64_t(1);
  q = (q << 21) | uint64_t(sd_div_digit(r, mb, 21, s21));
  q = (q << 21) | uint64_t(sd_div_digit(r, mb, 21, s21));
  q = (q << 20) | uint64_t(sd_div_digit(r, mb, 20, s21 * 0.5));
  return sd_round_pack(neg, e, q, r != uint64_t(0));
}

// a / 2^k (k >= 0): exact (an exponent change), the same bits as
// sd_div(a, 2^k) including the sign of a zero and the flush to zero below
// the normal range.
uint64_t sd_div_pow2(uint64_t a, int k) {
  if (sd_is_zero(a)) return a;
  const int e = sd_exp(a) - k;
  if (e < -1022) return a & (uint64_t(1) << 63);
  return (a & ~(uint64_t(0x7ff) << 52)) | (uint64_t(e + 1023) << 52);
}

// a / b for a divisor whose significand has at most 24 bits (a float made
// double: every float's significand fits), b nonzero: the same bits as
// sd_div, by two 64-bit integer divisions instead of a loop.
uint64_t sd_div_narrow(uint64_t a, uint64_t b) {
  const bool neg = ((a ^ b) >> 63) != uint64_t(0);
  if (sd_is_zero(a)) return neg ? (uint64_t(1) << 63) : uint64_t(0);
  const uint64_t ma = sd_mant(a), mb = sd_mant(b) >> 29;  // 53 and 24 bits
  // ma / mb to 61 or 62 bits: (ma · 2^10) / mb, then 23 more bits from the
  // remainder; the last remainder is the sticky bit.
  const uint64_t n1 = ma << 10;
  const uint64_t q1 = n1 / mb, r1 = n1 - q1 * mb;
  const uint64_t n2 = r1 << 23;
  const uint64_t q2 = n2 / mb, r2 = n2 - q2 * mb;
  uint64_t q = (q1 << 23) | q2;  // a / b = q · 2^(ea − eb − 62)
  const int sh = 62 - sd_msb64(q);  // 0 or 1
  q <<= sh;
  return sd_round_pack(neg, sd_exp(a) - sd_exp(b) - sh, q, r2 != uint64_t(0));
}

// a < b.
bool sd_less(uint64_t a, uint64_t b) {
  const bool na = sd_negative(a), nb = sd_negative(b);
  if (na != nb) return na;
  if (sd_is_zero(a) && sd_is_zero(b)) return false;
  return na ? a > b : a < b;
}

// The double truncated toward zero, as int64 (|a| < 2^63).
int64_t sd_trunc_int64(uint64_t a) {
  if (sd_is_zero(a)) return int64_t(0);
  const int e = sd_exp(a);
  if (e < 0) return int64_t(0);
  const uint64_t m = sd_mant(a);
  const uint64_t v = e <= 52 ? m >> (52 - e) : m << (e - 52);
  return (a >> 63) != uint64_t(0) ? -int64_t(v) : int64_t(v);
}

// The double truncated toward zero as int32, saturating below at INT32_MIN
// (x86's (int32_t) of a double below the range gives INT32_MIN).
int sd_trunc_int32(uint64_t a) {
  if (sd_negative(a) && sd_exp(a) >= 31) return int(0x80000000u);
  return int(sd_trunc_int64(a));
}

// The double of the float f, exactly (C's (double)f; subnormal floats
// included; f must be finite).
uint64_t sd_from_float(float f) {
  const uint b = floatBitsToUint(f);
  const uint64_t sign = uint64_t(b >> 31) << 63;
  const uint ex = (b >> 23) & 0xffu;
  uint m = b & 0x7fffffu;
  if (ex == 0u) {
    if (m == 0u) return sign;
    // Subnormal m · 2^−149: normalise the leading 1 to bit 23.
    const int msb = findMSB(m);
    m = (m << uint(23 - msb)) & 0x7fffffu;
    return sign | (uint64_t(msb - 149 + 1023) << 52) | (uint64_t(m) << 29);
  }
  return sign | (uint64_t(int(ex) - 127 + 1023) << 52) | (uint64_t(m) << 29);
}

// The double a rounded to float, nearest even (C's (float)a), subnormal
// results included; `a` is finite and below FLT_MAX after rounding.
float sd_to_float(uint64_t a) {
  const uint sign = uint(a >> 63) << 31;
  if (sd_is_zero(a)) return uintBitsToFloat(sign);
  int e = sd_exp(a);
  const uint64_t m = sd_mant(a);  // value m · 2^(e − 52)
  // Keep 24 bits (normal result) or fewer (subnormal: units of 2^−149).
  const int shift = e >= -126 ? 29 : 29 + (-126 - e);
  if (shift >= 54) return uintBitsToFloat(sign);  // below half the least subnormal
  uint64_t q = m >> shift;
  const uint64_t low = m & ((uint64_t(1) << shift) - uint64_t(1));
  const uint64_t tie = uint64_t(1) << (shift - 1);
  if (low > tie || (low == tie && (q & uint64_t(1)) != uint64_t(0))) q += uint64_t(1);
  if (e < -126) return uintBitsToFloat(sign | uint(q));  // q <= 2^23: the encoding as is
  if (q == (uint64_t(1) << 24)) {
    q >>= 1;
    e += 1;
  }
  return uintBitsToFloat(sign | (uint(e + 127) << 23) | (uint(q) & 0x7fffffu));
}

// a · 2^k for a normal or zero double whose result stays normal (exact).
uint64_t sd_ldexp(uint64_t a, int k) {
  if (sd_is_zero(a)) return a;
  return (a & ~(uint64_t(0x7ff) << 52)) | (uint64_t(sd_exp(a) + k + 1023) << 52);
}
