// SPDX-License-Identifier: BSD-2-Clause
// Floating-point VIF kernels. See vif_kernels.h for the contract. Comments
// marked "(f)" / "(d)" note where an expression is evaluated in float or in
// double; the mix is libvmaf's and must be kept for bit-exact results.
#include "features/float_vif/vif_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace vqe::float_vif {
namespace {

constexpr double kPi = 3.14159265358979323846;

// vif_tools.h valid_kernelscales, as float values.
constexpr float kValidKernelscales[] = {
    1.0f,          1.0f / 2.0f,  3.0f / 2.0f,  2.0f,          2.0f / 3.0f,   24.0f / 10.0f,
    360.0f / 97.0f, 4.0f / 3.0f, 3.5f / 3.0f,  3.75f / 3.0f, 4.25f / 3.0f,  5.0f / 3.0f,
    3.0f,          1.0f / 2.25f, 1.4746f,      1.54f,         1.6f,          1.06667f,
    0.711111f,     0.740740f,    1.111111f,
};

// Coefficients of the degree-8 polynomial for log2(1 + m), m in [0, 1),
// highest power first (VIF_OPT_FAST_LOG2), rounded to float.
constexpr float kLog2Poly[9] = {
    -0.012671635276421f, 0.064841182402670f, -0.157048836463065f,
    0.257167726303123f,  -0.353800560300520f, 0.480131410397451f,
    -0.721314327952201f, 1.442694803896991f,  0.0f,
};

// Mirror used by the separable filter: -i before the start, 2n - i - 2 past
// the end (reflection without repeating the edge sample).
inline int reflect(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

float gaussian_pdf(float x, float mean, float stdev) {
  // exp argument in double: ((-0.5 * (x-mean)) / stdev * (x-mean)) / stdev.
  const double t = -0.5 * static_cast<double>(x - mean) / static_cast<double>(stdev) *
                   static_cast<double>(x - mean) / static_cast<double>(stdev);
  const float num = static_cast<float>(std::exp(t));
  const float den = static_cast<float>(1 / (static_cast<double>(stdev) * std::sqrt(2 * kPi)));
  return num / den;  // (f)
}

// One pixel of the VIF statistic ("matching_matlab" mode of vif_statistic_s).
struct StatConsts {
  float sigma_max_inv;
  float eps;
  float gain_limit;
  double sigma_nsq;
};

inline void vif_pixel(float mu1, float mu2, float xx, float yy, float xy, const StatConsts& k,
                      float* num_out, float* den_out) {
  const float mu1_sq = mu1 * mu1;
  const float mu2_sq = mu2 * mu2;
  const float mu1_mu2 = mu1 * mu2;
  float sigma1_sq = xx - mu1_sq;
  float sigma2_sq = yy - mu2_sq;
  const float sigma12 = xy - mu1_mu2;

  sigma1_sq = sigma1_sq > 0.0f ? sigma1_sq : 0.0f;
  sigma2_sq = sigma2_sq > 0.0f ? sigma2_sq : 0.0f;

  float g = sigma12 / (sigma1_sq + k.eps);
  float sv_sq = sigma2_sq - g * sigma12;
  if (sigma1_sq < k.eps) {
    g = 0.0f;
    sv_sq = sigma2_sq;
    sigma1_sq = 0.0f;
  }
  if (sigma2_sq < k.eps) {
    g = 0.0f;
    sv_sq = 0.0f;
  }
  if (g < 0.0f) {
    sv_sq = sigma2_sq;
    g = 0.0f;
  }
  sv_sq = sv_sq > k.eps ? sv_sq : k.eps;
  g = g < k.gain_limit ? g : k.gain_limit;

  // (g*g*sigma1_sq) in float, divided in double by (sv_sq + sigma_nsq), the
  // sum 1 + q in double, rounded to float for the log.
  const float gg_s1 = g * g * sigma1_sq;
  const double q_num = static_cast<double>(gg_s1) / (static_cast<double>(sv_sq) + k.sigma_nsq);
  float num = log2_approx(static_cast<float>(1.0 + q_num));
  float den = log2_approx(static_cast<float>(1.0 + static_cast<double>(sigma1_sq) / k.sigma_nsq));

  if (sigma12 < 0.0f) num = 0.0f;
  if (static_cast<double>(sigma1_sq) < k.sigma_nsq) {
    num = 1.0f - sigma2_sq * k.sigma_max_inv;
    den = 1.0f;
  }
  *num_out = num;
  *den_out = den;
}

// Mirrors the `half` samples on each side of row[0..w) into row[-half..0)
// and row[w..w+half), so that row[j - half + k] equals the reflected read.
inline void pad_row(float* row, int w, int half) {
  for (int k = 1; k <= half; ++k) {
    row[-k] = row[k];
    row[w - 1 + k] = row[w - 1 - k];
  }
}

// Filters `src` (w × h) with the separable kernel and keeps every second
// row and column: dst is (w/2) × (h/2). Output samples equal those of
// vif_filter1d_s followed by vif_dec2_s; the discarded ones are not computed.
void filter_decimate(const float* f, int fw, const float* src, int w, int h,
                     std::ptrdiff_t sstride, float* dst, std::ptrdiff_t dstride, float* pad) {
  const int half = fw / 2;
  float* t = pad + half;
  for (int oi = 0; oi < h / 2; ++oi) {
    const int i = 2 * oi;
    for (int j = 0; j < w; ++j) t[j] = 0.0f;
    for (int fi = 0; fi < fw; ++fi) {
      const float c = f[fi];
      const float* s = src + reflect(i - half + fi, h) * sstride;
      for (int j = 0; j < w; ++j) t[j] += c * s[j];
    }
    pad_row(t, w, half);
    float* d = dst + oi * dstride;
    for (int oj = 0; oj < w / 2; ++oj) d[oj] = 0.0f;
    for (int fj = 0; fj < fw; ++fj) {
      const float c = f[fj];
      const float* p = t + fj - half;
      for (int oj = 0; oj < w / 2; ++oj) d[oj] += c * p[2 * oj];
    }
  }
}

// One vertical tap for the five quantities of a row: mean of the reference,
// mean of the distorted, reference squared, distorted squared, product.
void vertical_tap5(float c, const float* __restrict r, const float* __restrict d, int w,
                   float* __restrict m1, float* __restrict m2, float* __restrict rr,
                   float* __restrict dd, float* __restrict rd) {
  for (int j = 0; j < w; ++j) {
    const float a = r[j];
    const float b = d[j];
    m1[j] += c * a;
    m2[j] += c * b;
    rr[j] += c * (a * a);
    dd[j] += c * (b * b);
    rd[j] += c * (a * b);
  }
}

// One horizontal tap (source offset o) for the five quantities of a row.
void horizontal_tap5(float c, int o, int w, const float* __restrict m1,
                     const float* __restrict m2, const float* __restrict rr,
                     const float* __restrict dd, const float* __restrict rd,
                     float* __restrict h1, float* __restrict h2, float* __restrict h3,
                     float* __restrict h4, float* __restrict h5) {
  for (int j = 0; j < w; ++j) {
    h1[j] += c * m1[j + o];
    h2[j] += c * m2[j + o];
    h3[j] += c * rr[j + o];
    h4[j] += c * dd[j + o];
    h5[j] += c * rd[j + o];
  }
}

// Means, second moments and the statistic of one scale (vif_filter1d_s,
// vif_filter1d_sq_s and vif_filter1d_xy_s on both planes, then
// vif_statistic_s), fused row by row. Returns float sums like libvmaf.
void scale_statistic(const float* f, int fw, const float* ref, const float* dis, int w, int h,
                     std::ptrdiff_t stride, const StatConsts& k, std::vector<float>* rows,
                     float* num_out, float* den_out) {
  const int half = fw / 2;
  float* m1 = rows[0].data() + half;
  float* m2 = rows[1].data() + half;
  float* rr = rows[2].data() + half;
  float* dd = rows[3].data() + half;
  float* rd = rows[4].data() + half;

  float accum_num = 0.0f;
  float accum_den = 0.0f;
  for (int i = 0; i < h; ++i) {
    for (int j = 0; j < w; ++j) m1[j] = m2[j] = rr[j] = dd[j] = rd[j] = 0.0f;
    for (int fi = 0; fi < fw; ++fi) {
      const float c = f[fi];
      const std::ptrdiff_t off = reflect(i - half + fi, h) * stride;
      vertical_tap5(c, ref + off, dis + off, w, m1, m2, rr, dd, rd);
    }
    pad_row(m1, w, half);
    pad_row(m2, w, half);
    pad_row(rr, w, half);
    pad_row(dd, w, half);
    pad_row(rd, w, half);

    // Horizontal pass, tap by tap across the row: each output sample still
    // accumulates its taps in order 0..fw-1, as libvmaf's per-pixel loop.
    float* h1 = rows[5].data();
    float* h2 = rows[6].data();
    float* h3 = rows[7].data();
    float* h4 = rows[8].data();
    float* h5 = rows[9].data();
    for (int j = 0; j < w; ++j) h1[j] = h2[j] = h3[j] = h4[j] = h5[j] = 0.0f;
    for (int fj = 0; fj < fw; ++fj) {
      const float c = f[fj];
      horizontal_tap5(c, fj - half, w, m1, m2, rr, dd, rd, h1, h2, h3, h4, h5);
    }
    float inner_num = 0.0f;
    float inner_den = 0.0f;
    for (int j = 0; j < w; ++j) {
      float num, den;
      vif_pixel(h1[j], h2[j], h3[j], h4[j], h5[j], k, &num, &den);
      inner_num += num;
      inner_den += den;
    }
    accum_num += inner_num;
    accum_den += inner_den;
  }
  *num_out = accum_num;
  *den_out = accum_den;
}

// The prescalers' mirror (vif_tools.c `mirror`, evaluated in float), then
// clamped into the plane where libvmaf itself would read out of bounds.
inline int mirror_index(int i, int n) {
  const float fi = static_cast<float>(i);
  const float right = static_cast<float>(n - 1);
  const float m = fi < 0.0f ? -fi : (fi > right ? 2 * right - fi : fi);
  int r = static_cast<int>(m);
  return std::clamp(r, 0, n - 1);
}
inline int mirror_index_f(double v, int n) {
  // libvmaf passes floor()/ceil() results (double) to a float parameter.
  const float fi = static_cast<float>(v);
  const float right = static_cast<float>(n - 1);
  const float m = fi < 0.0f ? -fi : (fi > right ? 2 * right - fi : fi);
  return std::clamp(static_cast<int>(m), 0, n - 1);
}

float bicubic_kernel(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float bicubic_sample(const float* src, int width, int height, std::ptrdiff_t stride, float x,
                     float y) {
  const int x0 = static_cast<int>(std::floor(x));
  const int y0 = static_cast<int>(std::floor(y));
  const float dx = x - static_cast<float>(x0);
  const float dy = y - static_cast<float>(y0);
  float wx[4], wy[4];
  for (int i = -1; i <= 2; ++i) {
    wx[i + 1] = bicubic_kernel(static_cast<float>(i) - dx);
    wy[i + 1] = bicubic_kernel(static_cast<float>(i) - dy);
  }
  float v = 0.0f;
  for (int j = -1; j <= 2; ++j) {
    for (int i = -1; i <= 2; ++i) {
      const int xi = mirror_index(x0 + i, width);
      const int yi = mirror_index(y0 + j, height);
      const float weight = wx[i + 1] * wy[j + 1];
      v += src[yi * stride + xi] * weight;
    }
  }
  return v;
}

float lanczos_kernel(float x, float a) {
  if (x == 0.0f) return 1.0f;
  if (x > -a && x < a) {
    const double xd = x, ad = a;
    return static_cast<float>(ad * std::sin(kPi * xd) * std::sin(kPi * xd / ad) /
                              (kPi * kPi * xd * xd));
  }
  return 0.0f;
}

float lanczos_sample(const float* src, int width, int height, std::ptrdiff_t stride, float x,
                     float y) {
  constexpr int a = 4;
  const int x0 = static_cast<int>(std::floor(x));
  const int y0 = static_cast<int>(std::floor(y));
  const float dx = x - static_cast<float>(x0);
  const float dy = y - static_cast<float>(y0);
  float wx[2 * a + 1], wy[2 * a + 1];
  for (int i = -a; i <= a; ++i) {
    wx[i + a] = lanczos_kernel(static_cast<float>(i) - dx, static_cast<float>(a));
    wy[i + a] = lanczos_kernel(static_cast<float>(i) - dy, static_cast<float>(a));
  }
  float value = 0.0f;
  float weight_sum = 0.0f;
  for (int iy = -a; iy <= a; ++iy) {
    for (int ix = -a; ix <= a; ++ix) {
      const float weight = wx[ix + a] * wy[iy + a];
      weight_sum += weight;
      const int xi = mirror_index(x0 + ix, width);
      const int yi = mirror_index(y0 + iy, height);
      value += src[yi * stride + xi] * weight;
    }
  }
  return value / weight_sum;
}

}  // namespace

bool kernelscale_is_valid(double kernelscale) {
  const float ks = static_cast<float>(kernelscale);
  for (float v : kValidKernelscales)
    if (static_cast<double>(std::fabs(ks - v)) < 1e-3) return true;
  return false;
}

int filter_width(int scale, float kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  const float f = static_cast<float>(n) * kernelscale;
  int c = static_cast<int>(std::ceil(f));
  if (c % 2 == 0) c += 1;
  return std::max(c, 3);
}

void make_filter(float* out, int scale, float kernelscale) {
  const int size = filter_width(scale, kernelscale);
  const float stdev = static_cast<float>(size) / 5.0f;
  const int k = (size - 1) / 2;
  float sum = 0;
  for (int i = 0; i < size; ++i) {
    out[i] = gaussian_pdf(static_cast<float>(i - k), 0.0f, stdev);
    sum += out[i];
  }
  for (int i = 0; i < size; ++i) out[i] /= sum;
}

float log2_approx(float x) {
  if (x == 0) return -std::numeric_limits<float>::infinity();
  if (x < 0) return std::numeric_limits<float>::quiet_NaN();
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint32_t exponent = (bits & 0x7F800000u) >> 23;
  const std::uint32_t mantissa_as_one = (bits & 0x007FFFFFu) | 0x3F800000u;
  float m;
  std::memcpy(&m, &mantissa_as_one, sizeof m);
  const float log_base = static_cast<float>(static_cast<std::int32_t>(exponent) - 127);
  const float t = m - 1.0f;
  float p = 0;
  for (float c : kLog2Poly) p = p * t + c;
  return log_base + p;
}

int min_side(float kernelscale, bool skip_scale0) {
  for (int d = 1;; ++d) {
    bool ok = true;
    for (int s = skip_scale0 ? 1 : 0; s < 4 && ok; ++s) {
      const int half = filter_width(s, kernelscale) / 2;
      if ((d >> s) < half + 1) ok = false;
      // Scales above 0 first filter the previous scale with their kernel.
      if (s > 0 && (d >> (s - 1)) < half + 1) ok = false;
    }
    if (ok) return d;
  }
}

bool parse_scale_method(const std::string& text, ScaleMethod* out) {
  if (text == "nearest") *out = ScaleMethod::kNearest;
  else if (text == "bilinear") *out = ScaleMethod::kBilinear;
  else if (text == "bicubic") *out = ScaleMethod::kBicubic;
  else if (text == "lanczos4") *out = ScaleMethod::kLanczos4;
  else return false;
  return true;
}

void scale_frame(ScaleMethod method, const float* src, int src_w, int src_h,
                 std::ptrdiff_t src_stride, float* dst, int dst_w, int dst_h,
                 std::ptrdiff_t dst_stride) {
  if (src_w == dst_w && src_h == dst_h) {
    for (int y = 0; y < dst_h; ++y)
      std::memcpy(dst + y * dst_stride, src + y * src_stride, sizeof(float) * dst_w);
    return;
  }
  const float ratio_x = static_cast<float>(src_w) / static_cast<float>(dst_w);
  const float ratio_y = static_cast<float>(src_h) / static_cast<float>(dst_h);
  switch (method) {
    case ScaleMethod::kNearest:
      for (int y = 0; y < dst_h; ++y) {
        const int sy = std::min(static_cast<int>(static_cast<float>(y) * ratio_y), src_h - 1);
        for (int x = 0; x < dst_w; ++x) {
          const int sx = std::min(static_cast<int>(static_cast<float>(x) * ratio_x), src_w - 1);
          dst[y * dst_stride + x] = src[sy * src_stride + sx];
        }
      }
      break;
    case ScaleMethod::kBilinear:
      for (int y = 0; y < dst_h; ++y) {
        const float yy = static_cast<float>((y + 0.5) * ratio_y - 0.5);
        const int y1 = mirror_index_f(std::floor(yy), src_h);
        const int y2 = mirror_index_f(std::ceil(yy), src_h);
        const float dy = yy - static_cast<float>(y1);
        const float* r1 = src + y1 * src_stride;
        const float* r2 = src + y2 * src_stride;
        for (int x = 0; x < dst_w; ++x) {
          const float xx = static_cast<float>((x + 0.5) * ratio_x - 0.5);
          const int x1 = mirror_index_f(std::floor(xx), src_w);
          const int x2 = mirror_index_f(std::ceil(xx), src_w);
          const float dx = xx - static_cast<float>(x1);
          dst[y * dst_stride + x] = (1 - dy) * (1 - dx) * r1[x1] + (1 - dy) * dx * r1[x2] +
                                    dy * (1 - dx) * r2[x1] + dy * dx * r2[x2];
        }
      }
      break;
    case ScaleMethod::kBicubic:
    case ScaleMethod::kLanczos4:
      for (int y = 0; y < dst_h; ++y) {
        const float yy = static_cast<float>((y + 0.5) * ratio_y - 0.5);
        for (int x = 0; x < dst_w; ++x) {
          const float xx = static_cast<float>((x + 0.5) * ratio_x - 0.5);
          dst[y * dst_stride + x] =
              method == ScaleMethod::kBicubic
                  ? bicubic_sample(src, src_w, src_h, src_stride, xx, yy)
                  : lanczos_sample(src, src_w, src_h, src_stride, xx, yy);
        }
      }
      break;
  }
}

VifComputer::VifComputer(int w, int h, const VifParams& params) : w_(w), h_(h), params_(params) {
  const float ks = static_cast<float>(params.kernelscale);
  int max_half = 0;
  for (int s = 0; s < 4; ++s) {
    widths_[s] = filter_width(s, ks);
    filters_[s].assign(widths_[s], 0.0f);
    make_filter(filters_[s].data(), s, ks);
    max_half = std::max(max_half, widths_[s] / 2);
  }
  const std::size_t scaled = static_cast<std::size_t>(w / 2) * static_cast<std::size_t>(h / 2);
  for (int k = 0; k < 2; ++k) {
    ref_buf_[k].assign(std::max<std::size_t>(scaled, 1), 0.0f);
    dis_buf_[k].assign(std::max<std::size_t>(scaled, 1), 0.0f);
  }
  for (auto& r : rows_) r.assign(static_cast<std::size_t>(w) + 2 * max_half, 0.0f);
}

VifResult VifComputer::compute(const float* ref, const float* dis, std::ptrdiff_t stride) {
  StatConsts k;
  // powf(sigma_nsq, 2) in float, divided by 255^2 in double.
  k.sigma_max_inv = static_cast<float>(
      static_cast<double>(std::pow(static_cast<float>(params_.sigma_nsq), 2.0f)) /
      (255.0 * 255.0));
  k.eps = 1.0e-10f;
  k.gain_limit = static_cast<float>(params_.enhn_gain_limit);
  k.sigma_nsq = params_.sigma_nsq;

  VifResult res;
  const float* cur_ref = ref;
  const float* cur_dis = dis;
  std::ptrdiff_t cur_stride = stride;
  int w = w_, h = h_;
  const int start = params_.skip_scale0 ? 1 : 0;
  for (int scale = start; scale < 4; ++scale) {
    const float* f = filters_[scale].data();
    const int fw = widths_[scale];
    if (scale > 0) {
      const int pp = scale & 1;
      const std::ptrdiff_t out_stride = w_ / 2;  // fits every decimated scale
      filter_decimate(f, fw, cur_ref, w, h, cur_stride, ref_buf_[pp].data(), out_stride,
                      rows_[0].data());
      filter_decimate(f, fw, cur_dis, w, h, cur_stride, dis_buf_[pp].data(), out_stride,
                      rows_[0].data());
      w /= 2;
      h /= 2;
      cur_ref = ref_buf_[pp].data();
      cur_dis = dis_buf_[pp].data();
      cur_stride = out_stride;
    }
    float num = 0, den = 0;
    scale_statistic(f, fw, cur_ref, cur_dis, w, h, cur_stride, k, rows_, &num, &den);
    res.num[scale] = num;
    res.den[scale] = den;
  }
  for (int scale = start; scale < 4; ++scale) {
    res.num_total += res.num[scale];
    res.den_total += res.den[scale];
  }
  res.score = res.den_total == 0.0 ? 1.0 : res.num_total / res.den_total;
  return res;
}

}  // namespace vqe::float_vif
