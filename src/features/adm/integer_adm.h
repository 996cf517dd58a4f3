// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Integer (fixed-point) ADM kernel: the scalar reference of libvmaf's
/// `adm` extractor (libvmaf/src/feature/integer_adm.c, integer_adm.h,
/// barten_csf_tools.h; plain C path), reproduced bit for bit.
///
/// Outline of the definition (libvmaf 3.2.0), per frame, on luma only:
/// - four levels of a fixed-point Daubechies-2 (db2) DWT. Level 0 takes the
///   samples (centred by subtracting half the range, 16-bit intermediates);
///   levels 1–3 take the previous LL band in 32 bits. Each output index i
///   uses input taps 2i-1..2i+2; tap -1 mirrors to 1 and taps n, n+1 mirror
///   to n-1, n-2 (an asymmetric border). Bands are ceil(n/2) long.
/// - decoupling: the distorted detail bands (h, v, d) are split into a
///   "restored" part k·ref (k = dis/ref clamped to [0, 1], via a Q30
///   reciprocal table) and an "additive" part dis − restored; where the
///   (h, v) vectors of ref and dis are within 1 degree, the restored part
///   may reach up to adm_enhn_gain_limit × itself (bounded by dis).
/// - CSF: bands are weighted per level and orientation (Watson 1997 by
///   default, fixed-point constants at level 0 for 3 heights at 1080 lines).
/// - contrast masking: each restored coefficient is reduced by a threshold
///   made of the CSF-weighted additive part's |x|/30 over a 3×3
///   neighbourhood (+|x|/15 at the centre, summed over h, v, d), then cubed
///   and summed (numerator). The reference's CSF-weighted bands cubed and
///   summed make the denominator. Both skip a border of 10 % per side, get
///   cube roots, and add a noise-floor term. AIM swaps the roles.
///
/// Every shift, rounding constant, 16/32-bit truncation, float/double mix
/// and border rule is libvmaf's; comments name the few places where the
/// reference's C relies on implementation-defined or undefined behaviour
/// and what this code does there (the x86-64 gcc result).

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/large_buffer.h"
#include "features/adm/adm_csf.h"
#include "features/adm/adm_kernels.h"
#include "vqe/picture.h"
#include "core/tiles.h"

namespace vqe::adm {

/// Number of DWT levels (libvmaf's scales 0..3).
inline constexpr int kNumScales = 4;

/// Smallest accepted width and height. Level 3's DWT needs at least 5
/// samples on each side (ceil(n/8) >= 5); below that libvmaf 3.2.0 builds a
/// tap index of -1 and reads memory outside the band (its results change
/// from run to run). libvmaf 3.0/3.1 refused 32 px and below as well.
inline constexpr int kMinSize = 33;

/// Smallest accepted norm_view_dist × ref_display_height (3 × 1080):
/// libvmaf's fixed-point pipeline refuses lower angular resolutions.
inline constexpr double kMinViewDistTimesHeight = 3.0 * 1080;

/// Options of the computation (libvmaf's adm_* options that change numbers).
struct AdmParams {
  double enhn_gain_limit = 100.0;  ///< >= 1; 1 disables enhancement gain
  CsfParams csf{};                 ///< viewing condition and CSF
  double noise_weight = 0.03125;   ///< noise-floor weight (>= 0)
  bool skip_aim = false;           ///< AIM numerator left at 0
  bool skip_scale0 = false;        ///< level 0 only low-passed: num 0, den 1e-10
};

/// Per-frame results, as libvmaf's integer_compute_adm returns them.
struct AdmResult {
  double adm2 = 1.0;  ///< num / den; 1 when den == 0 (after the limit)
  double aim = 0.0;   ///< aim_num / den; 0 when den == 0 (libvmaf leaves it undefined)
  double num = 0.0;   ///< Σ num_scale, 0 if below the numden limit
  double den = 0.0;   ///< Σ den_scale, 0 if below the numden limit
  std::array<float, kNumScales> num_scale{};  ///< per-level numerator (float)
  std::array<float, kNumScales> den_scale{};  ///< per-level denominator (float)

  /// integer_adm_scale<s>: num_scale / den_scale in double. libvmaf divides
  /// unguarded; VQE returns 1 when den_scale is 0, which only happens with
  /// adm_noise_weight = 0 on a reference without detail at that level
  /// (libvmaf gives NaN or inf there).
  double scale_score(int s) const {
    if (den_scale[s] == 0.0f) return 1.0;
    return static_cast<double>(num_scale[s]) / static_cast<double>(den_scale[s]);
  }
};

/// ADM's refusals, shared by every backend: throws vqe::Error (naming "adm"
/// and the limit) if width or height < kMinSize, if norm_view_dist ×
/// ref_display_height < kMinViewDistTimesHeight, if a blend CSF mode has no
/// table for the viewing condition, or on a bit depth other than 8, 10, 12,
/// 16.
void check_format(int width, int height, int bit_depth, const AdmParams& params);

/// The CSF weights in the fixed-point forms of the integer kernels.
struct FixedWeights {
  std::uint16_t level0[3] = {};                ///< Q21 (h, v) and Q23 (d)
  std::uint32_t level123[kNumScales][3] = {};  ///< Q32 (h, v, d); entries 1..3 used
};
/// libvmaf's fixed-point CSF weights for `csf` (integer_adm.c's init,
/// including its hard-coded level-0 constants for Watson at 3 heights x
/// 1080 lines and its x86 conversion of out-of-range values).
FixedWeights fixed_weights(const CsfParams& csf);

/// The integer sums one frame's ADM reduces to, per level and orientation
/// (h, v, d): the denominator sums, and the contrast-masking sums of the
/// restored image (num) and of the additive impairment (aim), each after
/// libvmaf's per-row rounding and shifts. The CPU and the CUDA paths both
/// produce them; AdmScorer turns them into scores.
struct LevelSums {
  std::uint64_t den[kNumScales][3] = {};
  std::int64_t num[kNumScales][3] = {};
  std::int64_t aim[kNumScales][3] = {};
};

/// ADM's scores from LevelSums for one frame size and option set: libvmaf's
/// integer-to-float conversions, CSF weights, cube roots, noise floors and
/// its final numden limit (libvmaf/src/feature/integer_adm.c). Shared by the
/// CPU and CUDA extractors so that both finish identically.
class AdmScorer {
 public:
  /// `width` x `height`: the luma size; `params`: options already validated
  /// (IntegerAdm's constructor refuses bad ones).
  AdmScorer(int width, int height, const AdmParams& params);
  /// The frame's result. Levels skipped by the options (adm_skip_scale0,
  /// adm_skip_aim) ignore their sums.
  AdmResult score(const LevelSums& sums) const;

 private:
  float den_level0_total(const std::uint64_t accum[3], int area) const;
  float den_level123_total(const std::uint64_t accum[3], int w, int h, int scale) const;
  float masked_level123_total(const std::int64_t accum[3], int w, int h, int scale,
                              double noise_weight) const;

  int width_, height_;
  AdmParams params_;
  std::array<std::array<float, 3>, kNumScales> weight_{};  ///< CSF weight per level: h, v, d
};

/// One frame's reference-only ADM work (IntegerAdm::compute_reference): per
/// DWT level, the reference's detail bands (h, v, d: int16 at level 0, int32
/// at levels 1-3, row-major, `stride` samples per row, `height` rows of
/// `width` samples) and the level's denominator sums (LevelSums::den).
/// Immutable once computed, so that the jobs of a ladder can share it; about
/// 3 bytes per luma sample (5.8 MB for 1080p).
struct ReferenceFrame {
  /// One level's part.
  struct Level {
    int width = 0;   ///< band size
    int height = 0;
    int stride = 0;  ///< samples per band row
    std::array<LargeVector<std::int16_t>, 3> band16;  ///< level 0: h, v, d
    std::array<LargeVector<std::int32_t>, 3> band32;  ///< levels 1-3: h, v, d
    std::uint64_t den[3] = {};                        ///< denominator sums: h, v, d
    /// Band `theta` (0 h, 1 v, 2 d) in the sample type B of the level.
    template <typename B>
    const B* band(int theta) const {
      if constexpr (sizeof(B) == 2)
        return band16[theta].data();
      else
        return band32[theta].data();
    }
    template <typename B>
    B* band(int theta) {
      return const_cast<B*>(static_cast<const Level&>(*this).band<B>(theta));
    }
  };
  std::array<Level, kNumScales> level{};
  int width = 0;  ///< the luma size and bit depth it was computed for
  int height = 0;
  int bit_depth = 0;
};

/// Integer ADM of one video format. Holds every buffer (allocated once in the
/// constructor); compute() allocates nothing. One instance per thread.
class IntegerAdm {
 public:
  /// Prepares for `width` × `height` luma planes at `bit_depth` (8, 10, 12
  /// or 16). Throws vqe::Error if width or height < kMinSize, if
  /// norm_view_dist × ref_display_height < 3240, if a blend CSF mode has no
  /// table for the viewing condition, or on a bad bit depth. `level`: the
  /// CPU level. Level::scalar runs the reference: libvmaf's separate passes
  /// over full bands, on one thread. The SIMD levels run each level as one
  /// streamed pass over rows (row tiles on the job's threads) with the
  /// level's kernels; both give the same integer sums.
  IntegerAdm(int width, int height, int bit_depth, const AdmParams& params, simd::Level level);

  /// Scores the luma planes `ref` and `dis` (width × height samples, uint8_t
  /// at 8 bits and uint16_t above, strides in bytes). With `tiles` (width >
  /// 1) the SIMD path cuts each level's single pass into row tiles run on
  /// the runner's threads; the per-row integer sums add up to the same
  /// totals, so the result is identical. The scalar reference path always
  /// runs on the calling thread. The first call allocates the row buffers
  /// of each thread (and the full bands, on the scalar path).
  AdmResult compute(const Plane& ref, const Plane& dis, TileRunner* tiles = nullptr);

  /// Whether compute() may run in two parts (compute_reference() and
  /// compute_pair()): on the SIMD levels' streamed path, with level 0 scored
  /// (not adm_skip_scale0).
  bool splits_reference() const { return streamed_ && !params_.skip_scale0; }
  /// compute() in two parts, for reference work shared between jobs: the
  /// reference part of one frame (every level's DWT of `ref` and its
  /// denominator sums) into `frame`, whose buffers are reused when they have
  /// the sizes already (a frame recycled from an earlier call for this
  /// format: no allocation). Depends only on `ref` and the format, not on
  /// the options or the CPU level. Row tiles as in compute(). Throws
  /// vqe::Error unless splits_reference().
  void compute_reference(const Plane& ref, ReferenceFrame& frame, TileRunner* tiles = nullptr);
  /// The pair part: the frame's result from compute_reference()'s `frame`
  /// (made by any instance of this format) and the distorted plane `dis`.
  /// Equals compute(ref, dis) bit for bit. Throws vqe::Error unless
  /// splits_reference(), or if `frame` has another format.
  AdmResult compute_pair(const ReferenceFrame& frame, const Plane& dis,
                         TileRunner* tiles = nullptr);

 private:
  /// Four bands of one level, row-major with stride stride0_ (level 0) or
  /// stride1_ (levels 1-3), in samples.
  template <typename T>
  struct Bands {
    LargeVector<T> a, h, v, d;  // large: huge pages (core/large_buffer.h)
    T* orient(int theta) { return theta == 0 ? h.data() : theta == 1 ? v.data() : d.data(); }
    const T* orient(int theta) const {
      return theta == 0 ? h.data() : theta == 1 ? v.data() : d.data();
    }
  };


  template <typename T>
  void dwt_level0(const Plane& src, Bands<std::int16_t>& dst, int w, int h);
  template <typename S>
  void dwt_level123(const S* ref_ll, const S* dis_ll, int src_stride, int w, int h, int scale);
  void make_tap_indices(int h);

  void decouple_level0(int w, int h);
  void decouple_level123(int w, int h);
  void csf_denominator_level0(int w, int h, std::uint64_t accum[3]) const;
  void csf_denominator_level123(int w, int h, int scale, std::uint64_t accum[3]) const;
  void csf_level0(const Bands<std::int16_t>& src, int w, int h);
  void csf_level123(const Bands<std::int32_t>& src, int w, int h, int scale);
  void masked_sum_level0(const Bands<std::int16_t>& target, int w, int h,
                         std::int64_t accum[3]) const;
  /// SIMD path of level 0 (unless adm_skip_scale0): DWT, decoupling,
  /// denominator, masker terms and masking sums (AIM when `aim` is not null)
  /// in one pass over the rows, with row buffers instead of full bands
  /// except the LL bands. Same results as the separate passes.
  ///
  /// With `out`, only the reference part (compute_reference(): `dis` is not
  /// read; `sums` untouched); with `in`, only the pair part (compute_pair():
  /// `ref` is not read; the reference's bands and denominator come from
  /// `in`).
  template <typename T>
  void level0_streamed(const Plane& ref, const Plane& dis, LevelSums& sums, TileRunner& runner,
                       ReferenceFrame* out = nullptr, const ReferenceFrame* in = nullptr);
  void masked_sum_level123(const Bands<std::int32_t>& target, int w, int h, int scale,
                           std::int64_t accum[3]) const;
  /// SIMD path of levels 1-3 (one pass over the rows like level0_streamed)
  /// on the previous LL bands (`w_in` x `h_in`, `src_stride` samples).
  /// `out` and `in` as in level0_streamed (the unread side's LL may be null).
  template <typename S>
  void level123_streamed(const S* ref_ll, const S* dis_ll, int src_stride, int w_in, int h_in,
                         int scale, LevelSums& sums, TileRunner& runner,
                         ReferenceFrame* out = nullptr, const ReferenceFrame* in = nullptr);

  /// compute_reference() (`out`: the reference's side into it) or
  /// compute_pair() (`in`: the distorted side against it) on `plane`, level
  /// by level; the pair part's sums go to `sums`.
  void streamed_part(const Plane& plane, LevelSums& sums, TileRunner* tiles, ReferenceFrame* out,
                     const ReferenceFrame* in);

  /// Row buffers of one thread's streamed rows: vertical-pass rows, band
  /// row rings [12 bands][3 rows] (ref h v d, dis h v d, restored h v d,
  /// additive h v d; the first six use one row), masker-term rings
  /// [pass][3 rows], and the LL rows of a tile's extra rows (discarded).
  struct StreamScratch {
    std::vector<std::int16_t> tmp16, ring16, ll16;
    std::vector<std::int32_t> tmp32, ring32, ring_mask, ring_centre, ll32;
  };
  /// One tile's integer sums: denominator per orientation, masking sums per
  /// pass (num, AIM) and orientation.
  struct StreamSums {
    std::uint64_t den[3] = {0, 0, 0};
    std::int64_t masked[2][3] = {{0, 0, 0}, {0, 0, 0}};
    /// Copies the sums to level `level` of `out` (num, aim).
    void store(LevelSums& out, int level) const {
      for (int t = 0; t < 3; ++t) {
        out.den[level][t] = den[t];
        out.num[level][t] = masked[0][t];
        out.aim[level][t] = masked[1][t];
      }
    }
  };
  static StreamSums add_tiles(const StreamSums* tiles, unsigned count);
  /// Runs `fn(scratch, sums, rows)` for each row tile of a w x h level on
  /// `runner` (`sums` zeroed, the tile's own) and returns the tiles' sums
  /// added.
  template <typename Fn>
  StreamSums sum_tiles(int w, int h, TileRunner& runner, const Fn& fn);
  /// One level of the SIMD path over band rows of a w x h level (stride
  /// `st`) in row tiles: `ops` supplies the level's row kernels (DWT,
  /// decoupling, masker terms, masking and denominator sums); the LL rows
  /// go to ref_ll / dis_ll. Returns the level's integer sums.
  /// With `shared`, the reference's band rows are read from it (no
  /// reference DWT, `ref_ll` not written; the denominator is left at 0).
  template <typename B, typename Ops>
  StreamSums stream_level(int w, int h, std::size_t st, int passes, B* ref_ll, B* dis_ll,
                          const Ops& ops, TileRunner& runner,
                          const ReferenceFrame::Level* shared = nullptr);
  /// The reference part of stream_level: the reference's DWT rows of the
  /// level into `out`'s bands (sized here) and its LL rows to `ref_ll`, and
  /// the denominator sums into out.den.
  template <typename B, typename Ops>
  void stream_reference(int w, int h, std::size_t st, B* ref_ll, const Ops& ops,
                        TileRunner& runner, ReferenceFrame::Level& out);
  /// Slot `slot`'s row buffers (allocated on its first use).
  StreamScratch& scratch(unsigned slot);
  /// Allocates the full detail bands and masker planes of the scalar passes
  /// (once).
  void allocate_full_bands();
  static constexpr unsigned kMaxTiles = 256;
  static constexpr int kMinTileRows = 16;

  int width_, height_, bit_depth_;
  AdmParams params_;
  const AdmDsp& dsp_;  ///< the CPU level's row kernels (streamed passes, level-0 DWT)
  bool streamed_;      ///< SIMD level: one streamed pass per level
  std::optional<AdmScorer> scorer_;  ///< set once the options are validated
  int stride0_;  ///< samples per level-0 band row: ceil(width / 2)
  int stride1_;  ///< samples per band row at levels 1-3: ceil(stride0_ / 2)
  FixedWeights fixed_{};
  float cos_1deg_sq_;

  std::array<std::vector<int>, 4> tap_y_;  ///< DWT input rows per output row
  /// Samples added to each vertical-pass row: 1 mirrored tap before, 2
  /// after, the rest slack.
  static constexpr int kRowPad = 16;
  int tmp_pitch0_ = 0;  ///< samples per tmp16_ row: width + kRowPad
  int tmp_pitch1_ = 0;  ///< samples per tmp32_ row: stride0_ + kRowPad
  std::vector<std::int16_t> tmp16_;   ///< level-0 vertical pass: lo and hi rows (padded)
  std::vector<std::int32_t> tmp32_;   ///< levels 1-3: ref lo/hi, dis lo/hi rows (padded)

  // Level 0 (16-bit).
  Bands<std::int16_t> ref16_, dis16_, restored16_, additive16_;
  LargeVector<std::int32_t> mask_sum0_, centre_sum0_;  ///< masker terms, Σ over h, v, d
  // Levels 1–3 (32-bit).
  Bands<std::int32_t> ref32_, dis32_, restored32_, additive32_;
  LargeVector<std::int32_t> mask_sum1_, centre_sum1_;
  LargeVector<std::int32_t> ll_ref_, ll_dis_;  ///< LL band of levels 1-2 feeding the next
  std::size_t band0_ = 0, band1_ = 0;           ///< samples per band, level 0 and 1-3
  std::vector<std::unique_ptr<StreamScratch>> scratch_;  ///< per tile slot
};

}  // namespace vqe::adm
