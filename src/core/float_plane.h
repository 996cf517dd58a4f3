// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Samples to floats on the 8-bit scale, the way libvmaf's float
/// extractors read pictures (libvmaf/src/feature/picture_copy.c).

#include "vqe/picture.h"

namespace vqe {

/// Converts row `y` of `plane` (width samples) into `out`: 8-bit samples as
/// they are, 10/12/16-bit samples divided in float by 2^(bpc−8) (exact: a
/// power of two), then `offset` added in float (libvmaf uses 0 or −128).
/// Accepts bit depths 8, 10, 12 and 16.
void row_to_float(const Plane& plane, int y, int bit_depth, float offset, float* out);

/// The whole plane, row by row, into `dst` (plane.width × plane.height
/// floats, dense: row stride = width floats).
void plane_to_float(const Plane& plane, int bit_depth, float offset, float* dst);

}  // namespace vqe
