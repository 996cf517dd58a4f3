// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The interface of an extractor's CUDA compute (beside its CPU
/// compute in the metric's folder, with the same definition: options,
/// emitted names, refusals, score finalisation). nvcc only.

#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/backend.h"
#include "backend/cuda/runtime.cuh"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::cuda {

/// GPU twin of a CPU FeatureExtractor. Results are deferred: enqueue() only
/// launches work on ctx.stream() (kernels, then an async copy of the few
/// result numbers into a pinned host buffer of the frame's slot); collect()
/// runs later, in frame order, once that work has completed, and writes the
/// values into the collector. All methods run on one thread.
class CudaExtractor {
 public:
  virtual ~CudaExtractor() = default;

  /// Once, before frame 0. Throws vqe::Error exactly as the CPU compute's
  /// init() (both call the metric's shared definition).
  /// Allocates all device memory from ctx.pool() and pinned host memory from
  /// ctx.pool().host_alloc(); keep `ctx` for enqueue().
  virtual void init(const VideoFormat& format, Context& ctx) = 0;

  /// Emitted names, identical to the CPU twin's, valid after init().
  virtual std::vector<std::string> feature_names() const = 0;

  /// True if the extractor needs every frame in order (the CPU twin's
  /// temporal()); false: it is enqueued only for index % subsample == 0.
  virtual bool temporal() const { return false; }

  /// Frames of look-ahead, as FeatureExtractor::lag(): the values collect()
  /// writes for frame i are final once frame i + lag() was collected.
  virtual unsigned lag() const { return 0; }

  /// True if enqueue() for a frame may run on the GPU while earlier frames'
  /// work is still running (each ring slot's frame gets its own stream).
  /// Requires: every device buffer written during enqueue() exists per slot
  /// (index by frame.slot), and no device state passes from one frame to the
  /// next except through ctx.back(k) (the resident raw frames). Default
  /// false: the extractor runs on the serial stream, frames in order.
  virtual bool concurrent_frames() const { return false; }

  /// True if the chroma planes must be uploaded too.
  virtual bool needs_chroma() const { return false; }

  /// Enqueues all work for `frame` on ctx.stream(). Never synchronises.
  virtual void enqueue(const DeviceFrame& frame) = 0;

  /// Called in frame order after everything enqueued for frame `index`
  /// (held in ring slot `slot`) completed: read the slot's pinned results and
  /// out.set(name, index, value).
  virtual void collect(int slot, unsigned index, FeatureCollector& out) = 0;

  /// After the last collect(): end-of-video values (motion2 of the last
  /// frame, aggregates).
  virtual void flush(FeatureCollector& out) { (void)out; }
};

}  // namespace vqe::cuda
