// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The push-style job: frames in (from any decoder, as libvmaf's
/// vmaf_read_pictures), scores out.
///
///   vqe::JobConfig config;                      // models, features, threads…
///   config.models.push_back(vqe::Model::builtin("vmaf_v0.6.1"));
///   vqe::Job job(config);
///   for (each frame pair) job.submit(reference_view, distorted_view);
///   vqe::JobResult result = job.finish();       // per-frame values, pooling
///
/// A job owns every setting it uses (CPU level, backend, device, threads):
/// jobs with different settings may run at the same time in one process and
/// never affect each other. Frames stream through a fixed number of
/// in-flight slots: submit() waits (or try_submit() returns false) while all
/// are busy, so memory stays bounded however fast frames are pushed.

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vqe/cpu.h"
#include "vqe/feature_collector.h"
#include "vqe/model.h"
#include "vqe/options.h"
#include "vqe/picture.h"

namespace vqe {

namespace detail {
class JobState;
}  // namespace detail

/// Work that depends on the reference alone, shared by the jobs of a ladder
/// (one reference scored against several distorted versions; run_ladder()
/// makes one). Every job given the same share (JobConfig::reference_share)
/// must be fed the same reference frames at the same frame indices; then a
/// value computed from reference pictures only (integer motion's per-frame
/// SAD score) is computed by the first job that needs it and taken by the
/// others, instead of once per job. The values are the same bits either way.
/// A share forgets each value once every job has taken it (or has finished
/// or been destroyed), so its memory is bounded by the frames in flight.
/// Thread-safe.
class ReferenceShare {
 public:
  /// `jobs`: how many jobs hold this share (each takes every value once).
  explicit ReferenceShare(unsigned jobs);
  ~ReferenceShare();
  ReferenceShare(const ReferenceShare&) = delete;
  ReferenceShare& operator=(const ReferenceShare&) = delete;

  /// Values computed so far, and values taken from the share instead of
  /// being computed again (for tests and --verbose).
  unsigned long long computed() const;
  unsigned long long reused() const;

 private:
  friend class detail::JobState;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// One extractor to run, by libvmaf extractor name ("psnr", "vif", ...) and
/// options ("enable_mse" -> "true").
struct FeatureRequest {
  std::string extractor;
  OptionValues options;
};

/// Parses libvmaf's feature syntax, "name" or "name=opt=val:opt=val" (the
/// CLI's --feature). Throws vqe::Error for an empty name or an option
/// without '='; the extractor and its options are checked by the Job.
FeatureRequest parse_feature_request(const std::string& text);

/// What to compute and how. Defaults match libvmaf's `vmaf` CLI.
struct JobConfig {
  /// VMAF models to predict per frame. Their features are extracted first
  /// (with the options the model asks for), then `features`.
  std::vector<Model> models;
  /// Features computed but not predicted (libvmaf -n with -m).
  bool no_prediction = false;
  std::vector<FeatureRequest> features;
  /// Worker threads. 0 computes everything on the thread that calls
  /// submit(); N >= 1 runs all extractors (temporal ones in frame order) on
  /// N workers, so that submit() only hands frames over. Results are
  /// bit-identical for every value.
  unsigned threads = 0;
  /// Frame pairs in flight at most (each holds a reference and a distorted
  /// picture): submit() waits beyond that. 0 chooses 2·threads + 2 (1 with
  /// no threads), fewer for large pictures: as many as fit in 1 GiB, but
  /// at least threads + 2 (at least 16 with a GPU backend).
  unsigned max_frames_in_flight = 0;
  /// Score every N-th frame (libvmaf --subsample). Temporal extractors
  /// (motion, psnr's APSNR) still see every frame.
  unsigned subsample = 1;
  /// Stop after this many frames (0 = all). Used by run_job (Job::submit
  /// refuses frames past it).
  unsigned frame_cnt = 0;
  unsigned frame_skip_ref = 0;   ///< run_job: frames dropped from the reference's start
  unsigned frame_skip_dist = 0;  ///< run_job: frames dropped from the distorted's start
  /// run_job: called after each frame pair is handed to the job (frames so
  /// far), on the reading thread.
  std::function<void(unsigned)> on_progress;
  /// run_job: threads reading frames at once when both sources allow it
  /// (FrameSource::random_access: regular Y4M and raw files); 0 chooses
  /// min(4, max(1, cores / 4)). Pipes and irregular files are read in order.
  unsigned readers = 0;
  /// With 1 <= threads < the machine's cores: while every frame slot is
  /// busy, the thread that submits (inside submit() or acquire()) computes
  /// queued work with the workers instead of sleeping, so that the job uses
  /// threads + 1 cores as libvmaf's --threads N does. With threads >= cores
  /// it does not (no more computing threads than cores). false keeps the
  /// submitting thread idle.
  bool help_while_waiting = true;
  /// Called with warnings (e.g. one file ended first).
  std::function<void(const std::string&)> on_warning;

  /// Where extractors run. kCpu: all on the CPU. kCuda: every requested
  /// extractor with a CUDA implementation runs on CUDA device `gpu`, the
  /// others on the CPU in the same job. kVulkan: likewise with the Vulkan
  /// implementations on Vulkan device `gpu` (any vendor's driver, or Mesa's
  /// software lavapipe). Results are identical on every backend; the job
  /// throws vqe::Error when the build lacks the backend or the device does
  /// not exist. kAuto: CUDA when a CUDA device `gpu` is present, else Vulkan
  /// when a Vulkan device `gpu` is, else the CPU (said through on_note).
  enum class Backend { kCpu, kCuda, kAuto, kVulkan };
  Backend backend = Backend::kCpu;
  /// Device index for kCuda, kVulkan and kAuto (0-based, as --gpu), among
  /// the backend's devices (CUDA devices, or Vulkan physical devices in the
  /// loader's order).
  int gpu = 0;
  /// Highest CPU instruction-set level this job's kernels use (--cpu-level,
  /// --cpumask); the best this CPU has by default. Must be an available
  /// level (simd::is_available), else the job throws vqe::Error. Results
  /// are identical at every level.
  simd::Level cpu_level = simd::max_level();
  /// Called with informational notes (which backend runs which extractor);
  /// the CLI prints them with --verbose.
  std::function<void(const std::string&)> on_note;
  /// Jobs scoring the same reference frames against other distorted videos
  /// may share reference-only work through one ReferenceShare (see there);
  /// null (the default) computes everything in this job.
  std::shared_ptr<ReferenceShare> reference_share;
};

/// Where a job's time went, in seconds of thread time (not wall time), to
/// show which part of a job is serial (`vqe --verbose` prints it).
struct JobTimes {
  /// Setting up in start(): extractors, frame slots, the GPU's memory.
  double start = 0;
  /// Computing done by the submitting thread while it waited for a free
  /// frame slot (JobConfig::help_while_waiting); part of wait_for_slots.
  double help = 0;
  /// Ordered parts of temporal extractors (frames one after another: the
  /// serial stage of the computation).
  double ordered = 0;
  /// Model prediction (any thread, frames as they become final).
  double prediction = 0;
  /// The submitting thread inside submit() (handing frames over, GPU
  /// uploads and kernel launches; all computation when threads is 0).
  double submit = 0;
  /// run_job only: the calling thread's own reading of frames (sequential
  /// reading; 0 when parallel readers read), waiting for free frame slots
  /// (backpressure: the computation is behind), and waiting for reader
  /// threads (the reading is behind).
  double read = 0, wait_for_slots = 0, wait_for_reads = 0;
};

/// Everything a job produced.
struct JobResult {
  VideoFormat format;          ///< shared format of both inputs
  unsigned frames = 0;         ///< frames scored
  FeatureCollector features;   ///< per-frame values and aggregates
  /// Extractors that ran on the GPU (empty when none did).
  std::vector<std::string> gpu_extractors;
  JobTimes times;
};

namespace detail {
struct FrameSlot;
struct JobAccess;
}  // namespace detail

/// A frame pair lent by a job to be filled in place (no copy on submit):
/// Job::acquire() gives one, its pictures have the job's format, and
/// Job::submit(JobFrame&&) hands it back. Dropping it unsubmitted returns it
/// to the job unused. Move-only.
class JobFrame {
 public:
  JobFrame() = default;
  JobFrame(JobFrame&& other) noexcept;
  JobFrame& operator=(JobFrame&& other) noexcept;
  JobFrame(const JobFrame&) = delete;
  JobFrame& operator=(const JobFrame&) = delete;
  ~JobFrame();

  /// The pictures to fill (planes as Picture documents: 64-byte aligned
  /// rows, stride in bytes).
  Picture& reference();
  Picture& distorted();
  /// Makes `picture` this frame's reference instead of filling reference():
  /// no copy. The job holds `picture` until it no longer reads it (this
  /// frame's computation, and a later frame's that reads this one) and
  /// reads it from its worker threads meanwhile, so it must not change
  /// while held (e.g. reuse a picture once its use_count() is back to the
  /// caller's holds, after an acquire fence). Several frames and jobs may
  /// hold one picture: a ladder reads each reference frame once and shares
  /// it with every encode's job. A job that runs extractors on a GPU
  /// copies it into reference() instead (its uploads read the frame's own
  /// page-locked pictures). After this call reference() is not read.
  /// Throws vqe::Error for an empty frame, a null picture or one of
  /// another format than the job's.
  void share_reference(std::shared_ptr<const Picture> picture);
  explicit operator bool() const { return slot_ != nullptr; }

 private:
  friend class Job;
  JobFrame(detail::JobState* job, detail::FrameSlot* slot) : job_(job), slot_(slot) {}
  detail::JobState* job_ = nullptr;
  detail::FrameSlot* slot_ = nullptr;
};

/// A scoring job over one reference/distorted video pair, fed frame by
/// frame. Thread safety: submit(), try_submit(), acquire(), flush() and
/// finish() are for one producer thread at a time; score() and
/// frames_final() may be called from any thread at any time.
class Job {
 public:
  /// Checks the configuration (models, extractor names and options, CPU
  /// level). Throws vqe::Error on any defect. No thread starts yet.
  explicit Job(JobConfig config);
  /// Stops the workers; results not taken by finish() are dropped.
  ~Job();
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;

  /// Fixes the video format and builds every extractor (refusals, such as a
  /// frame too small for an extractor, throw vqe::Error here, before any
  /// frame). Called by the first submit() or acquire() when not called
  /// before. Throws vqe::Error when called twice with different formats.
  void start(const VideoFormat& format);

  /// Copies one frame pair (caller-owned planes, the job's format; the first
  /// frame sets it) and queues it as the next frame. Waits while every
  /// in-flight slot is busy. Throws vqe::Error for a picture of another
  /// format, a null plane, a stride below a row, after finish(), or when a
  /// worker failed on an earlier frame (its message).
  void submit(const PictureView& reference, const PictureView& distorted);
  /// As submit(), but returns false without copying anything when every
  /// in-flight slot is busy (the job is "full").
  bool try_submit(const PictureView& reference, const PictureView& distorted);

  /// A free frame pair to fill in place (waits while every slot is busy;
  /// start() must have been called, or `format` is used to start).
  JobFrame acquire();
  JobFrame acquire(const VideoFormat& format);
  /// Queues a frame pair obtained from acquire() as the next frame.
  void submit(JobFrame&& frame);

  /// Frames submitted so far.
  unsigned frames_submitted() const;
  /// Leading frames whose per-frame values (features and model scores) are
  /// final: score() returns them. Temporal features that look ahead
  /// (motion2) make a frame final once the next frames are scored; every
  /// frame is final after finish().
  unsigned frames_final() const;
  /// Frame `index`'s value of `name` (an emitted feature or model output)
  /// once final; nullopt before, or for a name the job does not emit.
  std::optional<double> score(const std::string& name, unsigned index) const;
  /// Names the job emits (after start()), in libvmaf's output order: the
  /// order in which libvmaf's one-thread run first writes them. A value
  /// libvmaf first writes at a frame the video does not reach moves among
  /// the end-of-video values at finish() (float_motion's motion3 in a
  /// one-frame video).
  std::vector<std::string> feature_names() const;
  /// Planes of each picture the job reads (after start()): 1 when every
  /// extractor reads luma only (VMAF), else the format's planes. A caller
  /// may leave the other planes unfilled.
  int planes_needed() const;
  /// Frame pairs the caller may hold at once through acquire() (after
  /// start()): the job's slots less those it keeps for temporal extractors
  /// that read earlier frames (motion keeps the last one). Acquiring more
  /// without submitting waits for ever.
  unsigned frames_in_flight() const;

  /// Waits until every submitted frame has been computed. Frames submitted
  /// later continue the same video.
  void flush();

  /// Ends the video: waits for all frames, emits end-of-video values
  /// (motion2 of the last frames, APSNR), predicts every remaining model
  /// score and returns everything. Throws vqe::Error if no frame was
  /// submitted or a frame failed. The job accepts no frame afterwards.
  JobResult finish();

 private:
  friend struct detail::JobAccess;  // run_job's frames in device memory (src/job)
  std::unique_ptr<detail::JobState> state_;
};

}  // namespace vqe
