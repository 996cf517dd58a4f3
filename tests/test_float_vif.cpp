// SPDX-License-Identifier: BSD-2-Clause
// float_vif: kernel properties, size limits, options and the golden check
// against libvmaf 3.2.0's values in ../shared/testdata/reference.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "features/float_vif/vif_kernels.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace {

using vqe::ChromaFormat;
using vqe::FeatureCollector;
using vqe::OptionValues;
using vqe::Picture;
using vqe::VideoFormat;

// Fills the luma of `pic` with `value(x, y)` (already at the picture's depth).
template <typename F>
void fill_luma(Picture& pic, F value) {
  vqe::Plane& p = pic.plane(0);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) {
      const unsigned v = value(x, y);
      if (pic.bit_depth() == 8) p.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
      else p.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
    }
}

// A textured reference and a noisy distorted 8-bit pair, scaled to `bpc` by
// a left shift (so every depth holds the same picture) plus `low_bits`
// random low bits when asked.
std::pair<Picture, Picture> textured_pair(int w, int h, int bpc, bool low_bits, unsigned seed) {
  VideoFormat f{w, h, bpc, ChromaFormat::k420};
  Picture r(f), d(f);
  std::mt19937 g(seed);
  std::vector<int> base(static_cast<std::size_t>(w) * h), dist(base.size());
  std::normal_distribution<double> noise(0, 8);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int b = std::clamp(static_cast<int>(128 + 90 * std::sin(x * 0.31) * std::cos(y * 0.17) +
                                                20 * std::sin(x * y * 0.01)),
                               0, 255);
      base[y * w + x] = b;
      dist[y * w + x] = std::clamp(static_cast<int>(std::lround(b + noise(g))), 0, 255);
    }
  const int shift = bpc - 8;
  std::uniform_int_distribution<int> lb(0, (1 << shift) - 1);
  auto scaled = [&](int v) { return (v << shift) + (low_bits && shift ? lb(g) : 0); };
  fill_luma(r, [&](int x, int y) { return scaled(base[y * w + x]); });
  fill_luma(d, [&](int x, int y) { return scaled(dist[y * w + x]); });
  return {std::move(r), std::move(d)};
}

FeatureCollector score(const OptionValues& opts, const Picture& r, const Picture& d) {
  auto ex = vqe::make_extractor("float_vif", opts);
  ex->init(r.format());
  FeatureCollector fc;
  ex->extract(r, d, 0, fc);
  return fc;
}

double get(const FeatureCollector& fc, const std::string& name) {
  auto v = fc.get(name, 0);
  EXPECT_TRUE(v.has_value()) << name;
  return v.value_or(std::nan(""));
}

TEST(FloatVifKernels, FastLog2IsExactAtPowersOfTwoAndCloseElsewhere) {
  for (int k = -20; k <= 20; ++k)
    EXPECT_EQ(vqe::float_vif::log2_approx(std::ldexp(1.0f, k)), static_cast<float>(k));
  for (float x : {1.1f, 1.5f, 3.0f, 7.7f, 100.0f, 12345.6f})
    EXPECT_NEAR(vqe::float_vif::log2_approx(x), std::log2(x), 1e-4) << x;
  EXPECT_TRUE(std::isinf(vqe::float_vif::log2_approx(0.0f)));
  EXPECT_TRUE(std::isnan(vqe::float_vif::log2_approx(-1.0f)));
}

TEST(FloatVifKernels, FiltersHaveLibvmafWidthsAndUnitSum) {
  const int widths[4] = {17, 9, 5, 3};
  for (int s = 0; s < 4; ++s) {
    ASSERT_EQ(vqe::float_vif::filter_width(s, 1.0f), widths[s]);
    std::vector<float> f(widths[s]);
    vqe::float_vif::make_filter(f.data(), s, 1.0f);
    double sum = 0;
    for (float c : f) sum += c;
    EXPECT_NEAR(sum, 1.0, 1e-6);
    for (int i = 0; i < widths[s] / 2; ++i) EXPECT_EQ(f[i], f[widths[s] - 1 - i]);
  }
  EXPECT_EQ(vqe::float_vif::filter_width(0, 2.0f), 35);
  EXPECT_EQ(vqe::float_vif::filter_width(3, 0.5f), 3);  // never below 3
}

TEST(FloatVifKernels, KernelscaleValidation) {
  for (double ks : {1.0, 0.5, 1.5, 2.0, 2.0 / 3, 2.4, 360.0 / 97, 3.0, 1.0 / 2.25, 1.06667})
    EXPECT_TRUE(vqe::float_vif::kernelscale_is_valid(ks)) << ks;
  for (double ks : {0.3, 1.01, 2.5, 4.0}) EXPECT_FALSE(vqe::float_vif::kernelscale_is_valid(ks)) << ks;
  EXPECT_THROW(vqe::make_extractor("float_vif", {{"vif_kernelscale", "0.3"}}), vqe::Error);
  EXPECT_THROW(vqe::make_extractor("float_vif", {{"vif_prescale_method", "cubic"}}), vqe::Error);
  EXPECT_THROW(vqe::make_extractor("float_vif", {{"vif_enhn_gain_limit", "0.5"}}), vqe::Error);
}

TEST(FloatVifKernels, MinimumSide) {
  EXPECT_EQ(vqe::float_vif::min_side(1.0f, false), 16);
  EXPECT_EQ(vqe::float_vif::min_side(1.0f, true), 16);  // scale 3 still needs 2 rows
  // Kernel scale 2: scale 2 has 11 taps (needs 6 samples at 1/4 size) and
  // scale 3 has 7 (needs 4 at 1/8 size): 32.
  EXPECT_EQ(vqe::float_vif::min_side(2.0f, false), 32);
}

TEST(FloatVif, RefusesFramesBelowMinimum) {
  for (auto [w, h] : {std::pair{15, 16}, {16, 15}, {8, 8}, {1, 1}}) {
    auto ex = vqe::make_extractor("float_vif", {});
    try {
      ex->init(VideoFormat{w, h, 8, ChromaFormat::k420});
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const vqe::Error& e) {
      EXPECT_NE(std::string(e.what()).find("float_vif"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("16x16"), std::string::npos) << e.what();
    }
  }
  // The limit applies to the prescaled frame.
  auto ex = vqe::make_extractor("float_vif", {{"vif_prescale", "0.5"}});
  EXPECT_THROW(ex->init(VideoFormat{30, 64, 8, ChromaFormat::k420}), vqe::Error);
  EXPECT_NO_THROW(ex->init(VideoFormat{32, 64, 8, ChromaFormat::k420}));
  auto wide = vqe::make_extractor("float_vif", {{"vif_prescale", "2"},
                                                {"vif_prescale_method", "bilinear"}});
  EXPECT_THROW(wide->init(VideoFormat{3900, 32, 8, ChromaFormat::k420}), vqe::Error);
}

TEST(FloatVif, SmallAndOddSizesGiveFiniteScores) {
  for (auto [w, h] : {std::pair{16, 16}, {17, 16}, {16, 31}, {33, 17}, {37, 23}, {65, 47}}) {
    auto [r, d] = textured_pair(w, h, 8, false, w * 100 + h);
    FeatureCollector fc = score({}, r, d);
    for (int s = 0; s < 4; ++s) {
      const double v = get(fc, "vif_scale" + std::to_string(s));
      EXPECT_TRUE(std::isfinite(v)) << w << "x" << h << " scale " << s;
      EXPECT_GT(v, 0.0);
      EXPECT_LT(v, 1.5);
    }
  }
}

TEST(FloatVif, FlatAndIdenticalFrames) {
  VideoFormat f{48, 32, 8, ChromaFormat::k420};
  Picture a(f), b(f);
  fill_luma(a, [](int, int) { return 77u; });
  fill_luma(b, [](int, int) { return 77u; });
  // Flat frames: the variances are ~0 (float rounding of the filter sums),
  // below the noise variance, so every pixel scores num = 1 - sigma2 * c,
  // den = 1: the scales are 1 up to rounding, never NaN.
  FeatureCollector fc = score({}, a, b);
  for (int s = 0; s < 4; ++s) EXPECT_NEAR(get(fc, "vif_scale" + std::to_string(s)), 1.0, 1e-6);
  // Black reference, flat grey distorted: likewise defined.
  fill_luma(a, [](int, int) { return 0u; });
  fc = score({}, a, b);
  for (int s = 0; s < 4; ++s) EXPECT_NEAR(get(fc, "vif_scale" + std::to_string(s)), 1.0, 1e-6);

  auto [r, d] = textured_pair(64, 48, 8, false, 3);
  fc = score({}, r, r);
  for (int s = 0; s < 4; ++s) EXPECT_NEAR(get(fc, "vif_scale" + std::to_string(s)), 1.0, 1e-5);
}

TEST(FloatVif, HighBitDepthMatchesShiftedEightBit) {
  // x / 2^(bpc-8) is exact in float, so a picture shifted to 10/12/16 bits
  // scores exactly like its 8-bit original; random low bits change it.
  auto [r8, d8] = textured_pair(80, 60, 8, false, 11);
  const FeatureCollector ref = score({}, r8, d8);
  for (int bpc : {10, 12, 16}) {
    auto [r, d] = textured_pair(80, 60, bpc, false, 11);
    const FeatureCollector fc = score({}, r, d);
    for (int s = 0; s < 4; ++s) {
      const std::string n = "vif_scale" + std::to_string(s);
      EXPECT_EQ(get(fc, n), get(ref, n)) << bpc << " " << n;
    }
    auto [rl, dl] = textured_pair(80, 60, bpc, true, 11);
    const FeatureCollector low = score({}, rl, dl);
    EXPECT_NE(get(low, "vif_scale0"), get(ref, "vif_scale0")) << bpc;
    EXPECT_NEAR(get(low, "vif_scale0"), get(ref, "vif_scale0"), 0.05) << bpc;
  }
}

TEST(FloatVif, OptionsNamesAndDebugOutputs) {
  auto [r, d] = textured_pair(64, 64, 8, false, 5);
  FeatureCollector fc = score({{"vif_enhn_gain_limit", "1"}, {"debug", "true"}}, r, d);
  EXPECT_TRUE(fc.has("vif_scale0_egl_1"));
  EXPECT_TRUE(fc.has("vif_egl_1"));
  EXPECT_TRUE(fc.has("vif_num_scale3_egl_1"));
  const double num = get(fc, "vif_num_egl_1"), den = get(fc, "vif_den_egl_1");
  EXPECT_DOUBLE_EQ(get(fc, "vif_egl_1"), num / den);
  EXPECT_EQ(get(fc, "vif_scale2_egl_1"),
            get(fc, "vif_num_scale2_egl_1") / get(fc, "vif_den_scale2_egl_1"));

  fc = score({{"vif_skip_scale0", "true"}, {"debug", "true"}}, r, d);
  EXPECT_EQ(get(fc, "vif_scale0_ssclz"), 0.0);
  EXPECT_EQ(get(fc, "vif_num_scale0_ssclz"), 0.0);
  EXPECT_EQ(get(fc, "vif_den_scale0_ssclz"), -1.0);
  EXPECT_GT(get(fc, "vif_scale1_ssclz"), 0.0);

  fc = score({{"vif_scale1_min_val", "0.99"}}, r, d);
  EXPECT_EQ(get(fc, "vif_scale1_s1miv_0.99"), 0.99);

  for (const char* m : {"nearest", "bilinear", "bicubic", "lanczos4"}) {
    fc = score({{"vif_prescale", "1.5"}, {"vif_prescale_method", m}}, r, d);
    // Suffixes follow option-name order: vif_prescale < vif_prescale_method.
    const std::string n = std::string("vif_scale0_ps_1.5") +
                          (std::string(m) == "nearest" ? "" : std::string("_pm_") + m);
    EXPECT_TRUE(std::isfinite(get(fc, n))) << n;
  }
  fc = score({{"vif_kernelscale", "0.5"}}, r, d);
  EXPECT_TRUE(std::isfinite(get(fc, "vif_scale0_ks_0.5")));
}

TEST(FloatVif, ClonesAgree) {
  auto [r, d] = textured_pair(70, 50, 10, true, 9);
  auto ex = vqe::make_extractor("float_vif", {});
  auto twin = ex->clone();
  ex->init(r.format());
  twin->init(r.format());
  FeatureCollector a, b;
  ex->extract(r, d, 0, a);
  twin->extract(r, d, 0, b);
  ex->extract(r, d, 1, a);  // buffers reused: same result again
  for (int s = 0; s < 4; ++s) {
    const std::string n = "vif_scale" + std::to_string(s);
    EXPECT_EQ(a.get(n, 0), b.get(n, 0));
    EXPECT_EQ(a.get(n, 0), a.get(n, 1));
  }
}

// Every reference pair: vif_scale0..3 (default options) and their _egl_1
// variants (vif_enhn_gain_limit=1) against libvmaf 3.2.0.
TEST(FloatVifGolden, MatchesLibvmafOnEveryReferencePair) {
  VQE_REQUIRE_SHARED(shared);
  const auto ref_dir = shared / "testdata" / "reference";
  int pairs = 0;
  double max_rel = 0;
  long values = 0, exact = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ref_dir)) {
    const nlohmann::json j = vqe::test::load_reference(entry.path().filename().string());
    if (j["frames"].empty() || !j["frames"][0]["metrics"].contains("vif_scale0")) continue;
    const auto clips = shared / "testdata" / "clips";
    const FeatureCollector fc = vqe::test::run_features(
        clips / j["reference"].get<std::string>(), clips / j["distorted"].get<std::string>(),
        {{"float_vif", {}}, {"float_vif", {{"vif_enhn_gain_limit", "1"}}}});
    ++pairs;
    for (const auto& frame : j["frames"]) {
      const unsigned i = frame["frameNum"];
      for (const auto& [name, value] : frame["metrics"].items()) {
        if (name.rfind("vif_scale", 0) != 0) continue;
        const auto got = fc.get(name, i);
        ASSERT_TRUE(got.has_value()) << entry.path().filename() << " " << name << " frame " << i;
        const double want = value.get<double>();
        const double rel = want == *got ? 0.0 : std::fabs(*got - want) / std::fabs(want);
        EXPECT_LE(rel, 1e-6) << entry.path().filename() << " " << name << " frame " << i;
        max_rel = std::max(max_rel, rel);
        ++values;
        exact += rel == 0.0;
      }
    }
  }
  EXPECT_GT(pairs, 0);
  std::printf("float_vif golden: %d pairs, %ld values, %ld bit-exact, max relative error %.3g\n",
              pairs, values, exact, max_rel);
}

}  // namespace
