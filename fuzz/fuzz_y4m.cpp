// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: the Y4M reader must accept or refuse any byte string
// with vqe::Error, never crash or read out of bounds.
#include <cstdint>
#include <cstdio>

#include "io/video_reader.h"
#include "vqe/error.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::FILE* f = fmemopen(const_cast<std::uint8_t*>(data), size, "rb");
  if (!f) return 0;
  try {
    auto reader = vqe::open_y4m_stream(f, "fuzz.y4m");
    const vqe::VideoFormat& fmt = reader->format();
    // Keep allocations small: the reader itself accepts up to 32768².
    if (static_cast<long long>(fmt.width) * fmt.height > (1 << 20)) return 0;
    vqe::Picture pic;
    for (int i = 0; i < 8 && reader->read(pic); ++i) {
    }
  } catch (const vqe::Error&) {
  }
  return 0;
}
