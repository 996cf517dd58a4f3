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
  void create(Context& ctx) override { sums_.create(ctx, "float_moment_sums", 1, 4); }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override { sums_.record(run); }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    scorer_.emit(index, {sums_.sum(seq, 0, 0), sums_.sum(seq, 0, 2)},
                 {sums_.sum(seq, 0, 1), sums_.sum(seq, 0, 3)}, out);
  }

 private:
  moment::Scorer scorer_;
  RingReduction sums_;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::moment::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatMoment>(options);
}
