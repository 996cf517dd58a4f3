// SPDX-License-Identifier: BSD-2-Clause
#include "vqe/picture.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/large_buffer.h"
#include "core/picture_copy.h"
#include "vqe/error.h"

namespace vqe {

std::string to_string(ChromaFormat chroma) {
  switch (chroma) {
    case ChromaFormat::k400: return "400";
    case ChromaFormat::k420: return "420";
    case ChromaFormat::k422: return "422";
    case ChromaFormat::k444: return "444";
  }
  return "?";
}

int chroma_width(ChromaFormat chroma, int luma_width) {
  switch (chroma) {
    case ChromaFormat::k400: return 0;
    case ChromaFormat::k420:
    case ChromaFormat::k422: return (luma_width + 1) / 2;
    case ChromaFormat::k444: return luma_width;
  }
  return 0;
}

int chroma_height(ChromaFormat chroma, int luma_height) {
  switch (chroma) {
    case ChromaFormat::k400: return 0;
    case ChromaFormat::k420: return (luma_height + 1) / 2;
    case ChromaFormat::k422:
    case ChromaFormat::k444: return luma_height;
  }
  return 0;
}

int VideoFormat::plane_width(int plane) const {
  return plane == 0 ? width : chroma_width(chroma, width);
}

int VideoFormat::plane_height(int plane) const {
  return plane == 0 ? height : chroma_height(chroma, height);
}

std::size_t VideoFormat::frame_bytes() const {
  std::size_t total = 0;
  for (int p = 0; p < num_planes(); ++p)
    total += static_cast<std::size_t>(plane_width(p)) * plane_height(p);
  return total * bytes_per_sample();
}

void validate_format(const VideoFormat& f, const std::string& what) {
  if (f.width < 1 || f.height < 1 || f.width > 32768 || f.height > 32768)
    throw Error(fmt::format("{}: unsupported size {}x{} (1..32768 each side)", what,
                            f.width, f.height));
  if (f.bit_depth != 8 && f.bit_depth != 10 && f.bit_depth != 12 && f.bit_depth != 16)
    throw Error(fmt::format("{}: unsupported bit depth {} (8, 10, 12 or 16)", what,
                            f.bit_depth));
}

void Picture::FreeDeleter::operator()(std::uint8_t* p) const {
  if (mapped)
    unmap_large(p, mapped);
  else
    std::free(p);
}

Picture::Picture(const VideoFormat& format) : format_(format) {
  validate_format(format, "picture");
  constexpr std::ptrdiff_t kAlign = 64;
  std::size_t offsets[3] = {0, 0, 0};
  std::size_t total = 0;
  for (int p = 0; p < format.num_planes(); ++p) {
    Plane& plane = planes_[p];
    plane.width = format.plane_width(p);
    plane.height = format.plane_height(p);
    const std::ptrdiff_t row_bytes =
        static_cast<std::ptrdiff_t>(plane.width) * format.bytes_per_sample();
    plane.stride = (row_bytes + kAlign - 1) / kAlign * kAlign;
    offsets[p] = total;
    total += static_cast<std::size_t>(plane.stride) * plane.height;
  }
  std::size_t mapped = 0;
  // A large picture in huge pages (core/large_buffer.h), else from calloc:
  // a large block comes zeroed from the system (fresh pages), so pages
  // nobody writes are never touched, and a frame that a truncated input
  // leaves unfilled costs no memory.
  auto* raw = maps_large(total) ? map_large(total, mapped) : nullptr;
  if (!raw) {
    mapped = 0;
    raw = static_cast<std::uint8_t*>(std::calloc(total + static_cast<std::size_t>(kAlign), 1));
  }
  if (!raw)
    throw Error(fmt::format("out of memory: cannot allocate a {}x{} {}-bit {} picture ({} MiB)",
                            format.width, format.height, format.bit_depth,
                            to_string(format.chroma), (total + (1 << 20) - 1) >> 20));
  storage_ = std::unique_ptr<std::uint8_t, FreeDeleter>(raw, FreeDeleter{mapped});
  const auto misalign = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(raw) % static_cast<std::uintptr_t>(kAlign));
  std::uint8_t* mem = raw + (misalign ? static_cast<std::size_t>(kAlign) - misalign : 0);
  for (int p = 0; p < format.num_planes(); ++p) planes_[p].data = mem + offsets[p];
}

PictureView view_of(const Picture& picture) {
  PictureView v;
  v.format = picture.format();
  for (int p = 0; p < picture.num_planes(); ++p) {
    v.data[p] = picture.plane(p).data;
    v.stride[p] = picture.plane(p).stride;
  }
  return v;
}

void check_picture_format(const VideoFormat& f, const Picture& target, const std::string& what) {
  if (f != target.format())
    throw Error(fmt::format("{}: picture is {}x{} {}-bit {}, the job's pictures are {}x{} {}-bit "
                            "{}",
                            what, f.width, f.height, f.bit_depth, to_string(f.chroma),
                            target.width(), target.height(), target.bit_depth(),
                            to_string(target.format().chroma)));
}

void copy_picture(const PictureView& source, Picture& target, const std::string& what) {
  copy_planes(source, target, source.format.num_planes(), what);
}

void copy_planes(const PictureView& source, Picture& target, int planes, const std::string& what) {
  const VideoFormat& f = source.format;
  check_picture_format(f, target, what);
  for (int p = 0; p < std::min(planes, f.num_planes()); ++p) {
    const std::size_t row_bytes =
        static_cast<std::size_t>(f.plane_width(p)) * static_cast<std::size_t>(f.bytes_per_sample());
    if (source.data[p] == nullptr)
      throw Error(fmt::format("{}: plane {} has no data (null pointer)", what, p));
    if (source.stride[p] < static_cast<std::ptrdiff_t>(row_bytes))
      throw Error(fmt::format("{}: plane {} stride {} bytes is less than its row of {} bytes", what,
                              p, source.stride[p], row_bytes));
    const auto* src = static_cast<const std::uint8_t*>(source.data[p]);
    Plane& dst = target.plane(p);
    for (int y = 0; y < dst.height; ++y)
      std::memcpy(dst.data + y * dst.stride, src + y * source.stride[p], row_bytes);
  }
}

}  // namespace vqe
