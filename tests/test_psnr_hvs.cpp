// SPDX-License-Identifier: BSD-2-Clause
// Tests of the psnr_hvs extractor (src/features/psnr_hvs): bit-depth and size
// limits, odd sizes, identical frames and agreement with libvmaf's values.

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

const std::vector<std::string> kNames = {"psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr", "psnr_hvs"};

TEST(PsnrHvs, RegisteredInLibvmafOrder) {
  const ExtractorInfo* info = find_extractor("psnr_hvs");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->provided_features, kNames);
  auto ex = make_extractor("psnr_hvs", {});
  ex->init(fmt_of(64, 64, 8));
  EXPECT_EQ(ex->feature_names(), kNames);
}

TEST(PsnrHvs, RefusesAbove12BitsMonochromeAndTinyPlanes) {
  expect_refused("psnr_hvs", {}, fmt_of(64, 64, 16), "less than or equal to 12");
  expect_refused("psnr_hvs", {}, fmt_of(64, 64, 8, ChromaFormat::k400), "4:0:0");
  expect_refused("psnr_hvs", {}, fmt_of(14, 16, 8), "8x8");   // chroma 7x8
  expect_refused("psnr_hvs", {}, fmt_of(7, 8, 10, ChromaFormat::k444), "8x8");
  expect_refused("psnr_hvs", {}, fmt_of(1, 1, 8), "8x8");
  for (const VideoFormat& f : {fmt_of(15, 15, 8), fmt_of(8, 8, 12, ChromaFormat::k444),
                               fmt_of(16, 8, 10, ChromaFormat::k422)}) {
    Picture a(f), b(f);
    fill_random(a, 1);
    fill_random(b, 2);
    for (const auto& [name, v] : score("psnr_hvs", {}, a, b))
      EXPECT_TRUE(std::isfinite(v)) << name << " " << f.width << "x" << f.height;
  }
}

TEST(PsnrHvs, IdenticalFramesGiveInfinityLikeLibvmaf) {
  for (int bits : {8, 10, 12}) {
    Picture a(fmt_of(40, 24, bits));
    fill_random(a, bits);
    for (const auto& [name, v] : score("psnr_hvs", {}, a, a))
      EXPECT_EQ(v, std::numeric_limits<double>::infinity()) << name;
  }
}

TEST(PsnrHvs, OddSizesAndFlatFrames) {
  for (ChromaFormat c : {ChromaFormat::k420, ChromaFormat::k422, ChromaFormat::k444})
    for (int bits : {8, 10, 12})
      for (const auto& [w, h] : std::vector<std::pair<int, int>>{{33, 17}, {17, 33}, {65, 23}}) {
        Picture a(fmt_of(w, h, bits, c)), b(fmt_of(w, h, bits, c));
        fill_smooth(a, w + bits, 9);
        fill_smooth(b, h + bits, 9);
        for (const auto& [name, v] : score("psnr_hvs", {}, a, b))
          EXPECT_TRUE(std::isfinite(v)) << name << " " << w << "x" << h;
        Picture black(fmt_of(w, h, bits, c)), white(fmt_of(w, h, bits, c));
        fill_flat(black, 0);
        fill_flat(white, (1 << bits) - 1);
        for (const auto& [name, v] : score("psnr_hvs", {}, black, white))
          EXPECT_TRUE(std::isfinite(v)) << name;
      }
}

// The combined score is the dB value of 0.8·Y + 0.1·(Cb + Cr) errors.
TEST(PsnrHvs, CombinedWeighting) {
  Picture a(fmt_of(48, 32, 10)), b(fmt_of(48, 32, 10));
  fill_smooth(a, 5, 30);
  fill_smooth(b, 6, 30);
  auto v = score("psnr_hvs", {}, a, b);
  auto err = [&](const char* n) { return std::pow(10.0, -v[n] / 10.0); };
  const double combined = 0.8 * err("psnr_hvs_y") + 0.1 * (err("psnr_hvs_cb") + err("psnr_hvs_cr"));
  EXPECT_NEAR(v["psnr_hvs"], -10 * std::log10(combined), 1e-9);
}

TEST(PsnrHvsGolden, MatchesLibvmaf) { golden("psnr_hvs", kNames); }

}  // namespace
}  // namespace vqe
