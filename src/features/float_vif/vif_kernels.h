// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Scalar kernels of the floating-point VIF metric (libvmaf's float_vif).
///
/// Definition: libvmaf 3.2.0, libvmaf/src/feature/vif.c (compute_vif),
/// vif_tools.c (Gaussian kernels, separable filtering, decimation, the
/// per-pixel statistic, the fast log2 and the prescalers) and float_vif.c.
/// Every expression keeps libvmaf's precision (float vs double) and operation
/// order, so the results are bit-identical to libvmaf's plain C path.

#include <array>
#include <cstddef>
#include <string>
#include <vector>

namespace vqe::float_vif {

/// Kernel scales libvmaf accepts for vif_kernelscale (vif_tools.h
/// valid_kernelscales; a value matches when within 1e-3 in float).
bool kernelscale_is_valid(double kernelscale);

/// Width (odd, >= 3) of the Gaussian kernel used at `scale` (0..3) for
/// `kernelscale` (vif_get_filter_size).
int filter_width(int scale, float kernelscale);

/// Fills `out[0..filter_width(scale, kernelscale))` with the normalised
/// Gaussian of standard deviation width / 5 (vif_get_filter).
void make_filter(float* out, int scale, float kernelscale);

/// libvmaf's polynomial log2 approximation (VIF_OPT_FAST_LOG2), bit-exact.
float log2_approx(float x);

/// Smallest frame side (in samples, applies to width and height alike) whose
/// every scale keeps libvmaf's mirrored filter reads inside the picture:
/// at each computed scale s the side d_s = side >> s must satisfy
/// d_s > filter_width(s) / 2. 16 for the default options.
int min_side(float kernelscale, bool skip_scale0);

/// Prescale methods of vif_prescale_method.
enum class ScaleMethod { kNearest, kBicubic, kLanczos4, kBilinear };

/// Parses "nearest", "bilinear", "bicubic" or "lanczos4"; false otherwise.
bool parse_scale_method(const std::string& text, ScaleMethod* out);

/// Widest output the bilinear prescaler accepts (VIF_BILINEAR_MAX_WIDTH).
inline constexpr int kBilinearMaxWidth = 7680;

/// Resamples a float plane (src_w × src_h, stride in floats) to dst_w × dst_h
/// (stride in floats) the way vif_scale_frame_s does. When the sizes are
/// equal it copies. Source reads whose mirrored index would fall outside the
/// plane (libvmaf reads out of bounds there, only for planes a few samples
/// wide) are clamped to the nearest edge sample.
void scale_frame(ScaleMethod method, const float* src, int src_w, int src_h,
                 std::ptrdiff_t src_stride, float* dst, int dst_w, int dst_h,
                 std::ptrdiff_t dst_stride);

/// Parameters of compute() (float_vif options of the same names).
struct VifParams {
  double enhn_gain_limit = 100.0;
  double kernelscale = 1.0;
  bool skip_scale0 = false;
  double sigma_nsq = 2.0;
};

/// Per-scale numerators and denominators (float sums widened to double, as
/// libvmaf stores them) plus their totals over the computed scales.
struct VifResult {
  std::array<double, 4> num{};  ///< scale 0..3; unset scales are 0
  std::array<double, 4> den{};
  double num_total = 0;
  double den_total = 0;
  double score = 0;  ///< num_total / den_total, or 1 when den_total is 0
};

/// Multi-scale VIF on float planes (compute_vif of libvmaf). Construct once
/// per frame size; compute() allocates nothing.
class VifComputer {
 public:
  VifComputer() = default;
  /// Prepares buffers for w × h planes. Requires w, h >= min_side(...) and
  /// a valid kernelscale (the caller checks and reports errors).
  VifComputer(int w, int h, const VifParams& params);

  /// Scores `ref` against `dis`, both w × h floats (pixel value − 128, in
  /// 8-bit units) with row stride `stride` in floats.
  VifResult compute(const float* ref, const float* dis, std::ptrdiff_t stride);

 private:
  int w_ = 0, h_ = 0;
  VifParams params_{};
  std::array<std::vector<float>, 4> filters_;
  std::array<int, 4> widths_{};
  // Decimated reference/distorted planes, ping-ponged between scales.
  std::vector<float> ref_buf_[2], dis_buf_[2];
  // Vertical-pass rows of the five filtered quantities, padded by the filter
  // half-width on each side, then their horizontal-pass rows.
  std::vector<float> rows_[10];
};

}  // namespace vqe::float_vif
