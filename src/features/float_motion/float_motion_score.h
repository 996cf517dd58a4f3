// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `float_motion` extractor's definition, shared by its CPU compute
/// (float_motion.cpp) and its CUDA compute (float_motion_cuda.cu): options,
/// emitted names, refusals, the blur filter chosen by the options, and the
/// bookkeeping that turns per-frame motion values into motion, motion2 and
/// motion3 (libvmaf 3.2.0 libvmaf/src/feature/float_motion.c).

#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::float_motion {

/// libvmaf 3.2.0 float_motion.c's options.
std::vector<OptionSpec> options();

/// ExtractorInfo::first_written: libvmaf 3.2.0 (float_motion.c) first
/// writes motion3 while extracting frame 1 (for frame 0), or in flush() for
/// a one-frame video; with motion_force_zero every value at every frame.
unsigned first_written(const std::string& name, const ParsedOptions& options);

/// The outputs of one `float_motion` instance over one video. Emits
/// (libvmaf order) motion2, motion (debug, on by default), motion3 with
/// option suffixes.
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Refusals for `format` (any size >= 1x1 at 8/10/12/16 bits;
  /// motion_add_uv needs chroma planes) and a new video.
  void init(const VideoFormat& format);
  std::vector<std::string> feature_names() const;

  /// Frame `index` (in order) with `motion`, its motion against frame
  /// index − 1 (the planes' mean absolute differences, added; ignored at
  /// frame 0). Emits that frame's motion and the previous frame's motion2
  /// and motion3 (motion2 is the smaller of a frame's and the next frame's
  /// value). Under motion_force_zero every value is 0 and `motion` unused.
  void emit(unsigned index, double motion, FeatureCollector& out);
  /// Frames of look-ahead (motion2 and motion3 of frame i come with frame
  /// i + 1).
  unsigned lag() const { return force_zero_ ? 0 : 1; }
  /// The last frame's motion2 and motion3.
  void flush(FeatureCollector& out) const;

  bool force_zero() const { return force_zero_; }
  bool add_scale1() const { return add_scale1_; }
  bool add_uv() const { return add_uv_; }
  /// A frame's motion from its planes' mean absolute differences against
  /// the previous frame: per plane `scale0[p]` plus, with
  /// motion_add_scale1, `scale1[p]` (added in float), the `planes` planes
  /// added in double in plane order (float_motion.cpp's arithmetic).
  double motion_of_planes(const float* scale0, const float* scale1, int planes) const {
    double score = 0;
    for (int p = 0; p < planes; ++p) {
      const float plane = add_scale1_ ? scale0[p] + scale1[p] : scale0[p];
      if (p == 0)
        score = plane;
      else
        score += plane;
    }
    return score;
  }
  /// The blur filter (motion_filter_size): `filter_width()` taps.
  const float* filter() const { return filter_; }
  int filter_width() const { return filter_width_; }

 private:
  bool debug_, force_zero_;
  double fps_weight_, blend_factor_, blend_offset_;
  bool add_scale1_, add_uv_;
  double max_val_;
  std::string motion_name_, motion2_name_, motion3_name_;
  const float* filter_ = nullptr;
  int filter_width_ = 5;
  unsigned frames_ = 0, last_index_ = 0;
  double last_score_ = 0, prev_score_ = 0;
};

/// The CUDA compute of `float_motion` (float_motion_cuda.cu; CUDA builds
/// only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `float_motion` (float_motion_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::float_motion
