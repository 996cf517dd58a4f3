// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Shared set-up of the micro benchmarks of the smaller extractors (motion,
// psnr, float_ssim, float_ms_ssim, float_moment, float_ansnr): two frame
// sizes, scalar against the best SIMD level.
//
// Every benchmark takes two arguments: the frame (0 = 1920x1080 8-bit,
// 1 = 3840x2160 10-bit) and the level (0 = scalar, 1 = simd::max_level()).

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "core/float_plane.h"
#include "core/simd.h"
#include "core/extractor.h"

namespace vqe::benchsmall {

inline VideoFormat bench_format(std::int64_t which) {
  return which == 0 ? VideoFormat{1920, 1080, 8, ChromaFormat::k420}
                    : VideoFormat{3840, 2160, 10, ChromaFormat::k420};
}

inline simd::Level bench_level(std::int64_t which) {
  return which == 0 ? simd::Level::scalar : simd::max_level();
}

inline std::string bench_label(std::int64_t frame, std::int64_t level) {
  const VideoFormat f = bench_format(frame);
  return std::to_string(f.width) + "x" + std::to_string(f.height) + "/" +
         std::to_string(f.bit_depth) + "bit/" + simd::level_name(bench_level(level));
}

/// Natural-ish content: a gradient plus noise; `shift` moves it (motion).
inline Picture bench_picture(const VideoFormat& f, std::uint32_t seed, int shift = 0) {
  Picture p(f);
  std::mt19937 rng(seed);
  const int maxv = (1 << f.bit_depth) - 1;
  std::uniform_int_distribution<int> noise(-(maxv / 32), maxv / 32);
  for (int i = 0; i < p.num_planes(); ++i) {
    Plane& pl = p.plane(i);
    for (int y = 0; y < pl.height; ++y)
      for (int x = 0; x < pl.width; ++x) {
        int v = ((x + shift) * 3 + y * 2) % (maxv + 1) / 2 + maxv / 4 + noise(rng);
        v = v < 0 ? 0 : (v > maxv ? maxv : v);
        if (f.bit_depth == 8)
          pl.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
        else
          pl.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
      }
  }
  return p;
}

/// Reference and distorted frames of one size, made once per process.
struct FramePair {
  Picture ref, dist, ref_next;
};
inline const FramePair& bench_frames(std::int64_t which) {
  static std::unique_ptr<FramePair> pairs[2];
  if (!pairs[which]) {
    const VideoFormat f = bench_format(which);
    pairs[which] = std::make_unique<FramePair>(
        FramePair{bench_picture(f, 1), bench_picture(f, 2), bench_picture(f, 3, 2)});
  }
  return *pairs[which];
}

/// The timed loop: one extract() of the initialised `e` per iteration, the
/// reference alternating between fr.ref and fr.ref_next (motion sees change).
inline void extract_each_iteration(benchmark::State& state, FeatureExtractor& e,
                                   const FramePair& fr) {
  FeatureCollector out;
  unsigned index = 0;
  for (auto _ : state) {
    const Picture& r = (index & 1) ? fr.ref_next : fr.ref;
    e.extract(r, fr.dist, index, out);
    ++index;
  }
}

/// Times extractor `name` per frame (extract only; init outside the loop).
inline void bench_extractor(benchmark::State& state, const std::string& name,
                            const OptionValues& options = {}) {
  const FramePair& fr = bench_frames(state.range(0));
  auto e = make_extractor(name, options, bench_level(state.range(1)));
  e->init(fr.ref.format());
  extract_each_iteration(state, *e, fr);
  state.SetLabel(bench_label(state.range(0), state.range(1)));
}

/// Reference and distorted luma as dense float images.
struct FloatFrames {
  int w = 0, h = 0;
  std::vector<float> ref, dist;
};

/// Luma of bench_frames(which) as floats on the 8-bit scale (made once).
inline const FloatFrames& float_frames(std::int64_t which) {
  static std::unique_ptr<FloatFrames> cache[2];
  if (!cache[which]) {
    const auto& fr = bench_frames(which);
    auto f = std::make_unique<FloatFrames>();
    f->w = fr.ref.width();
    f->h = fr.ref.height();
    f->ref.resize(static_cast<std::size_t>(f->w) * f->h);
    f->dist.resize(f->ref.size());
    plane_to_float(fr.ref.plane(0), fr.ref.bit_depth(), 0.0f, f->ref.data());
    plane_to_float(fr.dist.plane(0), fr.dist.bit_depth(), 0.0f, f->dist.data());
    cache[which] = std::move(f);
  }
  return *cache[which];
}

#define VQE_SMALL_BENCH_ARGS \
  ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond)->UseRealTime()

}  // namespace vqe::benchsmall
