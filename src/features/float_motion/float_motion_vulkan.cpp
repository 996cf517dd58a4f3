// SPDX-License-Identifier: BSD-2-Clause
// float_motion on Vulkan, bit-identical to the CPU: per plane (luma, and
// chroma with motion_add_uv) the blur into a float frame per ring slot
// (float_motion_blur.comp; the previous frame's stays resident), with
// motion_add_scale1 the half-size bilinear copies (float_motion_scale.comp),
// the per-row and row-order float sums of |prev − cur|
// (float_motion_rows.comp, float_motion_total.comp); the division by
// width·height in float and the motion2/motion3 bookkeeping on the host
// (float_motion_score.h).

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/vulkan_extractor.h"
#include "features/float_motion/float_motion_kernels.h"
#include "features/float_motion/float_motion_score.h"

namespace vqe::vulkan {
namespace {

class VulkanFloatMotion final : public VulkanExtractor {
 public:
  explicit VulkanFloatMotion(const ParsedOptions& opts)
      : scorer_(opts), force_zero_(scorer_.force_zero()), add_scale1_(scorer_.add_scale1()),
        add_uv_(scorer_.add_uv()) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
  }

  void create(Context& ctx) override {
    ctx_ = &ctx;
    planes_.clear();
    if (force_zero_) return;
    result_ = ctx.host_buffer(static_cast<std::size_t>(ctx.result_slots()) * 6 * sizeof(float));
    std::vector<std::uint32_t> blur_spec = {static_cast<std::uint32_t>(scorer_.filter_width())};
    for (int k = 0; k < 5; ++k)
      blur_spec.push_back(k < scorer_.filter_width() ? std::bit_cast<std::uint32_t>(scorer_.filter()[k])
                                                     : 0u);
    blur_ = &ctx.pipeline("float_motion_blur", 2, blur_spec);
    scale_ = &ctx.pipeline("float_motion_scale", 3);
    const std::size_t b = ctx.batch_frames();
    const int n_planes = add_uv_ ? 3 : 1;
    std::uint32_t rows_max = 1;
    for (int p = 0; p < n_planes; ++p)
      rows_max = std::max<std::uint32_t>(rows_max, static_cast<std::uint32_t>(format_.plane_height(p)));
    for (int p = 0; p < n_planes; ++p) {
      PlaneState s;
      s.width = format_.plane_width(p);
      s.height = format_.plane_height(p);
      const std::size_t n = static_cast<std::size_t>(s.width) * s.height;
      s.blur = ctx.device_buffer(ctx.slots() * n * sizeof(float));
      s.dst_w = s.width;
      s.dst_h = s.height;
      std::size_t m = 1;
      if (add_scale1_) {
        const auto plan = float_motion::make_half_scale_plan(s.width, s.height);
        s.dst_w = plan.dst_w;
        s.dst_h = plan.dst_h;
        s.same_size = plan.dst_w == s.width && plan.dst_h == s.height;
        m = static_cast<std::size_t>(plan.dst_w) * plan.dst_h;
        std::vector<std::uint32_t> w(3 * static_cast<std::size_t>(plan.dst_w) + 3 * plan.dst_h);
        for (int x = 0; x < plan.dst_w; ++x) {
          w[x] = static_cast<std::uint32_t>(plan.x1[x]);
          w[plan.dst_w + x] = static_cast<std::uint32_t>(plan.x2[x]);
          w[2 * plan.dst_w + x] = std::bit_cast<std::uint32_t>(plan.dx[x]);
        }
        for (int y = 0; y < plan.dst_h; ++y) {
          w[3 * plan.dst_w + y] = static_cast<std::uint32_t>(plan.y1[y]);
          w[3 * plan.dst_w + plan.dst_h + y] = static_cast<std::uint32_t>(plan.y2[y]);
          w[3 * plan.dst_w + 2 * plan.dst_h + y] = std::bit_cast<std::uint32_t>(plan.dy[y]);
        }
        s.plan = ctx.device_table(w.data(), w.size() * 4);
        rows_max = std::max<std::uint32_t>(rows_max, static_cast<std::uint32_t>(plan.dst_h));
      } else {
        s.plan = ctx.host_buffer(4);
      }
      s.scaled = ctx.device_buffer(b * 2 * m * sizeof(float));
      planes_.push_back(std::move(s));
    }
    rows_max_ = rows_max;
    const std::uint32_t rows_spec[] = {rows_max};
    rows_ = &ctx.pipeline("float_motion_rows", 3, rows_spec);
    total_ = &ctx.pipeline("float_motion_total", 2, rows_spec);
    rows_buffer_ = ctx.device_buffer(b * 2 * rows_max * sizeof(float));
    for (PlaneState& s : planes_) {
      s.blur_set = ctx.descriptor_set(*blur_, {&ctx.frames(), &s.blur});
      s.scale_set = ctx.descriptor_set(*scale_, {&s.blur, &s.scaled, &s.plan});
      s.rows_set = ctx.descriptor_set(*rows_, {&s.blur, &s.scaled, &rows_buffer_});
      s.total_set = ctx.descriptor_set(*total_, {&rows_buffer_, &result_});
    }
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }
  unsigned lag() const override { return scorer_.lag(); }
  bool needs_chroma() const override { return add_uv_; }

  void record(const Run& run) override {
    if (force_zero_) return;
    const std::uint32_t scales = add_scale1_ ? 2 : 1;
    for (std::size_t p = 0; p < planes_.size(); ++p) {
      const PlaneState& s = planes_[p];
      Push push = ctx_->push_for(run);
      push.arg[0] = run.first_index;
      push.arg[1] = static_cast<std::uint32_t>(p);
      push.arg[2] = static_cast<std::uint32_t>(s.dst_w);
      push.arg[3] = static_cast<std::uint32_t>(s.dst_h);
      push.arg[4] = s.same_size ? 1 : 0;
      const auto w = static_cast<std::uint32_t>(s.width), h = static_cast<std::uint32_t>(s.height);
      ctx_->dispatch(*blur_, s.blur_set, push, (w + 255) / 256, h, run.count);
      ctx_->barrier();
      if (add_scale1_ && !s.same_size) {
        ctx_->dispatch(*scale_, s.scale_set, push, (push.arg[2] + 255) / 256, 2 * push.arg[3],
                       run.count);
        ctx_->barrier();
      }
      ctx_->dispatch(*rows_, s.rows_set, push, (rows_max_ + 63) / 64, scales, run.count);
      ctx_->barrier();
      ctx_->dispatch(*total_, s.total_set, push, 1, scales, run.count);
      // The next plane reuses the rows buffer.
      if (p + 1 < planes_.size()) ctx_->barrier();
    }
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    double score = 0;
    if (!force_zero_ && index > 0) {
      // mean_abs_difference's float division, on the host (Vulkan's float
      // division is not correctly rounded).
      const std::uint32_t* r = result_.host<const std::uint32_t>() + 6 * ctx_->result_of(seq);
      float scale0[3] = {}, scale1[3] = {};
      for (std::size_t p = 0; p < planes_.size(); ++p) {
        const PlaneState& s = planes_[p];
        scale0[p] = std::bit_cast<float>(r[2 * p]) / static_cast<float>(s.width * s.height);
        const int w = s.same_size ? s.width : s.dst_w, h = s.same_size ? s.height : s.dst_h;
        scale1[p] = std::bit_cast<float>(r[2 * p + 1]) / static_cast<float>(w * h);
      }
      score = scorer_.motion_of_planes(scale0, scale1, static_cast<int>(planes_.size()));
    }
    scorer_.emit(index, score, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  struct PlaneState {
    int width = 0, height = 0, dst_w = 0, dst_h = 0;
    bool same_size = true;
    Buffer blur, scaled, plan;
    VkDescriptorSet blur_set = VK_NULL_HANDLE, scale_set = VK_NULL_HANDLE,
                    rows_set = VK_NULL_HANDLE, total_set = VK_NULL_HANDLE;
  };

  float_motion::Scorer scorer_;
  bool force_zero_, add_scale1_, add_uv_;
  VideoFormat format_{};
  Context* ctx_ = nullptr;
  std::vector<PlaneState> planes_;
  std::uint32_t rows_max_ = 1;
  Buffer result_, rows_buffer_;
  const Pipeline *blur_ = nullptr, *scale_ = nullptr, *rows_ = nullptr, *total_ = nullptr;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::float_motion::make_vulkan(
    const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanFloatMotion>(options);
}
