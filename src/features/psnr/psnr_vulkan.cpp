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
  void create(Context& ctx) override { sse_.create(ctx, "psnr_sse", 3, 1); }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }  // APSNR totals, kept on the host
  bool needs_chroma() const override { return planes_ > 1; }

  void record(const Run& run) override { sse_.record(run, static_cast<std::uint32_t>(planes_)); }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    for (int p = 0; p < planes_; ++p)
      scorer_.add(p, sse_.sum(seq, static_cast<std::uint32_t>(p), 0), index, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  psnr::Scorer scorer_;
  int planes_ = 1;
  RingReduction sse_;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::psnr::make_vulkan(const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanPsnr>(options);
}
