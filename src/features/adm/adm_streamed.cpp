// SPDX-License-Identifier: BSD-2-Clause
// The streamed passes of the integer ADM (SIMD levels): each DWT level's
// decoupling, CSF, masking and denominator in one pass over rows, in row
// tiles on the job's threads, with the level's row kernels (AdmDsp); the
// integer sums equal the reference passes' (adm_reference.cpp).

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

IntegerAdm::StreamScratch& IntegerAdm::scratch(unsigned slot) {
  if (slot >= scratch_.size()) throw Error("adm: tile slot out of range");
  std::unique_ptr<StreamScratch>& sc = scratch_[slot];
  if (!sc) {
    // First use of this slot (the first frame): every row buffer of one
    // streamed pass.
    sc = std::make_unique<StreamScratch>();
    const auto st0 = static_cast<std::size_t>(stride0_);
    const auto st1 = static_cast<std::size_t>(stride1_);
    sc->tmp16.assign(2 * static_cast<std::size_t>(tmp_pitch0_), 0);
    sc->tmp32.assign(4 * static_cast<std::size_t>(tmp_pitch1_), 0);
    sc->ring16.assign(36 * st0, 0);
    sc->ring32.assign(36 * st1, 0);
    sc->ring_mask.assign(6 * st0, 0);
    sc->ring_centre.assign(6 * st0, 0);
    sc->ll16.assign(2 * st0, 0);
    sc->ll32.assign(2 * st1, 0);
  }
  return *sc;
}

template <typename Fn>
IntegerAdm::StreamSums IntegerAdm::sum_tiles(int w, int h, TileRunner& runner, const Fn& fn) {
  const unsigned count = std::min(kMaxTiles, runner.tile_count(h, kMinTileRows, w));
  std::array<StreamSums, kMaxTiles> partial;
  runner.run(count, [&](unsigned tile, unsigned slot) {
    partial[tile] = StreamSums{};
    fn(scratch(slot), partial[tile], tile_rows(tile, count, h));
  });
  return add_tiles(partial.data(), count);
}

template <typename B, typename Ops>
IntegerAdm::StreamSums IntegerAdm::stream_level(int w, int h, std::size_t st, int passes,
                                                B* ref_ll, B* dis_ll, const Ops& ops,
                                                TileRunner& runner,
                                                const ReferenceFrame::Level* shared) {
  // One level of the SIMD path as one pass over the band rows, so that every
  // band row is used while in cache: row i's DWT (the LL rows go to the full
  // LL bands for the next level, the detail rows to one-row buffers), its
  // decoupling and masker terms (into 3-row rings) and its denominator sums;
  // then the masking sums of row i-1, whose masker rows i-2..i are ready.
  // Each row's values and roundings are those of the separate scalar passes
  // (dwt_level*, decouple_level*, csf_denominator_level*, csf_level*,
  // masked_sum_level*); the row sums are integers, so their order does not
  // matter.
  //
  // Row tiles: a tile owns band rows [A, B) (their LL rows, denominator and
  // masking sums) and also runs rows A-1 and B, whose masker terms its
  // masking rows need, with their LL rows going to scratch.
  const Region r = score_region(w, h);
  const Region wr = work_region(w, h);
  return sum_tiles(w, h, runner, [&](StreamScratch& sc, StreamSums& sums, const TileRows own) {
    B* ring_base;
    B* ll_scratch;
    if constexpr (sizeof(B) == 2) {
      ring_base = sc.ring16.data();
      ll_scratch = sc.ll16.data();
    } else {
      ring_base = sc.ring32.data();
      ll_scratch = sc.ll32.data();
    }
    // Ring rows: [0..2] ref h, v, d; [3..5] dis h, v, d (one row each); then
    // restored h, v, d and additive h, v, d, 3 rows each.
    auto ring = [&](int band, int ring_slot) { return ring_base + (band * 3 + ring_slot) * st; };
    // Masking sums of score row m from the rings (its rows m-1..m+1 are done).
    auto masked_row = [&](int m) {
      const Neighbours ny = neighbours(m, h);
      for (int p = 0; p < passes; ++p) {
        auto mask = [&](int row) {
          return sc.ring_mask.data() + (static_cast<std::size_t>(p) * 3 + row % 3) * st;
        };
        const int target_band = p == 0 ? 6 : 9;  // restored, additive
        const MaskRow<B> row{
            {mask(ny.before), mask(ny.centre), mask(ny.after)},
            sc.ring_centre.data() + (static_cast<std::size_t>(p) * 3 + m % 3) * st,
            {ring(target_band, m % 3), ring(target_band + 1, m % 3),
             ring(target_band + 2, m % 3)},
            w};
        std::int64_t inner[3] = {0, 0, 0};
        ops.masked(row, r.left, r.right, inner);
        for (int theta = 0; theta < 3; ++theta)
          sums.masked[p][theta] += (inner[theta] + ops.row_add) >> ops.row_shift;
      }
    };
    int next_masked = std::max(own.begin, r.top);
    const int masked_end = std::min(own.end, r.bottom);
    const int last = std::min(h, own.end + 1);
    for (int i = std::max(0, own.begin - 1); i < last; ++i) {
      const bool owned = i >= own.begin && i < own.end;
      const std::size_t at = static_cast<std::size_t>(i) * st;
      // The reference's h, v, d rows: computed here, or the shared ones.
      const B* ref_rows[3];
      if (shared) {
        const std::size_t shared_at = static_cast<std::size_t>(i) * shared->stride;
        for (int theta = 0; theta < 3; ++theta)
          ref_rows[theta] = shared->band<B>(theta) + shared_at;
      } else {
        ops.dwt(sc, true, i, owned ? ref_ll + at : ll_scratch, ring(1, 0), ring(0, 0),
                ring(2, 0));
        for (int theta = 0; theta < 3; ++theta) ref_rows[theta] = ring(theta, 0);
      }
      ops.dwt(sc, false, i, owned ? dis_ll + at : ll_scratch + st, ring(4, 0), ring(3, 0),
              ring(5, 0));
      if (i >= wr.top && i < wr.bottom) {
        const int rs = i % 3;
        const DecoupleRow<B> row{ref_rows[0], ref_rows[1], ref_rows[2], ring(3, 0),
                                 ring(4, 0),  ring(5, 0),  ring(6, rs), ring(7, rs),
                                 ring(8, rs), ring(9, rs), ring(10, rs), ring(11, rs)};
        ops.decouple(row, wr.left, wr.right);
        for (int p = 0; p < passes; ++p) {
          const int masker_band = p == 0 ? 9 : 6;  // additive, restored
          const std::size_t ring_at = (static_cast<std::size_t>(p) * 3 + rs) * st;
          ops.csf(ring(masker_band, rs), ring(masker_band + 1, rs), ring(masker_band + 2, rs),
                  wr.left, wr.right, sc.ring_mask.data() + ring_at,
                  sc.ring_centre.data() + ring_at);
        }
      }
      if (!shared && owned && i >= r.top && i < r.bottom)
        for (int theta = 0; theta < 3; ++theta)
          sums.den[theta] += ops.den(ref_rows[theta], r.left, r.right);
      // Row m needs rows up to m+1 (h-1 at the last row).
      while (next_masked < masked_end && neighbours(next_masked, h).after <= i)
        masked_row(next_masked++);
    }
  });
}

template <typename B, typename Ops>
void IntegerAdm::stream_reference(int w, int h, std::size_t st, B* ref_ll, const Ops& ops,
                                  TileRunner& runner, ReferenceFrame::Level& out) {
  // stream_level's reference rows alone: no halo rows (a DWT row depends on
  // the input rows only), every row kept in out's bands.
  out.width = w;
  out.height = h;
  out.stride = static_cast<int>(st);
  const std::size_t n = st * static_cast<std::size_t>(h);
  for (int theta = 0; theta < 3; ++theta) {
    // Every sample the pair part reads is written below: a recycled buffer
    // of the size is kept as it is.
    if constexpr (sizeof(B) == 2) {
      out.band16[theta].resize(n);
      out.band32[theta].clear();
    } else {
      out.band32[theta].resize(n);
      out.band16[theta].clear();
    }
  }
  const Region r = score_region(w, h);
  const auto tile_pass = [&](StreamScratch& sc, StreamSums& sums, const TileRows own) {
    for (int i = own.begin; i < own.end; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * st;
      B* rows[3];
      for (int theta = 0; theta < 3; ++theta) rows[theta] = out.band<B>(theta) + at;
      ops.dwt(sc, true, i, ref_ll + at, rows[1], rows[0], rows[2]);
      if (i >= r.top && i < r.bottom)
        for (int theta = 0; theta < 3; ++theta)
          sums.den[theta] += ops.den(rows[theta], r.left, r.right);
    }
  };
  const StreamSums total = sum_tiles(w, h, runner, tile_pass);
  for (int theta = 0; theta < 3; ++theta) out.den[theta] = total.den[theta];
}

template <typename T>
void IntegerAdm::level0_streamed(const Plane& ref, const Plane& dis, LevelSums& sums,
                                 TileRunner& runner, ReferenceFrame* out,
                                 const ReferenceFrame* in) {
  // Level 0 of the SIMD path (scale 0 not skipped): stream_level with the
  // 16-bit kernels.
  const int w0 = width_;
  const int w = (w0 + 1) / 2, h = (height_ + 1) / 2;
  const Region r = score_region(w, h);
  struct Ops {
    const IntegerAdm& adm;
    const Plane& ref;
    const Plane& dis;
    int w0, w;
    std::uint32_t cub_shift[3];
    std::uint32_t row_shift;
    std::int64_t row_add;
    std::int32_t den_shift;
    std::uint64_t den_add;
    void dwt(StreamScratch& sc, bool is_ref, int i, std::int16_t* a, std::int16_t* v,
             std::int16_t* hb, std::int16_t* d) const {
      const Plane& src = is_ref ? ref : dis;
      std::int16_t* tlo = sc.tmp16.data() + 1;
      std::int16_t* thi = tlo + adm.tmp_pitch0_;
      const T* rows[4] = {src.row<T>(adm.tap_y_[0][i]), src.row<T>(adm.tap_y_[1][i]),
                          src.row<T>(adm.tap_y_[2][i]), src.row<T>(adm.tap_y_[3][i])};
      if constexpr (sizeof(T) == 1)
        adm.dsp_.dwt0_vertical_u8(rows, w0, adm.bit_depth_, tlo, thi);
      else
        adm.dsp_.dwt0_vertical_u16(rows, w0, adm.bit_depth_, tlo, thi);
      mirror_row(tlo, w0);
      mirror_row(thi, w0);
      adm.dsp_.dwt0_horizontal(tlo, thi, w, a, v, hb, d);
    }
    void decouple(const DecoupleRow<std::int16_t>& row, int begin, int end) const {
      adm.dsp_.decouple0_row(row, begin, end, adm.cos_1deg_sq_, adm.params_.enhn_gain_limit);
    }
    void csf(const std::int16_t* h, const std::int16_t* v, const std::int16_t* d, int begin,
             int end, std::int32_t* mask, std::int32_t* centre) const {
      adm.dsp_.csf0_row(h, v, d, begin, end, adm.fixed_.level0, mask, centre);
    }
    void masked(const MaskRow<std::int16_t>& row, int begin, int end,
                std::int64_t inner[3]) const {
      adm.dsp_.masked0_row(row, begin, end, adm.fixed_.level0, cub_shift, inner);
    }
    std::uint64_t den(const std::int16_t* row, int begin, int end) const {
      return (adm.dsp_.den0_row(row, begin, end) + den_add) >> den_shift;
    }
  };
  Ops ops{*this, ref, dis, w0, w, {}, 0, 0, 0, 0};
  masked_level0_shifts(w, h, ops.cub_shift, &ops.row_shift);
  ops.row_add = half_of_pow2(ops.row_shift);
  const int den_area = (r.bottom - r.top) * (r.right - r.left);
  ops.den_shift = den_level0_shift(den_area);
  ops.den_add = ops.den_shift > 0 ? (std::uint64_t{1} << (ops.den_shift - 1)) : 0;

  if (out) {
    stream_reference(w, h, static_cast<std::size_t>(stride0_), ref16_.a.data(), ops, runner,
                     out->level[0]);
    return;
  }
  const ReferenceFrame::Level* shared = in ? &in->level[0] : nullptr;
  StreamSums total =
      stream_level(w, h, static_cast<std::size_t>(stride0_), params_.skip_aim ? 1 : 2,
                   ref16_.a.data(), dis16_.a.data(), ops, runner, shared);
  if (shared) std::copy(shared->den, shared->den + 3, total.den);
  total.store(sums, 0);
}

template <typename S>
void IntegerAdm::level123_streamed(const S* ref_ll, const S* dis_ll, int src_stride, int w_in,
                                   int h_in, int scale, LevelSums& sums, TileRunner& runner,
                                   ReferenceFrame* out, const ReferenceFrame* in) {
  // Levels 1-3 of the SIMD path: stream_level with the 32-bit kernels, on
  // the previous LL bands (int16 at level 1, int32 after).
  static constexpr int kShiftH[3] = {15, 16, 15};
  const int w = (w_in + 1) / 2, h = (h_in + 1) / 2;
  const Region r = score_region(w, h);
  const Den123Shifts dsh = den_level123_shifts(r, scale);
  struct Ops {
    const IntegerAdm& adm;
    const S* ref_ll;
    const S* dis_ll;
    int src_stride, w_in, w, shift_h;
    const std::uint32_t* fixed;
    std::uint32_t cub_shift;
    std::uint32_t row_shift;
    std::int64_t row_add;
    Den123Shifts dsh;
    std::uint64_t den_add;
    void dwt(StreamScratch& sc, bool is_ref, int i, std::int32_t* a, std::int32_t* v,
             std::int32_t* hb, std::int32_t* d) const {
      const S* src = is_ref ? ref_ll : dis_ll;
      std::int32_t* tlo = sc.tmp32.data() + 1;
      std::int32_t* thi = tlo + adm.tmp_pitch1_;
      const S* rows[4];
      for (int k = 0; k < 4; ++k)
        rows[k] = src + static_cast<std::size_t>(adm.tap_y_[k][i]) * src_stride;
      if constexpr (sizeof(S) == 2)
        adm.dsp_.dwt1_vertical(rows, w_in, tlo, thi);
      else
        adm.dsp_.dwt23_vertical(rows, w_in, tlo, thi);
      mirror_row(tlo, w_in);
      mirror_row(thi, w_in);
      adm.dsp_.dwt123_horizontal(tlo, thi, w, shift_h, a, v, hb, d);
    }
    void decouple(const DecoupleRow<std::int32_t>& row, int begin, int end) const {
      adm.dsp_.decouple123_row(row, begin, end, adm.cos_1deg_sq_,
                                    adm.params_.enhn_gain_limit);
    }
    void csf(const std::int32_t* h, const std::int32_t* v, const std::int32_t* d, int begin,
             int end, std::int32_t* mask, std::int32_t* centre) const {
      adm.dsp_.csf123_row(h, v, d, begin, end, fixed, mask, centre);
    }
    void masked(const MaskRow<std::int32_t>& row, int begin, int end,
                std::int64_t inner[3]) const {
      adm.dsp_.masked123_row(row, begin, end, fixed, cub_shift, inner);
    }
    std::uint64_t den(const std::int32_t* row, int begin, int end) const {
      return (adm.dsp_.den123_row(row, begin, end, dsh.sq, dsh.cub) + den_add) >> dsh.accum;
    }
  };
  const std::uint32_t row_shift = ceil_log2(h);
  const Ops ops{*this,         ref_ll,        dis_ll,           src_stride,
                w_in,          w,             kShiftH[scale - 1], fixed_.level123[scale],
                ceil_log2(w),  row_shift,     half_of_pow2(row_shift), dsh,
                half_of_pow2(dsh.accum)};
  if (out) {
    stream_reference(w, h, static_cast<std::size_t>(stride1_), ref32_.a.data(), ops, runner,
                     out->level[scale]);
    return;
  }
  const ReferenceFrame::Level* shared = in ? &in->level[scale] : nullptr;
  StreamSums total =
      stream_level(w, h, static_cast<std::size_t>(stride1_), params_.skip_aim ? 1 : 2,
                   ref32_.a.data(), dis32_.a.data(), ops, runner, shared);
  if (shared) std::copy(shared->den, shared->den + 3, total.den);
  total.store(sums, scale);
}


template void IntegerAdm::level0_streamed<std::uint8_t>(const Plane&, const Plane&, LevelSums&,
                                                        TileRunner&, ReferenceFrame*,
                                                        const ReferenceFrame*);
template void IntegerAdm::level0_streamed<std::uint16_t>(const Plane&, const Plane&, LevelSums&,
                                                         TileRunner&, ReferenceFrame*,
                                                         const ReferenceFrame*);
template void IntegerAdm::level123_streamed<std::int16_t>(const std::int16_t*, const std::int16_t*,
                                                          int, int, int, int, LevelSums&,
                                                          TileRunner&, ReferenceFrame*,
                                                          const ReferenceFrame*);
template void IntegerAdm::level123_streamed<std::int32_t>(const std::int32_t*, const std::int32_t*,
                                                          int, int, int, int, LevelSums&,
                                                          TileRunner&, ReferenceFrame*,
                                                          const ReferenceFrame*);

}  // namespace vqe::adm
