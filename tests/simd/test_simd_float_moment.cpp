// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality of float_moment's SIMD plane sums and of the
// extractor: every SIMD level against the scalar reference, exact.

#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/float_moment/float_moment_kernels.h"
#include "small_simd_util.h"

namespace vqe {
namespace {

using simdtest::Content;

// The scalar reference (level unset) or the kernel of `level`.
moment::PlaneSums sums_of(const Picture& p, std::optional<simd::Level> level = std::nullopt) {
  const Plane& pl = p.plane(0);
  if (!level) {
    if (p.bit_depth() == 8)
      return moment::plane_sums_scalar(pl.row<std::uint8_t>(0), pl.stride, pl.width, pl.height);
    return moment::plane_sums_scalar(pl.row<std::uint16_t>(0), pl.stride / 2, pl.width,
                                     pl.height);
  }
  const moment::MomentDsp& dsp = moment::moment_dsp(*level);
  if (p.bit_depth() == 8)
    return dsp.sums8(pl.row<std::uint8_t>(0), pl.stride, pl.width, pl.height);
  return dsp.sums16(pl.row<std::uint16_t>(0), pl.stride / 2, pl.width, pl.height);
}

TEST(SimdFloatMoment, PlaneSumsMatchScalar) {
  const int sizes[][2] = {{1, 1},  {2, 3},  {5, 2},  {8, 4},  {9, 3},   {16, 2},
                          {17, 5}, {31, 3}, {33, 4}, {65, 2}, {257, 3}, {4099, 2}};
  std::uint32_t seed = 1;
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes)
      for (Content c : {Content::random, Content::smooth, Content::flat, Content::extreme}) {
        const Picture p = simdtest::make_picture({s[0], s[1], bpc, ChromaFormat::k400}, c, seed++);
        const moment::PlaneSums ref = sums_of(p);
        for (simd::Level level : simd::available_levels()) {
          const moment::PlaneSums got = sums_of(p, level);
          EXPECT_EQ(ref.sum, got.sum) << s[0] << "x" << s[1] << " " << bpc << "-bit @"
                                      << simd::level_name(level);
          EXPECT_EQ(ref.sum_sq, got.sum_sq) << s[0] << "x" << s[1] << " " << bpc << "-bit @"
                                            << simd::level_name(level);
        }
      }
}

// Largest samples on long rows: squares near 2^32 (16-bit) in every lane.
TEST(SimdFloatMoment, MaxSamplesLongRows) {
  for (int bpc : {8, 16}) {
    const std::uint64_t maxv = (1u << bpc) - 1;
    const Picture p = simdtest::make_picture({32765, 2, bpc, ChromaFormat::k400}, Content::flat,
                                             static_cast<std::uint32_t>(maxv));
    for (simd::Level level : simd::available_levels()) {
      const moment::PlaneSums got = sums_of(p, level);
      EXPECT_EQ(got.sum, maxv * 32765 * 2) << simd::level_name(level);
      EXPECT_EQ(got.sum_sq, maxv * maxv * 32765 * 2) << simd::level_name(level);
    }
  }
}

TEST(SimdFloatMoment, ExtractorMatchesScalar) {
  const int sizes[][2] = {{1, 1}, {3, 2}, {17, 9}, {66, 35}, {160, 90}};
  std::uint32_t seed = 50;
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes) {
      const VideoFormat f{s[0], s[1], bpc, ChromaFormat::k420};
      std::vector<std::pair<Picture, Picture>> frames;
      for (Content c : {Content::random, Content::smooth, Content::flat, Content::extreme}) {
        Picture p = simdtest::make_picture(f, c, seed++);
        Picture d = simdtest::distort(p, 4, seed++);
        frames.emplace_back(std::move(p), std::move(d));
      }
      const FeatureCollector ref =
          simdtest::run_at(simd::Level::scalar, "float_moment", {}, frames);
      for (simd::Level level : simdtest::simd_levels())
        simdtest::expect_same_bits(ref, simdtest::run_at(level, "float_moment", {}, frames),
                                   fmt::format("float_moment {}x{} {}-bit @{}", s[0], s[1], bpc,
                                               simd::level_name(level)));
    }
}

}  // namespace
}  // namespace vqe
