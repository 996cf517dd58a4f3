// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file DevicePicture: a picture in a CUDA device's memory, in VQE's planar
/// layout (what a hardware decoder's frame becomes: src/io/libav.cpp with
/// NVDEC), handed to a GPU job without passing through host memory.

#include <array>
#include <cstddef>
#include <memory>

#include "vqe/picture.h"

namespace vqe {

/// Planes of one picture in CUDA device memory (device pointers of the
/// CUDA runtime's primary context of `device`). The samples are as a
/// Picture's: uint8_t at 8 bits, native uint16_t below 2^bit_depth above,
/// plane p being format.plane_width(p) × format.plane_height(p) samples with
/// rows `pitch[p]` bytes apart. Only the first `planes` planes are filled (1:
/// luma only, when the consumer said it needs no more). The memory is valid,
/// and unchanged, while `owner` (or a copy of it) is held: a consumer keeps a
/// copy until the device has finished reading the planes.
struct DevicePicture {
  VideoFormat format{};
  int device = -1;  ///< CUDA device ordinal
  int planes = 0;   ///< planes filled, from plane 0
  std::array<const void*, 3> data{};
  std::array<std::size_t, 3> pitch{};  ///< bytes between rows, per plane
  std::shared_ptr<const void> owner;

  explicit operator bool() const { return planes > 0; }
};

}  // namespace vqe
