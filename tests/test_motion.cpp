// SPDX-License-Identifier: BSD-2-Clause
// Tests of the integer motion extractor "motion": kernels against a direct
// transcription of the definition, edge cases, options, and golden values
// (libvmaf 3.2.0 bit-identical; motion_legacy against libvmaf 3.0.0).

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "features/motion/motion_kernels.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

// --- helpers ----------------------------------------------------------------

// A luma-only picture filled by `value(x, y)`.
template <typename F>
Picture make_picture(int w, int h, int bpc, F value) {
  VideoFormat f{w, h, bpc, ChromaFormat::k400};
  Picture p(f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int v = value(x, y);
      if (bpc == 8)
        p.plane(0).row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
      else
        p.plane(0).row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
    }
  return p;
}

std::vector<Picture> random_video(int w, int h, int bpc, int frames, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, (1 << bpc) - 1);
  std::vector<Picture> out;
  for (int i = 0; i < frames; ++i) out.push_back(make_picture(w, h, bpc, [&](int, int) { return dist(rng); }));
  return out;
}

// Runs an extractor over `video` (as both reference and distorted).
// Only the first `count` frames when given.
FeatureCollector run(const std::string& name, const OptionValues& opts,
                     const std::vector<Picture>& video, std::size_t count = SIZE_MAX) {
  auto e = make_extractor(name, opts);
  e->init(video.front().format());
  FeatureCollector out;
  for (unsigned i = 0; i < video.size() && i < count; ++i) e->extract(video[i], video[i], i, out);
  e->flush(out);
  return out;
}

double at(const FeatureCollector& c, const std::string& name, unsigned i) {
  auto v = c.get(name, i);
  EXPECT_TRUE(v.has_value()) << name << " missing at frame " << i;
  return v.value_or(NAN);
}

int sample(const Picture& p, int x, int y) {
  return p.bit_depth() == 8 ? p.plane(0).row<std::uint8_t>(y)[x] : p.plane(0).row<std::uint16_t>(y)[x];
}

// Direct transcription of libvmaf 3.2.0's definition: difference image,
// vertical pass with reflect-101 (single reflection, n >= 3), horizontal pass,
// absolute values.
std::uint64_t naive_sad(const Picture& a, const Picture& b) {
  const int w = a.width(), h = a.height(), bpc = a.bit_depth();
  auto refl = [](int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); };
  std::vector<std::int64_t> v(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::int64_t acc = 0;
      for (int k = 0; k < 5; ++k) {
        const int r = refl(y - 2 + k, h);
        acc += motion::kFilter[k] * (sample(a, x, r) - sample(b, x, r));
      }
      v[y * w + x] = (acc + (std::int64_t{1} << (bpc - 1))) >> bpc;
    }
  std::uint64_t sad = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::int64_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += motion::kFilter[k] * v[y * w + refl(x - 2 + k, w)];
      sad += static_cast<std::uint64_t>(std::llabs((acc + 32768) >> 16));
    }
  return sad;
}

// libvmaf 3.0's definition: blur each frame (near mirror -i, far 2n-1-i).
std::vector<std::uint16_t> naive_legacy_blur(const Picture& a) {
  const int w = a.width(), h = a.height(), bpc = a.bit_depth();
  auto refl = [](int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 1 : i); };
  std::vector<std::uint32_t> t(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint32_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += motion::kFilter[k] * sample(a, x, refl(y - 2 + k, h));
      t[y * w + x] = (acc + (1u << (bpc - 1))) >> bpc;
    }
  std::vector<std::uint16_t> out(t.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      std::uint32_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += motion::kFilter[k] * t[y * w + refl(x - 2 + k, w)];
      out[y * w + x] = static_cast<std::uint16_t>((acc + 32768) >> 16);
    }
  return out;
}

// --- kernels ----------------------------------------------------------------

TEST(MotionKernels, MirrorsMatchLibvmafWhereItIsDefined) {
  for (int n = 3; n < 12; ++n)
    for (int i = -2; i < n + 2; ++i) {
      EXPECT_EQ(motion::mirror_reflect101(i, n), i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i));
      EXPECT_EQ(motion::mirror_legacy(i, n), i < 0 ? -i : (i >= n ? 2 * n - i - 1 : i));
    }
  // Tiny sizes fold into range.
  for (int n = 1; n < 3; ++n)
    for (int i = -4; i < n + 4; ++i) {
      const int a = motion::mirror_reflect101(i, n), b = motion::mirror_legacy(i, n);
      EXPECT_GE(a, 0); EXPECT_LT(a, n);
      EXPECT_GE(b, 0); EXPECT_LT(b, n);
    }
}

TEST(MotionKernels, SadMatchesDirectDefinition) {
  const int sizes[][2] = {{3, 3}, {4, 5}, {5, 4}, {7, 3}, {33, 17}, {64, 9}, {17, 33}};
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes) {
      auto v = random_video(s[0], s[1], bpc, 2, 1000u * bpc + s[0]);
      std::vector<std::int32_t> row(s[0] + 4);
      std::uint64_t got;
      if (bpc == 8)
        got = motion::frame_difference_sad_scalar(
            v[0].plane(0).row<std::uint8_t>(0), v[0].plane(0).stride,
            v[1].plane(0).row<std::uint8_t>(0), v[1].plane(0).stride, s[0], s[1], bpc,
            row.data());
      else
        got = motion::frame_difference_sad_scalar(
            v[0].plane(0).row<std::uint16_t>(0), v[0].plane(0).stride / 2,
            v[1].plane(0).row<std::uint16_t>(0), v[1].plane(0).stride / 2, s[0], s[1], bpc,
            row.data());
      EXPECT_EQ(got, naive_sad(v[0], v[1])) << s[0] << "x" << s[1] << " " << bpc << "-bit";
    }
}

TEST(MotionKernels, LegacyBlurMatchesDirectDefinition) {
  const int sizes[][2] = {{3, 3}, {4, 5}, {5, 4}, {33, 17}, {18, 7}};
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes) {
      auto v = random_video(s[0], s[1], bpc, 1, 77u * bpc + s[1]);
      std::vector<std::uint16_t> out(s[0] * s[1]), row(s[0] + 4);
      if (bpc == 8)
        motion::legacy_blur_scalar(v[0].plane(0).row<std::uint8_t>(0), v[0].plane(0).stride,
                                   out.data(), s[0], s[0], s[1], bpc, row.data());
      else
        motion::legacy_blur_scalar(v[0].plane(0).row<std::uint16_t>(0),
                                   v[0].plane(0).stride / 2, out.data(), s[0], s[0], s[1], bpc,
                                   row.data());
      EXPECT_EQ(out, naive_legacy_blur(v[0])) << s[0] << "x" << s[1] << " " << bpc << "-bit";
    }
}

// --- extractor behaviour ----------------------------------------------------

TEST(Motion, DeclaresLibvmafNamesAndOptions) {
  const ExtractorInfo* info = find_extractor("motion");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(find_extractor_by_feature("VMAF_integer_feature_motion2_score"), info);
  auto e = make_extractor("motion", {});
  EXPECT_EQ(e->feature_names(), (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score",
                                                          "integer_motion2", "integer_motion3"}));
  EXPECT_TRUE(e->temporal());
  auto d = make_extractor("motion", {{"debug", "true"}, {"motion_legacy", "true"}});
  EXPECT_EQ(d->feature_names(),
            (std::vector<std::string>{"VMAF_integer_feature_motion_sad_score", "integer_motion",
                                      "integer_motion2", "integer_motion3"}));
  auto hfr = make_extractor("motion", {{"motion_max_val", "18"},
                                       {"motion_five_frame_window", "true"},
                                       {"motion_moving_average", "true"}});
  EXPECT_EQ(hfr->feature_names()[1], "integer_motion2_mffw_mmxv_18_mma");
  EXPECT_THROW(make_extractor("motion", {{"motion_fps_weight", "6"}}), Error);
  EXPECT_THROW(make_extractor("motion", {{"motion_blend_factor", "-0.1"}}), Error);
}

TEST(Motion, OneAndTwoFrameVideos) {
  auto v = random_video(16, 12, 8, 2, 5);
  auto one = run("motion", {}, v, 1);
  EXPECT_EQ(at(one, "VMAF_integer_feature_motion_sad_score", 0), 0.0);
  EXPECT_EQ(at(one, "integer_motion2", 0), 0.0);
  EXPECT_EQ(at(one, "integer_motion3", 0), 0.0);

  auto two = run("motion", {}, v);
  const double m1 = at(two, "VMAF_integer_feature_motion_sad_score", 1);
  EXPECT_GT(m1, 0.0);
  EXPECT_EQ(at(two, "integer_motion2", 0), 0.0);
  EXPECT_EQ(at(two, "integer_motion2", 1), m1);   // last frame keeps its own
  EXPECT_EQ(at(two, "integer_motion3", 0), m1);   // stamped from frame 1
  EXPECT_EQ(at(two, "integer_motion3", 1), m1);
}

TEST(Motion, Motion2IsMinOfNeighbours) {
  auto v = random_video(20, 10, 10, 6, 9);
  // Make frame 3 equal to frame 2, so motion at 3 is 0.
  v[3] = make_picture(20, 10, 10, [&](int x, int y) { return sample(v[2], x, y); });
  auto c = run("motion", {{"debug", "true"}}, v);
  std::vector<double> m;
  for (unsigned i = 0; i < 6; ++i) {
    m.push_back(at(c, "VMAF_integer_feature_motion_sad_score", i));
    EXPECT_EQ(m.back(), at(c, "integer_motion", i));
  }
  EXPECT_EQ(m[3], 0.0);
  EXPECT_EQ(at(c, "integer_motion2", 0), 0.0);
  for (unsigned i = 1; i < 5; ++i) EXPECT_EQ(at(c, "integer_motion2", i), std::min(m[i], m[i + 1]));
  EXPECT_EQ(at(c, "integer_motion2", 5), m[5]);
}

TEST(Motion, FlatAndTinyFramesGiveFiniteScores) {
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{1, 1}, {2, 1}, {1, 2}, {2, 2}, {3, 1}, {1, 5}, {3, 3}, {5, 2}})
      for (bool legacy : {false, true}) {
        auto v = random_video(w, h, bpc, 3, w * 31 + h);
        v.push_back(make_picture(w, h, bpc, [](int, int) { return 0; }));
        v.push_back(make_picture(w, h, bpc, [](int, int) { return 0; }));
        auto c = run("motion", {{"motion_legacy", legacy ? "true" : "false"}}, v);
        for (unsigned i = 0; i < v.size(); ++i)
          for (const char* n : {"VMAF_integer_feature_motion_sad_score", "integer_motion2", "integer_motion3"}) {
            const double x = at(c, n, i);
            EXPECT_TRUE(std::isfinite(x) && x >= 0) << n << " " << w << "x" << h;
          }
        EXPECT_EQ(at(c, "VMAF_integer_feature_motion_sad_score", 4), 0.0);
      }
}

TEST(Motion, ScoresAreIndependentOfBitDepthForShiftedContent) {
  // A picture at bpc bits holding the 8-bit picture << (bpc - 8) scores the
  // same at every depth, in both modes (the rounding shifts scale with bpc).
  auto v8 = random_video(37, 23, 8, 4, 42);
  for (bool legacy : {false, true}) {
    const OptionValues o{{"motion_legacy", legacy ? "true" : "false"}};
    auto c8 = run("motion", o, v8);
    for (int bpc : {10, 12, 16}) {
      std::vector<Picture> v;
      for (const auto& p : v8)
        v.push_back(make_picture(37, 23, bpc, [&](int x, int y) { return sample(p, x, y) << (bpc - 8); }));
      auto c = run("motion", o, v);
      for (unsigned i = 0; i < 4; ++i)
        EXPECT_EQ(at(c, "integer_motion2", i), at(c8, "integer_motion2", i)) << bpc << " " << legacy;
    }
  }
}

TEST(Motion, OptionsFollowLibvmaf) {
  auto v = random_video(24, 16, 8, 7, 3);
  auto base = run("motion", {}, v);
  std::vector<double> m;
  for (unsigned i = 0; i < 7; ++i) m.push_back(at(base, "VMAF_integer_feature_motion_sad_score", i));

  auto zero = run("motion", {{"motion_force_zero", "true"}}, v);
  for (unsigned i = 0; i < 7; ++i) {
    EXPECT_EQ(at(zero, "VMAF_integer_feature_motion_sad_score_force_0", i), 0.0);
    EXPECT_EQ(at(zero, "integer_motion2_force_0", i), 0.0);
    EXPECT_EQ(at(zero, "integer_motion3_force_0", i), 0.0);
  }

  auto clip = run("motion", {{"motion_max_val", "1"}}, v);
  for (unsigned i = 0; i < 7; ++i) EXPECT_LE(at(clip, "integer_motion3_mmxv_1", i), 1.0);

  auto fps = run("motion", {{"motion_fps_weight", "2"}}, v);
  for (unsigned i = 0; i < 7; ++i)
    EXPECT_EQ(at(fps, "VMAF_integer_feature_motion_sad_score_mfw_2", i), m[i] * 2);

  auto blend = run("motion", {{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "1"}}, v);
  for (unsigned i = 1; i < 7; ++i) {
    const double m2 = at(base, "integer_motion2", i);
    EXPECT_EQ(at(blend, "integer_motion3_mbf_0.5_mbo_1", i), m2 * 0.5 + 0.5 * std::min(1.0, m2));
  }

  // Five-frame window: frame i is compared with frame i-2; motion2 at i >= 3
  // is the smaller of the scores at i-1 and i+1.
  auto five = run("motion", {{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}}, v);
  std::vector<double> f;
  for (unsigned i = 0; i < 7; ++i) f.push_back(at(five, "VMAF_integer_feature_motion_sad_score_mffw_mma", i));
  EXPECT_EQ(f[0], 0.0);
  EXPECT_EQ(f[1], 0.0);
  EXPECT_GT(f[2], 0.0);
  EXPECT_EQ(at(five, "integer_motion2_mffw_mma", 2), f[3]);
  for (unsigned i = 3; i < 6; ++i) EXPECT_EQ(at(five, "integer_motion2_mffw_mma", i), std::min(f[i - 1], f[i + 1]));
  EXPECT_EQ(at(five, "integer_motion2_mffw_mma", 6), f[6]);
  EXPECT_EQ(at(five, "integer_motion3_mffw_mma", 0), f[2]);
  EXPECT_EQ(at(five, "integer_motion3_mffw_mma", 3),
            (at(five, "integer_motion2_mffw_mma", 3) + at(five, "integer_motion2_mffw_mma", 2)) / 2.0);
}

TEST(Motion, RefusesOutOfOrderFrames) {
  auto v = random_video(8, 8, 8, 3, 1);
  auto e = make_extractor("motion", {});
  e->init(v[0].format());
  FeatureCollector out;
  e->extract(v[0], v[0], 0, out);
  EXPECT_THROW(e->extract(v[2], v[2], 2, out), Error);
}

// --- golden -----------------------------------------------------------------

// Option sets whose outputs appear in the reference JSONs.
const std::vector<std::pair<std::string, OptionValues>> kGoldenVariants = {
    {"", {}},
    {"_mmxv_18", {{"motion_max_val", "18"}}},
    {"_mffw_mmxv_18_mma",
     {{"motion_max_val", "18"}, {"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}}},
};

TEST(MotionGolden, BitIdenticalToLibvmaf320) {
  VQE_REQUIRE_SHARED(shared);
  int pairs = 0, compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared / "testdata" / "reference")) {
    if (entry.path().extension() != ".json") continue;
    const auto ref = test::load_reference(entry.path().filename().string());
    const auto clips = shared / "testdata" / "clips";
    for (const auto& [suffix, opts] : kGoldenVariants) {
      const std::string names[] = {"VMAF_integer_feature_motion_sad_score" + suffix,
                                   "integer_motion2" + suffix, "integer_motion3" + suffix};
      if (!ref["frames"][0]["metrics"].contains(names[1])) continue;
      SCOPED_TRACE(entry.path().filename().string() + " " + suffix);
      auto c = test::run_features(clips / ref["reference"].get<std::string>(),
                                  clips / ref["distorted"].get<std::string>(), {{"motion", opts}});
      ++pairs;
      int n_pair = 0, equal = 0;
      for (const auto& frame : ref["frames"]) {
        const unsigned i = frame["frameNum"];
        for (const auto& n : names) {
          if (!frame["metrics"].contains(n)) continue;
          const double want = frame["metrics"][n].get<double>();
          EXPECT_EQ(at(c, n, i), want) << n << " frame " << i;
          ++compared;
          ++n_pair;
          equal += at(c, n, i) == want;
        }
      }
      std::printf("  %-55s %-18s %3d/%3d bit-identical\n", entry.path().filename().string().c_str(),
                  suffix.empty() ? "(default)" : suffix.c_str(), equal, n_pair);
    }
  }
  EXPECT_GT(pairs, 0);
  std::printf("motion golden: %d pair/option runs, %d values bit-identical\n", pairs, compared);
}

TEST(MotionGolden, LegacyMatchesLibvmaf300) {
  VQE_REQUIRE_SHARED(shared);
  const auto dir = shared / "testdata" / "reference-v3.0.0";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no reference-v3.0.0";
  int pairs = 0, compared = 0, differ_320 = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const auto ref = nlohmann::json::parse(in);
    SCOPED_TRACE(entry.path().filename().string());
    const auto clips = shared / "testdata" / "clips";
    const auto r = clips / ref["reference"].get<std::string>();
    const auto d = clips / ref["distorted"].get<std::string>();
    auto c = test::run_features(r, d, {{"motion", {{"motion_legacy", "true"}, {"debug", "true"}}}});
    // The 3.2.0 definition, to show that the option matters on this pair.
    auto now = test::run_features(r, d, {{"motion", {{"debug", "true"}}}});
    ++pairs;
    int n_pair = 0;
    double worst = 0;
    for (const auto& frame : ref["frames"]) {
      const unsigned i = frame["frameNum"];
      for (const char* n : {"integer_motion", "integer_motion2"}) {
        if (!frame["metrics"].contains(n)) continue;
        // The 3.0.0 tool printed 6 decimals.
        const double want = frame["metrics"][n].get<double>();
        const double ours = std::round(at(c, n, i) * 1e6) / 1e6;
        EXPECT_NEAR(ours, want, 1e-6) << n << " frame " << i;
        worst = std::max(worst, std::fabs(ours - want));
        if (std::fabs(std::round(at(now, n, i) * 1e6) / 1e6 - want) > 1e-6) ++differ_320;
        ++compared;
        ++n_pair;
      }
    }
    std::printf("  legacy %-55s %3d values, max |diff| %.1e\n",
                entry.path().filename().string().c_str(), n_pair, worst);
  }
  EXPECT_GT(pairs, 0);
  // Without motion_legacy most values differ from 3.0.0's.
  EXPECT_GT(differ_320, compared / 2);
  std::printf("motion legacy golden: %d pairs, %d values within 1e-6 (%d differ under 3.2.0)\n",
              pairs, compared, differ_320);
}

}  // namespace
}  // namespace vqe

namespace vqe {
namespace {

TEST(MotionGolden, EveryFrameUnderSubsampleAndThreads) {
  VQE_REQUIRE_SHARED(shared);
  const auto clips = shared / "testdata" / "clips";
  const auto ref = clips / "ref" / "carphone_176x144_420p8_20f.y4m";
  const auto dis = clips / "dist" / "carphone_176x144_420p8_20f__x264_crf35.y4m";
  JobConfig plain;
  plain.features = {{"motion", {}}, {"float_motion", {}}};
  JobConfig sub = plain;
  sub.subsample = 3;
  sub.threads = 3;
  auto a = test::run_pair(ref, dis, plain);
  auto b = test::run_pair(ref, dis, sub);
  for (unsigned i = 0; i < 20; ++i)
    for (const char* n : {"VMAF_integer_feature_motion_sad_score", "integer_motion2", "integer_motion3",
                          "motion", "motion2", "motion3"})
      EXPECT_EQ(at(b.features, n, i), at(a.features, n, i)) << n << " frame " << i;
}

}  // namespace
}  // namespace vqe
