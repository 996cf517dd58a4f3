// SPDX-License-Identifier: BSD-2-Clause
// CUDA twin of float_ansnr (src/features/float_ansnr/float_ansnr.cpp),
// bit-identical: every filtered sample is formed in the CPU's float order
// (per kernel row a partial over its taps left to right, partials added top
// to bottom; no FMA: built with --fmad=false), the per-row float sums run
// sequentially over x in one thread per row, and the row sums are added in
// row order by one thread, exactly as the CPU loops do. Scratch is per ring
// slot (frames run concurrently).

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "features/float_ansnr/ansnr_score.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

struct AnsnrFilters {
  float ref[9];
  float dis[25];
};

// float_ansnr's border rule: -i before the start, 2n-1-i past the end,
// folded until inside [0, n).
__device__ __forceinline__ int ansnr_mirror(int i, int n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

// plane_to_float(offset −128): 8-bit as is, deeper divided by 2^(bpc−8).
template <typename T>
__device__ __forceinline__ float to_float(const DevicePlane& p, int x, int y, float scale,
                                          bool hbd) {
  const float v = static_cast<float>(p.row<T>(y)[x]);
  return (hbd ? v / scale : v) + -128.0f;
}

template <typename T, int FW>
__device__ float filter_at(const DevicePlane& p, const float* k, int x, int y, float scale,
                           bool hbd) {
  const int r = FW / 2;
  float accum = 0;
  for (int fi = 0; fi < FW; ++fi) {
    const int yy = ansnr_mirror(y - r + fi, p.height);
    float inner = 0;
    for (int fj = 0; fj < FW; ++fj) {
      const int xx = ansnr_mirror(x - r + fj, p.width);
      inner += k[fi * FW + fj] * to_float<T>(p, xx, yy, scale, hbd);
    }
    accum += inner;
  }
  return accum;
}

template <typename T>
__global__ void ansnr_filter(DevicePlane ref, DevicePlane dis, AnsnrFilters f, float scale,
                             bool hbd, float* __restrict__ ref_f, float* __restrict__ dis_f) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= ref.width) return;
  const std::size_t i = static_cast<std::size_t>(y) * ref.width + x;
  ref_f[i] = filter_at<T, 3>(ref, f.ref, x, y, scale, hbd);
  dis_f[i] = filter_at<T, 5>(dis, f.dis, x, y, scale, hbd);
}

// One thread per row: the CPU's sequential float row sums.
__global__ void ansnr_rows(const float* __restrict__ r, const float* __restrict__ d, int w, int h,
                           float* __restrict__ rows) {
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h) return;
  const float* rr = r + static_cast<std::size_t>(y) * w;
  const float* dd = d + static_cast<std::size_t>(y) * w;
  float signal = 0, noise = 0;
  for (int x = 0; x < w; ++x) {
    signal += rr[x] * rr[x];
    noise += (rr[x] - dd[x]) * (rr[x] - dd[x]);
  }
  rows[2 * y] = signal;
  rows[2 * y + 1] = noise;
}

// One thread: row sums added in row order.
__global__ void ansnr_total(const float* __restrict__ rows, int h, float* __restrict__ out) {
  float signal = 0, noise = 0;
  for (int y = 0; y < h; ++y) {
    signal += rows[2 * y];
    noise += rows[2 * y + 1];
  }
  out[0] = signal;
  out[1] = noise;
}

class CudaFloatAnsnr final : public CudaExtractor {
 public:
  explicit CudaFloatAnsnr(const ParsedOptions& opts) : scorer_(opts) {
    for (int i = 0; i < 9; ++i) filters_.ref[i] = ansnr::filters().ref[i];
    for (int i = 0; i < 25; ++i) filters_.dis[i] = ansnr::filters().dis[i];
  }

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);
    ctx_ = &ctx;
    format_ = format;
    n_ = static_cast<std::size_t>(format.width) * format.height;
    const std::size_t slots = Context::kSlots;
    ref_f_ = ctx.pool().alloc_n<float>(slots * n_);
    dis_f_ = ctx.pool().alloc_n<float>(slots * n_);
    rows_ = ctx.pool().alloc_n<float>(slots * 2 * static_cast<std::size_t>(format.height));
    d_out_ = ctx.pool().alloc_n<float>(2 * slots);
    h_out_ = ctx.pool().host_alloc_n<float>(2 * slots);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool concurrent_frames() const override { return true; }

  void enqueue(const DeviceFrame& f) override {
    const int w = format_.width, h = format_.height;
    cudaStream_t s = ctx_->stream();
    const float scale = static_cast<float>(1 << (f.bpc - 8));
    float* ref_f = ref_f_ + f.slot * n_;
    float* dis_f = dis_f_ + f.slot * n_;
    float* rows = rows_ + static_cast<std::size_t>(f.slot) * 2 * h;
    float* out = d_out_ + 2 * f.slot;
    const dim3 block(128), grid((w + 127) / 128, h);
    if (f.bpc == 8)
      ansnr_filter<std::uint8_t><<<grid, block, 0, s>>>(f.ref[0], f.dist[0], filters_, scale,
                                                        false, ref_f, dis_f);
    else
      ansnr_filter<std::uint16_t><<<grid, block, 0, s>>>(f.ref[0], f.dist[0], filters_, scale,
                                                         true, ref_f, dis_f);
    VQE_CUDA_CHECK(cudaGetLastError());
    ansnr_rows<<<(h + 127) / 128, 128, 0, s>>>(ref_f, dis_f, w, h, rows);
    VQE_CUDA_CHECK(cudaGetLastError());
    ansnr_total<<<1, 1, 0, s>>>(rows, h, out);
    VQE_CUDA_CHECK(cudaGetLastError());
    VQE_CUDA_CHECK(cudaMemcpyAsync(h_out_ + 2 * f.slot, out, 2 * sizeof(float),
                                   cudaMemcpyDeviceToHost, s));
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    scorer_.emit(index, h_out_[2 * slot], h_out_[2 * slot + 1], out);
  }

 private:
  ansnr::Scorer scorer_;
  AnsnrFilters filters_{};
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  std::size_t n_ = 0;
  float* ref_f_ = nullptr;  // [slot][w*h]
  float* dis_f_ = nullptr;  // [slot][w*h]
  float* rows_ = nullptr;   // [slot][h][2]
  float* d_out_ = nullptr;  // [slot][2]
  float* h_out_ = nullptr;  // pinned [slot][2]
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::ansnr::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaFloatAnsnr>(options);
}
