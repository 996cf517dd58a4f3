// SPDX-License-Identifier: BSD-2-Clause
// The reference passes of the integer ADM (Level::scalar): libvmaf's separate
// passes over full bands, with the scalar row kernels
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

template <typename S>
void IntegerAdm::dwt_level123(const S* ref_ll, const S* dis_ll, int src_stride, int w, int h,
                              int scale) {
  // Horizontal rounding shift per level (the vertical one is fixed per
  // input type: none for level 1's int16 input, 16 for levels 2-3).
  static constexpr int kShiftH[3] = {15, 16, 15};
  const int shift_h = kShiftH[scale - 1];
  std::int32_t* tmp[4];  // ref lo, ref hi, dis lo, dis hi
  for (int k = 0; k < 4; ++k) tmp[k] = tmp32_.data() + 1 + k * tmp_pitch1_;
  const S* srcs[2] = {ref_ll, dis_ll};
  Bands<std::int32_t>* dsts[2] = {&ref32_, &dis32_};
  const int half_w = (w + 1) / 2;
  const int half_h = (h + 1) / 2;
  for (int i = 0; i < half_h; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride1_;
    for (int p = 0; p < 2; ++p) {
      const S* rows[4];
      for (int k = 0; k < 4; ++k)
        rows[k] = srcs[p] + static_cast<std::size_t>(tap_y_[k][i]) * src_stride;
      std::int32_t* tlo = tmp[2 * p];
      std::int32_t* thi = tmp[2 * p + 1];
      if constexpr (sizeof(S) == 2) {
        kernels::dwt1_vertical(rows, w, tlo, thi);
      } else {
        kernels::dwt23_vertical(rows, w, tlo, thi);
      }
      mirror_row(tlo, w);
      mirror_row(thi, w);
      Bands<std::int32_t>& dst = *dsts[p];
      kernels::dwt123_horizontal(tlo, thi, half_w, shift_h, dst.a.data() + row,
                                 dst.v.data() + row, dst.h.data() + row, dst.d.data() + row);
    }
  }
}

// ---------------------------------------------------------------------------
// Decoupling

void IntegerAdm::decouple_level0(int w, int h) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * stride0_;
    const DecoupleRow<std::int16_t> row{
        ref16_.h.data() + at,      ref16_.v.data() + at,      ref16_.d.data() + at,
        dis16_.h.data() + at,      dis16_.v.data() + at,      dis16_.d.data() + at,
        restored16_.h.data() + at, restored16_.v.data() + at, restored16_.d.data() + at,
        additive16_.h.data() + at, additive16_.v.data() + at, additive16_.d.data() + at};
    kernels::decouple0_row(row, r.left, r.right, cos_1deg_sq_, params_.enhn_gain_limit);
  }
}

void IntegerAdm::decouple_level123(int w, int h) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t at = static_cast<std::size_t>(i) * stride1_;
    const DecoupleRow<std::int32_t> row{
        ref32_.h.data() + at,      ref32_.v.data() + at,      ref32_.d.data() + at,
        dis32_.h.data() + at,      dis32_.v.data() + at,      dis32_.d.data() + at,
        restored32_.h.data() + at, restored32_.v.data() + at, restored32_.d.data() + at,
        additive32_.h.data() + at, additive32_.v.data() + at, additive32_.d.data() + at};
    kernels::decouple123_row(row, r.left, r.right, cos_1deg_sq_, params_.enhn_gain_limit);
  }
}

// ---------------------------------------------------------------------------
// Denominator: Σ |csf(ref)|³ over the scored region, cube-rooted, plus noise

void IntegerAdm::csf_denominator_level0(int w, int h, std::uint64_t accum[3]) const {
  const Region r = score_region(w, h);
  const int area = (r.bottom - r.top) * (r.right - r.left);
  const std::int32_t shift = den_level0_shift(area);
  const std::uint64_t add = shift > 0 ? (std::uint64_t{1} << (shift - 1)) : 0;
  for (int theta = 0; theta < 3; ++theta) {
    const std::int16_t* band = ref16_.orient(theta);
    accum[theta] = 0;
    for (int i = r.top; i < r.bottom; ++i) {
      const std::int16_t* row = band + static_cast<std::size_t>(i) * stride0_;
      const std::uint64_t inner = kernels::den0_row(row, r.left, r.right);
      accum[theta] += (inner + add) >> shift;
    }
  }
}


void IntegerAdm::csf_denominator_level123(int w, int h, int scale,
                                          std::uint64_t accum[3]) const {
  const Region r = score_region(w, h);
  const Den123Shifts sh = den_level123_shifts(r, scale);
  const std::uint64_t add_accum = half_of_pow2(sh.accum);
  for (int theta = 0; theta < 3; ++theta) {
    const std::int32_t* band = ref32_.orient(theta);
    accum[theta] = 0;
    for (int i = r.top; i < r.bottom; ++i) {
      const std::int32_t* row = band + static_cast<std::size_t>(i) * stride1_;
      const std::uint64_t inner = kernels::den123_row(row, r.left, r.right, sh.sq, sh.cub);
      accum[theta] += (inner + add_accum) >> sh.accum;
    }
  }
}


// ---------------------------------------------------------------------------
// CSF of the masker and its masking terms
//
// libvmaf weights the masker's h, v and d bands (csf = weight·x in fixed
// point) and keeps |csf|/30 per band; the threshold of a position is the sum
// over the three bands of that term at its 8 neighbours plus |csf|/15 at the
// position itself. Integer addition without overflow is exact in any order
// (and wrap-around addition is modular in any order), so the three bands'
// terms are summed here once per position: mask_sum = Σθ |csf_θ|/30 and
// centre_sum = Σθ |csf_θ|/15. The rounding of each term is libvmaf's.

void IntegerAdm::csf_level0(const Bands<std::int16_t>& src, int w, int h) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride0_;
    const std::int16_t *bh = src.h.data() + row, *bv = src.v.data() + row,
                       *bd = src.d.data() + row;
    std::int32_t* mask = mask_sum0_.data() + row;
    std::int32_t* centre = centre_sum0_.data() + row;
    kernels::csf0_row(bh, bv, bd, r.left, r.right, fixed_.level0, mask, centre);
  }
}

void IntegerAdm::csf_level123(const Bands<std::int32_t>& src, int w, int h, int scale) {
  const Region r = work_region(w, h);
  for (int i = r.top; i < r.bottom; ++i) {
    const std::size_t row = static_cast<std::size_t>(i) * stride1_;
    const std::int32_t *bh = src.h.data() + row, *bv = src.v.data() + row,
                       *bd = src.d.data() + row;
    std::int32_t* mask = mask_sum1_.data() + row;
    std::int32_t* centre = centre_sum1_.data() + row;
    kernels::csf123_row(bh, bv, bd, r.left, r.right, fixed_.level123[scale], mask, centre);
  }
}

// ---------------------------------------------------------------------------
// Contrast masking: Σ max(|weight·target| − threshold, 0)³ over the scored
// region, rows rounded and summed, then scaled to float and cube-rooted.

void IntegerAdm::masked_sum_level0(const Bands<std::int16_t>& target, int w, int h,
                                   std::int64_t accum[3]) const {
  // Cubes are shifted by a width-dependent amount so that rows fit 64 bits.
  std::uint32_t cub_shift[3], row_shift;
  masked_level0_shifts(w, h, cub_shift, &row_shift);
  const std::int64_t row_add = half_of_pow2(row_shift);
  const Region r = score_region(w, h);
  const std::size_t st = static_cast<std::size_t>(stride0_);

  for (int theta = 0; theta < 3; ++theta) accum[theta] = 0;
  for (int i = r.top; i < r.bottom; ++i) {
    const Neighbours ny = neighbours(i, h);
    const MaskRow<std::int16_t> row{
        {mask_sum0_.data() + ny.before * st, mask_sum0_.data() + ny.centre * st,
         mask_sum0_.data() + ny.after * st},
        centre_sum0_.data() + i * st,
        {target.h.data() + i * st, target.v.data() + i * st, target.d.data() + i * st},
        w};
    std::int64_t inner[3] = {0, 0, 0};
    kernels::masked0_row(row, r.left, r.right, fixed_.level0, cub_shift, inner);
    for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + row_add) >> row_shift;
  }
}

void IntegerAdm::masked_sum_level123(const Bands<std::int32_t>& target, int w, int h,
                                     int scale, std::int64_t accum[3]) const {
  const std::uint32_t cub_shift = ceil_log2(w);
  const std::uint32_t row_shift = ceil_log2(h);
  const std::int64_t row_add = half_of_pow2(row_shift);
  const Region r = score_region(w, h);
  const std::size_t st = static_cast<std::size_t>(stride1_);

  for (int theta = 0; theta < 3; ++theta) accum[theta] = 0;
  for (int i = r.top; i < r.bottom; ++i) {
    const Neighbours ny = neighbours(i, h);
    const MaskRow<std::int32_t> row{
        {mask_sum1_.data() + ny.before * st, mask_sum1_.data() + ny.centre * st,
         mask_sum1_.data() + ny.after * st},
        centre_sum1_.data() + i * st,
        {target.h.data() + i * st, target.v.data() + i * st, target.d.data() + i * st},
        w};
    std::int64_t inner[3] = {0, 0, 0};
    kernels::masked123_row(row, r.left, r.right, fixed_.level123[scale], cub_shift, inner);
    for (int theta = 0; theta < 3; ++theta) accum[theta] += (inner[theta] + row_add) >> row_shift;
  }
}


template void IntegerAdm::dwt_level123<std::int16_t>(const std::int16_t*, const std::int16_t*,
                                                     int, int, int, int);
template void IntegerAdm::dwt_level123<std::int32_t>(const std::int32_t*, const std::int32_t*,
                                                     int, int, int, int);

}  // namespace vqe::adm
