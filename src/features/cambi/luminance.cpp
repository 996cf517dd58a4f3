// SPDX-License-Identifier: BSD-2-Clause
#include "features/cambi/luminance.h"

#include <algorithm>
#include <cmath>

namespace vqe::cambi {

LumaRange limited_luma_range(int bit_depth) {
  const int scale = 1 << (bit_depth - 8);
  return {16 * scale, 235 * scale};
}

LumaRange full_luma_range(int bit_depth) { return {0, (1 << bit_depth) - 1}; }

double bt1886_eotf(double v) {
  // Constants of BT.1886 Annex 1 for a display with white 300 and black 0.01
  // cd/m². Evaluated exactly as libvmaf does (same pow calls, same order).
  constexpr double kGamma = 2.4;
  constexpr double kWhite = 300.0;
  constexpr double kBlack = 0.01;
  const double white_root = std::pow(kWhite, 1.0 / kGamma);
  const double black_root = std::pow(kBlack, 1.0 / kGamma);
  const double a = std::pow(white_root - black_root, kGamma);
  const double b = black_root / (white_root - black_root);
  return a * std::pow(std::max(v + b, 0.0), kGamma);
}

double pq_eotf(double v) {
  // SMPTE ST 2084 constants.
  constexpr double m1 = 0.1593017578125;
  constexpr double m2 = 78.84375;
  constexpr double c1 = 0.8359375;
  constexpr double c2 = 18.8515625;
  constexpr double c3 = 18.6875;
  const double num = std::max(std::pow(v, 1.0 / m2) - c1, 0.0);
  const double den = c2 - c3 * std::pow(v, 1.0 / m2);
  return 10000 * std::pow(num / den, 1.0 / m1);
}

Eotf eotf_by_name(const std::string& name) {
  if (name == "bt1886") return &bt1886_eotf;
  if (name == "pq") return &pq_eotf;
  return nullptr;
}

double luminance(int sample, LumaRange range, Eotf eotf) {
  const int clipped = std::clamp(sample, range.foot, range.head);
  const double normalised =
      static_cast<double>(clipped - range.foot) / (range.head - range.foot);
  return eotf(normalised);
}

}  // namespace vqe::cambi
