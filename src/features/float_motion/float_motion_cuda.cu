// SPDX-License-Identifier: BSD-2-Clause
// CUDA twin of float_motion (src/features/float_motion/), bit-identical:
// the blur, the optional half-scale bilinear resampling and the mean
// absolute difference use the CPU kernels' float operation order
// (float_motion_kernels.cpp; --fmad=false keeps products and sums apart),
// the per-row sums run sequentially in one thread per row and the row sums
// in row order in one thread. motion2/motion3 bookkeeping is
// float_motion.cpp's. Keeps a ring of blurred frames, so it runs serially.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "features/float_motion/float_motion_score.h"
#include "features/float_motion/float_motion_kernels.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

struct BlurFilter {
  float f[5];
  int width;
};

__device__ __forceinline__ int fm_mirror(int i, int n) {
  if (n <= 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

// Vertical pass of convolve(): 0 + f[0]·s[0] + f[1]·s[1] + ... on samples
// converted as plane_to_float(offset −128).
template <typename T>
__global__ void fm_vertical(DevicePlane src, BlurFilter filt, float scale, bool hbd,
                            float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= src.width) return;
  const int r = filt.width / 2;
  float acc = 0;
  for (int k = 0; k < filt.width; ++k) {
    const float v = static_cast<float>(src.row<T>(fm_mirror(y - r + k, src.height))[x]);
    const float s = (hbd ? v / scale : v) + -128.0f;
    acc += filt.f[k] * s;
  }
  out[static_cast<std::size_t>(y) * src.width + x] = acc;
}

// Horizontal pass; the CPU's padded row holds reflect-101 copies, i.e. the
// value at the mirrored column.
__global__ void fm_horizontal(const float* __restrict__ t, BlurFilter filt, int w, int h,
                              float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= w) return;
  const int r = filt.width / 2;
  const float* row = t + static_cast<std::size_t>(y) * w;
  float acc = 0;
  for (int k = 0; k < filt.width; ++k) acc += filt.f[k] * row[fm_mirror(x - r + k, w)];
  out[static_cast<std::size_t>(y) * w + x] = acc;
}

struct BilinearDevice {
  const int *x1, *x2, *y1, *y2;
  const float *dx, *dy;
  int src_w, dst_w, dst_h;
};

// bilinear_scale() with the host-computed plan (float_motion_kernels.cpp).
__global__ void fm_bilinear(const float* __restrict__ src, BilinearDevice p,
                            float* __restrict__ dst) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= p.dst_w) return;
  const float dy = p.dy[y];
  const float* r1 = src + static_cast<std::size_t>(p.y1[y]) * p.src_w;
  const float* r2 = src + static_cast<std::size_t>(p.y2[y]) * p.src_w;
  const int x1 = p.x1[x], x2 = p.x2[x];
  const float dx = p.dx[x];
  dst[static_cast<std::size_t>(y) * p.dst_w + x] = (1 - dy) * (1 - dx) * r1[x1] +
                                                   (1 - dy) * dx * r1[x2] +
                                                   dy * (1 - dx) * r2[x1] + dy * dx * r2[x2];
}

// mean_abs_difference, row part: one thread per row, sequential over x,
// each |difference| added in double and the line sum rounded to float.
__global__ void fm_rows(const float* __restrict__ a, const float* __restrict__ b, int w, int h,
                        float* __restrict__ rows) {
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h) return;
  const float* ra = a + static_cast<std::size_t>(y) * w;
  const float* rb = b + static_cast<std::size_t>(y) * w;
  float line = 0;
  for (int x = 0; x < w; ++x)
    line = static_cast<float>(static_cast<double>(line) + fabs(static_cast<double>(ra[x] - rb[x])));
  rows[y] = line;
}

// Row sums in row order, then the float division by width·height.
__global__ void fm_total(const float* __restrict__ rows, int w, int h, float* __restrict__ out) {
  float acc = 0;
  for (int y = 0; y < h; ++y) acc += rows[y];
  *out = acc / static_cast<float>(w * h);
}


class CudaFloatMotion final : public CudaExtractor {
 public:
  explicit CudaFloatMotion(const ParsedOptions& opts)
      : scorer_(opts), force_zero_(scorer_.force_zero()), add_scale1_(scorer_.add_scale1()),
        add_uv_(scorer_.add_uv()) {
    filter_.width = scorer_.filter_width();
    for (int k = 0; k < 5; ++k) filter_.f[k] = k < filter_.width ? scorer_.filter()[k] : 0.0f;
  }

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);
    ctx_ = &ctx;
    format_ = format;
    planes_.clear();
    frames_ = 0;
    if (force_zero_) return;
    const int n_planes = add_uv_ ? 3 : 1;
    for (int p = 0; p < n_planes; ++p) {
      PlaneState s;
      s.width = format.plane_width(p);
      s.height = format.plane_height(p);
      const std::size_t n = static_cast<std::size_t>(s.width) * s.height;
      s.tmp = ctx.pool().alloc_n<float>(n);
      for (auto& b : s.blur) b = ctx.pool().alloc_n<float>(n);
      int max_rows = s.height;
      if (add_scale1_) {
        const auto plan = float_motion::make_half_scale_plan(s.width, s.height);
        s.dst_w = plan.dst_w;
        s.dst_h = plan.dst_h;
        s.same_size = plan.dst_w == s.width && plan.dst_h == s.height;
        const std::size_t m = static_cast<std::size_t>(plan.dst_w) * plan.dst_h;
        s.scaled_a = ctx.pool().alloc_n<float>(m);
        s.scaled_b = ctx.pool().alloc_n<float>(m);
        auto put = [&](const auto& v) {
          using V = typename std::decay_t<decltype(v)>::value_type;
          V* d = ctx.pool().alloc_n<V>(v.size());
          VQE_CUDA_CHECK(cudaMemcpy(d, v.data(), v.size() * sizeof(V), cudaMemcpyHostToDevice));
          return d;
        };
        s.plan = BilinearDevice{put(plan.x1), put(plan.x2), put(plan.y1), put(plan.y2),
                                put(plan.dx), put(plan.dy), s.width, plan.dst_w, plan.dst_h};
        max_rows = std::max(max_rows, plan.dst_h);
      }
      s.rows = ctx.pool().alloc_n<float>(static_cast<std::size_t>(max_rows));
      planes_.push_back(s);
    }
    d_out_ = ctx.pool().alloc_n<float>(6);
    h_out_ = ctx.pool().host_alloc_n<float>(6 * Context::kSlots);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }
  unsigned lag() const override { return scorer_.lag(); }
  bool needs_chroma() const override { return add_uv_; }

  void enqueue(const DeviceFrame& f) override {
    if (f.index != frames_)
      throw Error("float_motion: frame " + std::to_string(f.index) +
                  " arrived out of order (expected frame " + std::to_string(frames_) + ")");
    ++frames_;
    if (force_zero_) return;
    cudaStream_t st = ctx_->stream();
    const float scale = static_cast<float>(1 << (f.bpc - 8));
    for (std::size_t p = 0; p < planes_.size(); ++p) {
      PlaneState& s = planes_[p];
      const dim3 block(128), grid((s.width + 127) / 128, s.height);
      float* cur = s.blur[f.index % 3];
      if (f.bpc == 8)
        fm_vertical<std::uint8_t><<<grid, block, 0, st>>>(f.ref[p], filter_, scale, false, s.tmp);
      else
        fm_vertical<std::uint16_t><<<grid, block, 0, st>>>(f.ref[p], filter_, scale, true, s.tmp);
      VQE_CUDA_CHECK(cudaGetLastError());
      fm_horizontal<<<grid, block, 0, st>>>(s.tmp, filter_, s.width, s.height, cur);
      VQE_CUDA_CHECK(cudaGetLastError());
      if (f.index == 0) continue;
      const float* prev = s.blur[(f.index - 1) % 3];
      mad(prev, cur, s.width, s.height, s.rows, d_out_ + 2 * p, st);
      if (add_scale1_) {
        const float* a = prev;
        const float* b = cur;
        if (!s.same_size) {
          const dim3 g2((s.dst_w + 127) / 128, s.dst_h);
          fm_bilinear<<<g2, block, 0, st>>>(prev, s.plan, s.scaled_a);
          fm_bilinear<<<g2, block, 0, st>>>(cur, s.plan, s.scaled_b);
          VQE_CUDA_CHECK(cudaGetLastError());
          a = s.scaled_a;
          b = s.scaled_b;
        }
        mad(a, b, s.dst_w, s.dst_h, s.rows, d_out_ + 2 * p + 1, st);
      }
    }
    if (f.index > 0)
      VQE_CUDA_CHECK(cudaMemcpyAsync(h_out_ + 6 * f.slot, d_out_, 6 * sizeof(float),
                                     cudaMemcpyDeviceToHost, st));
  }

  // The frame's motion against the previous one from the device; the
  // bookkeeping is the CPU's (float_motion_score.h).
  void collect(int slot, unsigned index, FeatureCollector& out) override {
    double score = 0;
    if (!force_zero_ && index > 0) {
      float scale0[3] = {}, scale1[3] = {};
      for (std::size_t p = 0; p < planes_.size(); ++p) {
        scale0[p] = h_out_[6 * slot + 2 * p];
        scale1[p] = h_out_[6 * slot + 2 * p + 1];
      }
      score = scorer_.motion_of_planes(scale0, scale1, static_cast<int>(planes_.size()));
    }
    scorer_.emit(index, score, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  struct PlaneState {
    int width = 0, height = 0, dst_w = 0, dst_h = 0;
    bool same_size = true;
    float* tmp = nullptr;
    float* blur[3] = {nullptr, nullptr, nullptr};
    float* scaled_a = nullptr;
    float* scaled_b = nullptr;
    float* rows = nullptr;
    BilinearDevice plan{};
  };

  static void mad(const float* a, const float* b, int w, int h, float* rows, float* out,
                  cudaStream_t st) {
    fm_rows<<<(h + 127) / 128, 128, 0, st>>>(a, b, w, h, rows);
    VQE_CUDA_CHECK(cudaGetLastError());
    fm_total<<<1, 1, 0, st>>>(rows, w, h, out);
    VQE_CUDA_CHECK(cudaGetLastError());
  }

  float_motion::Scorer scorer_;
  bool force_zero_, add_scale1_, add_uv_;
  BlurFilter filter_{};
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  std::vector<PlaneState> planes_;
  float* d_out_ = nullptr;
  float* h_out_ = nullptr;
  unsigned frames_ = 0;
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::float_motion::make_cuda(
    const ParsedOptions& options) {
  return std::make_unique<cuda::CudaFloatMotion>(options);
}
