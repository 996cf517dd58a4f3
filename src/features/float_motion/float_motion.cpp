// SPDX-License-Identifier: BSD-2-Clause
// The "float_motion" extractor (libvmaf 3.2.0 libvmaf/src/feature/float_motion.c):
// the mean absolute difference of consecutive blurred reference luma frames
// (motion), the smaller of a frame's and the next frame's value (motion2),
// and motion2 blended and clipped (motion3). Reference only; temporal.

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "features/float_motion/float_motion_kernels.h"
#include "features/motion/motion_score.h"
#include "core/float_plane.h"
#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

constexpr const char* kExtractor = "float_motion";
constexpr const char* kMotionName = "VMAF_feature_motion_score";
constexpr const char* kMotion2Name = "VMAF_feature_motion2_score";
constexpr const char* kMotion3Name = "VMAF_feature_motion3_score";

using motion::motion_blend;
using motion::vmaf_min;

// libvmaf 3.2.0 float_motion.c's options: names, aliases, defaults, ranges,
// feature-parameter flags.
std::vector<OptionSpec> float_motion_options() {
  using T = OptionSpec::Type;
  return {
      make_option("debug", "", T::kBool, 1, 0, 1, false,
                  "emit motion, the per-frame score against the previous frame"),
      make_option("motion_force_zero", "force_0", T::kBool, 0, 0, 1, true,
                  "emit 0 for every motion score without computing it"),
      make_option("motion_fps_weight", "mfw", T::kDouble, 1.0, 0.0, 5.0, true,
                  "multiplier on every per-frame score, e.g. to compensate for frame rate"),
      make_option("motion_blend_factor", "mbf", T::kDouble, 1.0, 0.0, 1.0, true,
                  "in motion3, scale applied to the part of a score above motion_blend_offset "
                  "(1 = unchanged)"),
      make_option("motion_blend_offset", "mbo", T::kDouble, 40.0, 0.0, 1000.0, true,
                  "in motion3, knee above which scores are scaled by motion_blend_factor"),
      make_option("motion_add_scale1", "mdc", T::kBool, 0, 0, 1, true,
                  "add the mean absolute difference of the half-size blurred frames"),
      make_option("motion_filter_size", "mfs", T::kInt, 5, 0, 9, true,
                  "blur kernel: 3 = 3-tap, 1 = none, other values = the 5-tap default"),
      make_option("motion_add_uv", "mau", T::kBool, 0, 0, 1, true,
                  "add the same measure on the two chroma planes"),
      make_option("motion_max_val", "mmxv", T::kDouble, 10000.0, 0.0, 10000.0, true,
                  "ceiling of the motion scores; higher values are clamped to it"),
  };
}

/// float_motion. Emits (libvmaf order) motion2, motion (debug, on by
/// default), motion3 with option suffixes. Any size >= 1x1 at 8/10/12/16
/// bits; motion_add_uv needs chroma planes (refused for 4:0:0) and uses the
/// chroma planes as the file stores them (ceil(W/2) for odd 4:2:0 widths,
/// where libvmaf rounds down).
class FloatMotion final : public FeatureExtractor {
 public:
  explicit FloatMotion(const ParsedOptions& opts)
      : opts_(opts),
        debug_(opts.get_bool("debug")),
        force_zero_(opts.get_bool("motion_force_zero")),
        fps_weight_(opts.get_double("motion_fps_weight")),
        blend_factor_(opts.get_double("motion_blend_factor")),
        blend_offset_(opts.get_double("motion_blend_offset")),
        add_scale1_(opts.get_bool("motion_add_scale1")),
        filter_size_(opts.get_int("motion_filter_size")),
        add_uv_(opts.get_bool("motion_add_uv")),
        max_val_(opts.get_double("motion_max_val")),
        motion_name_(opts.feature_name(kMotionName)),
        motion2_name_(opts.feature_name(kMotion2Name)),
        motion3_name_(opts.feature_name(kMotion3Name)) {
    if (filter_size_ == 1) {
      filter_ = float_motion::kFilter5NoOp;
      filter_width_ = 5;
    } else if (filter_size_ == 3) {
      filter_ = float_motion::kFilter3;
      filter_width_ = 3;
    } else {
      filter_ = float_motion::kFilter5;
      filter_width_ = 5;
    }
  }

  void init(const VideoFormat& format) override {
    validate_format(format, kExtractor);
    if (add_uv_ && format.chroma == ChromaFormat::k400)
      throw Error("float_motion: motion_add_uv=true needs chroma planes, but the video is 4:0:0");
    format_ = format;
    planes_.clear();
    if (force_zero_) return;
    const int n_planes = add_uv_ ? 3 : 1;
    for (int p = 0; p < n_planes; ++p) {
      PlaneState s;
      s.width = format.plane_width(p);
      s.height = format.plane_height(p);
      const std::size_t n = static_cast<std::size_t>(s.width) * s.height;
      s.input.assign(n, 0);
      for (auto& b : s.blur) b.assign(n, 0);
      s.row.assign(static_cast<std::size_t>(s.width) + 4, 0);
      if (add_scale1_) {
        s.plan = float_motion::make_half_scale_plan(s.width, s.height);
        const std::size_t m = static_cast<std::size_t>(s.plan.dst_w) * s.plan.dst_h;
        s.scaled_a.assign(m, 0);
        s.scaled_b.assign(m, 0);
      }
      planes_.push_back(std::move(s));
    }
    frames_ = 0;
  }

  std::vector<std::string> feature_names() const override {
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

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    (void)distorted;
    if (index != frames_)
      throw Error(fmt::format("{}: frame {} arrived out of order (expected frame {})",
                              kExtractor, index, frames_));
    ++frames_;
    if (force_zero_) {
      out.set(motion2_name_, index, 0.0);
      out.set(motion3_name_, index, 0.0);
      if (debug_) out.set(motion_name_, index, 0.0);
      return;
    }

    last_index_ = index;
    for (std::size_t p = 0; p < planes_.size(); ++p) {
      PlaneState& s = planes_[p];
      plane_to_float(reference.plane(static_cast<int>(p)), format_.bit_depth, -128.0f,
                     s.input.data());
      float_motion::convolve(filter_, filter_width_, s.input.data(), s.blur[index % 3].data(),
                             s.width, s.height, s.row.data());
    }

    if (index == 0) {
      out.set(motion2_name_, 0, 0.0);
      if (debug_) out.set(motion_name_, 0, 0.0);
      return;
    }

    // Motion between this frame and the previous one.
    const double score = motion_between(index - 1, index);
    if (debug_) out.set(motion_name_, index, vmaf_min(score * fps_weight_, max_val_));
    last_score_ = score;

    if (index == 1) {
      out.set(motion3_name_, 0,
              vmaf_min(motion_blend(score * fps_weight_, blend_factor_, blend_offset_), max_val_));
      return;
    }

    // motion2 of the previous frame: min of its motion and this frame's.
    double score2 = motion_between(index - 1, index - 2);
    score2 = score2 < score ? score2 : score;
    out.set(motion2_name_, index - 1, vmaf_min(score2 * fps_weight_, max_val_));
    out.set(motion3_name_, index - 1,
            vmaf_min(motion_blend(score2 * fps_weight_, blend_factor_, blend_offset_), max_val_));
  }

  void flush(FeatureCollector& out) override {
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

  bool temporal() const override { return true; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatMotion>(opts_);
  }

 private:
  struct PlaneState {
    int width = 0, height = 0;
    std::vector<float> input;       // the plane as floats minus 128
    std::vector<float> blur[3];     // blurred frames, by index % 3
    std::vector<float> row;         // padded scratch row
    float_motion::BilinearPlan plan;
    std::vector<float> scaled_a, scaled_b;
  };

  // libvmaf vmaf_image_sad_c for one plane, plus the half-scale term when
  // motion_add_scale1 is set (float sum of the two).
  float plane_motion(PlaneState& s, unsigned a, unsigned b) {
    const float* pa = s.blur[a % 3].data();
    const float* pb = s.blur[b % 3].data();
    const float scale0 = float_motion::mean_abs_difference(pa, pb, s.width, s.height);
    if (!add_scale1_) return scale0;
    float_motion::bilinear_scale(s.plan, pa, s.scaled_a.data());
    float_motion::bilinear_scale(s.plan, pb, s.scaled_b.data());
    const float scale1 = float_motion::mean_abs_difference(s.scaled_a.data(), s.scaled_b.data(),
                                                           s.plan.dst_w, s.plan.dst_h);
    return scale0 + scale1;
  }

  // Luma motion, plus the chroma terms (added in double) with motion_add_uv.
  double motion_between(unsigned a, unsigned b) {
    double score = plane_motion(planes_[0], a, b);
    for (std::size_t p = 1; p < planes_.size(); ++p) score += plane_motion(planes_[p], a, b);
    return score;
  }

  ParsedOptions opts_;
  bool debug_, force_zero_;
  double fps_weight_, blend_factor_, blend_offset_;
  bool add_scale1_;
  int filter_size_;
  bool add_uv_;
  double max_val_;
  std::string motion_name_, motion2_name_, motion3_name_;
  const float* filter_ = nullptr;
  int filter_width_ = 5;

  VideoFormat format_{};
  std::vector<PlaneState> planes_;
  unsigned frames_ = 0;
  unsigned last_index_ = 0;
  double last_score_ = 0;
};

const bool kRegistered = register_extractor({
    .name = kExtractor,
    .options = float_motion_options(),
    .provided_features = {kMotionName, kMotion2Name, kMotion3Name},
    .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<FloatMotion>(o);
    },
});

}  // namespace
}  // namespace vqe
