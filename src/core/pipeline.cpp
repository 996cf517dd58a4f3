// SPDX-License-Identifier: BSD-2-Clause
// Frame scheduling: reads frame pairs, runs temporal extractors in order on
// the reading thread and the others on a worker pool, with a bounded number
// of frames in flight.

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "backend/cuda/backend.h"
#include "backend/cuda/device.h"
#include "core/work_scheduler.h"
#include "io/video_reader.h"
#include "vqe/error.h"
#include "core/extractor.h"
#include "vqe/vqe.h"

namespace vqe {
namespace {

struct FramePair {
  Picture reference;
  Picture distorted;
  unsigned index = 0;
};

// Fixed set of frame pairs; the reader waits for a free one, which bounds
// memory by the pool size whatever the video length.
class FramePool {
 public:
  explicit FramePool(std::size_t size) : slots_(size) {
    for (auto& s : slots_) free_.push_back(&s);
  }
  FramePair* acquire() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    FramePair* p = free_.front();
    free_.pop_front();
    return p;
  }
  void release(FramePair* p) {
    {
      std::lock_guard lock(mutex_);
      free_.push_back(p);
    }
    cv_.notify_one();
  }
  // Waits until every slot is back (all work done).
  void drain() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return free_.size() == slots_.size(); });
  }

 private:
  std::deque<FramePair> slots_;
  std::deque<FramePair*> free_;
  std::mutex mutex_;
  std::condition_variable cv_;
};

class WorkerPool {
 public:
  WorkerPool(unsigned n, const std::vector<FeatureExtractor*>& prototypes,
             const VideoFormat& format, FeatureCollector& out, FramePool& frames,
             unsigned subsample, WorkScheduler& scheduler)
      : out_(out), frames_(frames), subsample_(subsample), scheduler_(scheduler) {
    for (unsigned t = 0; t < n; ++t) {
      std::vector<std::unique_ptr<FeatureExtractor>> own;
      for (FeatureExtractor* p : prototypes) {
        own.push_back(p->clone());
        own.back()->init(format);
        own.back()->set_tile_runner(&scheduler_);
      }
      threads_.emplace_back([this, own = std::move(own)]() mutable { loop(own); });
    }
  }
  ~WorkerPool() { stop(); }

  void submit(FramePair* pair) { scheduler_.push(pair); }
  void stop() {
    scheduler_.stop();
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  void rethrow_if_failed() {
    std::lock_guard lock(mutex_);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void loop(std::vector<std::unique_ptr<FeatureExtractor>>& extractors) {
    while (void* item = scheduler_.next_item()) {
      auto* pair = static_cast<FramePair*>(item);
      try {
        bool failed;
        {
          std::lock_guard lock(mutex_);
          failed = static_cast<bool>(error_);
        }
        const bool sampled = subsample_ <= 1 || pair->index % subsample_ == 0;
        if (!failed)
          for (auto& e : extractors)
            if (sampled || e->every_frame())
              e->extract(pair->reference, pair->distorted, pair->index, out_);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
      }
      frames_.release(pair);
    }
  }

  FeatureCollector& out_;
  FramePool& frames_;
  unsigned subsample_;
  WorkScheduler& scheduler_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;  // guards error_
  std::exception_ptr error_;
};

// Reads one file's frames on a thread of its own, one frame per request, so
// that the reference and the distorted file are read at the same time.
class SideReader {
 public:
  explicit SideReader(VideoReader& reader) : reader_(reader), thread_([this] { loop(); }) {}
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
  // Waits for the frame started last: VideoReader::read()'s result, or its
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
        got = reader_.read(*picture);
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

  VideoReader& reader_;
  std::mutex mutex_;
  std::condition_variable cv_;
  Picture* target_ = nullptr;
  bool finished_ = false;
  bool got_ = false;
  bool stopping_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts after the members it uses
};

std::string request_key(const FeatureRequest& r) {
  std::string key = r.extractor;
  for (const auto& [k, v] : r.options) key += fmt::format(":{}={}", k, v);
  return key;
}

// Per-frame model scores from the collected features, on the subsample grid.
void predict_models(const JobConfig& config,
                    const std::vector<std::vector<std::string>>& model_inputs,
                    unsigned subsample, JobResult& result) {
  // libvmaf's column order: every model's main score first, in -m order, then
  // each bootstrap collection's per-model scores and statistics.
  for (const Model& model : config.models) result.features.declare(model.name());
  for (std::size_t m = 0; m < config.models.size(); ++m) {
    const Model& model = config.models[m];
    const std::vector<std::string>& inputs = model_inputs[m];
    const std::vector<std::string> outputs = model.output_names();
    for (const std::string& name : outputs) result.features.declare(name);
    std::vector<double> values(inputs.size());
    std::vector<double> scores(outputs.size());
    for (unsigned i = 0; i < result.frames; i += subsample) {
      for (std::size_t k = 0; k < inputs.size(); ++k) {
        const auto v = result.features.get(inputs[k], i);
        if (!v)
          throw Error(fmt::format("model '{}': feature '{}' has no value at frame {}",
                                  model.origin(), inputs[k], i));
        values[k] = *v;
      }
      model.predict(values, scores);
      for (std::size_t k = 0; k < outputs.size(); ++k) result.features.set(outputs[k], i, scores[k]);
    }
  }
}

// The job's GPU part for config.backend, or null when everything runs on
// the CPU.
std::unique_ptr<cuda::GpuJob> make_gpu_job_for(const JobConfig& config, unsigned subsample) {
  if (config.backend == JobConfig::Backend::kCpu) return nullptr;
  const int devices = cuda::device_count();
  if (config.backend == JobConfig::Backend::kCuda) {
    if (!cuda::compiled_in()) throw Error("--backend cuda: this build has no CUDA backend");
    if (devices == 0) throw Error("--backend cuda: no CUDA device found");
    if (config.gpu < 0 || config.gpu >= devices)
      throw Error(fmt::format("--gpu {}: no such CUDA device ({} found)", config.gpu, devices));
  } else if (devices == 0 || config.gpu < 0 || config.gpu >= devices) {
    if (config.on_note)
      config.on_note(!cuda::compiled_in()
                         ? "backend auto: this build has no CUDA backend, using the CPU"
                     : devices == 0
                         ? "backend auto: no CUDA device found, using the CPU"
                         : fmt::format("backend auto: no CUDA device {} ({} found), using the CPU",
                                       config.gpu, devices));
    return nullptr;
  }
  if (config.on_note)
    config.on_note(fmt::format("backend cuda: device {}: {}", config.gpu,
                               cuda::describe_device(config.gpu)));
  return cuda::make_gpu_job(config.gpu, subsample);
}

}  // namespace

void check_pairable(const VideoReader& reference, const VideoReader& distorted) {
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

JobResult run_job(VideoReader& reference, VideoReader& distorted, const JobConfig& config) {
  check_pairable(reference, distorted);
  JobResult result;
  result.format = reference.format();
  const VideoFormat& format = result.format;

  // Model inputs first (libvmaf registers model features before --feature),
  // each with the emitted name under which predict() will read it.
  std::vector<FeatureRequest> requests;
  std::vector<std::vector<std::string>> model_inputs;
  for (const Model& model : config.models) {
    std::vector<std::string> names;
    for (const ModelFeature& f : model.features()) {
      const ExtractorInfo* info = find_extractor_by_feature(f.internal_name);
      if (!info)
        throw Error(fmt::format("model '{}' needs feature '{}', which no VQE extractor provides",
                                model.origin(), f.internal_name));
      requests.push_back({info->name, f.options});
      names.push_back(ParsedOptions(info->name, info->options, f.options)
                          .feature_name(f.internal_name));
    }
    model_inputs.push_back(std::move(names));
  }
  requests.insert(requests.end(), config.features.begin(), config.features.end());

  const unsigned subsample = std::max(1u, config.subsample);
  std::unique_ptr<cuda::GpuJob> gpu = make_gpu_job_for(config, subsample);

  // Build each distinct extractor once, in request order: on the GPU when
  // the job has one and the extractor has a CUDA twin, else on the CPU.
  std::vector<std::unique_ptr<FeatureExtractor>> extractors;
  struct Built {
    FeatureExtractor* cpu = nullptr;  // null: GPU extractor `handle`
    std::size_t handle = 0;
  };
  std::vector<Built> built;
  std::vector<std::string> seen;
  for (const FeatureRequest& r : requests) {
    const std::string key = request_key(r);
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
    seen.push_back(key);
    if (gpu && cuda::has_cuda_extractor(r.extractor)) {
      built.push_back({nullptr, gpu->add(r.extractor, r.options)});
      result.gpu_extractors.push_back(r.extractor);
      if (config.on_note) config.on_note(fmt::format("{}: runs on the GPU", r.extractor));
    } else {
      // Validates the options even when the extractor is unknown to CUDA.
      extractors.push_back(make_extractor(r.extractor, r.options, config.cpu_level));
      built.push_back({extractors.back().get(), 0});
      if (gpu && config.on_note)
        config.on_note(fmt::format("{}: no CUDA implementation, runs on the CPU", r.extractor));
    }
  }
  // Initialise every extractor before the first frame so that a refusal
  // (frame too small, bit depth unsupported) comes before any work.
  std::vector<FeatureExtractor*> temporal, parallel;
  for (auto& e : extractors) {
    e->init(format);
    (e->temporal() ? temporal : parallel).push_back(e.get());
  }
  if (gpu) gpu->init(format);
  for (const Built& b : built)
    for (const std::string& name : b.cpu ? b.cpu->feature_names() : gpu->feature_names(b.handle))
      result.features.declare(name);

  if (config.frame_skip_ref && !reference.skip(config.frame_skip_ref))
    throw Error(fmt::format("{}: has fewer than {} frames to skip (--frame_skip_ref)",
                            reference.path(), config.frame_skip_ref));
  if (config.frame_skip_dist && !distorted.skip(config.frame_skip_dist))
    throw Error(fmt::format("{}: has fewer than {} frames to skip (--frame_skip_dist)",
                            distorted.path(), config.frame_skip_dist));

  const unsigned threads = config.threads;
  FramePool frames(threads > 0 ? 2 * threads + 2 : 1);
  // Workers and the reading thread (temporal extractors) share one
  // scheduler for frames and row tiles.
  WorkScheduler scheduler(threads + 1);
  if (threads > 0)
    for (FeatureExtractor* e : temporal) e->set_tile_runner(&scheduler);
  std::unique_ptr<WorkerPool> workers;
  if (threads > 0)
    workers = std::make_unique<WorkerPool>(threads, parallel, format, result.features, frames,
                                           subsample, scheduler);

  // With worker threads, the distorted file is read on its own thread while
  // this one reads the reference.
  std::optional<SideReader> side;
  if (threads > 0) side.emplace(distorted);

  unsigned index = 0;
  try {
    for (;; ++index) {
      if (config.frame_cnt && index >= config.frame_cnt) break;
      FramePair* pair = frames.acquire();
      pair->index = index;
      bool got_ref = false, got_dist = false;
      if (side) {
        side->start(&pair->distorted);
        try {
          got_ref = reference.read(pair->reference);
        } catch (...) {
          try {
            side->wait();
          } catch (...) {
          }
          throw;
        }
        got_dist = side->wait();
      } else {
        got_ref = reference.read(pair->reference);
        got_dist = distorted.read(pair->distorted);
      }
      if (!got_ref || !got_dist) {
        frames.release(pair);
        if (got_ref != got_dist && config.on_warning) {
          const VideoReader& ended = got_ref ? distorted : reference;
          const VideoReader& other = got_ref ? reference : distorted;
          config.on_warning(fmt::format(
              "{} ended after {} frames, before {}; scored the first {} frames", ended.path(),
              ended.frames_read(), other.path(), index));
        }
        break;
      }
      if (gpu) gpu->submit(pair->reference, pair->distorted, index, result.features);
      for (FeatureExtractor* e : temporal)
        e->extract(pair->reference, pair->distorted, index, result.features);
      if (workers) {
        workers->submit(pair);
        workers->rethrow_if_failed();
      } else {
        for (FeatureExtractor* e : parallel)
          if (index % subsample == 0 || e->every_frame())
            e->extract(pair->reference, pair->distorted, index, result.features);
        frames.release(pair);
      }
      if (config.on_progress) config.on_progress(index + 1);
    }
    if (workers) {
      frames.drain();
      workers->stop();
      workers->rethrow_if_failed();
    }
  } catch (...) {
    if (workers) workers->stop();
    throw;
  }
  if (index == 0)
    throw Error(fmt::format("no frames to score: {} or {} holds no frame after skipping",
                            reference.path(), distorted.path()));
  result.frames = index;
  if (gpu) gpu->finish(result.features);
  for (auto& e : extractors) e->flush(result.features);
  if (!config.no_prediction) predict_models(config, model_inputs, subsample, result);
  return result;
}

}  // namespace vqe
