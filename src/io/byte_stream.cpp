// SPDX-License-Identifier: BSD-2-Clause
#include "io/byte_stream.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe {
namespace {

// Large blocks: frames are read row by row, and a pipe delivers 64 KiB at a
// time; 1 MiB makes few read() calls of either.
constexpr std::size_t kBlockBytes = std::size_t{1} << 20;

class FdStream final : public ByteStream {
 public:
  FdStream(int fd, bool owned, std::string name)
      : ByteStream(std::move(name)), fd_(fd), owned_(owned) {}
  ~FdStream() override {
    if (owned_) ::close(fd_);
  }

 protected:
  std::size_t fill(void* dst, std::size_t bytes) override {
    for (;;) {
      const ssize_t n = ::read(fd_, dst, bytes);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: cannot read: {}", name(), std::strerror(errno)));
    }
  }
  bool seek_source(std::int64_t offset, int whence) override {
    return ::lseek(fd_, static_cast<off_t>(offset), whence) >= 0;
  }

 private:
  int fd_;
  bool owned_;
};

class StdioStream final : public ByteStream {
 public:
  StdioStream(std::FILE* file, std::string name) : ByteStream(std::move(name)), file_(file) {}
  ~StdioStream() override { std::fclose(file_); }

 protected:
  std::size_t fill(void* dst, std::size_t bytes) override {
    const std::size_t n = std::fread(dst, 1, bytes, file_);
    if (n == 0 && std::ferror(file_))
      throw Error(fmt::format("{}: cannot read: {}", name(), std::strerror(errno)));
    return n;
  }
  bool seek_source(std::int64_t offset, int whence) override {
    return ::fseeko(file_, static_cast<off_t>(offset), whence) == 0;
  }

 private:
  std::FILE* file_;
};

}  // namespace

ByteStream::ByteStream(std::string name) : name_(std::move(name)) {}

std::unique_ptr<ByteStream> ByteStream::from_fd(int fd, bool owned, std::string name) {
  return std::make_unique<FdStream>(fd, owned, std::move(name));
}

std::unique_ptr<ByteStream> ByteStream::from_file(std::FILE* file, std::string name) {
  return std::make_unique<StdioStream>(file, std::move(name));
}

bool ByteStream::refill() {
  if (at_end_) return false;
  if (buffer_.empty()) buffer_.resize(kBlockBytes);
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) return true;  // full: nothing to read into
  const std::size_t n = fill(buffer_.data() + end_, buffer_.size() - end_);
  if (n == 0) at_end_ = true;
  end_ += n;
  return n > 0;
}

std::size_t ByteStream::read(void* dst, std::size_t bytes) {
  auto* out = static_cast<std::uint8_t*>(dst);
  std::size_t done = 0;
  while (done < bytes) {
    if (begin_ == end_) {
      // Large requests bypass the buffer.
      if (bytes - done >= kBlockBytes && !at_end_) {
        const std::size_t n = fill(out + done, bytes - done);
        if (n == 0) {
          at_end_ = true;
          break;
        }
        done += n;
        continue;
      }
      if (!refill()) break;
    }
    const std::size_t n = std::min(bytes - done, end_ - begin_);
    std::memcpy(out + done, buffer_.data() + begin_, n);
    begin_ += n;
    done += n;
  }
  consumed_ += done;
  return done;
}

int ByteStream::get() {
  if (begin_ == end_ && !refill()) return -1;
  ++consumed_;
  return buffer_[begin_++];
}

std::string_view ByteStream::peek(std::size_t bytes) {
  bytes = std::min(bytes, kBlockBytes);
  while (end_ - begin_ < bytes && refill()) {
  }
  return {reinterpret_cast<const char*>(buffer_.data()) + begin_,
          std::min(bytes, end_ - begin_)};
}

std::uint64_t ByteStream::skip(std::uint64_t bytes) {
  // What is buffered first.
  const std::uint64_t buffered = std::min<std::uint64_t>(bytes, end_ - begin_);
  begin_ += static_cast<std::size_t>(buffered);
  consumed_ += buffered;
  std::uint64_t left = bytes - buffered;
  if (left == 0) return bytes;
  if (!at_end_ && seek_source(static_cast<std::int64_t>(left), SEEK_CUR)) {
    consumed_ += left;
    return bytes;
  }
  // A pipe or device: read and drop.
  while (left > 0) {
    if (begin_ == end_ && !refill()) break;
    const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, end_ - begin_));
    begin_ += n;
    consumed_ += n;
    left -= n;
  }
  return bytes - left;
}

void ByteStream::seek(std::uint64_t offset) {
  if (!seek_source(static_cast<std::int64_t>(offset), SEEK_SET))
    throw Error(fmt::format("{}: cannot seek: {}", name_, std::strerror(errno)));
  begin_ = end_ = 0;
  at_end_ = false;
  consumed_ = offset;
}

}  // namespace vqe
