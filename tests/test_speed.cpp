// SPDX-License-Identifier: BSD-2-Clause
// Tests of speed_chroma and speed_temporal (src/features/speed): libvmaf
// names and options, refusals, edge cases and a golden check against
// libvmaf 3.2.0 reference values.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "features/speed/speed_core.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

// Options of the v1.0.16 models (vmaf_v1.0.16_3d0h.json).
const OptionValues kModelOptions = {{"speed_kernelscale", "1.0"}, {"speed_nn_floor", "0.1"},
                                    {"speed_sigma_nn", "0.19"},   {"speed_weight_var_mode", "5"},
                                    {"speed_max_val", "45.0"}};
const std::string kSuffix = "_mxv_45_nnf_0.1_snn_0.19_wvm_5";

Picture make_picture(int w, int h, int bits, ChromaFormat chroma = ChromaFormat::k420) {
  return Picture(VideoFormat{w, h, bits, chroma});
}

// Blocky random content on every plane (cells of 12x12 samples with random
// levels, plus fine noise), with the cell contrast scaled by `contrast`;
// 8-bit values shifted to the picture's depth.
void fill_textured(Picture& pic, unsigned seed, double contrast = 1.0) {
  std::mt19937 rng(seed);
  const int shift = pic.bit_depth() - 8;
  for (int p = 0; p < pic.num_planes(); ++p) {
    Plane& pl = pic.plane(p);
    std::vector<int> cells(((pl.width + 11) / 12) * ((pl.height + 11) / 12));
    for (int& c : cells) c = static_cast<int>(rng() % 161) - 80;
    const int cells_per_row = (pl.width + 11) / 12;
    for (int i = 0; i < pl.height; ++i)
      for (int j = 0; j < pl.width; ++j) {
        const int cell = cells[(i / 12) * cells_per_row + j / 12];
        const int v = std::clamp(
            128 + static_cast<int>(contrast * cell) + static_cast<int>(rng() % 9) - 4, 0, 255);
        if (pic.bit_depth() == 8)
          pl.row<std::uint8_t>(i)[j] = static_cast<std::uint8_t>(v);
        else
          pl.row<std::uint16_t>(i)[j] = static_cast<std::uint16_t>(v << shift);
      }
  }
}

std::vector<double> run_chroma(const OptionValues& opts, const Picture& ref, const Picture& dist) {
  auto fex = make_extractor("speed_chroma", opts);
  fex->init(dist.format());
  FeatureCollector fc;
  fex->extract(ref, dist, 0, fc);
  std::vector<double> out;
  for (const auto& n : fex->feature_names()) out.push_back(fc.get(n, 0).value_or(NAN));
  return out;
}

TEST(SpeedChroma, NamesAndOptions) {
  const ExtractorInfo* info = find_extractor("speed_chroma");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->provided_features,
            (std::vector<std::string>{"Speed_chroma_feature_speed_chroma_u_score",
                                      "Speed_chroma_feature_speed_chroma_v_score",
                                      "Speed_chroma_feature_speed_chroma_uv_score"}));
  EXPECT_EQ(make_extractor("speed_chroma", {})->feature_names(),
            (std::vector<std::string>{"speed_chroma_u", "speed_chroma_v", "speed_chroma_uv"}));
  EXPECT_EQ(make_extractor("speed_chroma", kModelOptions)->feature_names(),
            (std::vector<std::string>{"speed_chroma_u" + kSuffix, "speed_chroma_v" + kSuffix,
                                      "speed_chroma_uv" + kSuffix}));
  // The 2160 models' options.
  EXPECT_EQ(make_extractor("speed_chroma", {{"speed_prescale", "0.5"},
                                            {"speed_prescale_method", "bilinear"},
                                            {"speed_kernelscale", "1.5"}})
                ->feature_names()[2],
            "speed_chroma_uv_ks_1.5_ps_0.5_psm_bilinear");
  EXPECT_THROW(make_extractor("speed_chroma", {{"speed_weight_var_mode", "7"}}), Error);
  EXPECT_THROW(make_extractor("speed_chroma", {{"speed_sigma_nn", "0.05"}}), Error);
  EXPECT_THROW(make_extractor("speed_chroma", {{"speed_prescale", "5"}}), Error);
}

TEST(SpeedChroma, Refusals) {
  // 4:0:0 has no chroma.
  EXPECT_THROW(make_extractor("speed_chroma", {})->init(VideoFormat{320, 240, 8, ChromaFormat::k400}),
               Error);
  // Chroma planes below 80x80 (5 blocks of 16) are refused.
  for (auto [w, h] : {std::pair{176, 144}, {160, 90}, {33, 17}, {158, 400}}) {
    try {
      make_extractor("speed_chroma", {})->init(VideoFormat{w, h, 8, ChromaFormat::k420});
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("80x80"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(make_extractor("speed_chroma", {})->init(VideoFormat{160, 160, 8, ChromaFormat::k420}));
  EXPECT_NO_THROW(make_extractor("speed_chroma", {})->init(VideoFormat{80, 80, 8, ChromaFormat::k444}));
  // Prescale counts: 0.5 of 160 is 80.
  EXPECT_NO_THROW(make_extractor("speed_chroma", {{"speed_prescale", "0.5"}})
                      ->init(VideoFormat{320, 320, 8, ChromaFormat::k420}));
  EXPECT_THROW(make_extractor("speed_chroma", {{"speed_prescale", "0.5"}})
                   ->init(VideoFormat{316, 320, 8, ChromaFormat::k420}),
               Error);
  // Unsupported kernel scale / method.
  EXPECT_THROW(make_extractor("speed_chroma", {{"speed_kernelscale", "0.3"}})
                   ->init(VideoFormat{320, 240, 8, ChromaFormat::k420}),
               Error);
  EXPECT_THROW(make_extractor("speed_chroma", {{"speed_prescale_method", "cubic"}})
                   ->init(VideoFormat{320, 240, 8, ChromaFormat::k420}),
               Error);
}

TEST(SpeedChroma, FlatPlanesGiveZeroNotNaN) {
  for (int bits : {8, 10, 12, 16}) {
    Picture ref = make_picture(192, 192, bits);
    Picture dist = make_picture(192, 192, bits);
    const auto s = run_chroma(kModelOptions, ref, dist);
    for (double v : s) EXPECT_EQ(v, 0.0) << bits;
  }
  // One flat plane: uv takes the other plane's score. (SpEED needs several
  // 5x5 blocks after decimation by 16 to be non-singular: 256x256 chroma.)
  Picture ref = make_picture(256, 256, 8, ChromaFormat::k444);
  Picture dist = make_picture(256, 256, 8, ChromaFormat::k444);
  fill_textured(ref, 1);
  fill_textured(dist, 1, 0.5);
  for (Picture* p : {&ref, &dist}) {
    Plane& v = p->plane(2);
    for (int i = 0; i < v.height; ++i)
      for (int j = 0; j < v.width; ++j) v.row<std::uint8_t>(i)[j] = 100;
  }
  const auto s = run_chroma(kModelOptions, ref, dist);
  EXPECT_GT(s[0], 0.0);
  EXPECT_EQ(s[2], s[0]);
}

TEST(SpeedChroma, BitDepthsAgreeOnTheSameContent) {
  // picture_copy divides by 4, 16, 256: shifted 8-bit content gives the same
  // floats, hence the same scores, at every depth.
  Picture r8 = make_picture(256, 256, 8, ChromaFormat::k444);
  Picture d8 = make_picture(256, 256, 8, ChromaFormat::k444);
  fill_textured(r8, 5);
  fill_textured(d8, 5, 0.4);
  const auto s8 = run_chroma(kModelOptions, r8, d8);
  EXPECT_GT(s8[2], 0.0);
  for (int bits : {10, 12, 16}) {
    Picture r = make_picture(256, 256, bits, ChromaFormat::k444);
    Picture d = make_picture(256, 256, bits, ChromaFormat::k444);
    fill_textured(r, 5);
    fill_textured(d, 5, 0.4);
    EXPECT_EQ(run_chroma(kModelOptions, r, d), s8) << bits;
  }
  // Identical inputs score 0 with the default weighting (mode 5 mixes a
  // float and a double logarithm, so it leaves ~1e-5, as libvmaf does).
  for (double v : run_chroma({}, r8, r8)) EXPECT_EQ(v, 0.0);
  for (double v : run_chroma(kModelOptions, r8, r8)) EXPECT_LT(v, 1e-4);
}

TEST(SpeedChroma, PrescaleMethodsAndOddSizes) {
  Picture ref = make_picture(333, 251, 10, ChromaFormat::k422);
  Picture dist = make_picture(333, 251, 10, ChromaFormat::k422);
  fill_textured(ref, 8);
  fill_textured(dist, 8, 0.7);
  for (const char* method : {"nearest", "bilinear", "bicubic", "lanczos4"})
    for (const char* scale : {"0.6", "1.0", "2.0"}) {
      const OptionValues o = {{"speed_prescale", scale}, {"speed_prescale_method", method}};
      const auto a = run_chroma(o, ref, dist);
      const auto b = run_chroma(o, ref, dist);
      for (double v : a) EXPECT_TRUE(std::isfinite(v)) << method << " " << scale;
      EXPECT_EQ(a, b);
    }
  // Near-1 prescale is no rescale.
  EXPECT_EQ(run_chroma({{"speed_prescale", "1.0"}, {"speed_prescale_method", "lanczos4"}}, ref, dist),
            run_chroma({}, ref, dist));
  // speed_max_val clips.
  const auto raw = run_chroma({}, ref, dist);
  const auto clipped = run_chroma({{"speed_max_val", "0.0001"}}, ref, dist);
  for (std::size_t i = 0; i < raw.size(); ++i) EXPECT_EQ(clipped[i], std::min(raw[i], 0.0001));
}

TEST(SpeedTemporal, NamesFirstFrameAndIdenticalInputs) {
  EXPECT_EQ(make_extractor("speed_temporal", {})->feature_names(),
            std::vector<std::string>{"speed_temporal"});
  EXPECT_EQ(make_extractor("speed_temporal", {{"speed_use_ref_diff", "true"}})->feature_names(),
            std::vector<std::string>{"speed_temporal_urd"});
  auto fex = make_extractor("speed_temporal", {});
  EXPECT_TRUE(fex->temporal());
  EXPECT_THROW(fex->init(VideoFormat{79, 200, 8, ChromaFormat::k420}), Error);
  fex->init(VideoFormat{256, 256, 12, ChromaFormat::k420});
  FeatureCollector fc;
  std::vector<Picture> frames;
  for (unsigned i = 0; i < 3; ++i) {
    frames.push_back(make_picture(256, 256, 12));
    fill_textured(frames.back(), 20 + i);
  }
  for (unsigned i = 0; i < 3; ++i) fex->extract(frames[i], frames[i], i, fc);
  EXPECT_EQ(*fc.get("speed_temporal", 0), 0.0);
  EXPECT_EQ(*fc.get("speed_temporal", 1), 0.0);
  EXPECT_EQ(*fc.get("speed_temporal", 2), 0.0);
  // A different distorted sequence scores > 0 from frame 1 on.
  auto fex2 = make_extractor("speed_temporal", {});
  fex2->init(frames[0].format());
  FeatureCollector fc2;
  for (unsigned i = 0; i < 3; ++i) fex2->extract(frames[i], frames[2 - i], i, fc2);
  EXPECT_EQ(*fc2.get("speed_temporal", 0), 0.0);
  EXPECT_GT(*fc2.get("speed_temporal", 1), 0.0);
  EXPECT_TRUE(std::isfinite(*fc2.get("speed_temporal", 2)));
}

// --- golden -----------------------------------------------------------------

void check_golden(const std::string& json_name, const std::string& ref, const std::string& dis) {
  VQE_REQUIRE_SHARED(shared);
  const auto j = test::load_reference(json_name);
  const auto clips = shared / "testdata" / "clips";
  const FeatureCollector fc =
      test::run_features(clips / ref, clips / dis, {{"speed_chroma", kModelOptions}});
  const std::size_t frames = j["frames"].size();
  ASSERT_EQ(fc.frame_count(), frames);
  for (const char* plane : {"u", "v", "uv"}) {
    const std::string name = std::string("speed_chroma_") + plane + kSuffix;
    for (std::size_t f = 0; f < frames; ++f) {
      const double expected = j["frames"][f]["metrics"][name];
      EXPECT_EQ(*fc.get(name, static_cast<unsigned>(f)), expected)
          << json_name << " " << name << " frame " << f;
    }
  }
}

TEST(SpeedChromaGolden, Bbb8bit) {
  check_golden("bbb_576x324_420p8_8f__x264_crf23_y4m.json", "ref/bbb_576x324_420p8_8f.y4m",
               "dist/bbb_576x324_420p8_8f__x264_crf23.y4m");
}
TEST(SpeedChromaGolden, Bikes444) {
  check_golden("bikes_512x384_444p8_1f__vmaf_jpeg_y4m.json", "images/bikes_512x384_444p8_1f.y4m",
               "images/bikes_512x384_444p8_1f__vmaf_jpeg.y4m");
}
TEST(SpeedChromaGolden, Cisco10bit) {
  check_golden("ciscovt2people_320x192_420p10_9f__x265_crf30_y4m.json",
               "ref/ciscovt2people_320x192_420p10_9f.y4m",
               "dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m");
}
TEST(SpeedChromaGolden, Cisco12bit) {
  check_golden("ciscovt2people_320x192_420p12_9f__x265_crf30_lowbits_y4m.json",
               "ref/ciscovt2people_320x192_420p12_9f.y4m",
               "dist/ciscovt2people_320x192_420p12_9f__x265_crf30_lowbits.y4m");
}
TEST(SpeedChromaGolden, Cisco16bit) {
  check_golden("ciscovt2people_320x192_420p16_9f__x265_crf30_lowbits_yuv.json",
               "ref/ciscovt2people_320x192_420p16_9f.yuv",
               "dist/ciscovt2people_320x192_420p16_9f__x265_crf30_lowbits.yuv");
}
TEST(SpeedChromaGolden, Sparks10bitRaw) {
  check_golden("vmaf_sparks_480x270_420p10_5f__vmaf_dis_yuv.json",
               "ref/vmaf_sparks_480x270_420p10_5f.yuv",
               "dist/vmaf_sparks_480x270_420p10_5f__vmaf_dis.yuv");
}
TEST(SpeedChromaGolden, Trees1080p) {
  check_golden("trees_1920x1080_420p8_2f__x264_crf35_y4m.json", "ref/trees_1920x1080_420p8_2f.y4m",
               "dist/trees_1920x1080_420p8_2f__x264_crf35.y4m");
}

}  // namespace
}  // namespace vqe
