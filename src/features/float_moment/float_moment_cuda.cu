// SPDX-License-Identifier: BSD-2-Clause
// float_moment on the GPU: exact Σx and Σx² of both luma planes in uint64
// (plane_reduce.cuh), normalised on the host as the CPU does (moment_score.h).

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "backend/cuda/plane_reduce.cuh"
#include "features/float_moment/moment_score.h"

namespace vqe::cuda {
namespace {

using u64 = unsigned long long;

struct Moments {
  template <typename T>
  __device__ void operator()(T r, T d, u64 (&acc)[4]) const {
    const u64 a = r, b = d;
    acc[0] += a;
    acc[1] += b;
    acc[2] += a * a;
    acc[3] += b * b;
  }
};

/// float_moment: exact Σx and Σx² of both luma planes in uint64.
class CudaFloatMoment final : public CudaExtractor {
 public:
  explicit CudaFloatMoment(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);
    ctx_ = &ctx;
    sums_.init(ctx, format.height, 4);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool concurrent_frames() const override { return true; }

  void enqueue(const DeviceFrame& f) override {
    cudaStream_t s = ctx_->stream();
    if (f.bpc == 8)
      pair_reduce<std::uint8_t, 4>(f.ref[0], f.dist[0], Moments{}, sums_.partials_of(f.slot),
                                   sums_.out_of(f.slot), s);
    else
      pair_reduce<std::uint16_t, 4>(f.ref[0], f.dist[0], Moments{}, sums_.partials_of(f.slot),
                                    sums_.out_of(f.slot), s);
    sums_.read_back(f.slot, 4, s);
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    const u64* v = sums_.host_of(slot);
    scorer_.emit(index, {v[0], v[2]}, {v[1], v[3]}, out);
  }

 private:
  moment::Scorer scorer_;
  Context* ctx_ = nullptr;
  SlotSums sums_;
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::moment::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaFloatMoment>(options);
}
