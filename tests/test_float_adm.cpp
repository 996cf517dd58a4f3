// SPDX-License-Identifier: BSD-2-Clause
// float_adm: size limits, defined values at every accepted size, options,
// bit depths, the RCPSS model and the golden check against libvmaf 3.2.0's
// values in ../shared/testdata/reference.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#if defined(__SSE__) || defined(_M_X64)
#include <xmmintrin.h>
#define VQE_TEST_HAVE_RCPSS 1
#endif

#include "features/float_adm/adm_kernels.h"
#include "features/float_adm/rcp_model.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace {

using vqe::ChromaFormat;
using vqe::FeatureCollector;
using vqe::OptionValues;
using vqe::Picture;
using vqe::VideoFormat;

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

// Textured 8-bit content with a blurred, noisy distorted copy, shifted to
// `bpc` (plus random low bits when asked).
std::pair<Picture, Picture> textured_pair(int w, int h, int bpc, bool low_bits, unsigned seed) {
  VideoFormat f{w, h, bpc, ChromaFormat::k420};
  Picture r(f), d(f);
  std::mt19937 g(seed);
  std::uniform_int_distribution<int> u(0, 255);
  std::normal_distribution<double> noise(0, 5);
  std::vector<int> base(static_cast<std::size_t>(w) * h), dist(base.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      base[y * w + x] = std::clamp(
          static_cast<int>(128 + 80 * std::sin(x * 0.4 + y * 0.1) + 0.2 * (u(g) - 128)), 0, 255);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int xl = std::max(x - 1, 0), xr = std::min(x + 1, w - 1);
      const double blur = (base[y * w + xl] + 2 * base[y * w + x] + base[y * w + xr]) / 4.0;
      dist[y * w + x] = std::clamp(static_cast<int>(std::lround(blur + noise(g))), 0, 255);
    }
  const int shift = bpc - 8;
  std::uniform_int_distribution<int> lb(0, (1 << shift) - 1);
  auto scaled = [&](int v) { return (v << shift) + (low_bits && shift ? lb(g) : 0); };
  fill_luma(r, [&](int x, int y) { return scaled(base[y * w + x]); });
  fill_luma(d, [&](int x, int y) { return scaled(dist[y * w + x]); });
  return {std::move(r), std::move(d)};
}

FeatureCollector score(const OptionValues& opts, const Picture& r, const Picture& d) {
  auto ex = vqe::make_extractor("float_adm", opts);
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

const char* const kOutputs[] = {"adm2", "aim", "adm3", "adm_scale0",
                                "adm_scale1", "adm_scale2", "adm_scale3"};

TEST(FloatAdm, RefusesFramesBelowMinimum) {
  for (auto [w, h] : {std::pair{16, 17}, {17, 16}, {16, 16}, {1, 1}, {4000, 9}}) {
    auto ex = vqe::make_extractor("float_adm", {});
    try {
      ex->init(VideoFormat{w, h, 8, ChromaFormat::k420});
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const vqe::Error& e) {
      EXPECT_NE(std::string(e.what()).find("float_adm"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("17x17"), std::string::npos) << e.what();
    }
  }
}

// Band buffers start as NaN, so a read of a sample that the decoupling/CSF
// steps did not compute (libvmaf computes only a bordered region) would make
// the score NaN. Sweep every size from the minimum up, odd and even.
TEST(FloatAdm, EveryAcceptedSmallSizeGivesDefinedScores) {
  for (int w = 17; w <= 44; ++w)
    for (int h : {17, 18, 19, 22, 33, 35, 41}) {
      auto [r, d] = textured_pair(w, h, 8, false, w * 64 + h);
      const FeatureCollector fc = score({}, r, d);
      for (const char* n : kOutputs) {
        const double v = get(fc, n);
        EXPECT_TRUE(std::isfinite(v)) << w << "x" << h << " " << n;
      }
      EXPECT_GT(get(fc, "adm2"), 0.0);
      EXPECT_LE(get(fc, "adm2"), 1.5);
    }
}

TEST(FloatAdm, FlatAndIdenticalFrames) {
  VideoFormat f{40, 24, 8, ChromaFormat::k420};
  Picture a(f), b(f);
  fill_luma(a, [](int, int) { return 200u; });
  fill_luma(b, [](int, int) { return 200u; });
  FeatureCollector fc = score({}, a, b);
  EXPECT_EQ(get(fc, "adm2"), 1.0);
  EXPECT_EQ(get(fc, "aim"), 0.0);
  EXPECT_EQ(get(fc, "adm3"), 1.0);
  for (int s = 0; s < 4; ++s) EXPECT_EQ(get(fc, "adm_scale" + std::to_string(s)), 1.0);
  // Black vs white: still defined.
  fill_luma(a, [](int, int) { return 0u; });
  fill_luma(b, [](int, int) { return 255u; });
  fc = score({}, a, b);
  for (const char* n : kOutputs) EXPECT_TRUE(std::isfinite(get(fc, n))) << n;

  auto [r, d] = textured_pair(64, 48, 8, false, 1);
  fc = score({}, r, r);
  EXPECT_NEAR(get(fc, "adm2"), 1.0, 1e-6);
  EXPECT_EQ(get(fc, "aim"), 0.0);
}

TEST(FloatAdm, ZeroNoiseWeightOnFlatFramesIsDefined) {
  // den is 0 here; libvmaf leaves the AIM score uninitialised, VQE gives 0.
  VideoFormat f{32, 32, 8, ChromaFormat::k420};
  Picture a(f);
  fill_luma(a, [](int, int) { return 90u; });
  const FeatureCollector fc = score({{"adm_noise_weight", "0"}}, a, a);
  EXPECT_EQ(get(fc, "adm2_nw_0"), 1.0);
  EXPECT_EQ(get(fc, "aim_nw_0"), 0.0);
  EXPECT_EQ(get(fc, "adm3_nw_0"), 1.0);
}

TEST(FloatAdm, HighBitDepthMatchesShiftedEightBit) {
  auto [r8, d8] = textured_pair(96, 54, 8, false, 21);
  const FeatureCollector ref = score({}, r8, d8);
  for (int bpc : {10, 12, 16}) {
    auto [r, d] = textured_pair(96, 54, bpc, false, 21);
    const FeatureCollector fc = score({}, r, d);
    for (const char* n : kOutputs) EXPECT_EQ(get(fc, n), get(ref, n)) << bpc << " " << n;
    auto [rl, dl] = textured_pair(96, 54, bpc, true, 21);
    const FeatureCollector low = score({}, rl, dl);
    EXPECT_NE(get(low, "adm2"), get(ref, "adm2")) << bpc;
    EXPECT_NEAR(get(low, "adm2"), get(ref, "adm2"), 0.05) << bpc;
  }
}

TEST(FloatAdm, OptionsNamesAndDebugOutputs) {
  auto [r, d] = textured_pair(64, 64, 8, false, 7);
  const FeatureCollector base = score({}, r, d);
  FeatureCollector fc = score({{"adm_enhn_gain_limit", "1"}, {"debug", "true"}}, r, d);
  for (const char* n : kOutputs) EXPECT_TRUE(fc.has(std::string(n) + "_egl_1")) << n;
  EXPECT_TRUE(fc.has("adm"));  // no suffix, as in libvmaf
  EXPECT_TRUE(fc.has("adm_num_egl_1"));
  EXPECT_TRUE(fc.has("adm_den_scale3_egl_1"));
  EXPECT_EQ(get(fc, "adm"), get(fc, "adm2_egl_1"));
  EXPECT_EQ(get(fc, "adm_scale1_egl_1"),
            get(fc, "adm_num_scale1_egl_1") / get(fc, "adm_den_scale1_egl_1"));
  EXPECT_DOUBLE_EQ(get(fc, "adm2_egl_1"), get(fc, "adm_num_egl_1") / get(fc, "adm_den_egl_1"));
  EXPECT_LE(get(fc, "adm2_egl_1"), get(base, "adm2"));

  // adm3 = dlm_weight * adm2 + (1 - dlm_weight) * (1 - aim), or the harmonic mean.
  EXPECT_DOUBLE_EQ(get(base, "adm3"), 0.5 * get(base, "adm2") + 0.5 * (1 - get(base, "aim")));
  fc = score({{"adm_adm3_apply_hm", "true"}}, r, d);
  const double a2 = get(fc, "adm2_aah"), aim = get(fc, "aim_aah");
  EXPECT_DOUBLE_EQ(get(fc, "adm3_aah"), 2 * a2 * aim / (a2 + aim));

  fc = score({{"adm_skip_scale0", "true"}}, r, d);
  EXPECT_EQ(get(fc, "adm_scale0_ssz"), 0.0);
  EXPECT_EQ(get(fc, "adm_scale1_ssz"), get(base, "adm_scale1"));

  for (const char* mode : {"1", "2", "7"}) {
    fc = score({{"adm_csf_mode", mode}}, r, d);
    const double v = get(fc, std::string("adm2_csf_") + mode);
    EXPECT_TRUE(std::isfinite(v)) << mode;
    if (std::string(mode) == "7") EXPECT_EQ(v, get(base, "adm2"));  // falls back to Watson
    else EXPECT_NE(v, get(base, "adm2"));
  }
  fc = score({{"adm_csf_mode", "2"}, {"adm_norm_view_dist", "1.5"},
              {"adm_ref_display_height", "2160"}, {"adm_noise_weight", "0.02"},
              {"adm_dlm_weight", "0.7"}, {"adm_min_val", "0.5"}},
             r, d);
  // Suffixes in option-name order (adm_csf_mode, adm_dlm_weight, adm_min_val,
  // adm_noise_weight, adm_norm_view_dist, adm_ref_display_height).
  EXPECT_TRUE(fc.has("adm2_csf_2_dlmw_0.7_min_0.5_nw_0.02_nvd_1.5_rdf_2160"));
  fc = score({{"adm_p_norm", "2"}, {"adm_bypass_cm", "1"}, {"adm_f1s0", "0.2"},
              {"adm_skip_aim_scale", "3"}},
             r, d);
  EXPECT_TRUE(std::isfinite(get(fc, "adm2_bcm_1_f1s0_0.2_apn_2_sasc_3")));
  EXPECT_THROW(vqe::make_extractor("float_adm", {{"adm_csf_mode", "10"}}), vqe::Error);
  EXPECT_THROW(vqe::make_extractor("float_adm", {{"adm_norm_view_dist", "0.5"}}), vqe::Error);
}

TEST(FloatAdmRcp, ModelKnownValuesAndSpecialCases) {
  using vqe::float_adm::rcp_model;
  EXPECT_EQ(std::bit_cast<std::uint32_t>(rcp_model(1.0f)), 0x3f7ff000u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(rcp_model(1.5f)), 0x3f2aa800u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(rcp_model(3.0f)), 0x3eaaa800u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(rcp_model(-3.0f)), 0xbeaaa800u);
  EXPECT_EQ(rcp_model(0.0f), INFINITY);
  EXPECT_EQ(rcp_model(-0.0f), -INFINITY);
  EXPECT_EQ(rcp_model(1e-40f), INFINITY);  // subnormal input counts as zero
  EXPECT_EQ(std::bit_cast<std::uint32_t>(rcp_model(1e38f)), 0u);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(rcp_model(-INFINITY)), 0x80000000u);
  EXPECT_TRUE(std::isnan(rcp_model(NAN)));
  // 12-bit accuracy and the refined division within a few ulps.
  std::mt19937 g(3);
  std::uniform_real_distribution<float> u(-1000, 1000);
  for (int i = 0; i < 100000; ++i) {
    const float d = u(g), x = u(g);
    if (d == 0) continue;
    EXPECT_LE(std::fabs(rcp_model(d) * d - 1.0f), 1.5f / 4096) << d;
    const float q = vqe::float_adm::recip_divide(x, d);
    EXPECT_LE(std::fabs(q - x / d), 4e-7f * std::fabs(x / d) + 1e-30f) << x << "/" << d;
  }
}

// On x86, compare the model with this CPU's RCPSS. CPUs of another
// implementation (e.g. some Intel generations) may differ: that is reported,
// not failed, because VQE uses the model, never the instruction.
TEST(FloatAdmRcp, ModelAgainstThisCpu) {
#ifdef VQE_TEST_HAVE_RCPSS
  long differ = 0, n = 0;
  for (std::uint32_t m = 0; m < (1u << 23); m += 3) {
    for (std::uint32_t e : {1u, 100u, 127u, 200u, 252u}) {
      const float x = std::bit_cast<float>((e << 23) | m);
      const float hw = _mm_cvtss_f32(_mm_rcp_ss(_mm_set_ss(x)));
      ++n;
      differ += std::bit_cast<std::uint32_t>(hw) !=
                std::bit_cast<std::uint32_t>(vqe::float_adm::rcp_model(x));
    }
  }
  if (differ)
    GTEST_SKIP() << "this CPU's RCPSS differs from the reference CPU's on " << differ << " of "
                 << n << " inputs (expected on some CPUs; VQE uses the model)";
#else
  GTEST_SKIP() << "no RCPSS on this architecture";
#endif
}

// Every reference pair: adm2, aim, adm3, adm_scale0..3 (default options) and
// their _egl_1 variants (adm_enhn_gain_limit=1) against libvmaf 3.2.0.
TEST(FloatAdmGolden, MatchesLibvmafOnEveryReferencePair) {
  VQE_REQUIRE_SHARED(shared);
  const auto ref_dir = shared / "testdata" / "reference";
  int pairs = 0;
  double max_rel = 0;
  long values = 0, exact = 0;
  for (const auto& entry : std::filesystem::directory_iterator(ref_dir)) {
    const nlohmann::json j = vqe::test::load_reference(entry.path().filename().string());
    if (j["frames"].empty() || !j["frames"][0]["metrics"].contains("adm2")) continue;
    const auto clips = shared / "testdata" / "clips";
    const FeatureCollector fc = vqe::test::run_features(
        clips / j["reference"].get<std::string>(), clips / j["distorted"].get<std::string>(),
        {{"float_adm", {}}, {"float_adm", {{"adm_enhn_gain_limit", "1"}}}});
    ++pairs;
    for (const auto& frame : j["frames"]) {
      const unsigned i = frame["frameNum"];
      for (const auto& [name, value] : frame["metrics"].items()) {
        if (name.rfind("adm", 0) != 0 && name.rfind("aim", 0) != 0) continue;
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
  std::printf("float_adm golden: %d pairs, %ld values, %ld bit-exact, max relative error %.3g\n",
              pairs, values, exact, max_rel);
}

}  // namespace
