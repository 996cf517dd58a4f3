// SPDX-License-Identifier: BSD-2-Clause
// VulkanJob: the GpuJob of the Vulkan backend. Frames are staged into
// host-visible memory as they are submitted and recorded in batches of
// Context::batch_frames() frames, one command buffer and one vkQueueSubmit
// per batch; results are collected in frame order once their batch's
// timeline value is reached.

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "backend/vulkan/backend.h"
#include "backend/vulkan/runtime.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "vqe/error.h"

namespace vqe::vulkan {
namespace {

class VulkanJobImpl final : public GpuJob, public VulkanBenchHooks {
 public:
  VulkanJobImpl(int device, unsigned subsample) : ctx_(device), subsample_(subsample ? subsample : 1) {}

  ~VulkanJobImpl() override {
    // Work in flight uses the extractors' buffers: the context's destructor
    // waits for the device before it frees them.
    extractors_.clear();
  }

  const char* backend_name() const override { return "vulkan"; }
  bool implements(const ExtractorInfo& info) const override { return info.make_vulkan != nullptr; }

  std::size_t add(const std::string& extractor, const OptionValues& options) override {
    const ExtractorInfo* info = find_extractor(extractor);
    if (!info) throw Error("unknown feature '" + extractor + "'");
    if (!info->make_vulkan) throw Error(extractor + ": no Vulkan implementation");
    extractors_.push_back(info->make_vulkan(ParsedOptions(extractor, info->options, options)));
    return extractors_.size() - 1;
  }

  void init(const VideoFormat& format) override {
    bool chroma = false;
    for (auto& e : extractors_) {
      e->init(format);
      chroma = chroma || e->needs_chroma();
    }
    chroma_ = chroma;
    ctx_.init(format, chroma, batch_frames_);
    for (auto& e : extractors_) e->create(ctx_);
    pending_.assign(ctx_.result_slots(), Pending{});
    for (Pending& p : pending_) p.ran.assign(extractors_.size(), 0);
  }

  std::vector<std::string> feature_names(std::size_t handle) const override {
    return extractors_.at(handle)->feature_names();
  }

  void submit(const Picture& reference, const Picture& distorted, unsigned index,
              FeatureCollector& out) override {
    const std::uint64_t seq = submitted_;
    // Temporal extractors see the frames as a video: indexes 0, 1, 2, ...
    if (index != seq)
      throw Error("Vulkan job: frame " + std::to_string(index) + " submitted out of order (expected " +
                  std::to_string(seq) + ")");
    // Frame seq - result_slots() used this frame's staging and result slot.
    while (collected_ + ctx_.result_slots() <= seq) collect_next(out);
    ctx_.stage(reference, distorted, seq);
    Pending& p = pending_[ctx_.result_of(seq)];
    p.index = index;
    const bool scored = index % subsample_ == 0;
    for (std::size_t i = 0; i < extractors_.size(); ++i)
      p.ran[i] = scored || extractors_[i]->temporal();
    ++submitted_;
    if (submitted_ - batch_first_ == ctx_.batch_frames()) submit_batch();
  }

  void drain(FeatureCollector& out) override {
    submit_batch();
    while (collected_ < submitted_) collect_next(out);
  }

  void finish(FeatureCollector& out) override {
    drain(out);
    for (auto& e : extractors_) e->flush(out);
  }

  unsigned collected_frames() const override { return static_cast<unsigned>(collected_); }

  unsigned lag() const override {
    unsigned lag = 0;
    for (const auto& e : extractors_) lag = std::max(lag, e->lag());
    return lag;
  }

  // Imports the picture (VK_EXT_external_memory_host) where the device
  // can; elsewhere its frames keep passing through the staging buffer.
  void register_host(std::span<const Picture* const> pictures) override {
    for (const Picture* p : pictures) ctx_.register_host(*p);
  }
  void unregister_host(const Picture& picture) override { ctx_.unregister_host(picture); }

  bool needs_chroma() const override { return chroma_; }

  std::size_t device_bytes() const override { return ctx_.device_bytes(); }
  std::size_t pinned_host_bytes() const override { return ctx_.host_bytes(); }
  std::string device_name() const override { return ctx_.device_name(); }

  void set_batch_frames(unsigned frames) override { batch_frames_ = std::max(1u, frames); }
  JobStats stats() const override {
    return JobStats{submitted_, ctx_.submissions(), ctx_.dispatches(), ctx_.copies(),
                    ctx_.batch_frames(), ctx_.separate_upload_queue()};
  }

 private:
  bool chroma_ = false;
  struct Pending {
    unsigned index = 0;
    std::uint64_t value = 0;  // timeline value of its batch
    std::vector<char> ran;    // per extractor: computed for this frame
  };

  // Records the staged frames [batch_first_, submitted_) and submits them.
  void submit_batch() {
    const unsigned count = static_cast<unsigned>(submitted_ - batch_first_);
    if (count == 0) return;
    ctx_.begin_batch(batch_first_, count);
    for (std::size_t i = 0; i < extractors_.size(); ++i) {
      // Runs of consecutive frames this extractor computes. An extractor's
      // scratch buffers are per dispatch, not per frame: a second run of it
      // in the batch (frames skipped by subsampling between them) waits for
      // the first run's dispatches, which a GPU may otherwise overlap with it
      // (the NVIDIA driver did, and SSIM's second run overwrote the first's
      // rows before its sums read them; lavapipe runs dispatches in order).
      Run run;
      bool recorded = false;
      for (std::uint64_t seq = batch_first_; seq <= submitted_; ++seq) {
        const bool ran = seq < submitted_ && pending_[ctx_.result_of(seq)].ran[i];
        if (ran && run.count == 0) {
          run.first_seq = seq;
          run.first_index = pending_[ctx_.result_of(seq)].index;
        }
        if (ran) {
          ++run.count;
        } else if (run.count) {
          if (recorded) ctx_.barrier();
          extractors_[i]->record(run);
          recorded = true;
          run = Run{};
        }
      }
    }
    const std::uint64_t value = ctx_.submit_batch();
    for (std::uint64_t seq = batch_first_; seq < submitted_; ++seq)
      pending_[ctx_.result_of(seq)].value = value;
    batch_first_ = submitted_;
  }

  void collect_next(FeatureCollector& out) {
    const std::uint64_t seq = collected_;
    if (seq >= batch_first_) submit_batch();
    Pending& p = pending_[ctx_.result_of(seq)];
    ctx_.wait(p.value);
    for (std::size_t i = 0; i < extractors_.size(); ++i)
      if (p.ran[i]) extractors_[i]->collect(seq, p.index, out);
    ++collected_;
  }

  Context ctx_;
  unsigned subsample_;
  unsigned batch_frames_ = 16;
  std::vector<std::unique_ptr<VulkanExtractor>> extractors_;
  std::vector<Pending> pending_;  // by result slot
  std::uint64_t submitted_ = 0, collected_ = 0, batch_first_ = 0;
};

}  // namespace

VulkanBenchHooks& bench_hooks(GpuJob& job) { return dynamic_cast<VulkanJobImpl&>(job); }

std::unique_ptr<GpuJob> make_vulkan_job(int device, unsigned subsample) {
  return std::make_unique<VulkanJobImpl>(device, subsample);
}

}  // namespace vqe::vulkan
