// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Exact, deterministic reductions for CUDA kernels (DESIGN.md "GPU
/// rules" 1 and 5). nvcc only.
///
/// Integers: each thread accumulates in 64 bits, a block reduces through
/// 64-bit warp shuffles and shared memory into one int64/uint64 partial per
/// block, and sum_partials() adds the partials on the device in a fixed
/// order. Nothing passes through float or 32-bit halves, so the host receives
/// the exact sum. Floating point (float, double): the same trees in a fixed
/// order, so results are identical from run to run (they are not the CPU's
/// sequential order; kernels that must match a sequential CPU sum bit for bit
/// sum in that order themselves, or sum exact integers).

#include <cuda_runtime.h>

#include <cstdint>

namespace vqe::cuda {

/// Sum over the 32 lanes of a full warp, in a fixed tree (offsets 16, 8, 4,
/// 2, 1); the result is valid in lane 0. T: long long, unsigned long long,
/// int, unsigned, float or double (64-bit types shuffle as whole 64-bit
/// values, never as independently summed 32-bit halves).
template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
  return v;
}

/// K independent block-wide sums. Every thread of the block calls it with
/// its K values; the sums are returned in v[] of linear thread 0 (other
/// threads' v[] are unspecified). The block size (x*y*z) must be a multiple
/// of 32 and at most 1024. Fixed order: warp trees, then warp 0 adds the
/// warp totals in a tree. Contains __syncthreads(): call from all threads,
/// not inside divergent code. May be called several times per kernel.
template <int K, typename T>
__device__ __forceinline__ void block_sum_k(T (&v)[K]) {
  __shared__ T partial[K][32];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nthreads = blockDim.x * blockDim.y * blockDim.z;
  const int lane = tid & 31, warp = tid >> 5, warps = nthreads >> 5;
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const T s = warp_sum(v[k]);
    if (lane == 0) partial[k][warp] = s;
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      const T s = lane < warps ? partial[k][lane] : T(0);
      v[k] = warp_sum(s);
    }
  }
  __syncthreads();  // partial[] may be reused by the next call
}

/// One block-wide sum; see block_sum_k. Result valid in linear thread 0.
template <typename T>
__device__ __forceinline__ T block_sum(T v) {
  T a[1] = {v};
  block_sum_k<1, T>(a);
  return a[0];
}

namespace detail {
template <typename T>
__global__ void sum_partials_kernel(const T* __restrict__ partials, int blocks, int k,
                                    T* __restrict__ out) {
  const int column = blockIdx.x;
  T acc = T(0);
  for (int b = threadIdx.x; b < blocks; b += blockDim.x)
    acc += partials[static_cast<long long>(b) * k + column];
  acc = block_sum(acc);
  if (threadIdx.x == 0) out[column] = acc;
}
}  // namespace detail

/// Final reduction of per-block partials on the device, in a fixed order:
/// `d_partials` holds `blocks` rows of `k` values ([block][column]);
/// d_out[j] = Σ_b d_partials[b·k + j] for j < k. One launch of k blocks of
/// 256 threads on `stream`. Deterministic; exact for integer T.
template <typename T>
void sum_partials(const T* d_partials, int blocks, int k, T* d_out, cudaStream_t stream) {
  detail::sum_partials_kernel<T><<<k, 256, 0, stream>>>(d_partials, blocks, k, d_out);
}

/// Grid size for a grid-stride loop over `n` items with `block` threads,
/// capped at `max_blocks` (which keeps partial buffers a fixed size).
inline int grid_for(long long n, int block, int max_blocks = 1024) {
  long long g = (n + block - 1) / block;
  if (g < 1) g = 1;
  return g > max_blocks ? max_blocks : static_cast<int>(g);
}

}  // namespace vqe::cuda
