// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Streaming readers for Y4M and raw planar YUV input.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "io/byte_stream.h"
#include "vqe/io.h"
#include "vqe/picture.h"

namespace vqe {

/// Where an input's bytes come from, as open_video() found it: the stream,
/// the file's identity, and its size in bytes when it is a regular file that
/// reports one (0: unknown, e.g. a pipe or a /proc file). For a regular
/// file, also its descriptor (owned by `stream`) and the offset at which the
/// stream starts reading, for random access.
struct OpenedInput {
  std::unique_ptr<ByteStream> stream;
  std::optional<FileIdentity> identity;
  std::uint64_t size = 0;
  /// A regular file's descriptor, owned by `stream` (-1: not a regular file,
  /// or not read through a descriptor).
  int fd = -1;
  /// The file offset of the stream's first byte (standard input may be a
  /// file already partly read).
  std::uint64_t start = 0;
};

/// The Y4M and raw YUV readers' common part: reads frames one at a time from
/// a ByteStream; never loads the whole input. Samples above 8 bits are
/// little-endian 16-bit words in the input.
class VideoReader : public FrameSource {
 public:
  const VideoFormat& format() const override { return format_; }
  const std::string& path() const override { return path_; }
  unsigned frames_read() const override { return frames_read_; }
  bool read(Picture& picture) override { return read_planes(picture, format_.num_planes()); }
  bool skip(unsigned count) override;
  std::optional<FileIdentity> identity() const override { return identity_; }
  bool read_planes(Picture& picture, int planes) override;
  bool random_access() const override { return random_access_; }
  FrameAt read_at(unsigned index, Picture& picture, int planes) const override;
  void seek(unsigned index) override;
  unsigned frame_count_hint() const override;

 protected:
  VideoReader(std::string path, std::unique_ptr<ByteStream> stream,
              std::optional<FileIdentity> identity);
  /// Consumes any per-frame header (Y4M "FRAME...\n"). Returns false at a
  /// clean end of the input.
  virtual bool begin_frame() = 0;
  [[noreturn]] void fail(const std::string& what) const;
  /// fail() for frame `frame` cut short: "frame N is truncated (`where`)"
  /// and truncated_hint_.
  [[noreturn]] void fail_truncated(unsigned frame, const std::string& where) const;

  /// Enables read_at() and seek() when `input` is a regular file with a
  /// descriptor (OpenedInput::fd): frames start at byte `data_start` of the
  /// file and each takes `frame_header` bytes (Y4M's FRAME line, 0 for raw)
  /// plus the frame's samples.
  void enable_random_access(const OpenedInput& input, std::uint64_t data_start,
                            std::size_t frame_header);

  std::string path_;
  std::unique_ptr<ByteStream> stream_;
  std::optional<FileIdentity> identity_;
  VideoFormat format_{};
  unsigned frames_read_ = 0;
  /// Added to a truncated frame's message (raw input whose size is not a
  /// whole number of frames: its shape is likely wrong), else empty.
  std::string truncated_hint_;

 private:
  void read_plane(Plane& plane, int plane_index);
  /// Native byte order, and every sample checked against the bit depth.
  void check_samples(Plane& plane, int plane_index, unsigned frame) const;
  std::uint64_t frame_offset(unsigned index) const;

  bool random_access_ = false;
  int fd_ = -1;                  // when random_access_: the stream's descriptor (pread)
  std::uint64_t file_size_ = 0;  // when random_access_: bytes in the file
  std::uint64_t stream_start_ = 0;  // the file offset at which position() counts 0
  std::uint64_t data_start_ = 0;
  std::size_t frame_header_ = 0;  // bytes of each FRAME line (with '\n')
  // read_planes() reads a regular file's frames with read_at() (straight
  // into the picture, no copy out of stream_'s buffer) until a frame is not
  // where the first FRAME line's length puts it (`irregular_`); stream_ is
  // then moved to that frame (`stream_behind_`: it was not moved along).
  bool irregular_ = false;
  bool stream_behind_ = false;
};

/// Reads a Y4M input from `input` (header first). Throws vqe::Error on a bad
/// header or, for a sized input, one shorter than its header's first frame.
std::unique_ptr<FrameSource> make_y4m_reader(std::string path, OpenedInput input,
                                             const WarningHandler& on_warning);
/// Reads raw planar YUV of shape `params` from `input`. Throws vqe::Error
/// for an empty input or, for a sized input, one shorter than one frame.
std::unique_ptr<FrameSource> make_raw_reader(std::string path, OpenedInput input,
                                             const RawVideoParams& params);

/// `bytes` as printable ASCII for a message: other bytes as \xNN, at most
/// `max_bytes` of them, "..." when cut.
std::string printable(std::string_view bytes, std::size_t max_bytes);

}  // namespace vqe
