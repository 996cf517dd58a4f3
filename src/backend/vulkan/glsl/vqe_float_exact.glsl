// SPDX-License-Identifier: BSD-2-Clause
// Float steps that must give the CPU's bits where GLSL's own operations are
// not exact (Vulkan's sqrt and division are not correctly rounded) or where
// the CPU works in double (no doubles here: the Metal subset). Needs
// vqe_softdouble.glsl.
//
//   vqe_sqrt_rn(x)   the correctly rounded float square root: the CPU's
//                    (float)sqrt((double)x) (rounding sqrt to 53 bits and then
//                    to 24 is the same as rounding it to 24 bits at once: 53 >=
//                    2·24 + 2), in integers;
//   vqe_div_rn(a, b) the correctly rounded float quotient a / b (the
//                    binary64 quotient rounded to float: double rounding is
//                    innocuous for division too);
//   VqeFsum          the CPU's short double sums of float terms,
//                    `double s = 0; s += (double)p_0; s += (double)p_1; ...`
//                    (IQA's convolutions and decimation: float products,
//                    double sums, rounded to float): vqe_fsum_add term by
//                    term, vqe_fsum_of for a fixed window of terms at once;
//                    vqe_fsum_float gives the sum rounded to float.
//
// VqeFsum adds the terms exactly, in a 64-bit fixed-point accumulator whose
// unit is the least significant bit of the smallest term so far, and keeps
// Σ|p| in the same unit. While that bound stays below 2^53 every partial sum
// of the CPU (a multiple of the unit, at most Σ|p|) is a double, so no step
// of the CPU's sum rounded and its result is the exact sum. When the bound
// is reached `ok` turns false and the caller replays the terms through
// sd_add, which rounds each step as the CPU does. The fast path covers the
// usual cases (8-bit and 10-bit samples, smooth content); the replay the
// rest (wide dynamic range within one window).

// sqrt(x) rounded to nearest float, x >= 0 (or −0), finite.
float vqe_sqrt_rn(float x) {
  const uint b = floatBitsToUint(x);
  if ((b & 0x7fffffffu) == 0u) return x;  // sqrt(±0) = ±0
  int ex = int((b >> 23) & 0xffu);
  uint m = b & 0x7fffffu;
  if (ex == 0) {  // subnormal: leading 1 to bit 23
    const int msb = findMSB(m);
    m <<= uint(23 - msb);
    ex = 1 - (23 - msb);
  } else {
    m |= 0x800000u;
  }
  // x = M · 2^e with e even and M in [2^46, 2^48).
  int e = ex - 150 - 23;
  uint64_t big = uint64_t(m) << 23;
  if ((e & 1) != 0) {
    big <<= 1;
    e -= 1;
  }
  // r = floor(sqrt(M)) in [2^23, 2^24): an estimate, then exact corrections.
  uint r = uint(sqrt(float(big)));
  r = clamp(r, 1u << 23, (1u << 24) - 1u);
  for (int i = 0; i < 64 && uint64_t(r) * uint64_t(r) > big; ++i) --r;
  for (int i = 0; i < 64 && uint64_t(r + 1u) * uint64_t(r + 1u) <= big; ++i) ++r;
  // sqrt(M) > r + 1/2 iff M > r² + r (an integer M is never a tie).
  if (big - uint64_t(r) * uint64_t(r) > uint64_t(r)) ++r;
  int er = e / 2;  // value r · 2^er, r in [2^23, 2^24]
  if (r == (1u << 24)) {
    r >>= 1;
    er += 1;
  }
  return uintBitsToFloat((uint(er + 23 + 127) << 23) | (r & 0x7fffffu));
}

// a / b rounded to nearest float (b nonzero, finite operands).
float vqe_div_rn(float a, float b) {
  return sd_to_float(sd_div_narrow(sd_from_float(a), sd_from_float(b)));
}

// An exact short sum of float terms (see above): s · 2^lsb is the sum, a ·
// 2^lsb bounds every partial sum, ok: no partial sum can have rounded.
struct VqeFsum {
  int64_t s;
  int64_t a;
  int lsb;
  bool ok;
};

VqeFsum vqe_fsum_new() {
  VqeFsum f;
  f.s = int64_t(0);
  f.a = int64_t(0);
  f.lsb = 0;
  f.ok = true;
  return f;
}

// Adds the float p (finite) to f.
void vqe_fsum_add(inout VqeFsum f, float p) {
  if (!f.ok) return;
  const uint b = floatBitsToUint(p);
  const uint ex = (b >> 23) & 0xffu;
  uint m = b & 0x7fffffu;
  if (ex == 0u && m == 0u) return;  // ±0 leaves every sum as it is
  int e = ex == 0u ? -149 : int(ex) - 150;
  if (ex != 0u) m |= 0x800000u;
  const int tz = findLSB(m);
  m >>= uint(tz);
  e += tz;  // p = ±m · 2^e, m odd
  const int64_t v = (b >> 31) != 0u ? -int64_t(m) : int64_t(m);
  if (f.a == int64_t(0)) {  // the first nonzero term
    f.s = v;
    f.a = int64_t(m);
    f.lsb = e;
    return;
  }
  if (e >= f.lsb) {
    const int d = e - f.lsb;
    if (findMSB(m) + d >= 53) {
      f.ok = false;
      return;
    }
    f.a += int64_t(m) << d;
    f.s += v << d;
  } else {
    const int d = f.lsb - e;
    if (d >= 53 || (f.a >> (53 - d)) != int64_t(0)) {
      f.ok = false;
      return;
    }
    f.a = (f.a << d) + int64_t(m);
    f.s = (f.s << d) + v;
    f.lsb = e;
  }
  if (f.a >= (int64_t(1) << 53)) f.ok = false;
}

// The exact sum of the VQE_FSUM_TERMS floats p[] in one accumulator whose
// unit is the least significant bit of the smallest nonzero term: two
// unrolled passes over the terms (exponents, then the sum) without per-term
// branches, the cheaper form of vqe_fsum_add for a fixed window. ok is
// false unless Σ|p| stays below 2^53 units, i.e. unless no partial sum of
// the CPU's can have rounded.
#ifndef VQE_FSUM_TERMS
#define VQE_FSUM_TERMS 11
#endif
VqeFsum vqe_fsum_of(float p[VQE_FSUM_TERMS]) {
  int lo = 1000, hi = -1000;
  [[unroll]] for (int k = 0; k < VQE_FSUM_TERMS; ++k) {
    const uint b = floatBitsToUint(p[k]);
    const int e = max(int((b >> 23) & 0xffu), 1) - 150;  // weight of the significand's bit 0
    const bool zero = (b & 0x7fffffffu) == 0u;
    lo = zero ? lo : min(lo, e);
    hi = zero ? hi : max(hi, e);
  }
  VqeFsum f = vqe_fsum_new();
  f.lsb = lo;
  const bool narrow = hi - lo <= 29;  // else some partial sum needs 54 bits
  [[unroll]] for (int k = 0; k < VQE_FSUM_TERMS; ++k) {
    const uint b = floatBitsToUint(p[k]);
    const uint ex = (b >> 23) & 0xffu;
    const uint m = (b & 0x7fffffu) | (ex != 0u ? 0x800000u : 0u);
    // Shift 0 for ±0; at most 29 where narrow (the value is unused otherwise).
    const int64_t v = int64_t(m) << uint(clamp(max(int(ex), 1) - 150 - lo, 0, 29));
    f.a += v;
    f.s += (b >> 31) != 0u ? -v : v;
  }
  f.ok = narrow && f.a < (int64_t(1) << 53);
  return f;
}

// The sum rounded to float (valid when f.ok): the CPU's (float)s.
float vqe_fsum_float(VqeFsum f) {
  if (f.s == int64_t(0)) return 0.0;
  const bool neg = f.s < int64_t(0);
  const uint64_t mag = uint64_t(neg ? -f.s : f.s);
  return sd_to_float(sd_ldexp(sd_from_magnitude(neg, mag), f.lsb));
}
