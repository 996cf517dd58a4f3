// SPDX-License-Identifier: BSD-2-Clause
// Integer motion on Vulkan, both the libvmaf 3.2.0 definition
// (motion_sad.comp: the blurred difference against the resident frame
// step() before, one dispatch per run) and motion_legacy
// (motion_legacy_blur.comp into a blurred frame per ring slot, then
// motion_legacy_sad.comp). The SADs are exact uint64; scores, motion2 and
// motion3 are formed on the host by the shared definition (motion_score.h).

#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/group_sums.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "features/motion/motion_score.h"

namespace vqe::vulkan {
namespace {

class VulkanMotion final : public VulkanExtractor {
 public:
  explicit VulkanMotion(const ParsedOptions& opts)
      : scorer_(opts), force_zero_(scorer_.force_zero()), legacy_(scorer_.legacy()) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
  }
  void create(Context& ctx) override {
    ctx_ = &ctx;
    const std::uint32_t groups = reduce_groups(format_.height);
    sums_.create(ctx, 1, groups, 1);
    const std::uint32_t spec[] = {groups, scorer_.step()};
    if (legacy_) {
      const std::size_t pitch = (static_cast<std::size_t>(format_.width) + 1) / 2;
      blurred_ = ctx.device_buffer(ctx.slots() * pitch * format_.height * 4);
      blur_ = &ctx.pipeline("motion_legacy_blur", 2, spec);
      sad_ = &ctx.pipeline("motion_legacy_sad", 2, spec);
      blur_set_ = ctx.descriptor_set(*blur_, {&ctx.frames(), &blurred_});
      sad_set_ = ctx.descriptor_set(*sad_, {&blurred_, &sums_.buffer});
    } else {
      sad_ = &ctx.pipeline("motion_sad", 2, spec);
      sad_set_ = ctx.descriptor_set(*sad_, {&ctx.frames(), &sums_.buffer});
    }
  }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }
  unsigned lag() const override { return scorer_.lag(); }

  void record(const Run& run) override {
    if (force_zero_) return;
    Push push = ctx_->push_for(run);
    push.arg[0] = run.first_index;
    if (legacy_) {
      ctx_->dispatch(*blur_, blur_set_, push, sums_.groups, 1, run.count);
      ctx_->barrier();
    }
    ctx_->dispatch(*sad_, sad_set_, push, sums_.groups, 1, run.count);
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    const bool computed = !force_zero_ && index >= scorer_.step();
    const double score =
        computed ? scorer_.frame_score(sums_.sum(ctx_->result_of(seq), 0, 0), format_.width,
                                       format_.height)
                 : 0.0;
    scorer_.emit(index, score, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  motion::Scorer scorer_;
  bool force_zero_, legacy_;
  VideoFormat format_{};
  Context* ctx_ = nullptr;
  GroupSums sums_;
  Buffer blurred_;
  const Pipeline *blur_ = nullptr, *sad_ = nullptr;
  VkDescriptorSet blur_set_ = VK_NULL_HANDLE, sad_set_ = VK_NULL_HANDLE;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::motion::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanMotion>(options);
}
