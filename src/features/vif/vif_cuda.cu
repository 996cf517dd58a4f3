// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF on the GPU, bit-identical to features/vif/integer_vif.cpp (the
// scalar reference of libvmaf's integer_vif.c). Every integer width,
// rounding constant and shift is that file's; the double-precision gain
// arithmetic uses explicit round-to-nearest intrinsics so that no multiply
// and add are fused.

#include "features/vif/vif_cuda.h"

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "features/vif/vif_score.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

constexpr int kThreads = 256;  // threads per block
constexpr int kFilterWidths[4] = {17, 9, 5, 3};

/// Tile shape per scale: output columns and rows per block, rows per thread
/// in the vertical pass, columns per thread in the horizontal pass. Scales
/// 2 and 3 are small images: smaller tiles give more blocks.
struct TileShape {
  int w, h, row_group, col_group;
};
constexpr TileShape kTiles[4] = {{64, 16, 4, 4}, {64, 16, 4, 4}, {32, 8, 2, 1}, {32, 8, 2, 1}};

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw Error(std::string("vif (CUDA): ") + what + " failed: " + cudaGetErrorString(err));
}

/// Filter taps of one scale, passed by value (the kernel reads them with
/// compile-time indices from the parameter bank).
struct Taps {
  std::uint32_t c[17];
};

/// Everything one scale's kernel needs.
struct ScaleArgs {
  const std::uint8_t* ref;
  const std::uint8_t* dis;
  std::size_t ref_pitch, dis_pitch;  // bytes
  int w, h;
  // Vertical-pass normalisation of the statistic (integer_vif.cpp).
  std::uint32_t shift_mu, round_mu, shift_sq;
  std::uint64_t round_sq;
  // Vertical-pass normalisation of the subsampling blur.
  std::uint32_t shift_sub, round_sub;
  std::uint16_t* out_ref;
  std::uint16_t* out_dis;
  int out_w, out_h;            // next scale (pitch = out_w samples)
  std::int64_t* accum;         // [scale][4] running sums of the frame (zero between frames)
  unsigned int* counter;       // scale-3 blocks finished; reset by the last one
  VifSums* out;                // the frame's sums (written by scale 3's last block)
  const std::uint16_t* log2;   // log2 table entries 32767..65535
  double gain_limit;
  Taps taps, taps_next;
};

/// Reflect-101 of any index onto 0..n-1 (n >= 2), periodic like the CPU's
/// vif::reflect101.
__device__ __forceinline__ int reflect101(int i, int n) {
  if (i >= 0 && i < n) return i;
  const int period = 2 * (n - 1);
  int m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - m;
}

__device__ __forceinline__ std::int32_t log2_32(const std::uint16_t* table, std::uint32_t v) {
  const int shift = 16 - __clz(static_cast<int>(v));
  return static_cast<std::int32_t>(__ldg(table + ((v >> shift) - 32767))) + 2048 * shift;
}

__device__ __forceinline__ std::int32_t log2_64(const std::uint16_t* table, std::uint64_t v) {
  const int shift = 48 - __clzll(static_cast<long long>(v));
  return static_cast<std::int32_t>(__ldg(table + ((v >> shift) - 32767))) + 2048 * shift;
}

/// Sums of one thread (integer_vif.cpp `statistic`).
struct Acc {
  std::int64_t num_log = 0, den_log = 0, num_non_log = 0, den_non_log = 0;
};

/// The per-pixel VIF terms from the horizontally filtered moments.
__device__ __forceinline__ void pixel_terms(std::uint32_t a_mu1, std::uint32_t a_mu2,
                                            std::uint64_t a_xx, std::uint64_t a_yy,
                                            std::uint64_t a_xy, const std::uint16_t* table,
                                            double gain_limit, Acc& acc) {
  constexpr std::int32_t kSigmaNsq = vif::kSigmaNsq;
  const auto mu1_sq =
      static_cast<std::uint32_t>((std::uint64_t{a_mu1} * a_mu1 + 2147483648u) >> 32);
  const auto mu2_sq =
      static_cast<std::uint32_t>((std::uint64_t{a_mu2} * a_mu2 + 2147483648u) >> 32);
  const auto mu1_mu2 =
      static_cast<std::uint32_t>((std::uint64_t{a_mu1} * a_mu2 + 2147483648u) >> 32);
  const auto xx_filt = static_cast<std::uint32_t>((a_xx + 32768) >> 16);
  const auto yy_filt = static_cast<std::uint32_t>((a_yy + 32768) >> 16);
  const auto xy_filt = static_cast<std::uint32_t>((a_xy + 32768) >> 16);
  const auto sigma1_sq = static_cast<std::int32_t>(xx_filt - mu1_sq);
  auto sigma2_sq = static_cast<std::int32_t>(yy_filt - mu2_sq);
  const auto sigma12 = static_cast<std::int32_t>(xy_filt - mu1_mu2);
  sigma2_sq = sigma2_sq > 0 ? sigma2_sq : 0;
  if (sigma1_sq >= kSigmaNsq) {
    acc.den_log += log2_32(table, static_cast<std::uint32_t>(sigma1_sq) +
                                      static_cast<std::uint32_t>(kSigmaNsq)) -
                   2048 * 17;
    if (sigma12 > 0 && sigma2_sq > 0) {
      const double eps = 65536 * 1.0e-10;
      double g = __ddiv_rn(static_cast<double>(sigma12),
                           __dadd_rn(static_cast<double>(sigma1_sq), eps));
      // (int32) of the double: truncation; out of range only far below 0,
      // where x86 gives INT32_MIN and the GPU saturates to it too.
      std::int32_t sv_sq = __double2int_rz(
          __dsub_rn(static_cast<double>(sigma2_sq), __dmul_rn(g, static_cast<double>(sigma12))));
      sv_sq = sv_sq > 0 ? sv_sq : 0;
      g = g < gain_limit ? g : gain_limit;
      const std::uint32_t numer1 =
          static_cast<std::uint32_t>(sv_sq) + static_cast<std::uint32_t>(kSigmaNsq);
      const std::int64_t numer1_tmp =
          __double2ll_rz(__dmul_rn(__dmul_rn(g, g), static_cast<double>(sigma1_sq))) +
          std::int64_t{numer1};
      acc.num_log += log2_64(table, static_cast<std::uint64_t>(numer1_tmp)) -
                     log2_64(table, numer1);
    }
  } else {
    acc.num_non_log += sigma2_sq;
    acc.den_non_log += 1;
  }
}

/// Sum of `v` over the block (kThreads threads); the result is valid in
/// thread 0. Integer addition, so the order does not matter for the value.
__device__ __forceinline__ void vif_block_sum4(std::int64_t (&v)[4]) {
  __shared__ std::int64_t warp_sums[kThreads / 32][4];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < 4; ++k)
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], off);
  if (lane == 0)
#pragma unroll
    for (int k = 0; k < 4; ++k) warp_sums[warp][k] = v[k];
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      std::int64_t s = 0;
      for (int w = 0; w < kThreads / 32; ++w) s += warp_sums[w][k];
      v[k] = s;
    }
  }
}

/// One scale: statistic over a tile (when kStat) and the next scale's
/// samples at the tile's even rows and columns (scales 0-2). kNarrow: 8-bit
/// scale 0, whose vertical second-moment sums are below 65536 * 255^2 < 2^32
/// and are kept in 32 bits (exactly the reference's 64-bit values).
template <typename T, int kScale, bool kStat, bool kNarrow>
__global__ void __launch_bounds__(kThreads) vif_scale_kernel(const ScaleArgs a) {
  constexpr int TW = kTiles[kScale].w, TH = kTiles[kScale].h;
  constexpr int RG = kTiles[kScale].row_group, CG = kTiles[kScale].col_group;
  constexpr int FW = kFilterWidths[kScale];
  constexpr int HALF = FW / 2;
  constexpr bool kNext = kScale < 3;
  constexpr int FWN = kNext ? kFilterWidths[kScale < 3 ? kScale + 1 : 3] : 1;
  constexpr int HALFN = FWN / 2;
  constexpr int IW = TW + FW - 1;  // tile columns incl. border
  constexpr int IH = TH + FW - 1;  // tile rows incl. border
  constexpr int SW = IW | 1;       // odd row stride of the vertical results
  using Sq = std::conditional_t<kNarrow, std::uint32_t, std::uint64_t>;

  __shared__ std::uint16_t s_ref[IH][IW];
  __shared__ std::uint16_t s_dis[IH][IW];
  __shared__ std::uint16_t s_mu1[kStat ? TH : 1][SW];
  __shared__ std::uint16_t s_mu2[kStat ? TH : 1][SW];
  __shared__ std::uint32_t s_xx[kStat ? TH : 1][SW];
  __shared__ std::uint32_t s_yy[kStat ? TH : 1][SW];
  __shared__ std::uint32_t s_xy[kStat ? TH : 1][SW];
  __shared__ std::uint16_t s_cref[kNext ? TH / 2 : 1][SW];
  __shared__ std::uint16_t s_cdis[kNext ? TH / 2 : 1][SW];

  const int x0 = blockIdx.x * TW;
  const int y0 = blockIdx.y * TH;
  const int tid = threadIdx.x;

  // 1. Tile with its reflect-101 border: each warp copies whole rows (row
  // addresses once per row, lanes along the columns).
  {
    const int lane = tid & 31, warp = tid >> 5;
    for (int r = warp; r < IH; r += kThreads / 32) {
      const std::size_t gy = static_cast<std::size_t>(reflect101(y0 - HALF + r, a.h));
      const T* rr = reinterpret_cast<const T*>(a.ref + gy * a.ref_pitch);
      const T* dr = reinterpret_cast<const T*>(a.dis + gy * a.dis_pitch);
      for (int c = lane; c < IW; c += 32) {
        const int gx = reflect101(x0 - HALF + c, a.w);
        s_ref[r][c] = rr[gx];
        s_dis[r][c] = dr[gx];
      }
    }
  }
  __syncthreads();

  // 2. Vertical passes: the statistic's moments for every tile row, the
  // next scale's blur for the even rows.
  if constexpr (kStat) {
    constexpr int kGroups = TH / RG;
    for (int item = tid; item < kGroups * IW; item += kThreads) {
      const int g = item / IW, c = item - (item / IW) * IW;
      const int r0 = g * RG;
      std::uint32_t m1[RG], m2[RG];
      Sq xx[RG], yy[RG], xy[RG];
#pragma unroll
      for (int k = 0; k < RG; ++k) {
        m1[k] = m2[k] = 0;
        xx[k] = yy[k] = xy[k] = 0;
      }
#pragma unroll
      for (int f = 0; f < FW + RG - 1; ++f) {
        const std::uint32_t x = s_ref[r0 + f][c];
        const std::uint32_t y = s_dis[r0 + f][c];
#pragma unroll
        for (int k = 0; k < RG; ++k) {
          const int t = f - k;
          if (t >= 0 && t < FW) {
            const std::uint32_t cf = a.taps.c[t];
            const std::uint32_t cx = cf * x;
            const std::uint32_t cy = cf * y;
            m1[k] += cx;
            m2[k] += cy;
            xx[k] += Sq{cx} * x;
            yy[k] += Sq{cy} * y;
            xy[k] += Sq{cx} * y;
          }
        }
      }
#pragma unroll
      for (int k = 0; k < RG; ++k) {
        s_mu1[r0 + k][c] = static_cast<std::uint16_t>((m1[k] + a.round_mu) >> a.shift_mu);
        s_mu2[r0 + k][c] = static_cast<std::uint16_t>((m2[k] + a.round_mu) >> a.shift_mu);
        if constexpr (kNarrow) {  // shift 0 at 8 bits
          s_xx[r0 + k][c] = xx[k];
          s_yy[r0 + k][c] = yy[k];
          s_xy[r0 + k][c] = xy[k];
        } else {
          s_xx[r0 + k][c] = static_cast<std::uint32_t>((xx[k] + a.round_sq) >> a.shift_sq);
          s_yy[r0 + k][c] = static_cast<std::uint32_t>((yy[k] + a.round_sq) >> a.shift_sq);
          s_xy[r0 + k][c] = static_cast<std::uint32_t>((xy[k] + a.round_sq) >> a.shift_sq);
        }
      }
    }
  }
  if constexpr (kNext) {
    // Even tile rows r = 2 * rr (y0 is even); taps centred on input row
    // HALF + r of the tile.
    for (int item = tid; item < (TH / 2) * IW; item += kThreads) {
      const int rr = item / IW, c = item - (item / IW) * IW;
      const int base = HALF + 2 * rr - HALFN;
      std::uint32_t acc_r = 0, acc_d = 0;
#pragma unroll
      for (int f = 0; f < FWN; ++f) {
        const std::uint32_t cf = a.taps_next.c[f];
        acc_r += cf * std::uint32_t{s_ref[base + f][c]};
        acc_d += cf * std::uint32_t{s_dis[base + f][c]};
      }
      s_cref[rr][c] = static_cast<std::uint16_t>((acc_r + a.round_sub) >> a.shift_sub);
      s_cdis[rr][c] = static_cast<std::uint16_t>((acc_d + a.round_sub) >> a.shift_sub);
    }
  }
  __syncthreads();

  // 3. Horizontal passes.
  if constexpr (kNext) {
    for (int item = tid; item < (TH / 2) * (TW / 2); item += kThreads) {
      const int rr = item / (TW / 2), cc = item - (item / (TW / 2)) * (TW / 2);
      const int oy = y0 / 2 + rr, ox = x0 / 2 + cc;
      if (oy < a.out_h && ox < a.out_w) {
        const int base = HALF + 2 * cc - HALFN;
        std::uint32_t acc_r = 0, acc_d = 0;
#pragma unroll
        for (int f = 0; f < FWN; ++f) {
          const std::uint32_t cf = a.taps_next.c[f];
          acc_r += cf * std::uint32_t{s_cref[rr][base + f]};
          acc_d += cf * std::uint32_t{s_cdis[rr][base + f]};
        }
        a.out_ref[static_cast<std::size_t>(oy) * a.out_w + ox] =
            static_cast<std::uint16_t>((acc_r + 32768) >> 16);
        a.out_dis[static_cast<std::size_t>(oy) * a.out_w + ox] =
            static_cast<std::uint16_t>((acc_d + 32768) >> 16);
      }
    }
  }
  if constexpr (kStat) {
    // Lanes walk down the rows (odd stride: few bank conflicts); each thread
    // filters CG consecutive columns with a sliding window.
    Acc acc;
    for (int item = tid; item < TH * (TW / CG); item += kThreads) {
      const int r = item % TH, seg = item / TH;
      const int c0 = seg * CG;
      std::uint32_t m1[CG], m2[CG];
      std::uint64_t xx[CG], yy[CG], xy[CG];
#pragma unroll
      for (int k = 0; k < CG; ++k) {
        m1[k] = m2[k] = 0;
        xx[k] = yy[k] = xy[k] = 0;
      }
#pragma unroll
      for (int f = 0; f < FW + CG - 1; ++f) {
        const std::uint32_t v1 = s_mu1[r][c0 + f], v2 = s_mu2[r][c0 + f];
        const std::uint32_t vxx = s_xx[r][c0 + f], vyy = s_yy[r][c0 + f], vxy = s_xy[r][c0 + f];
#pragma unroll
        for (int k = 0; k < CG; ++k) {
          const int t = f - k;
          if (t >= 0 && t < FW) {
            const std::uint32_t cf = a.taps.c[t];
            m1[k] += cf * v1;
            m2[k] += cf * v2;
            xx[k] += std::uint64_t{cf} * vxx;
            yy[k] += std::uint64_t{cf} * vyy;
            xy[k] += std::uint64_t{cf} * vxy;
          }
        }
      }
      const int gy = y0 + r;
#pragma unroll
      for (int k = 0; k < CG; ++k) {
        if (gy < a.h && x0 + c0 + k < a.w)
          pixel_terms(m1[k], m2[k], xx[k], yy[k], xy[k], a.log2, a.gain_limit, acc);
      }
    }
    std::int64_t v[4] = {acc.num_log, acc.den_log, acc.num_non_log, acc.den_non_log};
    vif_block_sum4(v);
    if (tid == 0) {
      // Exact integer accumulation (any arrival order gives the same sum).
#pragma unroll
      for (int k = 0; k < 4; ++k)
        atomicAdd(reinterpret_cast<unsigned long long*>(a.accum + 4 * kScale + k),
                  static_cast<unsigned long long>(v[k]));
    }
  }
  if constexpr (kScale == 3) {
    // The last block to finish hands the 16 sums over and clears them for
    // the next frame (the kernels of scales 0-2 completed before this one).
    __shared__ bool last;
    if (tid == 0) {
      __threadfence();
      last = atomicAdd(a.counter, 1u) == gridDim.x * gridDim.y - 1;
    }
    __syncthreads();
    if (!last) return;
    if (tid < 16) {
      __threadfence();
      a.out->v[tid / 4][tid % 4] = static_cast<std::int64_t>(
          atomicExch(reinterpret_cast<unsigned long long*>(a.accum + tid), 0ull));
    }
    if (tid == 0) *a.counter = 0;
  }
}

template <typename T, int kScale, bool kNarrow>
void launch_scale(const ScaleArgs& a, int gx, int gy, bool stat, cudaStream_t stream) {
  const dim3 grid(gx, gy);
  if constexpr (kScale == 3) {
    vif_scale_kernel<T, 3, true, false><<<grid, kThreads, 0, stream>>>(a);
  } else {
    if (stat)
      vif_scale_kernel<T, kScale, true, kNarrow><<<grid, kThreads, 0, stream>>>(a);
    else
      vif_scale_kernel<T, kScale, false, kNarrow><<<grid, kThreads, 0, stream>>>(a);
  }
}

std::size_t align256(std::size_t n) { return (n + 255) & ~std::size_t{255}; }

}  // namespace

vif::VifValues vif_values_from_sums(const VifSums& sums, bool skip_scale0) {
  vif::VifValues out;
  for (int s = skip_scale0 ? 1 : 0; s < vif::kNumScales; ++s) {
    vif::ScaleSums t;
    t.num_log = sums.v[s][0];
    t.den_log = sums.v[s][1];
    t.num_non_log = sums.v[s][2];
    t.den_non_log = sums.v[s][3];
    out.scale[s] = vif::scale_value(t);  // the CPU reference's own final expressions
  }
  return out;
}

VifCudaKernel::VifCudaKernel(double gain_limit, bool skip_scale0)
    : gain_limit_(gain_limit), skip_scale0_(skip_scale0) {}

VifCudaKernel::~VifCudaKernel() {
  if (owned_ != nullptr) cudaFree(owned_);
}

std::size_t VifCudaKernel::scratch_bytes(int width, int height) {
  std::size_t n = align256(sizeof(unsigned int)) + align256(sizeof(VifSums)) +
                  align256(32769 * sizeof(std::uint16_t));
  int w = width, h = height;
  for (int s = 1; s < vif::kNumScales; ++s) {
    w /= 2;
    h /= 2;
    n += 2 * align256(static_cast<std::size_t>(w) * h * sizeof(std::uint16_t));
  }
  return n;
}

void VifCudaKernel::init(int width, int height, int bpc, void* scratch) {
  vif::check_format(width, height, bpc);
  width_ = width;
  height_ = height;
  bpc_ = bpc;
  if (owned_ != nullptr) {
    cudaFree(owned_);
    owned_ = nullptr;
  }
  if (scratch == nullptr) {
    check(cudaMalloc(&owned_, scratch_bytes(width, height)), "cudaMalloc");
    scratch = owned_;
  }
  auto* p = static_cast<std::uint8_t*>(scratch);
  counter_ = reinterpret_cast<unsigned int*>(p);
  p += align256(sizeof(unsigned int));
  accum_ = reinterpret_cast<std::int64_t*>(p);
  p += align256(sizeof(VifSums));
  log2_ = reinterpret_cast<std::uint16_t*>(p);
  p += align256(32769 * sizeof(std::uint16_t));
  int w = width, h = height;
  for (int s = 0; s < vif::kNumScales; ++s) {
    if (s > 0) {
      w /= 2;
      h /= 2;
      const std::size_t bytes = align256(static_cast<std::size_t>(w) * h * sizeof(std::uint16_t));
      img_[s][0] = reinterpret_cast<std::uint16_t*>(p);
      img_[s][1] = reinterpret_cast<std::uint16_t*>(p + bytes);
      p += 2 * bytes;
    }
    w_[s] = w;
    h_[s] = h;
    grid_x_[s] = (w + kTiles[s].w - 1) / kTiles[s].w;
    grid_y_[s] = (h + kTiles[s].h - 1) / kTiles[s].h;
  }
  // The CPU reference's table (entries below 32767 are never read).
  const std::array<std::uint16_t, 65536>& table = vif::log2_table();
  check(cudaMemcpy(log2_, table.data() + 32767, 32769 * sizeof(std::uint16_t),
                   cudaMemcpyHostToDevice),
        "log2 table upload");
  check(cudaMemset(counter_, 0, sizeof(unsigned int)), "cudaMemset");
  check(cudaMemset(accum_, 0, sizeof(VifSums)), "cudaMemset");
}

void VifCudaKernel::enqueue(const void* ref, std::size_t ref_pitch, const void* dis,
                            std::size_t dis_pitch, cudaStream_t stream, VifSums* d_sums) const {
  if (width_ == 0) throw Error("vif (CUDA): enqueue() called before init()");
  for (int s = 0; s < vif::kNumScales; ++s) {
    ScaleArgs a{};
    if (s == 0) {
      a.ref = static_cast<const std::uint8_t*>(ref);
      a.dis = static_cast<const std::uint8_t*>(dis);
      a.ref_pitch = ref_pitch;
      a.dis_pitch = dis_pitch;
      a.shift_mu = static_cast<std::uint32_t>(bpc_);
      a.round_mu = 1u << (bpc_ - 1);
      a.shift_sq = static_cast<std::uint32_t>(2 * (bpc_ - 8));
      a.round_sq = a.shift_sq == 0 ? 0 : std::uint64_t{1} << (a.shift_sq - 1);
      a.shift_sub = static_cast<std::uint32_t>(bpc_);
      a.round_sub = 1u << (bpc_ - 1);
    } else {
      a.ref = reinterpret_cast<const std::uint8_t*>(img_[s][0]);
      a.dis = reinterpret_cast<const std::uint8_t*>(img_[s][1]);
      a.ref_pitch = a.dis_pitch = static_cast<std::size_t>(w_[s]) * sizeof(std::uint16_t);
      a.shift_mu = 16;
      a.round_mu = 32768;
      a.shift_sq = 16;
      a.round_sq = 32768;
      a.shift_sub = 16;
      a.round_sub = 32768;
    }
    a.w = w_[s];
    a.h = h_[s];
    if (s + 1 < vif::kNumScales) {
      a.out_ref = img_[s + 1][0];
      a.out_dis = img_[s + 1][1];
      a.out_w = w_[s + 1];
      a.out_h = h_[s + 1];
      for (int f = 0; f < vif::kFilterWidth[s + 1]; ++f) a.taps_next.c[f] = vif::kFilters[s + 1][f];
    }
    for (int f = 0; f < vif::kFilterWidth[s]; ++f) a.taps.c[f] = vif::kFilters[s][f];
    a.accum = accum_;
    a.counter = counter_;
    a.out = d_sums;
    a.log2 = log2_;
    a.gain_limit = gain_limit_;
    const bool stat = !(s == 0 && skip_scale0_);
    const int gx = grid_x_[s], gy = grid_y_[s];
    switch (s) {
      case 0:
        if (bpc_ == 8)
          launch_scale<std::uint8_t, 0, true>(a, gx, gy, stat, stream);
        else
          launch_scale<std::uint16_t, 0, false>(a, gx, gy, stat, stream);
        break;
      case 1: launch_scale<std::uint16_t, 1, false>(a, gx, gy, true, stream); break;
      case 2: launch_scale<std::uint16_t, 2, false>(a, gx, gy, true, stream); break;
      default: launch_scale<std::uint16_t, 3, false>(a, gx, gy, true, stream);
    }
    check(cudaGetLastError(), "VIF scale kernel launch");
    if (markers_ != nullptr) cudaEventRecord(markers_[s], stream);
  }
}

// ---------------------------------------------------------------------------
// The `vif` CUDA extractor: the CPU extractor's outputs (vif_extractor.cpp),
// computed from the GPU sums.

namespace {

class CudaVif final : public CudaExtractor {
 public:
  explicit CudaVif(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);  // the refusals of every backend
    ctx_ = &ctx;
    // One kernel (working memory, running sums) per ring slot, so that the
    // frames of different slots may run concurrently.
    kernels_.clear();
    for (int k = 0; k < Context::kSlots; ++k) {
      kernels_.push_back(
          std::make_unique<VifCudaKernel>(scorer_.gain_limit(), scorer_.skip_scale0()));
      kernels_.back()->init(
          format.width, format.height, format.bit_depth,
          ctx.pool().alloc(VifCudaKernel::scratch_bytes(format.width, format.height)));
    }
    d_sums_ = ctx.pool().alloc_n<VifSums>(Context::kSlots);
    h_sums_ = ctx.pool().host_alloc_n<VifSums>(Context::kSlots);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  // Per-slot buffers and no state between frames: slots may overlap.
  bool concurrent_frames() const override { return true; }

  void enqueue(const DeviceFrame& f) override {
    cudaStream_t s = ctx_->stream();
    kernels_.at(static_cast<std::size_t>(f.slot))
        ->enqueue(f.ref[0].data, f.ref[0].pitch, f.dist[0].data, f.dist[0].pitch, s,
                  d_sums_ + f.slot);
    VQE_CUDA_CHECK(cudaMemcpyAsync(h_sums_ + f.slot, d_sums_ + f.slot, sizeof(VifSums),
                                   cudaMemcpyDeviceToHost, s));
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    scorer_.emit(index, vif_values_from_sums(h_sums_[slot], scorer_.skip_scale0()), out);
  }

 private:
  vif::Scorer scorer_;
  std::vector<std::unique_ptr<VifCudaKernel>> kernels_;  // one per ring slot
  Context* ctx_ = nullptr;
  VifSums* d_sums_ = nullptr;  // one per slot
  VifSums* h_sums_ = nullptr;  // pinned, one per slot
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::vif::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaVif>(options);
}
