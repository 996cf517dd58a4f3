// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file CUDA kernels of the integer motion SAD after libvmaf 3.2.0's
/// definition (motion_kernels.h: the blurred difference of two luma frames,
/// reflect-101 borders, the vertical pass rounded to bpc fractional bits, the
/// horizontal one to 16, |.| summed exactly in uint64). Shared by `motion`
/// (motion_cuda.cu) and `motion_v2` (motion_v2_cuda.cu), whose SADs are the
/// same integers. nvcc only; each including .cu file gets its own copy (the
/// build does not link device code across files).

#include <cstddef>

#include "backend/cuda/plane_reduce.cuh"
#include "backend/cuda/reduce.cuh"
#include "backend/cuda/runtime.cuh"

namespace vqe::cuda {
namespace {

/// The 5-tap filter of libvmaf's integer motion (taps sum to 65536).
__constant__ int kMotionFilter[5] = {3571, 16004, 26386, 16004, 3571};

/// motion_kernels.cpp's reflect-101 mirror, folded until inside [0, n).
__device__ __forceinline__ int reflect101(int i, int n) {
  if (n <= 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

/// Vertical pass over prev − cur: v = (Σ f[k]·(p − c) + 2^(bpc−1)) >> bpc
/// (64-bit here; the CPU's 32-bit accumulator does not overflow up to 12
/// bits). Grid: x covers the width, y is the row. `out`: w·h int32.
template <typename T>
__global__ void diff_vertical(DevicePlane prev, DevicePlane cur, int bpc, int* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  const int w = cur.width, h = cur.height;
  if (x >= w) return;
  long long acc = 0;
#pragma unroll
  for (int k = 0; k < 5; ++k) {
    const int r = reflect101(y - 2 + k, h);
    const long long d =
        static_cast<long long>(prev.row<T>(r)[x]) - static_cast<long long>(cur.row<T>(r)[x]);
    acc += static_cast<long long>(kMotionFilter[k]) * d;
  }
  out[static_cast<std::size_t>(y) * w + x] = static_cast<int>((acc + (1LL << (bpc - 1))) >> bpc);
}

/// Horizontal pass (round to 16 bits), |.|, exact block sums into
/// partials[blockIdx.x] (the CPU's 32-bit row sums cannot overflow: |v| <
/// 2^16 and rows hold at most 32768 samples). Blocks take rows blockIdx.x,
/// blockIdx.x + gridDim.x, ...
__global__ void diff_horizontal_sad(const int* __restrict__ v, int w, int h,
                                    unsigned long long* __restrict__ partials) {
  unsigned long long acc = 0;
  for (int y = blockIdx.x; y < h; y += gridDim.x) {
    const int* row = v + static_cast<std::size_t>(y) * w;
    for (int x = threadIdx.x; x < w; x += blockDim.x) {
      long long s = 0;
#pragma unroll
      for (int k = 0; k < 5; ++k)
        s += static_cast<long long>(kMotionFilter[k]) * row[reflect101(x - 2 + k, w)];
      const int r = static_cast<int>((s + (1LL << 15)) >> 16);
      acc += static_cast<unsigned>(r < 0 ? -r : r);
    }
  }
  acc = block_sum(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

/// Enqueues on `stream` the SAD of the blurred difference prev − cur (luma
/// planes of one size, `bpc` 8..16) into `*d_sad`. Scratch: `v` holds
/// width·height int32, `partials` holds `blocks` uint64 (blocks =
/// pair_reduce_blocks(height)). Never synchronises.
template <typename T>
void enqueue_difference_sad(const DevicePlane& prev, const DevicePlane& cur, int bpc, int* v,
                            unsigned long long* partials, int blocks,
                            unsigned long long* d_sad, cudaStream_t stream) {
  const int w = cur.width, h = cur.height;
  const dim3 block(128), grid((w + 127) / 128, h);
  diff_vertical<T><<<grid, block, 0, stream>>>(prev, cur, bpc, v);
  VQE_CUDA_CHECK(cudaGetLastError());
  diff_horizontal_sad<<<blocks, 256, 0, stream>>>(v, w, h, partials);
  VQE_CUDA_CHECK(cudaGetLastError());
  sum_partials(partials, blocks, 1, d_sad, stream);
  VQE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace
}  // namespace vqe::cuda
