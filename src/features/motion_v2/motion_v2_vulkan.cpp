// SPDX-License-Identifier: BSD-2-Clause
// "motion_v2" on Vulkan (definition after lusoris/vmaf integer_motion_v2.c at
// commit c2a3c7e0febd98a6831b9bfebe5e298e229b1244). Its SAD is the integer
// motion SAD of libvmaf 3.2.0 against the frame before, so it runs
// `motion`'s shader motion_sad.comp with kStep = 1: one dispatch per run of
// frames (grid z is the frame), the previous frame read from the ring, the
// sums exact in uint64. Scores, motion2_v2 and motion3_v2 are formed on the
// host by the shared definition (motion_v2_score.h).

#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/group_sums.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "features/motion_v2/motion_v2_score.h"

namespace vqe::vulkan {
namespace {

class VulkanMotionV2 final : public VulkanExtractor {
 public:
  explicit VulkanMotionV2(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
  }
  void create(Context& ctx) override {
    ctx_ = &ctx;
    if (scorer_.force_zero()) return;  // every score is 0: no pipeline
    const std::uint32_t groups = reduce_groups(format_.height);
    sums_.create(ctx, 1, groups, 1);
    const std::uint32_t spec[] = {groups, 1u};  // kGroups, kStep
    sad_ = &ctx.pipeline("motion_sad", 2, spec);
    sad_set_ = ctx.descriptor_set(*sad_, {&ctx.frames(), &sums_.buffer});
  }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }
  unsigned lag() const override { return motion_v2::Scorer::lag(); }

  void record(const Run& run) override {
    if (scorer_.force_zero()) return;
    Push push = ctx_->push_for(run);
    push.arg[0] = run.first_index;  // the shader skips frame 0 (no frame before)
    ctx_->dispatch(*sad_, sad_set_, push, sums_.groups, 1, run.count);
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    const bool computed = !scorer_.force_zero() && index >= 1;
    const double score =
        computed ? scorer_.frame_score(sums_.sum(ctx_->result_of(seq), 0, 0), format_.width,
                                       format_.height)
                 : 0.0;
    scorer_.emit(index, score, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  motion_v2::Scorer scorer_;
  VideoFormat format_{};
  Context* ctx_ = nullptr;
  GroupSums sums_;
  const Pipeline* sad_ = nullptr;
  VkDescriptorSet sad_set_ = VK_NULL_HANDLE;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::motion_v2::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanMotionV2>(options);
}
