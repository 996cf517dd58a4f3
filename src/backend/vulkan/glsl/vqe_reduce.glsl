// SPDX-License-Identifier: BSD-2-Clause
// Exact workgroup sums of VQE_REDUCE_K uint64 values per invocation, for a
// 1-D workgroup of 256 invocations (DESIGN.md GPU rules 1 and 6): each
// invocation writes its 64-bit values into workgroup scratch; invocation 0
// adds the 256 values of each sum serially (a fixed order, no atomics, no
// subgroup operations) and stores each sum as a lo/hi pair of uint32 into
// VQE_PARTIALS (an array of uint declared by the includer). The host
// rebuilds each uint64 and adds the workgroups' sums in uint64.
// Scratch: VQE_REDUCE_K x 2 KiB, its own shared array; or, with
// VQE_REDUCE_SCRATCH defined as the name of the includer's shared uint array
// (declared before the include), words VQE_REDUCE_SCRATCH_BASE ..
// + 512 VQE_REDUCE_K of that array, which vqe_reduce_store may then
// overwrite (it starts with a barrier, so that the includer's last reads of
// those words come first).
#ifndef VQE_REDUCE_K
#error "define VQE_REDUCE_K before including vqe_reduce.glsl"
#endif
#ifndef VQE_PARTIALS
#error "define VQE_PARTIALS (the uint array receiving lo/hi pairs)"
#endif

const uint kReduceLanes = 256u;
#ifdef VQE_REDUCE_SCRATCH
#ifndef VQE_REDUCE_SCRATCH_BASE
#define VQE_REDUCE_SCRATCH_BASE 0u
#endif
void vqe_scratch_store(uint k, uint i, uint64_t v) {
  const uint o = uint(VQE_REDUCE_SCRATCH_BASE) + 2u * (k * kReduceLanes + i);
  VQE_REDUCE_SCRATCH[o] = uint(v & 0xfffffffful);
  VQE_REDUCE_SCRATCH[o + 1u] = uint(v >> 32);
}
uint64_t vqe_scratch_load(uint k, uint i) {
  const uint o = uint(VQE_REDUCE_SCRATCH_BASE) + 2u * (k * kReduceLanes + i);
  return uint64_t(VQE_REDUCE_SCRATCH[o]) | (uint64_t(VQE_REDUCE_SCRATCH[o + 1u]) << 32);
}
#define vqe_scratch_set(k, i, v) vqe_scratch_store(uint(k), i, v)
#define vqe_scratch_get(k, i) vqe_scratch_load(uint(k), i)
#else
shared uint64_t vqe_scratch[VQE_REDUCE_K][kReduceLanes];
#define vqe_scratch_set(k, i, v) vqe_scratch[k][i] = (v)
#define vqe_scratch_get(k, i) vqe_scratch[k][i]
#endif

// Stores the workgroup's K sums at VQE_PARTIALS[first + 2k] (low word) and
// VQE_PARTIALS[first + 2k + 1] (high word). Call from every invocation, in
// uniform control flow.
//
// With VQE_REDUCE_TWO_LEVEL defined, the sums take two fixed-order steps
// instead of lane 0's 256 x K serial additions: lane 16k + j adds the 16
// values j·16 .. j·16 + 15 of sum k, then lane k adds sum k's 16 partial
// sums, j in order (integer sums: the same bits; a serial tail of 32 steps
// instead of 256 K, during which the other lanes of the workgroup wait).
void vqe_reduce_store(uint64_t acc[VQE_REDUCE_K], uint first) {
  const uint lane = gl_LocalInvocationIndex;
#ifdef VQE_REDUCE_SCRATCH
  barrier();
#endif
  for (int k = 0; k < VQE_REDUCE_K; ++k) vqe_scratch_set(k, lane, acc[k]);
  barrier();
#ifdef VQE_REDUCE_TWO_LEVEL
  if (lane < 16u * uint(VQE_REDUCE_K)) {
    const uint k = lane / 16u, j = lane % 16u;
    uint64_t part = 0ul;
    for (uint i = 0u; i < 16u; ++i) part += vqe_scratch_get(k, 16u * j + i);
    vqe_scratch_set(k, 16u * j, part);  // only this lane reads or writes values 16j..16j+15 of k
  }
  barrier();
  if (lane < uint(VQE_REDUCE_K)) {
    uint64_t sum = 0ul;
    for (uint j = 0u; j < 16u; ++j) sum += vqe_scratch_get(lane, 16u * j);
    VQE_PARTIALS[first + 2u * lane] = uint(sum & 0xfffffffful);
    VQE_PARTIALS[first + 2u * lane + 1u] = uint(sum >> 32);
  }
#else
  if (lane == 0u) {
    for (int k = 0; k < VQE_REDUCE_K; ++k) {
      uint64_t sum = 0ul;
      for (uint i = 0u; i < kReduceLanes; ++i) sum += vqe_scratch_get(k, i);
      VQE_PARTIALS[first + 2u * uint(k)] = uint(sum & 0xfffffffful);
      VQE_PARTIALS[first + 2u * uint(k) + 1u] = uint(sum >> 32);
    }
  }
#endif
  barrier();
}
