// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Helpers shared by the SIMD equality tests of the smaller extractors
// (motion, psnr, float_moment, float_ansnr, float_ssim, float_ms_ssim):
// synthetic frames, running an extractor at one SIMD level, and bitwise
// comparison of two runs.

#include <array>
#include <bit>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/simd.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe::simdtest {

/// How a synthetic plane is filled.
enum class Content {
  random,   ///< uniform over [0, 2^bpc - 1]: every low bit exercised
  smooth,   ///< gradient plus small noise (natural-ish content)
  flat,     ///< one value everywhere
  extreme,  ///< checkerboard of 0 and 2^bpc - 1 (largest differences)
};

inline const char* content_name(Content c) {
  switch (c) {
    case Content::random: return "random";
    case Content::smooth: return "smooth";
    case Content::flat: return "flat";
    case Content::extreme: return "extreme";
  }
  return "?";
}

/// Fills every plane of `p` per `content`; reproducible from `seed`.
inline void fill_picture(Picture& p, Content content, std::uint32_t seed) {
  std::mt19937 rng(seed);
  const int maxv = (1 << p.bit_depth()) - 1;
  std::uniform_int_distribution<int> any(0, maxv);
  std::uniform_int_distribution<int> noise(-(maxv / 64) - 1, maxv / 64 + 1);
  const int flat_value = static_cast<int>(seed % static_cast<std::uint32_t>(maxv + 1));
  const int phase = static_cast<int>(seed & 1);
  for (int i = 0; i < p.num_planes(); ++i) {
    Plane& pl = p.plane(i);
    for (int y = 0; y < pl.height; ++y)
      for (int x = 0; x < pl.width; ++x) {
        int v = 0;
        switch (content) {
          case Content::random: v = any(rng); break;
          case Content::smooth:
            v = (x * 7 + y * 3 + static_cast<int>(seed % 97)) * (maxv + 1) / 1024 % (maxv + 1) +
                noise(rng);
            v = v < 0 ? 0 : (v > maxv ? maxv : v);
            break;
          case Content::flat: v = flat_value; break;
          case Content::extreme: v = ((x + y + phase) & 1) ? maxv : 0; break;
        }
        if (p.bit_depth() == 8)
          pl.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
        else
          pl.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
      }
  }
}

inline Picture make_picture(const VideoFormat& f, Content content, std::uint32_t seed) {
  Picture p(f);
  fill_picture(p, content, seed);
  return p;
}

/// `ref` with every sample moved by up to ±amount (clamped), from `seed`.
inline Picture distort(const Picture& ref, int amount, std::uint32_t seed) {
  Picture p(ref.format());
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> d(-amount, amount);
  const int maxv = (1 << ref.bit_depth()) - 1;
  for (int i = 0; i < ref.num_planes(); ++i)
    for (int y = 0; y < ref.plane(i).height; ++y)
      for (int x = 0; x < ref.plane(i).width; ++x) {
        if (ref.bit_depth() == 8) {
          int v = ref.plane(i).row<std::uint8_t>(y)[x] + d(rng);
          p.plane(i).row<std::uint8_t>(y)[x] =
              static_cast<std::uint8_t>(v < 0 ? 0 : (v > maxv ? maxv : v));
        } else {
          int v = ref.plane(i).row<std::uint16_t>(y)[x] + d(rng);
          p.plane(i).row<std::uint16_t>(y)[x] =
              static_cast<std::uint16_t>(v < 0 ? 0 : (v > maxv ? maxv : v));
        }
      }
  return p;
}

/// Runs extractor `name` at SIMD level `level` over `frames` (init, extract
/// in order, flush).
inline FeatureCollector run_at(simd::Level level, const std::string& name,
                               const OptionValues& options,
                               const std::vector<std::pair<Picture, Picture>>& frames) {
  auto e = make_extractor(name, options, level);
  e->init(frames.front().first.format());
  FeatureCollector out;
  for (unsigned i = 0; i < frames.size(); ++i)
    e->extract(frames[i].first, frames[i].second, i, out);
  e->flush(out);
  return out;
}

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}
inline bool same_bits(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

/// Adds a failure for every value (per frame and aggregate) whose bits
/// differ between the two runs; returns the number of differences.
inline int expect_same_bits(const FeatureCollector& expected, const FeatureCollector& actual,
                            const std::string& what) {
  int bad = 0;
  EXPECT_EQ(expected.names(), actual.names()) << what;
  EXPECT_EQ(expected.frame_count(), actual.frame_count()) << what;
  for (const std::string& n : expected.names())
    for (unsigned i = 0; i < expected.frame_count(); ++i) {
      const auto a = expected.get(n, i);
      const auto b = actual.get(n, i);
      if (a.has_value() != b.has_value() || (a && !same_bits(*a, *b))) {
        ++bad;
        ADD_FAILURE() << what << ": " << n << " frame " << i << ": scalar "
                      << fmt::format("{:.17g}", a.value_or(-1)) << " simd "
                      << fmt::format("{:.17g}", b.value_or(-1));
      }
    }
  const auto ea = expected.aggregates();
  const auto aa = actual.aggregates();
  EXPECT_EQ(ea.size(), aa.size()) << what;
  for (std::size_t i = 0; i < ea.size() && i < aa.size(); ++i)
    if (ea[i].first != aa[i].first || !same_bits(ea[i].second, aa[i].second)) {
      ++bad;
      ADD_FAILURE() << what << ": aggregate " << ea[i].first << " differs";
    }
  return bad;
}

/// Levels above scalar that this CPU runs.
inline std::vector<simd::Level> simd_levels() {
  std::vector<simd::Level> out;
  for (simd::Level l : simd::available_levels())
    if (l != simd::Level::scalar) out.push_back(l);
  return out;
}

/// Runs extractor `name` with each option set on frame pairs (smooth,
/// random and flat content, lightly distorted, plus an identical pair) of
/// each {width, height, bit depth} case (4:2:0), and expects every SIMD
/// level to give the scalar level's values bit for bit, or to refuse the
/// same sizes.
inline void check_extractor_levels(const std::string& name,
                                   const std::vector<OptionValues>& option_sets,
                                   const std::vector<std::array<int, 3>>& cases) {
  std::uint32_t seed = 900;
  for (const auto& c : cases)
    for (const OptionValues& opts : option_sets) {
      const VideoFormat f{c[0], c[1], c[2], ChromaFormat::k420};
      std::vector<std::pair<Picture, Picture>> frames;
      for (Content content : {Content::smooth, Content::random, Content::flat}) {
        Picture p = make_picture(f, content, seed++);
        Picture d = distort(p, 1 << (c[2] - 6), seed++);
        frames.emplace_back(std::move(p), std::move(d));
      }
      frames.emplace_back(make_picture(f, Content::smooth, seed),
                          make_picture(f, Content::smooth, seed));
      ++seed;
      FeatureCollector ref;
      try {
        ref = run_at(simd::Level::scalar, name, opts, frames);
      } catch (const Error&) {
        for (simd::Level level : simd_levels())
          EXPECT_THROW(run_at(level, name, opts, frames), Error);
        continue;
      }
      for (simd::Level level : simd_levels())
        expect_same_bits(ref, run_at(level, name, opts, frames),
                         fmt::format("{} {}x{} {}-bit @{}", name, c[0], c[1], c[2],
                                     simd::level_name(level)));
    }
}

}  // namespace vqe::simdtest
