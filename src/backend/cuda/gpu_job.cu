// SPDX-License-Identifier: BSD-2-Clause
// The CUDA runtime of a job: memory pool, frame ring with pinned staging and
// overlapped uploads, per-slot streams, and GpuJob, which drives the CUDA
// extractors. (No fmt here: nvcc cannot compile fmt 9's consteval format
// strings.)

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "backend/cuda/backend.h"
#include "backend/cuda/cuda_extractor.cuh"
#include "backend/cuda/device.h"
#include "backend/cuda/runtime.cuh"
#include "vqe/error.h"

namespace vqe::cuda {


void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  throw Error(std::string("CUDA error in ") + call + " (" + (base ? base + 1 : file) + ":" +
              std::to_string(line) + "): " + cudaGetErrorString(err));
}

// --- DevicePool ------------------------------------------------------------

DevicePool::~DevicePool() {
  for (Chunk& c : chunks_) cudaFree(c.base);
  for (void* p : host_) cudaFreeHost(p);
}

void* DevicePool::alloc(std::size_t bytes, std::size_t align) {
  if (align == 0 || align > 256) align = 256;
  bytes = bytes ? bytes : 1;
  for (Chunk& c : chunks_) {
    const std::size_t start = (c.used + align - 1) & ~(align - 1);
    if (start + bytes <= c.size) {
      c.used = start + bytes;
      return c.base + start;
    }
  }
  constexpr std::size_t kChunk = std::size_t{64} << 20;
  Chunk c;
  c.size = bytes > kChunk / 2 ? bytes : kChunk;
  void* p = nullptr;
  VQE_CUDA_CHECK(cudaMalloc(&p, c.size));
  c.base = static_cast<std::uint8_t*>(p);
  c.used = bytes;
  device_bytes_ += c.size;
  chunks_.push_back(c);
  return c.base;
}

void* DevicePool::host_alloc(std::size_t bytes) {
  void* p = nullptr;
  bytes = bytes ? bytes : 1;
  VQE_CUDA_CHECK(cudaMallocHost(&p, bytes));
  host_.push_back(p);
  host_bytes_ += bytes;
  std::memset(p, 0, bytes);
  return p;
}

// --- Context ---------------------------------------------------------------

Context::Context(int device) : device_(device) {
  const int count = device_count();
  if (device < 0 || device >= count)
    throw Error("--gpu " + std::to_string(device) + ": no such CUDA device (" +
                std::to_string(count) + " found)");
  VQE_CUDA_CHECK(cudaSetDevice(device));
  VQE_CUDA_CHECK(cudaStreamCreateWithFlags(&serial_, cudaStreamNonBlocking));
  VQE_CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
  for (int s = 0; s < kSlots; ++s) {
    VQE_CUDA_CHECK(cudaStreamCreateWithFlags(&slot_[s], cudaStreamNonBlocking));
    VQE_CUDA_CHECK(cudaEventCreateWithFlags(&uploaded_[s], cudaEventDisableTiming));
    VQE_CUDA_CHECK(cudaEventCreateWithFlags(&done_[s], cudaEventDisableTiming));
    VQE_CUDA_CHECK(cudaEventCreateWithFlags(&serial_done_[s], cudaEventDisableTiming));
  }
  active_ = serial_;
}

Context::~Context() {
  // Let queued work finish before the pool frees what it uses.
  if (serial_) cudaStreamSynchronize(serial_);
  for (cudaStream_t st : slot_)
    if (st) cudaStreamSynchronize(st);
  if (copy_) cudaStreamSynchronize(copy_);
  for (const auto& r : registered_) cudaHostUnregister(const_cast<std::uint8_t*>(r.first));
  for (int s = 0; s < kSlots; ++s) {
    if (uploaded_[s]) cudaEventDestroy(uploaded_[s]);
    if (done_[s]) cudaEventDestroy(done_[s]);
    if (serial_done_[s]) cudaEventDestroy(serial_done_[s]);
    if (slot_[s]) cudaStreamDestroy(slot_[s]);
  }
  if (serial_) cudaStreamDestroy(serial_);
  if (copy_) cudaStreamDestroy(copy_);
  cudaGetLastError();
}

void Context::init(const VideoFormat& format, bool chroma) {
  VQE_CUDA_CHECK(cudaSetDevice(device_));
  format_ = format;
  planes_ = chroma ? format.num_planes() : 1;
  const int bps = format.bytes_per_sample();
  std::size_t staging_bytes = 0;
  for (int p = 0; p < planes_; ++p)
    staging_bytes += 2 * static_cast<std::size_t>(format.plane_width(p)) * bps *
                     static_cast<std::size_t>(format.plane_height(p));
  // A slot's pinned staging is made at its first unregistered upload: jobs
  // whose pictures are page-locked (run_job's frame slots) never need it,
  // and pinning kSlots frame pairs took start-up time (265 MB at 2160p 10-bit).
  staging_bytes_ = staging_bytes;
  staging_.fill(nullptr);  // sized for this format when made
  for (int s = 0; s < kSlots; ++s) {
    DeviceFrame& f = buffers_[s];
    f.slot = s;
    f.bpc = format.bit_depth;
    f.num_planes = planes_;
    for (int p = 0; p < planes_; ++p) {
      const int w = format.plane_width(p), h = format.plane_height(p);
      const std::size_t pitch = (static_cast<std::size_t>(w) * bps + 255) & ~std::size_t{255};
      for (DevicePlane* dp : {&f.ref[p], &f.dist[p]}) {
        void* mem = pool_.alloc(pitch * h);
        VQE_CUDA_CHECK(cudaMemset(mem, 0, pitch * h));
        *dp = DevicePlane{mem, pitch, w, h};
      }
    }
    frames_[s] = f;
    valid_[s] = false;
  }
  current_seq_ = -1;
  VQE_CUDA_CHECK(cudaDeviceSynchronize());
}

const DeviceFrame* Context::back(int k) const {
  if (k < 1 || k > kHistory || current_seq_ - k < 0) return nullptr;
  const int slot = static_cast<int>((current_seq_ - k) % kSlots);
  return valid_[slot] ? &frames_[slot] : nullptr;
}

bool Context::is_registered(const Plane& plane) const {
  const std::uint8_t* end = plane.data + static_cast<std::size_t>(plane.stride) * plane.height;
  for (const auto& [b, e] : registered_)
    if (plane.data >= b && end <= e) return true;
  return false;
}

const DeviceFrame& Context::upload(const Picture& ref, const Picture& dist, unsigned index,
                                   int slot, bool upload) {
  if (upload) return upload_inputs(GpuInput{&ref, nullptr}, GpuInput{&dist, nullptr}, index, slot);
  DeviceFrame& f = frames_[slot];
  f = buffers_[slot];
  f.index = index;
  valid_[slot] = true;
  current_seq_ += 1;
  return f;
}

const DeviceFrame& Context::upload_inputs(const GpuInput& ref, const GpuInput& dist,
                                          unsigned index, int slot) {
  const long long seq = current_seq_ + 1;
  DeviceFrame& f = frames_[slot];
  f = buffers_[slot];
  // Source of each plane: a device picture's plane; a host picture itself
  // when page-locked (register_host); else a packed copy in this slot's
  // pinned staging (its previous upload finished: the caller waited for the
  // slot's frame).
  const int bps = format_.bytes_per_sample();
  std::uint8_t* dst = nullptr;  // staging_[slot], made on first use
  std::array<const void*, 6> src{};
  std::array<std::size_t, 6> src_pitch{};
  int n = 0;
  for (const GpuInput* in : {&ref, &dist}) {
    if (in->device) {
      const DevicePicture& d = *in->device;
      if (!(d.format == format_) || d.device != device_ || d.planes < planes_)
        throw Error("CUDA job: a picture in device memory does not fit the job (format, device "
                    "or planes)");
      for (int p = 0; p < planes_; ++p) {
        src_pitch[n] = d.pitch[p];
        src[n++] = d.data[p];
      }
      continue;
    }
    for (int p = 0; p < planes_; ++p) {
      const Plane& pl = in->host->plane(p);
      const std::size_t row_bytes = static_cast<std::size_t>(pl.width) * bps;
      if (is_registered(pl)) {
        src_pitch[n] = static_cast<std::size_t>(pl.stride);
        src[n++] = pl.data;
        continue;
      }
      if (dst == nullptr) {
        if (staging_[slot] == nullptr)
          staging_[slot] = pool_.host_alloc_n<std::uint8_t>(staging_bytes_);
        dst = staging_[slot];
      }
      src_pitch[n] = row_bytes;
      src[n++] = dst;
      for (int y = 0; y < pl.height; ++y, dst += row_bytes)
        std::memcpy(dst, pl.data + static_cast<std::size_t>(y) * pl.stride, row_bytes);
    }
  }
  // The device slot is read by its old frame (seq-kSlots) and, as history,
  // by the kHistory frames after it: wait for the last of those.
  const long long last_reader = seq - kSlots + kHistory;
  if (last_reader >= 0)
    VQE_CUDA_CHECK(cudaStreamWaitEvent(copy_, done_[last_reader % kSlots], 0));
  n = 0;
  for (DevicePlane* planes : {f.ref, f.dist})
    for (int p = 0; p < planes_; ++p) {
      DevicePlane& dp = planes[p];
      const std::size_t row_bytes = static_cast<std::size_t>(dp.width) * bps;
      // cudaMemcpyDefault: host (pinned or registered) or device source alike.
      VQE_CUDA_CHECK(cudaMemcpy2DAsync(const_cast<void*>(dp.data), dp.pitch, src[n],
                                       src_pitch[n], row_bytes, dp.height, cudaMemcpyDefault,
                                       copy_));
      ++n;
    }
  VQE_CUDA_CHECK(cudaEventRecord(uploaded_[slot], copy_));
  VQE_CUDA_CHECK(cudaStreamWaitEvent(serial_, uploaded_[slot], 0));
  VQE_CUDA_CHECK(cudaStreamWaitEvent(slot_[slot], uploaded_[slot], 0));
  f.index = index;
  valid_[slot] = true;
  current_seq_ = seq;
  return f;
}

bool Context::upload_done(int slot) const {
  const cudaError_t err = cudaEventQuery(uploaded_[slot]);
  if (err == cudaErrorNotReady) return false;
  VQE_CUDA_CHECK(err);
  return true;
}

const DeviceFrame& Context::use_resident(const DeviceFrame& resident, unsigned index, int slot) {
  DeviceFrame& f = frames_[slot];
  f = resident;
  f.slot = slot;
  f.index = index;
  valid_[slot] = true;
  current_seq_ += 1;
  return f;
}

DeviceFrame Context::make_resident(const Picture& ref, const Picture& dist) {
  VQE_CUDA_CHECK(cudaSetDevice(device_));
  const int bps = format_.bytes_per_sample();
  DeviceFrame f;
  f.bpc = format_.bit_depth;
  f.num_planes = planes_;
  for (int p = 0; p < planes_; ++p) {
    const int w = format_.plane_width(p), h = format_.plane_height(p);
    const std::size_t row_bytes = static_cast<std::size_t>(w) * bps;
    const std::size_t pitch = (row_bytes + 255) & ~std::size_t{255};
    for (int side = 0; side < 2; ++side) {
      const Plane& pl = (side ? dist : ref).plane(p);
      void* mem = pool_.alloc(pitch * h);
      VQE_CUDA_CHECK(cudaMemcpy2D(mem, pitch, pl.data, static_cast<std::size_t>(pl.stride),
                                  row_bytes, h, cudaMemcpyHostToDevice));
      (side ? f.dist : f.ref)[p] = DevicePlane{mem, pitch, w, h};
    }
  }
  return f;
}

void Context::register_host(std::span<const Picture* const> pictures) {
  // Only the planes that upload() copies (luma only unless an extractor
  // reads chroma): pinning costs time and locked memory. Pinning touches
  // every page, so several threads pin at once.
  struct Range {
    std::uint8_t* data;
    std::size_t bytes;
  };
  std::vector<Range> todo;
  for (const Picture* picture : pictures)
    for (int p = 0; p < std::min(planes_, picture->num_planes()); ++p) {
      const Plane& pl = picture->plane(p);
      if (is_registered(pl)) continue;
      todo.push_back({pl.data, static_cast<std::size_t>(pl.stride) * pl.height});
    }
  std::vector<cudaError_t> errors(todo.size(), cudaSuccess);
  const unsigned workers = static_cast<unsigned>(
      std::min<std::size_t>(todo.size(), std::max(1u, std::min(8u, std::thread::hardware_concurrency()))));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < workers; ++t)
    pool.emplace_back([&, t] {
      cudaSetDevice(device_);
      for (std::size_t i = t; i < todo.size(); i += workers)
        errors[i] = cudaHostRegister(todo[i].data, todo[i].bytes, cudaHostRegisterDefault);
    });
  for (auto& th : pool) th.join();
  for (std::size_t i = 0; i < todo.size(); ++i)
    if (errors[i] == cudaSuccess) registered_.emplace_back(todo[i].data, todo[i].data + todo[i].bytes);
  for (std::size_t i = 0; i < todo.size(); ++i)
    VQE_CUDA_CHECK(errors[i]);
}

void Context::unregister_host(const Picture& picture) {
  // The copies that read these planes must be done first.
  VQE_CUDA_CHECK(cudaStreamSynchronize(copy_));
  for (int p = 0; p < picture.num_planes(); ++p) {
    const Plane& pl = picture.plane(p);
    for (std::size_t i = 0; i < registered_.size(); ++i)
      if (registered_[i].first == pl.data) {
        VQE_CUDA_CHECK(cudaHostUnregister(pl.data));
        registered_.erase(registered_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }
}

void Context::end_frame(int slot) {
  VQE_CUDA_CHECK(cudaEventRecord(serial_done_[slot], serial_));
  VQE_CUDA_CHECK(cudaStreamWaitEvent(slot_[slot], serial_done_[slot], 0));
  VQE_CUDA_CHECK(cudaEventRecord(done_[slot], slot_[slot]));
  active_ = serial_;
}

void Context::wait_slot(int slot) { VQE_CUDA_CHECK(cudaEventSynchronize(done_[slot])); }

void Context::wait_upload(int slot) { VQE_CUDA_CHECK(cudaEventSynchronize(uploaded_[slot])); }

// --- GpuJob ----------------------------------------------------------------

namespace {

class GpuJobImpl final : public GpuJob, public GpuBenchHooks {
 public:
  GpuJobImpl(int device, unsigned subsample)
      : ctx_(device), subsample_(subsample ? subsample : 1) {}

  ~GpuJobImpl() override {
    cudaStreamSynchronize(ctx_.serial_stream());
    // Device pictures still held go back to their owner only once no copy
    // reads them.
    cudaStreamSynchronize(ctx_.copy_stream());
    for (auto& h : held_) h.clear();
    for (cudaEvent_t e : timer_start_) cudaEventDestroy(e);
    for (cudaEvent_t e : timer_stop_) cudaEventDestroy(e);
    // Extractors before the context: their pool memory is the context's.
    extractors_.clear();
  }

  const char* backend_name() const override { return "cuda"; }
  bool implements(const ExtractorInfo& info) const override { return info.make_cuda != nullptr; }

  std::size_t add(const std::string& extractor, const OptionValues& options) override {
    const ExtractorInfo* info = find_extractor(extractor);
    if (!info) throw Error("unknown feature '" + extractor + "'");
    if (!info->make_cuda) throw Error(extractor + ": no CUDA implementation");
    // nvcc does not convert the vector to a span implicitly.
    ParsedOptions parsed(extractor,
                         std::span<const OptionSpec>(info->options.data(), info->options.size()),
                         options);
    extractors_.push_back(info->make_cuda(parsed));
    timer_names_.push_back(extractor + "#" + std::to_string(extractors_.size() - 1));
    return extractors_.size() - 1;
  }

  void init(const VideoFormat& format) override {
    bool chroma = false;
    for (auto& e : extractors_) {
      e->init(format, ctx_);
      chroma = chroma || e->needs_chroma();
    }
    chroma_ = chroma;
    ctx_.init(format, chroma);
    for (Pending& p : pending_)
      p = Pending{false, 0, std::vector<char>(extractors_.size(), 0), false};
    submitted_ = 0;
  }

  std::vector<std::string> feature_names(std::size_t handle) const override {
    return extractors_.at(handle)->feature_names();
  }

  void submit(const Picture& reference, const Picture& distorted, unsigned index,
              FeatureCollector& out) override {
    VQE_CUDA_CHECK(cudaSetDevice(ctx_.device()));
    const int slot = static_cast<int>(submitted_ % Context::kSlots);
    if (pending_[slot].active) collect(slot, out);
    const DeviceFrame& frame = ctx_.upload(reference, distorted, index, slot, upload_);
    enqueue_all(frame, slot, index);
  }

  int device_pictures_device() const override { return ctx_.device(); }

  void submit_inputs(const GpuInput& reference, const GpuInput& distorted, unsigned index,
                     FeatureCollector& out) override {
    VQE_CUDA_CHECK(cudaSetDevice(ctx_.device()));
    const int slot = static_cast<int>(submitted_ % Context::kSlots);
    if (pending_[slot].active) collect(slot, out);
    // Device pictures whose copy into the ring is done go back to their
    // owner (a decoder's pool) without waiting for the frame's kernels.
    for (int s = 0; s < Context::kSlots; ++s)
      if (!held_[s].empty() && ctx_.upload_done(s)) held_[s].clear();
    const DeviceFrame& frame = ctx_.upload_inputs(reference, distorted, index, slot);
    for (const GpuInput* in : {&reference, &distorted})
      if (in->device) held_[slot].push_back(in->device->owner);
    enqueue_all(frame, slot, index);
  }

  void drain(FeatureCollector& out) override {
    VQE_CUDA_CHECK(cudaSetDevice(ctx_.device()));
    const long long first = submitted_ > Context::kSlots ? submitted_ - Context::kSlots : 0;
    for (long long s = first; s < submitted_; ++s) {
      const int slot = static_cast<int>(s % Context::kSlots);
      if (pending_[slot].active) collect(slot, out);
    }
  }

  void finish(FeatureCollector& out) override {
    drain(out);
    for (auto& e : extractors_) e->flush(out);
  }

  unsigned collected_frames() const override { return collected_; }

  bool needs_chroma() const override { return chroma_; }

  bool streams_from_registered() const override { return true; }

  void wait_uploaded(unsigned index) override {
    // A frame leaves the ring only after its slot's work (which waits for
    // its upload) is done: only the last kSlots frames may still upload.
    if (static_cast<long long>(index) + Context::kSlots < submitted_) return;
    VQE_CUDA_CHECK(cudaSetDevice(ctx_.device()));
    ctx_.wait_upload(static_cast<int>(index % Context::kSlots));
  }

  unsigned lag() const override {
    unsigned lag = 0;
    for (const auto& e : extractors_) lag = std::max(lag, e->lag());
    return lag;
  }

  void set_upload_enabled(bool enabled) override { upload_ = enabled; }
  void set_concurrent_frames(bool enabled) override { concurrent_ = enabled; }

  void preload(const std::vector<std::pair<const Picture*, const Picture*>>& frames) override {
    VQE_CUDA_CHECK(cudaSetDevice(ctx_.device()));
    preloaded_.clear();
    preloaded_.reserve(frames.size());
    for (const auto& [ref, dist] : frames) preloaded_.push_back(ctx_.make_resident(*ref, *dist));
  }

  void submit_preloaded(std::size_t i, unsigned index, FeatureCollector& out) override {
    VQE_CUDA_CHECK(cudaSetDevice(ctx_.device()));
    const int slot = static_cast<int>(submitted_ % Context::kSlots);
    if (pending_[slot].active) collect(slot, out);
    const DeviceFrame& frame = ctx_.use_resident(preloaded_.at(i), index, slot);
    enqueue_all(frame, slot, index);
  }

  void register_host(std::span<const Picture* const> pictures) override {
    ctx_.register_host(pictures);
  }
  void unregister_host(const Picture& picture) override { ctx_.unregister_host(picture); }

  void enable_kernel_timing(bool enabled) override {
    if (enabled && timer_start_.empty()) {
      const std::size_t n = extractors_.size() * Context::kSlots;
      timer_start_.resize(n);
      timer_stop_.resize(n);
      for (std::size_t k = 0; k < n; ++k) {
        VQE_CUDA_CHECK(cudaEventCreate(&timer_start_[k]));
        VQE_CUDA_CHECK(cudaEventCreate(&timer_stop_[k]));
      }
    }
    if (enabled) times_ms_.assign(extractors_.size(), 0.0);
    timing_ = enabled;
  }

  std::vector<std::pair<std::string, double>> kernel_times_ms() const override {
    std::vector<std::pair<std::string, double>> out;
    for (std::size_t i = 0; i < times_ms_.size(); ++i)
      out.emplace_back(timer_names_[i], times_ms_[i]);
    return out;
  }

  std::size_t device_bytes() const override { return ctx_.pool().device_bytes(); }
  std::size_t pinned_host_bytes() const override { return ctx_.pool().host_bytes(); }
  std::string device_name() const override { return describe_device(ctx_.device()); }

 private:
  struct Pending {
    bool active = false;
    unsigned index = 0;
    std::vector<char> ran;  // per extractor: enqueued for this frame
    bool timed = false;     // timer events recorded for this frame
  };

  void enqueue_all(const DeviceFrame& frame, int slot, unsigned index) {
    Pending& p = pending_[slot];
    p.index = index;
    p.timed = timing_;
    const bool scored = index % subsample_ == 0;
    for (std::size_t i = 0; i < extractors_.size(); ++i) {
      p.ran[i] = scored || extractors_[i]->temporal();
      if (!p.ran[i]) continue;
      const std::size_t t = static_cast<std::size_t>(slot) * extractors_.size() + i;
      ctx_.select_stream(slot, concurrent_ && extractors_[i]->concurrent_frames());
      if (timing_) VQE_CUDA_CHECK(cudaEventRecord(timer_start_[t], ctx_.stream()));
      extractors_[i]->enqueue(frame);
      if (timing_) VQE_CUDA_CHECK(cudaEventRecord(timer_stop_[t], ctx_.stream()));
    }
    ctx_.end_frame(slot);
    p.active = true;
    ++submitted_;
  }

  void collect(int slot, FeatureCollector& out) {
    ctx_.wait_slot(slot);
    Pending& p = pending_[slot];
    if (p.timed && timing_)
      for (std::size_t i = 0; i < extractors_.size(); ++i) {
        if (!p.ran[i]) continue;
        const std::size_t t = static_cast<std::size_t>(slot) * extractors_.size() + i;
        float ms = 0;
        VQE_CUDA_CHECK(cudaEventElapsedTime(&ms, timer_start_[t], timer_stop_[t]));
        times_ms_[i] += ms;
      }
    held_[slot].clear();  // its upload is done
    for (std::size_t i = 0; i < extractors_.size(); ++i)
      if (p.ran[i]) extractors_[i]->collect(slot, p.index, out);
    p.active = false;
    ++collected_;  // slots are collected in frame order
  }

  Context ctx_;
  unsigned subsample_;
  bool upload_ = true;
  bool concurrent_ = true;
  std::vector<std::unique_ptr<CudaExtractor>> extractors_;
  std::array<Pending, Context::kSlots> pending_{};
  // Per ring slot: owners of the device pictures its upload copies from,
  // held until that copy has completed.
  std::array<std::vector<std::shared_ptr<const void>>, Context::kSlots> held_;
  long long submitted_ = 0;
  unsigned collected_ = 0;
  bool chroma_ = false;
  std::vector<DeviceFrame> preloaded_;
  std::vector<std::string> timer_names_;
  bool timing_ = false;
  std::vector<cudaEvent_t> timer_start_, timer_stop_;  // [slot][extractor]
  std::vector<double> times_ms_;
};

}  // namespace

GpuBenchHooks& bench_hooks(GpuJob& job) { return dynamic_cast<GpuJobImpl&>(job); }

std::unique_ptr<GpuJob> make_gpu_job(int device, unsigned subsample) {
  return std::make_unique<GpuJobImpl>(device, subsample);
}

}  // namespace vqe::cuda
