// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file GpuJob: the GPU part of a job, whatever the GPU backend (CUDA or
/// Vulkan). The job (src/job) drives it; each backend's runtime implements
/// it (backend/cuda/gpu_job.cu, backend/vulkan/vulkan_job_vulkan.cpp).

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/device_picture.h"
#include "core/extractor.h"
#include "core/options.h"
#include "vqe/error.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe {

/// One side of a frame pair for GpuJob::submit_inputs(): a picture in host
/// memory (`host`) or in the GPU's memory (`device`); exactly one is set.
struct GpuInput {
  const Picture* host = nullptr;
  const DevicePicture* device = nullptr;
};

/// Runs the GPU computes of a job's extractors on one device, for one GPU
/// backend (CUDA: backend/cuda/backend.h; Vulkan: backend/vulkan/backend.h).
/// Not thread-safe: call every
/// method from one thread (the pipeline's reading thread).
///
/// Life cycle: add() each extractor, init() once, submit() each frame pair in
/// order (index 0, 1, 2, ...), finish() once. Results of frame i are written
/// into the collector during a later submit() or finish() (keyed by frame
/// index), so uploads and kernels of later frames overlap the readback.
class GpuJob {
 public:
  virtual ~GpuJob() = default;

  /// The backend's name as --backend spells it ("cuda", "vulkan").
  virtual const char* backend_name() const = 0;

  /// True when extractor `info` has a compute on this backend in this build
  /// (ExtractorInfo::make_cuda / make_vulkan).
  virtual bool implements(const ExtractorInfo& info) const = 0;

  /// Adds this backend's compute of extractor `extractor` with `options`
  /// (validated against its options; throws vqe::Error on an unknown option
  /// or when the extractor has no compute on this backend). Returns a handle
  /// for feature_names().
  virtual std::size_t add(const std::string& extractor, const OptionValues& options) = 0;

  /// Initialises every added extractor for `format` (refusals throw
  /// vqe::Error with the message of every backend) and allocates all device memory
  /// and streams or queues (CUDA: each ring slot's pinned staging at the slot's
  /// first upload from memory that is not page-locked).
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

  /// The CUDA device whose DevicePictures submit_inputs() takes, or -1 when
  /// this backend takes none (Vulkan).
  virtual int device_pictures_device() const { return -1; }

  /// As submit(), with either side a picture in host memory (copied during
  /// the call, as submit() copies an unregistered picture) or a DevicePicture
  /// on device_pictures_device() with the job's format and at least the
  /// planes the extractors read (1, or 3 when needs_chroma()): copied device
  /// to device into the job's frame ring, its owner held until that copy has
  /// completed. Throws vqe::Error when the backend takes no device pictures
  /// or a picture does not fit.
  virtual void submit_inputs(const GpuInput& reference, const GpuInput& distorted, unsigned index,
                             FeatureCollector& out) {
    (void)reference, (void)distorted, (void)index, (void)out;
    throw Error(std::string(backend_name()) + ": this backend takes no pictures in device memory");
  }

  /// Waits for all outstanding work and writes the remaining per-frame
  /// results into `out`; more frames may be submitted afterwards.
  virtual void drain(FeatureCollector& out) = 0;

  /// drain(), then the end-of-video values (flush) into `out`.
  virtual void finish(FeatureCollector& out) = 0;

  /// Frames whose per-frame results have been written so far (frames are
  /// collected in order, so this is a prefix of the submitted frames).
  virtual unsigned collected_frames() const = 0;

  /// The largest lag() of the added extractors (frames of look-ahead; see
  /// FeatureExtractor::lag).
  virtual unsigned lag() const = 0;

  /// Page-locks `picture`'s memory (CUDA: cudaHostRegister) so that submit()
  /// uploads straight from it, without the copy into pinned staging: the
  /// "frames in host RAM" path at PCIe speed. A backend without such a path
  /// (Vulkan) accepts the call and keeps copying through its staging. The picture must stay alive
  /// and must not change until finish() or unregister_host(). Call after
  /// init(); registering costs milliseconds (outside any timed region).
  virtual void register_host(std::span<const Picture* const> pictures) = 0;
  void register_host(const Picture& picture) {
    const Picture* one = &picture;
    register_host(std::span<const Picture* const>(&one, 1));
  }
  virtual void unregister_host(const Picture& picture) = 0;

  /// True when the job's own reusable frame pictures (its frame slots)
  /// should be registered: submit() then uploads straight from them, and
  /// wait_uploaded() says when one may be refilled (CUDA). False where
  /// registered pictures are read later, in batches (Vulkan): the job's
  /// slots then go through the staging copy inside submit().
  virtual bool streams_from_registered() const { return false; }

  /// Waits until the upload of frame `index` has read its host pictures, so
  /// that registered pictures may be refilled (see streams_from_registered).
  virtual void wait_uploaded(unsigned index) { (void)index; }

  /// True if some added extractor reads the chroma planes (after init()).
  virtual bool needs_chroma() const = 0;

  /// Device bytes allocated by this job (pool chunks: frame ring, preloaded
  /// pairs, every extractor's buffers); the job frees nothing before its end,
  /// so this is also the peak. Pinned host bytes likewise.
  virtual std::size_t device_bytes() const = 0;
  virtual std::size_t device_peak_bytes() const { return device_bytes(); }
  virtual std::size_t pinned_host_bytes() const = 0;

  /// Human-readable device name ("NVIDIA H200 (sm_90, 139 GiB)").
  virtual std::string device_name() const = 0;
};

}  // namespace vqe
