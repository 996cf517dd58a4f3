// SPDX-License-Identifier: BSD-2-Clause
// Tests of "motion_v2" (lusoris/vmaf integer_motion_v2.c at commit
// c2a3c7e0febd98a6831b9bfebe5e298e229b1244): names, options, refusals, the
// SAD against a direct transcription of the fork's row pipeline, the
// temporal behaviour (first frame, look-ahead, flush), and bit-identity with
// values the fork's own `vmaf` tool printed (tests/data/motion_v2_reference).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/extractor.h"
#include "features/motion/motion_kernels.h"
#include "test_util.h"
#include "vqe/error.h"

namespace vqe {
namespace {

constexpr const char* kSad = "VMAF_integer_feature_motion_v2_sad_score";
constexpr const char* kMotion2 = "VMAF_integer_feature_motion2_v2_score";
constexpr const char* kMotion3 = "VMAF_integer_feature_motion3_v2_score";

// --- helpers ----------------------------------------------------------------

template <typename F>
Picture make_picture(int w, int h, int bpc, F value) {
  VideoFormat f{w, h, bpc, ChromaFormat::k420};
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
  for (int i = 0; i < frames; ++i)
    out.push_back(make_picture(w, h, bpc, [&](int, int) { return dist(rng); }));
  return out;
}

int sample(const Picture& p, int x, int y) {
  return p.bit_depth() == 8 ? p.plane(0).row<std::uint8_t>(y)[x]
                            : p.plane(0).row<std::uint16_t>(y)[x];
}

// Runs `name` over `video` (as both reference and distorted) on one
// instance, frames in order, then flush().
FeatureCollector run(const std::string& name, const OptionValues& opts,
                     const std::vector<Picture>& video) {
  auto e = make_extractor(name, opts);
  e->init(video.front().format());
  FeatureCollector out;
  for (unsigned i = 0; i < video.size(); ++i) e->extract(video[i], video[i], i, out);
  e->flush(out);
  return out;
}

double at(const FeatureCollector& c, const std::string& name, unsigned i) {
  auto v = c.get(name, i);
  EXPECT_TRUE(v.has_value()) << name << " missing at frame " << i;
  return v.value_or(NAN);
}

// The fork's row pipeline written out directly (motion_score_pipeline_8/16):
// per row, the vertical 5-tap pass over prev − cur with one reflect-101
// reflection (sizes >= 3), rounded to bpc bits; the horizontal pass rounded
// to 16 bits; |.| summed into a 32-bit row sum; rows added in 64 bits.
std::uint64_t fork_sad(const Picture& prev, const Picture& cur) {
  const int w = cur.width(), h = cur.height(), bpc = cur.bit_depth();
  const auto mirror = [](int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); };
  std::vector<std::int32_t> row(static_cast<std::size_t>(w));
  std::uint64_t sad = 0;
  for (int i = 0; i < h; ++i) {
    for (int j = 0; j < w; ++j) {
      std::int64_t acc = 0;
      for (int k = 0; k < 5; ++k) {
        const int r = mirror(i - 2 + k, h);
        acc += std::int64_t{motion::kFilter[k]} * (sample(prev, j, r) - sample(cur, j, r));
      }
      row[j] = static_cast<std::int32_t>((acc + (std::int64_t{1} << (bpc - 1))) >> bpc);
    }
    std::uint32_t row_sad = 0;
    for (int j = 0; j < w; ++j) {
      std::int64_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += std::int64_t{motion::kFilter[k]} * row[mirror(j - 2 + k, w)];
      row_sad += static_cast<std::uint32_t>(std::abs(static_cast<std::int32_t>((acc + 32768) >> 16)));
    }
    sad += row_sad;
  }
  return sad;
}

// The fork's motion_blend and MIN.
double blend(double s, double factor, double offset) {
  return s * factor + (1 - factor) * (offset < s ? offset : s);
}
double fork_min(double a, double b) { return a < b ? a : b; }

// --- definition -------------------------------------------------------------

TEST(MotionV2, DeclaresTheForksNamesAndOptions) {
  const ExtractorInfo* info = find_extractor("motion_v2");
  ASSERT_NE(info, nullptr);
  for (const char* n : {kSad, kMotion2, kMotion3})
    EXPECT_EQ(find_extractor_by_feature(n), info) << n;
  EXPECT_EQ(info->provided_features, (std::vector<std::string>{kSad, kMotion2, kMotion3}));
  std::vector<std::string> names;
  for (const OptionSpec& o : info->options) {
    names.push_back(o.name + "/" + o.alias);
    EXPECT_TRUE(o.feature_param) << o.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{
                       "motion_force_zero/force_0", "motion_blend_factor/mbf",
                       "motion_blend_offset/mbo", "motion_fps_weight/mfw",
                       "motion_max_val/mmxv", "motion_five_frame_window/mffw",
                       "motion_moving_average/mma"}));

  auto e = make_extractor("motion_v2", {});
  EXPECT_EQ(e->feature_names(), (std::vector<std::string>{kSad, kMotion2, kMotion3}));
  EXPECT_TRUE(e->temporal());
  EXPECT_TRUE(e->every_frame());
  EXPECT_EQ(e->lag(), 1u);
  EXPECT_EQ(e->pair_distance(), 1u);
  EXPECT_TRUE(e->pair_reference_only());
  EXPECT_FALSE(e->needs_chroma());

  // Non-default feature parameters, alphabetical by option name (as the
  // fork's vmaf_feature_name_from_options), numbers as %g, booleans bare.
  auto o = make_extractor("motion_v2", {{"motion_moving_average", "true"},
                                        {"motion_max_val", "8"},
                                        {"motion_fps_weight", "1.5"},
                                        {"motion_blend_offset", "2"},
                                        {"motion_blend_factor", "0.5"}});
  const std::string suffix = "_mbf_0.5_mbo_2_mfw_1.5_mmxv_8_mma";
  EXPECT_EQ(o->feature_names(), (std::vector<std::string>{std::string(kSad) + suffix,
                                                          std::string(kMotion2) + suffix,
                                                          std::string(kMotion3) + suffix}));
  // A default value given explicitly adds nothing.
  EXPECT_EQ(make_extractor("motion_v2", {{"motion_blend_offset", "40"}})->feature_names()[0], kSad);
  EXPECT_EQ(make_extractor("motion_v2", {{"motion_force_zero", "true"}})->feature_names()[2],
            std::string(kMotion3) + "_force_0");

  // The fork's ranges.
  EXPECT_THROW(make_extractor("motion_v2", {{"motion_fps_weight", "5.5"}}), Error);
  EXPECT_THROW(make_extractor("motion_v2", {{"motion_blend_factor", "1.1"}}), Error);
  EXPECT_THROW(make_extractor("motion_v2", {{"motion_blend_offset", "1001"}}), Error);
  EXPECT_THROW(make_extractor("motion_v2", {{"motion_max_val", "-1"}}), Error);
  EXPECT_THROW(make_extractor("motion_v2", {{"debug", "true"}}), Error);  // motion's, not v2's
  EXPECT_THROW(make_extractor("motion_v2", {{"motion_legacy", "true"}}), Error);
}

TEST(MotionV2, WritesMotion2AndMotion3AtTheEnd) {
  const ExtractorInfo* info = find_extractor("motion_v2");
  ASSERT_NE(info, nullptr);
  ASSERT_NE(info->first_written, nullptr);
  const ParsedOptions opts("motion_v2", info->options, {});
  EXPECT_EQ(info->first_written(kSad, opts), 0u);
  EXPECT_EQ(info->first_written(kMotion2, opts), kWrittenAtFlush);
  EXPECT_EQ(info->first_written(kMotion3, opts), kWrittenAtFlush);

  // In a job the columns are the fork's: SAD, then motion2_v2, motion3_v2;
  // placed after what another extractor writes at frame 0.
  const VideoFormat f{32, 24, 8, ChromaFormat::k420};
  JobConfig config;
  config.features = {{"motion_v2", {}}, {"psnr", {}}};
  Job job(config);
  for (unsigned i = 0; i < 3; ++i) {
    const Picture p = test::synthetic_picture(f, 10 + i, test::Fill::smooth);
    job.submit(view_of(p), view_of(p));
  }
  const JobResult r = job.finish();
  EXPECT_EQ(r.features.names(), (std::vector<std::string>{kSad, "psnr_y", "psnr_cb", "psnr_cr",
                                                          kMotion2, kMotion3}));
}

TEST(MotionV2, RefusesFramesBelow3x3AndTheFiveFrameWindow) {
  for (auto [w, h] : {std::pair{1, 1}, {2, 2}, {2, 9}, {9, 2}, {1, 40}}) {
    auto e = make_extractor("motion_v2", {});
    try {
      e->init(VideoFormat{w, h, 8, ChromaFormat::k444});
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const Error& err) {
      const std::string m = err.what();
      EXPECT_NE(m.find("motion_v2"), std::string::npos) << m;
      EXPECT_NE(m.find("3x3"), std::string::npos) << m;
    }
  }
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{3, 3}, {3, 17}, {17, 3}})
      EXPECT_NO_THROW(make_extractor("motion_v2", {})->init(VideoFormat{w, h, bpc, ChromaFormat::k400}))
          << w << "x" << h << " " << bpc;

  auto five = make_extractor("motion_v2", {{"motion_five_frame_window", "true"}});
  try {
    five->init(VideoFormat{16, 16, 8, ChromaFormat::k420});
    ADD_FAILURE() << "motion_five_frame_window accepted";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("motion_five_frame_window"), std::string::npos);
  }
  // false is the default and is accepted (no name suffix either).
  auto off = make_extractor("motion_v2", {{"motion_five_frame_window", "false"}});
  EXPECT_NO_THROW(off->init(VideoFormat{16, 16, 8, ChromaFormat::k420}));
  EXPECT_EQ(off->feature_names()[0], kSad);
}

TEST(MotionV2, SadIsTheForksRowPipeline) {
  const int sizes[][2] = {{3, 3}, {4, 3}, {3, 5}, {7, 4}, {33, 17}, {64, 9}, {17, 33}};
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes) {
      const auto v = random_video(s[0], s[1], bpc, 3, 100u * bpc + s[0] * 7u + s[1]);
      const auto c = run("motion_v2", {}, v);
      EXPECT_EQ(at(c, kSad, 0), 0.0);
      for (unsigned i = 1; i < 3; ++i) {
        const double want =
            static_cast<double>(fork_sad(v[i - 1], v[i])) / 256. / (s[0] * s[1]);
        EXPECT_EQ(at(c, kSad, i), want) << s[0] << "x" << s[1] << " " << bpc << "-bit frame " << i;
      }
    }
}

// The difference is taken as previous − current: the rounding of the passes
// is not symmetric, so swapping the frames can change the SAD.
TEST(MotionV2, DifferenceIsPreviousMinusCurrent) {
  int differing = 0;
  for (unsigned seed = 0; seed < 40; ++seed) {
    const auto v = random_video(19, 11, 8, 2, seed);
    const auto fwd = run("motion_v2", {}, v);
    std::vector<Picture> swapped;
    swapped.push_back(make_picture(19, 11, 8, [&](int x, int y) { return sample(v[1], x, y); }));
    swapped.push_back(make_picture(19, 11, 8, [&](int x, int y) { return sample(v[0], x, y); }));
    const auto bwd = run("motion_v2", {}, swapped);
    EXPECT_EQ(at(fwd, kSad, 1), static_cast<double>(fork_sad(v[0], v[1])) / 256. / (19 * 11));
    EXPECT_EQ(at(bwd, kSad, 1), static_cast<double>(fork_sad(v[1], v[0])) / 256. / (19 * 11));
    differing += at(fwd, kSad, 1) != at(bwd, kSad, 1);
  }
  EXPECT_GT(differing, 0);
}

// --- temporal behaviour ----------------------------------------------------

TEST(MotionV2, FirstFrameLookAheadAndFlush) {
  const auto v = random_video(16, 12, 8, 3, 5);
  auto e = make_extractor("motion_v2", {});
  e->init(v[0].format());
  FeatureCollector out;
  e->extract(v[0], v[0], 0, out);
  EXPECT_EQ(at(out, kSad, 0), 0.0);  // no frame before
  EXPECT_FALSE(out.get(kMotion2, 0).has_value());  // needs frame 1
  EXPECT_FALSE(out.get(kMotion3, 0).has_value());
  e->extract(v[1], v[1], 1, out);
  const double s1 = at(out, kSad, 1);
  EXPECT_GT(s1, 0.0);
  EXPECT_EQ(at(out, kMotion2, 0), 0.0);  // min(0, s1)
  EXPECT_EQ(at(out, kMotion3, 0), s1);   // frame 1's blended score
  EXPECT_FALSE(out.get(kMotion2, 1).has_value());
  e->extract(v[2], v[2], 2, out);
  const double s2 = at(out, kSad, 2);
  EXPECT_EQ(at(out, kMotion2, 1), std::min(s1, s2));
  EXPECT_FALSE(out.get(kMotion2, 2).has_value());
  e->flush(out);
  EXPECT_EQ(at(out, kMotion2, 2), s2);  // the last frame keeps its own score
  EXPECT_EQ(at(out, kMotion3, 2), s2);

  // One frame: everything 0 after flush.
  auto one = make_extractor("motion_v2", {{"motion_blend_factor", "0.3"}});
  one->init(v[0].format());
  FeatureCollector o1;
  one->extract(v[0], v[0], 0, o1);
  one->flush(o1);
  const std::string sfx = "_mbf_0.3";
  EXPECT_EQ(at(o1, kSad + sfx, 0), 0.0);
  EXPECT_EQ(at(o1, kMotion2 + sfx, 0), 0.0);
  EXPECT_EQ(at(o1, kMotion3 + sfx, 0), 0.0);
}

TEST(MotionV2, Motion2AndMotion3FollowTheDefinition) {
  auto v = random_video(24, 16, 12, 9, 3);
  v[4] = make_picture(24, 16, 12, [&](int x, int y) { return sample(v[3], x, y); });  // score 0
  struct Variant {
    OptionValues opts;
    double factor, offset, weight, max_val;
    bool average;
  };
  const Variant variants[] = {
      {{}, 1.0, 40.0, 1.0, 10000.0, false},
      {{{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "2"},
        {"motion_fps_weight", "1.5"}, {"motion_max_val", "8"},
        {"motion_moving_average", "true"}},
       0.5, 2.0, 1.5, 8.0, true},
      {{{"motion_blend_factor", "0.2"}, {"motion_blend_offset", "0"},
        {"motion_max_val", "3.25"}},
       0.2, 0.0, 1.0, 3.25, false},
  };
  const auto plain = run("motion_v2", {}, v);
  for (const Variant& var : variants) {
    const auto c = run("motion_v2", var.opts, v);
    const std::string sfx = ParsedOptions("motion_v2", find_extractor("motion_v2")->options,
                                          var.opts)
                                .name_suffix();
    const unsigned n = static_cast<unsigned>(v.size());
    std::vector<double> s(n);
    for (unsigned i = 0; i < n; ++i) {
      s[i] = at(c, kSad + sfx, i);
      // The per-frame score: the raw score times the weight, capped.
      const double raw = at(plain, kSad, i);
      EXPECT_EQ(s[i], i == 0 ? 0.0 : fork_min(raw * var.weight, var.max_val)) << sfx << " " << i;
    }
    EXPECT_EQ(s[4], 0.0);
    double prev = 0;
    for (unsigned i = 0; i < n; ++i) {
      const double m2 = i + 1 < n ? (s[i] < s[i + 1] ? s[i] : s[i + 1]) : s[i];
      EXPECT_EQ(at(c, kMotion2 + sfx, i), m2) << sfx << " " << i;
      double m3;
      if (i == 0) {
        m3 = fork_min(blend(s[1], var.factor, var.offset), var.max_val);
        prev = m3;
      } else {
        const double p = fork_min(blend(m2, var.factor, var.offset), var.max_val);
        m3 = var.average ? (p + prev) / 2.0 : p;
        prev = p;
      }
      EXPECT_EQ(at(c, kMotion3 + sfx, i), m3) << sfx << " " << i;
    }
  }
}

TEST(MotionV2, ForceZeroWritesZeros) {
  const auto v = random_video(20, 10, 10, 4, 11);
  const auto c = run("motion_v2", {{"motion_force_zero", "true"}}, v);
  for (unsigned i = 0; i < 4; ++i)
    for (const char* n : {kSad, kMotion2, kMotion3})
      EXPECT_EQ(at(c, std::string(n) + "_force_0", i), 0.0) << n << " " << i;
}

TEST(MotionV2, FlatBlackAndMaximalFramesGiveFiniteScores) {
  for (int bpc : {8, 10, 12, 16}) {
    const int top = (1 << bpc) - 1;
    std::vector<Picture> v;
    v.push_back(make_picture(9, 7, bpc, [](int, int) { return 0; }));
    v.push_back(make_picture(9, 7, bpc, [](int, int) { return 0; }));
    v.push_back(make_picture(9, 7, bpc, [&](int, int) { return top; }));
    v.push_back(make_picture(9, 7, bpc, [&](int x, int y) { return (x + y) % 2 ? top : 0; }));
    v.push_back(make_picture(9, 7, bpc, [&](int x, int y) { return (x + y) % 2 ? 0 : top; }));
    const auto c = run("motion_v2", {}, v);
    EXPECT_EQ(at(c, kSad, 1), 0.0);
    for (unsigned i = 0; i < v.size(); ++i)
      for (const char* n : {kSad, kMotion2, kMotion3}) {
        const double x = at(c, n, i);
        EXPECT_TRUE(std::isfinite(x) && x >= 0) << n << " " << bpc << "-bit frame " << i;
      }
    for (unsigned i = 2; i < v.size(); ++i)
      EXPECT_EQ(at(c, kSad, i), static_cast<double>(fork_sad(v[i - 1], v[i])) / 256. / 63)
          << bpc << "-bit frame " << i;
  }
}

TEST(MotionV2, RefusesOutOfOrderFrames) {
  const auto v = random_video(8, 8, 8, 3, 1);
  auto e = make_extractor("motion_v2", {});
  e->init(v[0].format());
  FeatureCollector out;
  e->extract(v[0], v[0], 0, out);
  EXPECT_THROW(e->extract(v[2], v[2], 2, out), Error);
}

// The fork's SAD is libvmaf 3.2.0's integer motion SAD; with default options
// its motion2_v2 / motion3_v2 equal motion's integer_motion2 / 3 as well.
TEST(MotionV2, EqualsIntegerMotionWithDefaults) {
  for (int bpc : {8, 16}) {
    const auto v = random_video(41, 23, bpc, 6, 77u + bpc);
    const auto a = run("motion_v2", {}, v);
    const auto b = run("motion", {}, v);
    for (unsigned i = 0; i < 6; ++i) {
      EXPECT_EQ(at(a, kSad, i), at(b, "VMAF_integer_feature_motion_sad_score", i));
      EXPECT_EQ(at(a, kMotion2, i), at(b, "integer_motion2", i));
      EXPECT_EQ(at(a, kMotion3, i), at(b, "integer_motion3", i));
    }
  }
}

// The job runs the SADs on any worker (pairwise) and the scores in order:
// every thread count, with or without --subsample, gives the same values
// at the sampled frames (the SAD of frame i always compares it with frame
// i - 1, as the fork does).
TEST(MotionV2, JobValuesAreIndependentOfThreadsAndSubsample) {
  const VideoFormat f{67, 45, 10, ChromaFormat::k420};
  std::vector<Picture> frames;
  for (unsigned i = 0; i < 10; ++i)
    frames.push_back(test::synthetic_picture(f, 50 + i, test::Fill::smooth));
  const auto score = [&](unsigned threads, unsigned subsample) {
    JobConfig config;
    config.features = {{"motion_v2", {}}};
    config.threads = threads;
    config.subsample = subsample;
    Job job(config);
    for (const Picture& p : frames) job.submit(view_of(p), view_of(p));
    return job.finish();
  };
  const JobResult base = score(0, 1);
  const FeatureCollector direct = run("motion_v2", {}, frames);
  for (unsigned i = 0; i < 10; ++i)
    for (const char* n : {kSad, kMotion2, kMotion3})
      EXPECT_EQ(at(base.features, n, i), at(direct, n, i)) << n << " " << i;
  for (auto [threads, subsample] : {std::pair{3u, 1u}, {2u, 3u}, {0u, 4u}}) {
    const JobResult r = score(threads, subsample);
    for (unsigned i = 0; i < 10; i += subsample)
      for (const char* n : {kSad, kMotion2, kMotion3})
        EXPECT_EQ(at(r.features, n, i), at(base.features, n, i))
            << n << " frame " << i << " threads " << threads << " subsample " << subsample;
  }
}

// --- reference: the fork's own tool ------------------------------------------

TEST(MotionV2Reference, BitIdenticalToLusorisVmaf) {
  VQE_REQUIRE_SHARED(shared);
  const std::filesystem::path dir =
      std::filesystem::path(VQE_SOURCE_DIR) / "tests" / "data" / "motion_v2_reference";
  std::ifstream manifest_in(dir / "manifest.json");
  ASSERT_TRUE(manifest_in) << "cannot open " << (dir / "manifest.json");
  const auto manifest = nlohmann::json::parse(manifest_in);
  const auto clips = shared / "testdata" / "clips";
  int runs = 0, values = 0, pooled = 0;
  for (const auto& c : manifest.at("cases")) {
    const std::string file = c.at("file").get<std::string>();
    SCOPED_TRACE(file);
    const auto ref = clips / c.at("reference").get<std::string>();
    const auto dist = clips / c.at("distorted").get<std::string>();
    if (!std::filesystem::exists(ref) || !std::filesystem::exists(dist)) {
      ADD_FAILURE() << "clip missing from ../shared: " << ref << " or " << dist;
      continue;
    }
    OptionValues opts;
    for (const auto& [k, v] : c.at("options").items()) opts[k] = v.get<std::string>();
    std::ifstream in(dir / file);
    ASSERT_TRUE(in) << "cannot open " << file;
    const auto want = nlohmann::json::parse(in);

    JobConfig config;
    config.features = {{"motion_v2", opts}};
    const JobResult got = test::run_pair(ref, dist, config);
    ++runs;
    const auto& frames = want.at("frames");
    ASSERT_EQ(got.frames, frames.size());
    std::vector<std::string> names_want;
    for (const auto& [name, v] : frames.at(0).at("metrics").items()) names_want.push_back(name);
    std::vector<std::string> names_got = got.features.names();
    std::sort(names_want.begin(), names_want.end());
    std::sort(names_got.begin(), names_got.end());
    EXPECT_EQ(names_got, names_want);
    int equal = 0, n_case = 0;
    for (const auto& frame : frames) {
      const unsigned i = frame.at("frameNum").get<unsigned>();
      for (const auto& [name, v] : frame.at("metrics").items()) {
        const double w = v.get<double>();
        const auto g = got.features.get(name, i);
        ASSERT_TRUE(g.has_value()) << name << " missing at frame " << i;
        EXPECT_EQ(std::memcmp(&*g, &w, sizeof w), 0)
            << name << " frame " << i << ": VQE " << fmt::format("{:.17g}", *g) << " vs fork "
            << fmt::format("{:.17g}", w);
        equal += *g == w;
        ++n_case;
      }
    }
    const std::pair<const char*, PoolMethod> methods[] = {{"min", PoolMethod::kMin},
                                                          {"max", PoolMethod::kMax},
                                                          {"mean", PoolMethod::kMean},
                                                          {"harmonic_mean", PoolMethod::kHarmonicMean}};
    for (const auto& [name, stats] : want.at("pooled_metrics").items())
      for (const auto& [key, method] : methods) {
        const double w = stats.at(key).get<double>();
        const auto g = got.features.pooled(name, method);
        ASSERT_TRUE(g.has_value()) << name << " " << key;
        EXPECT_EQ(*g, w) << "pooled " << key << " " << name << ": VQE "
                         << fmt::format("{:.17g}", *g) << " vs fork " << fmt::format("{:.17g}", w);
        ++pooled;
      }
    values += n_case;
    std::printf("  %-48s %4d/%4d per-frame values bit-identical\n", file.c_str(), equal, n_case);
  }
  EXPECT_GT(runs, 0);
  std::printf("motion_v2 reference (lusoris/vmaf c2a3c7e0): %d runs, %d per-frame values, %d "
              "pooled values compared\n",
              runs, values, pooled);
}

}  // namespace
}  // namespace vqe
