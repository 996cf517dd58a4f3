// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Integer (fixed-point) VIF kernel: the scalar reference of libvmaf's
/// `vif` extractor (libvmaf/src/feature/integer_vif.c and integer_vif.h,
/// plain C path), reproduced bit for bit.
///
/// Outline of the definition (libvmaf 3.2.0):
/// - four scales; scale s uses a symmetric fixed-point Gaussian of 17, 9, 5
///   or 3 taps whose coefficients sum to 65536 (kFilters below);
/// - borders are mirrored without repeating the edge sample (reflect-101,
///   `-i -> i`, `n-1+i -> n-1-i`, applied again while out of range);
/// - scale s+1 is scale s blurred with scale s+1's filter and decimated by
///   keeping the even rows and columns (size floor(n/2));
/// - per scale, local means, variances and covariance are formed in fixed
///   point, and the VIF numerator and denominator are accumulated as 64-bit
///   integer sums of log2 values from a 2048-per-octave table, plus a
///   non-log part for pixels whose reference variance is below the noise
///   variance sigma_nsq = 2 * 65536;
/// - each scale's numerator and denominator are stored as float, and the
///   score is their float quotient.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/large_buffer.h"
#include "vqe/cpu.h"
#include "vqe/picture.h"
#include "core/tiles.h"

namespace vqe::vif {

/// Number of VIF scales.
inline constexpr int kNumScales = 4;

/// Filter lengths per scale (odd, centred).
inline constexpr std::array<int, kNumScales> kFilterWidth = {17, 9, 5, 3};

/// Fixed-point Gaussian coefficients per scale (each row sums to 65536);
/// only the first kFilterWidth[s] entries of row s are used. Pure numbers
/// from libvmaf's vif_filter1d_table.
inline constexpr std::uint16_t kFilters[kNumScales][17] = {
    {489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274, 3896, 2640, 1640,
     935, 489},
    {1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244},
    {3571, 16004, 26386, 16004, 3571},
    {10904, 43728, 10904},
};

/// Noise variance in the fixed-point domain of the statistics (2.0 * 2^16).
inline constexpr std::int32_t kSigmaNsq = 65536 << 1;

/// Smallest accepted luma size. Every scale must keep at least 2 samples in
/// each direction (floor(n / 8) >= 2), because reflect-101 is undefined on a
/// single sample; libvmaf reads stale buffer contents (results depend on
/// earlier frames) or divides 0 by 0 below this size.
inline constexpr int kMinWidth = 16;
inline constexpr int kMinHeight = 16;

/// libvmaf's log2 table: entry i (32767 <= i <= 65535) is
/// round(log2f(i) * 2048) as uint16; other entries are 0 and never read.
/// Built once on first use (thread-safe).
const std::array<std::uint16_t, 65536>& log2_table();

/// log2_table()'s entries 2^15 + m (0 <= m < 2^15) less a straight line:
/// entry m is log2_table()[2^15 + m] - 30720 - (m >> 4), which lies in
/// [0, 177] (checked when built). Half the size of the table's used part, so
/// that SIMD kernels' scalar lookups stay in the L1 cache. Built once on
/// first use (thread-safe).
const std::array<std::uint8_t, 32768>& log2_delta_table();

/// 2048 * log2(v) for v >= 2^16, from the table: the top 16 bits of v index
/// the table and the dropped bits add 2048 each (libvmaf's log2_32).
std::int32_t log2_32(std::uint32_t v);
/// As log2_32 for 64-bit v >= 2^17 (libvmaf's log2_64).
std::int32_t log2_64(std::uint64_t v);

/// Reflect-101 index for i in any range onto 0..n-1 (n >= 2): the mirror
/// is applied repeatedly, i.e. the sequence is periodic with period 2(n-1).
/// This is what libvmaf's sequential border copies produce.
int reflect101(int i, int n);

/// Numerator and denominator of one scale, as libvmaf stores them (float).
struct ScaleValue {
  float num = 0;
  float den = 0;
  /// The scale's VIF score: the float quotient num / den, widened.
  double score() const { return static_cast<double>(num / den); }
};

/// The four scales' values for one frame pair.
struct VifValues {
  std::array<ScaleValue, kNumScales> scale{};
};

/// The four integer sums one scale's statistic accumulates (libvmaf's
/// accum_num_log, accum_den_log, accum_num_non_log, accum_den_non_log):
/// the log sums are in units of 1/2048 bit; num_non_log sums the clamped
/// distorted variances (16-bit fraction) of pixels below the noise floor and
/// den_non_log counts those pixels.
struct ScaleSums {
  std::int64_t num_log = 0;
  std::int64_t den_log = 0;
  std::int64_t num_non_log = 0;
  std::int64_t den_non_log = 0;
  bool operator==(const ScaleSums&) const = default;
};

/// A scale's float numerator and denominator from its sums (libvmaf's final
/// expressions of vif_statistic_8/16).
ScaleValue scale_value(const ScaleSums& sums);

/// One scale's input pair for the kernels below: `width` x `height` samples,
/// uint8_t when `eight_bit` (only scale 0 of 8-bit video), else uint16_t;
/// strides in samples (not bytes).
struct KernelInput {
  const void* ref = nullptr;
  const void* dis = nullptr;
  std::ptrdiff_t ref_stride = 0;
  std::ptrdiff_t dis_stride = 0;
  int width = 0;
  int height = 0;
  bool eight_bit = false;
  /// Rows to process, [row_begin, row_end): rows of the statistic, output
  /// rows of the subsampling (row_end -1: all). Borders still reflect over
  /// the whole `height`, so a pass cut into row ranges gives the same
  /// values as one pass over all rows.
  int row_begin = 0;
  int row_end = -1;
};

/// Row buffers of the scalar and SIMD kernels for images up to `width`
/// samples wide; allocated by init() only.
class Workspace {
 public:
  /// Left/right border (samples) kept around every row buffer.
  static constexpr int kPad = 8;
  /// Extra samples after the right border, so SIMD loops may read whole
  /// vectors past the row end (up to 64 lanes).
  static constexpr int kSlack = 64;

  /// Allocates every buffer for rows of up to `width` (>= 2) samples.
  void init(int width);

  // Scalar kernels: vertical sums of one row (uint32, padded).
  std::uint32_t *mu1 = nullptr, *mu2 = nullptr, *xx = nullptr, *yy = nullptr, *xy = nullptr;
  // Both: vertical blur of one row before decimation (uint32, padded).
  std::uint32_t *conv_ref = nullptr, *conv_dis = nullptr;
  // SIMD statistic: vertical sums of one row, second moments split into
  // 16-bit halves (padded): mu1, mu2, xx_hi, xx_lo, yy_hi, yy_lo, xy_hi,
  // xy_lo, each value v stored as the int16 bit pattern of v - 2^15.
  std::array<std::uint16_t*, 8> vrow{};
  // SIMD statistic: the eight horizontally filtered sums of vrow's rows
  // (uint32, row k at hsum + k * hsum_stride).
  std::uint32_t* hsum = nullptr;
  std::ptrdiff_t hsum_stride = 0;
  // SIMD statistic: per-pixel sigma1_sq, sigma2_sq (clamped), sigma12.
  std::int32_t *sigma1 = nullptr, *sigma2 = nullptr, *sigma12 = nullptr;
  // SIMD subsampling: one blurred row of each side, as int16 (v - 2^15)
  // (padded).
  std::uint16_t *sub_ref = nullptr, *sub_dis = nullptr;
  // SIMD statistic, one row's log terms: sigma1_sq of the pixels at or
  // above the noise floor, and sigma1_sq, sigma2_sq, sigma12 of those with a
  // num term, each list compacted (in pixel order, padded to whole vectors).
  std::int32_t *den_s1 = nullptr, *num_s1 = nullptr, *num_s2 = nullptr, *num_s12 = nullptr;
  // SIMD statistic: log2_table() indices of those pixels' den terms, and of
  // their num terms' numerators and denominators
  // (less 2^15; see log2_delta_table()).
  std::uint16_t *den_idx = nullptr, *num_idx_a = nullptr, *num_idx_b = nullptr;

 private:
  std::vector<std::uint32_t> u32_;
  std::vector<std::uint16_t> u16_;
  std::vector<std::int32_t> i32_;
};

/// One scale's VIF sums (libvmaf vif_statistic_8/16) for `in` at `scale`
/// (0..3). `bit_depth` (8, 10, 12, 16) matters only at scale 0, where the
/// input holds the video's samples; later scales hold 16-bit values.
/// `gain_limit` >= 1 caps the gain. `ws` must be initialised for at least
/// in.width. Scalar reference.
ScaleSums statistic_scalar(const KernelInput& in, int scale, int bit_depth, double gain_limit,
                           Workspace& ws);

/// Blurs scale `scale` (0..2) of `in` with scale + 1's filter and keeps the
/// even rows and columns (libvmaf subsample_rd_8/16 + decimation), writing
/// floor(w/2) x floor(h/2) samples to out_ref/out_dis (stride floor(w/2)).
/// A null out_ref (out_dis) skips the reference (distorted) side, whose
/// input is then not read. Scalar reference.
void subsample_scalar(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                      std::uint16_t* out_ref, std::uint16_t* out_dis);
/// The reference-only per-pixel results of one scale's statistic (the
/// split statistic below): libvmaf's horizontally filtered reference mean
/// before squaring (its 32-bit accumulator, mu1 in libvmaf's naming) and
/// sigma1_sq = xx_filt - mu1_sq (the reference's variance, wrapped to int32
/// as the reference does). Row r of the scale starts at mu1 + r * stride and
/// sigma1 + r * stride; pixels in order. The pair part only reads them.
struct RefRows {
  std::uint32_t* mu1 = nullptr;
  std::int32_t* sigma1 = nullptr;
  std::ptrdiff_t stride = 0;
};

/// The reference part of statistic_scalar: for rows [in.row_begin,
/// in.row_end) of `in.ref` (in.dis is not read), writes the rows of `out`
/// and returns the sums that depend on the reference alone (den_log and
/// den_non_log; num_log and num_non_log are 0). Scalar reference.
ScaleSums ref_statistic_scalar(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                               const RefRows& out);

/// The pair part of statistic_scalar: for rows [in.row_begin, in.row_end),
/// the sums that need the distorted picture (num_log and num_non_log;
/// den_log and den_non_log are 0), taking the reference's filtered mean and
/// variance from `ref` (ref_statistic's rows of the same in.ref; in.ref is
/// still read for the covariance). ref_statistic's sums plus these are
/// statistic_scalar's sums, exactly. Scalar reference.
ScaleSums pair_statistic_scalar(const KernelInput& in, int scale, int bit_depth,
                                double gain_limit, Workspace& ws, const RefRows& ref);

/// VIF's kernels for one CPU level (core/simd.h): `statistic` and
/// `subsample` have the contracts of statistic_scalar and subsample_scalar
/// (subsample: an output pointer may be null, and that side is then neither
/// read nor written), `ref_statistic` and `pair_statistic` those of
/// ref_statistic_scalar and pair_statistic_scalar; every level returns the
/// scalar references' results (Highway SIMD in vif_simd.cpp).
struct VifDsp {
  ScaleSums (*statistic)(const KernelInput& in, int scale, int bit_depth, double gain_limit,
                         Workspace& ws);
  void (*subsample)(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                    std::uint16_t* out_ref, std::uint16_t* out_dis);
  ScaleSums (*ref_statistic)(const KernelInput& in, int scale, int bit_depth, Workspace& ws,
                             const RefRows& out);
  ScaleSums (*pair_statistic)(const KernelInput& in, int scale, int bit_depth,
                              double gain_limit, Workspace& ws, const RefRows& ref);
};

/// The table of `level` (filled once; valid for the process's lifetime).
const VifDsp& vif_dsp(simd::Level level);

/// One frame's reference-only VIF work (IntegerVifKernel::compute_reference):
/// per scale, the statistic's reference rows (RefRows) and its
/// reference-only sums, and the reference decimated to the scale. Immutable
/// once computed, so that the jobs of a ladder can share it; about 8 bytes
/// per luma sample (25 MB for 1080p).
struct ReferenceFrame {
  /// One scale's part.
  struct Scale {
    int width = 0;   ///< the scale's size
    int height = 0;
    LargeVector<std::uint32_t> mu1;    ///< RefRows::mu1, stride width (empty: skipped)
    LargeVector<std::int32_t> sigma1;  ///< RefRows::sigma1, stride width (empty: skipped)
    ScaleSums sums;                    ///< den_log and den_non_log of the whole scale
    LargeVector<std::uint16_t> image;  ///< the decimated reference (scales 1..3), stride width
  };
  std::array<Scale, kNumScales> scale{};
  int bit_depth = 0;         ///< of the video (scale 0's samples)
  bool skip_scale0 = false;  ///< scale 0's statistic was not computed
};

/// Computes integer VIF for luma planes of one fixed size and bit depth.
/// Holds every working buffer, allocated in init(); compute() allocates
/// nothing. One instance per thread. Every CPU level gives identical results.
class IntegerVifKernel {
 public:
  /// `enhn_gain_limit`: cap on the gain g = sigma12 / sigma1_sq (>= 1;
  /// libvmaf default 100). `skip_scale0`: do not compute scale 0 (its value
  /// is left at num = den = 0). `level`: the CPU level of the kernels.
  IntegerVifKernel(double enhn_gain_limit, bool skip_scale0, simd::Level level);

  /// Prepares buffers for `width` x `height` luma samples at `bit_depth`
  /// (8, 10, 12 or 16). Throws vqe::Error (naming extractor "vif") if the
  /// size is below kMinWidth x kMinHeight or the bit depth is unsupported.
  void init(int width, int height, int bit_depth);

  /// Scores the distorted plane against the reference plane. Both planes must
  /// be at least width x height samples of init()'s bit depth: uint8_t
  /// samples at 8 bits, uint16_t (values < 2^bit_depth) above; stride in
  /// bytes. Deterministic; depends only on the two planes.
  ///
  /// With `tiles` (width > 1), each scale's statistic and subsampling are cut
  /// into row tiles run on the runner's threads; the integer sums of the
  /// tiles add up to exactly the one-pass sums, so the values are identical.
  /// The first call with a wider runner allocates one row workspace per
  /// extra thread.
  VifValues compute(const Plane& reference, const Plane& distorted,
                    TileRunner* tiles = nullptr);

  /// compute() in two parts, for reference work shared between jobs: the
  /// reference part of one frame (every scale's reference statistic rows and
  /// decimation), a fresh object that depends only on the reference plane,
  /// init()'s format and skip_scale0 (not on the gain limit or CPU level).
  /// Row tiles as in compute().
  std::shared_ptr<ReferenceFrame> compute_reference(const Plane& reference,
                                                    TileRunner* tiles = nullptr);
  /// As above, into `frame` (its buffers are reused when they have the
  /// sizes already, e.g. a frame recycled from an earlier compute_reference()
  /// of this format: no allocation, no clearing).
  void compute_reference(const Plane& reference, ReferenceFrame& frame,
                         TileRunner* tiles = nullptr);
  /// The pair part: the frame's values from compute_reference()'s object of
  /// `reference` (computed by any instance with the same format and
  /// skip_scale0) and the planes. Equals compute(reference, distorted) bit
  /// for bit. Throws vqe::Error if `frame` has another size or setting.
  VifValues compute_pair(const ReferenceFrame& frame, const Plane& reference,
                         const Plane& distorted, TileRunner* tiles = nullptr);

 private:
  /// The row workspace of tile slot `slot` (0: ws_; others made on first use).
  Workspace& slot_workspace(unsigned slot);
  /// Checks that compute() may run on the two planes (after init, sizes).
  void check_planes(const Plane& reference, const Plane* distorted) const;
  /// The tile runner to use (`tiles` or a serial one), with a row workspace
  /// for each of its slots.
  TileRunner& prepare_tiles(TileRunner* tiles);
  /// Scale 0's kernel input: the planes as given (`distorted` may be null,
  /// for the reference part), strides in samples.
  KernelInput scale0_input(const Plane& reference, const Plane* distorted) const;

  // One scale's decimated image pair (uint16, stride = width).
  struct Image {
    int width = 0;
    int height = 0;
    LargeVector<std::uint16_t> ref;  // large: huge pages (core/large_buffer.h)
    LargeVector<std::uint16_t> dis;
  };

  double enhn_gain_limit_;
  bool skip_scale0_;
  const VifDsp& dsp_;
  int width_ = 0;
  int height_ = 0;
  int bit_depth_ = 0;
  std::array<Image, kNumScales> images_{};  // index 0 unused (scale 0 reads the input)
  Workspace ws_;                                   // slot 0
  std::vector<std::unique_ptr<Workspace>> slot_ws_;  // slots 1.. (allocated on first use)
};

}  // namespace vqe::vif
