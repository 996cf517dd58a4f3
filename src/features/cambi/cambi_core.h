// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file CAMBI (Contrast Aware Multiscale Banding Index), scalar reference
/// path. Follows libvmaf 3.2.0 libvmaf/src/feature/cambi.c (plain C path)
/// step by step so that every integer intermediate (10-bit picture, spatial
/// mask, histograms) is bit-identical and the float/double arithmetic is done
/// in the same order and precision.
///
/// Pipeline for one picture (luma only):
///  1. preprocess: convert to 10 bits (8-bit: << 2; 12/16-bit: rounded >> 2/6),
///     nearest-neighbour resample to the encoding resolution, and for encodes
///     below 10 bits a 2x2 anti-dithering average;
///  2. spatial mask: a pixel counts as "flat" when neither the sample to
///     its right nor the one below differs from it; mask = (flat count in
///     the 7x7 box) > threshold(resolution);
///  3. for 5 scales (halving each time; with the high-res speed-up the first
///     scale is already halved): 3x3 mode filter, per-pixel banding
///     confidence ("c-value") from sliding-window luma histograms, top-k mean;
///  4. weighted sum of the scale scores, divided by the window area.

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "features/cambi/luminance.h"
#include "vqe/picture.h"

namespace vqe::cambi {

/// Number of scales CAMBI evaluates.
inline constexpr int kNumScales = 5;
/// Minimum of max(width, height) libvmaf accepts (CAMBI_MIN_WIDTH_HEIGHT).
inline constexpr int kMinWidthOrHeight = 216;
/// Size of libvmaf's reciprocal table; window_size² must stay below it.
inline constexpr int kReciprocalTableSize = 4226;

/// The reciprocal table libvmaf uses for the c-values: entry i is the float
/// nearest to 1/i printed with 9 significant digits (libvmaf stores those
/// decimal literals, which differ from 1.0f/i in 42 entries); entry 0 is 0.
const std::array<float, kReciprocalTableSize>& reciprocal_table();

/// Largest code value (10-bit limited range) at which a step of `diff` code
/// values is still below the visibility threshold
/// `tvi_threshold`·L(sample) (libvmaf's get_tvi_for_diff, bisection).
int tvi_for_diff(int diff, double tvi_threshold, LumaRange range, Eotf eotf);

/// Smallest code value whose luminance reaches `threshold` cd/m², or 0 if
/// already the foot does (libvmaf's get_vlt_luma). Returns -1 if no code
/// value up to 65535 reaches it (libvmaf would loop forever).
int visibility_luma_threshold(double threshold, LumaRange range, Eotf eotf);

/// Window size after scaling to the resolution (libvmaf's
/// adjust_window_size): (ws·(w+h)/375) >> 4, halved (rounding up) with the
/// high-res speed-up, then forced odd.
int adjusted_window_size(int window_size, int width, int height, bool high_res_speedup);

/// Spatial-mask threshold for a width×height picture (libvmaf's
/// get_mask_index with the 7×7 filter).
int mask_threshold(int width, int height);

/// Why a picture cannot be scored without reading outside itself, or empty.
/// libvmaf reads rows/columns beyond the scaled picture when a scale's
/// height is below the half window, or the full picture is narrower than it;
/// VQE refuses those shapes. `width`×`height` is the processed resolution.
std::string degenerate_shape_reason(int width, int height, int window_size,
                                    bool high_res_speedup);

/// Settings shared by every picture of a CAMBI instance.
struct Settings {
  int num_diffs = 4;                  ///< 1 << max_log_contrast (1..32)
  std::vector<int> diff_weights;      ///< contrast weights, num_diffs entries
  std::vector<int> tvi_adjusted;      ///< tvi_for_diff(d+1) + num_diffs
  int vlt_luma = 0;                   ///< visibility luma threshold (10-bit)
};

/// Writes per-scale c-value maps as 16-bit raw files (libvmaf's heatmaps_path).
class HeatmapWriter {
 public:
  HeatmapWriter() = default;
  HeatmapWriter(const HeatmapWriter&) = delete;
  HeatmapWriter& operator=(const HeatmapWriter&) = delete;
  ~HeatmapWriter();
  /// Creates `dir` and opens cambi_heatmap_scale_<s>_<w>x<h>_16b.gray for
  /// each scale, the sizes halving (rounded up) from width×height. Throws
  /// vqe::Error if a file cannot be opened.
  void open(const std::string& dir, int width, int height);
  bool is_open() const { return files_[0] != nullptr; }
  /// Writes one scale's c-values (width×height floats) for frame `frame`,
  /// scaled so that the largest possible c-value maps to 65535.
  void write(int scale, const float* c_values, int width, int height, int window_size,
             const Settings& settings, unsigned frame);

 private:
  std::array<std::FILE*, kNumScales> files_{};
  std::vector<std::uint16_t> row_;  // one output row, sized in open()
};

/// Scratch buffers and the scalar algorithm. One instance per thread.
class Scorer {
 public:
  /// Allocates buffers for pictures up to alloc_width×alloc_height (the
  /// processed, not the input, resolution).
  void init(int alloc_width, int alloc_height, const Settings& settings);

  /// CAMBI score of `luma` (plane 0 of a picture at `bit_depth` bits,
  /// input_width×input_height samples) processed at width×height.
  /// Throws vqe::Error if a sample exceeds the bit depth's maximum (as
  /// libvmaf's validate_image). `heatmaps` may be null.
  double score(const Plane& luma, int bit_depth, int width, int height, int enc_bit_depth,
               int window_size, double topk, bool high_res_speedup, HeatmapWriter* heatmaps,
               unsigned frame);

 private:
  void preprocess(const Plane& luma, int bit_depth, int width, int height, int enc_bit_depth);
  void spatial_mask(int width, int height);
  void decimate(std::vector<std::uint16_t>& buf, int width, int height);
  void mode_filter(int width, int height);
  void compute_c_values(int width, int height, int window_size);
  void histogram_update_row(int row, int width, int pad, int delta);
  void c_values_row(int row, int width);
  double pool(int width, int height, double topk);

  Settings settings_;
  int stride_ = 0;  // samples per row of image_ and mask_
  int alloc_height_ = 0;
  std::vector<std::uint16_t> image_;   // 10-bit picture, processed in place
  std::vector<std::uint16_t> mask_;    // 0/1 spatial mask, decimated in place
  std::vector<float> c_values_;
  std::vector<std::uint16_t> histograms_;  // [band value][column]
  int band_base_ = 0;   // lowest 10-bit value tracked by the histograms
  int band_size_ = 0;   // number of values tracked
  int hist_rows_ = 0;   // allocated rows (band_size_ + spare zero rows)
  int hist_width_ = 0;  // columns of the current scale
  std::vector<std::uint16_t> mode_rows_;   // 3 rows for the mode filter
  std::vector<std::uint8_t> flat_rows_;    // 7-row ring of "flat" flags
  std::vector<std::uint32_t> column_sums_;
};

}  // namespace vqe::cambi
