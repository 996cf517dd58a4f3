// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The interface of an extractor's Vulkan compute (beside its CPU and
/// CUDA computes in the metric's folder, with the same definition: options,
/// emitted names, refusals, score finalisation). Vulkan builds only.

#include <string>
#include <vector>

#include "backend/vulkan/runtime.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::vulkan {

/// Vulkan twin of a CPU FeatureExtractor. Results are deferred: record()
/// only records dispatches into the batch's command buffer (results land in
/// host-visible buffers per result slot); collect() runs later, in frame
/// order, once the batch completed. All methods run on one thread.
class VulkanExtractor {
 public:
  virtual ~VulkanExtractor() = default;

  /// Once, before anything else: the refusals (throws vqe::Error exactly as
  /// the CPU compute's init(); both call the metric's shared definition).
  /// No Vulkan objects yet: the frame ring's layout depends on every
  /// extractor's needs_chroma().
  virtual void init(const VideoFormat& format) = 0;

  /// After the ring is laid out (ctx.layout(), ctx.slots(),
  /// ctx.result_slots()): pipelines, descriptor sets and buffers, all from
  /// ctx; keep `ctx` for record().
  virtual void create(Context& ctx) = 0;

  /// Emitted names, identical to the CPU twin's, valid after init().
  virtual std::vector<std::string> feature_names() const = 0;

  /// True if the extractor needs every frame in order (the CPU twin's
  /// temporal()); false: its runs hold only frames with index % subsample
  /// == 0.
  virtual bool temporal() const { return false; }
  /// Frames of look-ahead, as FeatureExtractor::lag().
  virtual unsigned lag() const { return 0; }
  /// True if the chroma planes must be uploaded too.
  virtual bool needs_chroma() const { return false; }

  /// Records the work of `run` (consecutive frames of the batch, uploaded
  /// and in their ring slots; the two frames before a batch stay resident)
  /// with ctx.dispatch() and ctx.barrier(). Never waits.
  virtual void record(const Run& run) = 0;

  /// Called in frame order once the batch holding submission `seq` (video
  /// frame `index`) completed: read the result slot ctx.result_of(seq)
  /// and out.set(name, index, value).
  virtual void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) = 0;

  /// After the last collect(): end-of-video values.
  virtual void flush(FeatureCollector& out) { (void)out; }
};

}  // namespace vqe::vulkan
