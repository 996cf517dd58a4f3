// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `motion` extractor's definition, shared by its CPU compute
/// (motion.cpp) and its CUDA compute (motion_cuda.cu): options, emitted
/// names, the per-frame score from a frame's SAD, and motion2 / motion3 for
/// every frame at the end of the video (libvmaf 3.2.0 integer_motion.c's
/// extract() and flush(); libvmaf 3.0's float division under motion_legacy).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "vqe/picture.h"

#include "core/options.h"
#include "vqe/feature_collector.h"

namespace vqe::motion {

/// libvmaf's MIN macro: the first argument unless the second is smaller.
inline double vmaf_min(double a, double b) { return a < b ? a : b; }

/// libvmaf motion_blend_tools.h: blends a score with its value clipped at
/// `offset`, by `factor` (motion3 of integer and float motion).
inline double motion_blend(double score, double factor, double offset) {
  return score * factor + (1 - factor) * vmaf_min(offset, score);
}

/// libvmaf 3.2.0's options of `motion`, plus VQE's motion_legacy.
std::vector<OptionSpec> options();
/// libvmaf's provided_features of `motion`.
const std::vector<std::string>& provided_features();
/// ExtractorInfo::first_written: libvmaf 3.2.0 (integer_motion.c) writes
/// integer_motion2 and integer_motion3 in flush(), after every frame; the
/// rest at each frame.
unsigned first_written(const std::string& name, const ParsedOptions& options);

/// The outputs of one `motion` instance over one video: per-frame scores in
/// frame order, motion2 and motion3 at the end.
class Scorer {
 public:
  /// Reads the options of "motion".
  explicit Scorer(const ParsedOptions& opts);

  /// Refusals for `format` (any size >= 1x1, 8/10/12/16 bits) and a new
  /// video.
  void init(const VideoFormat& format);
  /// Emitted names, in output order: the SAD score, integer_motion (debug),
  /// integer_motion2, integer_motion3 (with option suffixes).
  std::vector<std::string> feature_names() const;
  bool force_zero() const { return force_zero_; }
  bool legacy() const { return legacy_; }

  /// The score of a frame of `width` x `height` luma samples whose blurred
  /// difference has absolute sum `sad` (16 fractional bits per sample, i.e.
  /// 256 per unit of 8-bit luma): sad / 256 / area, times
  /// motion_fps_weight, capped at motion_max_val. In legacy mode the
  /// quotient is libvmaf 3.0's float division.
  double frame_score(std::uint64_t sad, int width, int height) const;

  /// Emits frame `index`'s score (0 for frames without a comparison) and
  /// records it; frames must come in order. Also emits motion2 and motion3
  /// of every frame whose look-ahead has now arrived: frame i's values are
  /// final once frame i + lag() has been emitted (all of them after flush()).
  void emit(unsigned index, double score, FeatureCollector& out);
  /// Frames of look-ahead that motion2 and motion3 need: step().
  unsigned lag() const { return step(); }
  /// Frame distance of the comparison: 2 with motion_five_frame_window,
  /// else 1.
  unsigned step() const { return five_frame_ ? 2 : 1; }

  /// Emits motion2 (the smaller of the scores around each frame, libvmaf's
  /// look-ahead) and motion3 (motion2 blended above motion_blend_offset,
  /// capped, optionally averaged with the previous frame) for the frames
  /// recorded that emit() has not smoothed yet (the video's end).
  void flush(FeatureCollector& out);

 private:
  double blend_factor_, blend_offset_, fps_weight_, max_val_;
  bool five_frame_, moving_average_, legacy_, force_zero_, debug_;
  std::string sad_name_, motion_name_, motion2_name_, motion3_name_;
  std::vector<double> scores_;
  std::size_t smoothed_ = 0;     // frames whose motion2/motion3 are emitted
  double prev_processed_ = 0.0;  // motion3's moving average state

  void emit_smoothed(std::size_t i, FeatureCollector& out);
};

/// The CUDA compute of `motion` (motion_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `motion` (motion_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);


}  // namespace vqe::motion
