// SPDX-License-Identifier: BSD-2-Clause
// Tests of the cambi extractor (src/features/cambi): libvmaf names, options
// and refusals, edge cases (flat, thin, every bit depth) and a golden check
// against libvmaf 3.2.0 reference values.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "features/cambi/cambi_core.h"
#include "features/cambi/luminance.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

const OptionValues kModelOptions = {{"cambi_high_res_speedup", "1080"},
                                    {"cambi_vis_lum_threshold", "0.06"},
                                    {"cambi_max_val", "17.0"}};

// Fills the luma plane with a smooth gradient quantised to a few levels
// (banding) plus a noisy textured patch; `seed` varies the noise.
void fill_banded(Picture& pic, unsigned seed, int shift_from_8bit) {
  std::mt19937 rng(seed);
  Plane& y = pic.plane(0);
  for (int i = 0; i < y.height; ++i)
    for (int j = 0; j < y.width; ++j) {
      int v = 40 + (j * 60) / std::max(y.width, 1) + (i * 20) / std::max(y.height, 1);
      if (i > y.height / 2 && j > y.width / 2) v += static_cast<int>(rng() % 40);
      v = std::clamp(v, 0, 255);
      if (pic.bit_depth() == 8)
        y.row<std::uint8_t>(i)[j] = static_cast<std::uint8_t>(v);
      else
        y.row<std::uint16_t>(i)[j] = static_cast<std::uint16_t>(v << shift_from_8bit);
    }
}

Picture make_picture(int w, int h, int bits, ChromaFormat chroma = ChromaFormat::k420) {
  VideoFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = bits;
  f.chroma = chroma;
  return Picture(f);
}

// Scores one pair; `name` defaults to the extractor's first feature.
double score_once(const OptionValues& opts, Picture& ref, Picture& dist, std::string name = "") {
  auto fex = make_extractor("cambi", opts);
  fex->init(dist.format());
  if (name.empty()) name = fex->feature_names()[0];
  FeatureCollector fc;
  fex->extract(ref, dist, 0, fc);
  auto v = fc.get(name, 0);
  EXPECT_TRUE(v.has_value()) << name;
  return v.value_or(-1);
}

TEST(Cambi, ReciprocalTableMatchesLibvmafLiterals) {
  const auto& t = cambi::reciprocal_table();
  EXPECT_EQ(t[0], 0.0f);
  EXPECT_EQ(t[1], 1.0f);
  EXPECT_EQ(t[3], 0.333333333f);
  // Entries where libvmaf's 9-digit literal differs from 1.0f / i.
  EXPECT_EQ(t[82], 0.012195122f);
  EXPECT_NE(t[82], 1.0f / 82.0f);
  EXPECT_EQ(t[2040], 0.000490196078f);
  EXPECT_EQ(t[4225], 0.000236686391f);
  for (int i = 1; i < cambi::kReciprocalTableSize; ++i)
    EXPECT_NEAR(t[i] * i, 1.0, 1e-6) << i;
}

TEST(Cambi, VisibilityThresholds) {
  const auto range = cambi::limited_luma_range(10);
  EXPECT_EQ(range.foot, 64);
  EXPECT_EQ(range.head, 940);
  EXPECT_DOUBLE_EQ(cambi::luminance(940, range, cambi::bt1886_eotf), 300.0);
  // Regression values (their use reproduces libvmaf's scores exactly).
  EXPECT_EQ(cambi::tvi_for_diff(1, 0.019, range, cambi::bt1886_eotf), 178);
  EXPECT_EQ(cambi::tvi_for_diff(2, 0.019, range, cambi::bt1886_eotf), 305);
  EXPECT_EQ(cambi::tvi_for_diff(4, 0.019, range, cambi::bt1886_eotf), 559);
  EXPECT_EQ(cambi::tvi_for_diff(8, 0.019, range, cambi::bt1886_eotf), 1023);
  EXPECT_EQ(cambi::visibility_luma_threshold(0.0, range, cambi::bt1886_eotf), 0);
  EXPECT_EQ(cambi::visibility_luma_threshold(0.06, range, cambi::bt1886_eotf), 78);
  // The option's maximum terminates (libvmaf would loop forever above peak).
  EXPECT_EQ(cambi::visibility_luma_threshold(300.0, range, cambi::bt1886_eotf), 940);
  EXPECT_EQ(cambi::visibility_luma_threshold(301.0, range, cambi::bt1886_eotf), -1);
}

TEST(Cambi, WindowAndMaskParameters) {
  EXPECT_EQ(cambi::adjusted_window_size(65, 3840, 2160, false), 65);
  EXPECT_EQ(cambi::adjusted_window_size(65, 1920, 1080, true), 17);
  EXPECT_EQ(cambi::adjusted_window_size(65, 320, 192, false), 5);
  EXPECT_EQ(cambi::adjusted_window_size(65, 7680, 4320, false), 131);
  EXPECT_EQ(cambi::mask_threshold(1920, 1080), 21);
  EXPECT_EQ(cambi::mask_threshold(320, 192), 13);
  EXPECT_EQ(cambi::mask_threshold(16, 16), 7);
}

TEST(Cambi, NamesAndOptions) {
  const ExtractorInfo* info = find_extractor("cambi");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->provided_features, std::vector<std::string>{"Cambi_feature_cambi_score"});
  EXPECT_EQ(make_extractor("cambi", {})->feature_names(), std::vector<std::string>{"cambi"});
  EXPECT_EQ(make_extractor("cambi", kModelOptions)->feature_names(),
            std::vector<std::string>{"cambi_hrs_1080_cmxv_17_vlt_0.06"});
  // Aliases; options without alias use their name; non-params add nothing.
  EXPECT_EQ(make_extractor("cambi", {{"topk", "0.5"}, {"eotf", "pq"}, {"window_size", "33"},
                                     {"full_ref", "true"}})
                ->feature_names(),
            (std::vector<std::string>{"cambi_eotf_pq_topk_0.5_ws_33", "cambi_source",
                                      "cambi_full_reference"}));
  EXPECT_EQ(make_extractor("cambi", {{"cambi_eotf", "pq"}, {"max_log_contrast", "3"},
                                     {"tvi_threshold", "0.02"}, {"enc_bitdepth", "8"},
                                     {"cambi_topk", "0.2"}})
                ->feature_names(),
            std::vector<std::string>{"cambi_ceot_pq_ctpk_0.2_encbd_8_mlc_3_tvit_0.02"});
  EXPECT_THROW(make_extractor("cambi", {{"window_size", "13"}}), Error);
  EXPECT_THROW(make_extractor("cambi", {{"enc_width", "100"}}), Error);
  EXPECT_THROW(make_extractor("cambi", {{"max_log_contrast", "6"}}), Error);
  EXPECT_THROW(make_extractor("cambi", {{"cambi_vis_lum_threshold", "301"}}), Error);
  EXPECT_THROW(make_extractor("cambi", {{"no_such_option", "1"}}), Error);
}

TEST(Cambi, RefusesSmallFramesLikeLibvmaf) {
  for (auto [w, h] : {std::pair{176, 144}, {160, 90}, {33, 17}, {215, 215}, {1, 1}}) {
    auto fex = make_extractor("cambi", {});
    VideoFormat f{w, h, 8, ChromaFormat::k420};
    try {
      fex->init(f);
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("216"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("cambi"), std::string::npos) << e.what();
    }
  }
  // One side of 216 is enough.
  for (auto [w, h] : {std::pair{216, 144}, {144, 216}, {216, 216}}) {
    auto fex = make_extractor("cambi", {});
    EXPECT_NO_THROW(fex->init(VideoFormat{w, h, 8, ChromaFormat::k420})) << w << "x" << h;
  }
  // The encoding resolution is what counts.
  auto fex = make_extractor("cambi", {{"enc_width", "200"}, {"enc_height", "150"}});
  EXPECT_THROW(fex->init(VideoFormat{576, 324, 8, ChromaFormat::k420}), Error);
}

TEST(Cambi, RefusesShapesWhereTheWindowLeavesThePicture) {
  for (auto [w, h] : {std::pair{216, 1}, {400, 1}, {1000, 8}, {1, 400}, {999, 33}}) {
    auto fex = make_extractor("cambi", {});
    try {
      fex->init(VideoFormat{w, h, 8, ChromaFormat::k444});
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("too thin"), std::string::npos) << e.what();
    }
  }
  // 8K: the scaled window exceeds libvmaf's reciprocal table.
  auto fex = make_extractor("cambi", {});
  EXPECT_THROW(fex->init(VideoFormat{7680, 4320, 8, ChromaFormat::k420}), Error);
  auto smaller = make_extractor("cambi", {{"window_size", "32"}});
  EXPECT_NO_THROW(smaller->init(VideoFormat{7680, 4320, 8, ChromaFormat::k420}));
}

TEST(Cambi, ThinAcceptedShapesAreDeterministic) {
  // Shapes libvmaf accepts where small scales are shorter than the window:
  // the window then reads rows of the previous scale still in the buffer,
  // as libvmaf does; scores must be finite and reproducible.
  for (auto [w, h] : {std::pair{216, 2}, {217, 3}, {300, 9}, {2, 216}, {400, 40}}) {
    Picture pic = make_picture(w, h, 8, ChromaFormat::k444);
    fill_banded(pic, 7, 0);
    const double a = score_once({}, pic, pic);
    const double b = score_once({}, pic, pic);
    EXPECT_TRUE(std::isfinite(a)) << w << "x" << h;
    EXPECT_GE(a, 0.0);
    EXPECT_EQ(a, b) << w << "x" << h;
  }
}

TEST(Cambi, FlatFramesScoreZeroAtEveryDepth) {
  for (int bits : {8, 10, 12, 16}) {
    for (int level : {0, 1, 128, 255}) {
      Picture pic = make_picture(256, 144, bits);
      Plane& y = pic.plane(0);
      for (int i = 0; i < y.height; ++i)
        for (int j = 0; j < y.width; ++j) {
          if (bits == 8)
            y.row<std::uint8_t>(i)[j] = static_cast<std::uint8_t>(level);
          else
            y.row<std::uint16_t>(i)[j] = static_cast<std::uint16_t>(level << (bits - 8));
        }
      const double s = score_once({}, pic, pic);
      EXPECT_EQ(s, 0.0) << bits << " bits, level " << level;
    }
  }
}

TEST(Cambi, BitDepthsAgreeOnTheSameContent) {
  // With enc_bitdepth=8 the 10-bit picture libvmaf builds is 4x the 8-bit
  // value at every depth (12-bit: (16x+2)>>2, 16-bit: (256x+32)>>6), so the
  // scores must be identical.
  const OptionValues enc8 = {{"enc_bitdepth", "8"}};
  Picture p8 = make_picture(320, 240, 8);
  fill_banded(p8, 3, 0);
  const double s8 = score_once({}, p8, p8);
  EXPECT_GT(s8, 0.0);
  EXPECT_EQ(score_once(enc8, p8, p8), s8);
  for (int bits : {10, 12, 16}) {
    Picture p = make_picture(320, 240, bits);
    fill_banded(p, 3, bits - 8);
    EXPECT_EQ(score_once(enc8, p, p), s8) << bits;
  }
  // Without enc_bitdepth, 10-bit input skips the anti-dithering filter.
  Picture p10 = make_picture(320, 240, 10);
  fill_banded(p10, 3, 2);
  EXPECT_NE(score_once({}, p10, p10), s8);
}

TEST(Cambi, HighVisibilityThresholdGivesZero) {
  // Above ~100 cd/m² no code value can both pass the visibility threshold and
  // show a visible step; libvmaf 3.2.0 crashes there (its histogram band size
  // wraps around), VQE returns the defined value 0.
  Picture p = make_picture(480, 270, 8);
  fill_banded(p, 4, 0);
  EXPECT_GT(score_once({}, p, p), 0.0);
  for (const char* vlt : {"200", "300"})
    EXPECT_EQ(score_once({{"cambi_vis_lum_threshold", vlt}}, p, p), 0.0) << vlt;
}

TEST(Cambi, RejectsSamplesAboveTheBitDepth) {
  Picture p = make_picture(320, 240, 10);
  fill_banded(p, 1, 2);
  p.plane(0).row<std::uint16_t>(5)[7] = 1024;
  auto fex = make_extractor("cambi", {});
  fex->init(p.format());
  FeatureCollector fc;
  EXPECT_THROW(fex->extract(p, p, 0, fc), Error);
}

TEST(Cambi, FullReferenceAndMaxVal) {
  Picture ref = make_picture(320, 240, 8);
  Picture dist = make_picture(320, 240, 8);
  fill_banded(ref, 11, 0);
  fill_banded(dist, 12, 0);
  auto fex = make_extractor("cambi", {{"full_ref", "true"}});
  fex->init(dist.format());
  FeatureCollector fc;
  fex->extract(ref, dist, 0, fc);
  const double d = *fc.get("cambi", 0);
  const double s = *fc.get("cambi_source", 0);
  EXPECT_EQ(d, score_once({}, ref, dist));
  EXPECT_EQ(s, score_once({}, dist, ref));
  EXPECT_EQ(*fc.get("cambi_full_reference", 0), std::max(0.0, d - s));
  // cambi_max_val clips.
  const double clipped = score_once({{"cambi_max_val", "0.001"}}, ref, dist, "cambi_cmxv_0.001");
  EXPECT_EQ(clipped, std::min(d, 0.001));
}

TEST(Cambi, EncodingResolutionAndSpeedupPaths) {
  Picture pic = make_picture(640, 360, 10);
  fill_banded(pic, 5, 2);
  const double a = score_once({{"enc_width", "480"}, {"enc_height", "270"}}, pic, pic,
                              "cambi_ench_270_encw_480");
  EXPECT_TRUE(std::isfinite(a));
  // An encoding resolution above the input is ignored (same as none).
  EXPECT_EQ(score_once({{"enc_width", "1280"}, {"enc_height", "720"}}, pic, pic,
                       "cambi_ench_720_encw_1280"),
            score_once({}, pic, pic));
  // The speed-up is inactive below its resolution: same numbers, new name.
  EXPECT_EQ(score_once({{"cambi_high_res_speedup", "1080"}}, pic, pic, "cambi_hrs_1080"),
            score_once({}, pic, pic));
}

TEST(Cambi, HeatmapsAreWritten) {
  const auto dir = std::filesystem::temp_directory_path() / "vqe-tests" / "cambi-heatmaps";
  std::filesystem::remove_all(dir);
  Picture pic = make_picture(320, 240, 8);
  fill_banded(pic, 9, 0);
  {
    auto fex = make_extractor("cambi", {{"heatmaps_path", dir.string()}});
    EXPECT_TRUE(fex->temporal());
    fex->init(pic.format());
    FeatureCollector fc;
    fex->extract(pic, pic, 0, fc);
    fex->extract(pic, pic, 1, fc);
  }
  int w = 320, h = 240;
  for (int scale = 0; scale < cambi::kNumScales; ++scale) {
    const auto file = dir / ("cambi_heatmap_scale_" + std::to_string(scale) + "_" +
                             std::to_string(w) + "x" + std::to_string(h) + "_16b.gray");
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    // Two frames of 16-bit samples.
    EXPECT_EQ(std::filesystem::file_size(file), 2u * 2 * w * h) << file;
    w = (w + 1) / 2;
    h = (h + 1) / 2;
  }
  std::filesystem::remove_all(dir);
}

// --- golden -----------------------------------------------------------------

void check_golden(const std::string& json_name, const std::string& ref, const std::string& dis) {
  VQE_REQUIRE_SHARED(shared);
  const auto j = test::load_reference(json_name);
  const auto clips = shared / "testdata" / "clips";
  const FeatureCollector fc = test::run_features(
      clips / ref, clips / dis, {{"cambi", {}}, {"cambi", kModelOptions}});
  const std::size_t frames = j["frames"].size();
  ASSERT_EQ(fc.frame_count(), frames);
  for (const std::string name : {"cambi", "cambi_hrs_1080_cmxv_17_vlt_0.06"})
    for (std::size_t f = 0; f < frames; ++f) {
      const double expected = j["frames"][f]["metrics"][name];
      EXPECT_EQ(*fc.get(name, static_cast<unsigned>(f)), expected)
          << json_name << " " << name << " frame " << f;
    }
}

TEST(CambiGolden, Bbb8bit) {
  check_golden("bbb_576x324_420p8_8f__x264_crf45_y4m.json", "ref/bbb_576x324_420p8_8f.y4m",
               "dist/bbb_576x324_420p8_8f__x264_crf45.y4m");
}
TEST(CambiGolden, Bikes444) {
  check_golden("bikes_512x384_444p8_1f__vmaf_jpeg_y4m.json", "images/bikes_512x384_444p8_1f.y4m",
               "images/bikes_512x384_444p8_1f__vmaf_jpeg.y4m");
}
TEST(CambiGolden, Cisco10bit) {
  check_golden("ciscovt2people_320x192_420p10_9f__x265_crf30_y4m.json",
               "ref/ciscovt2people_320x192_420p10_9f.y4m",
               "dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m");
}
TEST(CambiGolden, Cisco12bit) {
  check_golden("ciscovt2people_320x192_420p12_9f__x265_crf30_lowbits_yuv.json",
               "ref/ciscovt2people_320x192_420p12_9f.yuv",
               "dist/ciscovt2people_320x192_420p12_9f__x265_crf30_lowbits.yuv");
}
TEST(CambiGolden, Cisco16bit) {
  check_golden("ciscovt2people_320x192_420p16_9f__x265_crf30_lowbits_yuv.json",
               "ref/ciscovt2people_320x192_420p16_9f.yuv",
               "dist/ciscovt2people_320x192_420p16_9f__x265_crf30_lowbits.yuv");
}
TEST(CambiGolden, Sparks10bitRaw) {
  check_golden("vmaf_sparks_480x270_420p10_5f__vmaf_dis_yuv.json",
               "ref/vmaf_sparks_480x270_420p10_5f.yuv",
               "dist/vmaf_sparks_480x270_420p10_5f__vmaf_dis.yuv");
}
TEST(CambiGolden, Trees1080pHighResSpeedup) {
  check_golden("trees_1920x1080_420p8_2f__x264_crf35_y4m.json", "ref/trees_1920x1080_420p8_2f.y4m",
               "dist/trees_1920x1080_420p8_2f__x264_crf35.y4m");
}

TEST(CambiGolden, RefusedWhereTheReferenceRefused) {
  VQE_REQUIRE_SHARED(shared);
  const auto clips = shared / "testdata" / "clips";
  const auto j = test::load_reference("carphone_176x144_420p8_20f__x264_crf23_y4m.json");
  ASSERT_TRUE(j["refused"].contains("cambi"));
  EXPECT_THROW(test::run_features(clips / "ref/carphone_176x144_420p8_20f.y4m",
                                  clips / "dist/carphone_176x144_420p8_20f__x264_crf23.y4m",
                                  {{"cambi", {}}}),
               Error);
}

}  // namespace
}  // namespace vqe
