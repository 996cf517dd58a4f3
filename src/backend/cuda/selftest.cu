// SPDX-License-Identifier: BSD-2-Clause
// Test entry points for the reduction primitives (selftest.h).

#include <cstdint>
#include <vector>

#include "backend/cuda/reduce.cuh"
#include "backend/cuda/runtime.cuh"
#include "backend/cuda/selftest.h"

namespace vqe::cuda::selftest {
namespace {

template <typename In, typename Acc, int K>
__global__ void sum_kernel(const In* __restrict__ data, long long n, Acc* __restrict__ partials) {
  Acc acc[K];
#pragma unroll
  for (int k = 0; k < K; ++k) acc[k] = Acc(0);
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const Acc v = static_cast<Acc>(data[i]);
    acc[0] += v;
    if constexpr (K > 1) acc[1] += v * v;
  }
  block_sum_k<K>(acc);
  if (threadIdx.x == 0)
    for (int k = 0; k < K; ++k) partials[blockIdx.x * K + k] = acc[k];
}

template <typename In, typename Acc, int K>
std::vector<Acc> run(const std::vector<In>& data, int block, int max_blocks) {
  DevicePool pool;
  const long long n = static_cast<long long>(data.size());
  In* d_in = static_cast<In*>(pool.alloc(data.size() * sizeof(In) + 1));
  const int blocks = grid_for(n, block, max_blocks);
  Acc* partials = static_cast<Acc*>(pool.alloc(sizeof(Acc) * blocks * K));
  Acc* out = static_cast<Acc*>(pool.alloc(sizeof(Acc) * K));
  if (!data.empty())
    VQE_CUDA_CHECK(
        cudaMemcpy(d_in, data.data(), data.size() * sizeof(In), cudaMemcpyHostToDevice));
  sum_kernel<In, Acc, K><<<blocks, block>>>(d_in, n, partials);
  VQE_CUDA_CHECK(cudaGetLastError());
  sum_partials(partials, blocks, K, out, nullptr);
  VQE_CUDA_CHECK(cudaGetLastError());
  std::vector<Acc> result(K);
  VQE_CUDA_CHECK(cudaMemcpy(result.data(), out, sizeof(Acc) * K, cudaMemcpyDeviceToHost));
  return result;
}

}  // namespace

std::uint64_t sum_u64(const std::vector<std::uint64_t>& data, int block, int max_blocks) {
  return run<std::uint64_t, unsigned long long, 1>(data, block, max_blocks)[0];
}
std::int64_t sum_i64(const std::vector<std::int64_t>& data, int block, int max_blocks) {
  return run<std::int64_t, long long, 1>(data, block, max_blocks)[0];
}
std::vector<std::uint64_t> sum_u16_moments(const std::vector<std::uint16_t>& data, int block,
                                           int max_blocks) {
  const auto r = run<std::uint16_t, unsigned long long, 2>(data, block, max_blocks);
  return {r[0], r[1]};
}
double sum_f64(const std::vector<double>& data, int block, int max_blocks) {
  return run<double, double, 1>(data, block, max_blocks)[0];
}

}  // namespace vqe::cuda::selftest
