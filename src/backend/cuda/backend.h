// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The CUDA backend as seen from plain C++ (the job, the benchmark):
/// GpuJob, which runs the CUDA compute of a set of extractors over a stream
/// of frame pairs. Available in every build; in a build without CUDA no
/// extractor has a CUDA compute and make_gpu_job() throws.

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vqe/feature_collector.h"
#include "core/extractor.h"
#include "core/gpu_job.h"
#include "core/options.h"
#include "vqe/picture.h"

namespace vqe::cuda {

/// True when extractor `name` has a CUDA compute in this build
/// (ExtractorInfo::make_cuda).
inline bool has_cuda_extractor(const std::string& name) {
  const ExtractorInfo* info = find_extractor(name);
  return info != nullptr && info->make_cuda != nullptr;
}

/// The CUDA backend's jobs implement the backend-neutral interface
/// (core/gpu_job.h).
using GpuJob = ::vqe::GpuJob;

/// Benchmark and test aids of a GpuJob (kept out of its production
/// interface): upload on or off, concurrency on or off, frames preloaded to
/// the device, per-extractor GPU times. Every GpuJob of this build
/// implements it; bench_hooks() gives it.
class GpuBenchHooks {
 public:
  virtual ~GpuBenchHooks() = default;

  /// Benchmark aid: when false, submit() skips the staging copy and the
  /// upload and computes on whatever the frame's device slot holds. Default
  /// true. (preload()/submit_preloaded() are the cleaner way.)
  virtual void set_upload_enabled(bool enabled) = 0;

  /// When true (default), extractors that allow it (CudaExtractor::
  /// concurrent_frames) run each ring slot's frame on its own stream, so the
  /// kernels of up to Context::kSlots frames overlap; false runs everything
  /// on one stream (for comparison; results are identical either way).
  virtual void set_concurrent_frames(bool enabled) = 0;

  /// Benchmark aid, "frames already on the device": uploads these pairs once
  /// into device memory of their own (allocated here, outside the hot path;
  /// synchronous). Call after init(). Their memory stays allocated until the
  /// job ends.
  virtual void preload(const std::vector<std::pair<const Picture*, const Picture*>>& frames) = 0;
  /// Like submit() for preloaded pair `i`: no staging copy, no upload.
  /// Frames must still be submitted in index order (temporal extractors see
  /// the preloaded pairs as consecutive frames).
  virtual void submit_preloaded(std::size_t i, unsigned index, FeatureCollector& out) = 0;

  /// When on, each extractor's enqueued work is bracketed by CUDA events;
  /// kernel_times_ms() then gives, per extractor (in add() order, named
  /// "<extractor>#<handle>"), the summed GPU time of the frames collected
  /// since timing was enabled (with concurrent frames, overlapping work is
  /// counted in each frame). Adds a little overhead; off by default.
  virtual void enable_kernel_timing(bool enabled) = 0;
  virtual std::vector<std::pair<std::string, double>> kernel_times_ms() const = 0;

};

/// The benchmark aids of `job`.
GpuBenchHooks& bench_hooks(GpuJob& job);

/// A job on CUDA device `device` (0-based) scoring every `subsample`-th frame
/// with non-temporal extractors. Throws vqe::Error when the build has no CUDA
/// backend, the device does not exist, or a CUDA call fails.
std::unique_ptr<GpuJob> make_gpu_job(int device, unsigned subsample);

}  // namespace vqe::cuda
