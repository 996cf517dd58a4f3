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
  bool read(Picture& picture) override { return read_planes(picture, format_.num_planes()); }
  bool skip(unsigned count) override;
  bool read_planes(Picture& picture, int planes) override;
  bool random_access() const override { return random_access_; }
  FrameAt read_at(unsigned index, Picture& picture, int planes) const override;
  void seek(unsigned index) override;
  unsigned frame_count_hint() const override;

 protected:
  VideoReader(std::string path, std::FILE* file);
  /// Consumes any per-frame header (Y4M "FRAME...\n"). Returns false at a
  /// clean end of file.
  virtual bool begin_frame() = 0;
  [[noreturn]] void fail(const std::string& what) const;

  /// Enables read_at() when the file is a regular file: frames start at
  /// `data_start` and each takes `frame_header` bytes (Y4M's FRAME line,
  /// 0 for raw) plus the frame's samples.
  void enable_random_access(long data_start, std::size_t frame_header);

  std::string path_;
  std::FILE* file_ = nullptr;
  VideoFormat format_{};
  unsigned frames_read_ = 0;

 private:
  void read_plane(Plane& plane, int plane_index);
  /// Native byte order, and every sample checked against the bit depth.
  void check_samples(Plane& plane, int plane_index, unsigned frame) const;
  std::uint64_t frame_offset(unsigned index) const;

  bool random_access_ = false;
  std::uint64_t file_size_ = 0;  // when random_access_
  long data_start_ = 0;
  std::size_t frame_header_ = 0;  // bytes of each FRAME line (with '\n')
};

}  // namespace vqe
