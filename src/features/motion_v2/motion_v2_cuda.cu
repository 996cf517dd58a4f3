// SPDX-License-Identifier: BSD-2-Clause
// CUDA twin of "motion_v2" (src/features/motion_v2/; definition after
// lusoris/vmaf integer_motion_v2.c at commit
// c2a3c7e0febd98a6831b9bfebe5e298e229b1244). Each frame's SAD against the
// previous reference frame, which stays resident on the device
// (Context::back(1)), is an exact uint64 computed by `motion`'s 3.2.0
// kernels (motion_sad.cuh: the same integers as motion_kernels.h); scores,
// motion2_v2 and motion3_v2 are formed on the host by the shared definition
// (motion_v2_score.h). Frames run concurrently (scratch per ring slot).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "features/motion/motion_sad.cuh"
#include "features/motion_v2/motion_v2_score.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

using u64 = unsigned long long;

class CudaMotionV2 final : public CudaExtractor {
 public:
  explicit CudaMotionV2(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);  // the refusals of every backend; a new video
    ctx_ = &ctx;
    format_ = format;
    const std::size_t n = static_cast<std::size_t>(format.width) * format.height;
    blocks_ = pair_reduce_blocks(format.height);
    if (!scorer_.force_zero()) {
      v_ = ctx.pool().alloc_n<int>(Context::kSlots * n);
      partials_ = ctx.pool().alloc_n<u64>(Context::kSlots * static_cast<std::size_t>(blocks_));
      d_sad_ = ctx.pool().alloc_n<u64>(Context::kSlots);
      h_sad_ = ctx.pool().host_alloc_n<u64>(Context::kSlots);
    }
    computed_ = ctx.pool().host_alloc_n<unsigned char>(Context::kSlots);
    frames_ = 0;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }
  unsigned lag() const override { return motion_v2::Scorer::lag(); }
  bool concurrent_frames() const override { return true; }

  void enqueue(const DeviceFrame& f) override {
    if (f.index != frames_)
      throw Error("motion_v2: frame " + std::to_string(f.index) +
                  " arrived out of order (expected frame " + std::to_string(frames_) + ")");
    ++frames_;
    computed_[f.slot] = 0;
    if (scorer_.force_zero() || f.index == 0) return;  // score 0, nothing to compute
    const DeviceFrame* prev = ctx_->back(1);
    if (!prev)
      throw Error("motion_v2 (CUDA): frame " + std::to_string(f.index - 1) +
                  " is not resident on the device");
    const std::size_t n = static_cast<std::size_t>(format_.width) * format_.height;
    int* v = v_ + static_cast<std::size_t>(f.slot) * n;
    u64* partials = partials_ + static_cast<std::size_t>(f.slot) * blocks_;
    u64* d_sad = d_sad_ + f.slot;
    cudaStream_t s = ctx_->stream();
    if (f.bpc == 8)
      enqueue_difference_sad<std::uint8_t>(prev->ref[0], f.ref[0], f.bpc, v, partials, blocks_,
                                           d_sad, s);
    else
      enqueue_difference_sad<std::uint16_t>(prev->ref[0], f.ref[0], f.bpc, v, partials, blocks_,
                                            d_sad, s);
    VQE_CUDA_CHECK(
        cudaMemcpyAsync(h_sad_ + f.slot, d_sad, sizeof(u64), cudaMemcpyDeviceToHost, s));
    computed_[f.slot] = 1;
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    const double score =
        computed_[slot] ? scorer_.frame_score(h_sad_[slot], format_.width, format_.height) : 0.0;
    scorer_.emit(index, score, out);
  }

  // motion2_v2 and motion3_v2 of the last frame, as on the CPU.
  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  motion_v2::Scorer scorer_;  // names, refusals, scores (shared with the CPU)
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  int blocks_ = 1;                     // partials per slot
  int* v_ = nullptr;                   // [slot][w*h] vertical pass
  u64* partials_ = nullptr;            // [slot][blocks]
  u64* d_sad_ = nullptr;               // [slot]
  u64* h_sad_ = nullptr;               // pinned [slot]
  unsigned char* computed_ = nullptr;  // [slot]: a SAD was computed
  unsigned frames_ = 0;
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::motion_v2::make_cuda(
    const ParsedOptions& options) {
  return std::make_unique<cuda::CudaMotionV2>(options);
}
