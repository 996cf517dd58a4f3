// SPDX-License-Identifier: BSD-2-Clause
// float_moment on Vulkan: exact Σx and Σx² of both luma planes
// (float_moment_sums.comp: uint64 per invocation, a workgroup uint64[256]
// scratch added serially, lo/hi uint32 pairs out), rebuilt and added in
// uint64 on the host and normalised as the CPU does (moment_score.h).

#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/group_sums.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "features/float_moment/moment_score.h"

namespace vqe::vulkan {
namespace {

class VulkanFloatMoment final : public VulkanExtractor {
 public:
  explicit VulkanFloatMoment(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override { scorer_.init(format); }
  void create(Context& ctx) override {
    ctx_ = &ctx;
    const std::uint32_t groups = reduce_groups(ctx.format().height);
    sums_.create(ctx, 1, groups, 4);
    const std::uint32_t spec[] = {groups};
    pipeline_ = &ctx.pipeline("float_moment_sums", 2, spec);
    set_ = ctx.descriptor_set(*pipeline_, {&ctx.frames(), &sums_.buffer});
  }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override {
    ctx_->dispatch(*pipeline_, set_, ctx_->push_for(run), sums_.groups, 1, run.count);
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    const std::uint32_t slot = ctx_->result_of(seq);
    scorer_.emit(index, {sums_.sum(slot, 0, 0), sums_.sum(slot, 0, 2)},
                 {sums_.sum(slot, 0, 1), sums_.sum(slot, 0, 3)}, out);
  }

 private:
  moment::Scorer scorer_;
  Context* ctx_ = nullptr;
  GroupSums sums_;
  const Pipeline* pipeline_ = nullptr;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::moment::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatMoment>(options);
}
