// SPDX-License-Identifier: BSD-2-Clause
// run_job: a thin loop over vqe::Job that reads both frame sources into the
// job's frame slots (no copy), the distorted one on a thread of its own when
// the job has workers.

#include <condition_variable>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "vqe/error.h"
#include "vqe/vqe.h"

namespace vqe {
namespace {

// Reads one source's frames on a thread of its own, one frame per request,
// so that the reference and the distorted file are read at the same time.
class SideReader {
 public:
  explicit SideReader(FrameSource& source) : source_(source), thread_([this] { loop(); }) {}
  ~SideReader() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  SideReader(const SideReader&) = delete;
  SideReader& operator=(const SideReader&) = delete;

  // Starts reading the next frame into `picture`.
  void start(Picture* picture) {
    {
      std::lock_guard lock(mutex_);
      target_ = picture;
      finished_ = false;
      error_ = nullptr;
    }
    cv_.notify_all();
  }
  // Waits for the frame started last: FrameSource::read()'s result, or its
  // exception rethrown.
  bool wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return finished_; });
    if (error_) std::rethrow_exception(error_);
    return got_;
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || target_ != nullptr; });
      if (target_ == nullptr) return;
      Picture* picture = target_;
      target_ = nullptr;
      lock.unlock();
      bool got = false;
      std::exception_ptr error;
      try {
        got = source_.read(*picture);
      } catch (...) {
        error = std::current_exception();
      }
      lock.lock();
      got_ = got;
      error_ = error;
      finished_ = true;
      cv_.notify_all();
    }
  }

  FrameSource& source_;
  std::mutex mutex_;
  std::condition_variable cv_;
  Picture* target_ = nullptr;
  bool finished_ = false;
  bool got_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace

void check_pairable(const FrameSource& reference, const FrameSource& distorted) {
  const auto ref_id = reference.identity();
  const auto dist_id = distorted.identity();
  if (ref_id && dist_id) check_separate_inputs(reference.path(), *ref_id, distorted.path(), *dist_id);
  const VideoFormat& a = reference.format();
  const VideoFormat& b = distorted.format();
  if (a.width != b.width || a.height != b.height)
    throw Error(fmt::format("reference and distorted differ in size: {} is {}x{}, {} is {}x{}",
                            reference.path(), a.width, a.height, distorted.path(), b.width,
                            b.height));
  if (a.bit_depth != b.bit_depth)
    throw Error(fmt::format("reference and distorted differ in bit depth: {} is {}-bit, {} is "
                            "{}-bit",
                            reference.path(), a.bit_depth, distorted.path(), b.bit_depth));
  if (a.chroma != b.chroma)
    throw Error(fmt::format("reference and distorted differ in chroma format: {} is {}p, {} is "
                            "{}p",
                            reference.path(), to_string(a.chroma), distorted.path(),
                            to_string(b.chroma)));
}

JobResult run_job(FrameSource& reference, FrameSource& distorted, const JobConfig& config) {
  check_pairable(reference, distorted);
  Job job(config);

  if (config.frame_skip_ref && !reference.skip(config.frame_skip_ref))
    throw Error(fmt::format("{}: has fewer than {} frames to skip (--frame_skip_ref)",
                            reference.path(), config.frame_skip_ref));
  if (config.frame_skip_dist && !distorted.skip(config.frame_skip_dist))
    throw Error(fmt::format("{}: has fewer than {} frames to skip (--frame_skip_dist)",
                            distorted.path(), config.frame_skip_dist));

  // One source ended (got_ref != got_dist): say which, as libvmaf does.
  const auto warn_ended = [&](bool got_ref, unsigned scored) {
    if (!config.on_warning) return;
    const FrameSource& ended = got_ref ? distorted : reference;
    const FrameSource& other = got_ref ? reference : distorted;
    config.on_warning(fmt::format("{} ended after {} frames, before {}; scored the first {} frames",
                                  ended.path(), ended.frames_read(), other.path(), scored));
  };
  const auto no_frames = [&] {
    return Error(fmt::format("no frames to score: {} or {} holds no frame after skipping",
                             reference.path(), distorted.path()));
  };

  // The first frame pair is read before the job builds its extractors (and
  // their frame-sized buffers): an input that fails at its first frame, such
  // as a stream whose header claims a huge frame and then ends, costs only
  // what was read. Refusals (a frame too small for an extractor) come next,
  // before any frame is scored.
  {
    Picture first_ref, first_dist;
    const bool got_ref = reference.read(first_ref);
    const bool got_dist = distorted.read(first_dist);
    if (!got_ref || !got_dist) {
      if (got_ref != got_dist) warn_ended(got_ref, 0);
      throw no_frames();
    }
    job.start(reference.format());
    JobFrame frame = job.acquire();
    std::swap(frame.reference(), first_ref);
    std::swap(frame.distorted(), first_dist);
    job.submit(std::move(frame));
    if (config.on_progress) config.on_progress(1);
  }

  std::optional<SideReader> side;
  if (config.threads > 0) side.emplace(distorted);
  for (unsigned index = 1;; ++index) {
    if (config.frame_cnt && index >= config.frame_cnt) break;
    JobFrame frame = job.acquire();
    bool got_ref = false, got_dist = false;
    if (side) {
      side->start(&frame.distorted());
      try {
        got_ref = reference.read(frame.reference());
      } catch (...) {
        try {
          side->wait();
        } catch (...) {
        }
        throw;
      }
      got_dist = side->wait();
    } else {
      got_ref = reference.read(frame.reference());
      got_dist = distorted.read(frame.distorted());
    }
    if (!got_ref || !got_dist) {
      if (got_ref != got_dist) warn_ended(got_ref, index);
      break;
    }
    job.submit(std::move(frame));
    if (config.on_progress) config.on_progress(index + 1);
  }
  if (job.frames_submitted() == 0) throw no_frames();
  return job.finish();
}

}  // namespace vqe
