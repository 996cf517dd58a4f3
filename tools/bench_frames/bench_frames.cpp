// SPDX-License-Identifier: BSD-2-Clause
#include "bench_frames.h"

#include <algorithm>
#include <cstring>
#include <thread>

#include "vqe/error.h"
#include "vqe/io.h"

namespace vqe::bench {
namespace {

template <typename T>
T sample_at(const Plane& p, int x, int y) {
  x = std::clamp(x, 0, p.width - 1);
  y = std::clamp(y, 0, p.height - 1);
  return p.row<T>(y)[x];
}

template <typename T>
void pan_plane(const Plane& in, Plane& o, int sx, int sy) {
  const int w = o.width, keep = std::max(0, w - sx);
  for (int y = 0; y < o.height; ++y) {
    const T* src = in.row<T>(std::min(y + sy, in.height - 1));
    T* dst = o.row<T>(y);
    std::memcpy(dst, src + std::min(sx, w - 1), sizeof(T) * keep);
    std::fill(dst + keep, dst + w, src[w - 1]);
  }
}

}  // namespace

Picture read_first_frame(const std::string& path) {
  auto reader = open_video(path, nullptr);
  Picture pic(reader->format());
  if (!reader->read(pic)) throw Error(path + ": no frame");
  return pic;
}

Picture panned(const Picture& src, int dx, int dy) {
  Picture out(src.format());
  for (int p = 0; p < src.num_planes(); ++p) {
    const int sx = p ? dx / 2 : dx, sy = p ? dy / 2 : dy;
    if (src.bit_depth() > 8)
      pan_plane<std::uint16_t>(src.plane(p), out.plane(p), sx, sy);
    else
      pan_plane<std::uint8_t>(src.plane(p), out.plane(p), sx, sy);
  }
  return out;
}

Picture upscale_to_10bit(const Picture& src) {
  VideoFormat f = src.format();
  f.width *= 2;
  f.height *= 2;
  f.bit_depth = 10;
  Picture out(f);
  for (int p = 0; p < out.num_planes(); ++p) {
    const Plane& in = src.plane(p);
    Plane& o = out.plane(p);
    for (int y = 0; y < o.height; ++y) {
      // Source position (y + 0.5) / 2 - 0.5 in quarter samples: (2y - 1) / 4.
      const int qy = 2 * y - 1;
      const int y0 = qy >= 0 ? qy / 4 : -1, wy = qy - 4 * y0;  // weight of y0 + 1, in quarters
      for (int x = 0; x < o.width; ++x) {
        const int qx = 2 * x - 1;
        const int x0 = qx >= 0 ? qx / 4 : -1, wx = qx - 4 * x0;
        const int a = sample_at<std::uint8_t>(in, x0, y0), b = sample_at<std::uint8_t>(in, x0 + 1, y0);
        const int c = sample_at<std::uint8_t>(in, x0, y0 + 1),
                  d = sample_at<std::uint8_t>(in, x0 + 1, y0 + 1);
        const int top = a * (4 - wx) + b * wx, bottom = c * (4 - wx) + d * wx;
        const int v16 = top * (4 - wy) + bottom * wy;  // 8-bit value x 16
        o.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(std::min(1023, (v16 + 2) / 4));
      }
    }
  }
  return out;
}

void make_pan_frames(const Picture& ref, const Picture& dist, unsigned count,
                     std::vector<Picture>* ref_frames, std::vector<Picture>* dist_frames) {
  ref_frames->clear();
  ref_frames->resize(count);
  dist_frames->clear();
  dist_frames->resize(count);
  const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < workers; ++t)
    pool.emplace_back([&, t] {
      for (unsigned k = t; k < count; k += workers) {
        int dx = 0, dy = 0;
        pan_offset(k, &dx, &dy);
        (*ref_frames)[k] = panned(ref, dx, dy);
        (*dist_frames)[k] = panned(dist, dx, dy);
      }
    });
  for (auto& th : pool) th.join();
}

}  // namespace vqe::bench
