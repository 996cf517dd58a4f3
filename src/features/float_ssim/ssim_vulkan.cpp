// SPDX-License-Identifier: BSD-2-Clause
// The Vulkan SSIM pipeline of float_ssim and float_ms_ssim (ssim_vulkan.h):
// the geometry table of ssim_common.glsl, the per-frame scratch (pyramid of
// decimated images, row-pass images) sized for a chunk of frames, and the
// dispatches of a run.

#include "features/float_ssim/ssim_vulkan.h"

#include <algorithm>
#include <bit>
#include <cstring>

#include <fmt/format.h>

#include "features/float_ssim/iqa_ssim.h"
#include "vqe/error.h"

namespace vqe::vulkan {
namespace {

// ssim_common.glsl's table layout.
constexpr std::uint32_t kTabGlobals = 16, kTabScale = 32, kTabLevel = 80, kTabTaps = 128;
constexpr std::uint32_t kMaxScales = 6, kMaxLevels = 6, kMaxTaps = 128;
constexpr std::uint32_t kPlane = 0xffffffffu;
// Scratch per extractor at most (both buffers), besides the storage-buffer
// range: a 16-frame batch of 1080p MS-SSIM fits.
constexpr std::size_t kScratchBudget = std::size_t{1} << 30;
// Chunks of 256 map pixels per ssim_map_sum dispatch, within lavapipe's
// 65,535 loop iterations per invocation (ssim_map_sum.comp): a chunk costs
// at most about 440 (its pixels' 11-tap vertical passes if not unrolled,
// two loops each, and their replays: 5 + 110 + 55; the sums' rounds: 257
// when every element is an event; the square roots' corrections), about
// 120 usually.
constexpr std::uint32_t kChunksPerPass = 112;

std::uint32_t u32(int v) { return static_cast<std::uint32_t>(v); }

}  // namespace

void SsimPipeline::create(Context& ctx, const Shape& shape) {
  ctx_ = &ctx;
  scales_ = static_cast<int>(shape.widths.size());
  levels_ = scales_ - (shape.scale0_is_plane ? 1 : 0);
  const int ksize = shape.kernel_size;
  if (scales_ < 1 || scales_ > static_cast<int>(kMaxScales) ||
      levels_ > static_cast<int>(kMaxLevels) ||
      (levels_ > 0 && (ksize < 1 || static_cast<std::uint32_t>(ksize * ksize) > kMaxTaps ||
                       shape.kernel.size() != static_cast<std::size_t>(ksize * ksize))))
    throw Error("SSIM (Vulkan): unsupported pipeline shape");

  std::vector<std::uint32_t> tab(kTabTaps + kMaxTaps, 0);
  for (int k = 0; k < iqa::kGaussianLen; ++k)
    tab[static_cast<std::size_t>(k)] = std::bit_cast<std::uint32_t>(iqa::kGaussianTaps[k]);
  // The constants exactly as the CPU forms them (K·L in float).
  const float c1 = (0.01f * 255) * (0.01f * 255);
  const float c2 = (0.03f * 255) * (0.03f * 255);
  const float c3 = c2 / 2.0f;

  // Pyramid: each decimated scale's reference then distorted image.
  std::uint32_t pyramid_words = 0;
  std::vector<std::uint32_t> source(static_cast<std::size_t>(scales_), kPlane);
  for (int s = shape.scale0_is_plane ? 1 : 0; s < scales_; ++s) {
    source[static_cast<std::size_t>(s)] = pyramid_words;
    pyramid_words += 2 * u32(shape.widths[s]) * u32(shape.heights[s]);
  }
  // Row passes: five (w − 10) × h images per scale; rows stacked for the grid.
  std::uint32_t rowpass_words = 0, max_chunks = 0;
  rows_ = 0;
  max_out_w_ = 0;
  for (int s = 0; s < scales_; ++s) {
    const std::uint32_t w = u32(shape.widths[s]), h = u32(shape.heights[s]);
    const std::uint32_t out_w = w - u32(iqa::kGaussianLen - 1);
    std::uint32_t* e = tab.data() + kTabScale + 8 * s;
    e[0] = w;
    e[1] = h;
    e[2] = source[static_cast<std::size_t>(s)];
    e[3] = rowpass_words;
    e[4] = rows_;
    rowpass_words += 5 * out_w * h;
    max_chunks = std::max(max_chunks, (out_w * (h - u32(iqa::kGaussianLen - 1)) + 255) / 256);
    rows_ += h;
    max_out_w_ = std::max(max_out_w_, out_w);
  }
  // Decimations: level l makes scale d = l + (scale 0 is the plane ? 1 : 0)
  // from scale d − 1, or from the plane when d is 0.
  level_w_.clear();
  level_h_.clear();
  for (int l = 0; l < levels_; ++l) {
    const int d = l + (shape.scale0_is_plane ? 1 : 0);
    std::uint32_t* e = tab.data() + kTabLevel + 8 * l;
    const int sw = d == 0 ? ctx.format().width : shape.widths[d - 1];
    const int sh = d == 0 ? ctx.format().height : shape.heights[d - 1];
    e[0] = u32(sw);
    e[1] = u32(sh);
    e[2] = d == 0 ? kPlane : source[static_cast<std::size_t>(d - 1)];
    e[3] = u32(shape.widths[d]);
    e[4] = u32(shape.heights[d]);
    e[5] = source[static_cast<std::size_t>(d)];
    e[6] = u32(shape.factor);
    e[7] = u32(ksize);
    level_w_.push_back(e[3]);
    level_h_.push_back(e[4]);
  }
  for (int k = 0; k < ksize * ksize && levels_ > 0; ++k)
    tab[kTabTaps + static_cast<std::size_t>(k)] = std::bit_cast<std::uint32_t>(shape.kernel[k]);
  passes_ = (max_chunks + kChunksPerPass - 1) / kChunksPerPass;
  tab[kTabGlobals] = u32(scales_);
  tab[kTabGlobals + 1] = pyramid_words;
  tab[kTabGlobals + 2] = rowpass_words;
  tab[kTabGlobals + 3] = std::bit_cast<std::uint32_t>(c1);
  tab[kTabGlobals + 4] = std::bit_cast<std::uint32_t>(c2);
  tab[kTabGlobals + 5] = std::bit_cast<std::uint32_t>(c3);
  table_ = ctx.device_table(tab.data(), tab.size() * 4);

  // Frames per chunk: the batch, or as many as the budget and one storage
  // buffer hold.
  const std::size_t range = ctx.properties().limits.maxStorageBufferRange;
  const std::size_t frame_rowpass = static_cast<std::size_t>(rowpass_words) * 4;
  const std::size_t frame_pyramid = static_cast<std::size_t>(pyramid_words) * 4;
  if (frame_rowpass > range || frame_pyramid > range)
    throw Error(fmt::format(
        "SSIM (Vulkan): a {}x{} frame's scratch ({} MiB) exceeds this device's storage-buffer "
        "range ({} MiB)",
        ctx.format().width, ctx.format().height, std::max(frame_rowpass, frame_pyramid) >> 20,
        range >> 20));
  const std::size_t fit = std::min({range / frame_rowpass,
                                    frame_pyramid ? range / frame_pyramid : range,
                                    kScratchBudget / (frame_rowpass + frame_pyramid)});
  chunk_ = static_cast<unsigned>(std::clamp<std::size_t>(fit, 1, ctx.batch_frames()));
  pyramid_ = ctx.device_buffer(std::max<std::size_t>(chunk_ * frame_pyramid, 4));
  rowpass_ = ctx.device_buffer(chunk_ * frame_rowpass);
  result_ = ctx.host_buffer(static_cast<std::size_t>(ctx.result_slots()) * u32(scales_) * 8 * 4);

  if (levels_ > 0) {
    decimate_ = &ctx.pipeline("ssim_decimate", 3);
    decimate_set_ = ctx.descriptor_set(*decimate_, {&ctx.frames(), &table_, &pyramid_});
  }
  hpass_ = &ctx.pipeline("ssim_hpass", 4);
  hpass_set_ = ctx.descriptor_set(*hpass_, {&ctx.frames(), &table_, &pyramid_, &rowpass_});
  map_sum_ = &ctx.pipeline("ssim_map_sum", 3);
  map_sum_set_ = ctx.descriptor_set(*map_sum_, {&table_, &rowpass_, &result_});
}

void SsimPipeline::record(const Run& run) {
  for (unsigned done = 0; done < run.count; done += chunk_) {
    Run part = run;
    part.first_seq = run.first_seq + done;
    part.first_index = run.first_index + done;
    part.count = std::min(chunk_, run.count - done);
    if (done > 0) ctx_->barrier();  // the previous chunk has read the scratch
    Push push = ctx_->push_for(part);
    for (int l = 0; l < levels_; ++l) {
      if (l > 0) ctx_->barrier();  // level l reads level l − 1
      push.arg[0] = u32(l);
      ctx_->dispatch(*decimate_, decimate_set_, push, (level_w_[l] + 15) / 16,
                     (level_h_[l] + 15) / 16, part.count);
    }
    if (levels_ > 0) ctx_->barrier();
    push.arg[0] = 0;
    ctx_->dispatch(*hpass_, hpass_set_, push, (max_out_w_ + 255) / 256, rows_, part.count);
    // The map sums in passes of kChunksPerPass chunks (ssim_map_sum.comp).
    for (std::uint32_t pass = 0; pass < passes_; ++pass) {
      ctx_->barrier();
      push.arg[0] = pass;
      push.arg[1] = kChunksPerPass;
      ctx_->dispatch(*map_sum_, map_sum_set_, push, 1, u32(scales_), part.count);
    }
  }
}

void SsimPipeline::sums(std::uint64_t seq, int scale, double out[4]) const {
  const std::uint32_t* r = result_.host<const std::uint32_t>() +
                           (static_cast<std::size_t>(ctx_->result_of(seq)) * u32(scales_) +
                            u32(scale)) * 8;
  for (int q = 0; q < 4; ++q)
    out[q] = std::bit_cast<double>(static_cast<std::uint64_t>(r[2 * q]) |
                                   (static_cast<std::uint64_t>(r[2 * q + 1]) << 32));
}

}  // namespace vqe::vulkan
