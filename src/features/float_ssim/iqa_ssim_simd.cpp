// SPDX-License-Identifier: BSD-2-Clause
// Highway SIMD versions of the IQA SSIM building blocks (iqa_ssim.h), shared
// by float_ssim and float_ms_ssim. Bit-identical to the scalar reference:
//   - vectorised across output pixels only; every output value is computed
//     with the scalar's operations in the scalar's order (float products,
//     promoted to double, added to a double sum that starts at +0.0, then
//     rounded to float), never fused (no FMA: the build has
//     -ffp-contract=off and Highway's Mul/Add are separate instructions);
//   - double lanes hold one pixel each; the float operands sit in a float
//     vector of the same lane count, so no lane shuffles are needed;
//   - the SSIM map's four sums over all pixels stay sequential, in pixel
//     order, in double: the vectors only compute the per-pixel terms.
// The HWY_SCALAR fallback target (only used on CPUs without SSE4, where
// simd::max_level() is scalar anyway) compiles the same code with one lane.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/float_ssim/iqa_ssim_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "core/simd.h"
#include "features/float_ssim/iqa_ssim.h"

HWY_BEFORE_NAMESPACE();
namespace vqe::iqa::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using D64 = hn::ScalableTag<double>;
using DF = hn::Rebind<float, D64>;
// Largest kernel the SIMD decimate takes (float_ssim's box goes up to 10x10).
constexpr int kMaxDecimateTaps = 128;

// One pass of the 11-tap filter over `count` outputs: out[x] =
// (float) Σ_k (double)(in[x + k·step] · tap[k]), x in [0, count).
HWY_INLINE void filter11(const float* in, std::ptrdiff_t step, float* out, int count) {
  const D64 d;
  const DF df;
  const int n = static_cast<int>(hn::Lanes(d));
  int x = 0;
  // Four independent vectors per iteration hide the add latency.
  for (; x + 4 * n <= count; x += 4 * n) {
    auto a0 = hn::Zero(d);
    auto a1 = hn::Zero(d);
    auto a2 = hn::Zero(d);
    auto a3 = hn::Zero(d);
    for (int k = 0; k < kGaussianLen; ++k) {
      const auto tap = hn::Set(df, kGaussianTaps[k]);
      const float* p = in + k * step + x;
      a0 = hn::Add(a0, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, p), tap)));
      a1 = hn::Add(a1, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, p + n), tap)));
      a2 = hn::Add(a2, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, p + 2 * n), tap)));
      a3 = hn::Add(a3, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, p + 3 * n), tap)));
    }
    hn::StoreU(hn::DemoteTo(df, a0), df, out + x);
    hn::StoreU(hn::DemoteTo(df, a1), df, out + x + n);
    hn::StoreU(hn::DemoteTo(df, a2), df, out + x + 2 * n);
    hn::StoreU(hn::DemoteTo(df, a3), df, out + x + 3 * n);
  }
  for (; x + n <= count; x += n) {
    auto a0 = hn::Zero(d);
    for (int k = 0; k < kGaussianLen; ++k)
      a0 = hn::Add(a0, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, in + k * step + x),
                                                hn::Set(df, kGaussianTaps[k]))));
    hn::StoreU(hn::DemoteTo(df, a0), df, out + x);
  }
  for (; x < count; ++x) {
    double sum = 0.0;
    for (int k = 0; k < kGaussianLen; ++k) sum += in[k * step + x] * kGaussianTaps[k];
    out[x] = static_cast<float>(sum);
  }
}

// The blur's horizontal pass of rows [y0, y1) of a `width`-wide image.
void BlurRows(const float* src, int width, int y0, int y1, float* row_pass) {
  const int out_w = width - (kGaussianLen - 1);
  for (int y = y0; y < y1; ++y)
    filter11(src + static_cast<std::ptrdiff_t>(y) * width, 1,
             row_pass + static_cast<std::ptrdiff_t>(y) * out_w, out_w);
}

// The blur's vertical pass of output rows [y0, y1) (`out_w` wide).
void BlurColumns(const float* row_pass, int out_w, int y0, int y1, float* dst) {
  for (int y = y0; y < y1; ++y)
    filter11(row_pass + static_cast<std::ptrdiff_t>(y) * out_w, out_w,
             dst + static_cast<std::ptrdiff_t>(y) * out_w, out_w);
}

void BlurValid(const float* src, int width, int height, float* row_pass, float* dst) {
  BlurRows(src, width, 0, height, row_pass);
  BlurColumns(row_pass, width - (kGaussianLen - 1), 0, height - (kGaussianLen - 1), dst);
}

void Products(const float* r, const float* d, std::size_t count, float* sq_r, float* sq_d,
              float* cross) {
  const hn::ScalableTag<float> df;
  const std::size_t n = hn::Lanes(df);
  std::size_t i = 0;
  for (; i + n <= count; i += n) {
    const auto a = hn::LoadU(df, r + i);
    const auto b = hn::LoadU(df, d + i);
    hn::StoreU(hn::Mul(a, a), df, sq_r + i);
    hn::StoreU(hn::Mul(b, b), df, sq_d + i);
    hn::StoreU(hn::Mul(a, b), df, cross + i);
  }
  for (; i < count; ++i) {
    sq_r[i] = r[i] * r[i];
    sq_d[i] = d[i] * d[i];
    cross[i] = r[i] * d[i];
  }
}

// Per-pixel SSIM terms of one row of `count` pixels into lcs/l/c/s, with the
// scalar reference's expressions (see iqa_ssim.cpp ssim_gaussian).
void MapRow(const float* mu_r, const float* mu_d, const float* sq_r, const float* sq_d,
            const float* cross, int count, float c1, float c2, float c3, double* out_lcs,
            double* out_l, double* out_c, double* out_s) {
  const D64 d;
  const DF df;
  const int n = static_cast<int>(hn::Lanes(d));
  const auto zero_f = hn::Zero(df);
  const auto c1f = hn::Set(df, c1);
  const auto c2f = hn::Set(df, c2);
  const auto c3f = hn::Set(df, c3);
  const auto c1d = hn::Set(d, static_cast<double>(c1));
  const auto c2d = hn::Set(d, static_cast<double>(c2));
  const auto two = hn::Set(d, 2.0);
  int x = 0;
  for (; x + n <= count; x += n) {
    const auto mr = hn::LoadU(df, mu_r + x);
    const auto md = hn::LoadU(df, mu_d + x);
    auto var_r = hn::Sub(hn::LoadU(df, sq_r + x), hn::Mul(mr, mr));
    auto var_d = hn::Sub(hn::LoadU(df, sq_d + x), hn::Mul(md, md));
    // (0.0 > v) ? 0 : v; the double comparison of a float is exact.
    var_r = hn::IfThenElse(hn::Lt(var_r, zero_f), zero_f, var_r);
    var_d = hn::IfThenElse(hn::Lt(var_d, zero_f), zero_f, var_d);
    const auto covar = hn::Sub(hn::LoadU(df, cross + x), hn::Mul(mr, md));

    const auto sigma = hn::DemoteTo(df, hn::Sqrt(hn::PromoteTo(d, hn::Mul(var_r, var_d))));
    const auto mrd = hn::PromoteTo(d, mr);
    const auto mdd = hn::PromoteTo(d, md);
    const auto l_num = hn::Add(hn::Mul(hn::Mul(two, mrd), mdd), c1d);
    const auto l_den = hn::PromoteTo(d, hn::Add(hn::Add(hn::Mul(mr, mr), hn::Mul(md, md)), c1f));
    const auto l = hn::Div(l_num, l_den);
    const auto c_num = hn::Add(hn::Mul(two, hn::PromoteTo(d, sigma)), c2d);
    const auto c_den = hn::PromoteTo(d, hn::Add(hn::Add(var_r, var_d), c2f));
    const auto c = hn::Div(c_num, c_den);
    const auto clamp = hn::And(hn::Lt(covar, zero_f), hn::Le(sigma, zero_f));
    const auto cov = hn::IfThenElse(clamp, zero_f, covar);
    const auto s = hn::PromoteTo(d, hn::Div(hn::Add(cov, c3f), hn::Add(sigma, c3f)));
    hn::StoreU(hn::Mul(hn::Mul(l, c), s), d, out_lcs + x);
    hn::StoreU(l, d, out_l + x);
    hn::StoreU(c, d, out_c + x);
    hn::StoreU(s, d, out_s + x);
  }
  for (; x < count; ++x) {
    const float mr = mu_r[x];
    const float md = mu_d[x];
    float var_ref = sq_r[x] - mr * mr;
    float var_dist = sq_d[x] - md * md;
    var_ref = (0.0 > var_ref) ? 0.0f : var_ref;
    var_dist = (0.0 > var_dist) ? 0.0f : var_dist;
    const float covar = cross[x] - mr * md;
    const float sigma_product =
        static_cast<float>(std::sqrt(static_cast<double>(var_ref * var_dist)));
    const double l = (2.0 * mr * md + c1) / static_cast<double>(mr * mr + md * md + c1);
    const double c = (2.0 * sigma_product + c2) / static_cast<double>(var_ref + var_dist + c2);
    const float covar_clamped = (covar < 0.0f && sigma_product <= 0.0f) ? 0.0f : covar;
    const float s_float = (covar_clamped + c3) / (sigma_product + c3);
    const double s = s_float;
    out_lcs[x] = l * c * s;
    out_l[x] = l;
    out_c[x] = c;
    out_s[x] = s;
  }
}

// Splits F·N consecutive floats held in v[0..F) (v[j] = elements j·N ..
// j·N + N − 1) into their F phases: out[p] = elements p, p + F, p + 2F, ...
// (F a power of two; pairs of vectors are split into even and odd lanes,
// recursively). Not on HWY_SCALAR, which lacks the lane shuffles.
#if HWY_TARGET != HWY_SCALAR
template <int F, class D, class V>
HWY_INLINE void deinterleave(D d, const V* v, V* out) {
  if constexpr (F == 1) {
    out[0] = v[0];
  } else {
    V even[F / 2], odd[F / 2], pe[F / 2], po[F / 2];
    for (int j = 0; j < F / 2; ++j) {
      even[j] = hn::ConcatEven(d, v[2 * j + 1], v[2 * j]);
      odd[j] = hn::ConcatOdd(d, v[2 * j + 1], v[2 * j]);
    }
    deinterleave<F / 2>(d, even, pe);
    deinterleave<F / 2>(d, odd, po);
    for (int q = 0; q < F / 2; ++q) {
      out[2 * q] = pe[q];
      out[2 * q + 1] = po[q];
    }
  }
}
#endif  // HWY_TARGET != HWY_SCALAR

// A sample as decimate() reads it: floats as they are; picture samples
// converted as plane_to_float does with offset 0 ((float)s, divided by the
// power of two 2^(bpc−8) above 8 bits — exact, so multiplying by the exact
// inverse gives the same float).
HWY_INLINE float to_float(float s, float) { return s; }
HWY_INLINE float to_float(std::uint8_t s, float) { return static_cast<float>(s); }
HWY_INLINE float to_float(std::uint16_t s, float inv_scale) {
  return static_cast<float>(s) * inv_scale;
}

template <class D>
HWY_INLINE hn::Vec<D> load_float(D d, const float* p, hn::Vec<D>) {
  return hn::LoadU(d, p);
}
template <class D>
HWY_INLINE hn::Vec<D> load_float(D d, const std::uint8_t* p, hn::Vec<D>) {
  const hn::RebindToSigned<D> di;
  return hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(hn::Rebind<std::uint8_t, D>(), p)));
}
template <class D>
HWY_INLINE hn::Vec<D> load_float(D d, const std::uint16_t* p, hn::Vec<D> inv_scale) {
  const hn::RebindToSigned<D> di;
  return hn::Mul(
      hn::ConvertTo(d, hn::PromoteTo(di, hn::LoadU(hn::Rebind<std::uint16_t, D>(), p))),
      inv_scale);
}

// Vector part of split_row for a power-of-two factor F; returns the first
// phase index it did not fill.
template <int F, typename T>
HWY_INLINE int split_row_pow2(const T* row, int width, float inv_scale, float* ph,
                              std::ptrdiff_t phase_len) {
#if HWY_TARGET == HWY_SCALAR
  (void)row, (void)width, (void)inv_scale, (void)ph, (void)phase_len;
  return 0;
#else
  const hn::ScalableTag<float> d;
  using V = hn::Vec<decltype(d)>;
  const int n = static_cast<int>(hn::Lanes(d));
  const V vinv = hn::Set(d, inv_scale);
  int i = 0;
  for (; (i + n) * F <= width; i += n) {
    V v[F], out[F];
    for (int j = 0; j < F; ++j) v[j] = load_float(d, row + i * F + j * n, vinv);
    deinterleave<F>(d, v, out);
    for (int p = 0; p < F; ++p) hn::StoreU(out[p], d, ph + p * phase_len + i);
  }
  return i;
#endif
}

// ph[p·phase_len + i] = row[factor·i + p] (as float) for every
// factor·i + p < width.
template <typename T>
HWY_INLINE void split_row(const T* row, int width, float inv_scale, int factor, float* ph,
                          std::ptrdiff_t phase_len) {
  int i0 = 0;
  if (factor == 2) i0 = split_row_pow2<2>(row, width, inv_scale, ph, phase_len);
  else if (factor == 4) i0 = split_row_pow2<4>(row, width, inv_scale, ph, phase_len);
  else if (factor == 8) i0 = split_row_pow2<8>(row, width, inv_scale, ph, phase_len);
  for (int p = 0; p < factor; ++p) {
    float* out = ph + p * phase_len;
    for (int i = i0; factor * i + p < width; ++i) out[i] = to_float(row[factor * i + p], inv_scale);
  }
}

// One output row y of decimate() for the interior columns [x_lo, x_hi),
// where every tap lies inside the image.
//
// Source rows are split into `factor` phases so that each tap reads
// contiguous floats. `phases` holds kernel_size split rows, slot
// (r mod kernel_size) for source row r:
// phases[(slot·factor + p)·phase_len + i] = src[r·width + factor·i + p].
// `slot_row` (kernel_size ints, −1 before the first row of a frame) records
// which source row each slot holds, so consecutive output rows reuse them
// (MS-SSIM's 9 rows at factor 2 overlap by 7; float_ssim's boxes do not).
//
// `src` rows are `stride` samples apart; picture samples (uint8/uint16) are
// converted to float as they are read (to_float), so decimating a plane
// directly equals decimating its plane_to_float() image.
template <typename T>
void DecimateRowInteriorT(const T* src, std::ptrdiff_t stride, int width, float inv_scale,
                          int factor, const float* kernel, int kernel_size, int cy, int x_lo,
                          int x_hi, float* phases, std::ptrdiff_t phase_len, int* slot_row,
                          float* dst_row) {
  const D64 d;
  const DF df;
  const int n = static_cast<int>(hn::Lanes(d));
  const int half = kernel_size / 2;
  const int last = half - (kernel_size % 2 == 0 ? 1 : 0);
  const int taps = kernel_size * kernel_size;

  // Per tap: where src[factor·x + u] of kernel row v sits in `phases`,
  // relative to x: phase (u mod factor) at index x + floor(u / factor).
  std::ptrdiff_t offset[kMaxDecimateTaps];
  for (int v = 0; v < kernel_size; ++v) {
    const int r = cy - half + v;
    const int slot = r % kernel_size;
    float* ph = phases + static_cast<std::ptrdiff_t>(slot) * factor * phase_len;
    if (slot_row[slot] != r) {
      split_row(src + r * stride, width, inv_scale, factor, ph, phase_len);
      slot_row[slot] = r;
    }
    for (int u = -half; u <= last; ++u) {
      const int p = ((u % factor) + factor) % factor;
      const int q = (u - p) / factor;
      offset[v * kernel_size + (u + half)] =
          (static_cast<std::ptrdiff_t>(slot) * factor + p) * phase_len + q;
    }
  }

  int x = x_lo;
  for (; x + 2 * n <= x_hi; x += 2 * n) {
    auto a0 = hn::Zero(d);
    auto a1 = hn::Zero(d);
    for (int k = 0; k < taps; ++k) {
      const auto t = hn::Set(df, kernel[k]);
      const float* p = phases + offset[k] + x;
      a0 = hn::Add(a0, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, p), t)));
      a1 = hn::Add(a1, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, p + n), t)));
    }
    hn::StoreU(hn::DemoteTo(df, a0), df, dst_row + x);
    hn::StoreU(hn::DemoteTo(df, a1), df, dst_row + x + n);
  }
  for (; x + n <= x_hi; x += n) {
    auto acc = hn::Zero(d);
    for (int k = 0; k < taps; ++k)
      acc = hn::Add(acc, hn::PromoteTo(d, hn::Mul(hn::LoadU(df, phases + offset[k] + x),
                                                  hn::Set(df, kernel[k]))));
    hn::StoreU(hn::DemoteTo(df, acc), df, dst_row + x);
  }
  for (; x < x_hi; ++x) {
    const int cx = x * factor;
    double sum = 0.0;
    int k = 0;
    for (int v = -half; v <= last; ++v) {
      const T* row = src + (cy + v) * stride + cx;
      for (int u = -half; u <= last; ++u, ++k) sum += to_float(row[u], inv_scale) * kernel[k];
    }
    dst_row[x] = static_cast<float>(sum);
  }
}

void DecimateRowInterior(const float* src, std::ptrdiff_t stride, int width, float inv_scale,
                         int factor, const float* kernel, int kernel_size, int cy, int x_lo,
                         int x_hi, float* phases, std::ptrdiff_t phase_len, int* slot_row,
                         float* dst_row) {
  DecimateRowInteriorT(src, stride, width, inv_scale, factor, kernel, kernel_size, cy, x_lo, x_hi,
                       phases, phase_len, slot_row, dst_row);
}
void DecimateRowInterior8(const std::uint8_t* src, std::ptrdiff_t stride, int width,
                          float inv_scale, int factor, const float* kernel, int kernel_size,
                          int cy, int x_lo, int x_hi, float* phases, std::ptrdiff_t phase_len,
                          int* slot_row, float* dst_row) {
  DecimateRowInteriorT(src, stride, width, inv_scale, factor, kernel, kernel_size, cy, x_lo, x_hi,
                       phases, phase_len, slot_row, dst_row);
}
void DecimateRowInterior16(const std::uint16_t* src, std::ptrdiff_t stride, int width,
                           float inv_scale, int factor, const float* kernel, int kernel_size,
                           int cy, int x_lo, int x_hi, float* phases, std::ptrdiff_t phase_len,
                           int* slot_row, float* dst_row) {
  DecimateRowInteriorT(src, stride, width, inv_scale, factor, kernel, kernel_size, cy, x_lo, x_hi,
                       phases, phase_len, slot_row, dst_row);
}

}  // namespace vqe::iqa::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vqe::iqa {
namespace {

// KBND_SYMMETRIC index, as in iqa_ssim.cpp.
inline int reflect(int i, int n) {
  if (i < 0) i = -1 - i;
  else if (i >= n) i = 2 * n - 1 - i;
  return std::clamp(i, 0, n - 1);
}

// A sample read by the fused plane decimation, converted as plane_to_float
// does with offset 0 (see to_float in the SIMD part).
inline float sample_to_float(float s, float) { return s; }
inline float sample_to_float(std::uint8_t s, float) { return static_cast<float>(s); }
inline float sample_to_float(std::uint16_t s, float inv_scale) {
  return static_cast<float>(s) * inv_scale;
}

// One border pixel of decimate(), as the scalar reference computes it.
template <typename T>
float decimate_border_pixel(const T* src, std::ptrdiff_t stride, float inv_scale, int width,
                            int height, int factor, const float* kernel, int kernel_size, int x,
                            int y) {
  const int half = kernel_size / 2;
  const int last = half - (kernel_size % 2 == 0 ? 1 : 0);
  const int cx = x * factor;
  const int cy = y * factor;
  double sum = 0.0;
  int k = 0;
  for (int v = -half; v <= last; ++v) {
    const T* row = src + reflect(cy + v, height) * stride;
    for (int u = -half; u <= last; ++u, ++k)
      sum += sample_to_float(row[reflect(cx + u, width)], inv_scale) * kernel[k];
  }
  return static_cast<float>(sum);
}

// decimate() over samples of type T (see decimate and decimate_plane).
template <typename T, typename Interior>
void decimate_simd(const T* src, std::ptrdiff_t stride, float inv_scale, int width, int height,
                   int factor, const float* kernel, int kernel_size, float* dst, float* scratch,
                   Interior interior, int y0 = 0, int y1 = -1) {
  const int out_w = decimated_size(width, factor);
  const int out_h = decimated_size(height, factor);
  const int half = kernel_size / 2;
  const int last = half - (kernel_size % 2 == 0 ? 1 : 0);
  // Interior columns: cx − half >= 0 and cx + last < width.
  int x_lo = (half + factor - 1) / factor;
  int x_hi = width - 1 - last >= 0 ? (width - 1 - last) / factor + 1 : 0;
  x_hi = std::min(x_hi, out_w);
  if (x_lo > x_hi) x_lo = x_hi;
  const std::ptrdiff_t phase_len = width / factor + 1;
  int slot_row[16];  // source row held by each scratch slot
  for (int& r : slot_row) r = -1;
  auto border = [&](int x, int y) {
    return decimate_border_pixel(src, stride, inv_scale, width, height, factor, kernel,
                                 kernel_size, x, y);
  };
  for (int y = y0, end = y1 < 0 ? out_h : y1; y < end; ++y) {
    float* out = dst + static_cast<std::ptrdiff_t>(y) * out_w;
    const int cy = y * factor;
    const bool row_inside = cy - half >= 0 && cy + last < height;
    if (row_inside && x_hi > x_lo) {
      for (int x = 0; x < x_lo; ++x) out[x] = border(x, y);
      interior(src, stride, width, inv_scale, factor, kernel, kernel_size, cy, x_lo, x_hi, scratch,
               phase_len, slot_row, out);
      for (int x = x_hi; x < out_w; ++x) out[x] = border(x, y);
    } else {
      for (int x = 0; x < out_w; ++x) out[x] = border(x, y);
    }
  }
}

// The SIMD kernel takes kernels up to 128 taps and 16 rows (its slot
// table); float_ssim's boxes are at most 10x10, MS-SSIM's low-pass 9x9.
bool simd_decimate_fits(int kernel_size) {
  return kernel_size * kernel_size <= 128 && kernel_size <= 16;
}

}  // namespace

std::size_t decimate_scratch_size(int width, int factor, int kernel_size) {
  const std::size_t phase_len = static_cast<std::size_t>(width / factor + 1);
  return static_cast<std::size_t>(kernel_size) * factor * phase_len;
}

namespace {

// The four sums of an SSIM map, added row after row in the scalar
// reference's order.
struct MapSums {
  double ssim = 0.0, l = 0.0, c = 0.0, s = 0.0;
  // Adds one map row: l·c·s, l, c and s, each `out_w` values, one after the
  // other from `row`.
  void add_row(const double* row, int out_w) {
    const double* lr = row + out_w;
    const double* cr = lr + out_w;
    const double* sr = cr + out_w;
    for (int x = 0; x < out_w; ++x) {
      ssim += row[x];
      l += lr[x];
      c += cr[x];
      s += sr[x];
    }
  }
  // The means over `count` pixels, rounded to float.
  SsimMeans means(int count) const { return ssim_means(ssim, l, c, s, count); }
};


// ssim_gaussian_simd with row tiles on `runner` (width > 1): the products,
// both passes of each blur and the per-pixel map are cut into row tiles;
// the map is made in chunks of rows that this thread then sums in the
// scalar's order, so the result is the same bits.
SsimMeans ssim_gaussian_tiled(const IqaDsp& k, const float* reference, const float* distorted,
                              int width, int height, SsimWorkspace& ws, TileRunner& runner,
                              float c1, float c2, float c3) {
  float* sq_ref = ws.square_ref_;
  float* sq_dist = ws.square_dist_;
  float* cross = ws.cross_;
  const int out_w = width - (kGaussianLen - 1);
  const int out_h = height - (kGaussianLen - 1);
  constexpr int kMinRows = 16;

  const unsigned in_tiles = runner.tile_count(height, kMinRows, width);
  const auto products = k.products;
  runner.run(in_tiles, [&](unsigned tile, unsigned) {
    const TileRows rows = tile_rows(tile, in_tiles, height);
    const std::size_t at = static_cast<std::size_t>(rows.begin) * width;
    products(reference + at, distorted + at,
             static_cast<std::size_t>(rows.end - rows.begin) * width, sq_ref + at, sq_dist + at,
             cross + at);
  });

  float* row_pass = ws.row_pass_;
  const auto blur_rows = k.blur_rows;
  const auto blur_columns = k.blur_columns;
  const unsigned out_tiles = runner.tile_count(out_h, kMinRows, out_w);
  const std::pair<const float*, float*> maps[5] = {{reference, ws.mu_ref_},
                                                   {distorted, ws.mu_dist_},
                                                   {sq_ref, sq_ref},
                                                   {sq_dist, sq_dist},
                                                   {cross, cross}};
  for (const auto& [src, dst] : maps) {
    // Every horizontal row first: the vertical pass reads 11 of them, and
    // the second-moment maps are blurred in place.
    runner.run(in_tiles, [&](unsigned tile, unsigned) {
      const TileRows rows = tile_rows(tile, in_tiles, height);
      blur_rows(src, width, rows.begin, rows.end, row_pass);
    });
    runner.run(out_tiles, [&](unsigned tile, unsigned) {
      const TileRows rows = tile_rows(tile, out_tiles, out_h);
      blur_columns(row_pass, out_w, rows.begin, rows.end, dst);
    });
  }

  // The map in chunks of rows (4 doubles per pixel), summed here in order.
  const int chunk_rows = static_cast<int>(
      std::min<std::size_t>(static_cast<std::size_t>(out_h), ws.map_chunk_rows_));
  if (ws.map_chunk_.size() < 4 * static_cast<std::size_t>(chunk_rows) * out_w)
    ws.map_chunk_.assign(4 * static_cast<std::size_t>(chunk_rows) * out_w, 0.0);
  const auto map_row = k.map_row;
  const float* mu_ref = ws.mu_ref_;
  const float* mu_dist = ws.mu_dist_;
  MapSums sums;
  for (int y0 = 0; y0 < out_h; y0 += chunk_rows) {
    const int rows_here = std::min(chunk_rows, out_h - y0);
    const unsigned tiles = runner.tile_count(rows_here, 4, out_w);
    runner.run(tiles, [&](unsigned tile, unsigned) {
      const TileRows rows = tile_rows(tile, tiles, rows_here);
      for (int r = rows.begin; r < rows.end; ++r) {
        const std::size_t o = static_cast<std::size_t>(y0 + r) * out_w;
        double* lcs = ws.map_chunk_.data() + static_cast<std::size_t>(4 * r) * out_w;
        map_row(mu_ref + o, mu_dist + o, sq_ref + o, sq_dist + o, cross + o, out_w, c1, c2, c3,
                lcs, lcs + out_w, lcs + 2 * out_w, lcs + 3 * out_w);
      }
    });
    for (int r = 0; r < rows_here; ++r)
      sums.add_row(ws.map_chunk_.data() + static_cast<std::size_t>(4 * r) * out_w, out_w);
  }
  return sums.means(out_w * out_h);
}

// IqaDsp::ssim_gaussian of the SIMD levels (arguments checked by the caller).
SsimMeans ssim_gaussian_simd(const IqaDsp& k, const float* reference, const float* distorted,
                             int width, int height, SsimWorkspace& ws, TileRunner* tiles) {
  const float c1 = (0.01f * 255) * (0.01f * 255);
  const float c2 = (0.03f * 255) * (0.03f * 255);
  const float c3 = c2 / 2.0f;
  if (tiles != nullptr && tiles->width() > 1)
    return ssim_gaussian_tiled(k, reference, distorted, width, height, ws, *tiles, c1, c2, c3);

  const std::size_t n = static_cast<std::size_t>(width) * height;
  float* sq_ref = ws.square_ref_;
  float* sq_dist = ws.square_dist_;
  float* cross = ws.cross_;
  k.products(reference, distorted, n, sq_ref, sq_dist, cross);

  float* mu_ref = ws.mu_ref_;
  float* mu_dist = ws.mu_dist_;
  float* row_pass = ws.row_pass_;
  const auto blur = k.blur_valid;
  blur(reference, width, height, row_pass, mu_ref);
  blur(distorted, width, height, row_pass, mu_dist);
  // The second-moment maps are blurred in place into their first valid-size entries.
  blur(sq_ref, width, height, row_pass, sq_ref);
  blur(sq_dist, width, height, row_pass, sq_dist);
  blur(cross, width, height, row_pass, cross);

  const int out_w = width - (kGaussianLen - 1);
  const int out_h = height - (kGaussianLen - 1);
  double* lcs = ws.map_rows_.data();
  double* l = lcs + out_w;
  double* c = l + out_w;
  double* s = c + out_w;
  const auto map_row = k.map_row;
  MapSums sums;
  for (int y = 0; y < out_h; ++y) {
    const std::size_t o = static_cast<std::size_t>(y) * out_w;
    map_row(mu_ref + o, mu_dist + o, sq_ref + o, sq_dist + o, cross + o, out_w, c1, c2, c3, lcs,
            l, c, s);
    sums.add_row(lcs, out_w);
  }
  return sums.means(out_w * out_h);
}

// IqaDsp::decimate of the SIMD levels.
void decimate_simd_entry(const IqaDsp& k, const float* src, int width, int height, int factor,
                         const float* kernel, int kernel_size, float* dst, float* scratch,
                         int first_row, int end_row) {
  if (!simd_decimate_fits(kernel_size)) {
    decimate_rows_scalar(src, width, height, factor, kernel, kernel_size, dst, first_row,
                         end_row);
    return;
  }
  decimate_simd(src, width, 1.0f, width, height, factor, kernel, kernel_size, dst, scratch,
                k.decimate_row_f32, first_row, end_row);
}

// IqaDsp::decimate_plane of the SIMD levels.
bool decimate_plane_simd(const IqaDsp& k, const Plane& plane, int bit_depth, int factor,
                         const float* kernel, int kernel_size, float* dst, float* scratch) {
  if (!simd_decimate_fits(kernel_size)) return false;
  if (bit_depth == 8) {
    decimate_simd(plane.row<std::uint8_t>(0), plane.stride, 1.0f, plane.width, plane.height,
                  factor, kernel, kernel_size, dst, scratch, k.decimate_row_u8);
  } else {
    const float inv_scale = 1.0f / static_cast<float>(1 << (bit_depth - 8));  // exact 2^-k
    decimate_simd(plane.row<std::uint16_t>(0), plane.stride / 2, inv_scale, plane.width,
                  plane.height, factor, kernel, kernel_size, dst, scratch, k.decimate_row_u16);
  }
  return true;
}

}  // namespace

const IqaDsp& iqa_dsp(simd::Level level) {
  static const simd::LevelTables<IqaDsp> tables([](simd::Level l) {
    IqaDsp d = iqa_scalar_dsp();
    if (l == simd::Level::scalar) return d;
    d.ssim_gaussian = ssim_gaussian_simd;
    d.decimate = decimate_simd_entry;
    d.decimate_plane = decimate_plane_simd;
    d.blur_valid = VQE_SIMD_PICK(l, BlurValid);
    d.blur_rows = VQE_SIMD_PICK(l, BlurRows);
    d.blur_columns = VQE_SIMD_PICK(l, BlurColumns);
    d.products = VQE_SIMD_PICK(l, Products);
    d.map_row = VQE_SIMD_PICK(l, MapRow);
    d.decimate_row_f32 = VQE_SIMD_PICK(l, DecimateRowInterior);
    d.decimate_row_u8 = VQE_SIMD_PICK(l, DecimateRowInterior8);
    d.decimate_row_u16 = VQE_SIMD_PICK(l, DecimateRowInterior16);
    return d;
  });
  return tables[level];
}

}  // namespace vqe::iqa
#endif  // HWY_ONCE
