// SPDX-License-Identifier: BSD-2-Clause
// The scores of the integer ADM from its integer sums (AdmScorer, shared by
// the CPU and CUDA computes) and the fixed-point CSF weights: libvmaf's
// integer-to-float conversions, cube roots and noise floors
// (libvmaf/src/feature/integer_adm.c).

#include "features/adm/integer_adm.h"

#include <math.h>  // pow, powf, log2, ceil, cos: the C functions libvmaf calls

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "features/adm/adm_internal.h"
#include "features/adm/adm_kernels.h"
#include "vqe/error.h"

namespace vqe::adm {
using namespace detail;  // NOLINT(google-build-using-namespace): this metric's own helpers

namespace {

/// Level 0's contrast-masking total from its per-orientation row-rounded
/// sums (the end of masked_sum_level0).
float masked_level0_total(const std::int64_t accum[3], const std::uint32_t cub_shift[3],
                          std::uint32_t row_shift, const Region& r, double noise_weight) {
  static constexpr int kPending[3] = {52, 52, 57};
  const float noise = powf(
      static_cast<float>((r.bottom - r.top) * (r.right - r.left) * noise_weight), 1.0f / 3.0f);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    const int exponent = kPending[theta] - static_cast<int>(cub_shift[theta]) -
                         static_cast<int>(row_shift);
    const auto f = static_cast<float>(static_cast<double>(accum[theta]) / pow(2, exponent));
    const float term = powf(f, 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

}  // namespace

FixedWeights fixed_weights(const CsfParams& c) {
  // Level 0 uses 16-bit fixed point: Q21 for h/v, Q23 for d, with libvmaf's
  // hard-coded constants for Watson at 3 heights x 1080 lines; levels 1-3
  // use Q32.
  FixedWeights fw;
  for (int s = 0; s < kNumScales; ++s) {
    const float hv = csf_weight(c, s, false);
    const float dg = csf_weight(c, s, true);
    const float wts[3] = {hv, hv, dg};
    if (s == 0) {
      if (fabs(c.norm_view_dist * c.ref_display_height - 3.0 * 1080) < 1.0e-8 &&
          c.mode == CsfMode::kWatson97) {
        fw.level0[0] = 36453;
        fw.level0[1] = 36453;
        fw.level0[2] = 49417;
      } else {
        const double q21 = pow(2, 21), q23 = pow(2, 23);
        // libvmaf's (uint16_t) cast; out of range in Barten mode, where it
        // keeps the low 16 bits as x86 does.
        fw.level0[0] = x86_double_to_u16(static_cast<double>(wts[0]) * q21);
        fw.level0[1] = x86_double_to_u16(static_cast<double>(wts[1]) * q21);
        fw.level0[2] = x86_double_to_u16(static_cast<double>(wts[2]) * q23);
      }
    } else {
      const double q32 = pow(2, 32);
      for (int k = 0; k < 3; ++k)
        fw.level123[s][k] = x86_double_to_u32(static_cast<double>(wts[k]) * q32);
    }
  }
  return fw;
}

float AdmScorer::den_level0_total(const std::uint64_t accum[3], int area) const {
  const std::int32_t shift = den_level0_shift(area);
  const float noise = powf(static_cast<float>(area * params_.noise_weight), 1.0f / 3.0f);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    // The weight is applied after cubing; 6 bits of the DWT's scale are
    // still pending, 18 after cubing.
    const double csf = static_cast<double>(static_cast<double>(accum[theta]) / pow(2, 18 - shift)) *
                       pow(static_cast<double>(weight_[0][theta]), 3);
    const float term = powf(static_cast<float>(csf), 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

float AdmScorer::den_level123_total(const std::uint64_t accum[3], int w, int h,
                                    int scale) const {
  static constexpr std::uint32_t kToFloat[3] = {32, 27, 23};
  const Region r = score_region(w, h);
  const Den123Shifts sh = den_level123_shifts(r, scale);
  const int area = (r.bottom - r.top) * (r.right - r.left);
  const float noise = powf(static_cast<float>(area * params_.noise_weight), 1.0f / 3.0f);
  const int exponent = static_cast<int>(kToFloat[scale - 1]) - static_cast<int>(sh.accum) -
                       static_cast<int>(sh.cub);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    const double csf = static_cast<double>(static_cast<double>(accum[theta]) / pow(2, exponent)) *
                       pow(static_cast<double>(weight_[scale][theta]), 3);
    const float term = powf(static_cast<float>(csf), 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

float AdmScorer::masked_level123_total(const std::int64_t accum[3], int w, int h, int scale,
                                       double noise_weight) const {
  static constexpr int kPending[3] = {45, 39, 36};  // per level 1..3
  const std::uint32_t cub_shift = ceil_log2(w);
  const std::uint32_t row_shift = ceil_log2(h);
  const Region r = score_region(w, h);
  // libvmaf divides the int64 sum by a float power of two, in float.
  const auto divisor = static_cast<float>(
      pow(2, kPending[scale - 1] - static_cast<int>(cub_shift) - static_cast<int>(row_shift)));
  const float noise = powf(
      static_cast<float>((r.bottom - r.top) * (r.right - r.left) * noise_weight), 1.0f / 3.0f);
  float total = 0.0f;
  for (int theta = 0; theta < 3; ++theta) {
    const float f = static_cast<float>(accum[theta]) / divisor;
    const float term = powf(f, 1.0f / 3.0f) + noise;
    total = theta == 0 ? term : total + term;
  }
  return total;
}

// ---------------------------------------------------------------------------
// Scores from the integer sums (CPU and CUDA)

AdmScorer::AdmScorer(int width, int height, const AdmParams& params)
    : width_(width), height_(height), params_(params) {
  for (int s = 0; s < kNumScales; ++s) {
    weight_[s][0] = weight_[s][1] = csf_weight(params.csf, s, false);
    weight_[s][2] = csf_weight(params.csf, s, true);
  }
}

AdmResult AdmScorer::score(const LevelSums& sums) const {
  AdmResult res;
  double num = 0, den = 0, aim_num = 0;
  int w = width_, h = height_;
  for (int scale = 0; scale < kNumScales; ++scale) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    float num_scale = 0.0f, den_scale = 0.0f, aim_scale = 0.0f;
    if (scale == 0 && params_.skip_scale0) {
      // libvmaf sets den to 1e-10 to avoid a division by zero.
      den_scale = 1e-10f;
    } else if (scale == 0) {
      const Region r = score_region(w, h);
      std::uint32_t cub_shift[3], row_shift;
      masked_level0_shifts(w, h, cub_shift, &row_shift);
      den_scale = den_level0_total(sums.den[0], (r.bottom - r.top) * (r.right - r.left));
      num_scale = masked_level0_total(sums.num[0], cub_shift, row_shift, r, params_.noise_weight);
      if (!params_.skip_aim)
        aim_scale = masked_level0_total(sums.aim[0], cub_shift, row_shift, r, 0.0);
    } else {
      den_scale = den_level123_total(sums.den[scale], w, h, scale);
      num_scale = masked_level123_total(sums.num[scale], w, h, scale, params_.noise_weight);
      if (!params_.skip_aim)
        aim_scale = masked_level123_total(sums.aim[scale], w, h, scale, 0.0);
    }
    num += num_scale;
    den += den_scale;
    aim_num += aim_scale;
    res.num_scale[scale] = num_scale;
    res.den_scale[scale] = den_scale;
  }
  const double limit = 1e-10 * (width_ * height_) / (1920.0 * 1080.0);
  num = num < limit ? 0 : num;
  den = den < limit ? 0 : den;
  if (den == 0.0) {
    res.adm2 = 1.0;
    res.aim = 0.0;
  } else {
    res.aim = aim_num / den;
    res.adm2 = num / den;
  }
  res.num = num;
  res.den = den;
  return res;
}

}  // namespace vqe::adm
