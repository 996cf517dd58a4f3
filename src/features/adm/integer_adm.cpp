// SPDX-License-Identifier: BSD-2-Clause
// The integer ADM (see integer_adm.h), after libvmaf's
// libvmaf/src/feature/integer_adm.c (plain C path): set-up, the level-0 DWT
// shared by both pass structures, and one frame (compute). The passes are in
// adm_reference.cpp (scalar) and adm_streamed.cpp (SIMD levels), the row
// kernels in adm_row_kernels.cpp, the scores in adm_scorer.cpp.

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

void check_format(int width, int height, int bit_depth, const AdmParams& params) {
  if (width < kMinSize || height < kMinSize)
    throw Error(fmt::format(
        "adm: frame {}x{} is too small: width and height must be at least {} (the 4-level "
        "DWT needs 5 samples per side at its coarsest level; libvmaf 3.2.0 reads outside "
        "its buffers below that)",
        width, height, kMinSize));
  if (bit_depth != 8 && bit_depth != 10 && bit_depth != 12 && bit_depth != 16)
    throw Error(fmt::format("adm: unsupported bit depth {} (8, 10, 12 or 16)", bit_depth));
  const CsfParams& c = params.csf;
  if (c.norm_view_dist * c.ref_display_height < kMinViewDistTimesHeight)
    throw Error(fmt::format(
        "adm: adm_norm_view_dist x adm_ref_display_height = {:g} x {} is below {:g}: the "
        "fixed-point ADM cannot represent finer angular resolutions (libvmaf refuses them too)",
        c.norm_view_dist, c.ref_display_height, kMinViewDistTimesHeight));
  if (!blend_table_available(c))
    throw Error(fmt::format(
        "adm: adm_csf_mode={} has no CSF table for adm_ref_display_height={} at "
        "adm_norm_view_dist={:g} (tables exist for 480, 720, 1080, 2160 lines at 3 or 5 "
        "heights, and 2160 lines at 1.5)",
        static_cast<int>(c.mode), c.ref_display_height, c.norm_view_dist));
}

IntegerAdm::IntegerAdm(int width, int height, int bit_depth, const AdmParams& params,
                       simd::Level level)
    : width_(width),
      height_(height),
      bit_depth_(bit_depth),
      params_(params),
      dsp_(adm_dsp(level)),
      streamed_(level != simd::Level::scalar) {
  check_format(width, height, bit_depth, params);
  const CsfParams& c = params.csf;
  fixed_ = fixed_weights(c);
  cos_1deg_sq_ = static_cast<float>(cos(1.0 * 3.14159265358979323846 / 180.0) *
                                    cos(1.0 * 3.14159265358979323846 / 180.0));

  // Level 0's bands are ceil(W/2) x ceil(H/2) (16 bits); levels 1-3 fit in
  // the size of level 1's, a quarter of that (32 bits).
  stride0_ = (width + 1) / 2;
  const int rows0 = (height + 1) / 2;
  stride1_ = (stride0_ + 1) / 2;
  const int rows1 = (rows0 + 1) / 2;
  band0_ = static_cast<std::size_t>(stride0_) * rows0;
  band1_ = static_cast<std::size_t>(stride1_) * rows1;
  // The LL bands feed the next level on every path; the other full bands
  // only the scalar passes (allocate_full_bands()).
  assign_zeros(ref16_.a, band0_);
  assign_zeros(dis16_.a, band0_);
  assign_zeros(ref32_.a, band1_);
  assign_zeros(dis32_.a, band1_);
  assign_zeros(ll_ref_, band1_);
  assign_zeros(ll_dis_, band1_);
  scratch_.resize(1);
  // Vertical-pass rows with room for the mirrored taps (1 before, 2 after)
  // and slack.
  tmp_pitch0_ = width + kRowPad;
  tmp_pitch1_ = stride0_ + kRowPad;
  tmp16_.assign(2 * static_cast<std::size_t>(tmp_pitch0_), 0);
  tmp32_.assign(4 * static_cast<std::size_t>(tmp_pitch1_), 0);
  for (int k = 0; k < 4; ++k) {
    tap_y_[k].assign(rows0, 0);
  }
  reciprocal_table();  // build it outside the per-frame path
  scorer_.emplace(width, height, params);
}


void IntegerAdm::allocate_full_bands() {
  if (!mask_sum0_.empty()) return;
  for (Bands<std::int16_t>* b : {&ref16_, &dis16_, &restored16_, &additive16_}) {
    assign_zeros(b->h, band0_);
    assign_zeros(b->v, band0_);
    assign_zeros(b->d, band0_);
  }
  for (Bands<std::int32_t>* b : {&ref32_, &dis32_, &restored32_, &additive32_}) {
    assign_zeros(b->h, band1_);
    assign_zeros(b->v, band1_);
    assign_zeros(b->d, band1_);
  }
  assign_zeros(mask_sum0_, band0_);
  assign_zeros(centre_sum0_, band0_);
  assign_zeros(mask_sum1_, band1_);
  assign_zeros(centre_sum1_, band1_);
}

IntegerAdm::StreamSums IntegerAdm::add_tiles(const StreamSums* tiles, unsigned count) {
  StreamSums total;
  for (unsigned t = 0; t < count; ++t)
    for (int theta = 0; theta < 3; ++theta) {
      total.den[theta] += tiles[t].den[theta];
      for (int p = 0; p < 2; ++p) total.masked[p][theta] += tiles[t].masked[p][theta];
    }
  return total;
}

// ---------------------------------------------------------------------------
// DWT

void IntegerAdm::make_tap_indices(int h) {
  // Output row i reads rows 2i-1 .. 2i+2. Row -1 reads 1; rows n and n+1
  // read n-1 and n-2 (2n - t - 1). With n >= 5 no other tap leaves 0..n-1.
  // (Columns use the same rule through mirror_row.)
  auto fill = [](std::array<std::vector<int>, 4>& taps, int n) {
    const int half = (n + 1) / 2;
    for (int i = 0; i < half; ++i) {
      for (int k = 0; k < 4; ++k) {
        int t = 2 * i - 1 + k;
        if (t < 0) t = -t;
        if (t >= n) t = 2 * n - t - 1;
        taps[k][i] = t;
      }
    }
  };
  fill(tap_y_, h);
}

template <typename T>
void IntegerAdm::dwt_level0(const Plane& src, Bands<std::int16_t>& dst, int w, int h) {
  std::int16_t* tlo = tmp16_.data() + 1;
  std::int16_t* thi = tlo + tmp_pitch0_;
  const int half_w = (w + 1) / 2;
  const int half_h = (h + 1) / 2;
  for (int i = 0; i < half_h; ++i) {
    const T* rows[4] = {src.row<T>(tap_y_[0][i]), src.row<T>(tap_y_[1][i]),
                        src.row<T>(tap_y_[2][i]), src.row<T>(tap_y_[3][i])};
    if constexpr (sizeof(T) == 1)
      dsp_.dwt0_vertical_u8(rows, w, bit_depth_, tlo, thi);
    else
      dsp_.dwt0_vertical_u16(rows, w, bit_depth_, tlo, thi);
    mirror_row(tlo, w);
    mirror_row(thi, w);
    const std::size_t row = static_cast<std::size_t>(i) * stride0_;
    dsp_.dwt0_horizontal(tlo, thi, half_w, dst.a.data() + row, dst.v.data() + row,
                         dst.h.data() + row, dst.d.data() + row);
  }
}

// ---------------------------------------------------------------------------
// One frame

AdmResult IntegerAdm::compute(const Plane& ref, const Plane& dis, TileRunner* tiles) {
  TileRunner& runner = tiles ? *tiles : serial_tile_runner();
  if (scratch_.size() < runner.width()) scratch_.resize(runner.width());
  if (!streamed_ || params_.skip_scale0) allocate_full_bands();
  int w = width_, h = height_;
  LevelSums sums;
  for (int scale = 0; scale < kNumScales; ++scale) {
    make_tap_indices(h);
    if (scale == 0 && streamed_ && !params_.skip_scale0) {
      if (bit_depth_ == 8)
        level0_streamed<std::uint8_t>(ref, dis, sums, runner);
      else
        level0_streamed<std::uint16_t>(ref, dis, sums, runner);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
    } else if (scale == 0) {
      if (bit_depth_ == 8) {
        dwt_level0<std::uint8_t>(ref, ref16_, w, h);
        dwt_level0<std::uint8_t>(dis, dis16_, w, h);
      } else {
        dwt_level0<std::uint16_t>(ref, ref16_, w, h);
        dwt_level0<std::uint16_t>(dis, dis16_, w, h);
      }
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      // With adm_skip_scale0, level 0 only feeds its LL band on.
      if (!params_.skip_scale0) {
        decouple_level0(w, h);
        csf_denominator_level0(w, h, sums.den[0]);
        csf_level0(additive16_, w, h);
        masked_sum_level0(restored16_, w, h, sums.num[0]);
        if (!params_.skip_aim) {
          csf_level0(restored16_, w, h);
          masked_sum_level0(additive16_, w, h, sums.aim[0]);
        }
      }
    } else if (streamed_) {
      if (scale == 1)
        level123_streamed(ref16_.a.data(), dis16_.a.data(), stride0_, w, h, scale, sums, runner);
      else
        level123_streamed(ll_ref_.data(), ll_dis_.data(), stride1_, w, h, scale, sums, runner);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      std::swap(ll_ref_, ref32_.a);
      std::swap(ll_dis_, dis32_.a);
    } else {
      // Level 1 reads level 0's 16-bit LL band; later levels the 32-bit one.
      if (scale == 1)
        dwt_level123(ref16_.a.data(), dis16_.a.data(), stride0_, w, h, scale);
      else
        dwt_level123(ll_ref_.data(), ll_dis_.data(), stride1_, w, h, scale);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      decouple_level123(w, h);
      csf_denominator_level123(w, h, scale, sums.den[scale]);
      csf_level123(additive32_, w, h, scale);
      masked_sum_level123(restored32_, w, h, scale, sums.num[scale]);
      if (!params_.skip_aim) {
        csf_level123(restored32_, w, h, scale);
        masked_sum_level123(additive32_, w, h, scale, sums.aim[scale]);
      }
      std::swap(ll_ref_, ref32_.a);
      std::swap(ll_dis_, dis32_.a);
    }
  }
  return scorer_->score(sums);
}

// ---------------------------------------------------------------------------
// One frame in two parts (a ladder's shared reference work)

void IntegerAdm::compute_reference(const Plane& ref, ReferenceFrame& frame, TileRunner* tiles) {
  if (!splits_reference())
    throw Error("adm: the reference part is computed apart only on the SIMD levels' streamed "
                "path with level 0 scored");
  frame.width = width_;
  frame.height = height_;
  frame.bit_depth = bit_depth_;
  LevelSums unused;
  streamed_part(ref, unused, tiles, &frame, nullptr);
}

AdmResult IntegerAdm::compute_pair(const ReferenceFrame& frame, const Plane& dis,
                                   TileRunner* tiles) {
  if (!splits_reference())
    throw Error("adm: the pair part is computed apart only on the SIMD levels' streamed path "
                "with level 0 scored");
  if (frame.width != width_ || frame.height != height_ || frame.bit_depth != bit_depth_)
    throw Error(fmt::format("adm: the shared reference part is of {}x{} {}-bit, not {}x{} {}-bit",
                            frame.width, frame.height, frame.bit_depth, width_, height_,
                            bit_depth_));
  LevelSums sums;
  streamed_part(dis, sums, tiles, nullptr, &frame);
  return scorer_->score(sums);
}

void IntegerAdm::streamed_part(const Plane& plane, LevelSums& sums, TileRunner* tiles,
                               ReferenceFrame* out, const ReferenceFrame* in) {
  TileRunner& runner = tiles ? *tiles : serial_tile_runner();
  if (scratch_.size() < runner.width()) scratch_.resize(runner.width());
  // The side computed here: its LL bands feed its next level.
  const bool ref_side = out != nullptr;
  const std::int16_t* ll0 = (ref_side ? ref16_.a : dis16_.a).data();
  LargeVector<std::int32_t>& ll = ref_side ? ll_ref_ : ll_dis_;
  LargeVector<std::int32_t>& ll_next = ref_side ? ref32_.a : dis32_.a;
  int w = width_, h = height_;
  for (int scale = 0; scale < kNumScales; ++scale) {
    make_tap_indices(h);
    if (scale == 0) {
      if (bit_depth_ == 8)
        level0_streamed<std::uint8_t>(plane, plane, sums, runner, out, in);
      else
        level0_streamed<std::uint16_t>(plane, plane, sums, runner, out, in);
    } else {
      if (scale == 1)
        level123_streamed<std::int16_t>(ref_side ? ll0 : nullptr, ref_side ? nullptr : ll0,
                                        stride0_, w, h, scale, sums, runner, out, in);
      else
        level123_streamed<std::int32_t>(ref_side ? ll.data() : nullptr,
                                        ref_side ? nullptr : ll.data(), stride1_, w, h, scale,
                                        sums, runner, out, in);
      std::swap(ll, ll_next);
    }
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
}

}  // namespace vqe::adm
