// SPDX-License-Identifier: BSD-2-Clause
// psnr on Vulkan: Σ(ref−dist)² per plane, exact in uint64 (psnr_sse.comp,
// one dispatch per batch: planes in y, frames in z), and the CPU's PSNR, MSE
// and APSNR arithmetic on the host (psnr_score.h): bit-identical values.

#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/group_sums.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "features/psnr/psnr_score.h"

namespace vqe::vulkan {
namespace {

class VulkanPsnr final : public VulkanExtractor {
 public:
  explicit VulkanPsnr(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    planes_ = scorer_.planes();
  }
  void create(Context& ctx) override {
    ctx_ = &ctx;
    const std::uint32_t groups = reduce_groups(ctx.format().height);
    sums_.create(ctx, 3, groups, 1);
    const std::uint32_t spec[] = {groups};
    pipeline_ = &ctx.pipeline("psnr_sse", 2, spec);
    set_ = ctx.descriptor_set(*pipeline_, {&ctx.frames(), &sums_.buffer});
  }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }  // APSNR totals, kept on the host
  bool needs_chroma() const override { return planes_ > 1; }

  void record(const Run& run) override {
    ctx_->dispatch(*pipeline_, set_, ctx_->push_for(run), sums_.groups,
                   static_cast<std::uint32_t>(planes_), run.count);
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    for (int p = 0; p < planes_; ++p)
      scorer_.add(p, sums_.sum(ctx_->result_of(seq), static_cast<std::uint32_t>(p), 0), index, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  psnr::Scorer scorer_;
  int planes_ = 1;
  Context* ctx_ = nullptr;
  GroupSums sums_;
  const Pipeline* pipeline_ = nullptr;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::psnr::make_vulkan(const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanPsnr>(options);
}
