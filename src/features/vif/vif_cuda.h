// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Integer VIF on the GPU (nvcc only): the CUDA twin of
/// features/vif/integer_vif.{h,cpp}, bit-identical to that scalar reference
/// (which reproduces libvmaf 3.2.0's integer_vif.c). Kernels work on raw
/// device pointers; the `vif` CUDA extractor in vif_cuda.cu wraps them.
///
/// Per frame and scale (4 scales) one fused kernel loads an output tile with
/// its reflect-101 border into shared memory, runs the vertical then the
/// horizontal filter of the means and second moments with the reference's
/// rounding, forms the per-pixel VIF terms (the same double arithmetic, no
/// FMA) and the scale's next image (blur + 2x decimation). Every sum is
/// integer: per thread int64, a block sum in int64, added into the frame's
/// running int64 sums with 64-bit integer atomics (exact; the arrival order
/// cannot change an integer sum); the last block of scale 3 to finish moves
/// them to VifSums and clears them. Four launches per frame; nothing is
/// allocated per frame.

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "features/vif/integer_vif.h"

namespace vqe::cuda {

/// The exact integer sums of one frame, per scale, as the CPU reference
/// accumulates them (integer_vif.cpp `statistic`). Device result layout.
struct VifSums {
  /// [scale][0]: num_log, [1]: den_log, [2]: num_non_log, [3]: den_non_log.
  std::int64_t v[vif::kNumScales][4];
};

/// Converts the sums to the per-scale float numerator and denominator with
/// the CPU reference's vif::scale_value (host code). With `skip_scale0`, scale 0
/// is left at num = den = 0, as the CPU kernel leaves it.
vif::VifValues vif_values_from_sums(const VifSums& sums, bool skip_scale0);

/// Integer VIF of one luma size and bit depth on the GPU.
///
/// Shapes: luma planes of width x height samples (uint8_t at 8 bits,
/// uint16_t at 10/12/16 bits with values < 2^bpc), row pitch in bytes.
/// Minimum size 16x16 (vif::kMinWidth/kMinHeight), as the CPU reference.
class VifCudaKernel {
 public:
  /// `gain_limit`: vif_enhn_gain_limit (1..100); `skip_scale0`: do not
  /// compute scale 0's statistic (its sums stay 0).
  VifCudaKernel(double gain_limit, bool skip_scale0);
  ~VifCudaKernel();
  VifCudaKernel(const VifCudaKernel&) = delete;
  VifCudaKernel& operator=(const VifCudaKernel&) = delete;

  /// Device bytes of working memory needed for a width x height frame.
  static std::size_t scratch_bytes(int width, int height);

  /// Prepares for width x height luma at `bpc` (8, 10, 12, 16). `scratch`
  /// is device memory of at least scratch_bytes(width, height) bytes that
  /// outlives this object (256-byte aligned), or nullptr to let the kernel
  /// cudaMalloc and own it. Uploads the log2 table and clears the running
  /// sums (synchronously). Throws vqe::Error naming "vif" for a bad size or
  /// bit depth, or on a CUDA error.
  void init(int width, int height, int bpc, void* scratch = nullptr);

  /// Enqueues one frame pair on `stream` and leaves its sums in `d_sums`
  /// (device memory). Never synchronises; `ref`/`dis` must stay valid until
  /// the stream reaches this work. Frames must be enqueued on one stream (the
  /// working memory is shared by consecutive frames). Throws vqe::Error on a
  /// launch error.
  void enqueue(const void* ref, std::size_t ref_pitch, const void* dis, std::size_t dis_pitch,
               cudaStream_t stream, VifSums* d_sums) const;

  /// Timing aid: when `events` is non-null, enqueue() records events[s]
  /// after scale s's kernel (scale 3's includes handing the sums over).
  static constexpr int kLaunches = vif::kNumScales;
  void set_markers(cudaEvent_t* events) { markers_ = events; }

 private:
  double gain_limit_;
  bool skip_scale0_;
  int width_ = 0, height_ = 0, bpc_ = 0;
  int w_[vif::kNumScales] = {}, h_[vif::kNumScales] = {};
  int grid_x_[vif::kNumScales] = {}, grid_y_[vif::kNumScales] = {};
  cudaEvent_t* markers_ = nullptr;
  void* owned_ = nullptr;            // scratch when allocated here
  unsigned int* counter_ = nullptr;  // scale-3 blocks finished (the last one hands over)
  std::int64_t* accum_ = nullptr;    // VifSums layout: running sums, zero between frames
  std::uint16_t* log2_ = nullptr;    // entries 32767..65535 of the log2 table
  std::uint16_t* img_[vif::kNumScales][2] = {};  // scales 1..3: ref, dis (pitch = width)
};

}  // namespace vqe::cuda
