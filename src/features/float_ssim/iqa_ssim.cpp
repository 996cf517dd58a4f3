// SPDX-License-Identifier: BSD-2-Clause
#include "features/float_ssim/iqa_ssim.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::iqa {
namespace {

// Index into [0, n) reflected once about each edge (-1 -> 0, n -> n-1), as
// KBND_SYMMETRIC. Callers stay within one reflection; the clamp only guards
// memory safety.
inline int reflect(int i, int n) {
  if (i < 0) i = -1 - i;
  else if (i >= n) i = 2 * n - 1 - i;
  return std::clamp(i, 0, n - 1);
}

}  // namespace

// Valid-region separable Gaussian blur of a width × height image into a
// (width−10) × (height−10) image. `row_pass` holds (width−10) × height
// floats. `dst` may alias `src`: every read of src happens in the first pass.
void gaussian_blur_valid_scalar(const float* src, int width, int height, float* row_pass,
                                float* dst) {
  const int out_w = width - (kGaussianLen - 1);
  const int out_h = height - (kGaussianLen - 1);
  for (int y = 0; y < height; ++y) {
    const float* in = src + static_cast<std::ptrdiff_t>(y) * width;
    float* out = row_pass + static_cast<std::ptrdiff_t>(y) * out_w;
    for (int x = 0; x < out_w; ++x) {
      double sum = 0.0;
      for (int k = 0; k < kGaussianLen; ++k) sum += in[x + k] * kGaussianTaps[k];
      out[x] = static_cast<float>(sum);
    }
  }
  for (int y = 0; y < out_h; ++y) {
    float* out = dst + static_cast<std::ptrdiff_t>(y) * out_w;
    for (int x = 0; x < out_w; ++x) {
      double sum = 0.0;
      const float* col = row_pass + static_cast<std::ptrdiff_t>(y) * out_w + x;
      for (int k = 0; k < kGaussianLen; ++k)
        sum += col[static_cast<std::ptrdiff_t>(k) * out_w] * kGaussianTaps[k];
      out[x] = static_cast<float>(sum);
    }
  }
}

void SsimWorkspace::reserve(int width, int height, ScratchArena* arena) {
  if (width < kGaussianLen || height < kGaussianLen)
    throw Error(fmt::format("ssim: image {}x{} is smaller than the {}x{} window", width, height,
                            kGaussianLen, kGaussianLen));
  width_ = width;
  height_ = height;
  const std::size_t full = static_cast<std::size_t>(width) * height;
  const std::size_t valid =
      static_cast<std::size_t>(width - (kGaussianLen - 1)) * (height - (kGaussianLen - 1));
  ScratchArena& a = arena != nullptr ? *arena : own_;
  square_ref_ = a.get<float>(kScratchWork, full);
  square_dist_ = a.get<float>(kScratchWork + 1, full);
  cross_ = a.get<float>(kScratchWork + 2, full);
  mu_ref_ = a.get<float>(kScratchWork + 3, valid);
  mu_dist_ = a.get<float>(kScratchWork + 4, valid);
  row_pass_ = a.get<float>(kScratchWork + 5,
                           static_cast<std::size_t>(width - (kGaussianLen - 1)) * height);
  if (map_rows_.size() < 4 * static_cast<std::size_t>(width - (kGaussianLen - 1)))
    map_rows_.assign(4 * static_cast<std::size_t>(width - (kGaussianLen - 1)), 0.0);
}

SsimMeans ssim_gaussian(const IqaDsp& dsp, const float* reference, const float* distorted,
                        int width, int height, SsimWorkspace& ws, TileRunner* tiles) {
  if (width < kGaussianLen || height < kGaussianLen || width > ws.width_ ||
      height > ws.height_)
    throw Error(fmt::format("ssim: image {}x{} does not fit the workspace {}x{} or the {}x{} window",
                            width, height, ws.width_, ws.height_, kGaussianLen, kGaussianLen));
  return dsp.ssim_gaussian(dsp, reference, distorted, width, height, ws, tiles);
}

SsimMeans ssim_gaussian_scalar(const IqaDsp& /*dsp*/, const float* reference,
                               const float* distorted, int width, int height, SsimWorkspace& ws,
                               TileRunner* /*tiles*/) {
  // Single-precision constants exactly as libvmaf forms them (K*L in float).
  const float c1 = (0.01f * 255) * (0.01f * 255);
  const float c2 = (0.03f * 255) * (0.03f * 255);
  const float c3 = c2 / 2.0f;

  const std::size_t n = static_cast<std::size_t>(width) * height;
  float* sq_ref = ws.square_ref_;
  float* sq_dist = ws.square_dist_;
  float* cross = ws.cross_;
  for (std::size_t i = 0; i < n; ++i) {
    sq_ref[i] = reference[i] * reference[i];
    sq_dist[i] = distorted[i] * distorted[i];
    cross[i] = reference[i] * distorted[i];
  }

  float* mu_ref = ws.mu_ref_;
  float* mu_dist = ws.mu_dist_;
  float* row_pass = ws.row_pass_;
  gaussian_blur_valid_scalar(reference, width, height, row_pass, mu_ref);
  gaussian_blur_valid_scalar(distorted, width, height, row_pass, mu_dist);
  // The second-moment maps are blurred in place into their first valid-size entries.
  gaussian_blur_valid_scalar(sq_ref, width, height, row_pass, sq_ref);
  gaussian_blur_valid_scalar(sq_dist, width, height, row_pass, sq_dist);
  gaussian_blur_valid_scalar(cross, width, height, row_pass, cross);

  const int out_w = width - (kGaussianLen - 1);
  const int out_h = height - (kGaussianLen - 1);
  const std::size_t m = static_cast<std::size_t>(out_w) * out_h;

  double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
  for (std::size_t i = 0; i < m; ++i) {
    const float mr = mu_ref[i];
    const float md = mu_dist[i];
    // Variances and covariance in float; variances floored at zero (compared in double).
    float var_ref = sq_ref[i] - mr * mr;
    float var_dist = sq_dist[i] - md * md;
    var_ref = (0.0 > var_ref) ? 0.0f : var_ref;
    var_dist = (0.0 > var_dist) ? 0.0f : var_dist;
    const float covar = cross[i] - mr * md;

    const float sigma_product =
        static_cast<float>(std::sqrt(static_cast<double>(var_ref * var_dist)));
    const double l = (2.0 * mr * md + c1) / static_cast<double>(mr * mr + md * md + c1);
    const double c = (2.0 * sigma_product + c2) / static_cast<double>(var_ref + var_dist + c2);
    // A flat window of identical images can leave a tiny negative covariance
    // where sigma_product is 0; libvmaf treats it as 0 so that s is 1.
    const float covar_clamped = (covar < 0.0f && sigma_product <= 0.0f) ? 0.0f : covar;
    const float s_float = (covar_clamped + c3) / (sigma_product + c3);
    const double s = s_float;

    ssim_sum += l * c * s;
    l_sum += l;
    c_sum += c;
    s_sum += s;
  }
  return ssim_means(ssim_sum, l_sum, c_sum, s_sum, out_w * out_h);
}

SsimMeans ssim_means(double ssim_sum, double l_sum, double c_sum, double s_sum, int count) {
  const double n = static_cast<double>(count);
  SsimMeans out;
  out.luminance = static_cast<float>(l_sum / n);
  out.contrast = static_cast<float>(c_sum / n);
  out.structure = static_cast<float>(s_sum / n);
  out.ssim = static_cast<float>(ssim_sum / n);
  return out;
}

void decimate(const float* src, int width, int height, int factor, const float* kernel,
              int kernel_size, float* dst) {
  decimate_rows_scalar(src, width, height, factor, kernel, kernel_size, dst, 0, -1);
}

void decimate(const IqaDsp& dsp, const float* src, int width, int height, int factor,
              const float* kernel, int kernel_size, float* dst, float* scratch, int first_row,
              int end_row) {
  dsp.decimate(dsp, src, width, height, factor, kernel, kernel_size, dst, scratch, first_row,
               end_row);
}

bool decimate_plane(const IqaDsp& dsp, const Plane& plane, int bit_depth, int factor,
                    const float* kernel, int kernel_size, float* dst, float* scratch) {
  return dsp.decimate_plane(dsp, plane, bit_depth, factor, kernel, kernel_size, dst, scratch);
}

IqaDsp iqa_scalar_dsp() {
  IqaDsp d{};
  d.ssim_gaussian = ssim_gaussian_scalar;
  d.decimate = [](const IqaDsp&, const float* src, int width, int height, int factor,
                  const float* kernel, int kernel_size, float* dst, float*, int first_row,
                  int end_row) {
    decimate_rows_scalar(src, width, height, factor, kernel, kernel_size, dst, first_row,
                         end_row);
  };
  d.decimate_plane = [](const IqaDsp&, const Plane&, int, int, const float*, int, float*,
                        float*) { return false; };
  d.blur_valid = gaussian_blur_valid_scalar;
  return d;
}

void decimate_rows_scalar(const float* src, int width, int height, int factor,
                          const float* kernel, int kernel_size, float* dst, int first_row,
                          int end_row) {
  const int out_w = decimated_size(width, factor);
  const int out_h = decimated_size(height, factor);
  const int half = kernel_size / 2;
  const int last = half - (kernel_size % 2 == 0 ? 1 : 0);  // taps span [-half, last]
  for (int y = first_row, end = end_row < 0 ? out_h : end_row; y < end; ++y) {
    for (int x = 0; x < out_w; ++x) {
      const int cx = x * factor;
      const int cy = y * factor;
      double sum = 0.0;
      int k = 0;
      if (cx - half >= 0 && cx + last < width && cy - half >= 0 && cy + last < height) {
        // Interior: no reflection needed; same taps in the same order.
        for (int v = -half; v <= last; ++v) {
          const float* row = src + static_cast<std::ptrdiff_t>(cy + v) * width + cx;
          for (int u = -half; u <= last; ++u, ++k) sum += row[u] * kernel[k];
        }
        dst[static_cast<std::ptrdiff_t>(y) * out_w + x] = static_cast<float>(sum);
        continue;
      }
      for (int v = -half; v <= last; ++v) {
        const float* row = src + static_cast<std::ptrdiff_t>(reflect(cy + v, height)) * width;
        for (int u = -half; u <= last; ++u, ++k) sum += row[reflect(cx + u, width)] * kernel[k];
      }
      dst[static_cast<std::ptrdiff_t>(y) * out_w + x] = static_cast<float>(sum);
    }
  }
}

}  // namespace vqe::iqa
