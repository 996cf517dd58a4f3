// SPDX-License-Identifier: BSD-2-Clause
// psnr on the GPU: Σ(ref−dist)² per plane, exact in uint64 (plane_reduce.cuh), and
// the CPU's PSNR, MSE and APSNR arithmetic on the host (psnr_score.h), so the
// values are bit-identical to the CPU's. Device scratch exists per ring slot.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "backend/cuda/plane_reduce.cuh"
#include "features/psnr/psnr_score.h"

namespace vqe::cuda {
namespace {

using u64 = unsigned long long;

struct SquaredError {
  template <typename T>
  __device__ void operator()(T r, T d, u64 (&acc)[1]) const {
    const int e = static_cast<int>(r) - static_cast<int>(d);
    acc[0] += static_cast<unsigned>(e * e);
  }
};

/// psnr on the GPU: Σ(ref−dist)² per plane in uint64, then the CPU's PSNR,
/// MSE and APSNR arithmetic on the host.
class CudaPsnr final : public CudaExtractor {
 public:
  explicit CudaPsnr(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    ctx_ = &ctx;
    scorer_.init(format);
    planes_ = scorer_.planes();
    // One partials area per plane, sized for the tallest plane.
    sums_.init(ctx, format.height, 3);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool temporal() const override { return true; }  // APSNR totals, kept on the host
  bool concurrent_frames() const override { return true; }
  bool needs_chroma() const override { return planes_ > 1; }

  void enqueue(const DeviceFrame& f) override {
    cudaStream_t s = ctx_->stream();
    for (int p = 0; p < planes_; ++p) {
      // Planes share the slot's partials: launches on one stream run in order.
      u64* out = sums_.out_of(f.slot) + p;
      if (f.bpc == 8)
        pair_reduce<std::uint8_t, 1>(f.ref[p], f.dist[p], SquaredError{}, sums_.partials_of(f.slot),
                                     out, s);
      else
        pair_reduce<std::uint16_t, 1>(f.ref[p], f.dist[p], SquaredError{},
                                      sums_.partials_of(f.slot), out, s);
    }
    sums_.read_back(f.slot, planes_, s);
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    for (int p = 0; p < planes_; ++p) scorer_.add(p, sums_.host_of(slot)[p], index, out);
  }

  void flush(FeatureCollector& out) override { scorer_.flush(out); }

 private:
  psnr::Scorer scorer_;
  Context* ctx_ = nullptr;
  int planes_ = 1;
  SlotSums sums_;
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::psnr::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaPsnr>(options);
}
