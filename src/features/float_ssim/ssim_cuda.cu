// SPDX-License-Identifier: BSD-2-Clause
// CUDA twins of float_ssim and float_ms_ssim (src/features/float_ssim/,
// src/features/float_ms_ssim/), following the scalar CPU reference
// (iqa_ssim.cpp) operation by operation:
//   - samples to float on the 8-bit scale (8-bit as is, deeper divided in
//     float by 2^(bpc-8)), as plane_to_float;
//   - decimation (float_ssim's box of scale x scale taps, MS-SSIM's 9x9
//     low-pass, factor 2): the full 2-D kernel per output pixel, rows top to
//     bottom and taps left to right, float products summed in double, single
//     symmetric reflection at the borders, output size W/f + (W&1);
//   - the 11-tap Gaussian over the valid region: a horizontal pass then a
//     vertical pass, float products summed in double, rounded to float per
//     pass; the squares and cross product are formed in float first;
//   - the per-pixel luminance/contrast/structure terms with the CPU's exact
//     float/double mix (kernels are built with --fmad=false; divisions and
//     sqrt are IEEE-rounded).
// Every per-pixel value is therefore bit-identical to the CPU's. The only
// difference is the order of the four double sums of the SSIM map: the CPU
// adds the pixels one by one into one double accumulator, which is an
// inherently sequential chain; here each block adds its pixels in a fixed
// tree and the block partials are added in a fixed order on the device
// (reduce.cuh), so results are deterministic. The sums differ from the CPU's
// by a few double ulps at most, and the means are rounded to float (as the
// CPU's SsimMeans), so the emitted values are normally bit-identical and
// otherwise one float ulp (~6e-8 relative) away.
//
// Measured on the H200 (parity suite + tests/gpu/test_gpu_ssim.cpp): every
// SSIM/MS-SSIM value compared (3,572 here plus the parity rows) was
// bit-identical to the CPU.
// Speed (frames on the device): float_ssim 33 us (1080p8) / 62 us (2160p10),
// float_ms_ssim 242 / 906 us; the full-size passes are bound by the
// float->double conversions that the CPU's "float product, double sum" needs.
//
// Full-size images are read straight from the luma planes (no float copy).
// Both twins run on the serial stream (concurrent_frames() false): one set
// of device scratch is shared by all frames; only the result buffers (device
// and pinned host) are per ring slot.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "backend/cuda/reduce.cuh"
#include "features/float_ms_ssim/ms_ssim_score.h"
#include "features/float_ssim/iqa_ssim.h"
#include "features/float_ssim/ssim_score.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

constexpr int kG = iqa::kGaussianLen;  // 11

// The Gaussian taps as kernel arguments (copied from the CPU's table).
struct GaussTaps {
  float t[kG];
};

GaussTaps gauss_taps() {
  GaussTaps g{};
  for (int k = 0; k < kG; ++k) g.t[k] = iqa::kGaussianTaps[k];
  return g;
}

// MS-SSIM's 9x9 low-pass (ms_ssim::kLowPass), copied to the device in
// init(). A __constant__ array is per module: one copy serves every job.
constexpr int kLpfLen = ms_ssim::kLpfLen;
constexpr int kScales = ms_ssim::kScales;
__constant__ float c_lpf[kLpfLen * kLpfLen];

void upload_low_pass() {
  VQE_CUDA_CHECK(cudaMemcpyToSymbol(c_lpf, ms_ssim::kLowPass, sizeof(c_lpf)));
}

// ---------------------------------------------------------------------------
// Sources: where the first stage reads its floats from.

// A luma plane read as plane_to_float(plane, bpc, 0.0f) would give it.
template <typename T>
struct PlaneSource {
  DevicePlane p;
  float scale;  // 2^(bpc-8); unused at 8 bits
  using Row = const T*;
  __device__ __forceinline__ Row row(int y) const { return p.row<T>(y); }
  __device__ __forceinline__ float value(Row r, int x) const {
    const float v = static_cast<float>(r[x]);
    return sizeof(T) == 1 ? v : v / scale;
  }
};

// A dense float image (stride = width).
struct FloatSource {
  const float* p;
  int w;
  using Row = const float*;
  __device__ __forceinline__ Row row(int y) const { return p + static_cast<std::size_t>(y) * w; }
  __device__ __forceinline__ float value(Row r, int x) const { return r[x]; }
};

// KBND_SYMMETRIC: -1 -> 0, n -> n-1 (one reflection; clamped for safety).
__device__ __forceinline__ int reflect(int i, int n) {
  if (i < 0) i = -1 - i;
  else if (i >= n) i = 2 * n - 1 - i;
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

// ---------------------------------------------------------------------------
// Kernels. blockIdx.z selects the image: 0 = reference, 1 = distorted.

// iqa::decimate with the 9x9 low-pass (c_lpf), factor 2.
template <class Src>
__global__ void __launch_bounds__(256)
    decimate_lpf_kernel(Src ref, Src dist, int w, int h, int out_w, int out_h,
                        float* __restrict__ ref_out, float* __restrict__ dist_out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_w || y >= out_h) return;
  const Src s = blockIdx.z == 0 ? ref : dist;
  float* out = blockIdx.z == 0 ? ref_out : dist_out;
  constexpr int kHalf = kLpfLen / 2;
  const int cx = x * 2, cy = y * 2;
  double sum = 0.0;
  if (cx - kHalf >= 0 && cx + kHalf < w && cy - kHalf >= 0 && cy + kHalf < h) {
    // Interior: no reflection; the same taps in the same order.
#pragma unroll
    for (int v = 0; v < kLpfLen; ++v) {
      const typename Src::Row r = s.row(cy - kHalf + v);
#pragma unroll
      for (int u = 0; u < kLpfLen; ++u)
        sum += static_cast<double>(s.value(r, cx - kHalf + u) * c_lpf[v * kLpfLen + u]);
    }
  } else {
    for (int v = 0; v < kLpfLen; ++v) {
      const typename Src::Row r = s.row(reflect(cy - kHalf + v, h));
      for (int u = 0; u < kLpfLen; ++u)
        sum += static_cast<double>(s.value(r, reflect(cx - kHalf + u, w)) *
                                   c_lpf[v * kLpfLen + u]);
    }
  }
  out[static_cast<std::size_t>(y) * out_w + x] = static_cast<float>(sum);
}

// iqa::decimate with float_ssim's box: ksize x ksize taps all equal to
// `tap` (1/ksize^2 in float), factor = ksize.
template <class Src>
__global__ void __launch_bounds__(256)
    decimate_box_kernel(Src ref, Src dist, int w, int h, int ksize, float tap, int out_w,
                        int out_h, float* __restrict__ ref_out, float* __restrict__ dist_out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= out_w || y >= out_h) return;
  const Src s = blockIdx.z == 0 ? ref : dist;
  float* out = blockIdx.z == 0 ? ref_out : dist_out;
  const int half = ksize / 2;
  const int last = half - (ksize % 2 == 0 ? 1 : 0);
  const int cx = x * ksize, cy = y * ksize;
  double sum = 0.0;
  if (cx - half >= 0 && cx + last < w && cy - half >= 0 && cy + last < h) {
    for (int v = -half; v <= last; ++v) {
      const typename Src::Row r = s.row(cy + v);
      for (int u = -half; u <= last; ++u) sum += static_cast<double>(s.value(r, cx + u) * tap);
    }
  } else {
    for (int v = -half; v <= last; ++v) {
      const typename Src::Row r = s.row(reflect(cy + v, h));
      for (int u = -half; u <= last; ++u)
        sum += static_cast<double>(s.value(r, reflect(cx + u, w)) * tap);
    }
  }
  out[static_cast<std::size_t>(y) * out_w + x] = static_cast<float>(sum);
}

constexpr int kHBlock = 256;

// Horizontal valid pass of the five maps (a, b, a*a, b*b, a*b): a w x h
// image -> five out_w x h float images.
template <class Src>
__global__ void __launch_bounds__(kHBlock)
    ssim_hpass(Src a, Src b, int w, int out_w,
               GaussTaps g, float* __restrict__ h_a, float* __restrict__ h_b,
               float* __restrict__ h_aa, float* __restrict__ h_bb, float* __restrict__ h_ab) {
  __shared__ float sa[kHBlock + kG - 1], sb[kHBlock + kG - 1];
  const int y = blockIdx.y;
  const int x0 = blockIdx.x * kHBlock;
  const typename Src::Row ra = a.row(y), rb = b.row(y);
  for (int i = threadIdx.x; i < kHBlock + kG - 1; i += kHBlock) {
    const int gx = x0 + i;
    sa[i] = gx < w ? a.value(ra, gx) : 0.0f;
    sb[i] = gx < w ? b.value(rb, gx) : 0.0f;
  }
  __syncthreads();
  const int x = x0 + threadIdx.x;
  if (x >= out_w) return;
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0;
#pragma unroll
  for (int k = 0; k < kG; ++k) {
    const float va = sa[threadIdx.x + k], vb = sb[threadIdx.x + k];
    const float t = g.t[k];
    const float aa = va * va, bb = vb * vb, ab = va * vb;
    s0 += static_cast<double>(va * t);
    s1 += static_cast<double>(vb * t);
    s2 += static_cast<double>(aa * t);
    s3 += static_cast<double>(bb * t);
    s4 += static_cast<double>(ab * t);
  }
  const std::size_t o = static_cast<std::size_t>(y) * out_w + x;
  h_a[o] = static_cast<float>(s0);
  h_b[o] = static_cast<float>(s1);
  h_aa[o] = static_cast<float>(s2);
  h_bb[o] = static_cast<float>(s3);
  h_ab[o] = static_cast<float>(s4);
}

constexpr int kVX = 32, kVY = 16;  // vertical pass tile (outputs)

struct SsimConsts {
  float c1, c2, c3;
  double c1d, c2d;  // c1, c2 widened (exact)
};

// Vertical valid pass of the five row-pass images (out_w x (out_h + 10)),
// the per-pixel SSIM terms, and per-block sums {l*c*s, l, c, s} in
// partials[block][4] (block = blockIdx.y * gridDim.x + blockIdx.x). Each
// block walks its column of tiles with stride gridDim.y tiles (gridDim.y is
// capped so that the partials stay few); each thread adds its pixels' terms
// in tile order, then the block adds its threads in a fixed tree. The grid
// depends only on the image size, so the order is the same on every run.
__global__ void __launch_bounds__(kVX * kVY)
    ssim_vpass_map(const float* __restrict__ h_a, const float* __restrict__ h_b,
                   const float* __restrict__ h_aa, const float* __restrict__ h_bb,
                   const float* __restrict__ h_ab, int out_w, int out_h, GaussTaps g,
                   SsimConsts cs, double* __restrict__ partials) {
  constexpr int kRows = kVY + kG - 1;
  __shared__ float tile[5][kRows][kVX];
  const int x0 = blockIdx.x * kVX;
  const int tid = threadIdx.y * kVX + threadIdx.x;
  const int in_h = out_h + kG - 1;
  const float* src[5] = {h_a, h_b, h_aa, h_bb, h_ab};
  const int x = x0 + threadIdx.x;
  double v[4] = {0.0, 0.0, 0.0, 0.0};

  for (int y0 = blockIdx.y * kVY; y0 < out_h; y0 += gridDim.y * kVY) {
    __syncthreads();  // the previous tile has been read
    for (int i = tid; i < kRows * kVX; i += kVX * kVY) {
      const int r = i / kVX, c = i % kVX;
      const int gy = y0 + r, gx = x0 + c;
      const bool in = gx < out_w && gy < in_h;
      const std::size_t o = static_cast<std::size_t>(gy) * out_w + gx;
#pragma unroll
      for (int j = 0; j < 5; ++j) tile[j][r][c] = in ? src[j][o] : 0.0f;
    }
    __syncthreads();

    const int y = y0 + threadIdx.y;
    if (x < out_w && y < out_h) {
      double s[5] = {0, 0, 0, 0, 0};
#pragma unroll
      for (int k = 0; k < kG; ++k) {
        const float t = g.t[k];
#pragma unroll
        for (int j = 0; j < 5; ++j)
          s[j] += static_cast<double>(tile[j][threadIdx.y + k][threadIdx.x] * t);
      }
      const float mr = static_cast<float>(s[0]);
      const float md = static_cast<float>(s[1]);
      const float sq_r = static_cast<float>(s[2]);
      const float sq_d = static_cast<float>(s[3]);
      const float cross = static_cast<float>(s[4]);
      // As iqa::ssim_gaussian (scalar): float variances floored at zero.
      float var_ref = sq_r - mr * mr;
      float var_dist = sq_d - md * md;
      var_ref = (0.0 > var_ref) ? 0.0f : var_ref;
      var_dist = (0.0 > var_dist) ? 0.0f : var_dist;
      const float covar = cross - mr * md;
      const float prod = var_ref * var_dist;
      const float sigma_product = static_cast<float>(sqrt(static_cast<double>(prod)));
      const float l_den = mr * mr + md * md + cs.c1;
      const double l = (2.0 * mr * md + cs.c1d) / static_cast<double>(l_den);
      const float c_den = var_ref + var_dist + cs.c2;
      const double c = (2.0 * sigma_product + cs.c2d) / static_cast<double>(c_den);
      const float covar_clamped = (covar < 0.0f && sigma_product <= 0.0f) ? 0.0f : covar;
      const float s_float = (covar_clamped + cs.c3) / (sigma_product + cs.c3);
      const double st = s_float;
      v[0] += l * c * st;
      v[1] += l;
      v[2] += c;
      v[3] += st;
    }
  }
  block_sum_k<4, double>(v);
  if (tid == 0) {
    double* p = partials + (static_cast<std::size_t>(blockIdx.y) * gridDim.x + blockIdx.x) * 4;
#pragma unroll
    for (int j = 0; j < 4; ++j) p[j] = v[j];
  }
}

// Grid of ssim_vpass_map for an out_w x out_h valid region: one block column
// per 32 columns, at most kVRowBlocks tile rows walked by each column.
constexpr int kVRowBlocks = 16;
dim3 vpass_grid(int out_w, int out_h) {
  const int rows = (out_h + kVY - 1) / kVY;
  return dim3((out_w + kVX - 1) / kVX, rows < kVRowBlocks ? rows : kVRowBlocks);
}

// ---------------------------------------------------------------------------
// Host side: device scratch for SSIM on images up to a given size.

struct SsimScratch {
  int max_w = 0, max_h = 0;
  float* h[5] = {};          // row-pass images, (max_w-10) x max_h each
  double* partials = nullptr;  // [block][4]
  int max_blocks = 0;

  void init(int w, int h_, DevicePool& pool) {
    max_w = w;
    max_h = h_;
    const std::size_t n = static_cast<std::size_t>(w - (kG - 1)) * h_;
    for (float*& p : h) p = pool.alloc_n<float>(n);
    const dim3 grid = vpass_grid(w - (kG - 1), h_ - (kG - 1));
    max_blocks = static_cast<int>(grid.x * grid.y);
    partials = pool.alloc_n<double>(static_cast<std::size_t>(max_blocks) * 4);
  }
};

// Decimation blocks (kDX x kDY threads, one output each) and grids.
constexpr int kDX = 32, kDY = 8;
dim3 grid_dec(int w, int h) { return dim3((w + kDX - 1) / kDX, (h + kDY - 1) / kDY, 2); }

// SSIM sums {l*c*s, l, c, s} of two w x h images into d_out[0..3].
template <class Src>
void enqueue_ssim(const Src& a, const Src& b, int w, int h, SsimScratch& sc, const GaussTaps& g,
                  const SsimConsts& cs, double* d_out, cudaStream_t s) {
  const int out_w = w - (kG - 1), out_h = h - (kG - 1);
  ssim_hpass<Src><<<dim3((out_w + kHBlock - 1) / kHBlock, h), kHBlock, 0, s>>>(
      a, b, w, out_w, g, sc.h[0], sc.h[1], sc.h[2], sc.h[3], sc.h[4]);
  VQE_CUDA_CHECK(cudaGetLastError());
  const dim3 grid = vpass_grid(out_w, out_h);
  ssim_vpass_map<<<grid, dim3(kVX, kVY), 0, s>>>(sc.h[0], sc.h[1], sc.h[2], sc.h[3], sc.h[4],
                                                 out_w, out_h, g, cs, sc.partials);
  VQE_CUDA_CHECK(cudaGetLastError());
  sum_partials<double>(sc.partials, static_cast<int>(grid.x * grid.y), 4, d_out, s);
  VQE_CUDA_CHECK(cudaGetLastError());
}

SsimConsts ssim_consts() {
  // Single-precision constants formed as the CPU does (K*L in float).
  SsimConsts cs;
  cs.c1 = (0.01f * 255) * (0.01f * 255);
  cs.c2 = (0.03f * 255) * (0.03f * 255);
  cs.c3 = cs.c2 / 2.0f;
  cs.c1d = cs.c1;
  cs.c2d = cs.c2;
  return cs;
}

// 9x9 low-pass decimation by 2 of a w x h pair into ref_out/dist_out.
template <class Src>
void launch_lpf(const Src& ref, const Src& dist, int w, int h, float* ref_out, float* dist_out,
                cudaStream_t s) {
  const int ow = iqa::decimated_size(w, 2), oh = iqa::decimated_size(h, 2);
  decimate_lpf_kernel<Src><<<grid_dec(ow, oh), dim3(kDX, kDY), 0, s>>>(ref, dist, w, h, ow, oh,
                                                                         ref_out, dist_out);
  VQE_CUDA_CHECK(cudaGetLastError());
}

// Box decimation by `factor` (factor x factor taps of 1/factor^2).
template <class Src>
void launch_box(const Src& ref, const Src& dist, int w, int h, int factor, float* ref_out,
                float* dist_out, cudaStream_t s) {
  const int ow = iqa::decimated_size(w, factor), oh = iqa::decimated_size(h, factor);
  const float tap = 1.0f / (factor * factor);  // as float_ssim.cpp's box_
  decimate_box_kernel<Src><<<grid_dec(ow, oh), dim3(kDX, kDY), 0, s>>>(
      ref, dist, w, h, factor, tap, ow, oh, ref_out, dist_out);
  VQE_CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------

class CudaFloatSsim final : public CudaExtractor {
 public:
  explicit CudaFloatSsim(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);  // the refusals of every backend; scale and working size
    ctx_ = &ctx;
    format_ = format;
    scale_ = scorer_.scale();
    work_w_ = scorer_.work_width();
    work_h_ = scorer_.work_height();

    DevicePool& pool = ctx.pool();
    if (scale_ > 1) {  // the decimated pair; at scale 1 SSIM reads the planes
      const std::size_t n = static_cast<std::size_t>(work_w_) * work_h_;
      ref_ = pool.alloc_n<float>(n);
      dist_ = pool.alloc_n<float>(n);
    }
    scratch_.init(work_w_, work_h_, pool);
    d_out_ = pool.alloc_n<double>(4 * static_cast<std::size_t>(Context::kSlots));
    h_out_ = pool.host_alloc_n<double>(4 * static_cast<std::size_t>(Context::kSlots));
    gauss_ = gauss_taps();
    consts_ = ssim_consts();
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void enqueue(const DeviceFrame& f) override {
    cudaStream_t s = ctx_->stream();
    double* d_out = d_out_ + 4 * f.slot;
    if (f.bpc == 8) enqueue_frame<std::uint8_t>(f, d_out, s);
    else enqueue_frame<std::uint16_t>(f, d_out, s);
    VQE_CUDA_CHECK(cudaMemcpyAsync(h_out_ + 4 * f.slot, d_out, 4 * sizeof(double),
                                   cudaMemcpyDeviceToHost, s));
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    scorer_.emit(index, ssim::means_of_sums(h_out_ + 4 * slot, work_w_, work_h_), out);
  }

 private:
  template <typename T>
  void enqueue_frame(const DeviceFrame& f, double* d_out, cudaStream_t s) {
    const float scale = static_cast<float>(1 << (f.bpc - 8));
    const PlaneSource<T> r{f.ref[0], scale}, d{f.dist[0], scale};
    if (scale_ > 1) {
      launch_box(r, d, format_.width, format_.height, scale_, ref_, dist_, s);
      enqueue_ssim(FloatSource{ref_, work_w_}, FloatSource{dist_, work_w_}, work_w_, work_h_,
                   scratch_, gauss_, consts_, d_out, s);
    } else {
      enqueue_ssim(r, d, work_w_, work_h_, scratch_, gauss_, consts_, d_out, s);
    }
  }

  ssim::Scorer scorer_;
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  int scale_ = 1, work_w_ = 0, work_h_ = 0;
  float* ref_ = nullptr;   // decimated pair, work_w_ x work_h_ (scale_ > 1)
  float* dist_ = nullptr;
  SsimScratch scratch_;
  GaussTaps gauss_{};
  SsimConsts consts_{};
  double* d_out_ = nullptr;  // [slot][4]
  double* h_out_ = nullptr;  // pinned [slot][4]
};

class CudaFloatMsSsim final : public CudaExtractor {
 public:
  explicit CudaFloatMsSsim(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);  // the refusals of every backend; the scale sizes
    ctx_ = &ctx;
    format_ = format;
    upload_low_pass();
    DevicePool& pool = ctx.pool();
    for (int k = 0; k < kScales; ++k) {
      widths_[k] = scorer_.width(k);
      heights_[k] = scorer_.height(k);
      if (k > 0) {  // scale 0 is read straight from the planes
        const std::size_t n = static_cast<std::size_t>(widths_[k]) * heights_[k];
        ref_[k] = pool.alloc_n<float>(n);
        dist_[k] = pool.alloc_n<float>(n);
      }
    }
    scratch_.init(format.width, format.height, pool);
    d_out_ = pool.alloc_n<double>(kScales * 4 * static_cast<std::size_t>(Context::kSlots));
    h_out_ = pool.host_alloc_n<double>(kScales * 4 * static_cast<std::size_t>(Context::kSlots));
    gauss_ = gauss_taps();
    consts_ = ssim_consts();
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void enqueue(const DeviceFrame& f) override {
    cudaStream_t s = ctx_->stream();
    double* d_out = d_out_ + kScales * 4 * f.slot;
    if (f.bpc == 8) enqueue_scale0<std::uint8_t>(f, d_out, s);
    else enqueue_scale0<std::uint16_t>(f, d_out, s);
    for (int k = 2; k < kScales; ++k)
      launch_lpf(FloatSource{ref_[k - 1], widths_[k - 1]},
                 FloatSource{dist_[k - 1], widths_[k - 1]}, widths_[k - 1], heights_[k - 1],
                 ref_[k], dist_[k], s);
    for (int k = 1; k < kScales; ++k)
      enqueue_ssim(FloatSource{ref_[k], widths_[k]}, FloatSource{dist_[k], widths_[k]},
                   widths_[k], heights_[k], scratch_, gauss_, consts_, d_out + 4 * k, s);
    VQE_CUDA_CHECK(cudaMemcpyAsync(h_out_ + kScales * 4 * f.slot, d_out,
                                   kScales * 4 * sizeof(double), cudaMemcpyDeviceToHost, s));
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    const double* sums = h_out_ + kScales * 4 * slot;
    std::array<iqa::SsimMeans, kScales> means;
    for (int k = 0; k < kScales; ++k)
      means[k] = ssim::means_of_sums(sums + 4 * k, widths_[k], heights_[k]);
    scorer_.emit(index, means, out);
  }

 private:
  // Scale 0 straight from the planes: its SSIM sums, and scale 1.
  template <typename T>
  void enqueue_scale0(const DeviceFrame& f, double* d_out, cudaStream_t s) {
    const float scale = static_cast<float>(1 << (f.bpc - 8));
    const PlaneSource<T> r{f.ref[0], scale}, d{f.dist[0], scale};
    launch_lpf(r, d, widths_[0], heights_[0], ref_[1], dist_[1], s);
    enqueue_ssim(r, d, widths_[0], heights_[0], scratch_, gauss_, consts_, d_out, s);
  }

  ms_ssim::Scorer scorer_;
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  int widths_[kScales] = {}, heights_[kScales] = {};
  float* ref_[kScales] = {};  // scales 1..4 (scale 0 is the frame's luma)
  float* dist_[kScales] = {};
  SsimScratch scratch_;    // sized for scale 0, reused by every scale
  GaussTaps gauss_{};
  SsimConsts consts_{};
  double* d_out_ = nullptr;  // [slot][scale][4]
  double* h_out_ = nullptr;  // pinned [slot][scale][4]
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::ssim::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaFloatSsim>(options);
}

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::ms_ssim::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaFloatMsSsim>(options);
}
