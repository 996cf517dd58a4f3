// SPDX-License-Identifier: BSD-2-Clause
// float_psnr on Vulkan: the CPU's float terms summed exactly as integers
// (float_psnr_noise.comp), the score on the host (float_psnr_score.h).

#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/group_sums.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "features/float_psnr/float_psnr_score.h"

namespace vqe::vulkan {
namespace {

class VulkanFloatPsnr final : public VulkanExtractor {
 public:
  explicit VulkanFloatPsnr(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    const double s = static_cast<double>(1 << (format.bit_depth - 8));
    scale2_ = s * s;
  }
  void create(Context& ctx) override { noise_.create(ctx, "float_psnr_noise", 1, 1); }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override { noise_.record(run); }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    scorer_.emit(index, static_cast<double>(noise_.sum(seq, 0, 0)) / scale2_, out);
  }

 private:
  float_psnr::Scorer scorer_;
  double scale2_ = 1;
  RingReduction noise_;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::float_psnr::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatPsnr>(options);
}
