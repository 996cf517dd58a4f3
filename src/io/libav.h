// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file What open_video() asks of the FFmpeg side (src/io/libav.cpp, or
/// libav_none.cpp in builds without FFmpeg's libraries).

#include <cstddef>
#include <cstdint>
#include <string>

namespace vqe {

/// True when libavformat recognises `data` (the start of a file, by content
/// only) as a container or stream format with enough confidence that it
/// would open it (probe score above AVPROBE_SCORE_MAX / 4). Always false
/// without FFmpeg's libraries.
bool probe_is_video(const std::uint8_t* data, std::size_t size);

/// Why compressed_input_available() is false when FFmpeg's shared libraries
/// failed to load (VQE_LIBAV_DLOPEN builds), else "".
std::string compressed_input_problem();

}  // namespace vqe
