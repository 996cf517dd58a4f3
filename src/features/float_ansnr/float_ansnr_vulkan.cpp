// SPDX-License-Identifier: BSD-2-Clause
// float_ansnr on Vulkan, bit-identical to the CPU: the filtered planes in
// the CPU's float order (float_ansnr_filter.comp), per-row sequential float
// sums (float_ansnr_rows.comp), the row sums in row order
// (float_ansnr_total.comp); the scores on the host (ansnr_score.h). Three
// dispatches per run of frames.

#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/vulkan_extractor.h"
#include "features/float_ansnr/ansnr_score.h"

namespace vqe::vulkan {
namespace {

class VulkanFloatAnsnr final : public VulkanExtractor {
 public:
  explicit VulkanFloatAnsnr(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override { scorer_.init(format); }
  void create(Context& ctx) override {
    ctx_ = &ctx;
    const std::size_t n = static_cast<std::size_t>(ctx.format().width) * ctx.format().height;
    const std::size_t b = ctx.batch_frames();
    filtered_ = ctx.device_buffer(b * 2 * n * sizeof(float));
    rows_ = ctx.device_buffer(b * 2 * static_cast<std::size_t>(ctx.format().height) * sizeof(float));
    result_ = ctx.host_buffer(static_cast<std::size_t>(ctx.result_slots()) * 2 * sizeof(float));
    float coeffs[34];
    std::memcpy(coeffs, ansnr::filters().ref, 9 * sizeof(float));
    std::memcpy(coeffs + 9, ansnr::filters().dis, 25 * sizeof(float));
    coeffs_ = ctx.device_table(coeffs, sizeof coeffs);
    filter_ = &ctx.pipeline("float_ansnr_filter", 3);
    rows_pipe_ = &ctx.pipeline("float_ansnr_rows", 2);
    total_ = &ctx.pipeline("float_ansnr_total", 2);
    filter_set_ = ctx.descriptor_set(*filter_, {&ctx.frames(), &filtered_, &coeffs_});
    rows_set_ = ctx.descriptor_set(*rows_pipe_, {&filtered_, &rows_});
    total_set_ = ctx.descriptor_set(*total_, {&rows_, &result_});
  }
  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override {
    const Push push = ctx_->push_for(run);
    const auto w = static_cast<std::uint32_t>(ctx_->format().width);
    const auto h = static_cast<std::uint32_t>(ctx_->format().height);
    ctx_->dispatch(*filter_, filter_set_, push, (w + 255) / 256, h, run.count);
    ctx_->barrier();
    ctx_->dispatch(*rows_pipe_, rows_set_, push, (h + 63) / 64, 1, run.count);
    ctx_->barrier();
    ctx_->dispatch(*total_, total_set_, push, 1, 1, run.count);
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    const std::uint32_t* r = result_.host<const std::uint32_t>() + 2 * ctx_->result_of(seq);
    scorer_.emit(index, std::bit_cast<float>(r[0]), std::bit_cast<float>(r[1]), out);
  }

 private:
  ansnr::Scorer scorer_;
  Context* ctx_ = nullptr;
  Buffer filtered_, rows_, result_, coeffs_;
  const Pipeline *filter_ = nullptr, *rows_pipe_ = nullptr, *total_ = nullptr;
  VkDescriptorSet filter_set_ = VK_NULL_HANDLE, rows_set_ = VK_NULL_HANDLE,
                  total_set_ = VK_NULL_HANDLE;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::ansnr::make_vulkan(const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatAnsnr>(options);
}
