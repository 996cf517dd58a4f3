// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file A buffered byte source over a file descriptor or a stdio stream,
/// with look-ahead: the readers detect a file's format from its first bytes
/// (pipes cannot seek back), then read frames from the same buffer.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace vqe {

/// Reads bytes in large blocks (1 MiB) and hands them out in any size; a
/// request larger than the block goes straight into the caller's memory.
/// Read errors throw vqe::Error naming the source and the system's reason.
/// Not thread-safe.
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  ByteStream(const ByteStream&) = delete;
  ByteStream& operator=(const ByteStream&) = delete;

  /// A stream over descriptor `fd`; closes it when destroyed if `owned`.
  static std::unique_ptr<ByteStream> from_fd(int fd, bool owned, std::string name);
  /// A stream over a stdio stream (e.g. from fmemopen); closes it when
  /// destroyed.
  static std::unique_ptr<ByteStream> from_file(std::FILE* file, std::string name);

  /// Copies up to `bytes` bytes into `dst`; returns how many were copied,
  /// fewer only at the end of the stream.
  std::size_t read(void* dst, std::size_t bytes);
  /// The next byte (0..255), or -1 at the end of the stream.
  int get();
  /// The next bytes without consuming them: `bytes` of them, or fewer at the
  /// end of the stream (`bytes` must not exceed the block size).
  std::string_view peek(std::size_t bytes);
  /// Bytes consumed so far (after seek(): counted from the offset given).
  std::uint64_t position() const { return consumed_; }
  /// Consumes `bytes` bytes without keeping them: moves past them where the
  /// source can seek (a regular file: nothing is read, and the caller checks
  /// the size), else reads and drops them. Returns how many were consumed,
  /// fewer only at the end of a source that cannot seek.
  std::uint64_t skip(std::uint64_t bytes);
  /// Makes reading continue at byte `offset` of the source (a regular file),
  /// dropping what was buffered; position() then says `offset`. Throws
  /// vqe::Error naming the system's reason when the source cannot seek.
  void seek(std::uint64_t offset);

 protected:
  explicit ByteStream(std::string name);
  /// Reads up to `bytes` bytes from the source; 0 at its end. Throws on
  /// read errors.
  virtual std::size_t fill(void* dst, std::size_t bytes) = 0;
  /// Moves the source's position as lseek(offset, whence) does. Returns
  /// false (errno set) when the source cannot seek.
  virtual bool seek_source(std::int64_t offset, int whence) = 0;
  const std::string& name() const { return name_; }

 private:
  /// Moves the unread bytes to the front and reads more behind them.
  /// Returns false when the source had nothing more.
  bool refill();

  std::string name_;
  std::vector<std::uint8_t> buffer_;
  std::size_t begin_ = 0;  // first unread byte in buffer_
  std::size_t end_ = 0;    // one past the last valid byte in buffer_
  bool at_end_ = false;
  std::uint64_t consumed_ = 0;
};

}  // namespace vqe
