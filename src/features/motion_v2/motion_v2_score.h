// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `motion_v2` extractor's definition, shared by its CPU compute
/// (motion_v2.cpp), its CUDA compute (motion_v2_cuda.cu) and its Vulkan
/// compute (motion_v2_vulkan.cpp): options, emitted names, refusals, the
/// per-frame score from a frame's SAD, and motion2_v2 / motion3_v2.
///
/// Source of the definition: lusoris/vmaf (a public fork of libvmaf),
/// libvmaf/src/feature/integer_motion_v2.c at commit
/// c2a3c7e0febd98a6831b9bfebe5e298e229b1244 (the file's last change there is
/// e2f4e797). That extractor, `motion_v2`, reads the reference luma only:
/// frame i's SAD is Σ|blur(ref[i-1] − ref[i])| with libvmaf's 5-tap integer
/// filter {3571, 16004, 26386, 16004, 3571}/65536, the vertical pass rounded
/// to bpc fractional bits, the horizontal one to 16, reflect-101 borders and
/// 32-bit row sums — the arithmetic of libvmaf 3.2.0's integer motion (Netflix
/// made this pipeline its `motion` before 3.2.0, commit a4a1492d), so the
/// three backends use `motion`'s kernels (motion_kernels.h, motion_sad.cuh,
/// motion_sad.comp). The score is SAD / 256 / (w·h) times
/// motion_fps_weight, capped at motion_max_val; frame 0 (and every frame
/// under motion_force_zero) is 0.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::motion_v2 {

/// The fork's options of `motion_v2` (names, aliases, defaults, ranges; all
/// are feature parameters): motion_force_zero (force_0), motion_blend_factor
/// (mbf), motion_blend_offset (mbo), motion_fps_weight (mfw), motion_max_val
/// (mmxv), motion_five_frame_window (mffw; accepted as an option but refused
/// by init(), as the fork does), motion_moving_average (mma).
std::vector<OptionSpec> options();
/// The fork's provided_features of `motion_v2`, in its order:
/// VMAF_integer_feature_motion_v2_sad_score,
/// VMAF_integer_feature_motion2_v2_score,
/// VMAF_integer_feature_motion3_v2_score (none has an alias).
const std::vector<std::string>& provided_features();
/// ExtractorInfo::first_written: the fork writes the SAD score at every
/// frame (from frame 0) and motion2_v2 / motion3_v2 only in flush(), after
/// the last frame.
unsigned first_written(const std::string& name, const ParsedOptions& options);

/// The outputs of one `motion_v2` instance over one video: per-frame SAD
/// scores in frame order; motion2_v2 and motion3_v2 of a frame once the
/// next frame's score is known (all of them after flush()).
class Scorer {
 public:
  /// Reads the options of "motion_v2".
  explicit Scorer(const ParsedOptions& opts);

  /// Refusals for `format`, in the fork's order: luma smaller than 3x3 (the
  /// 5-tap mirror needs 3 samples per side), then
  /// motion_five_frame_window=true (the fork does not implement it).
  /// Accepts every bit depth VQE reads (8, 10, 12, 16) and every chroma
  /// format (luma only). Starts a new video.
  void init(const VideoFormat& format);
  /// Emitted names, in output order: the SAD score, motion2_v2, motion3_v2,
  /// each with the option suffix (ParsedOptions::feature_name).
  std::vector<std::string> feature_names() const;
  /// True under motion_force_zero: every score is 0 and no SAD is computed.
  bool force_zero() const { return force_zero_; }

  /// The score of a frame of `width` x `height` luma samples whose blurred
  /// difference with the previous frame has absolute sum `sad` (16
  /// fractional bits per sample, i.e. 256 per unit of 8-bit luma): sad /
  /// 256 / (w·h) in double, times motion_fps_weight, capped at
  /// motion_max_val (the fork's MIN macro).
  double frame_score(std::uint64_t sad, int width, int height) const;

  /// Records frame `index`'s score (pass 0 for frame 0 and under
  /// motion_force_zero) and emits it; frames must come in order 0, 1, ....
  /// Also emits motion2_v2 and motion3_v2 of the previous frame, whose
  /// look-ahead has now arrived.
  void emit(unsigned index, double score, FeatureCollector& out);
  /// Frames of look-ahead: motion2_v2 of frame i needs frame i + 1's score.
  static constexpr unsigned lag() { return 1; }

  /// Emits motion2_v2 and motion3_v2 of the frames emit() has not finished
  /// (the last one): the fork's flush(), where the last frame keeps its own
  /// score as motion2_v2.
  void flush(FeatureCollector& out);

 private:
  double blend_factor_, blend_offset_, fps_weight_, max_val_;
  bool five_frame_, moving_average_, force_zero_;
  std::string sad_name_, motion2_name_, motion3_name_;
  std::vector<double> scores_;
  std::size_t smoothed_ = 0;     // frames whose motion2_v2/motion3_v2 are out
  double prev_processed_ = 0.0;  // motion3_v2's moving-average state

  void emit_smoothed(std::size_t i, FeatureCollector& out);
};

/// The CUDA compute of `motion_v2` (motion_v2_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `motion_v2` (motion_v2_vulkan.cpp; Vulkan builds
/// only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::motion_v2
