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
  void create(Context& ctx) override {
    ctx_ = &ctx;
    const std::uint32_t groups = reduce_groups(ctx.format().height);
    sums_.create(ctx, 1, groups, 1);
    const std::uint32_t spec[] = {groups};
    pipeline_ = &ctx.pipeline("float_psnr_noise", 2, spec);
    set_ = ctx.descriptor_set(*pipeline_, {&ctx.frames(), &sums_.buffer});
  }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override {
    ctx_->dispatch(*pipeline_, set_, ctx_->push_for(run), sums_.groups, 1, run.count);
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    const std::uint64_t q = sums_.sum(ctx_->result_of(seq), 0, 0);
    scorer_.emit(index, static_cast<double>(q) / scale2_, out);
  }

 private:
  float_psnr::Scorer scorer_;
  double scale2_ = 1;
  Context* ctx_ = nullptr;
  GroupSums sums_;
  const Pipeline* pipeline_ = nullptr;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::float_psnr::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatPsnr>(options);
}
