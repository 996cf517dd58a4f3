// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Integer ADM on the GPU (nvcc only): the CUDA twin of
/// features/adm/integer_adm.{h,cpp}, bit-identical to that scalar reference
/// (which reproduces libvmaf 3.2.0's integer_adm.c). Kernels work on raw
/// device pointers; the `adm` CUDA extractor in adm_cuda.cu wraps them.
///
/// Per frame: one kernel per DWT level computes the db2 DWT of both pictures
/// (the reference's asymmetric border taps) and, inside the reference's work
/// region, the decoupling and the CSF masker terms (all pointwise); then one
/// launch has a block per scored row of every level for the denominator,
/// numerator and AIM sums (each row summed exactly in 64 bits, then rounded
/// and shifted as the reference does, then added with 64-bit integer atomics
/// into the frame's sums, which the last block to finish hands over). The
/// host turns the 36 integers into floats with the reference's own
/// float/double expressions (result()).

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "features/adm/integer_adm.h"

namespace vqe::cuda {

/// The exact integer sums of one frame (device result layout): the CPU's
/// adm::LevelSums, per level and orientation, each already summed over rows
/// after the reference's per-row rounding.
using AdmSums = adm::LevelSums;

/// Integer ADM of one luma size and bit depth on the GPU.
///
/// Shapes: luma planes of width x height samples (uint8_t at 8 bits,
/// uint16_t at 10/12/16 bits), row pitch in bytes. Refuses what the CPU
/// reference refuses (width or height below 33, viewing conditions, bit
/// depth) with the same vqe::Error text (adm::check_format).
class AdmCudaKernel {
 public:
  AdmCudaKernel(int width, int height, int bpc, const adm::AdmParams& params);
  ~AdmCudaKernel();
  AdmCudaKernel(const AdmCudaKernel&) = delete;
  AdmCudaKernel& operator=(const AdmCudaKernel&) = delete;

  /// Device bytes of working memory for this size.
  std::size_t scratch_bytes() const { return scratch_bytes_; }

  /// Binds device working memory of at least scratch_bytes() bytes (256-byte
  /// aligned, outliving this object), or allocates it when `scratch` is
  /// nullptr, and clears the running sums (synchronously). Call once before
  /// enqueue().
  void bind(void* scratch = nullptr);

  /// Enqueues one frame pair on `stream`; the frame's sums land in `d_sums`
  /// (device memory). Never synchronises. Frames must be enqueued on one
  /// stream (the working memory is shared by consecutive frames).
  void enqueue(const void* ref, std::size_t ref_pitch, const void* dis, std::size_t dis_pitch,
               cudaStream_t stream, AdmSums* d_sums) const;

  /// Timing aid: when `events` is non-null, enqueue() records events[level]
  /// after each level's kernel and events[kLaunches - 1] after the row sums
  /// and the hand-over.
  static constexpr int kLaunches = adm::kNumScales + 1;
  void set_markers(cudaEvent_t* events) { markers_ = events; }

  /// The reference's per-frame result from the sums (the CPU's
  /// adm::AdmScorer).
  adm::AdmResult result(const AdmSums& sums) const;

 private:
  struct Level {
    int in_w, in_h;   // DWT input size
    int w, h;         // band size
    int stride;       // band row stride in samples
    // Score region (rows top..bottom-1, cols left..right-1) and work region.
    int top, bottom, left, right;
    int wtop, wbottom, wleft, wright;
    // Per-row rounding of the sums.
    std::uint32_t den_shift;  // level 0: from the area; levels 1-3: shift_accum
    std::uint64_t den_add;
    std::uint32_t den_shift_sq, den_shift_cub;  // levels 1-3 only
    std::uint64_t den_add_sq, den_add_cub;
    std::uint32_t row_shift;
    std::int64_t row_add;
    std::uint32_t cub_shift[3];
    std::int64_t cub_add[3];
  };

  int width_, height_, bpc_;
  adm::AdmParams params_;
  std::uint16_t w0_fixed_[3];
  std::uint32_t wn_fixed_[adm::kNumScales][3];
  float cos_1deg_sq_;
  Level lv_[adm::kNumScales];
  std::optional<adm::AdmScorer> scorer_;
  std::size_t band0_, band1_;  // samples per band at level 0 / levels 1-3
  std::size_t scratch_bytes_ = 0;

  // Device buffers (inside the scratch): level 0 bands are int16, levels
  // 1-3 int32, all with the level's stride.
  struct Buffers {
    void* ll[adm::kNumScales][2];   // LL band of the reference, of the distorted
    void* ref[adm::kNumScales][3];  // reference h, v, d
    void* rst[adm::kNumScales][3];  // restored h, v, d
    void* add[adm::kNumScales][3];  // additive h, v, d
    std::int32_t* mask[adm::kNumScales][4];  // mask/centre of additive, of restored
  };
  Buffers buf_{};
  unsigned int* counter_ = nullptr;  // row-sum blocks finished (the last one hands over)
  AdmSums* accum_ = nullptr;         // running sums of the frame, zero between frames
  cudaEvent_t* markers_ = nullptr;
  void* owned_ = nullptr;
};

}  // namespace vqe::cuda
