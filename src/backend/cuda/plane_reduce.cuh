// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Exact per-frame sums over one plane pair: a kernel that applies a
/// per-sample functor accumulating K uint64 values and reduces them with
/// block_sum_k + sum_partials (reduce.cuh), and per-slot scratch for it.
/// nvcc only.

#include <cstddef>
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

/// Per-slot device scratch for pair_reduce(): partials and K outputs.
struct SlotSums {
  int blocks = 0, k = 0;
  unsigned long long* partials = nullptr;  // [slot][blocks * k]
  unsigned long long* out = nullptr;       // [slot][k]
  unsigned long long* host = nullptr;      // pinned [slot][k]

  void init(Context& ctx, int height, int k_values) {
    blocks = pair_reduce_blocks(height);
    k = k_values;
    partials = ctx.pool().alloc_n<unsigned long long>(static_cast<std::size_t>(Context::kSlots) * blocks * k);
    out = ctx.pool().alloc_n<unsigned long long>(static_cast<std::size_t>(Context::kSlots) * k);
    host = ctx.pool().host_alloc_n<unsigned long long>(static_cast<std::size_t>(Context::kSlots) * k);
  }
  unsigned long long* partials_of(int slot) const { return partials + static_cast<std::size_t>(slot) * blocks * k; }
  unsigned long long* out_of(int slot) const { return out + static_cast<std::size_t>(slot) * k; }
  const unsigned long long* host_of(int slot) const { return host + static_cast<std::size_t>(slot) * k; }
  void read_back(int slot, int count, cudaStream_t s) const {
    VQE_CUDA_CHECK(cudaMemcpyAsync(host + static_cast<std::size_t>(slot) * k, out_of(slot),
                                   count * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  }
};

}  // namespace vqe::cuda
