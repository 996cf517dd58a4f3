// SPDX-License-Identifier: BSD-2-Clause
// Floating-point ADM kernels. See adm_kernels.h for the contract. Where an
// expression mixes float and double, the mix is libvmaf's and is kept on
// purpose (it changes the last bits of the results).
#include "features/float_adm/adm_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "features/float_adm/rcp_model.h"

namespace vqe::float_adm {
namespace {

constexpr double kPi = 3.14159265358979323846;

// Daubechies-2 analysis filters (adm_tools.c), rounded to float.
constexpr float kLo[4] = {0.482962913144690f, 0.836516303737469f, 0.224143868041857f,
                          -0.129409522550921f};
constexpr float kHi[4] = {-0.129409522550921f, -0.224143868041857f, 0.836516303737469f,
                          -0.482962913144690f};

// 1/30 and 1/15 as libvmaf spells them: double literals close to the float
// values of 1/30 and 1/15.
constexpr double kOneBy30 = 0.0333333351;
constexpr double kOneBy15 = 0.0666666701;

// Watson et al. 1997, luma (Y) row of the DWT threshold model, Table IV
// (subject "sfl"), and the 7-9 biorthogonal basis amplitudes A[lambda][theta]
// of Table V, both as float.
constexpr float kWatsonA = 0.495f;
constexpr float kWatsonK = 0.466f;
constexpr float kWatsonF0 = 0.401f;
constexpr float kWatsonG[4] = {1.501f, 1.0f, 0.534f, 1.0f};
constexpr float kBasisAmplitude[6][4] = {
    {0.62171f, 0.67234f, 0.72709f, 0.67234f},     {0.34537f, 0.41317f, 0.49428f, 0.41317f},
    {0.18004f, 0.22727f, 0.28688f, 0.22727f},     {0.091401f, 0.11792f, 0.15214f, 0.11792f},
    {0.045943f, 0.059758f, 0.077727f, 0.059758f}, {0.023013f, 0.030018f, 0.039156f, 0.030018f},
};

// Display resolution in pixels per degree of visual angle, rounded to float.
inline float pixels_per_degree(double norm_view_dist, int display_height) {
  return static_cast<float>(norm_view_dist * display_height * kPi / 180.0);
}

// Watson's DWT quantisation step for level `lambda` and orientation `theta`
// (adm_tools.h dwt_quant_step).
float watson_quant_step(int lambda, int theta, double norm_view_dist, int display_height) {
  const float r = pixels_per_degree(norm_view_dist, display_height);
  const float temp = static_cast<float>(std::log10(std::pow(2.0, lambda + 1) *
                                                   static_cast<double>(kWatsonF0) *
                                                   static_cast<double>(kWatsonG[theta]) /
                                                   static_cast<double>(r)));
  const float kt2 = kWatsonK * temp * temp;  // float
  return static_cast<float>(2.0 * static_cast<double>(kWatsonA) *
                            std::pow(10.0, static_cast<double>(kt2)) /
                            static_cast<double>(kBasisAmplitude[lambda][theta]));
}

// CSF of the DLM paper (adm_csf_tools.h adm_native_csf); theta 0 or 45.
float native_csf(int lambda, double norm_view_dist, int display_height, int theta) {
  const float r = pixels_per_degree(norm_view_dist, display_height);
  float sf = static_cast<float>(static_cast<double>(r) / std::pow(2, lambda + 1));
  if (theta == 45) sf = static_cast<float>(static_cast<double>(sf) / 0.7);
  return static_cast<float>((0.31 + 0.69 * sf) * std::exp(-0.29 * sf));
}

// Barten's CSF as simplified in HDR-VDP 2.2.1 (barten_csf_tools.h).
constexpr float kBartenAnchors[6] = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
constexpr float kBartenParams[6][5] = {
    {0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
    {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
    {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
    {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
    {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
    {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f},
};
constexpr float kBartenSa[4] = {30.162f, 4.0627f, 1.6596f, 0.2712f};
constexpr float kBartenMtfA[4] = {0.424838596301290f, 0.572435103936480f,
                                  0.000167576239164937f, 0.00255872352306433f};
constexpr float kBartenMtfB[4] = {0.028f, 0.37f, 37.0f, 360.0f};

float lerp_f(float lp, float lv, float rp, float rv, float sp) {
  return lv + ((rv - lv) / (rp - lp)) * (sp - lp);
}

float barten_rod_cone_sens(float luminance) {
  return static_cast<float>(
      static_cast<double>(kBartenSa[0]) *
      std::pow(std::pow(static_cast<double>(kBartenSa[1] / luminance),
                        static_cast<double>(kBartenSa[2])) + 1,
               -static_cast<double>(kBartenSa[3])));
}

float barten_mtf(float sf) {
  float mtf = 0.0f;
  for (int i = 0; i <= 3; ++i)
    // The exponent -b * sf is a float product.
    mtf = static_cast<float>(mtf + kBartenMtfA[i] * std::exp(static_cast<double>(-kBartenMtfB[i] * sf)));
  return mtf;
}

float barten_csf(int lambda, double norm_view_dist, int display_height, double luminance,
                 double scale) {
  const float r = pixels_per_degree(norm_view_dist, display_height);
  const float sf = static_cast<float>(static_cast<double>(r) / std::pow(2, lambda + 1));
  double lum = luminance;
  if (lum > kBartenAnchors[5]) lum = kBartenAnchors[5];
  else if (lum < kBartenAnchors[0]) lum = kBartenAnchors[0];
  int li = 0, ri = 0;
  for (int i = 0; i < 5; ++i) {
    if (lum >= kBartenAnchors[i] && lum <= kBartenAnchors[i + 1]) {
      li = i;
      ri = i + 1;
      break;
    }
  }
  const float lp = static_cast<float>(std::log10(static_cast<double>(kBartenAnchors[li])));
  const float rp = static_cast<float>(std::log10(static_cast<double>(kBartenAnchors[ri])));
  const float sp = static_cast<float>(std::log10(lum));
  float p[4];
  for (int k = 0; k < 4; ++k)
    p[k] = lerp_f(lp, kBartenParams[li][k + 1], rp, kBartenParams[ri][k + 1], sp);
  const float a = static_cast<float>(1.0f + std::pow(static_cast<double>(p[0] * sf),
                                                     static_cast<double>(p[1])));
  const float b = static_cast<float>(
      1.0f / std::pow(1 - std::exp(-std::pow(static_cast<double>(sf / 7), 2)),
                      static_cast<double>(p[2])));
  const float csf = static_cast<float>(p[3] / std::pow(static_cast<double>(a * b), 0.5));
  const float partial = csf * barten_mtf(sf) * barten_rod_cone_sens(static_cast<float>(luminance));
  return static_cast<float>(partial * scale);
}

// Region of the decoupling and CSF steps: the scored region widened by one
// filter tap, clamped to the band (libvmaf computes it with a double
// expression truncated toward zero).
struct Region {
  int top, bottom, left, right;
};
Region widened_region(int w, int h, double bf) {
  Region r;
  r.left = static_cast<int>(w * bf - 0.5 - 1);
  r.top = static_cast<int>(h * bf - 0.5 - 1);
  r.right = w - r.left + 2;
  r.bottom = h - r.top + 2;
  r.left = std::max(r.left, 0);
  r.right = std::min(r.right, w);
  r.top = std::max(r.top, 0);
  r.bottom = std::min(r.bottom, h);
  return r;
}
// The scored region: border_factor of each side left out.
Region scored_region(int w, int h, double bf) {
  Region r;
  r.left = static_cast<int>(w * bf - 0.5);
  r.top = static_cast<int>(h * bf - 0.5);
  r.right = w - r.left;
  r.bottom = h - r.top;
  return r;
}

inline float pow_p(float x, double p) {
  return p == 3.0 ? x * x * x : ::powf(x, static_cast<float>(p));
}
inline float root_p(float x, double p) { return ::powf(x, static_cast<float>(1.0f / p)); }
inline float noise_constant(int w, int h, double weight, double p) {
  return ::powf(static_cast<float>(w * h * weight), static_cast<float>(1.0f / p));
}

// Decouples the distorted bands into restored (r) and additive (a) parts
// (adm_decouple_s with ADM_OPT_AVOID_ATAN).
void decouple(const float* oh_, const float* ov_, const float* od_, const float* th_,
              const float* tv_, const float* td_, float* const r[3], float* const a[3], int w,
              int h, std::ptrdiff_t stride, double bf, double gain_limit) {
  const float cos_1deg_sq =
      static_cast<float>(std::cos(1.0 * kPi / 180.0) * std::cos(1.0 * kPi / 180.0));
  const float eps = 1e-30f;
  const Region g = widened_region(w, h, bf);
  for (int i = g.top; i < g.bottom; ++i) {
    for (int j = g.left; j < g.right; ++j) {
      const std::ptrdiff_t o = i * stride + j;
      const float oh = oh_[o], ov = ov_[o], od = od_[o];
      const float th = th_[o], tv = tv_[o], td = td_[o];
      float kh = recip_divide(th, oh + eps);
      float kv = recip_divide(tv, ov + eps);
      float kd = recip_divide(td, od + eps);
      kh = kh < 0.0f ? 0.0f : (kh > 1.0f ? 1.0f : kh);
      kv = kv < 0.0f ? 0.0f : (kv > 1.0f ? 1.0f : kv);
      kd = kd < 0.0f ? 0.0f : (kd > 1.0f ? 1.0f : kd);
      float rh = kh * oh, rv = kv * ov, rd = kd * od;

      const float ot_dp = oh * th + ov * tv;
      const float o_mag_sq = oh * oh + ov * ov;
      const float t_mag_sq = th * th + tv * tv;
      const bool angle_flag =
          (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq);
      // Within 1 degree: allow enhancement up to gain_limit times (in double,
      // as libvmaf's MIN/MAX of a double product and a float).
      auto limit = [&](float rst, float t) {
        if (angle_flag && rst > 0.0) {
          const double x = rst * gain_limit;
          rst = static_cast<float>(x < t ? x : static_cast<double>(t));
        }
        if (angle_flag && rst < 0.0) {
          const double x = rst * gain_limit;
          rst = static_cast<float>(x > t ? x : static_cast<double>(t));
        }
        return rst;
      };
      rh = limit(rh, th);
      rv = limit(rv, tv);
      rd = limit(rd, td);
      r[0][o] = rh;
      r[1][o] = rv;
      r[2][o] = rd;
      a[0][o] = th - rh;
      a[1][o] = tv - rv;
      a[2][o] = td - rd;
    }
  }
}

// CSF weighting (adm_csf_s): val = factor * src and mag = |val| / 30, over
// the widened region.
void csf(const float* const src[3], float* const val[3], float* const mag[3], const float rf[3],
         int w, int h, std::ptrdiff_t stride, double bf) {
  const Region g = widened_region(w, h, bf);
  for (int t = 0; t < 3; ++t) {
    for (int i = g.top; i < g.bottom; ++i) {
      const std::ptrdiff_t o = i * stride;
      for (int j = g.left; j < g.right; ++j) {
        const float v = rf[t] * src[t][o + j];
        val[t][o + j] = v;
        mag[t][o + j] = static_cast<float>(kOneBy30 * static_cast<double>(std::fabs(v)));
      }
    }
  }
}

// Denominator of one scale (adm_csf_den_scale_s): p-norm of the
// CSF-weighted reference bands over the scored region plus the noise floor.
float denominator_scale(const float* const src[3], const float rf[3], int w, int h,
                std::ptrdiff_t stride, double bf, double noise_weight, double p) {
  const Region s = scored_region(w, h, bf);
  float acc[3] = {0, 0, 0};
  for (int i = s.top; i < s.bottom; ++i) {
    float inner[3] = {0, 0, 0};
    const std::ptrdiff_t o = i * stride;
    for (int j = s.left; j < s.right; ++j) {
      for (int t = 0; t < 3; ++t) inner[t] += pow_p(std::fabs(rf[t] * src[t][o + j]), p);
    }
    for (int t = 0; t < 3; ++t) acc[t] += inner[t];
  }
  const float n = noise_constant(s.right - s.left, s.bottom - s.top, noise_weight, p);
  float out[3];
  for (int t = 0; t < 3; ++t) out[t] = root_p(acc[t], p) + n;
  return out[0] + out[1] + out[2];
}

// Contrast masking of one scale (adm_cm_s): p-norm of the CSF-weighted
// `src` bands after subtracting a masking threshold built from the 3 × 3
// neighbourhood of the masker (`mag` = |masker| / 30 around, |masker| / 15
// at the centre, summed over the three orientations). Rows and columns
// outside the band are mirrored: -1 -> 1 and n -> n - 1.
float contrast_masking(const float* const src[3], const float* const masker[3],
                       const float* const mag[3], const float rf[3], int w, int h,
                       std::ptrdiff_t stride, double bf, double noise_weight, bool bypass,
                       double p) {
  const Region s = scored_region(w, h, bf);
  const int start_col = s.left > 1 ? s.left : 1;
  const int end_col = s.right < w - 1 ? s.right : w - 1;
  const int start_row = s.top > 1 ? s.top : 1;
  const int end_row = s.bottom < h - 1 ? s.bottom : h - 1;

  // Row and column visiting order of libvmaf: the first line/column (when
  // inside the scored region), the inner ones, then the last.
  auto visit = [](int first_in, int start, int end, bool last_in, int last, auto&& fn) {
    if (first_in) fn(0);
    for (int k = start; k < end; ++k) fn(k);
    if (last_in) fn(last);
  };
  const bool first_col = s.left <= 0, last_col = s.right > w - 1;
  const bool first_row = s.top <= 0, last_row = s.bottom > h - 1;

  float acc[3] = {0, 0, 0};
  float thr = 0.0f;
  visit(first_row, start_row, end_row, last_row, h - 1, [&](int i) {
    const int rows[3] = {i - 1 < 0 ? 1 : i - 1, i, i + 1 >= h ? h - 1 : i + 1};
    float inner[3] = {0, 0, 0};
    visit(first_col, start_col, end_col, last_col, w - 1, [&](int j) {
      const int cols[3] = {j - 1 < 0 ? 1 : j - 1, j, j + 1 >= w ? w - 1 : j + 1};
      const std::ptrdiff_t o = i * stride + j;
      float x[3];
      for (int t = 0; t < 3; ++t) x[t] = src[t][o] * rf[t];
      if (!bypass) {
        thr = 0.0f;
        for (int t = 0; t < 3; ++t) {
          float sum = 0.0f;
          for (int a = 0; a < 3; ++a) {
            const float* row = mag[t] + rows[a] * stride;
            for (int b = 0; b < 3; ++b) {
              if (a == 1 && b == 1)
                sum = static_cast<float>(static_cast<double>(sum) +
                                         kOneBy15 * static_cast<double>(std::fabs(masker[t][o])));
              else
                sum += row[cols[b]];
            }
          }
          thr += sum;
        }
      }
      for (int t = 0; t < 3; ++t) {
        float v = std::fabs(x[t]) - thr;
        v = v < 0.0f ? 0.0f : v;
        inner[t] += pow_p(v, p);
      }
    });
    for (int t = 0; t < 3; ++t) acc[t] += inner[t];
  });
  const float n = noise_constant(s.right - s.left, s.bottom - s.top, noise_weight, p);
  float out[3];
  for (int t = 0; t < 3; ++t) out[t] = root_p(acc[t], p) + n;
  return out[0] + out[1] + out[2];
}

// Mirrored source rows/columns of the DWT for an input side n
// (dwt2_src_indices_filt_s): taps 2i-1 .. 2i+2, reflected as -k before the
// start and 2n-k-1 past the end.
void dwt_indices(int n, std::array<std::vector<int>, 4>& ind) {
  const int m = (n + 1) / 2;
  for (auto& v : ind) v.assign(m, 0);
  for (int i = 0; i < m; ++i) {
    int i0 = 2 * i - 1;
    i0 = i0 < 0 ? -i0 : (i0 >= n ? 2 * n - i0 - 1 : i0);
    int i1 = 2 * i, i2 = 2 * i + 1, i3 = 2 * i + 2;
    if (i1 >= n) i1 = 2 * n - i1 - 1;
    if (i2 >= n) i2 = 2 * n - i2 - 1;
    if (i3 >= n) i3 = 2 * n - i3 - 1;
    ind[0][i] = i0;
    ind[1][i] = i1;
    ind[2][i] = i2;
    ind[3][i] = i3;
  }
}

}  // namespace

float recip_divide(float x, float d) {
  const float xi = rcp_model(d);
  const float r = xi + xi * (1.0f - d * xi);
  return x * r;
}

void csf_factors(const AdmParams& p, int scale, float* factor1, float* factor2) {
  float f1, f2;
  if (p.csf_mode == 1) {
    f1 = barten_csf(scale, p.norm_view_dist, p.ref_display_height, p.csf_luminance_level,
                    p.csf_scale);
    f2 = barten_csf(scale, p.norm_view_dist, p.ref_display_height, p.csf_luminance_level,
                    p.csf_diag_scale);
  } else if (p.csf_mode == 2) {
    f1 = native_csf(scale, p.norm_view_dist, p.ref_display_height, 0);
    f2 = native_csf(scale, p.norm_view_dist, p.ref_display_height, 45);
  } else {
    f1 = 1.0f / watson_quant_step(scale, 1, p.norm_view_dist, p.ref_display_height);
    f2 = 1.0f / watson_quant_step(scale, 2, p.norm_view_dist, p.ref_display_height);
  }
  if (p.f1[scale] >= 0) f1 = static_cast<float>(p.f1[scale]);
  if (p.f2[scale] >= 0) f2 = static_cast<float>(p.f2[scale]);
  *factor1 = f1;
  *factor2 = f2;
}

AdmComputer::AdmComputer(int w, int h, const AdmParams& params)
    : w_(w), h_(h), params_(params) {
  int cw = w, ch = h;
  for (int s = 0; s < 4; ++s) {
    sw_[s] = cw;
    sh_[s] = ch;
    dwt_indices(ch, ind_y_[s]);
    dwt_indices(cw, ind_x_[s]);
    cw = (cw + 1) / 2;
    ch = (ch + 1) / 2;
  }
  bstride_ = (w + 1) / 2;
  // Buffer sizes rounded up to whole 64-byte lines. Every band has rows of
  // bstride_ floats: (sh_[s] + 1) / 2 rows at scale s. ref_[1] and dis_[1]
  // serve scales 1 and 3 only, so they need about half as many rows.
  const auto lines = [](std::size_t floats) { return (floats + 15) / 16 * 16; };
  band_size_ = lines(static_cast<std::size_t>(bstride_) * ((h + 1) / 2));
  const std::size_t odd_size = lines(static_cast<std::size_t>(bstride_) * ((sh_[1] + 1) / 2));
  // The buffers in bind()'s order fill arena slots one after another: four
  // full bands, or eight of the odd scales', to a slot of about a plane's
  // size (the size other extractors' slots have, so that the slots overlap).
  slot_size_ = std::max(kBandsPerSlot * band_size_, 2 * kBandsPerSlot * odd_size);
  unsigned slot = 0;
  std::size_t used = 0;
  int k = 0;
  const auto put = [&](std::size_t size) {
    if (used + size > slot_size_) {
      ++slot;
      used = 0;
    }
    places_[k++] = {slot, used};
    used += size;
  };
  for (int i = 0; i < 8; ++i) put(band_size_);  // ref_[0], dis_[0]
  for (int i = 0; i < 8; ++i) put(odd_size);    // ref_[1], dis_[1]
  while (k < kBandBuffers) put(band_size_);     // r_, a_, csf_a_, csf_f_
  slots_ = slot + 1;
  tmplo_.assign(w, 0.0f);
  tmphi_.assign(w, 0.0f);
}

void AdmComputer::reserve(ScratchArena& arena) const {
  for (unsigned s = 0; s < slots_; ++s) arena.get<float>(kScratchWork + s, slot_size_);
}

void AdmComputer::bind(ScratchArena& arena) {
  int i = 0;
  auto next = [&] {
    const auto [slot, offset] = places_[i++];
    return arena.get<float>(kScratchWork + slot, slot_size_) + offset;
  };
  for (Bands* b : {&ref_[0], &dis_[0], &ref_[1], &dis_[1]}) {
    b->a = next();
    b->h = next();
    b->v = next();
    b->d = next();
  }
  for (int t = 0; t < 3; ++t) {
    r_[t] = next();
    a_[t] = next();
    csf_a_[t] = next();
    csf_f_[t] = next();
  }
}

void AdmComputer::dwt(const float* src, std::ptrdiff_t sstride, int scale, bool low_only,
                      Bands& out) {
  const int w = sw_[scale], h = sh_[scale];
  const auto& iy = ind_y_[scale];
  const auto& ix = ind_x_[scale];
  float* lo = tmplo_.data();
  float* hi = tmphi_.data();
  for (int i = 0; i < (h + 1) / 2; ++i) {
    const float* r0 = src + iy[0][i] * sstride;
    const float* r1 = src + iy[1][i] * sstride;
    const float* r2 = src + iy[2][i] * sstride;
    const float* r3 = src + iy[3][i] * sstride;
    for (int j = 0; j < w; ++j) {
      const float s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];
      float acc = 0;
      acc += kLo[0] * s0;
      acc += kLo[1] * s1;
      acc += kLo[2] * s2;
      acc += kLo[3] * s3;
      lo[j] = acc;
      if (!low_only) {
        acc = 0;
        acc += kHi[0] * s0;
        acc += kHi[1] * s1;
        acc += kHi[2] * s2;
        acc += kHi[3] * s3;
        hi[j] = acc;
      }
    }
    const std::ptrdiff_t o = i * bstride_;
    for (int j = 0; j < (w + 1) / 2; ++j) {
      const int j0 = ix[0][j], j1 = ix[1][j], j2 = ix[2][j], j3 = ix[3][j];
      float s0 = lo[j0], s1 = lo[j1], s2 = lo[j2], s3 = lo[j3];
      float acc = 0;
      acc += kLo[0] * s0;
      acc += kLo[1] * s1;
      acc += kLo[2] * s2;
      acc += kLo[3] * s3;
      out.a[o + j] = acc;
      if (low_only) continue;
      acc = 0;
      acc += kHi[0] * s0;
      acc += kHi[1] * s1;
      acc += kHi[2] * s2;
      acc += kHi[3] * s3;
      out.v[o + j] = acc;
      s0 = hi[j0];
      s1 = hi[j1];
      s2 = hi[j2];
      s3 = hi[j3];
      acc = 0;
      acc += kLo[0] * s0;
      acc += kLo[1] * s1;
      acc += kLo[2] * s2;
      acc += kLo[3] * s3;
      out.h[o + j] = acc;
      acc = 0;
      acc += kHi[0] * s0;
      acc += kHi[1] * s1;
      acc += kHi[2] * s2;
      acc += kHi[3] * s3;
      out.d[o + j] = acc;
    }
  }
}

AdmResult AdmComputer::compute(const float* ref, const float* dis, std::ptrdiff_t stride,
                               ScratchArena& arena) {
  bind(arena);
  const AdmParams& p = params_;
  const double bf = p.border_factor;
  const double numden_limit = 1e-10 * (w_ * h_) / (1920.0 * 1080.0);

  AdmResult res;
  double num = 0, den = 0, aim_num = 0, aim_den = 0;
  const float* cur_ref = ref;
  const float* cur_dis = dis;
  std::ptrdiff_t cur_stride = stride;
  for (int scale = 0; scale < 4; ++scale) {
    Bands& rb = ref_[scale & 1];
    Bands& db = dis_[scale & 1];
    float num_scale = 0.0f, den_scale = 0.0f, aim_num_scale = 0.0f;
    const int bw = (sw_[scale] + 1) / 2;
    const int bh = (sh_[scale] + 1) / 2;
    if (scale == 0 && p.skip_scale0) {
      dwt(cur_ref, cur_stride, scale, true, rb);
      dwt(cur_dis, cur_stride, scale, true, db);
      den_scale = 1e-10f;
    } else {
      dwt(cur_ref, cur_stride, scale, false, rb);
      dwt(cur_dis, cur_stride, scale, false, db);
      float* const r[3] = {r_[0], r_[1], r_[2]};
      float* const a[3] = {a_[0], a_[1], a_[2]};
      decouple(rb.h, rb.v, rb.d, db.h, db.v, db.d, r,
               a, bw, bh, bstride_, bf, p.enhn_gain_limit);
      float f1, f2;
      csf_factors(p, scale, &f1, &f2);
      const float rf[3] = {f1, f1, f2};
      const float* const ref_hvd[3] = {rb.h, rb.v, rb.d};
      den_scale = denominator_scale(ref_hvd, rf, bw, bh, bstride_, bf, p.noise_weight, p.p_norm);

      float* const val[3] = {csf_a_[0], csf_a_[1], csf_a_[2]};
      float* const mag[3] = {csf_f_[0], csf_f_[1], csf_f_[2]};
      const float* const cval[3] = {val[0], val[1], val[2]};
      const float* const cmag[3] = {mag[0], mag[1], mag[2]};
      const float* const cr[3] = {r[0], r[1], r[2]};
      const float* const ca[3] = {a[0], a[1], a[2]};
      // Detail loss: restored part r, masked by the additive part a.
      csf(ca, val, mag, rf, bw, bh, bstride_, bf);
      num_scale = contrast_masking(cr, cval, cmag, rf, bw, bh, bstride_, bf, p.noise_weight,
                                   p.bypass_cm != 0, p.p_norm);
      // Additive impairment: a, masked by r, with no noise floor.
      csf(cr, val, mag, rf, bw, bh, bstride_, bf);
      aim_num_scale = contrast_masking(ca, cval, cmag, rf, bw, bh, bstride_, bf, 0.0,
                                       p.bypass_cm != 0, p.p_norm);
    }
    num += num_scale;
    den += den_scale;
    if (p.skip_aim_scale != scale) {
      aim_den += den_scale;
      aim_num += aim_num_scale;
    }
    res.num[scale] = num_scale;
    res.den[scale] = den_scale;
    cur_ref = rb.a;
    cur_dis = db.a;
    cur_stride = bstride_;
  }

  num = num < numden_limit ? 0 : num;
  den = den < numden_limit ? 0 : den;
  if (den == 0.0) {
    // libvmaf leaves the AIM score unset here; we report 0 (no measurable
    // additive impairment against a zero denominator).
    res.score = 1.0;
    res.score_aim = 0.0;
  } else {
    const double q = aim_num / aim_den;
    res.score_aim = q < 1.0 ? q : 1.0;
    res.score = num / den;
  }
  res.num_total = num;
  res.den_total = den;
  return res;
}

}  // namespace vqe::float_adm
