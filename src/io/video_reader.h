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

/// The Y4M and raw YUV readers' common part: reads frames one at a time from
/// a ByteStream; never loads the whole input. Samples above 8 bits are
/// little-endian 16-bit words in the input.
class VideoReader : public FrameSource {
 public:
  const VideoFormat& format() const override { return format_; }
  const std::string& path() const override { return path_; }
  unsigned frames_read() const override { return frames_read_; }
  bool read(Picture& picture) override;
  bool skip(unsigned count) override;
  std::optional<FileIdentity> identity() const override { return identity_; }

 protected:
  VideoReader(std::string path, std::unique_ptr<ByteStream> stream,
              std::optional<FileIdentity> identity);
  /// Consumes any per-frame header (Y4M "FRAME...\n"). Returns false at a
  /// clean end of the input.
  virtual bool begin_frame() = 0;
  [[noreturn]] void fail(const std::string& what) const;

  std::string path_;
  std::unique_ptr<ByteStream> stream_;
  std::optional<FileIdentity> identity_;
  VideoFormat format_{};
  unsigned frames_read_ = 0;

 private:
  void read_plane(Plane& plane, int plane_index);
};

/// Where an input's bytes come from, as open_video() found it: the stream,
/// the file's identity, and its size in bytes when it is a regular file that
/// reports one (0: unknown, e.g. a pipe or a /proc file).
struct OpenedInput {
  std::unique_ptr<ByteStream> stream;
  std::optional<FileIdentity> identity;
  std::uint64_t size = 0;
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
