// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality for "motion_v2": its SAD kernels (motion's sad8 /
// sad16, MotionDsp) on the sizes motion_v2 accepts (>= 3x3), and the whole
// extractor, at every SIMD level against the scalar reference, exact.

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/motion/motion_kernels.h"
#include "small_simd_util.h"

namespace vqe {
namespace {

using simdtest::Content;

// From the 3x3 minimum up; widths around multiples of 4, 8, 16 and 32 lanes
// and tall, narrow frames.
const std::array<int, 2> kSizes[] = {{3, 3},  {4, 3},   {3, 4},  {5, 5},   {7, 3},   {8, 4},
                                     {9, 6},  {15, 3},  {16, 5}, {17, 3},  {31, 4},  {32, 3},
                                     {33, 7}, {47, 5},  {63, 3}, {64, 4},  {65, 9},  {95, 3},
                                     {129, 5}, {3, 40}, {6, 33}, {257, 3}};

template <typename T>
void check_sad(const Picture& prev, const Picture& cur, const std::string& what) {
  const int w = cur.width(), h = cur.height(), bpc = cur.bit_depth();
  const Plane& pp = prev.plane(0);
  const Plane& pc = cur.plane(0);
  const std::ptrdiff_t sp = pp.stride / static_cast<std::ptrdiff_t>(sizeof(T));
  const std::ptrdiff_t sc = pc.stride / static_cast<std::ptrdiff_t>(sizeof(T));
  std::vector<std::int32_t> row(static_cast<std::size_t>(w) + 4);
  const std::uint64_t want = motion::frame_difference_sad_scalar<T>(pp.row<T>(0), sp, pc.row<T>(0),
                                                                    sc, w, h, bpc, row.data());
  for (simd::Level level : simd::available_levels()) {
    const motion::MotionDsp& dsp = motion::motion_dsp(level);
    std::uint64_t got;
    if constexpr (sizeof(T) == 1)
      got = dsp.sad8(pp.row<T>(0), sp, pc.row<T>(0), sc, w, h, bpc, row.data());
    else
      got = dsp.sad16(pp.row<T>(0), sp, pc.row<T>(0), sc, w, h, bpc, row.data());
    EXPECT_EQ(got, want) << what << " @" << simd::level_name(level);
  }
}

TEST(SimdMotionV2, SadKernelsMatchScalar) {
  std::uint32_t seed = 7000;
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : kSizes)
      for (Content a : {Content::random, Content::smooth, Content::flat, Content::extreme})
        for (Content b : {Content::random, Content::smooth, Content::extreme}) {
          const VideoFormat f{s[0], s[1], bpc, ChromaFormat::k400};
          const Picture prev = simdtest::make_picture(f, a, seed++);
          const Picture cur = simdtest::make_picture(f, b, seed++);
          const std::string what = fmt::format("{}x{} {}-bit {}/{}", s[0], s[1], bpc,
                                               simdtest::content_name(a),
                                               simdtest::content_name(b));
          if (bpc == 8)
            check_sad<std::uint8_t>(prev, cur, what);
          else
            check_sad<std::uint16_t>(prev, cur, what);
        }
}

TEST(SimdMotionV2, ExtractorMatchesScalar) {
  // Every size class, every depth; below 3x3 every level must refuse alike.
  const std::vector<std::array<int, 3>> cases = {
      {2, 2, 8},   {3, 3, 8},    {3, 3, 16},  {5, 4, 10},   {17, 9, 8},   {33, 17, 10},
      {65, 7, 12}, {37, 11, 16}, {160, 90, 8}, {131, 13, 12}, {64, 64, 16}, {257, 5, 10}};
  const std::vector<OptionValues> option_sets = {
      {},
      {{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "2"},
       {"motion_fps_weight", "1.5"}, {"motion_max_val", "8"}, {"motion_moving_average", "true"}},
      {{"motion_force_zero", "true"}},
  };
  simdtest::check_extractor_levels("motion_v2", option_sets, cases);
}

// Frames whose difference is extreme in every row drive the 16-bit split
// arithmetic of the SIMD passes to their bounds.
TEST(SimdMotionV2, ExtremeStripes) {
  for (int bpc : {8, 16})
    for (int w : {3, 5, 16, 37, 70}) {
      const int top = (1 << bpc) - 1;
      const VideoFormat f{w, 9, bpc, ChromaFormat::k400};
      Picture a(f), b(f);
      for (int y = 0; y < 9; ++y)
        for (int x = 0; x < w; ++x) {
          const bool on = ((x / 2 + y / 3) & 1) != 0;
          if (bpc == 8) {
            a.plane(0).row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(on ? top : 0);
            b.plane(0).row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(on ? 0 : top);
          } else {
            a.plane(0).row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(on ? top : 0);
            b.plane(0).row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(on ? 0 : top);
          }
        }
      const std::string what = fmt::format("stripes {}x9 {}-bit", w, bpc);
      if (bpc == 8) {
        check_sad<std::uint8_t>(a, b, what);
        check_sad<std::uint8_t>(b, a, what + " swapped");
      } else {
        check_sad<std::uint16_t>(a, b, what);
        check_sad<std::uint16_t>(b, a, what + " swapped");
      }
    }
}

}  // namespace
}  // namespace vqe
