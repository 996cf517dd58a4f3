// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The host side of the integer motion feature, shared by the CPU
/// extractor (motion.cpp) and its CUDA twin (backend/cuda/motion.cu): the
/// per-frame score from a frame's SAD, and motion2 / motion3 for every frame
/// at the end of the video (libvmaf 3.2.0 integer_motion.c's extract() and
/// flush(); libvmaf 3.0's float division under motion_legacy).

#include <cstdint>
#include <string>
#include <vector>

#include "vqe/feature_collector.h"
#include "vqe/options.h"

namespace vqe::motion {

/// libvmaf's MIN macro: the first argument unless the second is smaller.
inline double vmaf_min(double a, double b) { return a < b ? a : b; }

/// libvmaf motion_blend_tools.h: blends a score with its value clipped at
/// `offset`, by `factor` (motion3 of integer and float motion).
inline double motion_blend(double score, double factor, double offset) {
  return score * factor + (1 - factor) * vmaf_min(offset, score);
}

/// Per-frame motion scores of one video, in frame order.
class Scorer {
 public:
  /// Reads the options of "motion" (motion_blend_factor, motion_blend_offset,
  /// motion_fps_weight, motion_max_val, motion_five_frame_window,
  /// motion_moving_average, motion_legacy).
  explicit Scorer(const ParsedOptions& opts);

  /// The score of a frame of `width` x `height` luma samples whose blurred
  /// difference has absolute sum `sad` (16 fractional bits per sample, i.e.
  /// 256 per unit of 8-bit luma): sad / 256 / area, times
  /// motion_fps_weight, capped at motion_max_val. In legacy mode the
  /// quotient is libvmaf 3.0's float division.
  double frame_score(std::uint64_t sad, int width, int height) const;

  /// Forgets every frame (a new video).
  void reset() { scores_.clear(); }
  /// Records the next frame's score (0 for frames without a comparison).
  void push(double score) { scores_.push_back(score); }
  /// Frame distance of the comparison: 2 with motion_five_frame_window,
  /// else 1.
  unsigned step() const { return five_frame_ ? 2 : 1; }

  /// Emits motion2 (the smaller of the scores around each frame, libvmaf's
  /// look-ahead) and motion3 (motion2 blended above motion_blend_offset,
  /// capped, optionally averaged with the previous frame) for every frame
  /// recorded, under the given names.
  void flush(const std::string& motion2_name, const std::string& motion3_name,
             FeatureCollector& out) const;

 private:
  double blend_factor_, blend_offset_, fps_weight_, max_val_;
  bool five_frame_, moving_average_, legacy_;
  std::vector<double> scores_;
};

}  // namespace vqe::motion
