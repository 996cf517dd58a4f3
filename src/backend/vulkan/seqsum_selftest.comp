#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Self-test of glsl/vqe_seqsum.glsl (tests/gpu/test_float_exact.cpp): one
// workgroup per sequence of pc.arg[0] elements, each element four doubles
// (values[seq][i][4] as lo/hi words), summed in order as four sequential
// double sums into sums[seq][4] (lo/hi words). A dispatch adds chunks
// [pc.arg[1], pc.arg[1] + pc.arg[2]) of 256 elements, starting from the sums
// of the dispatch before (none for chunk 0): long sequences take several
// dispatches, as SSIM's maps do (lavapipe's loop limit).
#include "vqe_common.glsl"
#include "vqe_softdouble.glsl"
#define VQE_SEQ_K 4
#include "vqe_seqsum.glsl"

layout(local_size_x = 256) in;
layout(std430, set = 0, binding = 0) readonly buffer Values { uint values[]; };
layout(std430, set = 0, binding = 1) buffer Sums { uint sums[]; };

void main() {
  const uint seq = gl_WorkGroupID.x, n = pc.arg[0], lane = gl_LocalInvocationIndex;
  const uint first_chunk = pc.arg[1];
  uint64_t start[4] = uint64_t[4](uint64_t(0), uint64_t(0), uint64_t(0), uint64_t(0));
  if (first_chunk > 0u)
    for (uint q = 0u; q < 4u; ++q)
      start[q] = uint64_t(sums[(seq * 4u + q) * 2u]) | (uint64_t(sums[(seq * 4u + q) * 2u + 1u]) << 32);
  vqe_seq_begin(start);
  const uint end = min(n, (first_chunk + pc.arg[2]) * kSeqLanes);
  for (uint first = first_chunk * kSeqLanes; first < end; first += kSeqLanes) {
    uint64_t x[4] = uint64_t[4](uint64_t(0), uint64_t(0), uint64_t(0), uint64_t(0));
    if (first + lane < end)
      for (uint q = 0u; q < 4u; ++q) {
        const uint at = ((seq * n + first + lane) * 4u + q) * 2u;
        x[q] = uint64_t(values[at]) | (uint64_t(values[at + 1u]) << 32);
      }
    vqe_seq_chunk(x, min(kSeqLanes, end - first));
  }
  if (lane == 0u)
    for (uint q = 0u; q < 4u; ++q) {
      sums[(seq * 4u + q) * 2u] = uint(vqe_seq_sum[q] & uint64_t(0xffffffffu));
      sums[(seq * 4u + q) * 2u + 1u] = uint(vqe_seq_sum[q] >> 32);
    }

}
