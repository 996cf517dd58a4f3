// SPDX-License-Identifier: BSD-2-Clause
// The push-style job (vqe/job.h): frame slots with backpressure, the
// extractors of the job's backends, worker threads sharing one scheduler for
// frames and row tiles, temporal extractors in frame order on any worker
// (a strand), finality tracking and model prediction as frames become final.
//
// A submitted frame pair lives in one slot until every CPU part of it is
// done: the non-temporal extractors (one task, any worker) and the temporal
// ones (the strand, in frame order). The GPU part, when the job has one,
// takes the pictures during submit() (staging copy) and writes its results
// later, in frame order, from the producer's thread.

#include "vqe/job.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "backend/cuda/backend.h"
#include "backend/cuda/device.h"
#include "backend/vulkan/backend.h"
#include "backend/vulkan/device.h"
#include "core/extractor.h"
#include "core/options.h"
#include "core/picture_copy.h"
#include "core/work_scheduler.h"
#include "job/job_access.h"
#include "job/reference_share.h"
#include "vqe/error.h"

namespace vqe {
namespace detail {

struct FrameSlot {
  Picture reference;
  Picture distorted;
  /// The frame's reference when shared (JobFrame::share_reference), else
  /// null; held until the slot is free again.
  std::shared_ptr<const Picture> shared_reference;
  /// The reference the extractors read.
  const Picture& ref() const { return shared_reference ? *shared_reference : reference; }
  unsigned index = 0;
  /// CPU parts still to run for this frame (the parallel task, the
  /// temporal strand); the last to finish marks the frame computed.
  std::atomic<int> parts_left{0};
  /// Holders of the slot: its own computation, the job's list of recent
  /// frames (pairwise extractors read them) and each later frame whose
  /// pairwise part reads this one. The last to let go frees the slot.
  std::atomic<int> refs{0};
  /// earlier[d]: the slot of frame index - d that this frame's pairwise
  /// extractors read (held by this frame), or null.
  std::array<FrameSlot*, FeatureExtractor::kMaxPairDistance + 1> earlier{};
  /// Per pairwise extractor, its extract_pair() values for this frame.
  std::vector<FeatureExtractor::PairValues> pair_values;
  /// The frame the GPU last uploaded from this slot's (page-locked)
  /// pictures, -1 for none: reusing the slot waits for that upload.
  long long gpu_index = -1;
};

namespace {

// Bytes of frame pairs that a CPU job keeps waiting for its workers, at
// most (beyond two pairs per worker; see JobState::start).
constexpr std::size_t kInFlightBudget = std::size_t{1} << 30;

// Bytes of the first `planes` planes of a picture of `format`, unpadded.
std::size_t plane_bytes(const VideoFormat& format, int planes) {
  std::size_t n = 0;
  for (int p = 0; p < planes; ++p)
    n += static_cast<std::size_t>(format.plane_width(p)) * format.plane_height(p);
  return std::max<std::size_t>(1, n * format.bytes_per_sample());
}

std::string request_key(const std::string& extractor, const OptionValues& options) {
  std::string key = extractor;
  for (const auto& [k, v] : options) key += fmt::format(":{}={}", k, v);
  return key;
}

// "name=opt=val:opt=val", as the request was written (libvmaf's syntax).
std::string describe_request(const std::string& extractor, const OptionValues& options) {
  std::string text = extractor;
  char sep = '=';
  for (const auto& [k, v] : options) {
    text += fmt::format("{}{}={}", sep, k, v);
    sep = ':';
  }
  return text;
}

}  // namespace

class JobState {
 public:
  explicit JobState(JobConfig config);
  ~JobState();

  void start(const VideoFormat& format);
  bool started() const { return started_; }
  const VideoFormat& format() const { return format_; }
  /// Whether a GPU runs some of the job's extractors.
  bool uses_gpu() const { return gpu_ != nullptr; }

  /// A free slot (waits while none is; nullptr when `wait` is false and
  /// none is free).
  FrameSlot* take_slot(bool wait);
  void give_back(FrameSlot* slot);  // unsubmitted
  /// Drops one hold on a submitted slot (FrameSlot::refs); frees it at 0.
  void release(FrameSlot* slot);
  void submit_slot(FrameSlot* slot);
  /// JobAccess::device_input, submit_inputs.
  int device_input(std::string* why) const;
  void submit_inputs(const GpuInput& reference, const GpuInput& distorted);

  unsigned frames_submitted() const { return submitted_.load(); }
  unsigned frames_final() const { return final_.load(std::memory_order_acquire); }
  std::optional<double> score(const std::string& name, unsigned index) const;
  std::vector<std::string> feature_names() const;
  int planes_needed() const { return planes_needed_; }
  unsigned frames_in_flight() const {
    return static_cast<unsigned>(slot_limit_) - max_pair_distance_;
  }
  void flush();
  JobResult finish();
  void check_open(const char* call) const;

 private:
  struct Request {
    const ExtractorInfo* info;
    OptionValues options;
  };

  void build_requests();
  /// Emitted feature names in libvmaf's column order for a video of
  /// `frames` frames (~0u: long enough for every name's first write).
  std::vector<std::string> column_order(unsigned frames) const;
  /// Declares an output column; throws when the name is not portable or
  /// another output already has it.
  void declare_output(const std::string& name, bool model);
  /// One thread's own extractor instances (a worker's, or the submitting
  /// thread's while it helps), built on the first frame it takes.
  struct ThreadExtractors {
    // The whole-plane buffers that this thread's extractors share (one
    // extract() at a time): the largest set, not the sum.
    ScratchArena arena;
    std::vector<std::unique_ptr<FeatureExtractor>> own;
    std::vector<FeatureExtractor*> parallel, pairwise;
  };
  void worker_loop();
  /// Runs a scheduler item (a frame's parallel task or the temporal chain)
  /// with `mine`'s instances.
  void run_item(void* item, ThreadExtractors& mine);
  /// run_item(), with any failure made the job's error (nothing may leave a
  /// worker thread: std::terminate); waiting threads are woken to see it.
  void run_item_guarded(void* item, ThreadExtractors& mine);
  /// The frame's parallel task: the non-temporal extractors and the
  /// pairwise parts, on the given instances (a worker's own clones).
  void run_parallel(std::vector<FeatureExtractor*>& extractors,
                    std::vector<FeatureExtractor*>& pairwise, FrameSlot& slot);
  void parallel_task(std::vector<FeatureExtractor*>& extractors,
                     std::vector<FeatureExtractor*>& pairwise, FrameSlot* slot);
  void run_temporal(FrameSlot& slot);
  /// Schedules (or, without workers, runs) the temporal chain when the next
  /// frame in order is ready.
  void post_temporal(FrameSlot* slot);
  void temporal_chain();
  void part_done(FrameSlot* slot);
  void record_error();
  bool failed() const;
  void rethrow_if_failed();
  /// Advances frames_final() and predicts the models of newly final frames.
  void advance(bool at_end);
  void predict(unsigned index);

  JobConfig config_;
  unsigned subsample_ = 1;
  std::vector<Request> requests_;                        // distinct, in request order
  std::vector<std::vector<std::string>> model_inputs_;   // per model, emitted names

  bool helping_ = false;  // config_.help_while_waiting, unless threads >= cores
  bool started_ = false;
  bool finished_ = false;
  VideoFormat format_{};
  FeatureCollector out_;
  std::vector<std::string> gpu_extractors_;
  std::unique_ptr<GpuJob> gpu_;
  // The working buffers of the instances below when they compute on the
  // submitting thread (threads == 0); declared first, destroyed after them.
  ScratchArena main_arena_;
  std::vector<std::unique_ptr<FeatureExtractor>> extractors_;  // CPU, request order
  std::vector<std::string> cpu_extractor_names_;  // theirs, when the job has a GPU part
  // temporal_: serial temporal extractors (strand only); pairwise_: split
  // temporal extractors (their emit_ordered on the strand, extract_pair in
  // the parallel task); parallel_: the rest.
  std::vector<FeatureExtractor*> temporal_, parallel_, pairwise_;
  std::vector<unsigned> pair_distances_;  // distinct distances of pairwise_
  // Per pairwise_ extractor: its request key when its values come from the
  // config's ReferenceShare (reference-only), else empty.
  std::vector<std::string> shared_keys_;
  bool left_share_ = false;
  unsigned share_id_ = 0;  // this job's id in config_.reference_share
  void leave_share();
  /// This job's side of config_.reference_share as the non-temporal
  /// extractors' ReferenceCache (null without a share).
  class ShareCache final : public ReferenceCache {
   public:
    explicit ShareCache(JobState& job) : job_(job) {}
    Object take(const std::string& key, unsigned index,
                const std::function<Object()>& compute) override {
      return job_.take_shared_object(key, index, compute);
    }
    std::shared_ptr<void> state(const std::string& key,
                                const std::function<std::shared_ptr<void>()>& make) override {
      return job_.config_.reference_share->impl_->state(key, make);
    }

   private:
    JobState& job_;
  };
  ReferenceCache::Object take_shared_object(const std::string& key, unsigned index,
                                            const std::function<ReferenceCache::Object()>& compute);
  std::unique_ptr<ShareCache> share_cache_;
  std::vector<std::string> parallel_keys_;  // request keys of parallel_
  unsigned max_pair_distance_ = 0;
  /// The last max_pair_distance_ submitted slots, oldest first, each held
  /// (refs) until the frame max_pair_distance_ later is submitted.
  std::deque<FrameSlot*> recent_;
  unsigned lag_ = 0;
  /// Every emitted feature name with when libvmaf first writes it
  /// (ExtractorInfo::first_written), its request and its place there.
  struct Column {
    std::string name;
    unsigned first_written;
    std::size_t request;
    std::size_t position;
  };
  std::vector<Column> columns_;
  std::set<std::string> declared_;
  int planes_needed_ = 3;

  // Slots and backpressure.
  std::deque<FrameSlot> slots_;  // made on demand, at most slot_limit_
  std::size_t slot_limit_ = 1;
  std::deque<FrameSlot*> free_;
  std::mutex slots_mutex_;
  std::condition_variable slots_cv_;
  std::atomic<unsigned> submitted_{0};

  // Workers.
  std::unique_ptr<WorkScheduler> scheduler_;
  std::vector<std::thread> threads_;
  int temporal_token_ = 0;  // its address marks a temporal-chain task

  // The temporal strand: frames whose temporal part waits, by index.
  std::mutex strand_mutex_;
  std::map<unsigned, FrameSlot*> strand_ready_;
  unsigned strand_next_ = 0;
  bool strand_running_ = false;

  // Completion and finality.
  mutable std::mutex progress_mutex_;
  std::condition_variable progress_cv_;  // cpu_done_ advanced
  std::set<unsigned> done_out_of_order_;
  unsigned cpu_done_ = 0;                  // frames whose CPU parts are all done
  std::atomic<unsigned> gpu_collected_{0};
  std::atomic<unsigned> final_{0};
  unsigned claimed_ = 0;  // frames whose prediction a thread has taken on
  std::map<unsigned, unsigned> predicted_ranges_;  // [from, to) done, beyond final_

  mutable std::mutex error_mutex_;
  std::exception_ptr error_;

  // JobTimes, in nanoseconds.
  std::atomic<std::int64_t> ordered_ns_{0}, prediction_ns_{0}, submit_ns_{0}, start_ns_{0},
      help_ns_{0};
  ThreadExtractors caller_extractors_;  // the submitting thread's, while it helps
};

namespace {

std::int64_t nanoseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() -
                                                              start)
      .count();
}

}  // namespace

JobState::JobState(JobConfig config) : config_(std::move(config)) {
  subsample_ = std::max(1u, config_.subsample);
  if (!simd::is_available(config_.cpu_level))
    throw Error(fmt::format("CPU level {} is not supported here (highest: {})",
                            simd::level_name(config_.cpu_level),
                            simd::level_name(simd::max_level())));
  if (config_.models.empty() && config_.features.empty())
    throw Error("nothing to compute: the job has no model and no feature");
  build_requests();
  if (config_.reference_share) {
    share_id_ = config_.reference_share->impl_->join();
    share_cache_ = std::make_unique<ShareCache>(*this);
  }
}

JobState::~JobState() {
  if (scheduler_) scheduler_->stop();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  leave_share();
}

ReferenceCache::Object JobState::take_shared_object(
    const std::string& key, unsigned index,
    const std::function<ReferenceCache::Object()>& compute) {
  return config_.reference_share->impl_->take_object(key, index, share_id_, compute);
}

void JobState::leave_share() {
  if (config_.reference_share && !left_share_) config_.reference_share->impl_->leave(share_id_);
  left_share_ = true;
}

void JobState::build_requests() {
  // Model inputs first (libvmaf registers model features before --feature),
  // each with the emitted name under which the model reads it.
  std::vector<std::pair<const ExtractorInfo*, OptionValues>> all;
  for (const Model& model : config_.models) {
    std::vector<std::string> names;
    for (const ModelFeature& f : model.features()) {
      const ExtractorInfo* info = find_extractor_by_feature(f.internal_name);
      if (!info)
        throw Error(fmt::format("model '{}' needs feature '{}', which no VQE extractor provides",
                                model.origin(), f.internal_name));
      all.emplace_back(info, f.options);
      names.push_back(ParsedOptions(info->name, info->options, f.options)
                          .feature_name(f.internal_name));
    }
    model_inputs_.push_back(std::move(names));
  }
  for (const FeatureRequest& r : config_.features) {
    const ExtractorInfo* info = find_extractor(r.extractor);
    if (!info) {
      std::string known;
      for (const ExtractorInfo* e : all_extractors()) known += (known.empty() ? "" : ", ") + e->name;
      throw Error(fmt::format("unknown feature '{}' (known: {})", r.extractor, known));
    }
    ParsedOptions(info->name, info->options, r.options);  // validates the options now
    all.emplace_back(info, r.options);
  }
  // One extractor per name and emitted-name suffix, the first requested, as
  // libvmaf (feature_extractor_vector_append compares the extractor's name
  // with the suffix of its feature-parameter options): a later request that
  // would write the same names is dropped, said when its options differ.
  std::vector<std::string> seen;
  for (auto& [info, options] : all) {
    const std::string key =
        info->name + ParsedOptions(info->name, info->options, options).name_suffix();
    const auto it = std::find(seen.begin(), seen.end(), key);
    if (it != seen.end()) {
      const Request& kept = requests_[static_cast<std::size_t>(it - seen.begin())];
      if (kept.options != options && config_.on_warning)
        config_.on_warning(fmt::format(
            "feature {} is not computed: {}, requested first, writes the same names (libvmaf, "
            "too, keeps the first)",
            describe_request(info->name, options), describe_request(kept.info->name, kept.options)));
      continue;
    }
    seen.push_back(key);
    requests_.push_back({info, options});
  }
  // Model outputs must not collide with each other or with a feature.
  for (std::size_t m = 0; m < config_.models.size(); ++m)
    for (std::size_t k = 0; k < m; ++k)
      if (config_.models[k].name() == config_.models[m].name())
        throw Error(fmt::format(
            "two models are named '{}': give each a unique name (-m ...:name=NAME)",
            config_.models[m].name()));
}

std::vector<std::string> JobState::column_order(unsigned frames) const {
  // A value first written at a frame the video does not reach is written at
  // the end instead.
  const auto when = [frames](const Column& c) {
    return c.first_written < frames ? c.first_written : kWrittenAtFlush;
  };
  std::vector<const Column*> sorted;
  for (const Column& c : columns_) sorted.push_back(&c);
  std::stable_sort(sorted.begin(), sorted.end(), [&](const Column* a, const Column* b) {
    if (when(*a) != when(*b)) return when(*a) < when(*b);
    if (a->request != b->request) return a->request < b->request;
    return a->position < b->position;
  });
  std::vector<std::string> names;
  for (const Column* c : sorted) names.push_back(c->name);
  return names;
}

void JobState::declare_output(const std::string& name, bool model) {
  check_portable_name(name, model ? "model name" : "feature name",
                      model ? "choose another with -m ...:name=NAME"
                            : "it comes from an option value: spell the value without that "
                              "character (e.g. 1000000, not 1e+06)");
  if (!declared_.insert(name).second) {
    // Two extractors may emit one name (their requests keep apart only in
    // options that do not change the name); a model output must be unique.
    if (!model) return;
    throw Error(fmt::format("model output '{}' is also the name of a feature or of another "
                            "model's output: give the model another name (-m ...:name=NAME)",
                            name));
  }
  out_.declare(name);
}

// The job's GPU part for the configured backend, or null when everything
// runs on the CPU. kAuto tries CUDA, then Vulkan, then the CPU, and says which.
std::unique_ptr<GpuJob> make_gpu_job_for(const JobConfig& config, unsigned subsample) {
  using B = JobConfig::Backend;
  if (config.backend == B::kCpu) return nullptr;
  const auto note = [&](const std::string& text) {
    if (config.on_note) config.on_note(text);
  };
  if (config.backend == B::kCuda) {
    const int devices = cuda::device_count();
    if (!cuda::compiled_in()) throw Error("--backend cuda: this build has no CUDA backend");
    if (devices == 0) throw Error("--backend cuda: no CUDA device found");
    if (config.gpu < 0 || config.gpu >= devices)
      throw Error(fmt::format("--gpu {}: no such CUDA device ({} found)", config.gpu, devices));
  } else if (config.backend == B::kVulkan) {
    const int devices = vulkan::device_count();
    if (!vulkan::compiled_in()) throw Error("--backend vulkan: this build has no Vulkan backend");
    if (devices == 0)
      throw Error("--backend vulkan: no Vulkan device found (" + vulkan::why_no_device() + ")");
    if (config.gpu < 0 || config.gpu >= devices)
      throw Error(fmt::format("--gpu {}: no such Vulkan device ({} found)", config.gpu, devices));
  } else {
    const int cuda_devices = cuda::device_count();
    if (config.gpu >= 0 && config.gpu < cuda_devices) {
      note(fmt::format("backend auto: using CUDA device {}", config.gpu));
    } else {
      const std::string why_not_cuda =
          !cuda::compiled_in() ? "this build has no CUDA backend"
          : cuda_devices == 0  ? "no CUDA device found"
                               : fmt::format("no CUDA device {} ({} found)", config.gpu, cuda_devices);
      const int vk_devices = vulkan::device_count();
      // A software Vulkan device (Mesa's llvmpipe) computes on the CPU, far
      // slower than the CPU backend: auto does not choose it.
      const bool vk_exists = config.gpu >= 0 && config.gpu < vk_devices;
      const bool vk_usable = vk_exists && !vulkan::device_is_software(config.gpu);
      if (vk_usable) {
        note(fmt::format("backend auto: {}, using Vulkan device {}", why_not_cuda, config.gpu));
        note(fmt::format("backend vulkan: device {}: {}", config.gpu,
                         vulkan::describe_device(config.gpu)));
        return vulkan::make_vulkan_job(config.gpu, subsample);
      }
      const std::string why_not_vulkan =
          !vulkan::compiled_in() ? "this build has no Vulkan backend"
          : vk_devices == 0      ? "no Vulkan device found"
          : vk_exists
              ? fmt::format("Vulkan device {} is a software renderer ({}; --backend vulkan "
                            "uses it all the same)",
                            config.gpu, vulkan::describe_device(config.gpu))
              : fmt::format("no Vulkan device {} ({} found)", config.gpu, vk_devices);
      note(fmt::format("backend auto: {}; {}; using the CPU", why_not_cuda, why_not_vulkan));
      return nullptr;
    }
  }
  if (config.backend == B::kVulkan) {
    note(fmt::format("backend vulkan: device {}: {}", config.gpu,
                     vulkan::describe_device(config.gpu)));
    return vulkan::make_vulkan_job(config.gpu, subsample);
  }
  note(fmt::format("backend cuda: device {}: {}", config.gpu, cuda::describe_device(config.gpu)));
  return cuda::make_gpu_job(config.gpu, subsample);
}

void JobState::start(const VideoFormat& format) {
  if (started_) {
    if (format != format_)
      throw Error(fmt::format("job already started with {}x{} {}-bit {}; got {}x{} {}-bit {}",
                              format_.width, format_.height, format_.bit_depth,
                              to_string(format_.chroma), format.width, format.height,
                              format.bit_depth, to_string(format.chroma)));
    return;
  }
  validate_format(format, "job");
  const auto start_time = std::chrono::steady_clock::now();
  gpu_ = make_gpu_job_for(config_, subsample_);

  // Each distinct extractor once, in request order: on the GPU when the job
  // has one and the extractor has a CUDA compute, else on the CPU.
  struct Built {
    FeatureExtractor* cpu = nullptr;  // null: GPU extractor `handle`
    std::size_t handle = 0;
  };
  std::vector<Built> built;
  std::vector<std::string> cpu_keys;  // request keys of extractors_
  for (const Request& r : requests_) {
    if (gpu_ && gpu_->implements(*r.info)) {
      built.push_back({nullptr, gpu_->add(r.info->name, r.options)});
      gpu_extractors_.push_back(r.info->name);
      if (config_.on_note)
        config_.on_note(fmt::format("{}: runs on the GPU ({})", r.info->name, gpu_->backend_name()));
    } else {
      extractors_.push_back(make_extractor(r.info->name, r.options, config_.cpu_level));
      cpu_keys.push_back(request_key(r.info->name, r.options));
      built.push_back({extractors_.back().get(), 0});
      if (gpu_) cpu_extractor_names_.push_back(r.info->name);
      if (gpu_ && config_.on_note)
        config_.on_note(fmt::format("{}: no {} implementation, runs on the CPU", r.info->name,
                                    gpu_->backend_name()));
    }
  }
  // Every extractor before the first frame, so that a refusal (frame too
  // small, bit depth unsupported) comes before any work.
  for (std::size_t i = 0; i < extractors_.size(); ++i) {
    FeatureExtractor* e = extractors_[i].get();
    // With no worker threads these instances compute one after another on
    // the submitting thread: one arena for all of them, as for a worker's.
    if (config_.threads == 0) e->set_scratch(&main_arena_);
    e->init(format);
    if (!e->temporal()) {
      parallel_.push_back(e);
      parallel_keys_.push_back(cpu_keys[i]);
      if (share_cache_) e->set_reference_cache(share_cache_.get(), cpu_keys[i]);
    } else if (const unsigned d = e->pair_distance(); d > 0) {
      if (d > FeatureExtractor::kMaxPairDistance)
        throw Error(fmt::format("internal: pair distance {} above the limit", d));
      pairwise_.push_back(e);
      shared_keys_.push_back(config_.reference_share && e->pair_reference_only() ? cpu_keys[i]
                                                                                : std::string());
      if (std::find(pair_distances_.begin(), pair_distances_.end(), d) == pair_distances_.end())
        pair_distances_.push_back(d);
      max_pair_distance_ = std::max(max_pair_distance_, d);
    } else {
      temporal_.push_back(e);
    }
    lag_ = std::max(lag_, e->lag());
  }
  if (gpu_) {
    gpu_->init(format);
    lag_ = std::max(lag_, gpu_->lag());
  }
  bool chroma = gpu_ && gpu_->needs_chroma();
  for (const auto& e : extractors_) chroma = chroma || e->needs_chroma();
  planes_needed_ = chroma ? format.num_planes() : 1;
  // libvmaf's column order is the order in which its one-thread run first
  // writes each name: frame 0's values extractor by extractor (in
  // registration order: model features, then --feature), then values first
  // written at later frames, then those written at the end (flush), then the
  // model scores.
  for (std::size_t r = 0; r < built.size(); ++r) {
    const Built& b = built[r];
    const Request& req = requests_[r];
    const std::string suffix = ParsedOptions(req.info->name, req.info->options, req.options)
                                   .name_suffix();
    const std::vector<std::string> names =
        b.cpu ? b.cpu->feature_names() : gpu_->feature_names(b.handle);
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::string& name = names[k];
      unsigned first = 0;
      if (req.info->first_written) {
        const bool suffixed = name.size() >= suffix.size() &&
                              name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
        first = req.info->first_written(
            suffixed ? name.substr(0, name.size() - suffix.size()) : name,
            ParsedOptions(req.info->name, req.info->options, req.options));
      }
      columns_.push_back({name, first, r, k});
    }
  }
  for (const std::string& name : column_order(~0u)) declare_output(name, false);
  if (!config_.no_prediction) {
    // Every model's main score, in -m order, then each bootstrap
    // collection's per-model scores and statistics (libvmaf scores the
    // models, then the collections).
    for (const Model& model : config_.models) declare_output(model.name(), true);
    for (const Model& model : config_.models)
      for (const std::string& name : model.output_names())
        if (name != model.name()) declare_output(name, true);
  }

  const unsigned threads = config_.threads;
  // Each worker computes one pair while as many again wait, read ahead;
  // when those would pass kInFlightBudget (large pictures: a 4K 16-bit
  // 4:4:4 pair is 100 MB) fewer wait, down to two beyond the workers' own.
  // A GPU job keeps more frames in flight (uploads of later frames overlap
  // the kernels of earlier ones, and several readers fill slots at once).
  unsigned cpu_in_flight = threads ? 2 * threads + 2 : 1u;
  const std::size_t pair_bytes = 2 * plane_bytes(format, planes_needed_);
  if (threads && std::size_t{cpu_in_flight} * pair_bytes > kInFlightBudget)
    cpu_in_flight = std::max<unsigned>(
        threads + 2, static_cast<unsigned>(std::min<std::size_t>(kInFlightBudget / pair_bytes,
                                                                 cpu_in_flight)));
  const unsigned default_in_flight = std::max(cpu_in_flight, gpu_ ? 16u : 1u);
  // Pairwise extractors keep the last frames' slots: one more is needed
  // to fill the next frame. Slots are made as frames need them
  // (take_slot), not here: a job whose input fails at its first frame never
  // holds more than one frame pair.
  slot_limit_ = std::max(
      config_.max_frames_in_flight ? config_.max_frames_in_flight : default_in_flight,
      max_pair_distance_ + 1);
  format_ = format;
  started_ = true;

  // The submitting thread helps only while that leaves no more computing
  // threads than cores: with threads >= cores a helper would compete with
  // the workers for a core (on 2 cores, --threads 2 computed on 3 threads).
  const unsigned cores = std::thread::hardware_concurrency();
  helping_ = config_.help_while_waiting && (cores == 0 || threads < cores);
  if (threads > 0) {
    // The non-temporal extractors compute on each thread's own clones
    // (run_item): the instances built above only checked the format. Those
    // whose flush() writes nothing are swapped for clones that never
    // allocate their buffers (a 4K 16-bit 4:4:4 job with every float
    // feature held about 1 GB in them); the others (PSNR's aggregates) keep
    // their initialised state for flush().
    for (std::size_t k = 0; k < parallel_.size(); ++k) {
      if (!parallel_[k]->flush_writes_nothing()) continue;
      auto owner = std::find_if(extractors_.begin(), extractors_.end(),
                                [&](const auto& e) { return e.get() == parallel_[k]; });
      *owner = parallel_[k]->clone();  // never scores: no reference cache either
      parallel_[k] = owner->get();
    }
    // Tile batches may have every worker and the helping submitting thread.
    scheduler_ = std::make_unique<WorkScheduler>(threads + (helping_ ? 1 : 0));
    for (FeatureExtractor* e : temporal_) e->set_tile_runner(scheduler_.get());
    for (unsigned t = 0; t < threads; ++t) threads_.emplace_back([this] { worker_loop(); });
  }
  start_ns_ = nanoseconds_since(start_time);
}

void JobState::check_open(const char* call) const {
  if (finished_) throw Error(fmt::format("{}: the job is finished", call));
}

FrameSlot* JobState::take_slot(bool wait) {
  rethrow_if_failed();
  std::unique_lock lock(slots_mutex_);
  if (free_.empty() && slots_.size() < slot_limit_) {
    // A new slot (a deque keeps the others where they are).
    FrameSlot& s = slots_.emplace_back();
    try {
      s.reference = Picture(format_);
      s.distorted = Picture(format_);
      s.pair_values.resize(pairwise_.size());
      if (gpu_ && gpu_->streams_from_registered()) {
        // Page-locked: the GPU uploads straight from the slots (no staging
        // copy).
        const Picture* pictures[] = {&s.reference, &s.distorted};
        gpu_->register_host(pictures);
      }
    } catch (...) {
      slots_.pop_back();
      throw;
    }
    return &s;
  }
  // While every slot is busy, the submitting thread helps the workers (a
  // frame's task, the temporal chain, row tiles) instead of sleeping: with
  // N workers a job computes on N + 1 threads, as libvmaf's --threads N
  // computes its temporal extractors on the submitting thread.
  while (wait && free_.empty() && scheduler_ && helping_ && !failed()) {
    lock.unlock();
    bool worked = false;
    const auto start = std::chrono::steady_clock::now();
    if (void* item = scheduler_->try_next_item(&worked)) run_item_guarded(item, caller_extractors_);
    if (worked) help_ns_.fetch_add(nanoseconds_since(start), std::memory_order_relaxed);
    lock.lock();
    if (!worked) break;
  }
  if (wait) {
    // Woken without a free slot only when the job failed.
    slots_cv_.wait(lock, [&] { return !free_.empty() || failed(); });
    if (free_.empty()) {
      lock.unlock();
      rethrow_if_failed();
    }
  } else if (free_.empty()) {
    return nullptr;
  }
  FrameSlot* s = free_.front();
  free_.pop_front();
  lock.unlock();
  // The GPU may still be uploading the frame that held this slot.
  if (gpu_ && s->gpu_index >= 0) gpu_->wait_uploaded(static_cast<unsigned>(s->gpu_index));
  s->gpu_index = -1;
  return s;
}

void JobState::give_back(FrameSlot* slot) {
  slot->shared_reference.reset();  // outside the lock: may free the picture
  {
    std::lock_guard lock(slots_mutex_);
    free_.push_back(slot);
  }
  slots_cv_.notify_all();
}

void JobState::release(FrameSlot* slot) {
  if (slot->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) give_back(slot);
}

void JobState::submit_slot(FrameSlot* slot) {
  const auto start = std::chrono::steady_clock::now();
  struct Timed {
    std::atomic<std::int64_t>& total;
    std::chrono::steady_clock::time_point start;
    ~Timed() { total.fetch_add(nanoseconds_since(start), std::memory_order_relaxed); }
  } timed{submit_ns_, start};
  const unsigned index = submitted_.fetch_add(1);
  slot->index = index;
  try {
    if (gpu_) {
      gpu_->submit(slot->ref(), slot->distorted, index, out_);
      slot->gpu_index = index;
      gpu_collected_.store(gpu_->collected_frames(), std::memory_order_release);
    }
  } catch (...) {
    give_back(slot);
    throw;
  }
  // Holds: the computation, the recent-frames list, and this frame's own
  // holds on the earlier frames its pairwise extractors read.
  const bool pairwise = !pairwise_.empty();
  slot->refs.store(1 + (pairwise ? 1 : 0), std::memory_order_relaxed);
  slot->earlier.fill(nullptr);
  if (pairwise) {
    for (const unsigned d : pair_distances_)
      if (d <= recent_.size()) {
        FrameSlot* e = recent_[recent_.size() - d];
        e->refs.fetch_add(1, std::memory_order_relaxed);
        slot->earlier[d] = e;
      }
    recent_.push_back(slot);
    if (recent_.size() > max_pair_distance_) {
      FrameSlot* old = recent_.front();
      recent_.pop_front();
      release(old);
    }
  }
  const bool has_task = !parallel_.empty() || pairwise;
  const bool has_strand = !temporal_.empty() || pairwise;
  const int parts = (has_task ? 1 : 0) + (has_strand ? 1 : 0);
  slot->parts_left.store(parts, std::memory_order_relaxed);
  if (parts == 0) {
    part_done(slot);
    return;
  }
  // The strand waits for the pairwise values of the frame: the parallel
  // task posts it then.
  if (has_strand && !pairwise) post_temporal(slot);
  if (has_task) {
    if (scheduler_)
      scheduler_->push(slot);
    else
      parallel_task(parallel_, pairwise_, slot);
  }
  rethrow_if_failed();
}

int JobState::device_input(std::string* why) const {
  const auto no = [&](const std::string& text) {
    if (why) *why = text;
    return -1;
  };
  if (!started_) return no("the job has not started");
  if (!gpu_) return no("the job computes on the CPU");
  const int device = gpu_->device_pictures_device();
  if (device < 0)
    return no(fmt::format("the {} backend takes no frames in device memory", gpu_->backend_name()));
  if (!extractors_.empty()) {
    std::string names;
    for (const std::string& n : cpu_extractor_names_) names += (names.empty() ? "" : ", ") + n;
    return no(fmt::format("{} {} on the CPU", names,
                          cpu_extractor_names_.size() == 1 ? "runs" : "run"));
  }
  return device;
}

void JobState::submit_inputs(const GpuInput& reference, const GpuInput& distorted) {
  check_open("submit");
  if (!started_ || !gpu_ || !extractors_.empty())
    throw Error("submit: frames in device memory need a job computing only on a CUDA device");
  rethrow_if_failed();
  const auto start = std::chrono::steady_clock::now();
  const unsigned index = submitted_.fetch_add(1);
  gpu_->submit_inputs(reference, distorted, index, out_);
  gpu_collected_.store(gpu_->collected_frames(), std::memory_order_release);
  submit_ns_.fetch_add(nanoseconds_since(start), std::memory_order_relaxed);
  // No CPU part: the frame is done as far as the CPU goes.
  {
    std::lock_guard lock(progress_mutex_);
    done_out_of_order_.insert(index);
    while (!done_out_of_order_.empty() && *done_out_of_order_.begin() == cpu_done_) {
      done_out_of_order_.erase(done_out_of_order_.begin());
      ++cpu_done_;
    }
  }
  progress_cv_.notify_all();
  advance(false);
  rethrow_if_failed();
}

void JobState::parallel_task(std::vector<FeatureExtractor*>& extractors,
                             std::vector<FeatureExtractor*>& pairwise, FrameSlot* slot) {
  run_parallel(extractors, pairwise, *slot);
  if (!pairwise_.empty()) {  // the job's list: `pairwise` is empty if a clone failed
    for (FrameSlot*& e : slot->earlier)
      if (e) {
        release(e);
        e = nullptr;
      }
    post_temporal(slot);
  }
  part_done(slot);
}

void JobState::worker_loop() {
  ThreadExtractors mine;
  while (void* item = scheduler_->next_item()) run_item_guarded(item, mine);
}

void JobState::run_item_guarded(void* item, ThreadExtractors& mine) {
  // A failure here (memory running out) is the job's error, rethrown to the
  // producer, which stops waiting for the frame.
  try {
    run_item(item, mine);
  } catch (...) {
    record_error();
    progress_cv_.notify_all();
    slots_cv_.notify_all();
  }
}

void JobState::run_item(void* item, ThreadExtractors& mine) {
  if (item == &temporal_token_) {
    temporal_chain();
    return;
  }
  // The thread's own instances of the non-temporal and the pairwise
  // extractors, built when it takes its first frame: on that thread
  // (workers build theirs at the same time, not one after another in
  // start()), and only by threads that get a frame. The main instances'
  // init() already passed, so a clone's cannot refuse.
  if (mine.own.empty() && !(parallel_.empty() && pairwise_.empty())) {
    try {
      for (const auto* list : {&parallel_, &pairwise_})
        for (std::size_t k = 0; k < list->size(); ++k) {
          FeatureExtractor* p = (*list)[k];
          mine.own.push_back(p->clone());
          mine.own.back()->set_scratch(&mine.arena);
          mine.own.back()->init(format_);
          mine.own.back()->set_tile_runner(scheduler_.get());
          if (share_cache_ && list == &parallel_)
            mine.own.back()->set_reference_cache(share_cache_.get(), parallel_keys_[k]);
          (list == &parallel_ ? mine.parallel : mine.pairwise).push_back(mine.own.back().get());
        }
    } catch (...) {
      record_error();  // out of memory: the frame (and the job) fails
    }
  }
  parallel_task(mine.parallel, mine.pairwise, static_cast<FrameSlot*>(item));
}

void JobState::run_parallel(std::vector<FeatureExtractor*>& extractors,
                            std::vector<FeatureExtractor*>& pairwise, FrameSlot& slot) {
  {
    std::lock_guard lock(error_mutex_);
    if (error_) return;
  }
  try {
    const bool sampled = slot.index % subsample_ == 0;
    for (FeatureExtractor* e : extractors)
      if (sampled || e->every_frame()) e->extract(slot.ref(), slot.distorted, slot.index, out_);
    for (std::size_t k = 0; k < pairwise.size(); ++k) {
      const FrameSlot* earlier = slot.earlier[pairwise[k]->pair_distance()];
      const auto compute = [&] {
        return pairwise[k]->extract_pair(
            earlier ? &earlier->ref() : nullptr, earlier ? &earlier->distorted : nullptr,
            slot.ref(), slot.distorted, slot.index);
      };
      slot.pair_values[k] =
          shared_keys_[k].empty()
              ? compute()
              : config_.reference_share->impl_->take(shared_keys_[k], slot.index, share_id_,
                                                     compute);
    }
  } catch (...) {
    record_error();
  }
}

void JobState::run_temporal(FrameSlot& slot) {
  {
    std::lock_guard lock(error_mutex_);
    if (error_) return;
  }
  const auto start = std::chrono::steady_clock::now();
  try {
    for (FeatureExtractor* e : temporal_)
      e->extract(slot.ref(), slot.distorted, slot.index, out_);
    for (std::size_t k = 0; k < pairwise_.size(); ++k)
      pairwise_[k]->emit_ordered(slot.index, slot.pair_values[k], out_);
  } catch (...) {
    record_error();
  }
  ordered_ns_.fetch_add(nanoseconds_since(start), std::memory_order_relaxed);
}

void JobState::post_temporal(FrameSlot* slot) {
  bool start_chain = false;
  {
    std::lock_guard lock(strand_mutex_);
    strand_ready_.emplace(slot->index, slot);
    if (!strand_running_ && strand_ready_.begin()->first == strand_next_) {
      strand_running_ = true;
      start_chain = true;
    }
  }
  if (!start_chain) return;
  if (scheduler_)
    scheduler_->push(&temporal_token_);
  else
    temporal_chain();
}

void JobState::temporal_chain() {
  for (;;) {
    FrameSlot* slot = nullptr;
    {
      std::lock_guard lock(strand_mutex_);
      auto it = strand_ready_.find(strand_next_);
      if (it == strand_ready_.end()) {
        strand_running_ = false;
        return;
      }
      slot = it->second;
      strand_ready_.erase(it);
      ++strand_next_;
    }
    run_temporal(*slot);
    part_done(slot);
  }
}

void JobState::part_done(FrameSlot* slot) {
  if (slot->parts_left.load(std::memory_order_relaxed) > 0 &&
      slot->parts_left.fetch_sub(1, std::memory_order_acq_rel) != 1)
    return;
  const unsigned index = slot->index;
  release(slot);
  {
    std::lock_guard lock(progress_mutex_);
    done_out_of_order_.insert(index);
    while (!done_out_of_order_.empty() && *done_out_of_order_.begin() == cpu_done_) {
      done_out_of_order_.erase(done_out_of_order_.begin());
      ++cpu_done_;
    }
  }
  progress_cv_.notify_all();
  advance(false);
}

void JobState::advance(bool at_end) {
  // Frames become final in order. Model prediction runs outside the lock:
  // a thread claims the newly final frames, predicts them, then publishes
  // them (final_ moves over every contiguous range that is done).
  unsigned from = 0, to = 0;
  {
    std::lock_guard lock(progress_mutex_);
    unsigned ready = cpu_done_;
    if (gpu_) ready = std::min(ready, gpu_collected_.load(std::memory_order_acquire));
    const unsigned final_frames =
        at_end ? submitted_.load() : (ready > lag_ ? ready - lag_ : 0);
    if (final_frames <= claimed_) return;
    from = claimed_;
    to = claimed_ = final_frames;
  }
  if (!config_.no_prediction) {
    const auto start = std::chrono::steady_clock::now();
    for (unsigned i = from; i < to; ++i) {
      if (i % subsample_) continue;
      try {
        predict(i);
      } catch (...) {
        record_error();
        // A flush() waiting for these frames stops waiting: taking its mutex
        // first, so that the wake-up cannot fall between its check and its wait.
        { std::lock_guard lock(progress_mutex_); }
        progress_cv_.notify_all();
        return;  // these frames never become final
      }
    }
    prediction_ns_.fetch_add(nanoseconds_since(start), std::memory_order_relaxed);
  }
  std::lock_guard lock(progress_mutex_);
  predicted_ranges_.emplace(from, to);
  unsigned final_frames = final_.load(std::memory_order_relaxed);
  for (auto it = predicted_ranges_.begin();
       it != predicted_ranges_.end() && it->first == final_frames;
       it = predicted_ranges_.erase(it))
    final_frames = it->second;
  final_.store(final_frames, std::memory_order_release);
  progress_cv_.notify_all();
}

void JobState::predict(unsigned index) {
  for (std::size_t m = 0; m < config_.models.size(); ++m) {
    const Model& model = config_.models[m];
    const std::vector<std::string>& inputs = model_inputs_[m];
    const std::vector<std::string> outputs = model.output_names();
    std::vector<double> values(inputs.size());
    std::vector<double> scores(outputs.size());
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const auto v = out_.get(inputs[k], index);
      if (!v)
        throw Error(fmt::format("model '{}': feature '{}' has no value at frame {}",
                                model.origin(), inputs[k], index));
      values[k] = *v;
    }
    model.predict(values, scores);
    for (std::size_t k = 0; k < outputs.size(); ++k) out_.set(outputs[k], index, scores[k]);
  }
}

void JobState::record_error() {
  std::lock_guard lock(error_mutex_);
  if (!error_) error_ = std::current_exception();
}

bool JobState::failed() const {
  std::lock_guard lock(error_mutex_);
  return error_ != nullptr;
}

void JobState::rethrow_if_failed() {
  std::lock_guard lock(error_mutex_);
  if (error_) std::rethrow_exception(error_);
}

std::optional<double> JobState::score(const std::string& name, unsigned index) const {
  if (index >= frames_final()) return std::nullopt;
  return out_.get(name, index);
}

std::vector<std::string> JobState::feature_names() const { return out_.names(); }

void JobState::flush() {
  if (!started_) return;
  {
    // Every submitted frame's CPU parts done (slots the caller holds
    // unsubmitted do not count).
    std::unique_lock lock(progress_mutex_);
    progress_cv_.wait(lock, [&] { return cpu_done_ == submitted_ || failed(); });
  }
  rethrow_if_failed();
  if (gpu_) {
    gpu_->drain(out_);
    gpu_collected_.store(gpu_->collected_frames(), std::memory_order_release);
  }
  advance(false);
  {
    // Another thread may have claimed the last frames (part_done's advance)
    // and still be predicting them: wait until they are published, so that
    // after flush() every frame the look-ahead allows is final.
    std::unique_lock lock(progress_mutex_);
    progress_cv_.wait(lock, [&] {
      return final_.load(std::memory_order_relaxed) >= claimed_ || failed();
    });
  }
  rethrow_if_failed();
}

JobResult JobState::finish() {
  check_open("finish");
  if (!started_ || submitted_ == 0) {
    finished_ = true;
    throw Error("no frames to score: the job received no frame");
  }
  flush();
  finished_ = true;
  if (scheduler_) scheduler_->stop();
  for (auto& t : threads_) t.join();
  threads_.clear();
  // The recent frames' holds (no later frame reads them now).
  for (FrameSlot* slot : recent_) release(slot);
  recent_.clear();
  leave_share();  // every frame computed: this job takes no more shared values
  if (gpu_) gpu_->finish(out_);
  for (auto& e : extractors_) e->flush(out_);
  advance(true);
  // Names libvmaf would first write at a frame past the end of a short video
  // move to the flushed ones (e.g. float motion3 of a one-frame video).
  out_.reorder(column_order(submitted_));
  rethrow_if_failed();
  JobResult result;
  result.format = format_;
  result.frames = submitted_;
  result.features = std::move(out_);
  result.gpu_extractors = gpu_extractors_;
  result.times.start = start_ns_.load() * 1e-9;
  result.times.help = help_ns_.load() * 1e-9;
  result.times.ordered = ordered_ns_.load() * 1e-9;
  result.times.prediction = prediction_ns_.load() * 1e-9;
  result.times.submit = submit_ns_.load() * 1e-9;
  return result;
}

}  // namespace detail

FeatureRequest parse_feature_request(const std::string& text) {
  const std::size_t eq = text.find('=');
  FeatureRequest r;
  r.extractor = text.substr(0, eq);
  if (r.extractor.empty()) throw Error(fmt::format("feature: no name in '{}'", text));
  if (eq != std::string::npos)
    r.options = parse_option_string(text.substr(eq + 1), "feature " + r.extractor);
  return r;
}

// --- JobAccess --------------------------------------------------------------

int detail::JobAccess::device_input(const Job& job, std::string* why) {
  return job.state_->device_input(why);
}

void detail::JobAccess::submit_inputs(Job& job, const GpuInput& reference, const GpuInput& distorted) {
  job.state_->submit_inputs(reference, distorted);
}

// --- JobFrame ---------------------------------------------------------------

JobFrame::JobFrame(JobFrame&& other) noexcept : job_(other.job_), slot_(other.slot_) {
  other.job_ = nullptr;
  other.slot_ = nullptr;
}

JobFrame& JobFrame::operator=(JobFrame&& other) noexcept {
  if (this != &other) {
    if (slot_) job_->give_back(slot_);
    job_ = other.job_;
    slot_ = other.slot_;
    other.job_ = nullptr;
    other.slot_ = nullptr;
  }
  return *this;
}

JobFrame::~JobFrame() {
  if (slot_) job_->give_back(slot_);
}

Picture& JobFrame::reference() {
  if (!slot_) throw Error("JobFrame: empty (already submitted or never acquired)");
  return slot_->reference;
}

void JobFrame::share_reference(std::shared_ptr<const Picture> picture) {
  if (!slot_) throw Error("JobFrame: empty (already submitted or never acquired)");
  if (!picture) throw Error("share_reference: no picture");
  check_picture_format(picture->format(), slot_->reference, "share_reference");
  if (job_->uses_gpu()) {
    // The GPU uploads from the slot's own (page-locked) pictures: copy the
    // planes the job reads.
    copy_planes(view_of(*picture), slot_->reference, job_->planes_needed(), "share_reference");
    return;
  }
  slot_->shared_reference = std::move(picture);
}

Picture& JobFrame::distorted() {
  if (!slot_) throw Error("JobFrame: empty (already submitted or never acquired)");
  return slot_->distorted;
}

// --- Job --------------------------------------------------------------------

Job::Job(JobConfig config) : state_(std::make_unique<detail::JobState>(std::move(config))) {}
Job::~Job() = default;

void Job::start(const VideoFormat& format) {
  state_->check_open("start");
  state_->start(format);
}

void Job::submit(const PictureView& reference, const PictureView& distorted) {
  state_->check_open("submit");
  if (reference.format != distorted.format)
    throw Error(fmt::format("submit: reference is {}x{} {}-bit {} but distorted is {}x{} {}-bit {}",
                            reference.format.width, reference.format.height,
                            reference.format.bit_depth, to_string(reference.format.chroma),
                            distorted.format.width, distorted.format.height,
                            distorted.format.bit_depth, to_string(distorted.format.chroma)));
  state_->start(reference.format);
  JobFrame frame(state_.get(), state_->take_slot(true));
  copy_picture(reference, frame.reference(), "submit: reference");
  copy_picture(distorted, frame.distorted(), "submit: distorted");
  submit(std::move(frame));
}

bool Job::try_submit(const PictureView& reference, const PictureView& distorted) {
  state_->check_open("try_submit");
  if (reference.format != distorted.format)
    throw Error("try_submit: reference and distorted differ in format");
  state_->start(reference.format);
  detail::FrameSlot* slot = state_->take_slot(false);
  if (!slot) return false;
  JobFrame frame(state_.get(), slot);
  copy_picture(reference, frame.reference(), "try_submit: reference");
  copy_picture(distorted, frame.distorted(), "try_submit: distorted");
  submit(std::move(frame));
  return true;
}

JobFrame Job::acquire() {
  state_->check_open("acquire");
  if (!state_->started()) throw Error("acquire: the job has no format yet (call start() first)");
  return JobFrame(state_.get(), state_->take_slot(true));
}

JobFrame Job::acquire(const VideoFormat& format) {
  start(format);
  return acquire();
}

void Job::submit(JobFrame&& frame) {
  state_->check_open("submit");
  if (!frame.slot_ || frame.job_ != state_.get())
    throw Error("submit: the frame is empty or belongs to another job");
  detail::FrameSlot* slot = frame.slot_;
  frame.slot_ = nullptr;
  frame.job_ = nullptr;
  state_->submit_slot(slot);
}

unsigned Job::frames_submitted() const { return state_->frames_submitted(); }
unsigned Job::frames_final() const { return state_->frames_final(); }
std::optional<double> Job::score(const std::string& name, unsigned index) const {
  return state_->score(name, index);
}
std::vector<std::string> Job::feature_names() const { return state_->feature_names(); }
int Job::planes_needed() const {
  if (!state_->started()) throw Error("planes_needed: the job has no format yet");
  return state_->planes_needed();
}
unsigned Job::frames_in_flight() const {
  if (!state_->started()) throw Error("frames_in_flight: the job has no format yet");
  return state_->frames_in_flight();
}
void Job::flush() {
  state_->check_open("flush");
  state_->flush();
}
JobResult Job::finish() { return state_->finish(); }

}  // namespace vqe
