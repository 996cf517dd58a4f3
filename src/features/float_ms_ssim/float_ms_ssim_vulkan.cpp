// SPDX-License-Identifier: BSD-2-Clause
// float_ms_ssim on Vulkan, bit-identical to the CPU's scalar reference: the
// five-scale pyramid by the 9×9 low-pass decimated by 2 (ssim_decimate.comp,
// one dispatch per scale), then SSIM at every scale (ssim_hpass.comp,
// ssim_map_sum.comp: one dispatch each for all scales) through SsimPipeline
// (float_ssim/ssim_vulkan.h); the means and the score on the host
// (ms_ssim_score.h). Six dispatches per chunk of frames.

#include <array>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "backend/vulkan/vulkan_extractor.h"
#include "features/float_ms_ssim/ms_ssim_score.h"
#include "features/float_ssim/ssim_score.h"
#include "features/float_ssim/ssim_vulkan.h"

namespace vqe::vulkan {
namespace {

using ms_ssim::kScales;

class VulkanFloatMsSsim final : public VulkanExtractor {
 public:
  explicit VulkanFloatMsSsim(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override { scorer_.init(format); }

  void create(Context& ctx) override {
    SsimPipeline::Shape shape;
    for (int k = 0; k < kScales; ++k) {
      shape.widths.push_back(scorer_.width(k));
      shape.heights.push_back(scorer_.height(k));
    }
    shape.scale0_is_plane = true;
    shape.factor = 2;
    shape.kernel_size = ms_ssim::kLpfLen;
    shape.kernel = std::span<const float>(ms_ssim::kLowPass, ms_ssim::kLpfLen * ms_ssim::kLpfLen);
    ssim_.create(ctx, shape);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override { ssim_.record(run); }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    std::array<iqa::SsimMeans, kScales> means;
    for (int k = 0; k < kScales; ++k) {
      double sums[4];
      ssim_.sums(seq, k, sums);
      means[static_cast<std::size_t>(k)] =
          ssim::means_of_sums(sums, scorer_.width(k), scorer_.height(k));
    }
    scorer_.emit(index, means, out);
  }

 private:
  ms_ssim::Scorer scorer_;
  SsimPipeline ssim_;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::ms_ssim::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatMsSsim>(options);
}
