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
#include "core/options.h"
#include "vqe/picture.h"

namespace vqe::cuda {

/// True when extractor `name` has a CUDA compute in this build
/// (ExtractorInfo::make_cuda).
inline bool has_cuda_extractor(const std::string& name) {
  const ExtractorInfo* info = find_extractor(name);
  return info != nullptr && info->make_cuda != nullptr;
}

/// Runs CUDA extractors of one job on one device. Not thread-safe: call every
/// method from one thread (the pipeline's reading thread).
///
/// Life cycle: add() each extractor, init() once, submit() each frame pair in
/// order (index 0, 1, 2, ...), finish() once. Results of frame i are written
/// into the collector during a later submit() or finish() (keyed by frame
/// index), so uploads and kernels of later frames overlap the readback.
class GpuJob {
 public:
  virtual ~GpuJob() = default;

  /// Adds the CUDA compute of extractor `extractor` with `options` (validated
  /// against its options; throws vqe::Error on an unknown option or when the
  /// extractor has no CUDA compute). Returns a handle for feature_names().
  virtual std::size_t add(const std::string& extractor, const OptionValues& options) = 0;

  /// Initialises every added extractor for `format` (refusals throw
  /// vqe::Error with the message of every backend) and allocates all device memory,
  /// pinned staging buffers and streams.
  virtual void init(const VideoFormat& format) = 0;

  /// Emitted feature names of extractor `handle`, after init().
  virtual std::vector<std::string> feature_names(std::size_t handle) const = 0;

  /// Uploads one frame pair (copied into pinned staging, then an async copy;
  /// or straight from the picture if register_host() was called for it) and
  /// enqueues every extractor's kernels for it. Non-temporal extractors run
  /// only when index % subsample == 0. May write results of earlier frames
  /// into `out`. Unregistered pictures may be reused by the caller on return.
  virtual void submit(const Picture& reference, const Picture& distorted, unsigned index,
                      FeatureCollector& out) = 0;

  /// Waits for all outstanding work and writes the remaining per-frame
  /// results into `out`; more frames may be submitted afterwards.
  virtual void drain(FeatureCollector& out) = 0;

  /// drain(), then the end-of-video values (flush) into `out`.
  virtual void finish(FeatureCollector& out) = 0;

  /// Frames whose per-frame results have been written so far (frames are
  /// collected in order, so this is a prefix of the submitted frames).
  virtual unsigned collected_frames() const = 0;

  /// The largest lag() of the added extractors (see CudaExtractor::lag).
  virtual unsigned lag() const = 0;

  /// True if some extractor reads the chroma planes (after init()).
  virtual bool needs_chroma() const = 0;

  /// Waits until the upload of frame `index` has read its host pictures, so
  /// that page-locked pictures (register_host) may be refilled.
  virtual void wait_uploaded(unsigned index) = 0;

  /// Page-locks `picture`'s memory (cudaHostRegister) so that submit()
  /// uploads straight from it, without the copy into pinned staging: the
  /// "frames in host RAM" path at PCIe speed. The picture must stay alive
  /// and must not change until finish() or unregister_host(). Call after
  /// init(); registering costs milliseconds (outside any timed region).
  virtual void register_host(std::span<const Picture* const> pictures) = 0;
  void register_host(const Picture& picture) {
    const Picture* one = &picture;
    register_host(std::span<const Picture* const>(&one, 1));
  }
  virtual void unregister_host(const Picture& picture) = 0;

  /// Device bytes allocated by this job (pool chunks: frame ring, preloaded
  /// pairs, every extractor's buffers); the job frees nothing before its end,
  /// so this is also the peak. Pinned host bytes likewise.
  virtual std::size_t device_bytes() const = 0;
  virtual std::size_t device_peak_bytes() const { return device_bytes(); }
  virtual std::size_t pinned_host_bytes() const = 0;

  /// Human-readable device name ("NVIDIA H200 (sm_90, 139 GiB)").
  virtual std::string device_name() const = 0;
};

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
