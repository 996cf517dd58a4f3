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
  explicit CudaFloatAnsnr(const ParsedOptions& opts) : twin_(make_cpu_twin("float_ansnr", opts)) {
    // ansnr_tools.c's filters, each coefficient computed in double and
    // rounded to float, as the CPU twin does.
    const int ref_taps[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    const int dis_taps[25] = {2,  7,  12, 7,  2,  7,  31, 52, 31, 7,  12, 52, 127,
                              52, 12, 7,  31, 52, 31, 7,  2,  7,  12, 7,  2};
    for (int i = 0; i < 9; ++i) filters_.ref[i] = static_cast<float>(ref_taps[i] / 16.0);
    for (int i = 0; i < 25; ++i) filters_.dis[i] = static_cast<float>(dis_taps[i] / 571.0);
  }

  void init(const VideoFormat& format, Context& ctx) override {
    twin_->init(format);
    names_ = twin_->feature_names();
    ctx_ = &ctx;
    format_ = format;
    switch (format.bit_depth) {
      case 8: peak_ = 255.0; psnr_max_ = 60.0; break;
      case 10: peak_ = 255.75; psnr_max_ = 72.0; break;
      case 12: peak_ = 255.9375; psnr_max_ = 84.0; break;
      default: peak_ = 255.99609375; psnr_max_ = 108.0; break;
    }
    n_ = static_cast<std::size_t>(format.width) * format.height;
    const std::size_t slots = Context::kSlots;
    ref_f_ = ctx.pool().alloc_n<float>(slots * n_);
    dis_f_ = ctx.pool().alloc_n<float>(slots * n_);
    rows_ = ctx.pool().alloc_n<float>(slots * 2 * static_cast<std::size_t>(format.height));
    d_out_ = ctx.pool().alloc_n<float>(2 * slots);
    h_out_ = ctx.pool().host_alloc_n<float>(2 * slots);
  }

  std::vector<std::string> feature_names() const override { return twin_->feature_names(); }
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
    const int w = format_.width, h = format_.height;
    const float signal = h_out_[2 * slot], noise = h_out_[2 * slot + 1];
    // The ratio is a float division, as in the CPU twin.
    const double ansnr =
        noise == 0 ? psnr_max_ : 10.0 * std::log10(static_cast<double>(signal / noise));
    const double eps = 1e-10;
    const double noise_floor = static_cast<double>(noise) > eps ? static_cast<double>(noise) : eps;
    const double anpsnr = 10 * std::log10(peak_ * peak_ * w * h / noise_floor);
    out.set(names_[0], index, ansnr);
    out.set(names_[1], index, anpsnr < psnr_max_ ? anpsnr : psnr_max_);
  }

 private:
  std::unique_ptr<FeatureExtractor> twin_;
  AnsnrFilters filters_{};
  std::vector<std::string> names_;
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  double peak_ = 255, psnr_max_ = 60;
  std::size_t n_ = 0;
  float* ref_f_ = nullptr;  // [slot][w*h]
  float* dis_f_ = nullptr;  // [slot][w*h]
  float* rows_ = nullptr;   // [slot][h][2]
  float* d_out_ = nullptr;  // [slot][2]
  float* h_out_ = nullptr;  // pinned [slot][2]
};

const bool kRegistered = register_cuda_extractor(
    "float_ansnr", [](const ParsedOptions& o) -> std::unique_ptr<CudaExtractor> {
      return std::make_unique<CudaFloatAnsnr>(o);
    });

}  // namespace
}  // namespace vqe::cuda
