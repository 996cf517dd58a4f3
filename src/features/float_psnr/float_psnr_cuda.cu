// SPDX-License-Identifier: BSD-2-Clause
// float_psnr on the GPU: the CPU's float terms summed exactly as integers on
// the device (see FloatSquaredError), the score on the host (float_psnr_score.h).

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "backend/cuda/plane_reduce.cuh"
#include "features/float_psnr/float_psnr_score.h"

namespace vqe::cuda {
namespace {

using u64 = unsigned long long;

// The CPU forms each term as a float: diff = ref/s − dist/s (exact),
// diff² rounded to float (exact up to 12 bits), and adds the terms in double
// in raster order. Every term times s² is an integer below 2^32, so the
// terms are summed here exactly as integers q = diff²·s²; as long as the
// total stays below 2^53 every partial sum of the CPU's double loop is exact
// too, and Σq / s² is the CPU's sum bit for bit. (Above 2^53, reachable only
// at 16 bits with very large errors, the two differ by rounding: < 1e-15
// relative.)
struct FloatSquaredError {
  float scale;    // 2^(bpc−8) as float (1 at 8 bits)
  double scale2;  // scale²
  template <typename T>
  __device__ void operator()(T r, T d, u64 (&acc)[1]) const {
    const float rf = static_cast<float>(r) / scale + 0.0f;
    const float df = static_cast<float>(d) / scale + 0.0f;
    const float diff = rf - df;
    const float sq = diff * diff;
    acc[0] += static_cast<u64>(static_cast<double>(sq) * scale2);
  }
};

class CudaFloatPsnr final : public CudaExtractor {
 public:
  explicit CudaFloatPsnr(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    scorer_.init(format);
    ctx_ = &ctx;
    scale_ = static_cast<float>(1 << (format.bit_depth - 8));
    sums_.init(ctx, format.height, 1);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }
  bool concurrent_frames() const override { return true; }

  void enqueue(const DeviceFrame& f) override {
    cudaStream_t s = ctx_->stream();
    const FloatSquaredError op{scale_, static_cast<double>(scale_) * scale_};
    if (f.bpc == 8)
      pair_reduce<std::uint8_t, 1>(f.ref[0], f.dist[0], op, sums_.partials_of(f.slot),
                                   sums_.out_of(f.slot), s);
    else
      pair_reduce<std::uint16_t, 1>(f.ref[0], f.dist[0], op, sums_.partials_of(f.slot),
                                    sums_.out_of(f.slot), s);
    sums_.read_back(f.slot, 1, s);
  }

  void collect(int slot, unsigned index, FeatureCollector& out) override {
    const double scale2 = static_cast<double>(scale_) * scale_;
    scorer_.emit(index, static_cast<double>(sums_.host_of(slot)[0]) / scale2, out);
  }

 private:
  float_psnr::Scorer scorer_;
  Context* ctx_ = nullptr;
  float scale_ = 1;
  SlotSums sums_;
};

}  // namespace
}  // namespace vqe::cuda

std::unique_ptr<vqe::cuda::CudaExtractor> vqe::float_psnr::make_cuda(const ParsedOptions& options) {
  return std::make_unique<cuda::CudaFloatPsnr>(options);
}
