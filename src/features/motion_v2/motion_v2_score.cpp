// SPDX-License-Identifier: BSD-2-Clause
// The definition of `motion_v2` after lusoris/vmaf
// libvmaf/src/feature/integer_motion_v2.c (commit
// c2a3c7e0febd98a6831b9bfebe5e298e229b1244): options, names, refusals, the
// frame score and the end-of-video motion2_v2 / motion3_v2.

#include "features/motion_v2/motion_v2_score.h"

#include <fmt/format.h>

#include "features/motion/motion_score.h"
#include "vqe/error.h"

namespace vqe::motion_v2 {
namespace {
constexpr const char* kExtractor = "motion_v2";
constexpr const char* kSadName = "VMAF_integer_feature_motion_v2_sad_score";
constexpr const char* kMotion2Name = "VMAF_integer_feature_motion2_v2_score";
constexpr const char* kMotion3Name = "VMAF_integer_feature_motion3_v2_score";
// The 5-tap filter's reflect-101 mirror needs radius + 1 samples per side.
constexpr int kMinSide = 3;
}  // namespace

std::vector<OptionSpec> options() {
  using T = OptionSpec::Type;
  return {
      OptionSpec{.name = "motion_force_zero", .alias = "force_0", .type = T::kBool,
                 .feature_param = true, .help = "emit 0 for every score without computing it"},
      OptionSpec{.name = "motion_blend_factor", .alias = "mbf", .type = T::kDouble,
                 .default_value = 1.0, .min = 0.0, .max = 1.0, .feature_param = true,
                 .help = "in motion3_v2, weight kept on the part of motion2_v2 above "
                         "motion_blend_offset (1 = unchanged)"},
      OptionSpec{.name = "motion_blend_offset", .alias = "mbo", .type = T::kDouble,
                 .default_value = 40.0, .min = 0.0, .max = 1000.0, .feature_param = true,
                 .help = "in motion3_v2, level above which motion_blend_factor applies"},
      OptionSpec{.name = "motion_fps_weight", .alias = "mfw", .type = T::kDouble,
                 .default_value = 1.0, .min = 0.0, .max = 5.0, .feature_param = true,
                 .help = "multiplier on every per-frame score (frame-rate correction)"},
      OptionSpec{.name = "motion_max_val", .alias = "mmxv", .type = T::kDouble,
                 .default_value = 10000.0, .min = 0.0, .max = 10000.0, .feature_param = true,
                 .help = "ceiling of the scores; larger ones are clipped to it"},
      OptionSpec{.name = "motion_five_frame_window", .alias = "mffw", .type = T::kBool,
                 .feature_param = true,
                 .help = "not supported by motion_v2 (refused, as in lusoris/vmaf); use "
                         "motion's option of that name"},
      OptionSpec{.name = "motion_moving_average", .alias = "mma", .type = T::kBool,
                 .feature_param = true,
                 .help = "motion3_v2 = mean of this and the previous frame's blended value"},
  };
}

const std::vector<std::string>& provided_features() {
  static const std::vector<std::string> names = {kSadName, kMotion2Name, kMotion3Name};
  return names;
}

unsigned first_written(const std::string& name, const ParsedOptions&) {
  return name == kMotion2Name || name == kMotion3Name ? kWrittenAtFlush : 0;
}

Scorer::Scorer(const ParsedOptions& opts)
    : blend_factor_(opts.get_double("motion_blend_factor")),
      blend_offset_(opts.get_double("motion_blend_offset")),
      fps_weight_(opts.get_double("motion_fps_weight")),
      max_val_(opts.get_double("motion_max_val")),
      five_frame_(opts.get_bool("motion_five_frame_window")),
      moving_average_(opts.get_bool("motion_moving_average")),
      force_zero_(opts.get_bool("motion_force_zero")),
      sad_name_(opts.feature_name(kSadName)),
      motion2_name_(opts.feature_name(kMotion2Name)),
      motion3_name_(opts.feature_name(kMotion3Name)) {}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, kExtractor);
  if (format.width < kMinSide || format.height < kMinSide)
    throw Error(fmt::format(
        "{}: frame {}x{} is smaller than the 5-tap filter's minimum of {}x{} (as in "
        "lusoris/vmaf; the extractor 'motion' accepts any size)",
        kExtractor, format.width, format.height, kMinSide, kMinSide));
  if (five_frame_)
    throw Error(fmt::format(
        "{}: motion_five_frame_window=true is not supported (lusoris/vmaf refuses it too); "
        "the extractor 'motion' has a five-frame window",
        kExtractor));
  scores_.clear();
  smoothed_ = 0;
  prev_processed_ = 0.0;
}

std::vector<std::string> Scorer::feature_names() const {
  return {sad_name_, motion2_name_, motion3_name_};
}

double Scorer::frame_score(std::uint64_t sad, int width, int height) const {
  // The fork: (double)sad / 256. / (w * h) with w, h unsigned, then
  // MIN(score * motion_fps_weight, motion_max_val).
  const unsigned area = static_cast<unsigned>(width) * static_cast<unsigned>(height);
  const double score = static_cast<double>(sad) / 256.0 / static_cast<double>(area);
  return motion::vmaf_min(score * fps_weight_, max_val_);
}

void Scorer::emit(unsigned index, double score, FeatureCollector& out) {
  if (index != scores_.size())
    throw Error(fmt::format("{}: frame {} arrived out of order (expected frame {})", kExtractor,
                            index, scores_.size()));
  out.set(sad_name_, index, score);
  scores_.push_back(score);
  while (smoothed_ + lag() < scores_.size()) emit_smoothed(smoothed_++, out);
}

void Scorer::flush(FeatureCollector& out) {
  while (smoothed_ < scores_.size()) emit_smoothed(smoothed_++, out);
}

void Scorer::emit_smoothed(std::size_t i, FeatureCollector& out) {
  const std::size_t n = scores_.size();
  // motion2_v2: the smaller of this and the next frame's score (the fork's
  // `cur < next ? cur : next`); the last frame keeps its own.
  const double motion2 =
      i + 1 < n ? (scores_[i] < scores_[i + 1] ? scores_[i] : scores_[i + 1]) : scores_[i];
  out.set(motion2_name_, static_cast<unsigned>(i), motion2);

  // motion3_v2: motion2_v2 blended above motion_blend_offset and capped;
  // frame 0 takes frame 1's blended SAD score (0 in a one-frame video).
  double motion3;
  if (i == 0) {
    motion3 = n > 1 ? motion::vmaf_min(
                          motion::motion_blend(scores_[1], blend_factor_, blend_offset_), max_val_)
                    : 0.0;
    prev_processed_ = motion3;
  } else {
    const double processed =
        motion::vmaf_min(motion::motion_blend(motion2, blend_factor_, blend_offset_), max_val_);
    motion3 = moving_average_ ? (processed + prev_processed_) / 2.0 : processed;
    prev_processed_ = processed;
  }
  out.set(motion3_name_, static_cast<unsigned>(i), motion3);
}

}  // namespace vqe::motion_v2
