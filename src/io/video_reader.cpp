// SPDX-License-Identifier: BSD-2-Clause
#include "io/video_reader.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstring>
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
  if (value.empty() || value.size() > 6 ||
      value.find_first_not_of("0123456789") != std::string::npos)
    throw Error(fmt::format("{}: Y4M header has a malformed {} tag '{}'", path, tag, value));
  return std::stoi(value);
}

// Reads one '\n'-terminated line into `line`. Returns false at EOF before
// any byte. Throws if the line exceeds kMaxHeaderBytes or EOF cuts it.
bool read_line(std::FILE* f, std::string& line, const std::string& path, const char* what) {
  line.clear();
  int c;
  while ((c = std::fgetc(f)) != EOF) {
    if (c == '\n') return true;
    if (line.size() >= kMaxHeaderBytes)
      throw Error(fmt::format("{}: {} is longer than {} bytes", path, what, kMaxHeaderBytes));
    line.push_back(static_cast<char>(c));
  }
  if (line.empty()) return false;
  throw Error(fmt::format("{}: file ends inside the {}", path, what));
}

class Y4mReader final : public VideoReader {
 public:
  Y4mReader(std::string path, std::FILE* f) : VideoReader(std::move(path), f) {
    std::string header;
    if (!read_line(file_, header, path_, "Y4M header")) fail("file is empty");
    format_ = parse_y4m_header(header, path_);
    // Random access when the frames are at fixed offsets: the first FRAME
    // line's length is taken for every frame (read_at checks each one).
    const long data_start = std::ftell(file_);
    std::string first;
    if (data_start > 0 && read_line(file_, first, path_, "FRAME header") &&
        std::fseek(file_, data_start, SEEK_SET) == 0)
      enable_random_access(data_start, first.size() + 1);
    else
      std::fseek(file_, data_start, SEEK_SET);
  }

 protected:
  bool begin_frame() override {
    if (!read_line(file_, line_, path_, "FRAME header")) return false;
    if (line_.compare(0, 5, "FRAME") != 0 || (line_.size() > 5 && line_[5] != ' '))
      fail(fmt::format("frame {}: expected a FRAME header, found '{}'", frames_read_,
                       line_.substr(0, 16)));
    return true;
  }

 private:
  std::string line_;
};

class RawReader final : public VideoReader {
 public:
  RawReader(std::string path, std::FILE* f, const RawVideoParams& p)
      : VideoReader(std::move(path), f) {
    format_ = VideoFormat{p.width, p.height, p.bit_depth, p.chroma};
    validate_format(format_, path_);
    if (std::fseek(file_, 0, SEEK_END) == 0) {
      const long size = std::ftell(file_);
      if (size == 0) fail("file is empty");
      if (size > 0 && static_cast<std::size_t>(size) < format_.frame_bytes())
        fail(fmt::format("file is shorter than one frame ({} bytes; a {}x{} {}p{} frame is {} "
                         "bytes)",
                         size, format_.width, format_.height, to_string(format_.chroma),
                         format_.bit_depth, format_.frame_bytes()));
      std::fseek(file_, 0, SEEK_SET);
    }
    enable_random_access(0, 0);
  }

 protected:
  bool begin_frame() override {
    const int c = std::fgetc(file_);
    if (c == EOF) return false;
    std::ungetc(c, file_);
    return true;
  }
};

}  // namespace

FrameSource::FrameAt FrameSource::read_at(unsigned, Picture&, int) const {
  throw Error(path() + ": this input is read in order only (no random access)");
}

void FrameSource::seek(unsigned) {
  throw Error(path() + ": this input is read in order only (no random access)");
}

VideoReader::VideoReader(std::string path, std::FILE* file)
    : path_(std::move(path)), file_(file) {}

VideoReader::~VideoReader() {
  if (file_) std::fclose(file_);
}

void VideoReader::fail(const std::string& what) const {
  throw Error(fmt::format("{}: {}", path_, what));
}

namespace {

// Reads `bytes` into `dst`; false if the file ends first.
bool read_exact(std::FILE* file, void* dst, std::size_t bytes) {
  return std::fread(dst, 1, bytes, file) == bytes;
}

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
    fail(fmt::format("frame {} is truncated (plane {}, row {} of {}: the file ends)",
                     frames_read_, plane_index, row, plane.height));
  };
  // Samples go straight from the file into the picture: the whole plane in
  // one read when its rows are contiguous, else row by row.
  if (static_cast<std::size_t>(plane.stride) == row_bytes) {
    const std::size_t bytes = row_bytes * static_cast<std::size_t>(plane.height);
    const std::size_t got = std::fread(plane.data, 1, bytes, file_);
    if (got != bytes) truncated(static_cast<int>(got / row_bytes));
  } else {
    for (int y = 0; y < plane.height; ++y)
      if (!read_exact(file_, plane.row<std::uint8_t>(y), row_bytes)) truncated(y);
  }
  check_samples(plane, plane_index, frames_read_);
}

bool VideoReader::read_planes(Picture& picture, int planes) {
  if (!begin_frame()) return false;
  if (!(picture.format() == format_)) picture = Picture(format_);
  const int n = std::clamp(planes, 1, picture.num_planes());
  for (int p = 0; p < n; ++p) read_plane(picture.plane(p), p);
  if (n < picture.num_planes()) {
    // Skip the planes nobody reads (a seek in a file, reads on a pipe).
    std::size_t rest = 0;
    for (int p = n; p < picture.num_planes(); ++p)
      rest += static_cast<std::size_t>(format_.plane_width(p)) * format_.plane_height(p) *
              format_.bytes_per_sample();
    if (random_access_) {
      // A regular file: the skipped planes must be in it all the same.
      const long here = std::ftell(file_);
      if (here < 0 || static_cast<std::uint64_t>(here) + rest > file_size_)
        fail(fmt::format("frame {} is truncated (the file ends in its chroma planes)",
                         frames_read_));
      if (std::fseek(file_, static_cast<long>(rest), SEEK_CUR) != 0)
        fail(fmt::format("frame {}: cannot seek past its chroma: {}", frames_read_,
                         std::strerror(errno)));
    } else {
      std::vector<std::uint8_t> sink(std::min<std::size_t>(rest, 1 << 16));
      while (rest > 0) {
        const std::size_t n_bytes = std::min(rest, sink.size());
        if (!read_exact(file_, sink.data(), n_bytes))
          fail(fmt::format("frame {} is truncated (the file ends in its chroma planes)",
                           frames_read_));
        rest -= n_bytes;
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

void VideoReader::enable_random_access(long data_start, std::size_t frame_header) {
  struct stat st {};
  if (fstat(fileno(file_), &st) != 0 || !S_ISREG(st.st_mode)) return;
  random_access_ = true;
  file_size_ = static_cast<std::uint64_t>(st.st_size);
  data_start_ = data_start;
  frame_header_ = frame_header;
}

std::uint64_t VideoReader::frame_offset(unsigned index) const {
  return static_cast<std::uint64_t>(data_start_) +
         static_cast<std::uint64_t>(index) * (frame_header_ + format_.frame_bytes());
}

FrameSource::FrameAt VideoReader::read_at(unsigned index, Picture& picture, int planes) const {
  if (!random_access_) throw Error(fmt::format("{}: no random access", path_));
  const int fd = fileno(file_);
  std::uint64_t at = frame_offset(index);
  if (frame_header_ > 0) {
    std::string line(frame_header_, '\0');
    const ssize_t got = ::pread(fd, line.data(), frame_header_, static_cast<off_t>(at));
    if (got < 0) fail(fmt::format("frame {}: read failed: {}", index, std::strerror(errno)));
    if (got == 0) return FrameAt::kEnd;
    // Not the first FRAME line's length (or a malformed frame: read()
    // reports it): on with sequential reading.
    if (static_cast<std::size_t>(got) < frame_header_ || line.compare(0, 5, "FRAME") != 0 ||
        line.back() != '\n' || line.find('\n') != frame_header_ - 1 ||
        (frame_header_ > 6 && line[5] != ' '))
      return FrameAt::kIrregular;
    at += frame_header_;
  }
  if (!(picture.format() == format_)) picture = Picture(format_);
  const int n = std::clamp(planes, 1, picture.num_planes());
  const int bps = format_.bytes_per_sample();
  // The planes not read must be in the file all the same (a frame cut short
  // is an error, as when every plane is read).
  if (n < picture.num_planes() && at + format_.frame_bytes() > file_size_ && at < file_size_)
    fail(fmt::format("frame {} is truncated (the file ends in it)", index));
  for (int p = 0; p < picture.num_planes(); ++p) {
    Plane& plane = picture.plane(p);
    const std::size_t row_bytes = static_cast<std::size_t>(plane.width) * bps;
    const std::size_t bytes = row_bytes * static_cast<std::size_t>(plane.height);
    if (p >= n) {
      at += bytes;
      continue;
    }
    const auto read_range = [&](std::uint8_t* dst, std::size_t len, std::uint64_t from) {
      std::size_t done = 0;
      while (done < len) {
        const ssize_t got = ::pread(fd, dst + done, len - done, static_cast<off_t>(from + done));
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) fail(fmt::format("frame {}: read failed: {}", index, std::strerror(errno)));
        if (got == 0) break;
        done += static_cast<std::size_t>(got);
      }
      return done;
    };
    std::size_t done = 0;
    if (static_cast<std::size_t>(plane.stride) == row_bytes) {
      done = read_range(plane.data, bytes, at);
    } else {
      for (int y = 0; y < plane.height; ++y) {
        const std::size_t got = read_range(plane.row<std::uint8_t>(y), row_bytes, at + y * row_bytes);
        done += got;
        if (got < row_bytes) break;
      }
    }
    if (done == 0 && p == 0 && frame_header_ == 0) return FrameAt::kEnd;
    if (done < bytes)
      fail(fmt::format("frame {} is truncated (plane {}, row {} of {}: the file ends)", index, p,
                       done / row_bytes, plane.height));
    check_samples(plane, p, index);
    at += bytes;
  }
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
  if (std::fseek(file_, static_cast<long>(frame_offset(index)), SEEK_SET) != 0)
    fail(fmt::format("cannot seek to frame {}: {}", index, std::strerror(errno)));
  frames_read_ = index;
}

VideoFormat parse_y4m_header(const std::string& header, const std::string& path) {
  static const std::string kMagic = "YUV4MPEG2";
  if (header.compare(0, kMagic.size(), kMagic) != 0)
    throw Error(fmt::format("{}: not a Y4M file (no YUV4MPEG2 signature)", path));
  VideoFormat f{0, 0, 8, ChromaFormat::k420};
  bool have_w = false, have_h = false;
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
                                  value));
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
          throw Error(fmt::format("{}: unsupported Y4M colour space C{}", path, value));
        break;
      }
      case 'F': case 'A': case 'X':
        break;  // frame rate, aspect and extensions do not change the scores
      default:
        throw Error(fmt::format("{}: Y4M header has an unknown tag '{}'", path,
                                header.substr(pos, end - pos)));
    }
    pos = end;
  }
  if (!have_w || !have_h)
    throw Error(fmt::format("{}: Y4M header lacks the {} tag", path, have_w ? "H" : "W"));
  validate_format(f, path);
  return f;
}

ChromaFormat parse_chroma_format(const std::string& text) {
  if (text == "420") return ChromaFormat::k420;
  if (text == "422") return ChromaFormat::k422;
  if (text == "444") return ChromaFormat::k444;
  if (text == "400") return ChromaFormat::k400;
  throw Error(fmt::format("unsupported pixel format '{}' (400, 420, 422 or 444)", text));
}

std::unique_ptr<FrameSource> open_y4m_stream(std::FILE* file, const std::string& name) {
  return std::make_unique<Y4mReader>(name, file);
}

namespace {

bool has_suffix(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  if (s.size() < n) return false;
  for (std::size_t i = 0; i < n; ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - n + i])) != suffix[i]) return false;
  return true;
}

}  // namespace

std::unique_ptr<FrameSource> open_video(const std::string& path, const RawVideoParams* raw) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  // Frames are read row by row; a 1 MiB buffer turns that into few large
  // read() calls instead of one per 4 KiB block (stdio's default).
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  struct stat st {};
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    // A pipe or a device: no looking ahead; raw when given its shape, else Y4M.
    if (raw) return std::make_unique<RawReader>(path, f, *raw);
    return std::make_unique<Y4mReader>(path, f);
  }
  // A regular file: the reader by content, from its first bytes (Y4M's
  // signature; what libavformat probes), then back to its start.
  std::vector<std::uint8_t> head(64 * 1024);
  const std::size_t got = std::fread(head.data(), 1, head.size(), f);
  head.resize(got);
  if (std::fseek(f, 0, SEEK_SET) != 0) {
    std::fclose(f);
    throw Error(fmt::format("{}: cannot seek back to its start: {}", path, std::strerror(errno)));
  }
  static const char kMagic[] = "YUV4MPEG2";
  const bool y4m = got >= 9 && std::memcmp(head.data(), kMagic, 9) == 0;
  const bool raw_name = has_suffix(path, ".yuv") || has_suffix(path, ".raw");
  const bool use_raw = !y4m && raw &&
                       (raw_name || got == 0 || !probe_is_video(head.data(), head.size()));
  const bool use_y4m = y4m || (!use_raw && (got == 0 || has_suffix(path, ".y4m")));
  if (!use_raw && !use_y4m) {
    std::fclose(f);
    if (raw_name)
      throw Error(fmt::format("{}: raw YUV input needs its shape: -w, -h, -p and -b", path));
    if (!compressed_input_available() || probe_is_video(head.data(), head.size()))
      return open_compressed_video(path);
    // Not recognised by content (libavformat may still take it by its
    // extension): maybe raw YUV given without its shape.
    try {
      return open_compressed_video(path);
    } catch (const Error& e) {
      throw Error(fmt::format("{} (if it is raw YUV, give its shape: -w, -h, -p and -b)",
                              e.what()));
    }
  }
  // The reader owns `f` from its base constructor on, also when a derived
  // constructor throws.
  if (use_raw) return std::make_unique<RawReader>(path, f, *raw);
  return std::make_unique<Y4mReader>(path, f);
}

}  // namespace vqe
