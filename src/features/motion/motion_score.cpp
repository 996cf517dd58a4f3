// SPDX-License-Identifier: BSD-2-Clause
#include "features/motion/motion_score.h"

#include "vqe/error.h"

namespace vqe::motion {
namespace {
constexpr const char* kSadName = "VMAF_integer_feature_motion_sad_score";
constexpr const char* kMotionName = "VMAF_integer_feature_motion_score";
constexpr const char* kMotion2Name = "VMAF_integer_feature_motion2_score";
constexpr const char* kMotion3Name = "VMAF_integer_feature_motion3_score";
}  // namespace

// libvmaf 3.2.0's options of "motion" (names, aliases, defaults, ranges and
// feature-parameter flags as in integer_motion.c), plus motion_legacy.
unsigned first_written(const std::string& name, const ParsedOptions&) {
  return name == "integer_motion2" || name == "integer_motion3" ? kWrittenAtFlush : 0;
}

std::vector<OptionSpec> options() {
  using T = OptionSpec::Type;
  return {
      OptionSpec{.name = "motion_force_zero", .alias = "force_0", .type = T::kBool,
                 .feature_param = true,
                 .help = "emit 0 for every motion score without computing it"},
      OptionSpec{.name = "motion_blend_factor", .alias = "mbf", .type = T::kDouble,
                 .default_value = 1.0, .min = 0.0, .max = 1.0, .feature_param = true,
                 .help = "in motion3, scale applied to the part of a score above motion_blend_offset (1 "
                 "= unchanged)"},
      OptionSpec{.name = "motion_blend_offset", .alias = "mbo", .type = T::kDouble,
                 .default_value = 40.0, .min = 0.0, .max = 1000.0, .feature_param = true,
                 .help = "in motion3, knee above which scores are scaled by motion_blend_factor"},
      OptionSpec{.name = "motion_fps_weight", .alias = "mfw", .type = T::kDouble,
                 .default_value = 1.0, .min = 0.0, .max = 5.0, .feature_param = true,
                 .help = "multiplier on every per-frame score, e.g. to compensate for frame rate"},
      OptionSpec{.name = "motion_max_val", .alias = "mmxv", .type = T::kDouble,
                 .default_value = 10000.0, .min = 0.0, .max = 10000.0, .feature_param = true,
                 .help = "ceiling of the motion scores; higher values are clamped to it"},
      OptionSpec{.name = "motion_five_frame_window", .alias = "mffw", .type = T::kBool,
                 .feature_param = true, .help = "compare each frame with frame n-2 instead of n-1"},
      OptionSpec{.name = "motion_moving_average", .alias = "mma", .type = T::kBool,
                 .feature_param = true,
                 .help = "motion3 = mean of this and the previous frame's blended score"},
      OptionSpec{.name = "debug", .type = T::kBool, .feature_param = false,
                 .help = "also emit integer_motion, a copy of the per-frame score"},
      // VQE addition. Not a feature parameter: the emitted names stay those
      // of libvmaf 3.0/3.1 (integer_motion2, ...), so a VMAF model and old
      // dashboards read the legacy values under the names they know.
      OptionSpec{.name = "motion_legacy", .type = T::kBool, .feature_param = false,
                 .help = "libvmaf 3.0/3.1 motion: blur each frame, then SAD of the blurred frames (far "
                 "border mirrored as 2n-1-i; score rounded to float)"},
  };
}


const std::vector<std::string>& provided_features() {
  static const std::vector<std::string> names = {kSadName, kMotionName, kMotion2Name,
                                                 kMotion3Name};
  return names;
}

Scorer::Scorer(const ParsedOptions& opts)
    : blend_factor_(opts.get_double("motion_blend_factor")),
      blend_offset_(opts.get_double("motion_blend_offset")),
      fps_weight_(opts.get_double("motion_fps_weight")),
      max_val_(opts.get_double("motion_max_val")),
      five_frame_(opts.get_bool("motion_five_frame_window")),
      moving_average_(opts.get_bool("motion_moving_average")),
      legacy_(opts.get_bool("motion_legacy")),
      force_zero_(opts.get_bool("motion_force_zero")),
      debug_(opts.get_bool("debug")),
      sad_name_(opts.feature_name(kSadName)),
      motion_name_(opts.feature_name(kMotionName)),
      motion2_name_(opts.feature_name(kMotion2Name)),
      motion3_name_(opts.feature_name(kMotion3Name)) {
  scores_.reserve(4096);
}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, "motion");
  scores_.clear();
  smoothed_ = 0;
  prev_processed_ = 0.0;
}

std::vector<std::string> Scorer::feature_names() const {
  std::vector<std::string> names{sad_name_};
  if (debug_) names.push_back(motion_name_);
  names.push_back(motion2_name_);
  names.push_back(motion3_name_);
  return names;
}

double Scorer::frame_score(std::uint64_t sad, int width, int height) const {
  const unsigned area = static_cast<unsigned>(width) * static_cast<unsigned>(height);
  if (legacy_) {
    // libvmaf 3.0: (float)(sad / 256.) / (w * h), a float division.
    const float legacy =
        static_cast<float>(static_cast<double>(sad) / 256.0) / static_cast<float>(area);
    return vmaf_min(static_cast<double>(legacy) * fps_weight_, max_val_);
  }
  return vmaf_min(static_cast<double>(sad) / 256.0 / static_cast<double>(area) * fps_weight_,
                  max_val_);
}

void Scorer::emit(unsigned index, double score, FeatureCollector& out) {
  out.set(sad_name_, index, score);
  if (debug_) out.set(motion_name_, index, score);
  scores_.push_back(score);
  // Frames whose look-ahead has arrived get motion2 and motion3 now.
  while (smoothed_ + step() < scores_.size()) emit_smoothed(smoothed_++, out);
}

void Scorer::flush(FeatureCollector& out) {
  while (smoothed_ < scores_.size()) emit_smoothed(smoothed_++, out);
}

void Scorer::emit_smoothed(std::size_t i, FeatureCollector& out) {
  const std::size_t n = scores_.size();
  const std::size_t first = step();  // first frame with a score of its own
  // motion3 of the frames before `first`: blended from frame `first`'s score
  // (0 for videos no longer than `first` frames).
  const double stamp =
      n > first ? vmaf_min(motion_blend(scores_[first], blend_factor_, blend_offset_), max_val_)
                : 0.0;
  double motion2 = 0.0;
  if (i >= first) {
    const std::size_t lo = i - (first - 1);
    const std::size_t hi = i + 1;
    if (hi >= n)
      motion2 = scores_[i];  // the last frame keeps its own score
    else if (lo >= first)
      motion2 = scores_[lo] < scores_[hi] ? scores_[lo] : scores_[hi];
    else
      motion2 = scores_[hi];
  }
  out.set(motion2_name_, static_cast<unsigned>(i), motion2);

  double motion3;
  if (i < first) {
    motion3 = stamp;
    prev_processed_ = stamp;
  } else {
    const double processed = vmaf_min(motion_blend(motion2, blend_factor_, blend_offset_), max_val_);
    motion3 = moving_average_ ? (processed + prev_processed_) / 2.0 : processed;
    prev_processed_ = processed;
  }
  out.set(motion3_name_, static_cast<unsigned>(i), motion3);
}

}  // namespace vqe::motion
