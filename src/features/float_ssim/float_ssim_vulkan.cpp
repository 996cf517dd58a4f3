// SPDX-License-Identifier: BSD-2-Clause
// float_ssim on Vulkan, bit-identical to the CPU's scalar reference: with a
// decimation factor above 1 the luma planes box-filtered and decimated
// (ssim_decimate.comp), then SSIM at the working size (ssim_hpass.comp,
// ssim_map_sum.comp) through SsimPipeline (ssim_vulkan.h); the means and the
// score on the host (ssim_score.h). Two dispatches per chunk of frames, three
// with decimation.

#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/vulkan_extractor.h"
#include "features/float_ssim/ssim_score.h"
#include "features/float_ssim/ssim_vulkan.h"

namespace vqe::vulkan {
namespace {

class VulkanFloatSsim final : public VulkanExtractor {
 public:
  explicit VulkanFloatSsim(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override { scorer_.init(format); }

  void create(Context& ctx) override {
    const int scale = scorer_.scale();
    // The box: scale × scale taps of 1/scale² in float (float_ssim.cpp's box_).
    box_.assign(static_cast<std::size_t>(scale) * scale, 1.0f / (scale * scale));
    SsimPipeline::Shape shape;
    shape.widths = {scorer_.work_width()};
    shape.heights = {scorer_.work_height()};
    shape.scale0_is_plane = scale == 1;
    shape.factor = scale;
    shape.kernel_size = scale;
    shape.kernel = box_;
    ssim_.create(ctx, shape);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override { ssim_.record(run); }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    double sums[4];
    ssim_.sums(seq, 0, sums);
    scorer_.emit(index, ssim::means_of_sums(sums, scorer_.work_width(), scorer_.work_height()),
                 out);
  }

 private:
  ssim::Scorer scorer_;
  std::vector<float> box_;
  SsimPipeline ssim_;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::ssim::make_vulkan(const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatSsim>(options);
}
