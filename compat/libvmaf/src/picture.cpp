// SPDX-License-Identifier: BSD-2-Clause
// libvmaf's pictures (libvmaf/picture.h): one 64-byte-aligned buffer per
// picture with a reference count, and their translation into VQE's
// PictureView.

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "internal.h"

namespace lc = vqe::libvmaf_compat;

namespace {

// What VmafPicture::priv points to.
struct PictureBuffer {
  void* memory = nullptr;
};

constexpr std::size_t kAlign = 64;
// The largest luma size VQE scores (vqe::validate_format); larger pictures
// are refused at allocation, which also keeps the sizes below overflow.
constexpr unsigned kMaxSize = 32768;

std::optional<vqe::ChromaFormat> chroma_of(int pix_fmt) {
  switch (pix_fmt) {
    case VMAF_PIX_FMT_YUV420P: return vqe::ChromaFormat::k420;
    case VMAF_PIX_FMT_YUV422P: return vqe::ChromaFormat::k422;
    case VMAF_PIX_FMT_YUV444P: return vqe::ChromaFormat::k444;
    case VMAF_PIX_FMT_YUV400P: return vqe::ChromaFormat::k400;
    default: return std::nullopt;
  }
}

}  // namespace

namespace vqe::libvmaf_compat {

std::optional<PictureView> view_of_picture(const VmafPicture& p, std::string* why) {
  const auto chroma = chroma_of(as_int(p.pix_fmt));
  if (!chroma) {
    *why = fmt::format("unknown pixel format {}", as_int(p.pix_fmt));
    return std::nullopt;
  }
  PictureView view;
  view.format.width = static_cast<int>(std::min(p.w[0], kMaxSize + 1));
  view.format.height = static_cast<int>(std::min(p.h[0], kMaxSize + 1));
  view.format.bit_depth = static_cast<int>(std::min(p.bpc, 64u));
  view.format.chroma = *chroma;
  try {
    validate_format(view.format, "picture");
  } catch (const Error& e) {
    *why = e.what();
    return std::nullopt;
  }
  const VideoFormat& f = view.format;
  for (int i = 0; i < f.num_planes(); ++i) {
    if (p.w[i] != static_cast<unsigned>(f.plane_width(i)) ||
        p.h[i] != static_cast<unsigned>(f.plane_height(i))) {
      *why = fmt::format("plane {} is {}x{}; a {}x{} {} picture has {}x{}", i, p.w[i], p.h[i],
                         f.width, f.height, to_string(f.chroma), f.plane_width(i),
                         f.plane_height(i));
      return std::nullopt;
    }
    view.data[i] = p.data[i];
    view.stride[i] = p.stride[i];
  }
  return view;
}

int allocate(VmafPicture* pic, int pix_fmt, unsigned bpc, unsigned w, unsigned h) {
  namespace lc = vqe::libvmaf_compat;
  const int level = lc::default_log_level;
  if (!pic) return lc::fail(level, "vmaf_picture_alloc: picture is NULL");
  const auto chroma = chroma_of(pix_fmt);
  if (!chroma)
    return lc::fail(level, fmt::format("vmaf_picture_alloc: unknown pixel format {}", pix_fmt));
  if (bpc < 8 || bpc > 16)
    return lc::fail(level, fmt::format("vmaf_picture_alloc: {} bits per sample (8..16)", bpc));
  if (w == 0 || h == 0 || w > kMaxSize || h > kMaxSize)
    return lc::fail(level, fmt::format("vmaf_picture_alloc: size {}x{} (1..{} each)", w, h,
                                       kMaxSize));
  const int bytes = bpc > 8 ? 2 : 1;
  const int width = static_cast<int>(w), height = static_cast<int>(h);
  VmafPicture p{};
  std::memcpy(&p.pix_fmt, &pix_fmt, sizeof pix_fmt);
  p.bpc = bpc;
  std::size_t offset[3] = {0, 0, 0}, total = 0;
  const int planes = *chroma == vqe::ChromaFormat::k400 ? 1 : 3;
  for (int i = 0; i < planes; ++i) {
    p.w[i] = static_cast<unsigned>(i ? vqe::chroma_width(*chroma, width) : width);
    p.h[i] = static_cast<unsigned>(i ? vqe::chroma_height(*chroma, height) : height);
    p.stride[i] = static_cast<std::ptrdiff_t>((p.w[i] * bytes + kAlign - 1) / kAlign * kAlign);
    offset[i] = total;
    total += static_cast<std::size_t>(p.stride[i]) * p.h[i];
  }
  void* memory = std::aligned_alloc(kAlign, total);
  auto* buffer = new (std::nothrow) PictureBuffer{memory};
  auto* ref = new (std::nothrow) VmafRef;
  if (!memory || !buffer || !ref) {
    std::free(memory);
    delete buffer;
    delete ref;
    return -ENOMEM;
  }
  std::memset(memory, 0, total);
  for (int i = 0; i < planes; ++i) p.data[i] = static_cast<unsigned char*>(memory) + offset[i];
  p.ref = ref;
  p.priv = buffer;
  *pic = p;
  return 0;
}

}  // namespace vqe::libvmaf_compat

extern "C" {

int vmaf_picture_alloc(VmafPicture* pic, enum VmafPixelFormat pix_fmt, unsigned bpc, unsigned w,
                       unsigned h) {
  return lc::allocate(pic, lc::as_int(pix_fmt), bpc, w, h);
}

int vmaf_picture_unref(VmafPicture* pic) {
  if (!pic || !pic->ref) return -EINVAL;
  if (pic->ref->count.fetch_sub(1) == 1) {
    auto* buffer = static_cast<PictureBuffer*>(pic->priv);
    if (buffer) std::free(buffer->memory);
    delete buffer;
    delete pic->ref;
  }
  std::memset(pic, 0, sizeof *pic);
  return 0;
}

}  // extern "C"
