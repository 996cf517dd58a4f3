// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Benchmark frames made from one real frame pair, without ffmpeg (the
/// GPU machine has none): the first frame of a 1080p reference and of its
/// real encode, panned by a few pixels per frame (edge samples replicated)
/// as in a camera pan, and for 2160p 10-bit the same frames upscaled 2x with
/// bilinear interpolation computed at 10-bit precision (so the low bits are
/// not zero). Used by vqe_gpu_bench (frames in RAM) and vqe_bench_input
/// (Y4M files for scripts/bench --e2e).

#include <string>
#include <vector>

#include "vqe/picture.h"

namespace vqe::bench {

/// The first frame of the Y4M or raw file `path` (Y4M only here). Throws
/// vqe::Error when it has none.
Picture read_first_frame(const std::string& path);

/// `src` shifted left/up by (dx, dy) >= 0 luma samples (chroma by half), the
/// right and bottom edges replicated.
Picture panned(const Picture& src, int dx, int dy);

/// 8-bit `src` upscaled 2x (bilinear, sample centres aligned) into 10 bits.
Picture upscale_to_10bit(const Picture& src);

/// The pan offset of benchmark frame `k`: dx = 2·(k mod 48), dy = k mod 32.
inline void pan_offset(unsigned k, int* dx, int* dy) {
  *dx = static_cast<int>(k % 48) * 2;
  *dy = static_cast<int>(k % 32);
}

/// Frames 0..count-1 of `ref` and `dist` panned (pan_offset), made on up to
/// 16 threads.
void make_pan_frames(const Picture& ref, const Picture& dist, unsigned count,
                     std::vector<Picture>* ref_frames, std::vector<Picture>* dist_frames);

}  // namespace vqe::bench
