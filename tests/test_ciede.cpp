// SPDX-License-Identifier: BSD-2-Clause
// Tests of the ciede extractor (src/features/ciede): chroma upsampling at
// every subsampling and odd size, bit depths, identical frames, refusals and
// agreement with libvmaf's reference values.

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {

// Defined in test_ssim_helpers.cpp.
namespace ssim_test {
void fill_random(Picture& p, unsigned seed);
void fill_smooth(Picture& p, unsigned seed, int noise);
void fill_flat(Picture& p, int value);
std::map<std::string, double> score(const std::string& extractor, const OptionValues& opts,
                                    const Picture& ref, const Picture& dist);
VideoFormat fmt_of(int w, int h, int bits, ChromaFormat c = ChromaFormat::k420);
void expect_refused(const std::string& extractor, const OptionValues& opts,
                    const VideoFormat& f, const std::string& must_contain);
void golden(const std::string& extractor, const std::vector<std::string>& features);
}  // namespace ssim_test
using namespace ssim_test;

namespace {

// 4:4:4 copy of a subsampled picture by sample repetition.
Picture upsample_to_444(const Picture& src) {
  VideoFormat f = src.format();
  f.chroma = ChromaFormat::k444;
  Picture out(f);
  const int sx = src.format().chroma == ChromaFormat::k444 ? 0 : 1;
  const int sy = src.format().chroma == ChromaFormat::k420 ? 1 : 0;
  for (int k = 0; k < 3; ++k)
    for (int y = 0; y < f.height; ++y)
      for (int x = 0; x < f.width; ++x) {
        const int yy = k ? y >> sy : y, xx = k ? x >> sx : x;
        if (f.bit_depth == 8)
          out.plane(k).row<std::uint8_t>(y)[x] = src.plane(k).row<std::uint8_t>(yy)[xx];
        else
          out.plane(k).row<std::uint16_t>(y)[x] = src.plane(k).row<std::uint16_t>(yy)[xx];
      }
  return out;
}

TEST(Ciede, Registered) {
  const ExtractorInfo* info = find_extractor("ciede");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->provided_features, std::vector<std::string>{"ciede2000"});
  EXPECT_TRUE(info->options.empty());
}

TEST(Ciede, RefusesMonochrome) {
  expect_refused("ciede", {}, fmt_of(64, 64, 8, ChromaFormat::k400), "4:0:0");
}

TEST(Ciede, IdenticalFramesGiveInfinityLikeLibvmaf) {
  for (int bits : {8, 10, 12, 16}) {
    Picture a(fmt_of(33, 17, bits));
    fill_random(a, bits);
    EXPECT_EQ(score("ciede", {}, a, a)["ciede2000"], std::numeric_limits<double>::infinity());
    Picture black(fmt_of(16, 16, bits)), black2(fmt_of(16, 16, bits));
    fill_flat(black, 0);
    fill_flat(black2, 0);
    EXPECT_EQ(score("ciede", {}, black, black2)["ciede2000"],
              std::numeric_limits<double>::infinity());
  }
}

// Subsampled chroma is repeated (nearest neighbour): scoring the 4:2:0 or
// 4:2:2 picture equals scoring its 4:4:4 upsampled copy, at even and odd sizes.
TEST(Ciede, SubsampledEqualsUpsampled444) {
  for (ChromaFormat c : {ChromaFormat::k420, ChromaFormat::k422})
    for (int bits : {8, 10, 12, 16})
      for (const auto& [w, h] : std::vector<std::pair<int, int>>{
               {1, 1}, {2, 1}, {1, 2}, {3, 3}, {33, 17}, {32, 18}, {17, 33}}) {
        Picture a(fmt_of(w, h, bits, c)), b(fmt_of(w, h, bits, c));
        fill_random(a, w * 31 + h + bits);
        fill_random(b, w + h * 17 + bits);
        const double sub = score("ciede", {}, a, b)["ciede2000"];
        const double full = score("ciede", {}, upsample_to_444(a), upsample_to_444(b))["ciede2000"];
        EXPECT_TRUE(std::isfinite(sub)) << w << "x" << h;
        EXPECT_EQ(sub, full) << to_string(c) << " " << w << "x" << h << " " << bits;
      }
}

TEST(Ciede, FlatDifferentFramesAreFinite) {
  for (int bits : {8, 10, 12, 16}) {
    Picture black(fmt_of(20, 10, bits)), white(fmt_of(20, 10, bits));
    fill_flat(black, 0);
    fill_flat(white, (1 << bits) - 1);
    const double v = score("ciede", {}, black, white)["ciede2000"];
    EXPECT_TRUE(std::isfinite(v)) << bits;
  }
}

TEST(CiedeGolden, MatchesLibvmaf) { golden("ciede", {"ciede2000"}); }

}  // namespace
}  // namespace vqe
