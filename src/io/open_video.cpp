// SPDX-License-Identifier: BSD-2-Clause
// open_video: inputs by content, not by name. A path (or "-", standard
// input) is opened once; its first bytes decide between Y4M and raw YUV, and
// the reader continues from the same buffer, so pipes, FIFOs and character
// devices work like files.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "io/libav.h"
#include "io/video_reader.h"
#include "vqe/error.h"

namespace vqe {
namespace {

constexpr std::string_view kY4mMagic = "YUV4MPEG2";
// The name of input `path` in messages ("-" is standard input).
std::string message_name(const std::string& path) {
  return path == "-" ? std::string("standard input") : path;
}
// Bytes libavformat's probe sees (its own probes read up to 1 MiB; the
// first 64 KiB decide for every container VQE expects).
constexpr std::size_t kProbeBytes = 64 * 1024;

// True when `s` ends with `suffix` (lower case), ignoring case.
bool has_suffix(const std::string& s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i])
      return false;
  return true;
}

FileIdentity identity_of(const struct stat& st, bool is_stdin) {
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino),
                      S_ISREG(st.st_mode) || S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode),
                      is_stdin};
}

// Opens `path` ("-": descriptor 0, not closed afterwards) and describes it.
OpenedInput open_input(const std::string& path) {
  const bool is_stdin = path == "-";
  int fd = 0;
  if (!is_stdin) {
    do {
      fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    if (!is_stdin) ::close(fd);
    throw Error(fmt::format("{}: cannot open: {}", path, std::strerror(err)));
  }
  if (S_ISDIR(st.st_mode)) {
    if (!is_stdin) ::close(fd);
    throw Error(fmt::format("{}: is a directory", path));
  }
  OpenedInput in;
  in.identity = identity_of(st, is_stdin);
  // A regular file's size, counted from where reading starts (standard
  // input may be a file already partly read). /proc files say 0: unknown.
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const off_t at = ::lseek(fd, 0, SEEK_CUR);
    if (at >= 0 && at <= st.st_size) {
      in.size = static_cast<std::uint64_t>(st.st_size - at);
      // Frames at computable offsets may be read in parallel (read_at).
      in.fd = fd;
      in.start = static_cast<std::uint64_t>(at);
    }
  }
  in.stream = ByteStream::from_fd(fd, !is_stdin, message_name(path));
  return in;
}

}  // namespace

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat st {};
  const bool is_stdin = path == "-";
  if ((is_stdin ? ::fstat(0, &st) : ::stat(path.c_str(), &st)) != 0) return std::nullopt;
  return identity_of(st, is_stdin);
}

void check_separate_inputs(const std::string& a_name, const FileIdentity& a,
                           const std::string& b_name, const FileIdentity& b) {
  if (a.standard_input && b.standard_input)
    throw Error(fmt::format("{} read standard input: give each input its own file or stream",
                            a_name == b_name ? "both inputs" : a_name + " and " + b_name + " both"));
  if (a.same_file(b) && !(a.reopenable && b.reopenable))
    throw Error(fmt::format("{} and {} are the same stream (a pipe, FIFO or socket): the two "
                            "inputs would share its frames; give each input its own file or stream",
                            a_name, b_name));
}

std::unique_ptr<FrameSource> open_video(const std::string& path, const RawVideoParams* raw,
                                        const WarningHandler& on_warning) {
  return open_video(path, raw, on_warning, DecodeOptions{});
}

std::unique_ptr<FrameSource> open_video(const std::string& path, const RawVideoParams* raw,
                                        const WarningHandler& on_warning,
                                        const DecodeOptions& decode) {
  OpenedInput in = open_input(path);
  const std::string name = message_name(path);
  const std::string_view head = in.stream->peek(kY4mMagic.size() + 1);
  if (head.empty()) throw Error(fmt::format("{}: is empty", name));
  const bool y4m = head.substr(0, kY4mMagic.size()) == kY4mMagic &&
                   (head.size() == kY4mMagic.size() || head.back() == ' ' || head.back() == '\n');
  if (y4m) return make_y4m_reader(name, std::move(in), on_warning);
  // Compressed files (MP4, MKV, WebM, IVF, elementary streams) through
  // FFmpeg's libraries, which open them by path: regular files only. With
  // a raw shape given, a .yuv/.raw name or content libavformat does not
  // recognise stays raw YUV.
  const bool regular = in.fd >= 0 && path != "-";
  const bool raw_name = has_suffix(path, ".yuv") || has_suffix(path, ".raw");
  if (regular && !raw_name && compressed_input_available()) {
    const std::string_view probe = in.stream->peek(kProbeBytes);
    const bool video =
        probe_is_video(reinterpret_cast<const std::uint8_t*>(probe.data()), probe.size());
    // Unrecognised content named .y4m is a broken Y4M file, said below as such.
    if (video || (!raw && !has_suffix(path, ".y4m"))) {
      in = OpenedInput{};  // closes the file: libavformat opens it itself
      if (video) return open_compressed_video(path, decode);
      // Not recognised by content (libavformat may still take it by its
      // name): maybe raw YUV given without its shape.
      try {
        return open_compressed_video(path, decode);
      } catch (const Error& e) {
        throw Error(fmt::format("{} (if it is raw YUV, give its width, height, pixel format and "
                                "bit depth: -w, -h, -p, -b)",
                                e.what()));
      }
    }
  }
  if (!raw) {
    const std::string ffmpeg_problem = compressed_input_problem();
    throw Error(fmt::format("{}: not a Y4M file (it starts with \"{}\", not \"YUV4MPEG2 \"){}; raw "
                            "YUV input needs its width, height, pixel format and bit depth "
                            "(-w, -h, -p, -b)",
                            name, printable(in.stream->peek(16), 16),
                            compressed_input_available() && !raw_name
                                ? " nor a file FFmpeg's libraries read"
                            : regular && !raw_name && !ffmpeg_problem.empty()
                                ? " (and " + ffmpeg_problem + ")"
                                : std::string()));
  }
  return make_raw_reader(name, std::move(in), *raw);
}

}  // namespace vqe
