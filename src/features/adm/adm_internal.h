// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Internal helpers of the integer ADM shared by its files (row
/// kernels, reference passes, streamed passes, scorer): libvmaf's filter
/// constants, border regions, rounding shifts (libvmaf/src/feature/
/// integer_adm.c).

#include <math.h>  // ceil, log2: the C functions libvmaf calls

#include <algorithm>
#include <array>
#include <cstdint>

namespace vqe::adm::detail {

// db2 analysis filters in Q15 (low-pass sums to 46342 ≈ √2·2^15; high-pass
// sums to 0), tap order 2i-1, 2i, 2i+1, 2i+2.
inline constexpr std::int32_t kLo[4] = {15826, 27411, 7345, -4240};
inline constexpr std::int32_t kHi[4] = {-4240, -7345, 27411, -15826};
inline constexpr std::int32_t kLoSum = 46342;

inline constexpr double kBorderFactor = 0.1;  // share of each side left out of the score

/// Q30 reciprocals 2^30 / i for i in -32768..32768 at index i + 32768 (0 at
/// i = 0, never used), libvmaf's div_lookup (adm_row_kernels.cpp).
const std::array<std::int32_t, 65537>& reciprocal_table();

/// |x| with the wrap-around of the C `abs` on x86 (|INT32_MIN| stays
/// INT32_MIN instead of being undefined).
inline std::int32_t wrap_abs(std::int32_t x) {
  return x < 0 ? static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(x)) : x;
}

/// (uint32_t)pow(2, shift - 1) with libvmaf's unsigned shift: 0 when shift
/// is 0 (pow(2, 2^32-1) is inf, which x86 converts to 0).
inline std::uint32_t half_of_pow2(std::uint32_t shift) {
  return shift == 0 ? 0u : (1u << (shift - 1));
}

/// (uint32_t)ceil(log2(n)) in double, as libvmaf writes it.
inline std::uint32_t ceil_log2(int n) {
  return static_cast<std::uint32_t>(ceil(log2(static_cast<double>(n))));
}

/// The scored region of a band: libvmaf leaves (int)(n·0.1 − 0.5) samples
/// out on each side.
struct Region {
  int top, bottom, left, right;
};

inline Region score_region(int w, int h) {
  const int left = static_cast<int>(w * kBorderFactor - 0.5);
  const int top = static_cast<int>(h * kBorderFactor - 0.5);
  return {top, h - top, left, w - left};
}

/// The region where decoupling and CSF are evaluated: the scored region
/// grown by the masking filter's reach (one sample before, two after, as
/// libvmaf computes it), clipped to the band.
inline Region work_region(int w, int h) {
  int left = static_cast<int>(w * kBorderFactor - 0.5 - 1);
  int top = static_cast<int>(h * kBorderFactor - 0.5 - 1);
  int right = w - left + 2;
  int bottom = h - top + 2;
  left = std::max(left, 0);
  top = std::max(top, 0);
  right = std::min(right, w);
  bottom = std::min(bottom, h);
  return {top, bottom, left, right};
}

/// Rows (or columns) of the 3×3 masking neighbourhood of index i in 0..n-1:
/// before the first sample the second is used (1 for -1), after the last the
/// last is repeated (n-1 for n), as libvmaf's ADM_CM_THRESH_* macros do.
struct Neighbours {
  int before, centre, after;
};
inline Neighbours neighbours(int i, int n) {
  return {i == 0 ? 1 : i - 1, i, i == n - 1 ? n - 1 : i + 1};
}

/// Level 0's cube-shift per orientation and row shift for band size w x h.
inline void masked_level0_shifts(int w, int h, std::uint32_t cub_shift[3], std::uint32_t* row_shift) {
  const double log2w = log2(static_cast<double>(w));
  cub_shift[0] = static_cast<std::uint32_t>(ceil(log2w - 4));
  cub_shift[1] = static_cast<std::uint32_t>(ceil(log2w - 4));
  cub_shift[2] = static_cast<std::uint32_t>(ceil(log2w - 3));
  *row_shift = ceil_log2(h);
}

/// Levels 1-3's denominator shifts: squaring, cubing (row), accumulation.
struct Den123Shifts {
  std::uint32_t sq, cub, accum;
};
inline Den123Shifts den_level123_shifts(const Region& r, int scale) {
  static constexpr std::uint32_t kShiftSq[3] = {31, 30, 31};
  return {kShiftSq[scale - 1], ceil_log2(r.right - r.left), ceil_log2(r.bottom - r.top)};
}

/// Level 0's denominator row-sum shift (rows are scaled down so the total
/// fits 64 bits).
inline std::int32_t den_level0_shift(int area) {
  const auto shift = static_cast<std::int32_t>(ceil(log2(area) - 20));
  return shift > 0 ? shift : 0;
}

/// Stores the horizontal pass's mirrored taps around a row of n samples:
/// index -1 reads 1, n reads n-1, n+1 reads n-2.
template <typename T>
inline void mirror_row(T* row, int n) {
  row[-1] = row[1];
  row[n] = row[n - 1];
  row[n + 1] = row[n - 2];
}

}  // namespace vqe::adm::detail
