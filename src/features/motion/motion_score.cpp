// SPDX-License-Identifier: BSD-2-Clause
#include "features/motion/motion_score.h"

namespace vqe::motion {

Scorer::Scorer(const ParsedOptions& opts)
    : blend_factor_(opts.get_double("motion_blend_factor")),
      blend_offset_(opts.get_double("motion_blend_offset")),
      fps_weight_(opts.get_double("motion_fps_weight")),
      max_val_(opts.get_double("motion_max_val")),
      five_frame_(opts.get_bool("motion_five_frame_window")),
      moving_average_(opts.get_bool("motion_moving_average")),
      legacy_(opts.get_bool("motion_legacy")) {
  scores_.reserve(4096);
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

void Scorer::flush(const std::string& motion2_name, const std::string& motion3_name,
                   FeatureCollector& out) const {
  const std::size_t n = scores_.size();
  if (n == 0) return;
  const std::size_t first = step();  // first frame with a score of its own

  double stamp = 0.0;  // motion3 of the frames before `first`
  if (n > first)
    stamp = vmaf_min(motion_blend(scores_[first], blend_factor_, blend_offset_), max_val_);

  double prev_processed = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
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
    out.set(motion2_name, static_cast<unsigned>(i), motion2);

    double motion3;
    if (i < first) {
      motion3 = stamp;
      prev_processed = stamp;
    } else {
      const double processed =
          vmaf_min(motion_blend(motion2, blend_factor_, blend_offset_), max_val_);
      motion3 = moving_average_ ? (processed + prev_processed) / 2.0 : processed;
      prev_processed = processed;
    }
    out.set(motion3_name, static_cast<unsigned>(i), motion3);
  }
}

}  // namespace vqe::motion
