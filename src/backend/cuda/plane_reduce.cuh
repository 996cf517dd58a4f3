// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Exact per-frame sums over one plane pair: a kernel that applies a
/// per-sample functor accumulating K uint64 values and reduces them with
/// block_sum_k + sum_partials (reduce.cuh). nvcc only.

#include <cstdint>

#include "backend/cuda/reduce.cuh"
#include "backend/cuda/runtime.cuh"

namespace vqe::cuda {

namespace detail {
/// Blocks take rows blockIdx.x, blockIdx.x + gridDim.x, ...; threads take
/// columns. Op: `__device__ void operator()(T ref, T dist, unsigned long long (&acc)[K])`.
template <typename T, int K, typename Op>
__global__ void pair_reduce_kernel(DevicePlane a, DevicePlane b, Op op,
                                   unsigned long long* __restrict__ partials) {
  unsigned long long acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = 0;
  for (int y = blockIdx.x; y < a.height; y += gridDim.x) {
    const T* ra = a.row<T>(y);
    const T* rb = b.row<T>(y);
    for (int x = threadIdx.x; x < a.width; x += blockDim.x) op(ra[x], rb[x], acc);
  }
  block_sum_k<K>(acc);
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) partials[blockIdx.x * K + k] = acc[k];
  }
}
}  // namespace detail

/// Number of blocks pair_reduce() uses for a plane of `height` rows (size
/// the partials buffer as pair_reduce_blocks(h) * K).
inline int pair_reduce_blocks(int height) { return height < 1024 ? height : 1024; }

/// d_out[k] = Σ over the plane pair of op's k-th accumulator, exactly.
/// `partials`: device scratch of pair_reduce_blocks(a.height) * K values.
/// T is uint8_t at 8 bits, uint16_t above. Enqueued on `stream`.
template <typename T, int K, typename Op>
void pair_reduce(const DevicePlane& a, const DevicePlane& b, Op op, unsigned long long* partials,
                 unsigned long long* d_out, cudaStream_t stream) {
  const int blocks = pair_reduce_blocks(a.height);
  detail::pair_reduce_kernel<T, K, Op><<<blocks, 256, 0, stream>>>(a, b, op, partials);
  VQE_CUDA_CHECK(cudaGetLastError());
  sum_partials(partials, blocks, K, d_out, stream);
  VQE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace vqe::cuda
