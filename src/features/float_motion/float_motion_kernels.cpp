// SPDX-License-Identifier: BSD-2-Clause
// Scalar float motion kernels; definitions in float_motion_kernels.h.

#include "features/float_motion/float_motion_kernels.h"

#include <cmath>
#include <cstring>

namespace vqe::float_motion {

int mirror_reflect101(int i, int n) {
  if (n <= 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

void convolve(const float* filter, int fwidth, const float* src, float* dst, int width,
              int height, float* row) {
  // Each output sample is 0 + f[0]·s[0] + f[1]·s[1] + ... in float, as in
  // libvmaf; the loops keep that order per sample but run over x innermost.
  const int r = fwidth / 2;
  float* t = row + r;  // t[-r .. width + r)
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) t[x] = 0;
    for (int k = 0; k < fwidth; ++k) {
      const float* s = src + static_cast<std::size_t>(mirror_reflect101(y - r + k, height)) * width;
      const float f = filter[k];
      for (int x = 0; x < width; ++x) t[x] += f * s[x];
    }
    for (int k = 1; k <= r; ++k) {
      t[-k] = t[mirror_reflect101(-k, width)];
      t[width - 1 + k] = t[mirror_reflect101(width - 1 + k, width)];
    }
    float* out = dst + static_cast<std::size_t>(y) * width;
    for (int x = 0; x < width; ++x) out[x] = 0;
    for (int k = 0; k < fwidth; ++k) {
      const float f = filter[k];
      const float* s = t - r + k;
      for (int x = 0; x < width; ++x) out[x] += f * s[x];
    }
  }
}

namespace {

// vif_tools.c's mirror() in float: -i below `left`, 2·right - i above `right`.
float mirror_float(float i, float left, float right) {
  return i < left ? -i : i > right ? 2 * right - i : i;
}

// Clamps an index into [0, n): a no-op wherever libvmaf stays in bounds.
int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// Source positions of one axis: for each output position p,
// s = (p + 0.5)·ratio - 0.5 (double arithmetic rounded to float), its
// mirrored floor and ceiling, and the fraction s - floor.
void axis_plan(int src_n, int dst_n, std::vector<int>& lo, std::vector<int>& hi,
               std::vector<float>& frac) {
  lo.resize(dst_n);
  hi.resize(dst_n);
  frac.resize(dst_n);
  const float ratio = static_cast<float>(src_n) / static_cast<float>(dst_n);
  const float right = static_cast<float>(src_n - 1);
  for (int p = 0; p < dst_n; ++p) {
    const float s = static_cast<float>((p + 0.5) * static_cast<double>(ratio) - 0.5);
    const int l = static_cast<int>(mirror_float(static_cast<float>(std::floor(s)), 0, right));
    const int h = static_cast<int>(mirror_float(static_cast<float>(std::ceil(s)), 0, right));
    frac[p] = s - static_cast<float>(l);
    lo[p] = clamp_index(l, src_n);
    hi[p] = clamp_index(h, src_n);
  }
}

}  // namespace

BilinearPlan make_half_scale_plan(int src_w, int src_h) {
  BilinearPlan plan;
  plan.src_w = src_w;
  plan.src_h = src_h;
  plan.dst_w = static_cast<int>(src_w * 0.5 + 0.5);
  plan.dst_h = static_cast<int>(src_h * 0.5 + 0.5);
  axis_plan(src_w, plan.dst_w, plan.x1, plan.x2, plan.dx);
  axis_plan(src_h, plan.dst_h, plan.y1, plan.y2, plan.dy);
  return plan;
}

void bilinear_scale(const BilinearPlan& plan, const float* src, float* dst) {
  if (plan.src_w == plan.dst_w && plan.src_h == plan.dst_h) {
    std::memcpy(dst, src, sizeof(float) * static_cast<std::size_t>(plan.dst_w) * plan.dst_h);
    return;
  }
  for (int y = 0; y < plan.dst_h; ++y) {
    const float dy = plan.dy[y];
    const float* r1 = src + static_cast<std::size_t>(plan.y1[y]) * plan.src_w;
    const float* r2 = src + static_cast<std::size_t>(plan.y2[y]) * plan.src_w;
    float* out = dst + static_cast<std::size_t>(y) * plan.dst_w;
    for (int x = 0; x < plan.dst_w; ++x) {
      const int x1 = plan.x1[x], x2 = plan.x2[x];
      const float dx = plan.dx[x];
      out[x] = (1 - dy) * (1 - dx) * r1[x1] + (1 - dy) * dx * r1[x2] + dy * (1 - dx) * r2[x1] +
               dy * dx * r2[x2];
    }
  }
}

float mean_abs_difference(const float* a, const float* b, int width, int height) {
  float accum = 0;
  for (int y = 0; y < height; ++y) {
    const float* ra = a + static_cast<std::size_t>(y) * width;
    const float* rb = b + static_cast<std::size_t>(y) * width;
    float accum_line = 0;
    for (int x = 0; x < width; ++x) {
      // libvmaf adds fabs() (a double) to the float line sum.
      accum_line = static_cast<float>(static_cast<double>(accum_line) +
                                      std::fabs(static_cast<double>(ra[x] - rb[x])));
    }
    accum += accum_line;
  }
  return accum / static_cast<float>(width * height);
}

}  // namespace vqe::float_motion
