// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Scalar kernels of the float motion feature ("float_motion"), in
/// libvmaf 3.2.0's float precision and operation order
/// (libvmaf/src/feature/float_motion.c, motion.c, motion_tools.h,
/// common/convolution.c, vif_tools.c bilinear scaling, picture_copy.c).
///
/// All planes here are dense float arrays: `width` × `height` floats, row
/// stride `width` (no padding).

#include <cstdint>
#include <vector>

#include "vqe/picture.h"

namespace vqe::float_motion {

/// The blur filters of motion_tools.h (float coefficients).
inline constexpr float kFilter5[5] = {0.054488685f, 0.244201342f, 0.402619947f, 0.244201342f,
                                      0.054488685f};
inline constexpr float kFilter3[3] = {0.166378498f, 0.667243004f, 0.166378498f};
/// motion_filter_size=1: a 5-tap identity, still applied as a convolution.
inline constexpr float kFilter5NoOp[5] = {0.0f, 0.0f, 1.0f, 0.0f, 0.0f};

/// Reflect-101 mirror of libvmaf's convolution_edge_s (-i below 0,
/// 2(n-1)-i at or above n), folded again until inside [0, n) for sizes
/// smaller than the filter (where libvmaf reads outside the frame).
int mirror_reflect101(int i, int n);

/// Separable convolution (vertical pass, then horizontal) with a symmetric
/// float filter of odd width `fwidth` <= 5, reflect-101 borders, float
/// accumulation in tap order (libvmaf convolution_f32_c_s). `row` is scratch
/// of at least width + fwidth - 1 floats.
void convolve(const float* filter, int fwidth, const float* src, float* dst, int width,
              int height, float* row);

/// Precomputed bilinear half-scale sampling (libvmaf vif_scale_frame_s with
/// vif_scale_bilinear) from src_w × src_h to dst_w × dst_h, where
/// dst = (int)(src * 0.5 + 0.5).
struct BilinearPlan {
  int src_w = 0, src_h = 0, dst_w = 0, dst_h = 0;
  std::vector<int> x1, x2, y1, y2;
  std::vector<float> dx, dy;
};
BilinearPlan make_half_scale_plan(int src_w, int src_h);
/// Applies `plan`; `dst` holds dst_w × dst_h floats. Copies when the sizes
/// are equal.
void bilinear_scale(const BilinearPlan& plan, const float* src, float* dst);

/// Mean absolute difference of two width × height planes as libvmaf's
/// vmaf_image_sad_c: per-row float sums, a float total, divided in float by
/// width·height.
float mean_abs_difference(const float* a, const float* b, int width, int height);

}  // namespace vqe::float_motion
