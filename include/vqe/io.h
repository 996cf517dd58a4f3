// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Frame sources: where a job's frames come from (Y4M and raw planar
/// YUV files here; compressed files where the build has FFmpeg's
/// libraries), and the format helpers users need around them.

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "vqe/picture.h"

namespace vqe {

/// A video read frame by frame (never loaded whole). Not thread-safe: one
/// reader thread at a time.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  /// Format of every frame.
  virtual const VideoFormat& format() const = 0;
  /// The name used in messages (the path given, "-" for standard input).
  virtual const std::string& path() const = 0;
  /// Frames returned so far (including skipped ones).
  virtual unsigned frames_read() const = 0;
  /// Reads the next frame into `picture` (re-allocated only if its format
  /// differs). Returns false at a clean end of the video. Throws vqe::Error
  /// naming the file and frame on a truncated or malformed frame, or a
  /// sample above the bit depth's maximum.
  virtual bool read(Picture& picture) = 0;
  /// Skips `count` frames. Returns false if the video ended first.
  virtual bool skip(unsigned count) = 0;

  /// As read(), but only the first `planes` planes (1: luma only); the other
  /// planes are skipped in the file and left as they were in `picture`.
  /// The default reads every plane.
  virtual bool read_planes(Picture& picture, int planes) {
    (void)planes;
    return read(picture);
  }

  /// True when read_at() works: a regular file whose frames have one size
  /// and lie at computable offsets (raw YUV; Y4M while its FRAME lines keep
  /// the first one's length).
  virtual bool random_access() const { return false; }

  /// What read_at() found.
  enum class FrameAt {
    kRead,       ///< the frame was read
    kEnd,        ///< the file ends before that frame
    kIrregular,  ///< its FRAME line differs in length: read on with seek() + read()
  };
  /// Reads frame `index` of the file (counted from its first frame, not from
  /// frames_read()), its first `planes` planes, into `picture` (re-allocated
  /// only if its format differs). May be called from several threads at
  /// once; does not move read()'s position. Throws vqe::Error as read()
  /// does. Only when random_access(); the default throws.
  virtual FrameAt read_at(unsigned index, Picture& picture, int planes) const;
  /// Makes read() continue at frame `index` of the file, e.g. where read_at()
  /// answered kIrregular (every frame before it being regular). Only when
  /// random_access(); the default throws.
  virtual void seek(unsigned index);
};

/// Shape of a headerless .yuv file, given on the command line (-w -h -b -p).
struct RawVideoParams {
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  ChromaFormat chroma = ChromaFormat::k420;
};

/// Opens a video file. `raw` == nullptr means a Y4M file (header parsed from
/// the file); otherwise the file is read as raw planar YUV of that shape
/// (samples above 8 bits are little-endian 16-bit words). Throws vqe::Error
/// if the file cannot be opened, is empty, has a malformed or interlaced Y4M
/// header, or an unsupported format.
std::unique_ptr<FrameSource> open_video(const std::string& path, const RawVideoParams* raw);

/// Reads a Y4M stream from an open file (taking ownership of `file`);
/// `name` is used in messages.
std::unique_ptr<FrameSource> open_y4m_stream(std::FILE* file, const std::string& name);

/// Parses a Y4M stream header line (without the trailing newline) into a
/// format. Throws vqe::Error with `path` in the message on unknown colour
/// spaces, interlacing, or bad sizes.
VideoFormat parse_y4m_header(const std::string& header, const std::string& path);

/// Parses a pixel format name as libvmaf's -p option: 400, 420, 422, 444.
/// Throws vqe::Error for any other text.
ChromaFormat parse_chroma_format(const std::string& text);

}  // namespace vqe
