// SPDX-License-Identifier: BSD-2-Clause
// run_job: a thin loop over vqe::Job that reads both frame sources into the
// job's frame slots (no copy), the distorted one on a thread of its own when
// the job has workers.

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "io/device_source.h"
#include "job/job_access.h"
#include "vqe/error.h"
#include "vqe/vqe.h"

namespace vqe {
namespace {

// Reads one source's frames on a thread of its own, one frame per request,
// so that the reference and the distorted file are read at the same time.
class SideReader {
 public:
  SideReader(FrameSource& source, int planes)
      : source_(source), planes_(planes), thread_([this] { loop(); }) {}
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
        got = source_.read_planes(*picture, planes_);
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
  int planes_;
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

namespace {

void warn_shorter(const JobConfig& config, const FrameSource& ended, unsigned ended_frames,
                  const FrameSource& other, unsigned scored) {
  if (config.on_warning)
    config.on_warning(fmt::format("{} ended after {} frames, before {}; scored the first {} frames",
                                  ended.path(), ended_frames, other.path(), scored));
}

// Seconds spent by the calling thread, per kind (JobTimes).
struct CallerTimes {
  double read = 0, wait_for_slots = 0, wait_for_reads = 0;
  // Runs `f` and adds its duration to `total`.
  template <typename F>
  static auto timed(double& total, F&& f) {
    const auto start = std::chrono::steady_clock::now();
    struct Add {
      double& total;
      std::chrono::steady_clock::time_point start;
      ~Add() {
        total += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
    } add{total, start};
    return f();
  }
  JobResult into(JobResult result) const {
    result.times.read = read;
    result.times.wait_for_slots = wait_for_slots;
    result.times.wait_for_reads = wait_for_reads;
    return result;
  }
};

// What one parallel read of a frame pair found.
struct PairRead {
  FrameSource::FrameAt ref = FrameSource::FrameAt::kEnd;
  FrameSource::FrameAt dist = FrameSource::FrameAt::kEnd;
};

// Reads frame pairs from frame `first` on (counted after the skipped
// frames) with several threads at once (both sources random access) and
// hands them to the job in frame order. Returns the frames submitted in all
// (`first` included); stops at the end of either source, at frame_cnt, or at
// the first irregular frame (then `*irregular` is true and the caller reads
// on in order from the returned frame).
unsigned read_parallel(FrameSource& reference, FrameSource& distorted, const JobConfig& config,
                       Job& job, unsigned first, unsigned readers, bool* irregular, bool* ended,
                       CallerTimes& times) {
  const int planes = job.planes_needed();
  // Frames acquired but not yet submitted hold job slots: keep at least one
  // slot for the workers, or acquire() would wait for ever.
  const unsigned window = std::max(1u, std::min(2 * readers, job.frames_in_flight() - 1));
  struct Pending {
    unsigned index;
    JobFrame frame;
    PairRead result;
    std::exception_ptr error;
    bool done = false;
  };
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<Pending*> queue;    // to read, in order
  std::deque<Pending*> pending;  // issued, in order
  // The window's records, reused (no allocation per frame).
  std::vector<Pending> records(window);
  std::vector<Pending*> unused;
  for (Pending& r : records) unused.push_back(&r);
  bool stopping = false;
  std::vector<std::thread> threads;
  for (unsigned r = 0; r < readers; ++r)
    threads.emplace_back([&] {
      std::unique_lock lock(mutex);
      for (;;) {
        cv.wait(lock, [&] { return stopping || !queue.empty(); });
        if (queue.empty()) return;
        Pending* p = queue.front();
        queue.pop_front();
        lock.unlock();
        try {
          p->result.ref =
              reference.read_at(config.frame_skip_ref + p->index, p->frame.reference(), planes);
          // The distorted frame also when the reference ended: a warning
          // says which file ended first, as when reading in order.
          if (p->result.ref != FrameSource::FrameAt::kIrregular)
            p->result.dist = distorted.read_at(config.frame_skip_dist + p->index,
                                               p->frame.distorted(), planes);
        } catch (...) {
          p->error = std::current_exception();
        }
        lock.lock();
        p->done = true;
        cv.notify_all();
      }
    });
  const auto stop = [&] {
    {
      std::lock_guard lock(mutex);
      stopping = true;
      queue.clear();
    }
    cv.notify_all();
    for (auto& t : threads) t.join();
  };

  unsigned issued = first, submitted = first;
  bool finished = false;
  try {
    while (!finished) {
      while (!finished && pending.size() < window &&
             !(config.frame_cnt && issued >= config.frame_cnt)) {
        Pending* p = unused.back();
        unused.pop_back();
        p->index = issued++;
        p->result = PairRead{};
        p->error = nullptr;
        p->done = false;
        p->frame = CallerTimes::timed(times.wait_for_slots, [&] { return job.acquire(); });
        {
          std::lock_guard lock(mutex);
          queue.push_back(p);
        }
        cv.notify_one();
        pending.push_back(p);
      }
      if (pending.empty()) break;
      Pending& front = *pending.front();
      CallerTimes::timed(times.wait_for_reads, [&] {
        std::unique_lock lock(mutex);
        cv.wait(lock, [&] { return front.done; });
      });
      if (front.error) std::rethrow_exception(front.error);
      const PairRead r = front.result;
      using F = FrameSource::FrameAt;
      if (r.ref == F::kIrregular || r.dist == F::kIrregular) {
        *irregular = true;
        finished = true;
      } else if (r.ref == F::kEnd || r.dist == F::kEnd) {
        if (r.ref != r.dist) {
          // One source ended; the other may have more frames.
          if (r.ref == F::kEnd)
            warn_shorter(config, reference, config.frame_skip_ref + front.index, distorted,
                         front.index);
          else
            warn_shorter(config, distorted, config.frame_skip_dist + front.index, reference,
                         front.index);
        }
        *ended = true;
        finished = true;
      } else {
        job.submit(std::move(front.frame));
        ++submitted;
        if (config.on_progress) config.on_progress(submitted);
        unused.push_back(pending.front());
        pending.pop_front();
      }
    }
  } catch (...) {
    stop();
    throw;
  }
  stop();  // the remaining reads are dropped; their slots go back to the job
  return submitted;
}

// Skips the leading frames the configuration drops, reading in order.
void skip_in_order(FrameSource& reference, FrameSource& distorted, const JobConfig& config) {
  if (config.frame_skip_ref && !reference.skip(config.frame_skip_ref))
    throw Error(fmt::format("{}: has fewer than {} frames to skip (--frame_skip_ref)",
                            reference.path(), config.frame_skip_ref));
  if (config.frame_skip_dist && !distorted.skip(config.frame_skip_dist))
    throw Error(fmt::format("{}: has fewer than {} frames to skip (--frame_skip_dist)",
                            distorted.path(), config.frame_skip_dist));
}

Error no_frames_error(const FrameSource& reference, const FrameSource& distorted) {
  return Error(fmt::format("no frames to score: {} or {} holds no frame after skipping",
                           reference.path(), distorted.path()));
}

// Inputs decoded on a GPU (NVDEC): when the job computes everything on that
// CUDA device, their frames go to it in device memory (the other input, if
// in host memory, is uploaded as usual) and the job is run here; otherwise
// nullopt, and run_job reads them into host memory (copied from the device).
std::optional<JobResult> run_device_frames(FrameSource& reference, FrameSource& distorted,
                                           const JobConfig& config, Job& job) {
  auto* ref_dev = dynamic_cast<DeviceFrameSource*>(&reference);
  auto* dist_dev = dynamic_cast<DeviceFrameSource*>(&distorted);
  const int ref_device = ref_dev ? ref_dev->frame_device() : -1;
  const int dist_device = dist_dev ? dist_dev->frame_device() : -1;
  if (ref_device < 0 && dist_device < 0) return std::nullopt;
  const auto note = [&](const std::string& text) {
    if (config.on_note) config.on_note(text);
  };
  std::string why = "the job computes on the CPU";
  int device = -1;
  if (config.backend != JobConfig::Backend::kCpu) {
    // The job starts before the first frame is read (the decoders have
    // decoded theirs already): what it computes where decides.
    job.start(reference.format());
    device = detail::JobAccess::device_input(job, &why);
  }
  for (const int d : {ref_device, dist_device})
    if (device >= 0 && d >= 0 && d != device) {
      why = fmt::format("decoded on CUDA device {}, scored on CUDA device {}", d, device);
      device = -1;
    }
  if (device < 0) {
    note(fmt::format("frames decoded with NVDEC are copied to host memory: {}", why));
    return std::nullopt;
  }
  note(fmt::format("frames decoded with NVDEC stay in the memory of CUDA device {}", device));
  const int planes = job.planes_needed();
  if (ref_device >= 0) ref_dev->set_device_planes(planes);
  if (dist_device >= 0) dist_dev->set_device_planes(planes);
  skip_in_order(reference, distorted, config);

  CallerTimes times;
  Picture ref_host, dist_host;
  DevicePicture ref_picture, dist_picture;
  for (unsigned index = 0;; ++index) {
    if (config.frame_cnt && index >= config.frame_cnt) break;
    bool got_ref = false, got_dist = false;
    CallerTimes::timed(times.read, [&] {
      got_ref = ref_device >= 0 ? ref_dev->read_device(ref_picture)
                                : reference.read_planes(ref_host, planes);
      got_dist = dist_device >= 0 ? dist_dev->read_device(dist_picture)
                                  : distorted.read_planes(dist_host, planes);
    });
    if (!got_ref || !got_dist) {
      if (got_ref != got_dist) {
        const FrameSource& ended = got_ref ? distorted : reference;
        warn_shorter(config, ended, ended.frames_read(), got_ref ? reference : distorted, index);
      }
      break;
    }
    const GpuInput ref_in = ref_device >= 0 ? GpuInput{nullptr, &ref_picture}
                                            : GpuInput{&ref_host, nullptr};
    const GpuInput dist_in = dist_device >= 0 ? GpuInput{nullptr, &dist_picture}
                                              : GpuInput{&dist_host, nullptr};
    detail::JobAccess::submit_inputs(job, ref_in, dist_in);
    // The job holds the device pictures until it has copied them.
    ref_picture = DevicePicture{};
    dist_picture = DevicePicture{};
    if (config.on_progress) config.on_progress(index + 1);
  }
  if (job.frames_submitted() == 0) throw no_frames_error(reference, distorted);
  return times.into(job.finish());
}

}  // namespace

JobResult run_job(FrameSource& reference, FrameSource& distorted, const JobConfig& config) {
  check_pairable(reference, distorted);
  Job job(config);
  if (std::optional<JobResult> result = run_device_frames(reference, distorted, config, job))
    return std::move(*result);

  CallerTimes times;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  // Default readers: a GPU job leaves the cores to reading; a CPU job keeps
  // them for the workers (at most 4 readers, one per 4 cores).
  const bool gpu = config.backend != JobConfig::Backend::kCpu;
  const unsigned readers = config.readers ? config.readers
                           : gpu          ? std::min(8u, std::max(1u, cores / 2))
                                          : std::min(4u, std::max(1u, cores / 4));
  bool parallel = readers > 1 && reference.random_access() && distorted.random_access();
  if (parallel) {
    // Skipped frames are not read; a skip past the end says so as below.
    Picture probe;
    const auto check_skip = [&](FrameSource& s, unsigned skip, const char* option) {
      if (skip && s.read_at(skip - 1, probe, 1) == FrameSource::FrameAt::kEnd)
        throw Error(fmt::format("{}: has fewer than {} frames to skip ({})", s.path(), skip,
                                option));
    };
    check_skip(reference, config.frame_skip_ref, "--frame_skip_ref");
    check_skip(distorted, config.frame_skip_dist, "--frame_skip_dist");
  } else {
    skip_in_order(reference, distorted, config);
  }
  const auto no_frames = [&] { return no_frames_error(reference, distorted); };

  // The first frame pair is read before the job builds its extractors (and
  // their frame-sized buffers) and its frame slots: an input that fails at
  // its first frame, such as a stream whose header claims a huge frame and
  // then ends, costs only what was read. Refusals (a frame too small for an
  // extractor) come next, before any frame is scored. Every plane is read:
  // which ones the job needs is known only once it has started.
  {
    Picture first_ref, first_dist;
    bool got_ref = false, got_dist = false;
    if (parallel) {
      using F = FrameSource::FrameAt;
      const F r = reference.read_at(config.frame_skip_ref, first_ref, 3);
      const F d = r == F::kIrregular
                      ? F::kIrregular
                      : distorted.read_at(config.frame_skip_dist, first_dist, 3);
      if (r == F::kIrregular || d == F::kIrregular) {
        // Not at computable offsets from the first frame on: in order.
        parallel = false;
        reference.seek(config.frame_skip_ref);
        distorted.seek(config.frame_skip_dist);
      } else {
        got_ref = r == F::kRead;
        got_dist = d == F::kRead;
      }
    }
    if (!parallel)
      CallerTimes::timed(times.read, [&] {
        got_ref = reference.read(first_ref);
        got_dist = distorted.read(first_dist);
      });
    if (!got_ref || !got_dist) {
      if (got_ref != got_dist) {
        const bool ref_ended = !got_ref;
        warn_shorter(config, ref_ended ? reference : distorted,
                     ref_ended ? config.frame_skip_ref : config.frame_skip_dist,
                     ref_ended ? distorted : reference, 0);
      }
      throw no_frames();
    }
    job.start(reference.format());
    // Copied into a slot of the job's own (the GPU may upload straight from
    // its slots' page-locked memory).
    CallerTimes::timed(times.wait_for_slots,
                       [&] { job.submit(view_of(first_ref), view_of(first_dist)); });
    if (config.on_progress) config.on_progress(1);
  }
  const int planes = job.planes_needed();

  unsigned index = 1;
  if (parallel) {
    bool irregular = false, ended = false;
    index = read_parallel(reference, distorted, config, job, 1, readers, &irregular, &ended,
                          times);
    if (!irregular) return times.into(job.finish());
    // A FRAME line of another length: on in order from that frame.
    reference.seek(config.frame_skip_ref + index);
    distorted.seek(config.frame_skip_dist + index);
  }

  std::optional<SideReader> side;
  if (config.threads > 0) side.emplace(distorted, planes);
  for (;; ++index) {
    if (config.frame_cnt && index >= config.frame_cnt) break;
    JobFrame frame = CallerTimes::timed(times.wait_for_slots, [&] { return job.acquire(); });
    bool got_ref = false, got_dist = false;
    if (side) {
      side->start(&frame.distorted());
      try {
        got_ref = CallerTimes::timed(
            times.read, [&] { return reference.read_planes(frame.reference(), planes); });
      } catch (...) {
        try {
          side->wait();
        } catch (...) {
        }
        throw;
      }
      got_dist = CallerTimes::timed(times.wait_for_reads, [&] { return side->wait(); });
    } else {
      CallerTimes::timed(times.read, [&] {
        got_ref = reference.read_planes(frame.reference(), planes);
        got_dist = distorted.read_planes(frame.distorted(), planes);
      });
    }
    if (!got_ref || !got_dist) {
      if (got_ref != got_dist) {
        const FrameSource& ended = got_ref ? distorted : reference;
        warn_shorter(config, ended, ended.frames_read(), got_ref ? reference : distorted, index);
      }
      break;
    }
    job.submit(std::move(frame));
    if (config.on_progress) config.on_progress(index + 1);
  }
  if (job.frames_submitted() == 0) throw no_frames();
  return times.into(job.finish());
}

}  // namespace vqe
