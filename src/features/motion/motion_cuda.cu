// SPDX-License-Identifier: BSD-2-Clause
// CUDA twin of the integer "motion" extractor (src/features/motion/), both
// the libvmaf 3.2.0 definition and motion_legacy. The SAD of each frame is
// an exact uint64 computed on the device with the CPU kernels' filter,
// rounding and mirrors (motion_kernels.h); scores, motion2 and motion3 are
// then formed on the host exactly as motion.cpp does. The 3.2.0 definition
// reads the earlier raw frames kept on the device (Context::back) and runs
// frames concurrently; legacy mode keeps a ring of blurred frames and runs
// in frame order.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "backend/cuda/plane_reduce.cuh"
#include "features/motion/motion_sad.cuh"
#include "features/motion/motion_score.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

using u64 = unsigned long long;

// The legacy (3.0) mirror, folded until inside [0, n); reflect101 and the
// 3.2.0 SAD kernels are in motion_sad.cuh.
__device__ __forceinline__ int mirror_legacy(int i, int n) {
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

// Legacy blur, vertical pass (uint32, round to bpc bits, legacy mirror).
template <typename T>
__global__ void legacy_vertical(DevicePlane src, int bpc, std::uint16_t* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  const int w = src.width, h = src.height;
  if (x >= w) return;
  unsigned acc = 0;
#pragma unroll
  for (int k = 0; k < 5; ++k)
    acc += static_cast<unsigned>(kMotionFilter[k]) * src.row<T>(mirror_legacy(y - 2 + k, h))[x];
  out[static_cast<std::size_t>(y) * w + x] =
      static_cast<std::uint16_t>((acc + (1u << (bpc - 1))) >> bpc);
}

// Legacy blur, horizontal pass (round to 16 bits, legacy mirror).
__global__ void legacy_horizontal(const std::uint16_t* __restrict__ t, int w, int h,
                                  std::uint16_t* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= w) return;
  const std::uint16_t* row = t + static_cast<std::size_t>(y) * w;
  unsigned acc = 0;
#pragma unroll
  for (int k = 0; k < 5; ++k)
    acc += static_cast<unsigned>(kMotionFilter[k]) * row[mirror_legacy(x - 2 + k, w)];
  out[static_cast<std::size_t>(y) * w + x] = static_cast<std::uint16_t>((acc + (1u << 15)) >> 16);
}

struct AbsDiff {
  __device__ void operator()(std::uint16_t a, std::uint16_t b, u64 (&acc)[1]) const {
    const int d = static_cast<int>(a) - static_cast<int>(b);
    acc[0] += static_cast<unsigned>(d < 0 ? -d : d);
  }
};


class CudaMotion final : public CudaExtractor {
 public:
  explicit CudaMotion(const ParsedOptions& opts)
      : scorer_(opts), force_zero_(scorer_.force_zero()), legacy_(scorer_.legacy()) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);  // the refusals of every backend; a new video
    ctx_ = &ctx;
    format_ = format;
    const std::size_t n = static_cast<std::size_t>(format.width) * format.height;
    blocks_ = pair_reduce_blocks(format.height);
    const std::size_t slots = legacy_ ? 1 : Context::kSlots;  // legacy runs serially
    if (legacy_) {
      tmp16_ = ctx.pool().alloc_n<std::uint16_t>(n);
      blur_ = ctx.pool().alloc_n<std::uint16_t>(3 * n);
    } else {
      v_ = ctx.pool().alloc_n<int>(slots * n);
    }
    partials_ = ctx.pool().alloc_n<u64>(slots * blocks_);
    d_sad_ = ctx.pool().alloc_n<u64>(Context::kSlots);
    h_sad_ = ctx.pool().host_alloc_n<u64>(Context::kSlots);
    computed_ = ctx.pool().host_alloc_n<unsigned char>(Context::kSlots);
    frames_ = 0;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }
  unsigned lag() const override { return scorer_.lag(); }
  bool concurrent_frames() const override { return !legacy_; }

  void enqueue(const DeviceFrame& f) override {
    if (f.index != frames_)
      throw Error("motion: frame " + std::to_string(f.index) +
                  " arrived out of order (expected frame " + std::to_string(frames_) + ")");
    ++frames_;
    const unsigned step = scorer_.step();
    const bool compare = !force_zero_ && f.index >= step;
    computed_[f.slot] = 0;
    const int w = format_.width, h = format_.height;
    cudaStream_t s = ctx_->stream();
    const dim3 block(128), grid((w + 127) / 128, h);
    u64* d_sad = d_sad_ + f.slot;
    if (legacy_) {
      if (force_zero_) return;
      std::uint16_t* dst = blurred(f.index);
      if (f.bpc == 8)
        legacy_vertical<std::uint8_t><<<grid, block, 0, s>>>(f.ref[0], 8, tmp16_);
      else
        legacy_vertical<std::uint16_t><<<grid, block, 0, s>>>(f.ref[0], f.bpc, tmp16_);
      VQE_CUDA_CHECK(cudaGetLastError());
      legacy_horizontal<<<grid, block, 0, s>>>(tmp16_, w, h, dst);
      VQE_CUDA_CHECK(cudaGetLastError());
      if (!compare) return;
      const std::size_t pitch = static_cast<std::size_t>(w) * 2;
      const DevicePlane a{blurred(f.index - step), pitch, w, h}, b{dst, pitch, w, h};
      pair_reduce<std::uint16_t, 1>(a, b, AbsDiff{}, partials_, d_sad, s);
    } else {
      if (!compare) return;
      const DeviceFrame* prev = ctx_->back(static_cast<int>(step));
      if (!prev) throw Error("motion (CUDA): frame " + std::to_string(f.index - step) +
                             " is not resident on the device");
      int* v = v_ + f.slot * static_cast<std::size_t>(w) * h;
      u64* partials = partials_ + static_cast<std::size_t>(f.slot) * blocks_;
      if (f.bpc == 8)
        enqueue_difference_sad<std::uint8_t>(prev->ref[0], f.ref[0], f.bpc, v, partials, blocks_,
                                             d_sad, s);
      else
        enqueue_difference_sad<std::uint16_t>(prev->ref[0], f.ref[0], f.bpc, v, partials,
                                              blocks_, d_sad, s);
    }
    VQE_CUDA_CHECK(cudaMemcpyAsync(h_sad_ + f.slot, d_sad, sizeof(u64), cudaMemcpyDeviceToHost, s));
    computed_[f.slot] = 1;
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    const double score =
        computed_[slot] ? scorer_.frame_score(h_sad_[slot], format_.width, format_.height) : 0.0;
    scorer_.emit(index, score, out);
  }

  // motion2 and motion3 for every frame, as on the CPU.
  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  std::uint16_t* blurred(unsigned index) const {
    return blur_ + (index % 3) * static_cast<std::size_t>(format_.width) * format_.height;
  }

  motion::Scorer scorer_;  // names, per-frame scores, motion2/motion3 (shared with the CPU)
  bool force_zero_, legacy_;
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  int blocks_ = 1;                    // partials per slot
  int* v_ = nullptr;                  // [slot][w*h] vertical pass (3.2.0)
  std::uint16_t* tmp16_ = nullptr;    // legacy vertical pass
  std::uint16_t* blur_ = nullptr;     // legacy ring of 3 blurred frames
  u64* partials_ = nullptr;           // [slot][blocks]
  u64* d_sad_ = nullptr;              // [slot]
  u64* h_sad_ = nullptr;              // pinned [slot]
  unsigned char* computed_ = nullptr; // [slot]: a SAD was computed
  unsigned frames_ = 0;
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::motion::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaMotion>(options);
}
