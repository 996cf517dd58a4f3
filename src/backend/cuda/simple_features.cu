// SPDX-License-Identifier: BSD-2-Clause
// CUDA twins of psnr, float_moment and float_psnr. Each reduces exact
// integer sums on the device (plane_reduce.cuh) and finishes on the host
// with the CPU twin's formulas (src/features/psnr/psnr.cpp,
// float_moment/float_moment.cpp, float_psnr/float_psnr.cpp), so the values
// are bit-identical to the CPU's. Device scratch exists per ring slot, so
// frames run concurrently (concurrent_frames).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "backend/cuda/cuda_extractor.cuh"
#include "features/psnr/psnr_score.h"
#include "backend/cuda/plane_reduce.cuh"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

using u64 = unsigned long long;

/// Per-slot device scratch for pair_reduce(): partials and K outputs.
struct SlotSums {
  int blocks = 0, k = 0;
  u64* partials = nullptr;  // [slot][blocks * k]
  u64* out = nullptr;       // [slot][k]
  u64* host = nullptr;      // pinned [slot][k]

  void init(Context& ctx, int height, int k_values) {
    blocks = pair_reduce_blocks(height);
    k = k_values;
    partials = ctx.pool().alloc_n<u64>(static_cast<std::size_t>(Context::kSlots) * blocks * k);
    out = ctx.pool().alloc_n<u64>(static_cast<std::size_t>(Context::kSlots) * k);
    host = ctx.pool().host_alloc_n<u64>(static_cast<std::size_t>(Context::kSlots) * k);
  }
  u64* partials_of(int slot) const { return partials + static_cast<std::size_t>(slot) * blocks * k; }
  u64* out_of(int slot) const { return out + static_cast<std::size_t>(slot) * k; }
  const u64* host_of(int slot) const { return host + static_cast<std::size_t>(slot) * k; }
  void read_back(int slot, int count, cudaStream_t s) const {
    VQE_CUDA_CHECK(cudaMemcpyAsync(host + static_cast<std::size_t>(slot) * k, out_of(slot),
                                   count * sizeof(u64), cudaMemcpyDeviceToHost, s));
  }
};

// --- psnr --------------------------------------------------------------------

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
  explicit CudaPsnr(const ParsedOptions& opts)
      : twin_(make_cpu_twin("psnr", opts)), scorer_(opts) {}

  void init(const VideoFormat& format, Context& ctx) override {
    twin_->init(format);
    ctx_ = &ctx;
    scorer_.init(format);
    planes_ = scorer_.planes();
    // One partials area per plane, sized for the tallest plane.
    sums_.init(ctx, format.height, 3);
  }

  std::vector<std::string> feature_names() const override { return twin_->feature_names(); }
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
  std::unique_ptr<FeatureExtractor> twin_;
  psnr::Scorer scorer_;
  Context* ctx_ = nullptr;
  int planes_ = 1;
  SlotSums sums_;
};

// --- float_moment --------------------------------------------------------

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

/// float_moment: exact Σx and Σx² of both luma planes in uint64, divided on
/// the host by N·s and N·s² as the CPU twin does.
class CudaFloatMoment final : public CudaExtractor {
 public:
  explicit CudaFloatMoment(const ParsedOptions& opts)
      : twin_(make_cpu_twin("float_moment", opts)) {}

  void init(const VideoFormat& format, Context& ctx) override {
    twin_->init(format);
    names_ = twin_->feature_names();
    ctx_ = &ctx;
    const double n = static_cast<double>(format.width) * static_cast<double>(format.height);
    const double s = static_cast<double>(1 << (format.bit_depth - 8));
    first_divisor_ = n * s;
    second_divisor_ = n * s * s;
    sums_.init(ctx, format.height, 4);
  }

  std::vector<std::string> feature_names() const override { return twin_->feature_names(); }
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
    out.set(names_[0], index, static_cast<double>(static_cast<std::uint64_t>(v[0])) / first_divisor_);
    out.set(names_[1], index, static_cast<double>(static_cast<std::uint64_t>(v[1])) / first_divisor_);
    out.set(names_[2], index, static_cast<double>(static_cast<std::uint64_t>(v[2])) / second_divisor_);
    out.set(names_[3], index, static_cast<double>(static_cast<std::uint64_t>(v[3])) / second_divisor_);
  }

 private:
  std::unique_ptr<FeatureExtractor> twin_;
  std::vector<std::string> names_;
  Context* ctx_ = nullptr;
  double first_divisor_ = 1, second_divisor_ = 1;
  SlotSums sums_;
};

// --- float_psnr ------------------------------------------------------------

// The CPU twin forms each term as a float: diff = ref/s − dist/s (exact),
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
  explicit CudaFloatPsnr(const ParsedOptions& opts) : twin_(make_cpu_twin("float_psnr", opts)) {}

  void init(const VideoFormat& format, Context& ctx) override {
    twin_->init(format);
    name_ = twin_->feature_names().at(0);
    ctx_ = &ctx;
    format_ = format;
    switch (format.bit_depth) {
      case 8: peak_ = 255.0; psnr_max_ = 60.0; break;
      case 10: peak_ = 255.75; psnr_max_ = 72.0; break;
      case 12: peak_ = 255.9375; psnr_max_ = 84.0; break;
      default: peak_ = 255.99609375; psnr_max_ = 108.0; break;
    }
    scale_ = static_cast<float>(1 << (format.bit_depth - 8));
    sums_.init(ctx, format.height, 1);
  }

  std::vector<std::string> feature_names() const override { return twin_->feature_names(); }
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
    const int w = format_.width, h = format_.height;
    const double scale2 = static_cast<double>(scale_) * scale_;
    double noise = static_cast<double>(static_cast<std::uint64_t>(sums_.host_of(slot)[0])) / scale2;
    noise /= static_cast<double>(w * h);
    const double eps = 1e-10;
    const double floor_noise = noise > eps ? noise : eps;
    const double psnr = 10 * std::log10(peak_ * peak_ / floor_noise);
    out.set(name_, index, psnr < psnr_max_ ? psnr : psnr_max_);
  }

 private:
  std::unique_ptr<FeatureExtractor> twin_;
  std::string name_;
  Context* ctx_ = nullptr;
  VideoFormat format_{};
  double peak_ = 255, psnr_max_ = 60;
  float scale_ = 1;
  SlotSums sums_;
};

const bool kRegistered =
    register_cuda_extractor("psnr",
                            [](const ParsedOptions& o) -> std::unique_ptr<CudaExtractor> {
                              return std::make_unique<CudaPsnr>(o);
                            }) &&
    register_cuda_extractor("float_moment",
                            [](const ParsedOptions& o) -> std::unique_ptr<CudaExtractor> {
                              return std::make_unique<CudaFloatMoment>(o);
                            }) &&
    register_cuda_extractor("float_psnr",
                            [](const ParsedOptions& o) -> std::unique_ptr<CudaExtractor> {
                              return std::make_unique<CudaFloatPsnr>(o);
                            });

}  // namespace
}  // namespace vqe::cuda
