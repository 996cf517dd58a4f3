// SPDX-License-Identifier: BSD-2-Clause
// convert_bit_depth: a frame source shifted up to a common bit depth, for
// AOM CTC v6.0's "coding 8-bit video using 10 bits" (CWG-D088): libvmaf's
// `--aom_ctc v6.0` asks for a common bit depth when the two inputs differ,
// and its pull request for the conversion (Netflix/vmaf#1260) shifts the
// shallower input left, so that VMAF(8-bit, 10-bit) equals VMAF(10-bit,
// 10-bit) for an 8-bit source shifted up by 2 bits.

#include <cstdint>

#include <fmt/format.h>

#include "vqe/error.h"
#include "vqe/io.h"

namespace vqe {
namespace {

class ShiftedSource final : public FrameSource {
 public:
  ShiftedSource(std::unique_ptr<FrameSource> source, int bit_depth)
      : source_(std::move(source)), format_(source_->format()) {
    format_.bit_depth = bit_depth;
    validate_format(format_, source_->path());
    shift_ = bit_depth - source_->format().bit_depth;
  }

  const VideoFormat& format() const override { return format_; }
  const std::string& path() const override { return source_->path(); }
  unsigned frames_read() const override { return source_->frames_read(); }
  bool skip(unsigned count) override { return source_->skip(count); }
  std::optional<FileIdentity> identity() const override { return source_->identity(); }
  VideoContainer container() const override { return source_->container(); }

  bool read(Picture& picture) override {
    if (!source_->read(input_)) return false;
    if (!(picture.format() == format_)) picture = Picture(format_);
    const bool wide_input = input_.format().bytes_per_sample() == 2;
    for (int p = 0; p < picture.num_planes(); ++p) {
      const Plane& in = input_.plane(p);
      Plane& out = picture.plane(p);
      for (int y = 0; y < out.height; ++y) {
        std::uint16_t* dst = out.row<std::uint16_t>(y);
        if (wide_input) {
          const std::uint16_t* src = in.row<std::uint16_t>(y);
          for (int x = 0; x < out.width; ++x) dst[x] = static_cast<std::uint16_t>(src[x] << shift_);
        } else {
          const std::uint8_t* src = in.row<std::uint8_t>(y);
          for (int x = 0; x < out.width; ++x) dst[x] = static_cast<std::uint16_t>(src[x] << shift_);
        }
      }
    }
    return true;
  }

 private:
  std::unique_ptr<FrameSource> source_;
  VideoFormat format_;
  int shift_ = 0;
  Picture input_;
};

}  // namespace

std::unique_ptr<FrameSource> convert_bit_depth(std::unique_ptr<FrameSource> source,
                                               int bit_depth) {
  const int from = source->format().bit_depth;
  if (bit_depth == from) return source;
  if (bit_depth < from)
    throw Error(fmt::format("{}: cannot convert {}-bit samples down to {} bits", source->path(),
                            from, bit_depth));
  return std::make_unique<ShiftedSource>(std::move(source), bit_depth);
}

}  // namespace vqe
