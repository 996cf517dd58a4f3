#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Self-test of glsl/vqe_softdouble.glsl (tests/gpu/test_softdouble.cpp): one
// invocation per case: ops[i] = {op, a lo, a hi, b lo, b hi}, result as
// lo/hi words. Ops: 0 a+b, 1 a−b, 2 a·b, 3 a/b, 4 double of int64 a,
// 5 trunc int64 of a, 6 a < b, 7 trunc int32 of a, 8 double of int32 a,
// 9 double of (float) of int64 a.
#include "vqe_common.glsl"
#include "vqe_softdouble.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Ops { uint ops[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Results { uint results[]; };

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= pc.arg[0]) return;
  const uint op = ops[5u * i];
  const uint64_t a = uint64_t(ops[5u * i + 1u]) | (uint64_t(ops[5u * i + 2u]) << 32);
  const uint64_t b = uint64_t(ops[5u * i + 3u]) | (uint64_t(ops[5u * i + 4u]) << 32);
  uint64_t r = uint64_t(0);
  if (op == 0u) r = sd_add(a, b);
  else if (op == 1u) r = sd_sub(a, b);
  else if (op == 2u) r = sd_mul(a, b);
  else if (op == 3u) r = sd_div(a, b);
  else if (op == 4u) r = sd_from_int64(int64_t(a));
  else if (op == 5u) r = uint64_t(sd_trunc_int64(a));
  else if (op == 6u) r = sd_less(a, b) ? uint64_t(1) : uint64_t(0);
  else if (op == 7u) r = uint64_t(int64_t(sd_trunc_int32(a)));
  else if (op == 8u) r = sd_from_int32(int(uint(a)));
  else r = sd_float_of_int64(int64_t(a));
  results[2u * i] = uint(r & uint64_t(0xffffffffu));
  results[2u * i + 1u] = uint(r >> 32);
}
