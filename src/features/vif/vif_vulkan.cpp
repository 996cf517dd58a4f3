// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF on Vulkan, bit-identical to the CPU reference
// (integer_vif.cpp): vif_scaleN.comp per scale N (statistic and next
// scale's image in one dispatch over the run's frames; 4 dispatches per
// run, one pipeline per scale: vif_scale.glsl with the scale's constants), the
// exact int64 sums of each tile rebuilt and added on the host, then the
// CPU's own float expressions (vif::scale_value) and outputs (vif_score.h).

#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/group_sums.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "features/vif/integer_vif.h"
#include "features/vif/vif_score.h"

namespace vqe::vulkan {
namespace {

constexpr int kTileW = 64, kTileH = 16;  // vif_scale.glsl

class VulkanVif final : public VulkanExtractor {
 public:
  explicit VulkanVif(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
  }

  void create(Context& ctx) override {
    ctx_ = &ctx;
    std::uint32_t tiles = 0, image_words = 0;
    for (int s = 0; s < vif::kNumScales; ++s) {
      const int w = format_.width >> s, h = format_.height >> s;
      grid_x_[s] = static_cast<std::uint32_t>((w + kTileW - 1) / kTileW);
      grid_y_[s] = static_cast<std::uint32_t>((h + kTileH - 1) / kTileH);
      first_tile_[s] = tiles;
      tiles += grid_x_[s] * grid_y_[s];
      if (s > 0) image_words += static_cast<std::uint32_t>(w) * static_cast<std::uint32_t>(h);
    }
    sums_.create(ctx, 1, tiles, 4);
    images_ = ctx.device_buffer(static_cast<std::size_t>(ctx.batch_frames()) * image_words * 4);
    // The log2 table's entries 32767..65535 (the filters are the shaders'
    // compile-time constants).
    std::vector<std::uint32_t> t(32769, 0);
    const auto& log2 = vif::log2_table();
    for (int i = 0; i < 32769; ++i) t[static_cast<std::size_t>(i)] = log2[static_cast<std::size_t>(32767 + i)];
    tables_ = ctx.device_table(t.data(), t.size() * 4);
    const double eps = 65536 * 1.0e-10;  // the reference's constant
    const auto eps_bits = std::bit_cast<std::uint64_t>(eps);
    const auto gain_bits = std::bit_cast<std::uint64_t>(scorer_.gain_limit());
    const std::uint32_t spec[] = {static_cast<std::uint32_t>(eps_bits),
                                  static_cast<std::uint32_t>(eps_bits >> 32),
                                  static_cast<std::uint32_t>(gain_bits),
                                  static_cast<std::uint32_t>(gain_bits >> 32), image_words, tiles};
    for (int s = 0; s < vif::kNumScales; ++s) {
      pipeline_[s] = &ctx.pipeline("vif_scale" + std::to_string(s), 4, spec);
      set_[s] = ctx.descriptor_set(*pipeline_[s], {&ctx.frames(), &images_, &tables_, &sums_.buffer});
    }
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override {
    for (int s = 0; s < vif::kNumScales; ++s) {
      Push push = ctx_->push_for(run);
      push.arg[1] = s == 0 && scorer_.skip_scale0() ? 0 : 1;
      push.arg[2] = first_tile_[s];
      if (s > 0) ctx_->barrier();  // scale s reads the image scale s − 1 wrote
      ctx_->dispatch(*pipeline_[s], set_[s], push, grid_x_[s], grid_y_[s], run.count);
    }
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    const std::uint32_t slot = ctx_->result_of(seq);
    vif::VifValues values;
    for (int s = scorer_.skip_scale0() ? 1 : 0; s < vif::kNumScales; ++s) {
      const std::uint32_t n = grid_x_[s] * grid_y_[s];
      vif::ScaleSums t;
      t.num_log = static_cast<std::int64_t>(sums_.sum(slot, 0, 0, first_tile_[s], n));
      t.den_log = static_cast<std::int64_t>(sums_.sum(slot, 0, 1, first_tile_[s], n));
      t.num_non_log = static_cast<std::int64_t>(sums_.sum(slot, 0, 2, first_tile_[s], n));
      t.den_non_log = static_cast<std::int64_t>(sums_.sum(slot, 0, 3, first_tile_[s], n));
      values.scale[static_cast<std::size_t>(s)] = vif::scale_value(t);
    }
    scorer_.emit(index, values, out);
  }

 private:
  vif::Scorer scorer_;
  VideoFormat format_{};
  Context* ctx_ = nullptr;
  std::uint32_t grid_x_[vif::kNumScales] = {}, grid_y_[vif::kNumScales] = {};
  std::uint32_t first_tile_[vif::kNumScales] = {};
  GroupSums sums_;
  Buffer images_, tables_;
  const Pipeline* pipeline_[vif::kNumScales] = {};
  VkDescriptorSet set_[vif::kNumScales] = {};
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::vif::make_vulkan(const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanVif>(options);
}
