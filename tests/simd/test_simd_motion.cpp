// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality of the integer motion SIMD kernels and extractor:
// every SIMD level against the scalar reference, exact integers.

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/motion/motion_kernels.h"
#include "small_simd_util.h"

namespace vqe {
namespace {

using simdtest::Content;

struct Size {
  int w, h;
};
// Tiny (down to the 1x1 minimum), odd, and widths around multiples of the
// vector lengths (4, 8, 16, 32 lanes).
const Size kSizes[] = {{1, 1},  {2, 1},   {1, 3},  {3, 3},  {4, 2},   {5, 7},   {7, 5},
                       {8, 8},  {9, 3},   {15, 4}, {16, 3}, {17, 9},  {31, 6},  {33, 5},
                       {63, 3}, {65, 11}, {97, 4}, {128, 3}, {131, 13}, {257, 5}};
const int kDepths[] = {8, 10, 12, 16};
const Content kContents[] = {Content::random, Content::smooth, Content::flat, Content::extreme};

template <typename T>
void check_kernels(const Picture& a, const Picture& b, const std::string& what) {
  const int w = a.width(), h = a.height(), bpc = a.bit_depth();
  const Plane& pa = a.plane(0);
  const Plane& pb = b.plane(0);
  const std::ptrdiff_t sa = pa.stride / static_cast<std::ptrdiff_t>(sizeof(T));
  const std::ptrdiff_t sb = pb.stride / static_cast<std::ptrdiff_t>(sizeof(T));
  std::vector<std::int32_t> row32(static_cast<std::size_t>(w) + 4);
  std::vector<std::uint16_t> row16(static_cast<std::size_t>(w) + 4);
  std::vector<std::uint16_t> blur_a(static_cast<std::size_t>(w) * h), blur_b(blur_a.size());
  std::vector<std::uint16_t> simd_a(blur_a.size(), 7), simd_b(blur_a.size(), 7);

  const std::uint64_t ref_sad = motion::frame_difference_sad_scalar<T>(
      pa.row<T>(0), sa, pb.row<T>(0), sb, w, h, bpc, row32.data());
  motion::legacy_blur_scalar<T>(pa.row<T>(0), sa, blur_a.data(), w, w, h, bpc, row16.data());
  motion::legacy_blur_scalar<T>(pb.row<T>(0), sb, blur_b.data(), w, w, h, bpc, row16.data());
  const std::uint64_t ref_legacy = motion::legacy_sad_scalar(blur_a.data(), blur_b.data(), w, w, h);

  for (simd::Level level : simd::available_levels()) {
    const motion::MotionDsp& dsp = motion::motion_dsp(level);
    const auto sad = [&] {
      if constexpr (sizeof(T) == 1) return dsp.sad8;
      else return dsp.sad16;
    }();
    const auto blur = [&] {
      if constexpr (sizeof(T) == 1) return dsp.legacy_blur8;
      else return dsp.legacy_blur16;
    }();
    const std::string at = what + " @" + simd::level_name(level);
    EXPECT_EQ(ref_sad, sad(pa.row<T>(0), sa, pb.row<T>(0), sb, w, h, bpc, row32.data())) << at;
    blur(pa.row<T>(0), sa, simd_a.data(), w, w, h, bpc, row16.data());
    blur(pb.row<T>(0), sb, simd_b.data(), w, w, h, bpc, row16.data());
    EXPECT_EQ(blur_a, simd_a) << at << " legacy_blur";
    EXPECT_EQ(blur_b, simd_b) << at << " legacy_blur";
    EXPECT_EQ(ref_legacy, dsp.legacy_sad(blur_a.data(), blur_b.data(), w, w, h))
        << at << " legacy_sad";
  }
}

TEST(SimdMotion, KernelsMatchScalar) {
  std::uint32_t seed = 1;
  for (int bpc : kDepths)
    for (const Size& s : kSizes)
      for (Content ca : kContents)
        for (Content cb : {Content::random, Content::flat, Content::extreme}) {
          const VideoFormat f{s.w, s.h, bpc, ChromaFormat::k400};
          const Picture a = simdtest::make_picture(f, ca, seed++);
          const Picture b = simdtest::make_picture(f, cb, seed++);
          const std::string what = fmt::format("{}x{} {}-bit {}/{}", s.w, s.h, bpc,
                                               simdtest::content_name(ca),
                                               simdtest::content_name(cb));
          if (bpc == 8)
            check_kernels<std::uint8_t>(a, b, what);
          else
            check_kernels<std::uint16_t>(a, b, what);
        }
}

// Frames whose difference is extreme in every row (0 / max stripes against
// the inverse) drive the 16-bit split arithmetic to its bounds.
TEST(SimdMotion, ExtremeStripes16Bit) {
  for (int w : {5, 16, 37}) {
    const VideoFormat f{w, 9, 16, ChromaFormat::k400};
    Picture a(f), b(f);
    for (int y = 0; y < 9; ++y)
      for (int x = 0; x < w; ++x) {
        const bool on = ((x / 2 + y / 3) & 1) != 0;
        a.plane(0).row<std::uint16_t>(y)[x] = on ? 65535 : 0;
        b.plane(0).row<std::uint16_t>(y)[x] = on ? 0 : 65535;
      }
    check_kernels<std::uint16_t>(a, b, fmt::format("stripes {}x9", w));
  }
}

TEST(SimdMotion, ExtractorMatchesScalar) {
  struct Case {
    int w, h, bpc;
  };
  const Case cases[] = {{1, 1, 8},   {3, 2, 10},   {17, 9, 8},  {33, 17, 10},
                        {65, 7, 12}, {37, 11, 16}, {160, 90, 8}};
  const std::vector<OptionValues> option_sets = {
      {},
      {{"motion_five_frame_window", "false"}, {"debug", "true"}},
      {{"motion_legacy", "true"}},
      {{"motion_legacy", "true"}, {"motion_five_frame_window", "false"}},
  };
  std::uint32_t seed = 100;
  for (const Case& c : cases)
    for (std::size_t o = 0; o < option_sets.size(); ++o) {
      const VideoFormat f{c.w, c.h, c.bpc, ChromaFormat::k420};
      std::vector<std::pair<Picture, Picture>> frames;
      for (Content content : {Content::smooth, Content::random, Content::flat, Content::smooth,
                              Content::extreme, Content::smooth}) {
        Picture p = simdtest::make_picture(f, content, seed++);
        Picture d = simdtest::distort(p, 3, seed++);
        frames.emplace_back(std::move(p), std::move(d));
      }
      const FeatureCollector ref =
          simdtest::run_at(simd::Level::scalar, "motion", option_sets[o], frames);
      for (simd::Level level : simdtest::simd_levels())
        simdtest::expect_same_bits(ref, simdtest::run_at(level, "motion", option_sets[o], frames),
                                   fmt::format("motion {}x{} {}-bit options #{} @{}", c.w, c.h,
                                               c.bpc, o, simd::level_name(level)));
    }
}

}  // namespace
}  // namespace vqe
