// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file copy_picture() (vqe/picture.h) in parts, for the library's own use.

#include <string>

#include "vqe/picture.h"

namespace vqe {

/// Throws copy_picture()'s vqe::Error (naming `what`) unless `source` is
/// `target`'s format.
void check_picture_format(const VideoFormat& source, const Picture& target,
                          const std::string& what);

/// copy_picture() for the first `planes` planes of `source` (clamped to its
/// planes); the others of `target` stay as they were. Same checks.
void copy_planes(const PictureView& source, Picture& target, int planes, const std::string& what);

}  // namespace vqe
