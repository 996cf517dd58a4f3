// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file CUDA runtime pieces shared by every CUDA extractor: error checks,
/// the job's memory pool, frame pairs on the device and the per-job Context.
/// nvcc only (include from .cu files).

#include <cuda_runtime.h>

#include <array>
#include <span>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/gpu_job.h"
#include "vqe/picture.h"

namespace vqe::cuda {

/// Throws vqe::Error("CUDA error in <call> (<file>:<line>): <message>").
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* call, const char* file, int line);

/// Checks a CUDA runtime call; on failure throws vqe::Error naming the call
/// and CUDA's message. After a kernel launch use
/// VQE_CUDA_CHECK(cudaGetLastError()).
#define VQE_CUDA_CHECK(call)                                                      \
  do {                                                                            \
    const cudaError_t vqe_cuda_err_ = (call);                                     \
    if (vqe_cuda_err_ != cudaSuccess)                                             \
      ::vqe::cuda::throw_cuda_error(vqe_cuda_err_, #call, __FILE__, __LINE__);    \
  } while (0)

/// Job-lifetime memory: device memory (bump-allocated from 64 MiB chunks;
/// larger requests get their own allocation) and pinned host memory. Allocated
/// in init(), but for each ring slot's pinned staging, made at the slot's
/// first upload from memory that is not page-locked; everything is freed when
/// the job ends. Not thread-safe.
class DevicePool {
 public:
  DevicePool() = default;
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  /// `bytes` of device memory aligned to `align` (a power of two <= 256).
  /// Contents are undefined. Throws vqe::Error when cudaMalloc fails.
  void* alloc(std::size_t bytes, std::size_t align = 256);
  template <class T>
  T* alloc_n(std::size_t n) {
    return static_cast<T*>(alloc(n * sizeof(T), 256));
  }
  /// `bytes` of pinned (page-locked) host memory, zeroed.
  void* host_alloc(std::size_t bytes);
  template <class T>
  T* host_alloc_n(std::size_t n) {
    return static_cast<T*>(host_alloc(n * sizeof(T)));
  }
  /// Device bytes reserved (chunks included) and pinned host bytes.
  std::size_t device_bytes() const { return device_bytes_; }
  std::size_t host_bytes() const { return host_bytes_; }

 private:
  struct Chunk {
    std::uint8_t* base = nullptr;
    std::size_t size = 0, used = 0;
  };
  std::vector<Chunk> chunks_;
  std::vector<void*> host_;
  std::size_t device_bytes_ = 0, host_bytes_ = 0;
};

/// One plane on the device: `width` x `height` samples (uint8_t at 8 bits,
/// uint16_t above), rows `pitch` BYTES apart (a multiple of 256).
struct DevicePlane {
  const void* data = nullptr;
  std::size_t pitch = 0;
  int width = 0, height = 0;

  template <class T>
  __host__ __device__ const T* row(int y) const {
    return reinterpret_cast<const T*>(static_cast<const std::uint8_t*>(data) +
                                      static_cast<std::size_t>(y) * pitch);
  }
};

/// A reference/distorted pair on the device. Luma is plane 0; planes 1 and
/// 2 exist only when num_planes == 3 (the job uploads chroma when an
/// extractor asks for it through CudaExtractor::needs_chroma()).
struct DeviceFrame {
  unsigned index = 0;  ///< frame index in the video
  int slot = 0;        ///< ring slot, 0 .. Context::kSlots-1
  int bpc = 8;         ///< 8, 10, 12 or 16
  int num_planes = 1;  ///< planes uploaded: 1 or 3
  DevicePlane ref[3], dist[3];
};

/// Per-job CUDA state shared by all CUDA extractors of the job: the device,
/// the streams, the memory pool and the ring of frame pairs on the device
/// (the current one and the kHistory before it stay resident while an
/// extractor's enqueue() runs).
///
/// Streams: uploads run on a copy stream; each ring slot has a compute
/// stream (used by extractors whose concurrent_frames() is true, so up to
/// kSlots frames' kernels overlap); all other extractors share one serial
/// stream, in frame order. A slot's frame is complete when both are.
class Context {
 public:
  /// Frame pairs in flight: uploads of frame i+1.. overlap kernels of frame
  /// i, and results of frame i are collected when its slot is reused.
  static constexpr int kSlots = 8;
  /// Earlier frames guaranteed resident during enqueue(): back(1), back(2).
  static constexpr int kHistory = 2;

  /// Selects `device`, creates the streams and events. Throws vqe::Error.
  explicit Context(int device);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  int device() const { return device_; }
  /// The stream an extractor enqueues ALL its work on, valid during its
  /// enqueue(): the frame's slot stream for extractors whose
  /// concurrent_frames() is true, else the serial stream.
  cudaStream_t stream() const { return active_; }
  /// The serial stream (non-concurrent extractors' work, frames in order).
  cudaStream_t serial_stream() const { return serial_; }
  /// The copy stream uploads run on (the Context's own business).
  cudaStream_t copy_stream() const { return copy_; }
  const VideoFormat& format() const { return format_; }
  DevicePool& pool() { return pool_; }
  const DevicePool& pool() const { return pool_; }

  /// The frame pair `k` frames before the current one (1 <= k <= kHistory),
  /// or nullptr when it does not exist (start of the video). Valid during
  /// enqueue().
  const DeviceFrame* back(int k) const;
  /// back(1).
  const DeviceFrame* previous() const { return back(1); }

  // --- used by GpuJob -----------------------------------------------------
  /// Allocates the frame ring for `format` (each slot's pinned staging at
  /// its first upload from memory that is not page-locked)
  /// (`chroma`: upload planes 1 and 2 too).
  void init(const VideoFormat& format, bool chroma);
  /// Uploads the pair into `slot` on the copy stream (from page-locked
  /// pictures directly, else through the slot's pinned staging); the slot's
  /// streams wait for the upload. `upload` false leaves the device slot as
  /// it is. Returns the device frame.
  const DeviceFrame& upload(const Picture& ref, const Picture& dist, unsigned index, int slot,
                            bool upload);
  /// As upload(), for sides in host memory (as upload() copies them) or in
  /// device memory (GpuInput::device: on this device, the job's format, at
  /// least the planes uploaded; copied device to device). Throws vqe::Error
  /// for a device picture that does not fit.
  const DeviceFrame& upload_inputs(const GpuInput& ref, const GpuInput& dist, unsigned index,
                                   int slot);
  /// True once the upload into ring slot `slot` has completed (no wait).
  bool upload_done(int slot) const;
  /// Makes `resident` (a pair made by make_resident) the frame in `slot`
  /// without any copy; history (back(k)) then refers to it as well.
  const DeviceFrame& use_resident(const DeviceFrame& resident, unsigned index, int slot);
  /// Allocates device planes from the pool and uploads the pair
  /// synchronously (outside the hot path): frames "already on the device".
  DeviceFrame make_resident(const Picture& ref, const Picture& dist);
  /// Page-locks the picture's planes that upload() copies (after init():
  /// luma only unless chroma is needed; cudaHostRegister) so that upload()
  /// copies from them directly, skipping the staging copy. The picture must
  /// stay alive and unchanged until unregister_host() (or the job's end).
  void register_host(std::span<const Picture* const> pictures);
  void unregister_host(const Picture& picture);
  /// Selects what stream() returns for the following enqueue() of `slot`'s
  /// frame: its slot stream (concurrent) or the serial stream.
  void select_stream(int slot, bool concurrent) { active_ = concurrent ? slot_[slot] : serial_; }
  /// Joins the slot's work on both streams and records its end.
  void end_frame(int slot);
  /// Blocks until everything enqueued for `slot` has completed.
  void wait_slot(int slot);
  /// Blocks until the upload into ring slot `slot` has completed.
  void wait_upload(int slot);

 private:
  bool is_registered(const Plane& plane) const;

  int device_ = 0;
  cudaStream_t serial_ = nullptr, copy_ = nullptr, active_ = nullptr;
  std::array<cudaStream_t, kSlots> slot_{};  // one compute stream per ring slot
  std::array<cudaEvent_t, kSlots> uploaded_{}, done_{}, serial_done_{};
  VideoFormat format_{};
  int planes_ = 1;
  DevicePool pool_;
  std::array<DeviceFrame, kSlots> frames_{};   // what each slot holds now
  std::array<DeviceFrame, kSlots> buffers_{};  // the slot's own device planes
  std::array<std::uint8_t*, kSlots> staging_{};  // pinned: ref planes, then dist planes
  std::size_t staging_bytes_ = 0;                 // of each slot's staging
  std::array<bool, kSlots> valid_{};
  long long current_seq_ = -1;  // submission number of the current frame
  std::vector<std::pair<const std::uint8_t*, const std::uint8_t*>> registered_;  // [begin, end)
};

}  // namespace vqe::cuda
