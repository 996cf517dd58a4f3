// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality of the psnr SSE SIMD kernel and the psnr
// extractor: every SIMD level against the scalar reference, exact.

#include <cstdint>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/psnr/psnr_kernels.h"
#include "small_simd_util.h"

namespace vqe {
namespace {

using simdtest::Content;

// The scalar reference (level unset) or the kernel of `level`.
std::uint64_t sse_of(const Picture& a, const Picture& b,
                     std::optional<simd::Level> level = std::nullopt) {
  const Plane& pa = a.plane(0);
  const Plane& pb = b.plane(0);
  if (!level) {
    if (a.bit_depth() == 8)
      return psnr::plane_sse_scalar(pa.row<std::uint8_t>(0), pa.stride, pb.row<std::uint8_t>(0),
                                    pb.stride, pa.width, pa.height);
    return psnr::plane_sse_scalar(pa.row<std::uint16_t>(0), pa.stride / 2,
                                  pb.row<std::uint16_t>(0), pb.stride / 2, pa.width, pa.height);
  }
  const psnr::PsnrDsp& dsp = psnr::psnr_dsp(*level);
  if (a.bit_depth() == 8)
    return dsp.sse8(pa.row<std::uint8_t>(0), pa.stride, pb.row<std::uint8_t>(0), pb.stride,
                    pa.width, pa.height);
  return dsp.sse16(pa.row<std::uint16_t>(0), pa.stride / 2, pb.row<std::uint16_t>(0),
                   pb.stride / 2, pa.width, pa.height);
}

TEST(SimdPsnr, KernelMatchesScalar) {
  const int sizes[][2] = {{1, 1},  {2, 2},  {3, 1},  {7, 3},  {8, 2},   {15, 5},  {16, 4},
                          {17, 3}, {31, 2}, {33, 7}, {64, 3}, {65, 5},  {127, 2}, {257, 3}};
  std::uint32_t seed = 1;
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes)
      for (Content ca : {Content::random, Content::smooth, Content::flat, Content::extreme})
        for (Content cb : {Content::random, Content::flat, Content::extreme}) {
          const VideoFormat f{s[0], s[1], bpc, ChromaFormat::k400};
          const Picture a = simdtest::make_picture(f, ca, seed++);
          const Picture b = simdtest::make_picture(f, cb, seed++);
          const std::uint64_t ref = sse_of(a, b);
          for (simd::Level level : simd::available_levels()) {
            EXPECT_EQ(ref, sse_of(a, b, level))
                << s[0] << "x" << s[1] << " " << bpc << "-bit " << simdtest::content_name(ca)
                << "/" << simdtest::content_name(cb) << " @" << simd::level_name(level);
          }
        }
}

// Every difference at its largest (255² or 65535² per sample) over long
// rows: the lane sums must stay exact.
TEST(SimdPsnr, ExtremeLongRows) {
  for (int bpc : {8, 16}) {
    const int maxv = (1 << bpc) - 1;
    const VideoFormat f{32767, 3, bpc, ChromaFormat::k400};
    const Picture a = simdtest::make_picture(f, Content::flat, static_cast<std::uint32_t>(maxv));
    const Picture b = simdtest::make_picture(f, Content::flat, 0);
    const std::uint64_t expected =
        static_cast<std::uint64_t>(maxv) * static_cast<std::uint64_t>(maxv) * 32767ull * 3ull;
    for (simd::Level level : simd::available_levels()) {
      EXPECT_EQ(expected, sse_of(a, b, level)) << bpc << "-bit @" << simd::level_name(level);
    }
  }
}

TEST(SimdPsnr, ExtractorMatchesScalar) {
  const int sizes[][2] = {{1, 1}, {3, 3}, {17, 9}, {33, 18}, {160, 90}};
  const std::vector<OptionValues> option_sets = {
      {}, {{"enable_mse", "true"}, {"enable_apsnr", "true"}, {"reduced_hbd_peak", "true"}}};
  std::uint32_t seed = 7;
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes)
      for (ChromaFormat chroma : {ChromaFormat::k420, ChromaFormat::k444, ChromaFormat::k400})
        for (const OptionValues& opts : option_sets) {
          const VideoFormat f{s[0], s[1], bpc, chroma};
          std::vector<std::pair<Picture, Picture>> frames;
          for (Content c : {Content::random, Content::smooth, Content::flat}) {
            Picture p = simdtest::make_picture(f, c, seed++);
            Picture d = simdtest::distort(p, 5, seed++);
            frames.emplace_back(std::move(p), std::move(d));
          }
          const FeatureCollector ref = simdtest::run_at(simd::Level::scalar, "psnr", opts, frames);
          for (simd::Level level : simdtest::simd_levels())
            simdtest::expect_same_bits(
                ref, simdtest::run_at(level, "psnr", opts, frames),
                fmt::format("psnr {}x{} {}-bit {} @{}", s[0], s[1], bpc, to_string(chroma),
                            simd::level_name(level)));
        }
}

}  // namespace
}  // namespace vqe
