// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Streaming readers for Y4M and raw planar YUV files.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "vqe/picture.h"

namespace vqe {

/// Shape of a headerless .yuv file, given on the command line (-w -h -b -p).
struct RawVideoParams {
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  ChromaFormat chroma = ChromaFormat::k420;
};

/// Reads frames one at a time; never loads the whole file. Samples above 8
/// bits are little-endian 16-bit words in the file.
class VideoReader {
 public:
  virtual ~VideoReader();
  /// Format of every frame in the file.
  const VideoFormat& format() const { return format_; }
  const std::string& path() const { return path_; }
  /// Frames returned so far (including skipped ones).
  unsigned frames_read() const { return frames_read_; }

  /// Reads the next frame into `picture` (re-allocated only if its format
  /// differs). Returns false at a clean end of file. Throws vqe::Error naming
  /// the file and frame on a truncated frame, a malformed FRAME header, or a
  /// sample above the bit depth's maximum.
  bool read(Picture& picture);
  /// Skips `count` frames. Returns false if the file ended first.
  bool skip(unsigned count);

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

/// Opens a video. `raw` == nullptr means a Y4M file (header parsed from the
/// file); otherwise the file is read as raw planar YUV of that shape.
/// Throws vqe::Error if the file cannot be opened, is empty, has a malformed
/// or interlaced Y4M header, or an unsupported format.
std::unique_ptr<VideoReader> open_video(const std::string& path, const RawVideoParams* raw);

/// Reads a Y4M stream from an open file (taking ownership of `file`);
/// `name` is used in messages. Used by open_video and the fuzz target.
std::unique_ptr<VideoReader> open_y4m_stream(std::FILE* file, const std::string& name);

/// Parses a Y4M stream header line (without the trailing newline) into a
/// format. Exposed for tests and fuzzing. Throws vqe::Error with `path` in
/// the message on unknown colour spaces, interlacing, or bad sizes.
VideoFormat parse_y4m_header(const std::string& header, const std::string& path);

/// Parses a pixel format name as libvmaf's -p option: 400, 420, 422, 444.
ChromaFormat parse_chroma_format(const std::string& text);

}  // namespace vqe
