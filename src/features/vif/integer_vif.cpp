// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF: scalar reference. Definition: libvmaf/src/feature/integer_vif.c
// (vif_statistic_8/16, subsample_rd_8/16, log_generate) and integer_vif.h
// (filter table, log2_32/log2_64). Every integer width, rounding constant and
// shift below is the reference's; changing one breaks bit-exactness.

#include "features/vif/integer_vif.h"
#include "features/vif/vif_score.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::vif {

const std::array<std::uint16_t, 65536>& log2_table() {
  static const std::array<std::uint16_t, 65536> table = [] {
    std::array<std::uint16_t, 65536> t{};
    // Single-precision log2, scaled by 2048 in float, rounded half away
    // from zero (C round()), exactly as libvmaf builds it at init.
    for (unsigned i = 32767; i < 65536; ++i) {
      const float scaled = std::log2(static_cast<float>(i)) * 2048.0f;
      t[i] = static_cast<std::uint16_t>(std::round(static_cast<double>(scaled)));
    }
    return t;
  }();
  return table;
}

const std::array<std::uint8_t, 32768>& log2_delta_table() {
  static const std::array<std::uint8_t, 32768> table = [] {
    std::array<std::uint8_t, 32768> t{};
    const auto& full = log2_table();
    for (unsigned m = 0; m < 32768; ++m) {
      const int delta = int{full[32768 + m]} - 30720 - static_cast<int>(m >> 4);
      if (delta < 0 || delta > 255) throw Error("vif: log2 table delta out of range");
      t[m] = static_cast<std::uint8_t>(delta);
    }
    return t;
  }();
  return table;
}

std::int32_t log2_32(std::uint32_t v) {
  // Keep the 16 most significant bits (v >= 2^16 so the shift is >= 0).
  const int shift = 16 - std::countl_zero(v);
  return log2_table()[v >> shift] + 2048 * shift;
}

std::int32_t log2_64(std::uint64_t v) {
  const int shift = 48 - std::countl_zero(v);
  return log2_table()[v >> shift] + 2048 * shift;
}

int reflect101(int i, int n) {
  const int period = 2 * (n - 1);
  int m = i % period;
  if (m < 0) m += period;
  return m < n ? m : period - m;
}

void Workspace::init(int width) {
  const std::size_t row = static_cast<std::size_t>(width) + 2 * kPad + kSlack;
  u32_.assign(15 * row, 0);
  std::uint32_t** u32_rows[7] = {&mu1, &mu2, &xx, &yy, &xy, &conv_ref, &conv_dis};
  for (std::size_t k = 0; k < 7; ++k) *u32_rows[k] = u32_.data() + k * row + kPad;
  hsum = u32_.data() + 7 * row;
  hsum_stride = static_cast<std::ptrdiff_t>(row);
  u16_.assign((vrow.size() + 5) * row, 0);
  for (std::size_t k = 0; k < vrow.size(); ++k) vrow[k] = u16_.data() + k * row + kPad;
  sub_ref = u16_.data() + vrow.size() * row + kPad;
  sub_dis = sub_ref + row;
  den_idx = u16_.data() + (vrow.size() + 2) * row;
  num_idx_a = den_idx + row;
  num_idx_b = num_idx_a + row;
  i32_.assign(7 * row, 0);
  sigma1 = i32_.data();
  sigma2 = i32_.data() + row;
  sigma12 = i32_.data() + 2 * row;
  den_s1 = i32_.data() + 3 * row;
  num_s1 = i32_.data() + 4 * row;
  num_s2 = i32_.data() + 5 * row;
  num_s12 = i32_.data() + 6 * row;

}

ScaleValue scale_value(const ScaleSums& sums) {
  ScaleValue out;
  out.num = static_cast<float>(
      static_cast<double>(sums.num_log) / 2048.0 +
      (static_cast<double>(sums.den_non_log) -
       (static_cast<double>(sums.num_non_log) / 16384.0) / 65025.0));
  out.den = static_cast<float>(static_cast<double>(sums.den_log) / 2048.0 +
                               static_cast<double>(sums.den_non_log));
  return out;
}

IntegerVifKernel::IntegerVifKernel(double enhn_gain_limit, bool skip_scale0, simd::Level level)
    : enhn_gain_limit_(enhn_gain_limit), skip_scale0_(skip_scale0), dsp_(vif_dsp(level)) {}

void IntegerVifKernel::init(int width, int height, int bit_depth) {
  check_format(width, height, bit_depth);
  width_ = width;
  height_ = height;
  bit_depth_ = bit_depth;
  int w = width, h = height;
  for (int s = 1; s < kNumScales; ++s) {
    w /= 2;
    h /= 2;
    Image& img = images_[s];
    img.width = w;
    img.height = h;
    assign_zeros(img.ref, static_cast<std::size_t>(w) * h);
    assign_zeros(img.dis, static_cast<std::size_t>(w) * h);
  }
  ws_.init(width);
}

namespace {

// Fills the kFilterWidth/2 border samples on each side of a row of n >= 2
// samples by reflect-101.
inline void pad_row(std::uint32_t* row, int n, int half) {
  for (int f = 1; f <= half; ++f) {
    row[-f] = row[reflect101(-f, n)];
    row[n - 1 + f] = row[reflect101(n - 1 + f, n)];
  }
}

// Which part of the statistic a pass computes: all of it (the fused pass),
// the reference part (ref_statistic) or the pair part (pair_statistic).
enum class Part { all, ref, pair };

// One scale's VIF numerator and denominator (libvmaf vif_statistic_16; the
// 8-bit scale-0 variant vif_statistic_8 is the same arithmetic with
// bpc = 8, whose sums fit the 32-bit accumulators it uses). Part::ref
// computes only the reference's quantities (mu1, xx) and writes them to
// `rows`; Part::pair takes them from `rows` and computes the rest.
template <Part part, typename T>
ScaleSums statistic_impl(const T* ref, std::ptrdiff_t ref_stride, const T* dis,
                         std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                         double gain_limit, Workspace& ws, int row_begin, int row_end,
                         const RefRows* rows) {
  constexpr bool kRef = part != Part::pair;  // computes the reference's quantities
  constexpr bool kDis = part != Part::ref;   // computes those that need the distorted
  const int fw = kFilterWidth[scale];
  const int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale];

  // Vertical-pass normalisation: at scale 0 it removes the bit depth (the
  // means keep 16 bits, the second moments 16 bits above 8-bit range);
  // at later scales the data are already 16-bit.
  std::uint32_t shift_mu = 16, round_mu = 32768;
  std::uint32_t shift_sq = 16;
  std::uint64_t round_sq = 32768;
  if (scale == 0) {
    shift_mu = static_cast<std::uint32_t>(bit_depth);
    round_mu = 1u << (bit_depth - 1);
    shift_sq = static_cast<std::uint32_t>(2 * (bit_depth - 8));
    round_sq = shift_sq == 0 ? 0 : std::uint64_t{1} << (shift_sq - 1);
  }

  std::int64_t num_log = 0;
  std::int64_t den_log = 0;
  std::int64_t num_non_log = 0;
  std::int64_t den_non_log = 0;

  std::uint32_t* mu1 = ws.mu1;
  std::uint32_t* mu2 = ws.mu2;
  std::uint32_t* xx = ws.xx;
  std::uint32_t* yy = ws.yy;
  std::uint32_t* xy = ws.xy;
  const T* ref_rows[17];
  const T* dis_rows[17];

  for (int i = row_begin; i < row_end; ++i) {
    for (int fi = 0; fi < fw; ++fi) {
      const std::ptrdiff_t r = reflect101(i - half + fi, h);
      ref_rows[fi] = ref + r * ref_stride;
      if constexpr (kDis) dis_rows[fi] = dis + r * dis_stride;
    }
    // Vertical filter of the samples, their squares and their product.
    for (int j = 0; j < w; ++j) {
      std::uint32_t acc_mu1 = 0, acc_mu2 = 0;
      std::uint64_t acc_xx = 0, acc_yy = 0, acc_xy = 0;
      for (int fi = 0; fi < fw; ++fi) {
        const std::uint32_t c = filt[fi];
        const std::uint32_t x = ref_rows[fi][j];
        const std::uint32_t cx = c * x;
        if constexpr (kRef) {
          acc_mu1 += cx;
          acc_xx += std::uint64_t{cx} * x;
        }
        if constexpr (kDis) {
          const std::uint32_t y = dis_rows[fi][j];
          const std::uint32_t cy = c * y;
          acc_mu2 += cy;
          acc_yy += std::uint64_t{cy} * y;
          acc_xy += std::uint64_t{cx} * y;
        }
      }
      if constexpr (kRef) {
        mu1[j] = static_cast<std::uint16_t>((acc_mu1 + round_mu) >> shift_mu);
        xx[j] = static_cast<std::uint32_t>((acc_xx + round_sq) >> shift_sq);
      }
      if constexpr (kDis) {
        mu2[j] = static_cast<std::uint16_t>((acc_mu2 + round_mu) >> shift_mu);
        yy[j] = static_cast<std::uint32_t>((acc_yy + round_sq) >> shift_sq);
        xy[j] = static_cast<std::uint32_t>((acc_xy + round_sq) >> shift_sq);
      }
    }
    if constexpr (kRef)
      for (std::uint32_t* row : {mu1, xx}) pad_row(row, w, half);
    if constexpr (kDis)
      for (std::uint32_t* row : {mu2, yy, xy}) pad_row(row, w, half);

    std::uint32_t* row_mu1 = rows ? rows->mu1 + i * rows->stride : nullptr;
    std::int32_t* row_sigma1 = rows ? rows->sigma1 + i * rows->stride : nullptr;
    // Horizontal filter, then the per-pixel VIF terms.
    for (int j = 0; j < w; ++j) {
      std::uint32_t acc_mu1 = 0, acc_mu2 = 0;
      std::uint64_t acc_xx = 0, acc_yy = 0, acc_xy = 0;
      for (int fj = 0; fj < fw; ++fj) {
        const std::uint32_t c = filt[fj];
        const int k = j - half + fj;
        if constexpr (kRef) {
          acc_mu1 += c * mu1[k];
          acc_xx += std::uint64_t{c} * xx[k];
        }
        if constexpr (kDis) {
          acc_mu2 += c * mu2[k];
          acc_yy += std::uint64_t{c} * yy[k];
          acc_xy += std::uint64_t{c} * xy[k];
        }
      }
      // Differences wrap in 32 bits and are read as signed, as in the reference.
      std::int32_t sigma1_sq = 0;
      if constexpr (kRef) {
        // Means are kept at 32 bits; their products are rounded back to the
        // 16-bit-fraction domain of the filtered second moments.
        const std::uint32_t mu1_sq =
            static_cast<std::uint32_t>((std::uint64_t{acc_mu1} * acc_mu1 + 2147483648u) >> 32);
        const std::uint32_t xx_filt = static_cast<std::uint32_t>((acc_xx + 32768) >> 16);
        sigma1_sq = static_cast<std::int32_t>(xx_filt - mu1_sq);
      } else {
        acc_mu1 = row_mu1[j];
        sigma1_sq = row_sigma1[j];
      }
      if constexpr (part == Part::ref) {
        row_mu1[j] = acc_mu1;
        row_sigma1[j] = sigma1_sq;
        if (sigma1_sq >= kSigmaNsq)
          den_log += log2_32(static_cast<std::uint32_t>(sigma1_sq) +
                             static_cast<std::uint32_t>(kSigmaNsq)) -
                     2048 * 17;
        else
          den_non_log += 1;
        continue;
      }
      const std::uint32_t mu2_sq =
          static_cast<std::uint32_t>((std::uint64_t{acc_mu2} * acc_mu2 + 2147483648u) >> 32);
      const std::uint32_t mu1_mu2 =
          static_cast<std::uint32_t>((std::uint64_t{acc_mu1} * acc_mu2 + 2147483648u) >> 32);
      const std::uint32_t yy_filt = static_cast<std::uint32_t>((acc_yy + 32768) >> 16);
      const std::uint32_t xy_filt = static_cast<std::uint32_t>((acc_xy + 32768) >> 16);
      std::int32_t sigma2_sq = static_cast<std::int32_t>(yy_filt - mu2_sq);
      const std::int32_t sigma12 = static_cast<std::int32_t>(xy_filt - mu1_mu2);
      sigma2_sq = std::max(sigma2_sq, 0);

      if (sigma1_sq >= kSigmaNsq) {
        // den term: 2048 * log2(1 + sigma1_sq / sigma_nsq).
        if constexpr (part == Part::all)
          den_log += log2_32(static_cast<std::uint32_t>(sigma1_sq) +
                             static_cast<std::uint32_t>(kSigmaNsq)) -
                     2048 * 17;
        if (sigma12 > 0 && sigma2_sq > 0) {
          // num term: 2048 * log2(1 + g^2 sigma1_sq / (sv_sq + sigma_nsq)).
          const double eps = 65536 * 1.0e-10;
          double g = sigma12 / (sigma1_sq + eps);
          std::int32_t sv_sq = static_cast<std::int32_t>(sigma2_sq - g * sigma12);
          sv_sq = std::max(sv_sq, 0);
          g = g < gain_limit ? g : gain_limit;
          const std::uint32_t numer1 = static_cast<std::uint32_t>(sv_sq + kSigmaNsq);
          const std::int64_t numer1_tmp =
              static_cast<std::int64_t>(g * g * sigma1_sq) + std::int64_t{numer1};
          num_log += log2_64(static_cast<std::uint64_t>(numer1_tmp)) - log2_64(numer1);
        }
      } else {
        num_non_log += sigma2_sq;
        if constexpr (part == Part::all) den_non_log += 1;
      }
    }
  }

  ScaleSums sums;
  sums.num_log = num_log;
  sums.den_log = den_log;
  sums.num_non_log = num_non_log;
  sums.den_non_log = den_non_log;
  return sums;
}

// Blurs scale `scale` with the next scale's filter and keeps the even rows
// and columns (libvmaf subsample_rd_16 + decimate_and_pad; subsample_rd_8 is
// the same arithmetic at bpc = 8). Only the kept samples are computed.
template <typename T>
void subsample_impl(const T* ref, std::ptrdiff_t ref_stride, const T* dis,
                    std::ptrdiff_t dis_stride, int w, int h, int scale, int bit_depth,
                    Workspace& ws, std::uint16_t* out_ref_img, std::uint16_t* out_dis_img,
                    int out_begin, int out_end) {
  const int out_width = w / 2;
  const int fw = kFilterWidth[scale + 1];
  const int half = fw / 2;
  const std::uint16_t* filt = kFilters[scale + 1];
  std::uint32_t shift = 16, round = 32768;
  if (scale == 0) {
    shift = static_cast<std::uint32_t>(bit_depth);
    round = 1u << (bit_depth - 1);
  }

  std::uint32_t* conv_ref = ws.conv_ref;
  std::uint32_t* conv_dis = ws.conv_dis;
  const T* ref_rows[17];
  const T* dis_rows[17];

  for (int oi = out_begin; oi < out_end; ++oi) {
    const int i = 2 * oi;
    for (int fi = 0; fi < fw; ++fi) {
      const std::ptrdiff_t r = reflect101(i - half + fi, h);
      if (out_ref_img) ref_rows[fi] = ref + r * ref_stride;
      if (out_dis_img) dis_rows[fi] = dis + r * dis_stride;
    }
    // One side at a time (the side's input and output, or skipped when its
    // output is null).
    for (int side = 0; side < 2; ++side) {
      std::uint16_t* out_img = side == 0 ? out_ref_img : out_dis_img;
      if (!out_img) continue;
      const T* const* in_rows = side == 0 ? ref_rows : dis_rows;
      std::uint32_t* conv = side == 0 ? conv_ref : conv_dis;
      for (int j = 0; j < w; ++j) {
        std::uint32_t acc = 0;
        for (int fi = 0; fi < fw; ++fi) acc += std::uint32_t{filt[fi]} * std::uint32_t{in_rows[fi][j]};
        conv[j] = static_cast<std::uint16_t>((acc + round) >> shift);
      }
      pad_row(conv, w, half);
      std::uint16_t* out = out_img + static_cast<std::ptrdiff_t>(oi) * out_width;
      for (int oj = 0; oj < out_width; ++oj) {
        const int j = 2 * oj;
        std::uint32_t acc = 0;
        for (int fj = 0; fj < fw; ++fj) acc += std::uint32_t{filt[fj]} * conv[j - half + fj];
        out[oj] = static_cast<std::uint16_t>((acc + 32768) >> 16);
      }
    }
  }
}

}  // namespace

namespace {

template <Part part>
ScaleSums statistic_part(const KernelInput& in, int scale, int bit_depth, double gain_limit,
                         Workspace& ws, const RefRows* rows) {
  const int end = in.row_end < 0 ? in.height : in.row_end;
  if (in.eight_bit)
    return statistic_impl<part>(static_cast<const std::uint8_t*>(in.ref), in.ref_stride,
                                static_cast<const std::uint8_t*>(in.dis), in.dis_stride, in.width,
                                in.height, scale, bit_depth, gain_limit, ws, in.row_begin, end,
                                rows);
  return statistic_impl<part>(static_cast<const std::uint16_t*>(in.ref), in.ref_stride,
                              static_cast<const std::uint16_t*>(in.dis), in.dis_stride, in.width,
                              in.height, scale, bit_depth, gain_limit, ws, in.row_begin, end,
                              rows);
}

}  // namespace

ScaleSums statistic_scalar(const KernelInput& in, int scale, int bit_depth, double gain_limit,
                           Workspace& ws) {
  return statistic_part<Part::all>(in, scale, bit_depth, gain_limit, ws, nullptr);
}

ScaleSums ref_statistic_scalar(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                               const RefRows& out) {
  return statistic_part<Part::ref>(in, scale, bit_depth, 1.0, ws, &out);
}

ScaleSums pair_statistic_scalar(const KernelInput& in, int scale, int bit_depth,
                                double gain_limit, Workspace& ws, const RefRows& ref) {
  return statistic_part<Part::pair>(in, scale, bit_depth, gain_limit, ws, &ref);
}

void subsample_scalar(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                      std::uint16_t* out_ref, std::uint16_t* out_dis) {
  const int end = in.row_end < 0 ? in.height / 2 : in.row_end;
  if (in.eight_bit)
    subsample_impl(static_cast<const std::uint8_t*>(in.ref), in.ref_stride,
                   static_cast<const std::uint8_t*>(in.dis), in.dis_stride, in.width, in.height,
                   scale, bit_depth, ws, out_ref, out_dis, in.row_begin, end);
  else
    subsample_impl(static_cast<const std::uint16_t*>(in.ref), in.ref_stride,
                   static_cast<const std::uint16_t*>(in.dis), in.dis_stride, in.width, in.height,
                   scale, bit_depth, ws, out_ref, out_dis, in.row_begin, end);
}

Workspace& IntegerVifKernel::slot_workspace(unsigned slot) {
  if (slot == 0) return ws_;
  std::unique_ptr<Workspace>& own = slot_ws_[slot - 1];
  if (!own) {
    own = std::make_unique<Workspace>();
    own->init(width_);
  }
  return *own;
}

void IntegerVifKernel::check_planes(const Plane& reference, const Plane* distorted) const {
  if (width_ == 0) throw Error("vif: compute() called before init()");
  if (reference.width < width_ || reference.height < height_ ||
      (distorted && (distorted->width < width_ || distorted->height < height_)))
    throw Error(fmt::format("vif: plane smaller than the initialised {}x{}", width_, height_));
}

namespace {

// Per-tile sums, added in tile order after the scale (exact: integers).
constexpr unsigned kMaxTiles = 256;

// The tiles of one scale of `height` rows: a tile computes statistic rows
// [a, b) and the subsampled rows [a/2, b/2) (the same input rows, while in
// cache). At least 32 rows per tile keeps the per-tile set-up negligible.
unsigned scale_tiles(TileRunner& runner, int height, int width) {
  return std::min(kMaxTiles, runner.tile_count(height, 32, width));
}

// Output rows of the subsampling whose centre row 2*oi lies in `rows`.
void subsample_rows(const TileRows& rows, int height, KernelInput& part) {
  part.row_begin = (rows.begin + 1) / 2;
  part.row_end = std::min((rows.end + 1) / 2, height / 2);
}

ScaleSums add_sums(const std::array<ScaleSums, kMaxTiles>& partial, unsigned count) {
  ScaleSums sums;
  for (unsigned t = 0; t < count; ++t) {
    sums.num_log += partial[t].num_log;
    sums.den_log += partial[t].den_log;
    sums.num_non_log += partial[t].num_non_log;
    sums.den_non_log += partial[t].den_non_log;
  }
  return sums;
}

}  // namespace

TileRunner& IntegerVifKernel::prepare_tiles(TileRunner* tiles) {
  TileRunner& runner = tiles ? *tiles : serial_tile_runner();
  if (slot_ws_.size() + 1 < runner.width()) slot_ws_.resize(runner.width() - 1);
  return runner;
}

KernelInput IntegerVifKernel::scale0_input(const Plane& reference, const Plane* distorted) const {
  const std::ptrdiff_t sample = bit_depth_ == 8 ? 1 : 2;
  KernelInput in;
  in.ref = reference.data;
  in.ref_stride = reference.stride / sample;
  if (distorted) {
    in.dis = distorted->data;
    in.dis_stride = distorted->stride / sample;
  }
  in.width = width_;
  in.height = height_;
  in.eight_bit = bit_depth_ == 8;
  return in;
}

VifValues IntegerVifKernel::compute(const Plane& reference, const Plane& distorted,
                                    TileRunner* tiles) {
  check_planes(reference, &distorted);
  TileRunner& runner = prepare_tiles(tiles);
  VifValues v;
  KernelInput in = scale0_input(reference, &distorted);
  std::array<ScaleSums, kMaxTiles> partial;
  for (int s = 0; s < kNumScales; ++s) {
    if (s > 0) {
      const Image& img = images_[s];
      in.ref = img.ref.data();
      in.dis = img.dis.data();
      in.ref_stride = in.dis_stride = img.width;
      in.width = img.width;
      in.height = img.height;
      in.eight_bit = false;
    }
    const bool stat = s > 0 || !skip_scale0_;
    const bool down = s + 1 < kNumScales;
    Image* next = down ? &images_[s + 1] : nullptr;
    const unsigned count = scale_tiles(runner, in.height, in.width);
    runner.run(count, [&](unsigned tile, unsigned slot) {
      Workspace& ws = slot_workspace(slot);
      const TileRows rows = tile_rows(tile, count, in.height);
      KernelInput part = in;
      if (stat) {
        part.row_begin = rows.begin;
        part.row_end = rows.end;
        partial[tile] = dsp_.statistic(part, s, bit_depth_, enhn_gain_limit_, ws);
      }
      if (down) {
        subsample_rows(rows, in.height, part);
        if (part.row_begin < part.row_end)
          dsp_.subsample(part, s, bit_depth_, ws, next->ref.data(), next->dis.data());
      }
    });
    if (stat) v.scale[s] = scale_value(add_sums(partial, count));
  }
  return v;
}

std::shared_ptr<ReferenceFrame> IntegerVifKernel::compute_reference(const Plane& reference,
                                                                    TileRunner* tiles) {
  auto frame = std::make_shared<ReferenceFrame>();
  compute_reference(reference, *frame, tiles);
  return frame;
}

void IntegerVifKernel::compute_reference(const Plane& reference, ReferenceFrame& out,
                                         TileRunner* tiles) {
  check_planes(reference, nullptr);
  TileRunner& runner = prepare_tiles(tiles);
  ReferenceFrame* frame = &out;
  frame->bit_depth = bit_depth_;
  frame->skip_scale0 = skip_scale0_;
  KernelInput in = scale0_input(reference, nullptr);
  std::array<ScaleSums, kMaxTiles> partial;
  for (int s = 0; s < kNumScales; ++s) {
    ReferenceFrame::Scale& sc = frame->scale[s];
    if (s > 0) {
      in.ref = sc.image.data();
      in.ref_stride = sc.width;
      in.width = sc.width;
      in.height = sc.height;
      in.eight_bit = false;
    } else {
      sc.width = width_;
      sc.height = height_;
    }
    const std::size_t n = static_cast<std::size_t>(sc.width) * sc.height;
    const bool stat = s > 0 || !skip_scale0_;
    // Every sample is written below: a recycled buffer of the size is kept.
    sc.mu1.resize(stat ? n : 0);
    sc.sigma1.resize(stat ? n : 0);
    sc.sums = ScaleSums{};
    const RefRows rows_out{sc.mu1.data(), sc.sigma1.data(), sc.width};
    const bool down = s + 1 < kNumScales;
    ReferenceFrame::Scale* next = down ? &frame->scale[s + 1] : nullptr;
    if (next) {
      next->width = sc.width / 2;
      next->height = sc.height / 2;
      next->image.resize(static_cast<std::size_t>(next->width) * next->height);
    }
    const unsigned count = scale_tiles(runner, in.height, in.width);
    runner.run(count, [&](unsigned tile, unsigned slot) {
      Workspace& ws = slot_workspace(slot);
      const TileRows rows = tile_rows(tile, count, in.height);
      KernelInput part = in;
      if (stat) {
        part.row_begin = rows.begin;
        part.row_end = rows.end;
        partial[tile] = dsp_.ref_statistic(part, s, bit_depth_, ws, rows_out);
      }
      if (down) {
        subsample_rows(rows, in.height, part);
        if (part.row_begin < part.row_end)
          dsp_.subsample(part, s, bit_depth_, ws, next->image.data(), nullptr);
      }
    });
    if (stat) sc.sums = add_sums(partial, count);
  }
}

VifValues IntegerVifKernel::compute_pair(const ReferenceFrame& frame, const Plane& reference,
                                         const Plane& distorted, TileRunner* tiles) {
  check_planes(reference, &distorted);
  if (frame.scale[0].width != width_ || frame.scale[0].height != height_ ||
      frame.bit_depth != bit_depth_ || frame.skip_scale0 != skip_scale0_)
    throw Error("vif: the shared reference work is of another format or setting");
  TileRunner& runner = prepare_tiles(tiles);
  VifValues v;
  KernelInput in = scale0_input(reference, &distorted);
  std::array<ScaleSums, kMaxTiles> partial;
  for (int s = 0; s < kNumScales; ++s) {
    const ReferenceFrame::Scale& sc = frame.scale[s];
    if (s > 0) {
      const Image& img = images_[s];
      in.ref = sc.image.data();
      in.dis = img.dis.data();
      in.ref_stride = in.dis_stride = img.width;
      in.width = img.width;
      in.height = img.height;
      in.eight_bit = false;
    }
    const bool stat = s > 0 || !skip_scale0_;
    // Const by contract: the pair statistic only reads the rows.
    const RefRows rows_in{const_cast<std::uint32_t*>(sc.mu1.data()),
                          const_cast<std::int32_t*>(sc.sigma1.data()), sc.width};
    const bool down = s + 1 < kNumScales;
    Image* next = down ? &images_[s + 1] : nullptr;
    const unsigned count = scale_tiles(runner, in.height, in.width);
    runner.run(count, [&](unsigned tile, unsigned slot) {
      Workspace& ws = slot_workspace(slot);
      const TileRows rows = tile_rows(tile, count, in.height);
      KernelInput part = in;
      if (stat) {
        part.row_begin = rows.begin;
        part.row_end = rows.end;
        partial[tile] = dsp_.pair_statistic(part, s, bit_depth_, enhn_gain_limit_, ws, rows_in);
      }
      if (down) {
        subsample_rows(rows, in.height, part);
        if (part.row_begin < part.row_end)
          dsp_.subsample(part, s, bit_depth_, ws, nullptr, next->dis.data());
      }
    });
    if (stat) {
      ScaleSums sums = add_sums(partial, count);
      sums.den_log += sc.sums.den_log;
      sums.den_non_log += sc.sums.den_non_log;
      v.scale[s] = scale_value(sums);
    }
  }
  return v;
}

}  // namespace vqe::vif
