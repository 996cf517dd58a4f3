// SPDX-License-Identifier: BSD-2-Clause
// float_ansnr's 2-D filter: the scalar reference and a Highway SIMD version
// vectorised across output samples. Every output sample sees the same float
// operations in the same order (products k·x added to an inner sum that
// starts at 0, inner sums added to an outer sum that starts at 0), so the
// results are bit-identical. Only the interior columns, where no tap needs a
// mirrored column, are vectorised; border columns run the scalar code.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "features/float_ansnr/float_ansnr_simd.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep
#include <hwy/highway.h>

#include <cstddef>

#include "core/simd.h"
#include "features/float_ansnr/float_ansnr_kernels.h"

HWY_BEFORE_NAMESPACE();
namespace vqe::ansnr::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// `inner` and `accum` (the scalar kernel's scratch) are not used here.
void Filter2d(const float* kernel, int fwidth, const float* src, float* dst, int w, int h,
              const int* cols, float* /*inner*/, float* /*accum*/) {
  const hn::ScalableTag<float> df;
  const int n = static_cast<int>(hn::Lanes(df));
  const int r = fwidth / 2;
  const int x_lo = r < w ? r : w;
  const int x_hi = w - r > x_lo ? w - r : x_lo;
  const float* rows[5];
  auto border = [&](int x, float* out) {
    float acc = 0;
    for (int fi = 0; fi < fwidth; ++fi) {
      float in = 0;
      for (int fj = 0; fj < fwidth; ++fj)
        in += kernel[fi * fwidth + fj] * rows[fi][cols[x * fwidth + fj]];
      acc += in;
    }
    out[x] = acc;
  };
  for (int y = 0; y < h; ++y) {
    for (int fi = 0; fi < fwidth; ++fi)
      rows[fi] = src + static_cast<std::size_t>(mirror(y - r + fi, h)) * w;
    float* out = dst + static_cast<std::size_t>(y) * w;
    for (int x = 0; x < x_lo; ++x) border(x, out);
    int x = x_lo;
    for (; x + n <= x_hi; x += n) {
      auto acc = hn::Zero(df);
      for (int fi = 0; fi < fwidth; ++fi) {
        auto in = hn::Zero(df);
        const float* row = rows[fi] + x - r;
        for (int fj = 0; fj < fwidth; ++fj)
          in = hn::Add(in, hn::Mul(hn::Set(df, kernel[fi * fwidth + fj]), hn::LoadU(df, row + fj)));
        acc = hn::Add(acc, in);
      }
      hn::StoreU(acc, df, out + x);
    }
    for (; x < x_hi; ++x) {
      float acc = 0;
      for (int fi = 0; fi < fwidth; ++fi) {
        float in = 0;
        for (int fj = 0; fj < fwidth; ++fj) in += kernel[fi * fwidth + fj] * rows[fi][x + fj - r];
        acc += in;
      }
      out[x] = acc;
    }
    for (x = x_hi; x < w; ++x) border(x, out);
  }
}

}  // namespace vqe::ansnr::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace vqe::ansnr {

int mirror(int i, int n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

// libvmaf's loop order: per output row, per kernel row, per tap, per column,
// with the interior columns addressed directly.
void filter2d_scalar(const float* kernel, int fwidth, const float* src, float* dst, int w, int h,
                     const int* cols, float* inner, float* accum) {
  const int r = fwidth / 2;
  const int x_lo = r < w ? r : w;
  const int x_hi = w - r > x_lo ? w - r : x_lo;
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) accum[x] = 0;
    for (int fi = 0; fi < fwidth; ++fi) {
      const float* row = src + static_cast<std::size_t>(mirror(y - r + fi, h)) * w;
      for (int x = 0; x < w; ++x) inner[x] = 0;
      for (int fj = 0; fj < fwidth; ++fj) {
        const float k = kernel[fi * fwidth + fj];
        for (int x = 0; x < x_lo; ++x) inner[x] += k * row[cols[x * fwidth + fj]];
        const int shift = fj - r;
        for (int x = x_lo; x < x_hi; ++x) inner[x] += k * row[x + shift];
        for (int x = x_hi; x < w; ++x) inner[x] += k * row[cols[x * fwidth + fj]];
      }
      for (int x = 0; x < w; ++x) accum[x] += inner[x];
    }
    float* out = dst + static_cast<std::size_t>(y) * w;
    for (int x = 0; x < w; ++x) out[x] = accum[x];
  }
}

const AnsnrDsp& ansnr_dsp(simd::Level level) {
  static const simd::LevelTables<AnsnrDsp> tables([](simd::Level l) {
    AnsnrDsp d{filter2d_scalar};
    if (l != simd::Level::scalar) d.filter2d = VQE_SIMD_PICK(l, Filter2d);
    return d;
  });
  return tables[level];
}

}  // namespace vqe::ansnr
#endif  // HWY_ONCE
