// SPDX-License-Identifier: BSD-2-Clause
// SpEED scalar reference path; see speed_core.h. Arithmetic mirrors libvmaf
// 3.2.0 speed.c / vif_tools.c: where C promotes a float expression to double
// (calls to sqrt, log2, exp, floor; literals such as 0.5 or 2.0) the casts
// below do the same, so results match bit for bit.
#include "features/speed/speed_core.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::speed {
namespace {

constexpr int kBlock = 5;                   // block side
constexpr int kBlockElems = kBlock * kBlock;  // 25 positions per block
constexpr int kNumScales = 4;               // decimation by 2^4 = 16
constexpr double kEigenEps = 1e-6;
constexpr int kEigenMaxIters = 500;
constexpr double kPi = std::numbers::pi;
constexpr double kE = std::numbers::e;

// libvmaf's table of supported Gaussian kernel scales (vif_tools.h).
const float kValidKernelscales[] = {
    1.0f,         1.0f / 2.0f,  3.0f / 2.0f,  2.0f,         2.0f / 3.0f, 24.0f / 10.0f,
    360.0f / 97.0f, 4.0f / 3.0f, 3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f, 5.0f / 3.0f,
    3.0f,         1.0f / 2.25f, 1.4746f,      1.54f,        1.6f,        1.06667f,
    0.711111f,    0.740740f,    1.111111f,
};

bool almost_one(double x) { return std::fabs(x - 1.0) < 1.0e-3; }

// sqrt as C computes it for a float argument: in double, rounded to float
// on assignment.
float sqrt_f(float x) { return static_cast<float>(std::sqrt(static_cast<double>(x))); }

// --- Gaussian kernels (vif_tools.c) ----------------------------------------

int round_up_to_odd(float f) {
  const int ceiling = static_cast<int>(std::ceil(static_cast<double>(f)));
  return ceiling % 2 == 0 ? ceiling + 1 : ceiling;
}

float gaussian_pdf(float x, float mean, float stdev) {
  const float d = x - mean;
  const float num =
      static_cast<float>(std::exp(-0.5 * d / static_cast<double>(stdev) * d / stdev));
  // libvmaf divides by 1/(σ√2π) (not by σ√2π); the normalisation that
  // follows cancels the factor up to rounding, which is kept.
  const float den = static_cast<float>(1 / (stdev * std::sqrt(2 * kPi)));
  return num / den;
}

void gaussian_kernel(std::vector<float>& out, int size, float stdev) {
  out.assign(size, 0.0f);
  float sum = 0;
  const int half = (size - 1) / 2;
  for (int i = 0; i < size; ++i) {
    out[i] = gaussian_pdf(static_cast<float>(i - half), 0, stdev);
    sum += out[i];
  }
  for (int i = 0; i < size; ++i) out[i] /= sum;
}

// Filter length for a VIF scale (0..4): odd, at least 3.
int filter_size(int scale, float kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  return std::max(round_up_to_odd(static_cast<float>(n) * kernelscale), 3);
}

// --- separable filter and decimation (vif_tools.c, scalar path) ------------

// Mirror without repeating the edge sample: -i, and 2n - i - 2 past the end.
int mirror_index(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// dst = src filtered by `f` vertically then horizontally. `row` holds one
// row (w floats). Strides in floats.
void filter_2d(const std::vector<float>& f, const float* src, float* dst, float* row, int w,
               int h, std::size_t stride) {
  const int fwidth = static_cast<int>(f.size());
  for (int i = 0; i < h; ++i) {
    for (int j = 0; j < w; ++j) {
      float accum = 0;
      for (int fi = 0; fi < fwidth; ++fi) {
        const int ii = mirror_index(i - fwidth / 2 + fi, h);
        accum += f[fi] * src[ii * stride + j];
      }
      row[j] = accum;
    }
    for (int j = 0; j < w; ++j) {
      float accum = 0;
      for (int fj = 0; fj < fwidth; ++fj) {
        const int jj = mirror_index(j - fwidth / 2 + fj, w);
        accum += f[fj] * row[jj];
      }
      dst[i * stride + j] = accum;
    }
  }
}

// --- rescaling (vif_tools.c) ------------------------------------------------

float mirror_f(float i, float left, float right) {
  return i < left ? -i : (i > right ? 2 * right - i : i);
}

// Index from a mirrored float position, kept inside [0, n) (libvmaf's single
// reflection can leave tiny planes; identical whenever it does not).
int mirrored(double position, int n) {
  const int i = static_cast<int>(
      mirror_f(static_cast<float>(position), 0.0f, static_cast<float>(n - 1)));
  return std::clamp(i, 0, n - 1);
}

float bicubic_weight(float t) {
  const float a = -0.75f;
  if (t < 0) t = -t;
  if (t < 1) return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2) return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

float lanczos4_weight(float x, float a) {
  if (x == 0.0f) return 1.0f;
  if (x > -a && x < a)
    return static_cast<float>(a * std::sin(kPi * x) * std::sin(kPi * x / a) /
                              (kPi * kPi * x * x));
  return 0.0f;
}

// Output pixel centre mapped into the source: (x + 0.5)·ratio − 0.5.
float source_position(int x, float ratio) {
  return static_cast<float>((x + 0.5) * ratio - 0.5);
}

void scale_nearest(const float* src, float* dst, int sw, int sh, int dw, int dh,
                   std::size_t stride) {
  const float rx = static_cast<float>(sw) / dw;
  const float ry = static_cast<float>(sh) / dh;
  for (int y = 0; y < dh; ++y)
    for (int x = 0; x < dw; ++x) {
      const int sy = std::min(static_cast<int>(y * ry), sh - 1);
      const int sx = std::min(static_cast<int>(x * rx), sw - 1);
      dst[y * stride + x] = src[sy * stride + sx];
    }
}

void scale_bicubic(const float* src, float* dst, int sw, int sh, int dw, int dh,
                   std::size_t stride) {
  const float rx = static_cast<float>(sw) / dw;
  const float ry = static_cast<float>(sh) / dh;
  for (int y = 0; y < dh; ++y) {
    const float yy = source_position(y, ry);
    for (int x = 0; x < dw; ++x) {
      const float xx = source_position(x, rx);
      const int x0 = static_cast<int>(std::floor(static_cast<double>(xx)));
      const int y0 = static_cast<int>(std::floor(static_cast<double>(yy)));
      const float dx = xx - x0;
      const float dy = yy - y0;
      float wx[4], wy[4];
      for (int i = -1; i <= 2; ++i) {
        wx[i + 1] = bicubic_weight(i - dx);
        wy[i + 1] = bicubic_weight(i - dy);
      }
      float value = 0.0f;
      for (int j = -1; j <= 2; ++j)
        for (int i = -1; i <= 2; ++i) {
          const int xi = mirrored(x0 + i, sw);
          const int yi = mirrored(y0 + j, sh);
          value += src[yi * stride + xi] * (wx[i + 1] * wy[j + 1]);
        }
      dst[y * stride + x] = value;
    }
  }
}

void scale_lanczos4(const float* src, float* dst, int sw, int sh, int dw, int dh,
                    std::size_t stride) {
  constexpr int a = 4;
  const float rx = static_cast<float>(sw) / dw;
  const float ry = static_cast<float>(sh) / dh;
  for (int y = 0; y < dh; ++y) {
    const float yy = source_position(y, ry);
    for (int x = 0; x < dw; ++x) {
      const float xx = source_position(x, rx);
      const int x0 = static_cast<int>(std::floor(static_cast<double>(xx)));
      const int y0 = static_cast<int>(std::floor(static_cast<double>(yy)));
      const float dx = xx - x0;
      const float dy = yy - y0;
      float wx[2 * a + 1], wy[2 * a + 1];
      for (int i = -a; i <= a; ++i) {
        wx[i + a] = lanczos4_weight(i - dx, static_cast<float>(a));
        wy[i + a] = lanczos4_weight(i - dy, static_cast<float>(a));
      }
      float value = 0.0f;
      float weight_sum = 0.0f;
      for (int iy = -a; iy <= a; ++iy)
        for (int ix = -a; ix <= a; ++ix) {
          const float weight = wx[ix + a] * wy[iy + a];
          weight_sum += weight;
          const int xi = mirrored(x0 + ix, sw);
          const int yi = mirrored(y0 + iy, sh);
          value += src[yi * stride + xi] * weight;
        }
      dst[y * stride + x] = value / weight_sum;
    }
  }
}

void bilinear_columns(int sw, int dw, std::vector<int>& x1, std::vector<int>& x2,
                      std::vector<float>& dx) {
  x1.resize(dw);
  x2.resize(dw);
  dx.resize(dw);
  const float rx = static_cast<float>(sw) / dw;
  for (int x = 0; x < dw; ++x) {
    const float xx = source_position(x, rx);
    x1[x] = mirrored(std::floor(static_cast<double>(xx)), sw);
    x2[x] = mirrored(std::ceil(static_cast<double>(xx)), sw);
    dx[x] = xx - x1[x];
  }
}

void scale_bilinear(const float* src, float* dst, int sh, int dw, int dh, std::size_t stride,
                    const std::vector<int>& x1, const std::vector<int>& x2,
                    const std::vector<float>& dxs) {
  const float ry = static_cast<float>(sh) / dh;
  for (int y = 0; y < dh; ++y) {
    const float yy = source_position(y, ry);
    const int y1 = mirrored(std::floor(static_cast<double>(yy)), sh);
    const int y2 = mirrored(std::ceil(static_cast<double>(yy)), sh);
    const float dy = yy - y1;
    const float* r1 = src + y1 * stride;
    const float* r2 = src + y2 * stride;
    float* out = dst + y * stride;
    for (int x = 0; x < dw; ++x) {
      const float dx = dxs[x];
      out[x] = (1 - dy) * (1 - dx) * r1[x1[x]] + (1 - dy) * dx * r1[x2[x]] +
               dy * (1 - dx) * r2[x1[x]] + dy * dx * r2[x2[x]];
    }
  }
}

// --- small dense linear algebra on n×n row-major float matrices -------------

void mat_mul(float* dst, const float* x, const float* y, int rows, int inner, int cols) {
  std::fill_n(dst, static_cast<std::size_t>(rows) * cols, 0.0f);
  for (int i = 0; i < rows; ++i)
    for (int k = 0; k < inner; ++k)
      for (int j = 0; j < cols; ++j) dst[i * cols + j] += x[i * inner + k] * y[k * cols + j];
}

void mat_transpose(float* m, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) std::swap(m[i * n + j], m[j * n + i]);
}

void mat_identity(float* m, int n) {
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m[i * n + j] = i == j ? 1.0f : 0.0f;
}

float vec_norm(const float* x, int n) {
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += x[i] * x[i];
  return sqrt_f(sum);
}

int sign_of(float x) { return x >= 0 ? 1 : -1; }

float hypot_f(float x, float y) { return sqrt_f(x * x + y * y); }

// Householder QR of the n×n matrix a: q orthogonal, r upper triangular
// (libvmaf's matrix_qr_decomposition; q is returned transposed back).
void qr_decompose(const float* a, float* q, float* r, float* t_q, float* t_z, float* t_mul,
                  float* v, int n) {
  std::memcpy(t_z, a, sizeof(float) * n * n);
  mat_identity(q, n);
  for (int k = 0; k < n - 1; ++k) {
    // Minor: identity in the first k rows and columns.
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i < k || j < k) t_z[i * n + j] = i == j ? 1.0f : 0.0f;
    for (int i = 0; i < n; ++i) v[i] = t_z[i * n + k];
    const float norm = vec_norm(v, n);
    v[k] += sign_of(a[k * n + k]) * norm;
    const float len = vec_norm(v, n);
    for (int i = 0; i < n; ++i) v[i] = v[i] / len;
    // t_q = I - 2 v vᵀ
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) t_q[i * n + j] = -2 * v[i] * v[j];
    for (int i = 0; i < n; ++i) t_q[i * n + i] += 1;
    mat_mul(t_mul, t_q, t_z, n, n, n);
    std::memcpy(t_z, t_mul, sizeof(float) * n * n);
    mat_mul(t_mul, t_q, q, n, n, n);
    std::memcpy(q, t_mul, sizeof(float) * n * n);
  }
  mat_mul(r, q, a, n, n, n);
  mat_transpose(q, n);
}

// Back substitution for R X = B (R upper triangular n×n, X and B n×cols).
// False if a diagonal entry is below 1e-6 in magnitude.
bool solve_upper(const float* r, float* x, const float* b, int n, int cols) {
  for (int i = n - 1; i >= 0; --i) {
    const float den = r[i * n + i];
    if (std::fabs(den) < kEigenEps) return false;
    for (int j = 0; j < cols; ++j) {
      float term = b[i * cols + j];
      for (int k = i + 1; k < n; ++k) term -= x[k * cols + j] * r[i * n + k];
      x[i * cols + j] = term / den;
    }
  }
  return true;
}

// --- symmetric eigenvalues (Householder tridiagonalisation + implicit QR,
// adapted from GSL as in libvmaf) --------------------------------------------

float column_norm(const float* a, int col, int start, int n) {
  float norm = 0;
  for (int i = start; i < n; ++i) norm += a[i * n + col] * a[i * n + col];
  return sqrt_f(norm);
}

float householder(float* a, int col, int start, int n) {
  if (n - start == 1) return 0.0f;
  const float xnorm = column_norm(a, col, start + 1, n);
  if (xnorm == 0.0f) return 0.0f;
  const float alpha = a[start * n + col];
  const float beta = -sign_of(alpha) * hypot_f(alpha, xnorm);
  const float tau = (beta - alpha) / beta;
  const float s = alpha - beta;
  if (s != 0.0f) {
    for (int i = start; i < n; ++i) a[i * n + col] /= s;
    a[start * n + col] = beta;
  }
  return tau;
}

void tridiagonalize(float* a, int n, float* d, float* sd, float* v, float* x) {
  for (int i = 0; i < n - 2; ++i) {
    const float tau = householder(a, i, i + 1, n);
    for (int j = i + 1; j < n; ++j) v[j] = a[j * n + i];
    if (tau != 0.0f) {
      a[(i + 1) * n + i] = v[i + 1];
      v[i + 1] = 1.0f;
      const int s = i + 1;
      for (int r = s; r < n; ++r) {  // x = tau A v
        x[r] = 0.0f;
        for (int c = s; c < n; ++c) x[r] += tau * a[r * n + c] * v[c];
      }
      float xv = 0;
      for (int r = s; r < n; ++r) xv += x[r] * v[r];
      const float alpha = static_cast<float>(-0.5 * tau * xv);
      for (int r = s; r < n; ++r) x[r] += alpha * v[r];
      for (int r = s; r < n; ++r)  // A -= x vᵀ + v xᵀ
        for (int c = s; c < n; ++c) a[r * n + c] -= x[r] * v[c] + v[r] * x[c];
    }
  }
  for (int i = 0; i < n; ++i) d[i] = a[i * n + i];
  for (int i = 0; i < n - 1; ++i) sd[i] = a[(i + 1) * n + i];
}

void chop_small(float* d, float* sd, int n) {
  for (int i = 0; i < n - 1; ++i)
    if (std::fabs(sd[i]) < kEigenEps * (std::fabs(d[i]) + std::fabs(d[i + 1]))) sd[i] = 0.0f;
}

// Wilkinson shift (Golub & Van Loan, "Matrix Computations", §8.3.5): the
// eigenvalue of the trailing 2×2 block [[p, e], [e, q]] of the tridiagonal
// matrix (diagonal `d`, off-diagonal `e`, order n) that lies nearer to q.
// Arithmetic as libvmaf's speed.c: half-gap formed in double, rest in float.
float wilkinson_shift(const float* diag, const float* off, int n) {
  const float p = diag[n - 2];
  const float q = diag[n - 1];
  const float e = off[n - 2];
  const float half_gap = static_cast<float>((p - q) / 2.0);
  if (half_gap == 0) return q - std::fabs(e);
  const float radius = hypot_f(half_gap, e);
  if (half_gap > 0) return q - e * (e / (half_gap + radius));
  return q + e * (e / (-half_gap + radius));
}

// A plane rotation [[c, s], [−s, c]] (cosine, sine).
struct Rotation {
  float c;
  float s;
};

// 1/sqrt(1 + t²): the t² sum in float, the root and reciprocal in double.
float inverse_secant(float t) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<double>(1 + t * t)));
}

// The Givens rotation that annihilates b against a (Golub & Van Loan,
// Algorithm 5.1.3): with τ the ratio of the smaller to the larger entry
// (negated), the larger entry's partner gets 1/sqrt(1+τ²) and the other τ
// times that.
Rotation annihilating_rotation(float a, float b) {
  if (b == 0) return {1, 0};
  if (std::fabs(b) > std::fabs(a)) {
    const float tau = -a / b;
    const float sine = inverse_secant(tau);
    return {sine * tau, sine};
  }
  const float tau = -b / a;
  const float cosine = inverse_secant(tau);
  return {cosine, cosine * tau};
}

// A symmetric 2×2 block [[top, off], [off, bottom]].
struct Sym2 {
  float top;
  float off;
  float bottom;
};

// Gᵀ·M·G for a rotation G, each entry expanded as in libvmaf's speed.c
// (products of the rotated rows, left to right).
Sym2 rotate_symmetric(const Rotation& g, const Sym2& m) {
  const float row0_c = g.c * m.top - g.s * m.off;
  const float row1_s = g.s * m.bottom - g.c * m.off;
  const float col_lo = g.s * m.top + g.c * m.off;
  const float col_hi = g.s * m.off + g.c * m.bottom;
  return {g.c * row0_c + g.s * row1_s, g.c * col_lo - g.s * col_hi,
          g.s * col_lo + g.c * col_hi};
}

// One implicit symmetric QR step with Wilkinson shift on an unreduced
// tridiagonal block of order n >= 2 (Golub & Van Loan, Algorithm 8.3.2):
// a rotation on rows/columns (k, k+1) creates a bulge below the band, which
// each following rotation chases one position down until it leaves the
// matrix. libvmaf's speed.c is the reference for the float arithmetic.
void shifted_qr_sweep(float* diag, float* off, int n) {
  float shift = wilkinson_shift(diag, off, n);
  if (kEigenEps * std::fabs(shift) > std::fabs(diag[0]) + std::fabs(off[0])) shift = 0;

  // The window is the 2×2 block at (k, k); `below` is the off-diagonal under
  // it, `left` and `bulge` the settled off-diagonal and the bulge left of it.
  Sym2 window{diag[0], off[0], diag[1]};
  float below = n > 2 ? off[1] : 0.0f;
  float left = 0;
  float bulge = 0;
  float lead = diag[0] - shift;  // entry the next rotation pivots on
  float chase = off[0];          // entry the next rotation annihilates
  for (int k = 0; k + 1 < n; ++k) {
    const Rotation g = annihilating_rotation(lead, chase);
    if (k > 0) off[k - 1] = g.c * left - g.s * bulge;
    const Sym2 rotated = rotate_symmetric(g, window);
    diag[k] = rotated.top;
    left = rotated.off;
    bulge = -g.s * below;
    window.top = rotated.bottom;
    window.off = g.c * below;
    if (k + 2 < n) {
      window.bottom = diag[k + 2];
      off[k + 1] = window.off;
    }
    if (k + 3 < n) below = off[k + 2];
    lead = left;
    chase = bulge;
  }
  diag[n - 1] = window.top;
  off[n - 2] = left;
}

void tridiagonal_eigenvalues(float* d, float* sd, float* eigenvalues, int n) {
  chop_small(d, sd, n);
  int b = n - 1;
  int iter = 0;
  while (b > 0 && iter < kEigenMaxIters) {
    if (sd[b - 1] == 0.0f) {
      --b;
      continue;
    }
    int a = b - 1;
    while (a > 0 && sd[a - 1] != 0.0f) --a;
    shifted_qr_sweep(d + a, sd + a, b - a + 1);
    chop_small(d + a, sd + a, b - a + 1);
    ++iter;
  }
  for (int i = 0; i < n; ++i) eigenvalues[i] = d[i];
}

}  // namespace

bool parse_scale_method(const std::string& text, ScaleMethod* method) {
  if (text == "nearest") *method = ScaleMethod::kNearest;
  else if (text == "bilinear") *method = ScaleMethod::kBilinear;
  else if (text == "bicubic") *method = ScaleMethod::kBicubic;
  else if (text == "lanczos4") *method = ScaleMethod::kLanczos4;
  else return false;
  return true;
}

bool valid_kernelscale(float kernelscale) {
  for (float k : kValidKernelscales)
    if (std::fabs(kernelscale - k) < 1e-3) return true;
  return false;
}

int scaled_side(int side, double prescale) {
  return static_cast<int>(side * prescale + 0.5);
}

void copy_plane(const Plane& plane, int bit_depth, float* dst, std::size_t dst_stride) {
  constexpr int kOffset = -128;
  if (bit_depth == 8) {
    for (int i = 0; i < plane.height; ++i) {
      const std::uint8_t* row = plane.row<std::uint8_t>(i);
      float* out = dst + i * dst_stride;
      for (int j = 0; j < plane.width; ++j) out[j] = static_cast<float>(row[j]) + kOffset;
    }
    return;
  }
  const float scaler = bit_depth == 10 ? 4.0f : bit_depth == 12 ? 16.0f : 256.0f;
  for (int i = 0; i < plane.height; ++i) {
    const std::uint16_t* row = plane.row<std::uint16_t>(i);
    float* out = dst + i * dst_stride;
    for (int j = 0; j < plane.width; ++j)
      out[j] = static_cast<float>(row[j]) / scaler + kOffset;
  }
}

void Engine::init(int width, int height, const Options& options, const std::string& who) {
  options_ = options;
  if (!valid_kernelscale(static_cast<float>(options.kernelscale)))
    throw Error(fmt::format("{}: speed_kernelscale={:g} is not one of the supported kernel "
                            "scales (e.g. 0.5, 1, 1.5, 2, 3)",
                            who, options.kernelscale));

  original_w_ = width;
  original_h_ = height;
  scaled_w_ = scaled_side(width, options.prescale);
  scaled_h_ = scaled_side(height, options.prescale);
  if (scaled_w_ < kMinScaledSide || scaled_h_ < kMinScaledSide)
    throw Error(fmt::format(
        "{}: plane {}x{} (rescaled to {}x{} by speed_prescale={:g}) is too small: SpEED needs "
        "at least {}x{} samples after rescaling (5x5 blocks after decimation by 16)",
        who, width, height, scaled_w_, scaled_h_, options.prescale, kMinScaledSide,
        kMinScaledSide));
  alloc_w_ = std::max(original_w_, scaled_w_);
  alloc_h_ = std::max(original_h_, scaled_h_);
  const int operating_w = scaled_w_ >> kNumScales;
  const int operating_h = scaled_h_ >> kNumScales;
  truncated_w_ = operating_w / kBlock * kBlock;
  truncated_h_ = operating_h / kBlock * kBlock;
  blocks_h_ = truncated_w_ / kBlock;
  blocks_v_ = truncated_h_ / kBlock;
  blocks_ = blocks_h_ * blocks_v_;
  sub_w_ = truncated_w_ - kBlock + 1;
  sub_h_ = truncated_h_ - kBlock + 1;
  stride_ = static_cast<std::size_t>(alloc_w_);

  const std::size_t frame = stride_ * alloc_h_;
  ref_frame_.assign(frame, 0.0f);
  dis_frame_.assign(frame, 0.0f);
  curr_scale_.assign(frame, 0.0f);
  scale_tmp_.assign(frame, 0.0f);
  filter_row_.assign(alloc_w_, 0.0f);

  const float ks = static_cast<float>(options.kernelscale);
  const int antialias_size = filter_size(1, ks);
  // Anti-alias filter: the scale-1 length with σ widened by √(number of scales).
  gaussian_kernel(antialias_filter_, antialias_size,
                  static_cast<float>(std::sqrt(static_cast<double>(kNumScales)) *
                                     antialias_size / 5.0f));
  const int local_size = filter_size(kNumScales, ks);
  gaussian_kernel(local_filter_, local_size, static_cast<float>(local_size) / 5.0f);

  if (options.prescale_method == ScaleMethod::kBilinear && !almost_one(options.prescale))
    bilinear_columns(original_w_, scaled_w_, bilinear_x1_, bilinear_x2_, bilinear_dx_);

  const std::size_t n2 = kBlockElems * kBlockElems;
  cov_.assign(n2, 0.0f);
  means_.assign(kBlockElems, 0.0f);
  eigenvalues_.assign(kBlockElems, 0.0f);
  independent_.assign(static_cast<std::size_t>(kBlockElems) * blocks_, 0.0f);
  solution_.assign(static_cast<std::size_t>(kBlockElems) * blocks_, 0.0f);
  rect_.assign(static_cast<std::size_t>(kBlockElems) * blocks_, 0.0f);
  for (auto* m : {&mat_a_, &mat_q_, &mat_r_, &mat_t1_, &mat_t2_}) m->assign(n2, 0.0f);
  vec_.assign(kBlockElems, 0.0f);
  tri_d_.assign(kBlockElems, 0.0f);
  tri_sd_.assign(kBlockElems, 0.0f);
  tri_v_.assign(kBlockElems, 0.0f);
  tri_x_.assign(kBlockElems, 0.0f);
  for (Results* r : {&ref_results_, &dis_results_}) {
    r->entropies.assign(blocks_, 0.0f);
    r->variances.assign(blocks_, 0.0f);
  }
}

void Engine::filter_and_downscale(float* frame) {
  const std::size_t s = stride_;
  if (!almost_one(options_.prescale)) {
    std::copy_n(frame, s * alloc_h_, scale_tmp_.data());
    const float* src = scale_tmp_.data();
    if (original_w_ == scaled_w_ && original_h_ == scaled_h_) {
      std::copy_n(src, s * scaled_h_, frame);
    } else {
      switch (options_.prescale_method) {
        case ScaleMethod::kNearest:
          scale_nearest(src, frame, original_w_, original_h_, scaled_w_, scaled_h_, s);
          break;
        case ScaleMethod::kBilinear:
          scale_bilinear(src, frame, original_h_, scaled_w_, scaled_h_, s, bilinear_x1_,
                         bilinear_x2_, bilinear_dx_);
          break;
        case ScaleMethod::kBicubic:
          scale_bicubic(src, frame, original_w_, original_h_, scaled_w_, scaled_h_, s);
          break;
        case ScaleMethod::kLanczos4:
          scale_lanczos4(src, frame, original_w_, original_h_, scaled_w_, scaled_h_, s);
          break;
      }
    }
  }

  // Anti-alias, then keep every 16th sample in each direction.
  float* curr = curr_scale_.data();
  filter_2d(antialias_filter_, frame, curr, filter_row_.data(), scaled_w_, scaled_h_, s);
  const int dw = scaled_w_ >> kNumScales;
  const int dh = scaled_h_ >> kNumScales;
  for (int i = 0; i < dh; ++i)
    for (int j = 0; j < dw; ++j) frame[i * s + j] = curr[(i * 16) * s + j * 16];

  // Remove the local mean.
  filter_2d(local_filter_, frame, curr, filter_row_.data(), dw, dh, s);
  for (int i = 0; i < dh; ++i)
    for (int j = 0; j < dw; ++j) frame[i * s + j] -= curr[i * s + j];
}

bool Engine::estimate(const float* data, Results& out) {
  const std::size_t s = stride_;
  const int n = kBlockElems;

  // 1. Covariance of the 25 shifted sub-images (one per position in a block).
  for (int r = 0; r < kBlock; ++r)
    for (int c = 0; c < kBlock; ++c) {
      float sum = 0;
      for (int i = 0; i < sub_h_; ++i)
        for (int j = 0; j < sub_w_; ++j) sum += data[(r + i) * s + (c + j)];
      means_[r * kBlock + c] = sum / static_cast<float>(sub_w_ * sub_h_);
    }
  for (int xi = 0; xi < n; ++xi)
    for (int yi = 0; yi <= xi; ++yi) {
      const int rx = xi / kBlock, cx = xi % kBlock;
      const int ry = yi / kBlock, cy = yi % kBlock;
      const double mean_x = means_[rx * kBlock + cx];
      const double mean_y = means_[ry * kBlock + cy];
      const float* px = data + rx * s + cx;
      const float* py = data + ry * s + cy;
      double sum = 0;
      for (int i = 0; i < sub_h_; ++i)
        for (int j = 0; j < sub_w_; ++j) {
          const double vx = px[i * s + j];
          const double vy = py[i * s + j];
          sum += (vx - mean_x) * (vy - mean_y);
        }
      const float cov = static_cast<float>(sum / (static_cast<std::size_t>(sub_w_) * sub_h_));
      cov_[xi * n + yi] = cov;
      cov_[yi * n + xi] = cov;
    }

  // 2. Spectrum of the covariance: tridiagonalise, then QR iterations.
  std::copy(cov_.begin(), cov_.end(), mat_a_.begin());
  tridiagonalize(mat_a_.data(), n, tri_d_.data(), tri_sd_.data(), tri_v_.data(), tri_x_.data());
  tridiagonal_eigenvalues(tri_d_.data(), tri_sd_.data(), eigenvalues_.data(), n);

  // 3. Independent term: row p holds block position p of every block.
  for (int si = 0; si < kBlock; ++si)
    for (int sj = 0; sj < kBlock; ++sj)
      for (int i = si; i < truncated_h_; i += kBlock)
        for (int j = sj; j < truncated_w_; j += kBlock) {
          const int row = si * kBlock + sj;
          const int col = ((i - si) / kBlock) * blocks_h_ + (j - sj) / kBlock;
          independent_[static_cast<std::size_t>(row) * blocks_ + col] = data[i * s + j];
        }

  // 4. Solve K X = Y through K = Q R, unless K is (numerically) singular.
  bool regular = true;
  for (int i = 0; i < n; ++i)
    if (eigenvalues_[i] < kEigenEps) regular = false;
  bool solved = false;
  if (regular) {
    std::copy(cov_.begin(), cov_.end(), mat_a_.begin());
    qr_decompose(mat_a_.data(), mat_q_.data(), mat_r_.data(), mat_t1_.data(), mat_t2_.data(),
                 mat_r_.data(), vec_.data(), n);
    mat_transpose(mat_q_.data(), n);
    mat_mul(rect_.data(), mat_q_.data(), independent_.data(), n, n, blocks_);
    solved = solve_upper(mat_r_.data(), solution_.data(), rect_.data(), n, blocks_);
  }
  const bool singular = !regular || !solved;
  if (singular) std::fill(solution_.begin(), solution_.end(), 0.0f);

  // 5-6. Per-block variance: Σ over positions of X·Y / 25.
  const float denominator = static_cast<float>(n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < blocks_; ++j) {
      float& x = solution_[static_cast<std::size_t>(i) * blocks_ + j];
      x = (x * independent_[static_cast<std::size_t>(i) * blocks_ + j]) / denominator;
    }
  for (int i = 1; i < n; ++i)
    for (int j = 0; j < blocks_; ++j)
      solution_[j] += solution_[static_cast<std::size_t>(i) * blocks_ + j];

  // 8-9. Entropy per block: Σ over eigenvalues λ of log2(λ·S + σ²nn) + log2(2πe).
  const float sigma_nn = static_cast<float>(options_.sigma_nn);
  const double log_2pie = std::log2(2 * kPi * kE);
  std::fill(out.entropies.begin(), out.entropies.end(), 0.0f);
  for (int k = 0; k < n; ++k) {
    const float lambda = eigenvalues_[k] < 0 ? 0 : eigenvalues_[k];
    for (int b = 0; b < blocks_; ++b) {
      const float arg = lambda * solution_[b] + sigma_nn;
      out.entropies[b] = static_cast<float>(
          out.entropies[b] + (std::log2(static_cast<double>(arg)) + log_2pie));
    }
  }
  std::copy_n(solution_.begin(), blocks_, out.variances.begin());
  return !singular;
}

float Engine::speed_score() const {
  const float sigma_nn = static_cast<float>(options_.sigma_nn);
  const float nn_floor = static_cast<float>(options_.nn_floor);
  const double log_2pie = std::log2(2 * kPi * kE);
  const float base_entropy = static_cast<float>(
      static_cast<double>(kBlockElems) *
      (std::log2(static_cast<double>((1 + nn_floor) * sigma_nn)) + log_2pie));
  auto lg = [](double x) { return std::log2(x); };
  float score = 0;
  for (int i = 0; i < blocks_; ++i) {
    const float er = ref_results_.entropies[i];
    const float ed = dis_results_.entropies[i];
    if (er < base_entropy && ed < base_entropy) continue;  // nothing visible
    const float vr = ref_results_.variances[i];
    const float vd = dis_results_.variances[i];
    float spatial_ref = 0.0f, spatial_dis = 0.0f;
    switch (options_.weight_var_mode) {
      case 0:
        spatial_ref = static_cast<float>(er * lg(1 + vr));
        spatial_dis = static_cast<float>(ed * lg(1 + vd));
        break;
      case 1:
        spatial_ref = static_cast<float>(er * lg(1 + vr));
        spatial_dis = static_cast<float>(ed * lg(1 + vr));
        break;
      case 2:
        spatial_ref = static_cast<float>(er * lg(1 + vd));
        spatial_dis = static_cast<float>(ed * lg(1 + vd));
        break;
      case 3:
        spatial_ref = static_cast<float>(er * lg(1 + (vr + vd) / 2.0));
        spatial_dis = static_cast<float>(ed * lg(1 + (vr + vd) / 2.0));
        break;
      case 4:
        spatial_ref = static_cast<float>(er * lg(1 + vr));
        spatial_dis = static_cast<float>(ed * lg(1 + (vr + vd) / 2.0));
        break;
      case 5:
        spatial_ref = static_cast<float>(er * lg(1 + vr));
        spatial_dis = static_cast<float>(ed * lg(1 + (0.75 * vr + 0.25 * vd)));
        break;
      case 6:
        spatial_ref = static_cast<float>(er * lg(1 + vr));
        spatial_dis = static_cast<float>(ed * lg(1 + (0.25 * vr + 0.75 * vd)));
        break;
      default:
        throw Error("speed: speed_weight_var_mode must be 0..6");
    }
    score += std::fabs(spatial_ref - spatial_dis);
  }
  return score / static_cast<float>(blocks_);
}

bool Engine::score(float* reference, float* distorted, float* score) {
  filter_and_downscale(reference);
  const bool ok_ref = estimate(reference, ref_results_);
  filter_and_downscale(distorted);
  const bool ok_dis = estimate(distorted, dis_results_);
  // One side numerically unstable: 0 rather than an inflated score.
  *score = ok_ref != ok_dis ? 0.0f : speed_score();
  return ok_ref && ok_dis;
}

}  // namespace vqe::speed
