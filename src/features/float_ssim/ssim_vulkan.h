// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The Vulkan SSIM pipeline shared by float_ssim and float_ms_ssim
/// (float_ssim_vulkan.cpp, float_ms_ssim_vulkan.cpp), bit-identical to the
/// CPU's scalar reference (iqa_ssim.cpp). Vulkan builds only.
///
/// Per chunk of frames (grid z = frame): the decimations (ssim_decimate.comp,
/// one dispatch per level: float_ssim's box from the luma planes, or
/// MS-SSIM's 9×9 low-pass scale after scale), the Gaussian's horizontal pass
/// of every scale (ssim_hpass.comp, one dispatch), then per scale and frame
/// one workgroup for the vertical pass, the per-pixel terms and the CPU's
/// sequential double sums of the map (ssim_map_sum.comp, one dispatch). The
/// host reads the four sums per scale and divides them as the CPU does
/// (ssim::means_of_sums). A chunk is as many frames of the run as fit the
/// scratch budget (all 16 of a batch up to 1080p).

#include <cstdint>
#include <span>
#include <vector>

#include "backend/vulkan/runtime.h"

namespace vqe::vulkan {

/// The scales, their buffers and pipelines of one SSIM extractor.
class SsimPipeline {
 public:
  /// The scales SSIM runs at. Scale 0 is the luma plane, or (float_ssim
  /// with scale > 1) the plane decimated; every further scale is the
  /// previous one decimated (MS-SSIM), all with the same factor and kernel.
  struct Shape {
    std::vector<int> widths, heights;  ///< the working size of each scale
    /// Scale 0 is the luma plane itself (false: the plane decimated).
    bool scale0_is_plane = true;
    int factor = 2;                    ///< decimation factor
    int kernel_size = 0;               ///< decimation kernel side
    std::span<const float> kernel;     ///< kernel_size² taps, row-major
  };

  /// Makes the table, the scratch, the result buffer and the pipelines for
  /// `shape` on `ctx` (after Context::init). Throws vqe::Error when one
  /// frame's scratch exceeds the device's storage-buffer range.
  void create(Context& ctx, const Shape& shape);

  /// Records the dispatches of `run`, chunk by chunk.
  void record(const Run& run);

  /// The CPU's sums {Σ l·c·s, Σ l, Σ c, Σ s} over scale `scale`'s SSIM map
  /// for submission `seq` (its batch completed).
  void sums(std::uint64_t seq, int scale, double out[4]) const;

  /// Frames per chunk (at most the batch).
  unsigned chunk_frames() const { return chunk_; }

 private:
  Context* ctx_ = nullptr;
  int scales_ = 1;
  int levels_ = 0;  // decimations per frame
  std::vector<std::uint32_t> level_w_, level_h_;  // destination sizes
  std::uint32_t rows_ = 0;      // stacked rows of every scale (row-pass grid y)
  std::uint32_t max_out_w_ = 0;
  std::uint32_t passes_ = 1;    // ssim_map_sum dispatches per chunk of frames
  unsigned chunk_ = 1;
  Buffer table_, pyramid_, rowpass_, result_;
  const Pipeline *decimate_ = nullptr, *hpass_ = nullptr, *map_sum_ = nullptr;
  VkDescriptorSet decimate_set_ = VK_NULL_HANDLE, hpass_set_ = VK_NULL_HANDLE,
                  map_sum_set_ = VK_NULL_HANDLE;
};

}  // namespace vqe::vulkan
