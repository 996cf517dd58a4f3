// SPDX-License-Identifier: BSD-2-Clause
// Stands in for libav.cpp in builds without FFmpeg's libraries
// (VQE_WITH_LIBAV off, or libavformat-dev & co. not installed).

#include "io/libav.h"
#include "vqe/error.h"
#include "vqe/io.h"

namespace vqe {

bool compressed_input_available() { return false; }

// Said by open_compressed_video() when asked; not added to other messages.
std::string compressed_input_problem() { return {}; }

bool probe_is_video(const std::uint8_t*, std::size_t) { return false; }

std::unique_ptr<FrameSource> open_compressed_video(const std::string& path, int) {
  return open_compressed_video(path, DecodeOptions{});
}

std::unique_ptr<FrameSource> open_compressed_video(const std::string& path,
                                                   const DecodeOptions&) {
  throw Error(path +
              ": not a Y4M file, and this build of VQE reads no compressed video (it was built "
              "without FFmpeg's libraries: install libavformat-dev, libavcodec-dev, "
              "libswscale-dev and libavutil-dev and rebuild)");
}

std::unique_ptr<FrameSource> scale_source(std::unique_ptr<FrameSource> source, int width,
                                          int height) {
  if (source && source->format().width == width && source->format().height == height)
    return source;
  throw Error("scaling needs FFmpeg's libswscale, which this build of VQE lacks (install "
              "libswscale-dev and rebuild)");
}

}  // namespace vqe
