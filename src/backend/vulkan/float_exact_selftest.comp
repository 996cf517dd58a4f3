#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Self-test of glsl/vqe_float_exact.glsl and the float conversions of
// glsl/vqe_softdouble.glsl (tests/gpu/test_float_exact.cpp): one invocation
// per case: cases[i] = {op, a, b, c}, result[i] = {lo, hi, flag}. Ops:
// 0 double of float a; 1 float of double (a lo, b hi); 2 vqe_sqrt_rn(a);
// 3 vqe_div_rn(a, b); 4 the CPU's double sum of the b floats terms[a ..
// a + b) rounded to float (VqeFsum, replayed through sd_add when its fast
// path gives up; flag: 1 when the fast path held); 5 sd_div_narrow of the
// double (a lo, b hi) by the float c; 6 as 4 with vqe_fsum_of (b = 11).
#include "vqe_common.glsl"
#include "vqe_softdouble.glsl"
#include "vqe_float_exact.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Cases { uint cases[]; };
layout(std430, set = 0, binding = 1) readonly buffer Terms { float terms[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Results { uint results[]; };

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.arg[0]) return;
  const uint op = cases[4u * i], a = cases[4u * i + 1u], b = cases[4u * i + 2u];
  const uint c = cases[4u * i + 3u];
  uint64_t r = uint64_t(0);
  uint flag = 0u;
  if (op == 0u) {
    r = sd_from_float(uintBitsToFloat(a));
  } else if (op == 1u) {
    r = uint64_t(floatBitsToUint(sd_to_float(uint64_t(a) | (uint64_t(b) << 32))));
  } else if (op == 2u) {
    r = uint64_t(floatBitsToUint(vqe_sqrt_rn(uintBitsToFloat(a))));
  } else if (op == 3u) {
    r = uint64_t(floatBitsToUint(vqe_div_rn(uintBitsToFloat(a), uintBitsToFloat(b))));
  } else if (op == 5u) {
    r = sd_div_narrow(uint64_t(a) | (uint64_t(b) << 32), sd_from_float(uintBitsToFloat(c)));
  } else {
    VqeFsum f = vqe_fsum_new();
    if (op == 6u) {
      float p[VQE_FSUM_TERMS];
      for (uint k = 0u; k < uint(VQE_FSUM_TERMS); ++k) p[k] = terms[a + k];
      f = vqe_fsum_of(p);
    } else {
      for (uint k = 0u; k < b; ++k) vqe_fsum_add(f, terms[a + k]);
    }
    float sum;
    if (f.ok) {
      sum = vqe_fsum_float(f);
      flag = 1u;
    } else {
      uint64_t acc = uint64_t(0);
      for (uint k = 0u; k < b; ++k) acc = sd_add(acc, sd_from_float(terms[a + k]));
      sum = sd_to_float(acc);
    }
    r = uint64_t(floatBitsToUint(sum));
  }
  results[3u * i] = uint(r & uint64_t(0xffffffffu));
  results[3u * i + 1u] = uint(r >> 32);
  results[3u * i + 2u] = flag;
}
