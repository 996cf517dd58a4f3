// SPDX-License-Identifier: BSD-2-Clause
#include "features/float_motion/float_motion_score.h"

#include "features/float_motion/float_motion_kernels.h"
#include "features/motion/motion_score.h"
#include "vqe/error.h"

namespace vqe::float_motion {
namespace {
using motion::motion_blend;
using motion::vmaf_min;
}  // namespace

// libvmaf 3.2.0 float_motion.c's options: names, aliases, defaults, ranges,
// feature-parameter flags.
unsigned first_written(const std::string& name, const ParsedOptions& options) {
  return name == "motion3" && !options.get_bool("motion_force_zero") ? 1 : 0;
}

std::vector<OptionSpec> options() {
  using T = OptionSpec::Type;
  return {
      OptionSpec{.name = "debug", .type = T::kBool, .default_value = 1, .feature_param = false,
                 .help = "emit motion, the per-frame score against the previous frame"},
      OptionSpec{.name = "motion_force_zero", .alias = "force_0", .type = T::kBool,
                 .default_value = 0, .feature_param = true,
                 .help = "emit 0 for every motion score without computing it"},
      OptionSpec{.name = "motion_fps_weight", .alias = "mfw", .type = T::kDouble,
                 .default_value = 1.0, .min = 0.0, .max = 5.0, .feature_param = true,
                 .help = "multiplier on every per-frame score, e.g. to compensate for frame rate"},
      OptionSpec{.name = "motion_blend_factor", .alias = "mbf", .type = T::kDouble,
                 .default_value = 1.0, .min = 0.0, .max = 1.0, .feature_param = true,
                 .help = "in motion3, scale applied to the part of a score above motion_blend_offset (1 "
                 "= unchanged)"},
      OptionSpec{.name = "motion_blend_offset", .alias = "mbo", .type = T::kDouble,
                 .default_value = 40.0, .min = 0.0, .max = 1000.0, .feature_param = true,
                 .help = "in motion3, knee above which scores are scaled by motion_blend_factor"},
      OptionSpec{.name = "motion_add_scale1", .alias = "mdc", .type = T::kBool, .default_value = 0,
                 .feature_param = true,
                 .help = "add the mean absolute difference of the half-size blurred frames"},
      OptionSpec{.name = "motion_filter_size", .alias = "mfs", .type = T::kInt, .default_value = 5,
                 .min = 0, .max = 9, .feature_param = true,
                 .help = "blur kernel: 3 = 3-tap, 1 = none, other values = the 5-tap default"},
      OptionSpec{.name = "motion_add_uv", .alias = "mau", .type = T::kBool, .default_value = 0,
                 .feature_param = true, .help = "add the same measure on the two chroma planes"},
      OptionSpec{.name = "motion_max_val", .alias = "mmxv", .type = T::kDouble,
                 .default_value = 10000.0, .min = 0.0, .max = 10000.0, .feature_param = true,
                 .help = "ceiling of the motion scores; higher values are clamped to it"},
  };
}
Scorer::Scorer(const ParsedOptions& opts)
    : debug_(opts.get_bool("debug")),
      force_zero_(opts.get_bool("motion_force_zero")),
      fps_weight_(opts.get_double("motion_fps_weight")),
      blend_factor_(opts.get_double("motion_blend_factor")),
      blend_offset_(opts.get_double("motion_blend_offset")),
      add_scale1_(opts.get_bool("motion_add_scale1")),
      add_uv_(opts.get_bool("motion_add_uv")),
      max_val_(opts.get_double("motion_max_val")),
      motion_name_(opts.feature_name("VMAF_feature_motion_score")),
      motion2_name_(opts.feature_name("VMAF_feature_motion2_score")),
      motion3_name_(opts.feature_name("VMAF_feature_motion3_score")) {
  const int size = opts.get_int("motion_filter_size");
  if (size == 1) {
    filter_ = kFilter5NoOp;
    filter_width_ = 5;
  } else if (size == 3) {
    filter_ = kFilter3;
    filter_width_ = 3;
  } else {
    filter_ = kFilter5;
    filter_width_ = 5;
  }
}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, "float_motion");
  if (add_uv_ && format.chroma == ChromaFormat::k400)
    throw Error("float_motion: motion_add_uv=true needs chroma planes, but the video is 4:0:0");
  frames_ = last_index_ = 0;
  last_score_ = prev_score_ = 0;
}

std::vector<std::string> Scorer::feature_names() const {
  if (force_zero_) {
    std::vector<std::string> names{motion2_name_, motion3_name_};
    if (debug_) names.push_back(motion_name_);
    return names;
  }
  std::vector<std::string> names{motion2_name_};
  if (debug_) names.push_back(motion_name_);
  names.push_back(motion3_name_);
  return names;
}

void Scorer::emit(unsigned index, double score, FeatureCollector& out) {
  ++frames_;
  if (force_zero_) {
    out.set(motion2_name_, index, 0.0);
    out.set(motion3_name_, index, 0.0);
    if (debug_) out.set(motion_name_, index, 0.0);
    return;
  }
  last_index_ = index;
  if (index == 0) {
    out.set(motion2_name_, 0, 0.0);
    if (debug_) out.set(motion_name_, 0, 0.0);
    return;
  }
  if (debug_) out.set(motion_name_, index, vmaf_min(score * fps_weight_, max_val_));
  last_score_ = score;
  if (index == 1) {
    out.set(motion3_name_, 0,
            vmaf_min(motion_blend(score * fps_weight_, blend_factor_, blend_offset_), max_val_));
    prev_score_ = score;
    return;
  }
  // motion2 of the previous frame: the smaller of its motion and this
  // frame's. (libvmaf recomputes the previous frame's motion against the
  // frame before; that is the previous frame's value, |a - b| being
  // symmetric in IEEE arithmetic.)
  const double score2 = prev_score_ < score ? prev_score_ : score;
  out.set(motion2_name_, index - 1, vmaf_min(score2 * fps_weight_, max_val_));
  out.set(motion3_name_, index - 1,
          vmaf_min(motion_blend(score2 * fps_weight_, blend_factor_, blend_offset_), max_val_));
  prev_score_ = score;
}

void Scorer::flush(FeatureCollector& out) const {
  if (force_zero_ || frames_ == 0) return;
  if (last_index_ > 0) {
    out.set(motion2_name_, last_index_, vmaf_min(last_score_ * fps_weight_, max_val_));
    out.set(motion3_name_, last_index_,
            vmaf_min(motion_blend(last_score_ * fps_weight_, blend_factor_, blend_offset_),
                     max_val_));
  } else {
    out.set(motion3_name_, 0, 0.0);
  }
}

}  // namespace vqe::float_motion
