// SPDX-License-Identifier: BSD-2-Clause
#include "io/video_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "io/libav.h"
#include "vqe/error.h"

namespace vqe {
namespace {

// Longest stream header or FRAME line accepted: far above any real header
// (a few dozen bytes plus X tags), small enough to refuse garbage quickly.
constexpr std::size_t kMaxHeaderBytes = 64 * 1024;

struct ColorSpace {
  const char* tag;
  ChromaFormat chroma;
  int bit_depth;
};

// The C tags of the Y4M format (mjpegtools/ffmpeg spellings).
constexpr ColorSpace kColorSpaces[] = {
    {"420jpeg", ChromaFormat::k420, 8},   {"420mpeg2", ChromaFormat::k420, 8},
    {"420paldv", ChromaFormat::k420, 8},  {"420", ChromaFormat::k420, 8},
    {"422", ChromaFormat::k422, 8},       {"444", ChromaFormat::k444, 8},
    {"mono", ChromaFormat::k400, 8},      {"420p10", ChromaFormat::k420, 10},
    {"420p12", ChromaFormat::k420, 12},   {"420p16", ChromaFormat::k420, 16},
    {"422p10", ChromaFormat::k422, 10},   {"422p12", ChromaFormat::k422, 12},
    {"422p16", ChromaFormat::k422, 16},   {"444p10", ChromaFormat::k444, 10},
    {"444p12", ChromaFormat::k444, 12},   {"444p16", ChromaFormat::k444, 16},
    {"mono10", ChromaFormat::k400, 10},   {"mono12", ChromaFormat::k400, 12},
    {"mono16", ChromaFormat::k400, 16},
};

int parse_dimension(const std::string& value, char tag, const std::string& path) {
  if (value.empty() || value.find_first_not_of("0123456789") != std::string::npos)
    throw Error(fmt::format("{}: Y4M header has a malformed {} tag \"{}\"", path, tag,
                            printable(value, 16)));
  if (value.size() > 5 || std::stoi(value) > 32768)
    throw Error(fmt::format("{}: Y4M header's {} tag {} is above 32768, the largest frame side "
                            "VQE takes", path, tag, printable(value, 16)));
  return std::stoi(value);
}

// Reads one '\n'-terminated line into `line`. Returns false at the end of
// the input before any byte. Throws if the line exceeds kMaxHeaderBytes or
// the input ends inside it; with `unterminated`, a line the input ends inside
// is returned instead (true) and *unterminated says so.
bool read_line(ByteStream& in, std::string& line, const std::string& path, const char* what,
               bool* unterminated = nullptr) {
  if (unterminated) *unterminated = false;
  line.clear();
  int c;
  while ((c = in.get()) >= 0) {
    if (c == '\n') return true;
    if (line.size() >= kMaxHeaderBytes)
      throw Error(fmt::format("{}: {} is longer than {} bytes", path, what, kMaxHeaderBytes));
    line.push_back(static_cast<char>(c));
  }
  if (line.empty()) return false;
  if (unterminated) {
    *unterminated = true;
    return true;
  }
  throw Error(fmt::format("{}: the input ends inside the {}", path, what));
}

class Y4mReader final : public VideoReader {
 public:
  Y4mReader(std::string path, OpenedInput in, const WarningHandler& on_warning)
      : VideoReader(std::move(path), std::move(in.stream), in.identity) {
    std::string header;
    if (!read_line(*stream_, header, path_, "Y4M header")) fail("is empty");
    format_ = parse_y4m_header(header, path_, on_warning);
    // A regular file must hold at least one whole frame after its header
    // (or none at all): checked before anything of the frame's size is
    // allocated, so a header claiming a huge frame costs nothing.
    if (in.size > 0) {
      const std::uint64_t left = in.size > stream_->position() ? in.size - stream_->position() : 0;
      const std::uint64_t needed = kFrameMarker.size() + 1 + format_.frame_bytes();
      if (left > 0 && left < needed)
        fail(fmt::format("is shorter than one frame: its header says {}x{} {}p{} ({} bytes a "
                         "frame with its FRAME line), but only {} bytes follow the header",
                         format_.width, format_.height, to_string(format_.chroma),
                         format_.bit_depth, needed, left));
    }
    // Random access when the frames are at fixed offsets: the first FRAME
    // line's length is taken for every frame (read_at checks each one).
    if (in.fd >= 0) {
      const std::string_view ahead = stream_->peek(kMaxFrameLineProbe);
      const std::size_t newline = ahead.find('\n');
      if (newline != std::string_view::npos)
        enable_random_access(in, in.start + stream_->position(), newline + 1);
    }
  }
  VideoContainer container() const override { return VideoContainer::kY4m; }

 protected:
  bool begin_frame() override {
    bool unterminated = false;
    if (!read_line(*stream_, line_, path_, "FRAME header", &unterminated)) return false;
    if (unterminated) {
      // Bytes after the last frame, without a newline: a cut FRAME line, or
      // something else appended to the file.
      const std::size_t n = std::min(line_.size(), kFrameMarker.size());
      if (line_.compare(0, n, kFrameMarker, 0, n) == 0)
        fail(fmt::format("the input ends inside frame {}'s FRAME header", frames_read_));
      fail(fmt::format("the input ends with {} that {} not a frame (\"{}\") after {}",
                       line_.size() == 1 ? "1 byte" : fmt::format("{} bytes", line_.size()),
                       line_.size() == 1 ? "is" : "are", printable(line_, 16),
                       frames_read_ == 0 ? std::string("the header")
                                         : fmt::format("frame {}", frames_read_ - 1)));
    }
    if (line_.compare(0, kFrameMarker.size(), kFrameMarker) != 0 ||
        (line_.size() > kFrameMarker.size() && line_[kFrameMarker.size()] != ' '))
      fail(fmt::format("frame {}: expected a FRAME header, found \"{}\"", frames_read_,
                       printable(line_, 16)));
    return true;
  }

 private:
  static constexpr std::string_view kFrameMarker = "FRAME";
  // A FRAME line longer than this (parameters) leaves the input sequential.
  static constexpr std::size_t kMaxFrameLineProbe = 256;
  std::string line_;
};

class RawReader final : public VideoReader {
 public:
  RawReader(std::string path, OpenedInput in, const RawVideoParams& p)
      : VideoReader(std::move(path), std::move(in.stream), in.identity) {
    format_ = VideoFormat{p.width, p.height, p.bit_depth, p.chroma};
    validate_format(format_, path_);
    if (stream_->peek(1).empty()) fail("is empty");
    if (in.size > 0 && in.size < format_.frame_bytes())
      fail(fmt::format("is shorter than one frame ({} bytes; a {}x{} {}p{} frame is {} bytes)",
                       in.size, format_.width, format_.height, to_string(format_.chroma),
                       format_.bit_depth, format_.frame_bytes()));
    if (in.size > 0 && in.size % format_.frame_bytes() != 0)
      truncated_hint_ = fmt::format(
          "; its {} bytes are not a whole number of {}x{} {}p{} frames ({} bytes each): are "
          "the width, height, pixel format and bit depth (-w, -h, -p, -b) right?",
          in.size, format_.width, format_.height, to_string(format_.chroma), format_.bit_depth,
          format_.frame_bytes());
    enable_random_access(in, in.start, 0);
  }
  VideoContainer container() const override { return VideoContainer::kRaw; }

 protected:
  bool begin_frame() override { return !stream_->peek(1).empty(); }
};

}  // namespace

FrameSource::FrameAt FrameSource::read_at(unsigned, Picture&, int) const {
  throw Error(path() + ": this input is read in order only (no random access)");
}

void FrameSource::seek(unsigned) {
  throw Error(path() + ": this input is read in order only (no random access)");
}

VideoReader::VideoReader(std::string path, std::unique_ptr<ByteStream> stream,
                         std::optional<FileIdentity> identity)
    : path_(std::move(path)), stream_(std::move(stream)), identity_(identity) {}

void VideoReader::fail(const std::string& what) const {
  throw Error(fmt::format("{}: {}", path_, what));
}

void VideoReader::fail_truncated(unsigned frame, const std::string& where) const {
  fail(fmt::format("frame {} is truncated ({}){}", frame, where, truncated_hint_));
}

namespace {

// Little-endian 16-bit words as they are in the file -> native uint16_t,
// in place (a no-op on little-endian hosts).
void words_from_le(std::uint16_t* row, int width) {
  if constexpr (std::endian::native == std::endian::little) return;
  for (int x = 0; x < width; ++x) {
    const auto* b = reinterpret_cast<const std::uint8_t*>(row + x);
    row[x] = static_cast<std::uint16_t>(b[0] | (b[1] << 8));
  }
}

}  // namespace

void VideoReader::check_samples(Plane& plane, int plane_index, unsigned frame) const {
  if (format_.bytes_per_sample() == 1) return;
  // Above 8 bits: native order, and no sample above the bit depth's maximum.
  const unsigned max_sample = (1u << format_.bit_depth) - 1;
  for (int y = 0; y < plane.height; ++y) {
    std::uint16_t* row = plane.row<std::uint16_t>(y);
    words_from_le(row, plane.width);
    unsigned any = 0;
    for (int x = 0; x < plane.width; ++x) any |= row[x];
    if (any <= max_sample) continue;
    for (int x = 0; x < plane.width; ++x)
      if (row[x] > max_sample)
        fail(fmt::format("frame {}: sample {} at plane {} ({}, {}) exceeds the {}-bit maximum {}",
                         frame, row[x], plane_index, x, y, format_.bit_depth, max_sample));
  }
}

void VideoReader::read_plane(Plane& plane, int plane_index) {
  const int bps = format_.bytes_per_sample();
  const std::size_t row_bytes = static_cast<std::size_t>(plane.width) * bps;
  const auto truncated = [&](int row) {
    fail_truncated(frames_read_, fmt::format("plane {}, row {} of {}: the input ends",
                                             plane_index, row, plane.height));
  };
  // Samples go straight from the input into the picture: the whole plane in
  // one read when its rows are contiguous, else row by row.
  if (static_cast<std::size_t>(plane.stride) == row_bytes) {
    const std::size_t bytes = row_bytes * static_cast<std::size_t>(plane.height);
    const std::size_t got = stream_->read(plane.data, bytes);
    if (got != bytes) truncated(static_cast<int>(got / row_bytes));
  } else {
    for (int y = 0; y < plane.height; ++y)
      if (stream_->read(plane.row<std::uint8_t>(y), row_bytes) != row_bytes) truncated(y);
  }
  check_samples(plane, plane_index, frames_read_);
}

bool VideoReader::read_planes(Picture& picture, int planes) {
  if (random_access_ && !irregular_) {
    switch (read_at(frames_read_, picture, planes)) {
      case FrameAt::kRead:
        ++frames_read_;
        stream_behind_ = true;
        return true;
      case FrameAt::kEnd:
        return false;
      case FrameAt::kIrregular:
        irregular_ = true;  // in order from here, through the stream
        break;
    }
  }
  if (stream_behind_) {
    stream_behind_ = false;
    seek(frames_read_);
  }
  if (!begin_frame()) return false;
  if (!(picture.format() == format_)) picture = Picture(format_);
  const int n = std::clamp(planes, 1, picture.num_planes());
  for (int p = 0; p < n; ++p) read_plane(picture.plane(p), p);
  if (n < picture.num_planes()) {
    // Skip the planes nobody reads (a seek in a file, reads elsewhere); a
    // frame cut short in them is refused all the same.
    std::uint64_t rest = 0;
    for (int p = n; p < picture.num_planes(); ++p)
      rest += static_cast<std::uint64_t>(format_.plane_width(p)) * format_.plane_height(p) *
              format_.bytes_per_sample();
    const auto truncated = [&] {
      fail_truncated(frames_read_, "the input ends in its chroma planes");
    };
    if (random_access_) {
      // A regular file: the skipped planes must be in it all the same.
      if (stream_start_ + stream_->position() + rest > file_size_) truncated();
      if (stream_->skip(rest) != rest) truncated();
    } else {
      std::vector<std::uint8_t> sink(static_cast<std::size_t>(std::min<std::uint64_t>(rest, 1 << 16)));
      while (rest > 0) {
        const std::size_t chunk = static_cast<std::size_t>(std::min<std::uint64_t>(rest, sink.size()));
        if (stream_->read(sink.data(), chunk) != chunk) truncated();
        rest -= chunk;
      }
    }
  }
  ++frames_read_;
  return true;
}

bool VideoReader::skip(unsigned count) {
  Picture scratch(format_);
  for (unsigned i = 0; i < count; ++i)
    if (!read_planes(scratch, 1)) return false;
  return true;
}

void VideoReader::enable_random_access(const OpenedInput& input, std::uint64_t data_start,
                                       std::size_t frame_header) {
  if (input.fd < 0) return;
  struct stat st {};
  if (::fstat(input.fd, &st) != 0 || !S_ISREG(st.st_mode)) return;
  random_access_ = true;
  fd_ = input.fd;
  stream_start_ = input.start;
  file_size_ = static_cast<std::uint64_t>(st.st_size);
  data_start_ = data_start;
  frame_header_ = frame_header;
}

std::uint64_t VideoReader::frame_offset(unsigned index) const {
  return data_start_ + static_cast<std::uint64_t>(index) * (frame_header_ + format_.frame_bytes());
}

FrameSource::FrameAt VideoReader::read_at(unsigned index, Picture& picture, int planes) const {
  if (!random_access_) throw Error(fmt::format("{}: no random access", path_));
  std::uint64_t at = frame_offset(index);
  // pread() from `from` until `len` bytes or the end of the file.
  const auto read_range = [&](void* dst, std::size_t len, std::uint64_t from) {
    auto* out = static_cast<std::uint8_t*>(dst);
    std::size_t done = 0;
    while (done < len) {
      const ssize_t got = ::pread(fd_, out + done, len - done, static_cast<off_t>(from + done));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0)
        fail(fmt::format("frame {}: cannot read: {}", index, std::strerror(errno)));
      if (got == 0) break;
      done += static_cast<std::size_t>(got);
    }
    return done;
  };
  if (frame_header_ > 0) {
    std::string line(frame_header_, '\0');
    const std::size_t got = read_range(line.data(), frame_header_, at);
    if (got == 0) return FrameAt::kEnd;
    // Not the first FRAME line's length (or a malformed frame: read()
    // reports it): on with sequential reading.
    if (got < frame_header_ || line.compare(0, 5, "FRAME") != 0 || line.back() != '\n' ||
        line.find('\n') != frame_header_ - 1 || (frame_header_ > 6 && line[5] != ' '))
      return FrameAt::kIrregular;
    at += frame_header_;
  } else if (at >= file_size_) {
    return FrameAt::kEnd;
  }
  if (!(picture.format() == format_)) picture = Picture(format_);
  const int n = std::clamp(planes, 1, picture.num_planes());
  const int bps = format_.bytes_per_sample();
  for (int p = 0; p < n; ++p) {
    Plane& plane = picture.plane(p);
    const std::size_t row_bytes = static_cast<std::size_t>(plane.width) * bps;
    const std::size_t bytes = row_bytes * static_cast<std::size_t>(plane.height);
    std::size_t done = 0;
    if (static_cast<std::size_t>(plane.stride) == row_bytes) {
      done = read_range(plane.data, bytes, at);
    } else {
      for (int y = 0; y < plane.height; ++y) {
        const std::size_t got = read_range(plane.row<std::uint8_t>(y), row_bytes,
                                           at + static_cast<std::uint64_t>(y) * row_bytes);
        done += got;
        if (got < row_bytes) break;
      }
    }
    if (done < bytes)
      fail_truncated(index, fmt::format("plane {}, row {} of {}: the input ends", p,
                                        done / row_bytes, plane.height));
    check_samples(plane, p, index);
    at += bytes;
  }
  // The planes not read must be in the file all the same (a frame cut short
  // is an error, as when every plane is read; said as read_planes() says it).
  if (n < picture.num_planes() &&
      frame_offset(index) + frame_header_ + format_.frame_bytes() > file_size_)
    fail_truncated(index, "the input ends in its chroma planes");
  return FrameAt::kRead;
}

unsigned VideoReader::frame_count_hint() const {
  if (!random_access_ || file_size_ <= static_cast<std::uint64_t>(data_start_)) return 0;
  const std::uint64_t frames = (file_size_ - static_cast<std::uint64_t>(data_start_)) /
                               (frame_header_ + format_.frame_bytes());
  return frames < (1u << 31) ? static_cast<unsigned>(frames) : 0;
}

void VideoReader::seek(unsigned index) {
  if (!random_access_) throw Error(fmt::format("{}: no random access", path_));
  stream_behind_ = false;
  stream_->seek(frame_offset(index));
  // position() now counts from the file's start; the stream's own start is
  // where it counted from before.
  stream_start_ = 0;
  frames_read_ = index;
}

VideoFormat parse_y4m_header(const std::string& header, const std::string& path,
                             const WarningHandler& on_warning) {
  static const std::string kMagic = "YUV4MPEG2";
  if (header.compare(0, kMagic.size(), kMagic) != 0)
    throw Error(fmt::format("{}: not a Y4M file (no YUV4MPEG2 signature)", path));
  VideoFormat f{0, 0, 8, ChromaFormat::k420};
  bool have_w = false, have_h = false, progressive = false;
  std::size_t pos = kMagic.size();
  while (pos < header.size()) {
    if (header[pos] == ' ') { ++pos; continue; }
    std::size_t end = header.find(' ', pos);
    if (end == std::string::npos) end = header.size();
    const char tag = header[pos];
    const std::string value = header.substr(pos + 1, end - pos - 1);
    switch (tag) {
      case 'W': f.width = parse_dimension(value, 'W', path); have_w = true; break;
      case 'H': f.height = parse_dimension(value, 'H', path); have_h = true; break;
      case 'I':
        if (value == "t" || value == "b" || value == "m")
          throw Error(fmt::format("{}: interlaced Y4M input (tag I{}) is not supported; "
                                  "deinterlace it first",
                                  path, value));
        if (value != "p" && value != "?")
          throw Error(fmt::format("{}: Y4M header has an unknown interlacing tag I{}", path,
                                  printable(value, 16)));
        progressive = value == "p";
        break;
      case 'C': {
        bool found = false;
        for (const ColorSpace& cs : kColorSpaces)
          if (value == cs.tag) {
            f.chroma = cs.chroma;
            f.bit_depth = cs.bit_depth;
            found = true;
          }
        if (!found)
          throw Error(fmt::format("{}: unsupported Y4M colour space C{}", path,
                                  printable(value, 32)));
        break;
      }
      case 'F': case 'A': case 'X':
        break;  // frame rate, aspect and extensions do not change the scores
      default:
        throw Error(fmt::format("{}: Y4M header has an unknown tag \"{}\"", path,
                                printable(header.substr(pos, end - pos), 32)));
    }
    pos = end;
  }
  if (!have_w || !have_h)
    throw Error(fmt::format("{}: Y4M header lacks the {} tag", path, have_w ? "H" : "W"));
  validate_format(f, path);
  // libvmaf's Y4M reader (tools/y4m_input.c) warns the same way and reads
  // the frames as progressive.
  if (!progressive && on_warning)
    on_warning(fmt::format("{}: interlacing unknown (Y4M tag I? or no I tag); assuming "
                           "progressive scan",
                           path));
  return f;
}

ChromaFormat parse_chroma_format(const std::string& text) {
  if (text == "420") return ChromaFormat::k420;
  if (text == "422") return ChromaFormat::k422;
  if (text == "444") return ChromaFormat::k444;
  if (text == "400") return ChromaFormat::k400;
  throw Error(fmt::format("unsupported pixel format '{}' (400, 420, 422 or 444)", text));
}

void check_raw_claim(const FrameSource& source, const RawShapeClaim& claim) {
  if (source.container() != VideoContainer::kY4m) return;
  const VideoFormat& f = source.format();
  std::string differ;
  int count = 0;
  const auto add = [&](int which, const std::string& value) {
    differ += ' ';
    differ += fmt::format(fmt::runtime(claim.spelling[which]), value);
    ++count;
  };
  if (claim.width && *claim.width != f.width) add(0, std::to_string(*claim.width));
  if (claim.height && *claim.height != f.height) add(1, std::to_string(*claim.height));
  if (claim.chroma && *claim.chroma != f.chroma) add(2, to_string(*claim.chroma));
  if (claim.bit_depth && *claim.bit_depth != f.bit_depth)
    add(3, std::to_string(*claim.bit_depth));
  if (count == 0) return;
  throw Error(fmt::format("{}: is a Y4M file whose header says {}x{} {} {}-bit, but{} {} "
                          "otherwise: {} describe raw input; drop them or make them agree",
                          source.path(), f.width, f.height, to_string(f.chroma), f.bit_depth,
                          differ, count > 1 ? "say" : "says", claim.names));
}

std::unique_ptr<FrameSource> make_y4m_reader(std::string path, OpenedInput input,
                                             const WarningHandler& on_warning) {
  return std::make_unique<Y4mReader>(std::move(path), std::move(input), on_warning);
}

std::unique_ptr<FrameSource> make_raw_reader(std::string path, OpenedInput input,
                                             const RawVideoParams& params) {
  return std::make_unique<RawReader>(std::move(path), std::move(input), params);
}

std::unique_ptr<FrameSource> open_y4m_stream(std::FILE* file, const std::string& name,
                                             const WarningHandler& on_warning) {
  OpenedInput input;
  input.stream = ByteStream::from_file(file, name);
  return make_y4m_reader(name, std::move(input), on_warning);
}

std::string printable(std::string_view bytes, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < max_bytes; ++i) {
    const auto c = static_cast<unsigned char>(bytes[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\' && c != '"')
      out.push_back(static_cast<char>(c));
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (bytes.size() > max_bytes) out += "...";
  return out;
}

}  // namespace vqe
