// SPDX-License-Identifier: BSD-2-Clause
// The "float_moment" extractor on the CPU: first and second moments of the
// reference and distorted luma planes (libvmaf 3.2.0
// libvmaf/src/feature/float_moment.c, moment.c), on the 8-bit scale, from
// exact integer sums (moment_score.h says why they give libvmaf's values).

#include <cstdint>
#include <memory>

#include "core/extractor.h"
#include "features/float_moment/float_moment_kernels.h"
#include "features/float_moment/moment_score.h"

namespace vqe {
namespace {

/// float_moment: any size >= 1x1, 8/10/12/16 bits.
class FloatMoment final : public FeatureExtractor {
 public:
  FloatMoment(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), dsp_(moment::moment_dsp(level)), scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    scorer_.emit(index, sums(reference.plane(0)), sums(distorted.plane(0)), out);
  }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatMoment>(opts_, level_);
  }

 private:
  moment::PlaneSums sums(const Plane& plane) const {
    // Exact integer sums with the job's kernels (float_moment_kernels.h).
    return format_.bit_depth == 8
               ? dsp_.sums8(plane.row<std::uint8_t>(0), plane.stride, plane.width, plane.height)
               : dsp_.sums16(plane.row<std::uint16_t>(0), plane.stride / 2, plane.width,
                             plane.height);
  }

  ParsedOptions opts_;
  simd::Level level_;
  const moment::MomentDsp& dsp_;
  moment::Scorer scorer_;
  VideoFormat format_{};
};

}  // namespace

const ExtractorInfo& float_moment_extractor() {
  static const ExtractorInfo info{
      .name = "float_moment",
      .options = {},
      // libvmaf's provided-feature list names only "float_moment".
      .provided_features = {"float_moment"},
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatMoment>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(moment::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(moment::make_vulkan),
  };
  return info;
}

}  // namespace vqe
