// SPDX-License-Identifier: BSD-2-Clause
// Tests of float_ssim and float_ms_ssim (src/features/float_ssim,
// src/features/float_ms_ssim): sizes at and around the limits, flat frames,
// bit-depth scaling, options, and agreement with libvmaf's reference values.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <utility>
#include <vector>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "features/float_ssim/iqa_ssim.h"
#include "io/video_reader.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
// Defined in test_ssim_helpers.cpp.
namespace ssim_test {
void fill_random(Picture& p, unsigned seed);
void fill_smooth(Picture& p, unsigned seed, int noise);
void fill_flat(Picture& p, int value);
Picture shifted_copy(const Picture& src, int bit_depth);
std::map<std::string, double> score(const std::string& extractor, const OptionValues& opts,
                                    const Picture& ref, const Picture& dist);
VideoFormat fmt_of(int w, int h, int bits, ChromaFormat c = ChromaFormat::k420);
void expect_refused(const std::string& extractor, const OptionValues& opts,
                    const VideoFormat& f, const std::string& must_contain);
void golden(const std::string& extractor, const std::vector<std::string>& features);
}  // namespace ssim_test
using namespace ssim_test;

namespace {

// ---------------------------------------------------------------- float_ssim

TEST(FloatSsim, RegisteredWithLibvmafOptions) {
  const ExtractorInfo* info = find_extractor("float_ssim");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->provided_features, std::vector<std::string>{"float_ssim"});
  std::vector<std::string> names;
  for (const auto& o : info->options) names.push_back(o.name);
  EXPECT_EQ(names, (std::vector<std::string>{"enable_lcs", "enable_db", "clip_db", "scale"}));
  EXPECT_THROW(make_extractor("float_ssim", {{"scale", "11"}}), Error);
  EXPECT_THROW(make_extractor("float_ssim", {{"bogus", "1"}}), Error);
}

TEST(FloatSsim, RefusesBelowWindowAndAcceptsMinimum) {
  expect_refused("float_ssim", {}, fmt_of(1, 1, 8), "11x11");
  expect_refused("float_ssim", {}, fmt_of(10, 40, 8), "11x11");
  expect_refused("float_ssim", {}, fmt_of(40, 10, 10), "11x11");
  // Explicit scale: 100 / 10 = 10 < 11.
  expect_refused("float_ssim", {{"scale", "10"}}, fmt_of(100, 100, 8), "11x11");
  // 21 / 2 + (21 & 1) = 11 is just enough.
  for (const auto& [w, h, opts] :
       std::vector<std::tuple<int, int, OptionValues>>{{11, 11, {}}, {21, 21, {{"scale", "2"}}},
                                                       {12, 11, {}}, {11, 13, {}}}) {
    Picture a(fmt_of(w, h, 8)), b(fmt_of(w, h, 8));
    fill_random(a, 1);
    fill_random(b, 2);
    const double v = score("float_ssim", opts, a, b)["float_ssim"];
    EXPECT_TRUE(std::isfinite(v)) << w << "x" << h;
    EXPECT_LE(std::fabs(v), 1.0);
  }
}

TEST(FloatSsim, FlatAndIdenticalFrames) {
  for (int bits : {8, 10, 12, 16}) {
    Picture black(fmt_of(64, 48, bits)), black2(fmt_of(64, 48, bits));
    fill_flat(black, 0);
    fill_flat(black2, 0);
    EXPECT_EQ(score("float_ssim", {}, black, black2)["float_ssim"], 1.0) << bits;

    Picture white(fmt_of(64, 48, bits));
    fill_flat(white, (1 << bits) - 1);
    const double bw = score("float_ssim", {}, black, white)["float_ssim"];
    EXPECT_TRUE(std::isfinite(bw));
    EXPECT_GE(bw, 0.0);
    EXPECT_LT(bw, 0.01);

    Picture a(fmt_of(64, 48, bits));
    fill_smooth(a, 3, 5);
    auto same = score("float_ssim", {{"enable_lcs", "true"}}, a, a);
    for (const auto& [name, v] : same) EXPECT_NEAR(v, 1.0, 1e-6) << name;
  }
}

TEST(FloatSsim, DbConversionAndClip) {
  Picture black(fmt_of(32, 32, 8)), black2(fmt_of(32, 32, 8));
  fill_flat(black, 0);
  fill_flat(black2, 0);
  // SSIM exactly 1: libvmaf's dB value is +inf unless clipped.
  EXPECT_EQ(score("float_ssim", {{"enable_db", "true"}}, black, black2)["float_ssim"],
            std::numeric_limits<double>::infinity());
  const double peak = 255.0, mse = 0.5 / (32 * 32);
  const double max_db = std::ceil(10. * std::log10(peak * peak / mse));
  EXPECT_EQ(score("float_ssim", {{"enable_db", "true"}, {"clip_db", "true"}}, black,
                  black2)["float_ssim"],
            max_db);
  Picture a(fmt_of(32, 32, 8)), b(fmt_of(32, 32, 8));
  fill_smooth(a, 4, 10);
  fill_smooth(b, 5, 10);
  const double lin = score("float_ssim", {}, a, b)["float_ssim"];
  const double db = score("float_ssim", {{"enable_db", "true"}}, a, b)["float_ssim"];
  EXPECT_DOUBLE_EQ(db, -10. * std::log10(1 - lin));
}

TEST(FloatSsim, LcsOutputsAndNames) {
  Picture a(fmt_of(40, 30, 8)), b(fmt_of(40, 30, 8));
  fill_smooth(a, 6, 20);
  fill_smooth(b, 7, 20);
  auto ex = make_extractor("float_ssim", {{"enable_lcs", "true"}});
  ex->init(a.format());
  EXPECT_EQ(ex->feature_names(), (std::vector<std::string>{"float_ssim", "float_ssim_l",
                                                           "float_ssim_c", "float_ssim_s"}));
  auto v = score("float_ssim", {{"enable_lcs", "true"}}, a, b);
  EXPECT_EQ(v["float_ssim"], score("float_ssim", {}, a, b)["float_ssim"]);
  EXPECT_GT(v["float_ssim_l"], 0.9);
  EXPECT_GT(v["float_ssim_c"], 0.0);
}

// Samples shifted to 10, 12 and 16 bits are divided back exactly, so the
// score equals the 8-bit score bit for bit.
TEST(FloatSsim, HighBitDepthScalesToEightBitRange) {
  Picture a(fmt_of(77, 45, 8)), b(fmt_of(77, 45, 8));
  fill_smooth(a, 8, 30);
  fill_smooth(b, 9, 30);
  const double ref8 = score("float_ssim", {}, a, b)["float_ssim"];
  for (int bits : {10, 12, 16}) {
    const Picture a2 = shifted_copy(a, bits), b2 = shifted_copy(b, bits);
    EXPECT_EQ(score("float_ssim", {}, a2, b2)["float_ssim"], ref8) << bits;
  }
}

TEST(FloatSsim, OddSizesAllDepthsAndScales) {
  for (int bits : {8, 10, 12, 16})
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{33, 17}, {11, 99}, {127, 13}})
      for (const char* scale : {"0", "1"}) {
        Picture a(fmt_of(w, h, bits, ChromaFormat::k422)), b(fmt_of(w, h, bits, ChromaFormat::k422));
        fill_random(a, w * 3 + bits);
        fill_random(b, h * 5 + bits);
        const double v = score("float_ssim", {{"scale", scale}}, a, b)["float_ssim"];
        EXPECT_TRUE(std::isfinite(v));
        EXPECT_LE(std::fabs(v), 1.0);
      }
  // Odd sizes under every explicit scale that leaves 11x11.
  for (int s = 2; s <= 10; ++s) {
    const int w = 11 * s + 3, h = 11 * s + 1;
    Picture a(fmt_of(w, h, 10)), b(fmt_of(w, h, 10));
    fill_random(a, s);
    fill_random(b, s + 100);
    const double v = score("float_ssim", {{"scale", std::to_string(s)}}, a, b)["float_ssim"];
    EXPECT_TRUE(std::isfinite(v)) << s;
  }
}

// The automatic scale is max(1, round(min(W, H) / 256)): 384 -> 2, 383 -> 1.
TEST(FloatSsim, AutomaticScaleMatchesExplicit) {
  for (const auto& [w, h, s] :
       std::vector<std::tuple<int, int, int>>{{400, 383, 1}, {500, 384, 2}, {700, 640, 3}}) {
    Picture a(fmt_of(w, h, 8)), b(fmt_of(w, h, 8));
    fill_smooth(a, 10, 40);
    fill_smooth(b, 11, 40);
    EXPECT_EQ(score("float_ssim", {}, a, b)["float_ssim"],
              score("float_ssim", {{"scale", std::to_string(s)}}, a, b)["float_ssim"])
        << w << "x" << h;
  }
}

TEST(IqaDecimate, OutputSizeAndBoxAverage) {
  EXPECT_EQ(iqa::decimated_size(21, 2), 11);
  EXPECT_EQ(iqa::decimated_size(20, 2), 10);
  EXPECT_EQ(iqa::decimated_size(31, 3), 11);  // libvmaf adds (W & 1) for any factor
  // A 2x2 box over a constant image returns the constant.
  std::vector<float> src(7 * 5, 3.0f), dst(4 * 3, 0.0f);
  const float box[4] = {0.25f, 0.25f, 0.25f, 0.25f};
  iqa::decimate(src.data(), 7, 5, 2, box, 2, dst.data());
  for (float v : dst) EXPECT_EQ(v, 3.0f);
}

// A clone (as handed to another worker thread) is built from resolved options
// only and scores identically, for each extractor of this folder group.
TEST(SsimFamily, CloneScoresIdentically) {
  const VideoFormat f = fmt_of(181, 179, 10);
  Picture a(f), b(f);
  fill_smooth(a, 21, 25);
  fill_smooth(b, 22, 25);
  for (const auto& [name, opts] : std::vector<std::pair<std::string, OptionValues>>{
           {"float_ssim", {{"enable_lcs", "true"}, {"enable_db", "true"}}},
           {"float_ms_ssim", {{"enable_lcs", "true"}}},
           {"ciede", {}},
           {"psnr_hvs", {}}}) {
    std::unique_ptr<FeatureExtractor> clone;
    {
      auto original = make_extractor(name, opts);
      clone = original->clone();
    }  // the original and its options are gone
    clone->init(f);
    FeatureCollector out;
    clone->extract(a, b, 0, out);
    const auto want = score(name, opts, a, b);
    ASSERT_EQ(clone->feature_names().size(), want.size()) << name;
    for (const auto& n : clone->feature_names()) EXPECT_EQ(*out.get(n, 0), want.at(n)) << n;
  }
}

// ------------------------------------------------------------- float_ms_ssim

TEST(FloatMsSsim, RefusesBelow176) {
  expect_refused("float_ms_ssim", {}, fmt_of(176, 144, 8), "176x176");
  expect_refused("float_ms_ssim", {}, fmt_of(160, 90, 8), "176x176");
  expect_refused("float_ms_ssim", {}, fmt_of(175, 400, 10), "176x176");
  expect_refused("float_ms_ssim", {}, fmt_of(1, 1, 8), "176x176");
}

TEST(FloatMsSsim, MinimumAndOddSizes) {
  for (int bits : {8, 10, 12, 16})
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{176, 176}, {177, 191}, {255, 176}}) {
      Picture a(fmt_of(w, h, bits)), b(fmt_of(w, h, bits));
      fill_smooth(a, w + bits, 20);
      fill_smooth(b, h + bits, 20);
      const double v = score("float_ms_ssim", {}, a, b)["float_ms_ssim"];
      EXPECT_TRUE(std::isfinite(v)) << w << "x" << h << " " << bits;
      EXPECT_GT(v, 0.0);
      EXPECT_LE(v, 1.0);
    }
}

TEST(FloatMsSsim, FlatFramesAndLcs) {
  Picture black(fmt_of(176, 180, 12)), black2(fmt_of(176, 180, 12));
  fill_flat(black, 0);
  fill_flat(black2, 0);
  auto v = score("float_ms_ssim", {{"enable_lcs", "true"}}, black, black2);
  EXPECT_EQ(v.size(), 16u);
  for (const auto& [name, x] : v) EXPECT_EQ(x, 1.0) << name;
  EXPECT_TRUE(v.count("float_ms_ssim_s_scale4"));
  EXPECT_EQ(score("float_ms_ssim", {{"enable_db", "true"}}, black, black2)["float_ms_ssim"],
            std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isfinite(score("float_ms_ssim", {{"enable_db", "true"}, {"clip_db", "true"}},
                                  black, black2)["float_ms_ssim"]));
  Picture white(fmt_of(176, 180, 12));
  fill_flat(white, 4095);
  const double bw = score("float_ms_ssim", {}, black, white)["float_ms_ssim"];
  EXPECT_TRUE(std::isfinite(bw));
}

TEST(FloatMsSsim, HighBitDepthScalesToEightBitRange) {
  Picture a(fmt_of(181, 177, 8)), b(fmt_of(181, 177, 8));
  fill_smooth(a, 12, 30);
  fill_smooth(b, 13, 30);
  const double ref8 = score("float_ms_ssim", {}, a, b)["float_ms_ssim"];
  for (int bits : {10, 12, 16})
    EXPECT_EQ(score("float_ms_ssim", {}, shifted_copy(a, bits), shifted_copy(b, bits))
                  ["float_ms_ssim"],
              ref8);
}

// ------------------------------------------------------------------- golden

TEST(FloatSsimGolden, MatchesLibvmaf) { golden("float_ssim", {"float_ssim"}); }
TEST(FloatMsSsimGolden, MatchesLibvmaf) { golden("float_ms_ssim", {"float_ms_ssim"}); }

}  // namespace
}  // namespace vqe
