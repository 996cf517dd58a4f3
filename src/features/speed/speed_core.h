// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file SpEED (Spatial Efficient Entropic Differencing), scalar reference
/// path shared by the speed_chroma and speed_temporal extractors. Follows
/// libvmaf 3.2.0 libvmaf/src/feature/speed.c and the helpers it uses from
/// vif_tools.c (Gaussian kernels, separable filter, decimation, rescaling),
/// plain C path, with the same float/double precision at every step.
///
/// For each of the reference and distorted planes (as float, sample − 128 at
/// 8-bit scale): optional rescale by speed_prescale; Gaussian anti-alias
/// filter; decimation by 16; local-mean removal (small Gaussian); then on
/// 5x5 blocks a Gaussian scale mixture fit — covariance of the 25 block
/// positions, its eigenvalues, per-block variance by solving K·X = Y — gives
/// per-block entropies and variances; the score is the mean absolute
/// difference of variance-weighted entropies.

#include <cstddef>
#include <string>
#include <vector>

#include "vqe/picture.h"

namespace vqe::speed {

/// Rescaling method for speed_prescale (libvmaf's vif_scaling_method).
enum class ScaleMethod { kNearest, kBicubic, kLanczos4, kBilinear };

/// Parses "nearest", "bilinear", "bicubic" or "lanczos4". False otherwise.
bool parse_scale_method(const std::string& text, ScaleMethod* method);

/// True if `kernelscale` is within 1e-3 of one of libvmaf's 21 supported
/// kernel scales (vif_validate_kernelscale).
bool valid_kernelscale(float kernelscale);

/// Algorithm settings (libvmaf's SpeedOptions).
struct Options {
  double kernelscale = 1.0;
  double prescale = 1.0;
  ScaleMethod prescale_method = ScaleMethod::kNearest;
  double sigma_nn = 0.29;
  double nn_floor = 0.0;
  int weight_var_mode = 0;  ///< 0..6, how variances weight the entropies
};

/// Smallest rescaled plane side SpEED accepts: 5 blocks of 16 samples.
inline constexpr int kMinScaledSide = 5 * 16;

/// Rescaled side length for `side` samples: (int)(side·prescale + 0.5).
int scaled_side(int side, double prescale);

/// Scores reference/distorted planes of one fixed size. One instance per
/// thread: buffers are allocated once in init().
class Engine {
 public:
  /// Prepares for planes of width×height samples. Throws vqe::Error (message
  /// prefixed by `who`) if the kernel scale or rescaling method is invalid, or
  /// the rescaled plane is smaller than kMinScaledSide in either direction.
  void init(int width, int height, const Options& options, const std::string& who);

  /// Float frame buffers the caller fills (width×height samples, stride()
  /// floats per row); score() overwrites them.
  float* reference_buffer() { return ref_frame_.data(); }
  float* distorted_buffer() { return dis_frame_.data(); }
  std::size_t stride() const { return stride_; }

  /// SpEED score of the two buffers. Returns false when a covariance matrix
  /// was singular (libvmaf's error return): then `*score` is 0 if only one
  /// side was singular, else the score computed from zeroed solutions.
  bool score(float* reference, float* distorted, float* score);

 private:
  struct Results {
    std::vector<float> entropies;
    std::vector<float> variances;
  };
  void filter_and_downscale(float* frame);
  bool estimate(const float* data, Results& out);
  float speed_score() const;

  Options options_;
  // Dimensions (libvmaf's SpeedDimensions).
  int original_w_ = 0, original_h_ = 0;
  int scaled_w_ = 0, scaled_h_ = 0;
  int alloc_w_ = 0, alloc_h_ = 0;
  int truncated_w_ = 0, truncated_h_ = 0;
  int blocks_h_ = 0, blocks_v_ = 0, blocks_ = 0;
  int sub_w_ = 0, sub_h_ = 0;
  std::size_t stride_ = 0;

  std::vector<float> ref_frame_, dis_frame_;
  std::vector<float> curr_scale_, scale_tmp_, filter_row_;
  std::vector<float> antialias_filter_, local_filter_;
  std::vector<int> bilinear_x1_, bilinear_x2_;
  std::vector<float> bilinear_dx_;
  // Linear-algebra scratch.
  std::vector<float> cov_, means_, eigenvalues_, independent_, solution_;
  std::vector<float> mat_a_, mat_q_, mat_r_, mat_t1_, mat_t2_, vec_, rect_;
  std::vector<float> tri_d_, tri_sd_, tri_v_, tri_x_;
  Results ref_results_, dis_results_;
};

/// Copies plane samples to floats as libvmaf's picture_copy with offset −128:
/// 8-bit x − 128; 10/12/16-bit x / 4, 16, 256 − 128. `dst` has `dst_stride`
/// floats per row; plane.width × plane.height values are written.
void copy_plane(const Plane& plane, int bit_depth, float* dst, std::size_t dst_stride);

}  // namespace vqe::speed
