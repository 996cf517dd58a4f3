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
#include "features/float_motion/float_motion_score.h"
#include "core/float_plane.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

constexpr const char* kExtractor = "float_motion";

/// float_motion. Emits (libvmaf order) motion2, motion (debug, on by
/// default), motion3 with option suffixes. Any size >= 1x1 at 8/10/12/16
/// bits; motion_add_uv needs chroma planes (refused for 4:0:0) and uses the
/// chroma planes as the file stores them (ceil(W/2) for odd 4:2:0 widths,
/// where libvmaf rounds down).
class FloatMotion final : public FeatureExtractor {
 public:
  explicit FloatMotion(const ParsedOptions& opts) : opts_(opts), scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
    planes_.clear();
    frames_ = 0;
    if (scorer_.force_zero()) return;
    const int n_planes = scorer_.add_uv() ? 3 : 1;
    for (int p = 0; p < n_planes; ++p) {
      PlaneState s;
      s.width = format.plane_width(p);
      s.height = format.plane_height(p);
      const std::size_t n = static_cast<std::size_t>(s.width) * s.height;
      s.input.assign(n, 0);
      for (auto& b : s.blur) b.assign(n, 0);
      s.row.assign(static_cast<std::size_t>(s.width) + 4, 0);
      if (scorer_.add_scale1()) {
        s.plan = float_motion::make_half_scale_plan(s.width, s.height);
        const std::size_t m = static_cast<std::size_t>(s.plan.dst_w) * s.plan.dst_h;
        s.scaled_a.assign(m, 0);
        s.scaled_b.assign(m, 0);
      }
      planes_.push_back(std::move(s));
    }
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    (void)distorted;
    if (index != frames_)
      throw Error(fmt::format("{}: frame {} arrived out of order (expected frame {})",
                              kExtractor, index, frames_));
    ++frames_;
    double score = 0;
    if (!scorer_.force_zero()) {
      for (std::size_t p = 0; p < planes_.size(); ++p) {
        PlaneState& s = planes_[p];
        plane_to_float(reference.plane(static_cast<int>(p)), format_.bit_depth, -128.0f,
                       s.input.data());
        float_motion::convolve(scorer_.filter(), scorer_.filter_width(), s.input.data(),
                               s.blur[index % 3].data(), s.width, s.height, s.row.data());
      }
      // Motion between this frame and the previous one.
      if (index > 0) score = motion_between(index - 1, index);
    }
    scorer_.emit(index, score, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

  bool temporal() const override { return true; }
  unsigned lag() const override { return scorer_.lag(); }

  bool needs_chroma() const override { return scorer_.add_uv(); }

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
    if (!scorer_.add_scale1()) return scale0;
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
  float_motion::Scorer scorer_;

  VideoFormat format_{};
  std::vector<PlaneState> planes_;
  unsigned frames_ = 0;
};

}  // namespace

const ExtractorInfo& float_motion_extractor() {
  static const ExtractorInfo info{
      .name = kExtractor,
      .options = float_motion::options(),
      .provided_features = {"VMAF_feature_motion_score", "VMAF_feature_motion2_score",
                            "VMAF_feature_motion3_score"},
      .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatMotion>(o);
      },
      .make_cuda = VQE_CUDA_TWIN(float_motion::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(float_motion::make_vulkan),
      .first_written = float_motion::first_written,
  };
  return info;
}

}  // namespace vqe
