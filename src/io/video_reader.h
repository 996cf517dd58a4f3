// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Streaming readers for Y4M and raw planar YUV files.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "vqe/io.h"
#include "vqe/picture.h"

namespace vqe {

/// The Y4M and raw YUV readers' common part: reads frames one at a time from
/// a stdio stream; never loads the whole file. Samples above 8 bits are
/// little-endian 16-bit words in the file.
class VideoReader : public FrameSource {
 public:
  ~VideoReader() override;
  const VideoFormat& format() const override { return format_; }
  const std::string& path() const override { return path_; }
  unsigned frames_read() const override { return frames_read_; }
  bool read(Picture& picture) override;
  bool skip(unsigned count) override;

 protected:
  VideoReader(std::string path, std::FILE* file);
  /// Consumes any per-frame header (Y4M "FRAME...\n"). Returns false at a
  /// clean end of file.
  virtual bool begin_frame() = 0;
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  std::FILE* file_ = nullptr;
  VideoFormat format_{};
  unsigned frames_read_ = 0;

 private:
  void read_plane(Plane& plane, int plane_index);
};

}  // namespace vqe
