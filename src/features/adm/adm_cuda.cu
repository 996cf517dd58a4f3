// SPDX-License-Identifier: BSD-2-Clause
// Integer ADM on the GPU, bit-identical to features/adm/integer_adm.cpp (the
// scalar reference of libvmaf's integer_adm.c). Every integer width,
// wrap-around, shift, rounding constant and border rule is that file's;
// comments there explain them. Float/double steps use round-to-nearest
// intrinsics so nothing is fused.

#include "features/adm/adm_cuda.h"

#include <math.h>  // pow, powf, log2, ceil, cos, fabs: the calls of the CPU reference

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "features/adm/adm_score.h"
#include "features/adm/adm_csf.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kQ = 9;  // row sums per level: den h/v/d, num h/v/d, aim h/v/d

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess)
    throw Error(std::string("adm (CUDA): ") + what + " failed: " + cudaGetErrorString(err));
}

// db2 analysis filters in Q15, tap order 2i-1, 2i, 2i+1, 2i+2 (integer_adm.cpp).
constexpr std::int32_t kLo0 = 15826, kLo1 = 27411, kLo2 = 7345, kLo3 = -4240;
constexpr std::int32_t kHi0 = -4240, kHi1 = -7345, kHi2 = 27411, kHi3 = -15826;
constexpr std::int32_t kLoSum = 46342;

/// DWT input tap: -1 reads 1; n and n+1 read n-1 and n-2.
__device__ __forceinline__ int tap(int t, int n) {
  if (t < 0) t = -t;
  if (t >= n) t = 2 * n - t - 1;
  return t;
}

/// |x| with x86's wrap-around at INT32_MIN.
__device__ __forceinline__ std::int32_t wrap_abs(std::int32_t x) {
  return x < 0 ? static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(x)) : x;
}

// ---------------------------------------------------------------------------
// Decoupling helpers

/// Angle test of integer_adm.cpp within_one_degree: int64 products (wrapping
/// as on x86), rounded to float, scaled in double.
__device__ __forceinline__ bool within_one_degree(std::int64_t oh, std::int64_t ov,
                                                  std::int64_t th, std::int64_t tv,
                                                  float cos_1deg_sq) {
  const auto u = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
  const auto dot = static_cast<std::int64_t>(u(oh) * u(th) + u(ov) * u(tv));
  const auto o_mag = static_cast<std::int64_t>(u(oh) * u(oh) + u(ov) * u(ov));
  const auto t_mag = static_cast<std::int64_t>(u(th) * u(th) + u(tv) * u(tv));
  const double d = __ddiv_rn(static_cast<double>(__ll2float_rn(dot)), 4096.0);
  const double o = __ddiv_rn(static_cast<double>(__ll2float_rn(o_mag)), 4096.0);
  const double t = __ddiv_rn(static_cast<double>(__ll2float_rn(t_mag)), 4096.0);
  return d >= 0.0 &&
         __dmul_rn(d, d) >= __dmul_rn(__dmul_rn(static_cast<double>(cos_1deg_sq), o), t);
}

/// Level-0 CSF masker terms of one position (integer_adm.cpp csf_level0).
__device__ __forceinline__ void csf_terms0(const std::int16_t (&x)[3], const std::uint32_t (&fx)[3],
                                           std::int32_t& m, std::int32_t& c) {
  constexpr int kShift[3] = {15, 15, 17};
  constexpr std::int32_t kAdd[3] = {16384, 16384, 65535};
  m = 0;
  c = 0;
#pragma unroll
  for (int t = 0; t < 3; ++t) {
    const std::int32_t v = static_cast<std::int32_t>(fx[t]) * x[t];
    const int csf = abs(static_cast<int>(static_cast<std::int16_t>((v + kAdd[t]) >> kShift[t])));
    m += static_cast<std::int16_t>((4369 * csf + 2048) >> 12);
    c += static_cast<std::int16_t>((8738 * csf + 2048) >> 12);
  }
}

/// Level 1-3 CSF masker terms (integer_adm.cpp csf_level123), int32 sums
/// with wrap-around.
__device__ __forceinline__ void csf_terms123(const std::int32_t (&x)[3],
                                             const std::uint32_t (&fx)[3], std::int32_t& m,
                                             std::int32_t& c) {
  constexpr std::int64_t kOneBy30 = 143165577, kOneBy15 = 286331153;
  constexpr std::int64_t kRound = -2147483648LL;
  std::uint32_t um = 0, uc = 0;
#pragma unroll
  for (int t = 0; t < 3; ++t) {
    const auto csf = static_cast<std::int32_t>(
        (static_cast<std::int64_t>(fx[t]) * x[t] + (1 << 27)) >> 28);
    const std::int64_t mag = wrap_abs(csf);
    um += static_cast<std::uint32_t>(static_cast<std::int32_t>((kOneBy30 * mag + kRound) >> 32));
    uc += static_cast<std::uint32_t>(static_cast<std::int32_t>((kOneBy15 * mag + kRound) >> 32));
  }
  m = static_cast<std::int32_t>(um);
  c = static_cast<std::int32_t>(uc);
}

/// Enhancement-gain limit of a restored coefficient (integer_adm.cpp
/// limit_enhancement), in double, truncated back to the band type.
__device__ __forceinline__ std::int32_t limit_enhancement(std::int32_t rst, std::int32_t dis,
                                                          bool positive_ref, double gain) {
  const double scaled = __dmul_rn(static_cast<double>(rst), gain);
  const double dd = static_cast<double>(dis);
  const double v = positive_ref ? (scaled < dd ? scaled : dd) : (scaled > dd ? scaled : dd);
  return __double2int_rz(v);
}

// ---------------------------------------------------------------------------
// One DWT level + decoupling + masker terms: one thread per band position

struct LevelArgs {
  const std::uint8_t* src[2];  // level 0: the planes; else the previous LL bands
  std::size_t pitch[2];        // bytes between input rows
  int in_w, in_h;              // input size
  int stride;                  // band row stride (samples)
  // Level 0's vertical rounding (samples centred by the offset).
  int shift_vp;
  std::int32_t add_vp;
  std::uint32_t offset;
  // Levels 1-3 rounding.
  std::int64_t add_v, add_h;
  int shift_v, shift_h;
  void* ll[2];       // LL band of both pictures (feeds the next level)
  void* ref_hvd[3];  // reference h, v, d (denominator), work region only
  void* rst[3];      // restored h, v, d
  void* add[3];      // additive h, v, d
  std::int32_t* mask[4];  // additive's mask/centre terms, restored's
  int top, bottom, left, right;  // work region
  bool decouple;  // false: level 0 under adm_skip_scale0 (LL band only)
  bool aim;
  double gain;
  float cos_1deg_sq;
  std::uint32_t fixed[3];
};

/// Level-0 db2 DWT at band position (i, j) of one picture: a, h, v, d.
template <typename T>
__device__ __forceinline__ void dwt0_at(const std::uint8_t* src, std::size_t pitch,
                                        const LevelArgs& a, int i, int j, std::int16_t (&out)[4]) {
  const T* rows[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    rows[k] = reinterpret_cast<const T*>(src + static_cast<std::size_t>(tap(2 * i - 1 + k, a.in_h)) *
                                                   pitch);
  std::int32_t lo[4], hi[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int c = tap(2 * j - 1 + k, a.in_w);
    const std::uint32_t s0 = rows[0][c], s1 = rows[1][c], s2 = rows[2][c], s3 = rows[3][c];
    const auto l = static_cast<std::int32_t>(
        static_cast<std::uint32_t>(kLo0) * s0 + static_cast<std::uint32_t>(kLo1) * s1 +
        static_cast<std::uint32_t>(kLo2) * s2 + static_cast<std::uint32_t>(kLo3) * s3 - a.offset);
    const auto hh = static_cast<std::int32_t>(
        static_cast<std::uint32_t>(kHi0) * s0 + static_cast<std::uint32_t>(kHi1) * s1 +
        static_cast<std::uint32_t>(kHi2) * s2 + static_cast<std::uint32_t>(kHi3) * s3);
    lo[k] = static_cast<std::int16_t>((l + a.add_vp) >> a.shift_vp);
    hi[k] = static_cast<std::int16_t>((hh + a.add_vp) >> a.shift_vp);
  }
  out[0] = static_cast<std::int16_t>(
      (kLo0 * lo[0] + kLo1 * lo[1] + kLo2 * lo[2] + kLo3 * lo[3] + 32768) >> 16);
  out[2] = static_cast<std::int16_t>(
      (kHi0 * lo[0] + kHi1 * lo[1] + kHi2 * lo[2] + kHi3 * lo[3] + 32768) >> 16);
  out[1] = static_cast<std::int16_t>(
      (kLo0 * hi[0] + kLo1 * hi[1] + kLo2 * hi[2] + kLo3 * hi[3] + 32768) >> 16);
  out[3] = static_cast<std::int16_t>(
      (kHi0 * hi[0] + kHi1 * hi[1] + kHi2 * hi[2] + kHi3 * hi[3] + 32768) >> 16);
}

/// Level 1-3 DWT at (i, j) of one picture from the previous LL band (S:
/// int16 at level 1, else int32), 64-bit sums.
template <typename S>
__device__ __forceinline__ void dwt123_at(const std::uint8_t* src, std::size_t pitch,
                                          const LevelArgs& a, int i, int j, std::int32_t (&out)[4]) {
  const S* rows[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    rows[k] = reinterpret_cast<const S*>(src + static_cast<std::size_t>(tap(2 * i - 1 + k, a.in_h)) *
                                                   pitch);
  std::int64_t lo[4], hi[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const int c = tap(2 * j - 1 + k, a.in_w);
    const std::int64_t s0 = rows[0][c], s1 = rows[1][c], s2 = rows[2][c], s3 = rows[3][c];
    const std::int64_t l = kLo0 * s0 + kLo1 * s1 + kLo2 * s2 + kLo3 * s3;
    const std::int64_t hh = kHi0 * s0 + kHi1 * s1 + kHi2 * s2 + kHi3 * s3;
    lo[k] = static_cast<std::int32_t>((l + a.add_v) >> a.shift_v);
    hi[k] = static_cast<std::int32_t>((hh + a.add_v) >> a.shift_v);
  }
  out[0] = static_cast<std::int32_t>(
      (kLo0 * lo[0] + kLo1 * lo[1] + kLo2 * lo[2] + kLo3 * lo[3] + a.add_h) >> a.shift_h);
  out[2] = static_cast<std::int32_t>(
      (kHi0 * lo[0] + kHi1 * lo[1] + kHi2 * lo[2] + kHi3 * lo[3] + a.add_h) >> a.shift_h);
  out[1] = static_cast<std::int32_t>(
      (kLo0 * hi[0] + kLo1 * hi[1] + kLo2 * hi[2] + kLo3 * hi[3] + a.add_h) >> a.shift_h);
  out[3] = static_cast<std::int32_t>(
      (kHi0 * hi[0] + kHi1 * hi[1] + kHi2 * hi[2] + kHi3 * hi[3] + a.add_h) >> a.shift_h);
}

/// Level-0 decoupling at one position (integer_adm.cpp decouple_level0) and
/// the masker terms of the additive (and restored) bands.
__device__ __forceinline__ void decouple_at0(const std::int16_t (&o)[3], const std::int16_t (&t)[3],
                                             const LevelArgs& a, std::size_t at) {
  const bool angle_ok = within_one_degree(o[0], o[1], t[0], t[1], a.cos_1deg_sq);
  std::int16_t rst[3], add[3];
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    std::int32_t kk = 32768;
    if (o[k] != 0) {
      const std::int32_t recip = 1073741824 / static_cast<std::int32_t>(o[k]);  // Q30 table entry
      kk = static_cast<std::int32_t>((static_cast<std::int64_t>(recip) * t[k] + 16384) >> 15);
    }
    kk = kk < 0 ? 0 : (kk > 32768 ? 32768 : kk);
    auto r = static_cast<std::int16_t>((kk * o[k] + 16384) >> 15);
    if (angle_ok && kk != 0 && o[k] != 0)
      r = static_cast<std::int16_t>(limit_enhancement(r, t[k], o[k] > 0, a.gain));
    rst[k] = r;
    add[k] = static_cast<std::int16_t>(t[k] - r);
    static_cast<std::int16_t*>(a.rst[k])[at] = rst[k];
    static_cast<std::int16_t*>(a.add[k])[at] = add[k];
  }
  std::int32_t m, c;
  csf_terms0(add, a.fixed, m, c);
  a.mask[0][at] = m;
  a.mask[1][at] = c;
  if (a.aim) {
    csf_terms0(rst, a.fixed, m, c);
    a.mask[2][at] = m;
    a.mask[3][at] = c;
  }
}

/// Level 1-3 decoupling at one position (integer_adm.cpp decouple_level123).
__device__ __forceinline__ void decouple_at123(const std::int32_t (&o)[3],
                                               const std::int32_t (&t)[3], const LevelArgs& a,
                                               std::size_t at) {
  const bool angle_ok = within_one_degree(o[0], o[1], t[0], t[1], a.cos_1deg_sq);
  std::int32_t rst[3], add[3];
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    std::int64_t kk = 32768;
    if (o[k] != 0) {
      const std::uint32_t mag = static_cast<std::uint32_t>(wrap_abs(o[k]));
      const std::int64_t sign = o[k] < 0 ? -1 : 1;
      int shift = 0;
      std::uint32_t top15 = mag;
      if (mag >= 32768) {
        shift = 17 - __clz(static_cast<int>(mag));
        top15 = static_cast<std::uint16_t>((mag + (1u << (shift - 1))) >> shift);
      }
      const std::int64_t recip = static_cast<std::int32_t>(1073741824u / top15);
      const std::int64_t num = recip * t[k];
      kk = (num * sign + (std::int64_t{1} << (14 + shift))) >> (15 + shift);
    }
    kk = kk < 0 ? 0 : (kk > 32768 ? 32768 : kk);
    auto r = static_cast<std::int32_t>((kk * o[k] + 16384) >> 15);
    if (angle_ok && kk != 0 && o[k] != 0) r = limit_enhancement(r, t[k], o[k] > 0, a.gain);
    rst[k] = r;
    add[k] = static_cast<std::int32_t>(static_cast<std::uint32_t>(t[k]) -
                                       static_cast<std::uint32_t>(r));
    static_cast<std::int32_t*>(a.rst[k])[at] = rst[k];
    static_cast<std::int32_t*>(a.add[k])[at] = add[k];
  }
  std::int32_t m, c;
  csf_terms123(add, a.fixed, m, c);
  a.mask[0][at] = m;
  a.mask[1][at] = c;
  if (a.aim) {
    csf_terms123(rst, a.fixed, m, c);
    a.mask[2][at] = m;
    a.mask[3][at] = c;
  }
}

/// One level: DWT of both pictures at every band position, then (inside the
/// work region) decoupling and masker terms. In: input sample type.
template <typename In, bool kLevel0>
__global__ void __launch_bounds__(kThreads) adm_level_kernel(const LevelArgs a) {
  using B = std::conditional_t<kLevel0, std::int16_t, std::int32_t>;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (j >= (a.in_w + 1) / 2 || i >= (a.in_h + 1) / 2) return;
  B r[4], d[4];
  if constexpr (kLevel0) {
    dwt0_at<In>(a.src[0], a.pitch[0], a, i, j, r);
    dwt0_at<In>(a.src[1], a.pitch[1], a, i, j, d);
  } else {
    dwt123_at<In>(a.src[0], a.pitch[0], a, i, j, r);
    dwt123_at<In>(a.src[1], a.pitch[1], a, i, j, d);
  }
  const std::size_t at = static_cast<std::size_t>(i) * a.stride + j;
  static_cast<B*>(a.ll[0])[at] = r[0];
  static_cast<B*>(a.ll[1])[at] = d[0];
  if (!a.decouple || i < a.top || i >= a.bottom || j < a.left || j >= a.right) return;
#pragma unroll
  for (int k = 0; k < 3; ++k) static_cast<B*>(a.ref_hvd[k])[at] = r[k + 1];
  const B o[3] = {r[1], r[2], r[3]};
  const B t[3] = {d[1], d[2], d[3]};
  if constexpr (kLevel0)
    decouple_at0(o, t, a, at);
  else
    decouple_at123(o, t, a, at);
}

// ---------------------------------------------------------------------------
// Row sums over the scored region (one block per scored row of every level);
// the last block to finish hands the frame's sums over

struct RowLevel {
  const void* ref[3];  // h, v, d (denominator)
  const void* rst[3];  // numerator target
  const void* add[3];  // AIM target
  const std::int32_t* mask[4];
  AdmSums* accum;      // the frame's running sums (zero between frames)
  int level;
  int stride, w, h;    // band
  int top, left, right;  // scored region
  std::uint32_t fixed[3];
  // Denominator rounding.
  std::uint32_t den_shift, den_shift_sq, den_shift_cub;
  std::uint64_t den_add, den_add_sq, den_add_cub;
  // Masked sums' rounding.
  std::uint32_t row_shift;
  std::int64_t row_add;
  std::uint32_t cub_shift[3];
  std::int64_t cub_add[3];
};

struct RowsArgs {
  RowLevel lv[adm::kNumScales];
  int first_block[adm::kNumScales + 1];  // level l: blocks first_block[l] .. [l+1]-1
  bool aim;
  AdmSums* accum;
  unsigned int* counter;  // blocks finished this frame; reset by the last block
  AdmSums* out;
};

/// Masking threshold at (i, j) of integer_adm.cpp masking_threshold:
/// neighbours with the reference's border rule, wrap-around int32 sum.
__device__ __forceinline__ std::int32_t threshold(const std::int32_t* mask,
                                                  const std::int32_t* centre, int stride, int i,
                                                  int j, int w, int h) {
  const int yb = i == 0 ? 1 : i - 1, ya = i == h - 1 ? h - 1 : i + 1;
  const int xb = j == 0 ? 1 : j - 1, xa = j == w - 1 ? w - 1 : j + 1;
  const std::int32_t* r0 = mask + static_cast<std::size_t>(yb) * stride;
  const std::int32_t* r1 = mask + static_cast<std::size_t>(i) * stride;
  const std::int32_t* r2 = mask + static_cast<std::size_t>(ya) * stride;
  std::uint32_t sum = static_cast<std::uint32_t>(centre[static_cast<std::size_t>(i) * stride + j]);
  sum += static_cast<std::uint32_t>(r0[xb]) + static_cast<std::uint32_t>(r0[xa]);
  sum += static_cast<std::uint32_t>(r0[j]);
  sum += static_cast<std::uint32_t>(r1[xb]) + static_cast<std::uint32_t>(r1[xa]);
  sum += static_cast<std::uint32_t>(r2[xb]) + static_cast<std::uint32_t>(r2[xa]);
  sum += static_cast<std::uint32_t>(r2[j]);
  return static_cast<std::int32_t>(sum);
}

/// Sum over the block (modular 64-bit integer addition: any order gives the
/// same bits); result in thread 0.
template <int K>
__device__ __forceinline__ void adm_block_sum(std::uint64_t (&v)[K]) {
  __shared__ std::uint64_t warp_sums[kThreads / 32][K];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int k = 0; k < K; ++k)
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v[k] += __shfl_down_sync(0xffffffffu, v[k], off);
  if (lane == 0)
#pragma unroll
    for (int k = 0; k < K; ++k) warp_sums[warp][k] = v[k];
  __syncthreads();
  if (threadIdx.x == 0) {
#pragma unroll
    for (int k = 0; k < K; ++k) {
      std::uint64_t s = 0;
      for (int w = 0; w < kThreads / 32; ++w) s += warp_sums[w][k];
      v[k] = s;
    }
  }
}

/// Row `row` (0-based in the scored region) of one level: the exact 64-bit
/// row sums of the denominator, numerator and AIM terms, rounded and
/// shifted per row as the reference does, added into L.accum.
template <bool kLevel0>
__device__ __forceinline__ void row_sums(const RowLevel& L, int row, bool aim) {
  using B = std::conditional_t<kLevel0, std::int16_t, std::int32_t>;
  const int i = L.top + row;
  const std::size_t off = static_cast<std::size_t>(i) * L.stride;
  const B* ref[3];
  const B* rst[3];
  const B* add[3];
#pragma unroll
  for (int t = 0; t < 3; ++t) {
    ref[t] = static_cast<const B*>(L.ref[t]) + off;
    rst[t] = static_cast<const B*>(L.rst[t]) + off;
    add[t] = static_cast<const B*>(L.add[t]) + off;
  }
  std::uint64_t v[kQ];
#pragma unroll
  for (int q = 0; q < kQ; ++q) v[q] = 0;

  // Masked term of one coefficient against threshold thr.
  const auto masked = [&](B x_in, std::int32_t thr, int t) -> std::int64_t {
    if constexpr (kLevel0) {
      constexpr int kThrShift[3] = {10, 10, 12};
      constexpr int kSqShift[3] = {29, 29, 30};
      constexpr std::int64_t kSqAdd[3] = {268435456, 268435456, 536870912};
      std::int32_t x = static_cast<std::int32_t>(x_in) * static_cast<std::int32_t>(L.fixed[t]);
      const std::uint32_t th = static_cast<std::uint32_t>(thr) << kThrShift[t];
      x = static_cast<std::int32_t>(static_cast<std::uint32_t>(wrap_abs(x)) - th);
      if (x < 0) x = 0;
      const auto x_sq = static_cast<std::int32_t>(
          (static_cast<std::int64_t>(x) * x + kSqAdd[t]) >> kSqShift[t]);
      return (static_cast<std::int64_t>(x_sq) * x + L.cub_add[t]) >> L.cub_shift[t];
    } else {
      std::int32_t x = static_cast<std::int32_t>(
          (static_cast<std::int64_t>(x_in) * L.fixed[t] + (1 << 27)) >> 28);
      x = static_cast<std::int32_t>(static_cast<std::uint32_t>(wrap_abs(x)) -
                                    static_cast<std::uint32_t>(thr));
      if (x < 0) x = 0;
      const auto x_sq =
          static_cast<std::int32_t>((static_cast<std::int64_t>(x) * x + 536870912) >> 30);
      return (static_cast<std::int64_t>(x_sq) * x + L.cub_add[0]) >> L.cub_shift[0];
    }
  };

  for (int j = L.left + threadIdx.x; j < L.right; j += kThreads) {
#pragma unroll
    for (int t = 0; t < 3; ++t) {
      if constexpr (kLevel0) {
        const std::uint64_t m = static_cast<std::uint16_t>(abs(static_cast<int>(ref[t][j])));
        v[t] += m * m * m;
      } else {
        const std::uint64_t m = static_cast<std::uint32_t>(wrap_abs(ref[t][j]));
        v[t] += ((((m * m + L.den_add_sq) >> L.den_shift_sq) * m) + L.den_add_cub) >>
                L.den_shift_cub;
      }
    }
    const std::int32_t thr_n = threshold(L.mask[0], L.mask[1], L.stride, i, j, L.w, L.h);
#pragma unroll
    for (int t = 0; t < 3; ++t) v[3 + t] += static_cast<std::uint64_t>(masked(rst[t][j], thr_n, t));
    if (aim) {
      const std::int32_t thr_a = threshold(L.mask[2], L.mask[3], L.stride, i, j, L.w, L.h);
#pragma unroll
      for (int t = 0; t < 3; ++t)
        v[6 + t] += static_cast<std::uint64_t>(masked(add[t][j], thr_a, t));
    }
  }
  adm_block_sum<kQ>(v);
  if (threadIdx.x == 0) {
    // The row's values after the reference's per-row rounding, added into
    // the frame's running sums (exact 64-bit integer atomics).
#pragma unroll
    for (int t = 0; t < 3; ++t) {
      atomicAdd(reinterpret_cast<unsigned long long*>(&L.accum->den[L.level][t]),
                static_cast<unsigned long long>((v[t] + L.den_add) >> L.den_shift));
      atomicAdd(reinterpret_cast<unsigned long long*>(&L.accum->num[L.level][t]),
                static_cast<unsigned long long>(
                    (static_cast<std::int64_t>(v[3 + t]) + L.row_add) >> L.row_shift));
      if (aim)
        atomicAdd(reinterpret_cast<unsigned long long*>(&L.accum->aim[L.level][t]),
                  static_cast<unsigned long long>(
                      (static_cast<std::int64_t>(v[6 + t]) + L.row_add) >> L.row_shift));
    }
  }
}

__global__ void __launch_bounds__(kThreads, 4) adm_rows_kernel(const RowsArgs a) {
  const int b = blockIdx.x;
  if (b < a.first_block[1])
    row_sums<true>(a.lv[0], b - a.first_block[0], a.aim);
  else if (b < a.first_block[2])
    row_sums<false>(a.lv[1], b - a.first_block[1], a.aim);
  else if (b < a.first_block[3])
    row_sums<false>(a.lv[2], b - a.first_block[2], a.aim);
  else
    row_sums<false>(a.lv[3], b - a.first_block[3], a.aim);

  // The last block to finish hands the frame's sums over and clears them.
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(a.counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  constexpr int kWords = static_cast<int>(sizeof(AdmSums) / sizeof(std::uint64_t));
  if (threadIdx.x < kWords) {
    __threadfence();
    auto* acc = reinterpret_cast<unsigned long long*>(a.accum);
    reinterpret_cast<unsigned long long*>(a.out)[threadIdx.x] = atomicExch(acc + threadIdx.x, 0ull);
  }
  if (threadIdx.x == 0) *a.counter = 0;
}

std::size_t align256(std::size_t n) { return (n + 255) & ~std::size_t{255}; }

/// (uint32_t)ceil(log2(n)) in double, as the reference writes it.
std::uint32_t ceil_log2(int n) {
  return static_cast<std::uint32_t>(ceil(log2(static_cast<double>(n))));
}
std::uint32_t half_of_pow2(std::uint32_t shift) { return shift == 0 ? 0u : (1u << (shift - 1)); }

}  // namespace

AdmCudaKernel::AdmCudaKernel(int width, int height, int bpc, const adm::AdmParams& params)
    : width_(width), height_(height), bpc_(bpc), params_(params) {
  adm::check_format(width, height, bpc, params);  // every backend's refusals

  // Weights, as the reference derives them.
  const adm::FixedWeights fw = adm::fixed_weights(params.csf);
  for (int k = 0; k < 3; ++k) {
    w0_fixed_[k] = fw.level0[k];
    for (int s = 1; s < adm::kNumScales; ++s) wn_fixed_[s][k] = fw.level123[s][k];
  }
  scorer_.emplace(width, height, params);
  cos_1deg_sq_ = static_cast<float>(cos(1.0 * 3.14159265358979323846 / 180.0) *
                                    cos(1.0 * 3.14159265358979323846 / 180.0));

  // Level geometry and the per-level rounding constants.
  const int stride0 = (width + 1) / 2, rows0 = (height + 1) / 2;
  const int stride1 = (stride0 + 1) / 2, rows1 = (rows0 + 1) / 2;
  band0_ = static_cast<std::size_t>(stride0) * rows0;
  band1_ = static_cast<std::size_t>(stride1) * rows1;
  int w = width, h = height;
  for (int s = 0; s < adm::kNumScales; ++s) {
    Level& L = lv_[s];
    L.in_w = w;
    L.in_h = h;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    L.w = w;
    L.h = h;
    L.stride = s == 0 ? stride0 : stride1;
    const int left = static_cast<int>(w * 0.1 - 0.5);
    const int top = static_cast<int>(h * 0.1 - 0.5);
    L.top = top;
    L.bottom = h - top;
    L.left = left;
    L.right = w - left;
    int wl = static_cast<int>(w * 0.1 - 0.5 - 1);
    int wt = static_cast<int>(h * 0.1 - 0.5 - 1);
    int wr = w - wl + 2;
    int wb = h - wt + 2;
    L.wleft = std::max(wl, 0);
    L.wtop = std::max(wt, 0);
    L.wright = std::min(wr, w);
    L.wbottom = std::min(wb, h);
    const int rw = L.right - L.left, rh = L.bottom - L.top;
    if (s == 0) {
      const int area = rh * rw;
      std::int32_t shift = static_cast<std::int32_t>(ceil(log2(area) - 20));
      shift = shift > 0 ? shift : 0;
      L.den_shift = static_cast<std::uint32_t>(shift);
      L.den_add = shift > 0 ? (std::uint64_t{1} << (shift - 1)) : 0;
      L.den_shift_sq = L.den_shift_cub = 0;
      L.den_add_sq = L.den_add_cub = 0;
      const double log2w = log2(static_cast<double>(w));
      L.cub_shift[0] = static_cast<std::uint32_t>(ceil(log2w - 4));
      L.cub_shift[1] = static_cast<std::uint32_t>(ceil(log2w - 4));
      L.cub_shift[2] = static_cast<std::uint32_t>(ceil(log2w - 3));
      for (int k = 0; k < 3; ++k) L.cub_add[k] = half_of_pow2(L.cub_shift[k]);
    } else {
      static constexpr std::uint32_t kShiftSq[3] = {31, 30, 31};
      L.den_shift_sq = kShiftSq[s - 1];
      L.den_add_sq = std::uint64_t{1} << L.den_shift_sq;  // 1.0, as the reference
      L.den_shift_cub = ceil_log2(rw);
      L.den_add_cub = half_of_pow2(L.den_shift_cub);
      L.den_shift = ceil_log2(rh);
      L.den_add = half_of_pow2(L.den_shift);
      const std::uint32_t cs = ceil_log2(w);
      for (int k = 0; k < 3; ++k) {
        L.cub_shift[k] = cs;
        L.cub_add[k] = half_of_pow2(cs);
      }
    }
    L.row_shift = ceil_log2(h);
    L.row_add = half_of_pow2(L.row_shift);
  }

  // Scratch layout (see bind()).
  std::size_t n = align256(sizeof(unsigned int));
  for (int s = 0; s < adm::kNumScales; ++s) {
    const std::size_t samples = s == 0 ? band0_ : band1_;
    const std::size_t band = samples * (s == 0 ? 2 : 4);
    n += 11 * align256(band);        // LL x2, reference h/v/d, restored x3, additive x3
    n += 4 * align256(samples * 4);  // masker terms
  }
  n += align256(sizeof(AdmSums));
  scratch_bytes_ = n;
}

AdmCudaKernel::~AdmCudaKernel() {
  if (owned_ != nullptr) cudaFree(owned_);
}

void AdmCudaKernel::bind(void* scratch) {
  if (owned_ != nullptr) {
    cudaFree(owned_);
    owned_ = nullptr;
  }
  if (scratch == nullptr) {
    check(cudaMalloc(&owned_, scratch_bytes_), "cudaMalloc");
    scratch = owned_;
  }
  auto* p = static_cast<std::uint8_t*>(scratch);
  auto take = [&p](std::size_t bytes) {
    void* r = p;
    p += align256(bytes);
    return r;
  };
  counter_ = static_cast<unsigned int*>(take(sizeof(unsigned int)));
  for (int s = 0; s < adm::kNumScales; ++s) {
    const std::size_t samples = s == 0 ? band0_ : band1_;
    const std::size_t band = samples * (s == 0 ? 2 : 4);
    buf_.ll[s][0] = take(band);
    buf_.ll[s][1] = take(band);
    for (int k = 0; k < 3; ++k) buf_.ref[s][k] = take(band);
    for (int k = 0; k < 3; ++k) buf_.rst[s][k] = take(band);
    for (int k = 0; k < 3; ++k) buf_.add[s][k] = take(band);
    for (int k = 0; k < 4; ++k) buf_.mask[s][k] = static_cast<std::int32_t*>(take(samples * 4));
  }
  accum_ = static_cast<AdmSums*>(take(sizeof(AdmSums)));
  check(cudaMemset(counter_, 0, sizeof(unsigned int)), "cudaMemset");
  check(cudaMemset(accum_, 0, sizeof(AdmSums)), "cudaMemset");
}

void AdmCudaKernel::enqueue(const void* ref, std::size_t ref_pitch, const void* dis,
                            std::size_t dis_pitch, cudaStream_t stream, AdmSums* d_sums) const {
  if (counter_ == nullptr) throw Error("adm (CUDA): enqueue() called before bind()");
  const dim3 block(32, 8);
  static constexpr std::int64_t kAddV[3] = {0, 32768, 32768};
  static constexpr int kShiftV[3] = {0, 16, 16};
  static constexpr std::int64_t kAddH[3] = {16384, 32768, 16384};
  static constexpr int kShiftH[3] = {15, 16, 15};
  RowsArgs r{};
  int blocks = 0;
  for (int s = 0; s < adm::kNumScales; ++s) {
    const Level& L = lv_[s];
    const bool decouple = !(s == 0 && params_.skip_scale0);
    // 1. DWT of both pictures, decoupling and masker terms.
    LevelArgs a{};
    if (s == 0) {
      a.src[0] = static_cast<const std::uint8_t*>(ref);
      a.src[1] = static_cast<const std::uint8_t*>(dis);
      a.pitch[0] = ref_pitch;
      a.pitch[1] = dis_pitch;
      a.shift_vp = bpc_;
      a.add_vp = std::int32_t{1} << (bpc_ - 1);
      a.offset = static_cast<std::uint32_t>(kLoSum) * static_cast<std::uint32_t>(a.add_vp);
    } else {
      a.src[0] = static_cast<const std::uint8_t*>(buf_.ll[s - 1][0]);
      a.src[1] = static_cast<const std::uint8_t*>(buf_.ll[s - 1][1]);
      a.pitch[0] = a.pitch[1] = static_cast<std::size_t>(lv_[s - 1].stride) * (s == 1 ? 2 : 4);
      a.add_v = kAddV[s - 1];
      a.shift_v = kShiftV[s - 1];
      a.add_h = kAddH[s - 1];
      a.shift_h = kShiftH[s - 1];
    }
    a.in_w = L.in_w;
    a.in_h = L.in_h;
    a.stride = L.stride;
    a.ll[0] = buf_.ll[s][0];
    a.ll[1] = buf_.ll[s][1];
    for (int k = 0; k < 3; ++k) {
      a.ref_hvd[k] = buf_.ref[s][k];
      a.rst[k] = buf_.rst[s][k];
      a.add[k] = buf_.add[s][k];
      a.fixed[k] = s == 0 ? w0_fixed_[k] : wn_fixed_[s][k];
    }
    for (int k = 0; k < 4; ++k) a.mask[k] = buf_.mask[s][k];
    a.top = L.wtop;
    a.bottom = L.wbottom;
    a.left = L.wleft;
    a.right = L.wright;
    a.decouple = decouple;
    a.aim = !params_.skip_aim;
    a.gain = params_.enhn_gain_limit;
    a.cos_1deg_sq = cos_1deg_sq_;
    const dim3 grid((L.w + block.x - 1) / block.x, (L.h + block.y - 1) / block.y);
    if (s == 0) {
      if (bpc_ == 8)
        adm_level_kernel<std::uint8_t, true><<<grid, block, 0, stream>>>(a);
      else
        adm_level_kernel<std::uint16_t, true><<<grid, block, 0, stream>>>(a);
    } else if (s == 1) {
      adm_level_kernel<std::int16_t, false><<<grid, block, 0, stream>>>(a);
    } else {
      adm_level_kernel<std::int32_t, false><<<grid, block, 0, stream>>>(a);
    }
    check(cudaGetLastError(), "ADM level kernel launch");
    if (markers_ != nullptr) cudaEventRecord(markers_[s], stream);

    // 2. The level's share of the row-sum launch.
    RowLevel& R = r.lv[s];
    for (int k = 0; k < 3; ++k) {
      R.ref[k] = buf_.ref[s][k];
      R.rst[k] = buf_.rst[s][k];
      R.add[k] = buf_.add[s][k];
      R.fixed[k] = a.fixed[k];
      R.cub_shift[k] = L.cub_shift[k];
      R.cub_add[k] = L.cub_add[k];
    }
    for (int k = 0; k < 4; ++k) R.mask[k] = buf_.mask[s][k];
    R.accum = accum_;
    R.level = s;
    R.stride = L.stride;
    R.w = L.w;
    R.h = L.h;
    R.top = L.top;
    R.left = L.left;
    R.right = L.right;
    R.den_shift = L.den_shift;
    R.den_add = L.den_add;
    R.den_shift_sq = L.den_shift_sq;
    R.den_add_sq = L.den_add_sq;
    R.den_shift_cub = L.den_shift_cub;
    R.den_add_cub = L.den_add_cub;
    R.row_shift = L.row_shift;
    R.row_add = L.row_add;
    r.first_block[s] = blocks;
    blocks += decouple ? L.bottom - L.top : 0;
  }
  r.first_block[adm::kNumScales] = blocks;
  r.aim = !params_.skip_aim;
  r.accum = accum_;
  r.counter = counter_;
  r.out = d_sums;
  adm_rows_kernel<<<blocks, kThreads, 0, stream>>>(r);
  check(cudaGetLastError(), "ADM row-sum kernel launch");
  if (markers_ != nullptr) cudaEventRecord(markers_[adm::kNumScales], stream);
}

adm::AdmResult AdmCudaKernel::result(const AdmSums& sums) const {
  return scorer_->score(sums);
}

// ---------------------------------------------------------------------------
// The `adm` CUDA extractor: the CPU extractor's outputs (adm_extractor.cpp),
// computed from the GPU sums.

namespace {

class CudaAdm final : public CudaExtractor {
 public:
  explicit CudaAdm(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);  // the refusals of every backend
    ctx_ = &ctx;
    // One kernel (working memory, running sums) per ring slot, so that the
    // frames of different slots may run concurrently.
    kernels_.clear();
    for (int k = 0; k < Context::kSlots; ++k) {
      kernels_.push_back(std::make_unique<AdmCudaKernel>(format.width, format.height,
                                                         format.bit_depth, scorer_.params()));
      kernels_.back()->bind(ctx.pool().alloc(kernels_.back()->scratch_bytes()));
    }
    d_sums_ = ctx.pool().alloc_n<AdmSums>(Context::kSlots);
    h_sums_ = ctx.pool().host_alloc_n<AdmSums>(Context::kSlots);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  // Per-slot buffers and no state between frames: slots may overlap.
  bool concurrent_frames() const override { return true; }

  void enqueue(const DeviceFrame& f) override {
    cudaStream_t s = ctx_->stream();
    kernels_.at(static_cast<std::size_t>(f.slot))
        ->enqueue(f.ref[0].data, f.ref[0].pitch, f.dist[0].data, f.dist[0].pitch, s,
                  d_sums_ + f.slot);
    VQE_CUDA_CHECK(cudaMemcpyAsync(h_sums_ + f.slot, d_sums_ + f.slot, sizeof(AdmSums),
                                   cudaMemcpyDeviceToHost, s));
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    scorer_.emit(index, kernels_.at(static_cast<std::size_t>(slot))->result(h_sums_[slot]), out);
  }

 private:
  adm::Scorer scorer_;
  std::vector<std::unique_ptr<AdmCudaKernel>> kernels_;  // one per ring slot
  Context* ctx_ = nullptr;
  AdmSums* d_sums_ = nullptr;  // one per slot
  AdmSums* h_sums_ = nullptr;  // pinned, one per slot
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::adm::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaAdm>(options);
}
