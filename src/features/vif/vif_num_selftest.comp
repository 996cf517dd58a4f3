#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Self-test of vif_num.glsl (tests/gpu/test_vif_num.cpp): one invocation per
// case {sigma1_sq, sigma12, sigma2_sq, gain limit lo, hi} (the gain limit as
// double bits); eps as double bits in push args 1, 2; args 0: cases.
// Results per case: whether vif_num_fast decided, its term, vif_num_exact's.
#include "vqe_common.glsl"
#include "vqe_softdouble.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Cases { uint cases[]; };
layout(std430, set = 0, binding = 1) readonly buffer Log2 { uint log2_entries[]; };  // 2^15..2^16-1
layout(std430, set = 0, binding = 2) writeonly buffer Results { int results[]; };

#define VIF_LOG2(i) log2_entries[(i) - 32768u]
#include "vif_num.glsl"

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.arg[0]) return;
  const int s1 = int(cases[5u * i]), s12 = int(cases[5u * i + 1u]), s2 = int(cases[5u * i + 2u]);
  const uint64_t gain = uint64_t(cases[5u * i + 3u]) | (uint64_t(cases[5u * i + 4u]) << 32);
  const uint64_t eps = uint64_t(pc.arg[1]) | (uint64_t(pc.arg[2]) << 32);
  int fast = 0;
  const bool decided =
      vif_num_fast(s1, s12, s2, sd_estimate(eps), sd_estimate(gain), sd_mul(gain, gain), fast);
  results[3u * i] = decided ? 1 : 0;
  results[3u * i + 1u] = fast;
  results[3u * i + 2u] = vif_num_exact(s1, s12, s2, eps, gain);
}
