// SPDX-License-Identifier: BSD-2-Clause
// Tests of the simple float extractors: float_psnr, float_moment,
// float_ansnr, float_motion. Kernels against direct transcriptions of the
// libvmaf definitions, edge cases (tiny, flat, every bit depth), options,
// and golden values (within 1e-6 relative of libvmaf 3.2.0).

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdint>
#include <filesystem>
#include <random>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "features/float_motion/float_motion_kernels.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

// --- helpers ----------------------------------------------------------------

template <typename F>
Picture make_picture(int w, int h, int bpc, ChromaFormat chroma, F value) {
  VideoFormat f{w, h, bpc, chroma};
  Picture p(f);
  for (int c = 0; c < p.num_planes(); ++c)
    for (int y = 0; y < p.plane(c).height; ++y)
      for (int x = 0; x < p.plane(c).width; ++x) {
        const int v = value(x, y, c);
        if (bpc == 8)
          p.plane(c).row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
        else
          p.plane(c).row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
      }
  return p;
}

template <typename F>
Picture make_luma(int w, int h, int bpc, F value) {
  return make_picture(w, h, bpc, ChromaFormat::k400, [&](int x, int y, int) { return value(x, y); });
}

std::vector<Picture> random_video(int w, int h, int bpc, int frames, unsigned seed,
                                  ChromaFormat chroma = ChromaFormat::k400) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(0, (1 << bpc) - 1);
  std::vector<Picture> out;
  for (int i = 0; i < frames; ++i)
    out.push_back(make_picture(w, h, bpc, chroma, [&](int, int, int) { return dist(rng); }));
  return out;
}

int sample(const Picture& p, int x, int y, int c = 0) {
  return p.bit_depth() == 8 ? p.plane(c).row<std::uint8_t>(y)[x] : p.plane(c).row<std::uint16_t>(y)[x];
}

// Runs one extractor on ref/dis sequences (dis defaults to ref).
FeatureCollector run(const std::string& name, const OptionValues& opts,
                     const std::vector<Picture>& ref, const std::vector<Picture>* dis = nullptr,
                     std::size_t count = SIZE_MAX) {
  auto e = make_extractor(name, opts);
  e->init(ref.front().format());
  FeatureCollector out;
  for (unsigned i = 0; i < ref.size() && i < count; ++i)
    e->extract(ref[i], dis ? (*dis)[i] : ref[i], i, out);
  e->flush(out);
  return out;
}

double at(const FeatureCollector& c, const std::string& name, unsigned i) {
  auto v = c.get(name, i);
  EXPECT_TRUE(v.has_value()) << name << " missing at frame " << i;
  return v.value_or(NAN);
}

// libvmaf's picture_copy for one sample.
float to_float(const Picture& p, int x, int y, int offset, int c = 0) {
  const int v = sample(p, x, y, c);
  if (p.bit_depth() == 8) return static_cast<float>(v) + offset;
  return static_cast<float>(v) / static_cast<float>(1 << (p.bit_depth() - 8)) + offset;
}

// --- float_psnr -------------------------------------------------------------

TEST(FloatPsnr, IdenticalPairGivesCeilingAtEveryDepth) {
  const std::pair<int, double> cases[] = {{8, 60.0}, {10, 72.0}, {12, 84.0}, {16, 108.0}};
  for (auto [bpc, ceiling] : cases) {
    auto v = random_video(13, 7, bpc, 1, bpc);
    auto c = run("float_psnr", {}, v);
    EXPECT_EQ(at(c, "float_psnr", 0), ceiling);
  }
}

TEST(FloatPsnr, MatchesDefinition) {
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{1, 1}, {5, 3}, {33, 17}}) {
      auto r = random_video(w, h, bpc, 1, 3 * bpc + w);
      auto d = random_video(w, h, bpc, 1, 7 * bpc + h);
      auto c = run("float_psnr", {}, r, &d);
      double noise = 0;
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const float diff = to_float(r[0], x, y, 0) - to_float(d[0], x, y, 0);
          noise += diff * diff;
        }
      noise /= w * h;
      const double peak = bpc == 8 ? 255.0 : bpc == 10 ? 255.75 : bpc == 12 ? 255.9375 : 255.99609375;
      const double ceiling = bpc == 8 ? 60.0 : bpc == 10 ? 72.0 : bpc == 12 ? 84.0 : 108.0;
      EXPECT_EQ(at(c, "float_psnr", 0),
                std::min(10 * std::log10(peak * peak / std::max(noise, 1e-10)), ceiling));
    }
}

// --- float_moment -----------------------------------------------------------

TEST(FloatMoment, MatchesLibvmafFloatDefinition) {
  // libvmaf: samples to float (divided by 2^(bpc-8)), sums in double. Exact
  // for 8..12 bits; at 16 bits its float squares round (within 1e-7 rel).
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{1, 1}, {2, 3}, {33, 17}, {320, 19}}) {
      auto r = random_video(w, h, bpc, 1, 11 * bpc + w);
      auto d = random_video(w, h, bpc, 1, 13 * bpc + h);
      auto c = run("float_moment", {}, r, &d);
      const Picture* pics[2] = {&r[0], &d[0]};
      const char* first[2] = {"float_moment_ref1st", "float_moment_dis1st"};
      const char* second[2] = {"float_moment_ref2nd", "float_moment_dis2nd"};
      for (int k = 0; k < 2; ++k) {
        double s1 = 0, s2 = 0;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const float v = to_float(*pics[k], x, y, 0);
            s1 += v;
            s2 += v * v;
          }
        s1 /= w * h;
        s2 /= w * h;
        EXPECT_EQ(at(c, first[k], 0), s1) << bpc << " " << w << "x" << h;
        if (bpc <= 12)
          EXPECT_EQ(at(c, second[k], 0), s2) << bpc << " " << w << "x" << h;
        else
          EXPECT_NEAR(at(c, second[k], 0), s2, 1e-7 * s2) << w << "x" << h;
      }
    }
}

TEST(FloatMoment, ShiftedContentScoresTheSameAtEveryDepth) {
  auto v8 = random_video(31, 9, 8, 1, 5);
  auto c8 = run("float_moment", {}, v8);
  for (int bpc : {10, 12, 16}) {
    std::vector<Picture> v;
    v.push_back(make_luma(31, 9, bpc, [&](int x, int y) { return sample(v8[0], x, y) << (bpc - 8); }));
    auto c = run("float_moment", {}, v);
    for (const char* n : {"float_moment_ref1st", "float_moment_ref2nd"}) EXPECT_EQ(at(c, n, 0), at(c8, n, 0));
  }
  // A maximal 16-bit frame: Σx² needs more than 32 bits per row.
  std::vector<Picture> white;
  white.push_back(make_luma(4000, 3, 16, [](int, int) { return 65535; }));
  auto cw = run("float_moment", {}, white);
  EXPECT_EQ(at(cw, "float_moment_ref1st", 0), 65535.0 / 256.0);
  EXPECT_EQ(at(cw, "float_moment_ref2nd", 0), 65535.0 * 65535.0 / 65536.0);
}

// --- float_ansnr ------------------------------------------------------------

// Direct transcription of libvmaf's compute_ansnr (2-D filters, mirror -i /
// 2n-1-i, valid for sizes >= 3).
std::pair<double, double> naive_ansnr(const Picture& r, const Picture& d) {
  const int w = r.width(), h = r.height(), bpc = r.bit_depth();
  auto refl = [](int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 1 : i); };
  const int rt[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
  const int dt[25] = {2, 7, 12, 7, 2, 7, 31, 52, 31, 7, 12, 52, 127, 52, 12, 7, 31, 52, 31, 7, 2, 7, 12, 7, 2};
  auto filt = [&](const Picture& p, const int* taps, int fw, double norm, int x, int y) {
    float acc = 0;
    for (int i = 0; i < fw; ++i) {
      float inner = 0;
      for (int j = 0; j < fw; ++j)
        inner += static_cast<float>(taps[i * fw + j] / norm) *
                 to_float(p, refl(x - fw / 2 + j, w), refl(y - fw / 2 + i, h), -128);
      acc += inner;
    }
    return acc;
  };
  float sig = 0, noise = 0;
  for (int y = 0; y < h; ++y) {
    float s_row = 0, n_row = 0;
    for (int x = 0; x < w; ++x) {
      const float a = filt(r, rt, 3, 16.0, x, y), b = filt(d, dt, 5, 571.0, x, y);
      s_row += a * a;
      n_row += (a - b) * (a - b);
    }
    sig += s_row;
    noise += n_row;
  }
  const double peak = bpc == 8 ? 255.0 : bpc == 10 ? 255.75 : bpc == 12 ? 255.9375 : 255.99609375;
  const double ceiling = bpc == 8 ? 60.0 : bpc == 10 ? 72.0 : bpc == 12 ? 84.0 : 108.0;
  // C's log10 takes a double: the float ratio is widened first.
  const double ansnr = noise == 0 ? ceiling : 10.0 * std::log10(static_cast<double>(sig / noise));
  const double anpsnr = std::min(10 * std::log10(peak * peak * w * h / std::max<double>(noise, 1e-10)), ceiling);
  return {ansnr, anpsnr};
}

TEST(FloatAnsnr, MatchesDefinition) {
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{3, 3}, {4, 7}, {33, 17}}) {
      auto r = random_video(w, h, bpc, 1, 17 * bpc + w);
      auto d = random_video(w, h, bpc, 1, 19 * bpc + h);
      auto c = run("float_ansnr", {}, r, &d);
      auto [ansnr, anpsnr] = naive_ansnr(r[0], d[0]);
      EXPECT_EQ(at(c, "float_ansnr", 0), ansnr) << bpc << " " << w << "x" << h;
      EXPECT_EQ(at(c, "float_anpsnr", 0), anpsnr) << bpc << " " << w << "x" << h;
    }
}

TEST(FloatAnsnr, TinyAndFlatFramesAreFinite) {
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{1, 1}, {2, 1}, {1, 2}, {2, 2}, {5, 1}}) {
      auto r = random_video(w, h, bpc, 1, w + 5 * h);
      auto d = random_video(w, h, bpc, 1, w + 9 * h + 1);
      auto c = run("float_ansnr", {}, r, &d);
      EXPECT_TRUE(std::isfinite(at(c, "float_ansnr", 0)));
      EXPECT_TRUE(std::isfinite(at(c, "float_anpsnr", 0)));
    }
  // Mid-grey on both sides: signal and noise are 0 -> the ceilings.
  std::vector<Picture> grey;
  grey.push_back(make_luma(8, 8, 8, [](int, int) { return 128; }));
  auto c = run("float_ansnr", {}, grey);
  EXPECT_EQ(at(c, "float_ansnr", 0), 60.0);
  EXPECT_EQ(at(c, "float_anpsnr", 0), 60.0);
  // Black: finite.
  std::vector<Picture> black;
  black.push_back(make_luma(8, 8, 10, [](int, int) { return 0; }));
  auto b = run("float_ansnr", {}, black);
  EXPECT_TRUE(std::isfinite(at(b, "float_ansnr", 0)));
}

// --- float_motion -----------------------------------------------------------

// libvmaf's convolution_f32_c_s transcribed: full vertical pass, then
// horizontal, reflect-101 (single reflection; sizes >= 3).
std::vector<float> naive_blur(const std::vector<float>& src, int w, int h, const float* f, int fw) {
  auto refl = [](int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); };
  std::vector<float> tmp(src.size()), out(src.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc = 0;
      for (int k = 0; k < fw; ++k) acc += f[k] * src[refl(y - fw / 2 + k, h) * w + x];
      tmp[y * w + x] = acc;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float acc = 0;
      for (int k = 0; k < fw; ++k) acc += f[k] * tmp[y * w + refl(x - fw / 2 + k, w)];
      out[y * w + x] = acc;
    }
  return out;
}

TEST(FloatMotionKernels, ConvolutionMatchesDefinition) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-128.f, 128.f);
  for (auto [w, h] : {std::pair{3, 3}, {5, 4}, {4, 9}, {33, 17}, {64, 3}})
    for (int fw : {3, 5}) {
      std::vector<float> src(w * h);
      for (float& v : src) v = u(rng);
      const float* f = fw == 3 ? float_motion::kFilter3 : float_motion::kFilter5;
      std::vector<float> dst(w * h), row(w + 4);
      float_motion::convolve(f, fw, src.data(), dst.data(), w, h, row.data());
      EXPECT_EQ(dst, naive_blur(src, w, h, f, fw)) << w << "x" << h << " fw " << fw;
      // The identity filter reproduces its input.
      float_motion::convolve(float_motion::kFilter5NoOp, 5, src.data(), dst.data(), w, h, row.data());
      EXPECT_EQ(dst, src);
    }
}

TEST(FloatMotionKernels, HalfScaleAveragesTwoByTwoBlocks) {
  auto plan = float_motion::make_half_scale_plan(8, 6);
  EXPECT_EQ(plan.dst_w, 4);
  EXPECT_EQ(plan.dst_h, 3);
  std::vector<float> src(48), dst(12);
  for (int i = 0; i < 48; ++i) src[i] = static_cast<float>(i % 8 + 8 * (i / 8));
  float_motion::bilinear_scale(plan, src.data(), dst.data());
  for (int y = 0; y < 3; ++y)
    for (int x = 0; x < 4; ++x)
      EXPECT_FLOAT_EQ(dst[y * 4 + x], (src[2 * y * 8 + 2 * x] + src[2 * y * 8 + 2 * x + 1] +
                                       src[(2 * y + 1) * 8 + 2 * x] + src[(2 * y + 1) * 8 + 2 * x + 1]) / 4);
  // Odd and tiny sizes stay in bounds.
  for (auto [w, h] : {std::pair{1, 1}, {1, 2}, {3, 1}, {5, 7}, {33, 17}}) {
    auto p = float_motion::make_half_scale_plan(w, h);
    for (int v : p.x1) EXPECT_TRUE(v >= 0 && v < w);
    for (int v : p.x2) EXPECT_TRUE(v >= 0 && v < w);
    for (int v : p.y1) EXPECT_TRUE(v >= 0 && v < h);
    for (int v : p.y2) EXPECT_TRUE(v >= 0 && v < h);
  }
}

TEST(FloatMotion, NamesOptionsAndRefusals) {
  auto e = make_extractor("float_motion", {});
  EXPECT_TRUE(e->temporal());
  EXPECT_EQ(e->feature_names(), (std::vector<std::string>{"motion2", "motion", "motion3"}));
  auto q = make_extractor("float_motion", {{"debug", "false"}, {"motion_filter_size", "3"}});
  EXPECT_EQ(q->feature_names(), (std::vector<std::string>{"motion2_mfs_3", "motion3_mfs_3"}));
  EXPECT_THROW(make_extractor("float_motion", {{"motion_filter_size", "10"}}), Error);
  auto uv = make_extractor("float_motion", {{"motion_add_uv", "true"}});
  EXPECT_THROW(uv->init(VideoFormat{16, 16, 8, ChromaFormat::k400}), Error);
  EXPECT_NO_THROW(uv->init(VideoFormat{16, 16, 8, ChromaFormat::k420}));
}

TEST(FloatMotion, TemporalStructure) {
  auto v = random_video(24, 14, 8, 5, 21);
  auto c = run("float_motion", {}, v);
  std::vector<double> m;
  for (unsigned i = 0; i < 5; ++i) m.push_back(at(c, "motion", i));
  EXPECT_EQ(m[0], 0.0);
  EXPECT_EQ(at(c, "motion2", 0), 0.0);
  for (unsigned i = 1; i < 4; ++i) EXPECT_EQ(at(c, "motion2", i), std::min(m[i], m[i + 1]));
  EXPECT_EQ(at(c, "motion2", 4), m[4]);
  EXPECT_EQ(at(c, "motion3", 0), m[1]);
  for (unsigned i = 1; i < 5; ++i) EXPECT_EQ(at(c, "motion3", i), at(c, "motion2", i));

  // One frame: zeros. Two frames: the last keeps its own motion.
  auto one = run("float_motion", {}, v, nullptr, 1);
  EXPECT_EQ(at(one, "motion", 0), 0.0);
  EXPECT_EQ(at(one, "motion2", 0), 0.0);
  EXPECT_EQ(at(one, "motion3", 0), 0.0);
  auto two = run("float_motion", {}, v, nullptr, 2);
  EXPECT_EQ(at(two, "motion2", 0), 0.0);
  EXPECT_EQ(at(two, "motion2", 1), m[1]);
  EXPECT_EQ(at(two, "motion3", 0), m[1]);
  EXPECT_EQ(at(two, "motion3", 1), m[1]);

  // Direct definition of motion at frame 1: blur both, mean |a - b| in float.
  std::vector<float> a(24 * 14), b(24 * 14);
  for (int y = 0; y < 14; ++y)
    for (int x = 0; x < 24; ++x) {
      a[y * 24 + x] = to_float(v[0], x, y, -128);
      b[y * 24 + x] = to_float(v[1], x, y, -128);
    }
  auto ba = naive_blur(a, 24, 14, float_motion::kFilter5, 5), bb = naive_blur(b, 24, 14, float_motion::kFilter5, 5);
  float acc = 0;
  for (int y = 0; y < 14; ++y) {
    float line = 0;
    for (int x = 0; x < 24; ++x) line += std::fabs(ba[y * 24 + x] - bb[y * 24 + x]);
    acc += line;
  }
  EXPECT_EQ(m[1], static_cast<double>(acc / static_cast<float>(24 * 14)));
}

TEST(FloatMotion, OptionsFollowLibvmaf) {
  auto v = random_video(20, 12, 10, 4, 8, ChromaFormat::k420);
  auto base = run("float_motion", {}, v);
  auto zero = run("float_motion", {{"motion_force_zero", "true"}}, v);
  for (unsigned i = 0; i < 4; ++i)
    for (const char* n : {"motion_force_0", "motion2_force_0", "motion3_force_0"}) EXPECT_EQ(at(zero, n, i), 0.0);

  auto fps = run("float_motion", {{"motion_fps_weight", "2"}, {"motion_max_val", "5"}}, v);
  for (unsigned i = 0; i < 4; ++i)
    EXPECT_EQ(at(fps, "motion2_mfw_2_mmxv_5", i), std::min(at(base, "motion2", i) * 2, 5.0));

  auto uv = run("float_motion", {{"motion_add_uv", "true"}}, v);
  auto scale1 = run("float_motion", {{"motion_add_scale1", "true"}}, v);
  auto noop = run("float_motion", {{"motion_filter_size", "1"}}, v);
  for (unsigned i = 1; i < 4; ++i) {
    EXPECT_GT(at(uv, "motion_mau", i), at(base, "motion", i));
    EXPECT_GT(at(scale1, "motion_mdc", i), at(base, "motion", i));
    EXPECT_GT(at(noop, "motion_mfs_1", i), at(base, "motion", i));  // no smoothing: more motion
  }
}

TEST(FloatMotion, TinyFlatAndDeepFrames) {
  for (int bpc : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{1, 1}, {2, 1}, {1, 3}, {2, 2}, {3, 3}, {7, 2}})
      for (const char* scale1 : {"false", "true"}) {
        auto v = random_video(w, h, bpc, 3, w * 7 + h, ChromaFormat::k444);
        v.push_back(make_picture(w, h, bpc, ChromaFormat::k444, [](int, int, int) { return 0; }));
        v.push_back(make_picture(w, h, bpc, ChromaFormat::k444, [](int, int, int) { return 0; }));
        auto c = run("float_motion", {{"motion_add_scale1", scale1}, {"motion_add_uv", "true"}}, v);
        const std::string sfx = std::string(scale1) == "true" ? "_mdc_mau" : "_mau";
        for (unsigned i = 0; i < v.size(); ++i)
          for (const char* n : {"motion", "motion2", "motion3"}) {
            const double x = at(c, n + sfx, i);
            EXPECT_TRUE(std::isfinite(x) && x >= 0) << n << sfx << " " << w << "x" << h;
          }
        EXPECT_EQ(at(c, "motion" + sfx, 4), 0.0);
      }
  // Shifted content scores the same at every depth.
  auto v8 = random_video(19, 11, 8, 3, 4);
  auto c8 = run("float_motion", {}, v8);
  for (int bpc : {10, 12, 16}) {
    std::vector<Picture> v;
    for (const auto& p : v8)
      v.push_back(make_luma(19, 11, bpc, [&](int x, int y) { return sample(p, x, y) << (bpc - 8); }));
    auto c = run("float_motion", {}, v);
    for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(at(c, "motion2", i), at(c8, "motion2", i));
  }
}

// --- golden -----------------------------------------------------------------

struct GoldenFeature {
  const char* extractor;
  std::vector<const char*> names;
};

TEST(FloatSimpleGolden, WithinOneMillionthOfLibvmaf) {
  VQE_REQUIRE_SHARED(shared);
  const std::vector<GoldenFeature> features = {
      {"float_psnr", {"float_psnr"}},
      {"float_moment", {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd", "float_moment_dis2nd"}},
      {"float_ansnr", {"float_ansnr", "float_anpsnr"}},
      {"float_motion", {"motion", "motion2", "motion3"}},
  };
  int pairs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(shared / "testdata" / "reference")) {
    if (entry.path().extension() != ".json") continue;
    const auto ref = test::load_reference(entry.path().filename().string());
    const auto clips = shared / "testdata" / "clips";
    std::vector<std::pair<std::string, OptionValues>> extractors;
    for (const auto& f : features)
      if (ref["frames"][0]["metrics"].contains(f.names[0])) extractors.push_back({f.extractor, {}});
    if (extractors.empty()) continue;
    SCOPED_TRACE(entry.path().filename().string());
    auto c = test::run_features(clips / ref["reference"].get<std::string>(),
                                clips / ref["distorted"].get<std::string>(), extractors);
    ++pairs;
    std::string line;
    for (const auto& f : features) {
      int n = 0, exact = 0;
      double worst = 0;
      for (const char* name : f.names)
        for (const auto& frame : ref["frames"]) {
          if (!frame["metrics"].contains(name)) continue;
          const unsigned i = frame["frameNum"];
          const double want = frame["metrics"][name].get<double>();
          const double got = at(c, name, i);
          const double rel = want == 0 ? std::fabs(got) : std::fabs(got - want) / std::fabs(want);
          EXPECT_LE(rel, 1e-6) << name << " frame " << i << ": " << got << " vs " << want;
          worst = std::max(worst, rel);
          ++n;
          exact += got == want;
        }
      if (n) line += fmt::format(" {} {}/{} exact (max rel {:.1e});", f.extractor, exact, n, worst);
    }
    std::printf("  %s:%s\n", entry.path().filename().string().c_str(), line.c_str());
  }
  EXPECT_GT(pairs, 0);
}

}  // namespace
}  // namespace vqe

namespace vqe {
namespace {

TEST(FloatSimpleGolden, ThreadCountDoesNotChangeResults) {
  VQE_REQUIRE_SHARED(shared);
  const auto clips = shared / "testdata" / "clips";
  const auto ref = clips / "ref" / "ciscovt2people_320x192_420p10_9f.y4m";
  const auto dis = clips / "dist" / "ciscovt2people_320x192_420p10_9f__x265_crf30.y4m";
  const std::vector<std::pair<std::string, OptionValues>> ex = {
      {"float_psnr", {}}, {"float_moment", {}}, {"float_ansnr", {}}, {"float_motion", {}}};
  auto one = test::run_features(ref, dis, ex, 1);
  auto four = test::run_features(ref, dis, ex, 4);
  for (const auto& n : one.names())
    for (unsigned i = 0; i < 9; ++i) EXPECT_EQ(at(four, n, i), at(one, n, i)) << n << " " << i;
}

}  // namespace
}  // namespace vqe

namespace vqe {
namespace {

// The float extractors of one thread share an arena (ScratchArena): its
// slots hold whatever the previous extractor left. Filled with NaN first (a
// stale sample read anywhere would show), sharing one arena in turn must
// give the values of each extractor alone, at the scalar and the best level.
TEST(ScratchArena, EarlierContentsNeverReachTheFloatFeatures) {
  const std::vector<std::string> names = {"float_adm", "float_ms_ssim", "float_ssim",
                                          "float_vif", "float_ansnr"};
  for (const VideoFormat format : {VideoFormat{208, 184, 10, ChromaFormat::k420},
                                   VideoFormat{211, 187, 8, ChromaFormat::k420}}) {
    std::vector<std::pair<Picture, Picture>> frames;
    for (std::uint32_t i = 0; i < 2; ++i) {
      Picture ref = test::synthetic_picture(format, 40 + i, test::Fill::smooth);
      Picture dis = test::distort_picture(ref, 70 + i, 9);
      frames.emplace_back(std::move(ref), std::move(dis));
    }
    for (const simd::Level level : {simd::Level::scalar, simd::max_level()}) {
      ScratchArena shared;
      const std::size_t room = std::size_t{4} * format.width * format.height;
      for (unsigned slot = 0; slot < 64; ++slot) {
        float* p = shared.get<float>(slot, room);
        std::fill(p, p + room, std::numeric_limits<float>::quiet_NaN());
      }
      const std::size_t held = shared.bytes();
      for (const std::string& name : names) {
        const std::string what = fmt::format("{} {}x{}", name, format.width, format.height);
        const FeatureCollector alone = test::run_on_pictures(name, {}, frames, nullptr, level);
        const FeatureCollector in_turn =
            test::run_on_pictures(name, {}, frames, nullptr, level, &shared);
        ASSERT_GT(alone.names().size(), 0u) << what;
        EXPECT_EQ(test::expect_bit_identical(alone, in_turn, what), 0) << what;
        EXPECT_EQ(shared.bytes(), held) << what << " grew a slot (its NaN would be gone)";
        for (const std::string& f : alone.names())
          EXPECT_TRUE(std::isfinite(*alone.get(f, 0))) << what << " " << f;
      }
    }
  }
}

}  // namespace
}  // namespace vqe
