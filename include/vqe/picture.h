// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Pictures: planar Y'CbCr frames at 8–16 bits per sample.

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace vqe {

/// Chroma subsampling of a planar picture. k400 is luma only (monochrome).
enum class ChromaFormat : std::uint8_t { k400, k420, k422, k444 };

/// "400", "420", "422" or "444".
std::string to_string(ChromaFormat chroma);

/// Width of a chroma plane for a luma width, as Y4M and raw files store it:
/// ceil(width / 2) when horizontally subsampled (4:2:0, 4:2:2), 0 for 4:0:0.
int chroma_width(ChromaFormat chroma, int luma_width);
/// Height of a chroma plane: ceil(height / 2) for 4:2:0, 0 for 4:0:0.
int chroma_height(ChromaFormat chroma, int luma_height);

/// The shape shared by every picture of a video.
struct VideoFormat {
  int width = 0;       ///< luma width in samples
  int height = 0;      ///< luma height in samples
  int bit_depth = 8;   ///< 8, 10, 12 or 16 bits per sample
  ChromaFormat chroma = ChromaFormat::k420;

  /// Bytes per sample in memory and in files: 1 for 8 bits, 2 above.
  int bytes_per_sample() const { return bit_depth > 8 ? 2 : 1; }
  /// Number of planes: 1 for 4:0:0, 3 otherwise.
  int num_planes() const { return chroma == ChromaFormat::k400 ? 1 : 3; }
  int plane_width(int plane) const;
  int plane_height(int plane) const;
  /// Bytes of one frame in a raw file (all planes, no padding).
  std::size_t frame_bytes() const;
  bool operator==(const VideoFormat&) const = default;
};

/// One plane of samples. 8-bit planes hold uint8_t samples; deeper planes hold
/// uint16_t samples in native byte order (little-endian on disk is converted
/// on read). `stride` is in bytes and is a multiple of 64; rows are 64-byte
/// aligned and padding bytes past `width` samples are zero.
struct Plane {
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride = 0;  ///< bytes between the starts of two rows
  std::uint8_t* data = nullptr;

  /// Pointer to row `y` as samples of type T (uint8_t or uint16_t).
  template <typename T>
  const T* row(int y) const {
    return reinterpret_cast<const T*>(data + y * stride);
  }
  template <typename T>
  T* row(int y) {
    return reinterpret_cast<T*>(data + y * stride);
  }
};

/// A frame: up to three planes (Y, Cb, Cr) in one 64-byte-aligned allocation.
/// Pictures are move-only; allocation happens once and buffers are reused
/// through the pipeline's picture pool.
class Picture {
 public:
  Picture() = default;
  /// Allocates zeroed planes for `format`: a picture of 768 KiB or more in a
  /// mapping of its own with transparent huge pages asked for (fewer page
  /// faults and TLB misses), a smaller one from calloc; either way, pages
  /// nobody writes are not touched. Throws vqe::Error on an invalid format
  /// (non-positive size, unsupported bit depth) or when memory runs out.
  explicit Picture(const VideoFormat& format);

  const VideoFormat& format() const { return format_; }
  int width() const { return format_.width; }
  int height() const { return format_.height; }
  int bit_depth() const { return format_.bit_depth; }
  int num_planes() const { return format_.num_planes(); }
  const Plane& plane(int i) const { return planes_[i]; }
  Plane& plane(int i) { return planes_[i]; }

 private:
  struct FreeDeleter {
    FreeDeleter() noexcept : mapped(0) {}
    explicit FreeDeleter(std::size_t bytes) noexcept : mapped(bytes) {}
    void operator()(std::uint8_t* p) const;
    std::size_t mapped;  // bytes mapped with mmap (large pictures), 0: from calloc
  };
  VideoFormat format_{};
  std::array<Plane, 3> planes_{};
  std::unique_ptr<std::uint8_t, FreeDeleter> storage_;
};

/// Caller-owned planes of one picture, as a codec or an application holds
/// them: what Job::submit() copies from. Samples are uint8_t at 8 bits and
/// native-endian uint16_t (values below 2^bit_depth) above; plane p is
/// format.plane_width(p) × format.plane_height(p) samples (chroma planes
/// are ceil(W/2) wide for 4:2:0 and 4:2:2, ceil(H/2) high for 4:2:0; 4:0:0
/// has the luma plane only). `stride[p]` is in bytes (at least the plane's
/// row bytes; may be larger, not negative). The memory is only read, and
/// only during the call that takes the view.
struct PictureView {
  VideoFormat format{};
  std::array<const void*, 3> data{};     ///< Y, Cb, Cr
  std::array<std::ptrdiff_t, 3> stride{};  ///< bytes between rows, per plane
};

/// A view of `picture`'s planes.
PictureView view_of(const Picture& picture);

/// Copies the planes of `source` into `target`, which must have the same
/// format (throws vqe::Error naming `what` otherwise, or for a null plane or
/// a stride smaller than a row). Padding past each row stays as it was.
void copy_picture(const PictureView& source, Picture& target, const std::string& what);

/// Throws vqe::Error unless `format` is a supported format: width and height
/// in 1..32768, bit depth 8, 10, 12 or 16. `what` prefixes the message.
void validate_format(const VideoFormat& format, const std::string& what);

}  // namespace vqe
