// SPDX-License-Identifier: BSD-2-Clause
#include "core/float_plane.h"

#include <cstddef>
#include <cstdint>

namespace vqe {

void row_to_float(const Plane& plane, int y, int bit_depth, float offset, float* out) {
  if (bit_depth == 8) {
    const std::uint8_t* s = plane.row<std::uint8_t>(y);
    for (int x = 0; x < plane.width; ++x) out[x] = static_cast<float>(s[x]) + offset;
    return;
  }
  const float scale = static_cast<float>(1 << (bit_depth - 8));
  const std::uint16_t* s = plane.row<std::uint16_t>(y);
  for (int x = 0; x < plane.width; ++x) out[x] = static_cast<float>(s[x]) / scale + offset;
}

void plane_to_float(const Plane& plane, int bit_depth, float offset, float* dst) {
  for (int y = 0; y < plane.height; ++y)
    row_to_float(plane, y, bit_depth, offset, dst + static_cast<std::ptrdiff_t>(y) * plane.width);
}

}  // namespace vqe
