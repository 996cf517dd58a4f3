// SPDX-License-Identifier: BSD-2-Clause
// Tests of the integer VIF extractor ("vif"): kernel helpers, options and
// names, size limits, edge cases at every bit depth, and bit-exactness
// against libvmaf 3.2.0's reference values for every shared clip pair.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "features/vif/integer_vif.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

// Fills luma with a smooth gradient plus noise (deterministic per seed),
// scaled to the picture's bit depth; `low_bits` adds random bits below the
// 8-bit content at deeper bit depths.
void fill_luma(Picture& pic, unsigned seed, int noise, bool low_bits = true) {
  std::mt19937 rng(seed);
  const int depth = pic.bit_depth();
  const int maxv = (1 << depth) - 1;
  Plane& p = pic.plane(0);
  for (int y = 0; y < p.height; ++y) {
    for (int x = 0; x < p.width; ++x) {
      const int base = (x * 7 + y * 13 + static_cast<int>(rng() % (2 * noise + 1))) % 256;
      int v = base << (depth - 8);
      if (low_bits && depth > 8) v |= static_cast<int>(rng() % (1u << (depth - 8)));
      v = std::min(v, maxv);
      if (depth == 8)
        p.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
      else
        p.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
    }
  }
}

void fill_flat(Picture& pic, int value) {
  Plane& p = pic.plane(0);
  for (int y = 0; y < p.height; ++y)
    for (int x = 0; x < p.width; ++x) {
      if (pic.bit_depth() == 8)
        p.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(value);
      else
        p.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(value);
    }
}

// Runs the registered extractor on one pair; returns the collector.
FeatureCollector run_once(const Picture& ref, const Picture& dis, const OptionValues& opts = {}) {
  auto fex = make_extractor("vif", opts);
  fex->init(ref.format());
  FeatureCollector out;
  fex->extract(ref, dis, 0, out);
  return out;
}

double get(const FeatureCollector& c, const std::string& name, unsigned index = 0) {
  auto v = c.get(name, index);
  EXPECT_TRUE(v.has_value()) << name << " missing at frame " << index;
  return v.value_or(std::nan(""));
}

const char* kScales[4] = {"integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
                          "integer_vif_scale3"};

// ---------------------------------------------------------------------------
// Kernel helpers

TEST(Vif, Log2TableMatchesDefinition) {
  const auto& t = vif::log2_table();
  EXPECT_EQ(t[32768], 15 * 2048);
  EXPECT_EQ(t[65535], 32768);  // 2048 * 15.99998 rounds up
  EXPECT_EQ(t[0], 0);
  EXPECT_EQ(t[32766], 0);
  for (unsigned i = 32767; i < 65536; ++i) {
    const double exact = std::log2(static_cast<double>(i)) * 2048.0;
    ASSERT_LE(std::abs(exact - t[i]), 0.51) << i;
  }
  EXPECT_EQ(vif::log2_32(1u << 17), 17 * 2048);
  EXPECT_EQ(vif::log2_32(3u << 16), t[49152] + 2 * 2048);  // 3 * 2^16 >> 2
  EXPECT_EQ(vif::log2_64(std::uint64_t{1} << 40), 40 * 2048);
  EXPECT_EQ(vif::log2_64((std::uint64_t{1} << 17) + 1), t[32768] + 2 * 2048);
}

// The SIMD kernels read log2_table()'s entries as a line plus a byte.
TEST(Vif, Log2DeltaTableRebuildsTheTable) {
  const auto& t = vif::log2_table();
  const auto& delta = vif::log2_delta_table();
  int largest = 0;
  for (unsigned m = 0; m < 32768; ++m) {
    ASSERT_EQ(30720 + static_cast<int>(m >> 4) + delta[m], t[32768 + m]) << m;
    largest = std::max(largest, int{delta[m]});
  }
  EXPECT_EQ(largest, 177);  // 2048 * max(log2(x) - (x - 1)) over [1, 2], rounded
}

TEST(Vif, Reflect101) {
  // n = 5: ... 2 1 | 0 1 2 3 4 | 3 2 ...
  EXPECT_EQ(vif::reflect101(-1, 5), 1);
  EXPECT_EQ(vif::reflect101(-4, 5), 4);
  EXPECT_EQ(vif::reflect101(-5, 5), 3);
  EXPECT_EQ(vif::reflect101(5, 5), 3);
  EXPECT_EQ(vif::reflect101(8, 5), 0);
  EXPECT_EQ(vif::reflect101(9, 5), 1);
  // n = 2 with the 17-tap filter's reach: period 2.
  for (int i = -8; i <= 9; ++i) EXPECT_EQ(vif::reflect101(i, 2), (i % 2 + 2) % 2) << i;
}

TEST(Vif, FilterTablesSumTo65536) {
  for (int s = 0; s < vif::kNumScales; ++s) {
    unsigned sum = 0;
    for (int k = 0; k < vif::kFilterWidth[s]; ++k) {
      sum += vif::kFilters[s][k];
      EXPECT_EQ(vif::kFilters[s][k], vif::kFilters[s][vif::kFilterWidth[s] - 1 - k]);
    }
    EXPECT_EQ(sum, 65536u) << "scale " << s;
  }
}

// ---------------------------------------------------------------------------
// Registration, options, names

TEST(Vif, RegistryAndOptions) {
  const ExtractorInfo* info = find_extractor("vif");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(find_extractor_by_feature("VMAF_integer_feature_vif_scale2_score"), info);
  EXPECT_EQ(info->provided_features.size(), 15u);

  auto plain = make_extractor("vif", {});
  EXPECT_EQ(plain->feature_names(),
            (std::vector<std::string>{kScales[0], kScales[1], kScales[2], kScales[3]}));
  EXPECT_FALSE(plain->temporal());

  auto egl = make_extractor("vif", {{"vif_enhn_gain_limit", "1"}});
  EXPECT_EQ(egl->feature_names()[0], "integer_vif_scale0_egl_1");
  auto egl15 = make_extractor("vif", {{"vif_enhn_gain_limit", "1.5"}});
  EXPECT_EQ(egl15->feature_names()[3], "integer_vif_scale3_egl_1.5");
  auto skip = make_extractor("vif", {{"vif_skip_scale0", "true"}});
  EXPECT_EQ(skip->feature_names()[1], "integer_vif_scale1_ssclz");
  auto both = make_extractor("vif", {{"vif_skip_scale0", "true"}, {"vif_enhn_gain_limit", "1"}});
  EXPECT_EQ(both->feature_names()[1], "integer_vif_scale1_egl_1_ssclz");

  // debug is not a feature parameter: no suffix, 15 outputs.
  auto dbg = make_extractor("vif", {{"debug", "true"}});
  const auto names = dbg->feature_names();
  ASSERT_EQ(names.size(), 15u);
  EXPECT_EQ(names[0], "integer_vif_scale0");
  EXPECT_EQ(names[4], "integer_vif");
  EXPECT_EQ(names[14], "integer_vif_den_scale3");
  auto dbg_egl = make_extractor("vif", {{"debug", "true"}, {"vif_enhn_gain_limit", "1"}});
  EXPECT_EQ(dbg_egl->feature_names()[5], "integer_vif_num_egl_1");

  EXPECT_THROW(make_extractor("vif", {{"vif_enhn_gain_limit", "0.5"}}), Error);
  EXPECT_THROW(make_extractor("vif", {{"vif_enhn_gain_limit", "100.5"}}), Error);
  EXPECT_THROW(make_extractor("vif", {{"egl", "1"}}), Error);  // alias is for names only
  EXPECT_NO_THROW(make_extractor("vif", {{"vif_enhn_gain_limit", "100"}}));
}

// ---------------------------------------------------------------------------
// Sizes and edge cases

TEST(Vif, RefusesFramesBelowMinimum) {
  for (auto [w, h] : {std::pair{15, 16}, {16, 15}, {1, 1}, {8, 64}, {64, 8}}) {
    auto fex = make_extractor("vif", {});
    try {
      fex->init(VideoFormat{w, h, 8, ChromaFormat::k420});
      ADD_FAILURE() << w << "x" << h << " accepted";
    } catch (const Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("vif"), std::string::npos) << msg;
      EXPECT_NE(msg.find("16x16"), std::string::npos) << msg;
    }
  }
  auto fex = make_extractor("vif", {});
  EXPECT_NO_THROW(fex->init(VideoFormat{16, 16, 8, ChromaFormat::k420}));
}

TEST(Vif, FlatFramesScoreOneAtEveryDepth) {
  for (int depth : {8, 10, 12, 16}) {
    for (int value : {0, 1, (1 << depth) - 1}) {
      VideoFormat f{37, 21, depth, ChromaFormat::k420};
      Picture ref(f), dis(f);
      fill_flat(ref, value);
      fill_flat(dis, value);
      const FeatureCollector c = run_once(ref, dis);
      for (const char* n : kScales) EXPECT_EQ(get(c, n), 1.0) << n << " depth " << depth;
    }
  }
}

TEST(Vif, FlatAgainstTexturedIsFinite) {
  for (int depth : {8, 10, 12, 16}) {
    VideoFormat f{40, 24, depth, ChromaFormat::k444};
    Picture ref(f), dis(f);
    fill_luma(ref, 3, 40);
    fill_flat(dis, 0);
    FeatureCollector c = run_once(ref, dis);
    for (const char* n : kScales) {
      const double v = get(c, n);
      EXPECT_TRUE(std::isfinite(v)) << n;
      EXPECT_GE(v, 0.0) << n;
      EXPECT_LE(v, 1.0) << n;
    }
    // Reference flat, distorted textured: every pixel takes the non-log path.
    c = run_once(dis, ref);
    for (const char* n : kScales) EXPECT_TRUE(std::isfinite(get(c, n))) << n;
  }
}

TEST(Vif, OddAndTinySizesAreFiniteAndCloseToOneForIdenticalInput) {
  const std::pair<int, int> sizes[] = {{16, 16}, {17, 16}, {16, 17}, {23, 19}, {33, 17},
                                       {31, 31}, {47, 18}, {18, 47}, {65, 33}};
  for (int depth : {8, 10, 12, 16}) {
    for (auto [w, h] : sizes) {
      VideoFormat f{w, h, depth, ChromaFormat::k420};
      Picture ref(f), dis(f), same(f);
      fill_luma(ref, 11 + w, 30);
      fill_luma(dis, 97 + h, 60);
      fill_luma(same, 11 + w, 30);
      FeatureCollector c = run_once(ref, dis);
      for (const char* n : kScales) {
        const double v = get(c, n);
        EXPECT_TRUE(std::isfinite(v)) << n << " " << w << "x" << h << " @" << depth;
        EXPECT_GT(v, 0.0) << n << " " << w << "x" << h << " @" << depth;
      }
      c = run_once(ref, same);
      for (const char* n : kScales)
        EXPECT_NEAR(get(c, n), 1.0, 1e-3) << n << " " << w << "x" << h << " @" << depth;
    }
  }
}

// libvmaf normalises deeper samples by their bit depth at scale 0, so content
// whose low bits are zero scores exactly as its 8-bit original.
TEST(Vif, HighBitDepthNormalisationIsExact) {
  VideoFormat f8{53, 29, 8, ChromaFormat::k420};
  Picture r8(f8), d8(f8);
  fill_luma(r8, 5, 20);
  fill_luma(d8, 6, 50);
  const FeatureCollector c8 = run_once(r8, d8);
  for (int depth : {10, 12, 16}) {
    VideoFormat f{53, 29, depth, ChromaFormat::k420};
    Picture r(f), d(f);
    for (int y = 0; y < 29; ++y)
      for (int x = 0; x < 53; ++x) {
        r.plane(0).row<std::uint16_t>(y)[x] =
            static_cast<std::uint16_t>(r8.plane(0).row<std::uint8_t>(y)[x] << (depth - 8));
        d.plane(0).row<std::uint16_t>(y)[x] =
            static_cast<std::uint16_t>(d8.plane(0).row<std::uint8_t>(y)[x] << (depth - 8));
      }
    const FeatureCollector c = run_once(r, d);
    for (const char* n : kScales) EXPECT_EQ(get(c, n), get(c8, n)) << n << " @" << depth;
  }
}

TEST(Vif, SkipScale0AndDebugOutputs) {
  VideoFormat f{64, 48, 10, ChromaFormat::k420};
  Picture ref(f), dis(f);
  fill_luma(ref, 1, 30);
  fill_luma(dis, 2, 45);

  const FeatureCollector plain = run_once(ref, dis);
  const FeatureCollector dbg = run_once(ref, dis, {{"debug", "true"}});
  double num = 0, den = 0;
  for (int s = 0; s < 4; ++s) {
    const std::string sn = "integer_vif_num_scale" + std::to_string(s);
    const std::string sd = "integer_vif_den_scale" + std::to_string(s);
    const double n = get(dbg, sn), d = get(dbg, sd);
    EXPECT_EQ(static_cast<float>(n), n);  // stored as float
    EXPECT_EQ(static_cast<double>(static_cast<float>(n) / static_cast<float>(d)),
              get(plain, kScales[s]));
    EXPECT_EQ(get(dbg, kScales[s]), get(plain, kScales[s]));
    num += n;
    den += d;
  }
  EXPECT_EQ(get(dbg, "integer_vif_num"), num);
  EXPECT_EQ(get(dbg, "integer_vif_den"), den);
  EXPECT_EQ(get(dbg, "integer_vif"), num / den);

  const FeatureCollector skip = run_once(ref, dis, {{"vif_skip_scale0", "true"}, {"debug", "1"}});
  EXPECT_EQ(get(skip, "integer_vif_scale0_ssclz"), 0.0);
  for (int s = 1; s < 4; ++s)
    EXPECT_EQ(get(skip, std::string(kScales[s]) + "_ssclz"), get(plain, kScales[s]));
  EXPECT_EQ(get(skip, "integer_vif_num_scale0_ssclz"), 0.0);
  EXPECT_EQ(get(skip, "integer_vif_den_scale0_ssclz"), -1.0);
  const double num123 = get(dbg, "integer_vif_num_scale1") + get(dbg, "integer_vif_num_scale2") +
                        get(dbg, "integer_vif_num_scale3");
  EXPECT_EQ(get(skip, "integer_vif_num_ssclz"), num123);
}

TEST(Vif, GainLimitOnlyLowersScores) {
  VideoFormat f{48, 40, 8, ChromaFormat::k420};
  Picture ref(f), dis(f);
  fill_luma(ref, 8, 10);
  // Distorted = contrast-enhanced reference: gain > 1 everywhere.
  for (int y = 0; y < 40; ++y)
    for (int x = 0; x < 48; ++x) {
      const int v = ref.plane(0).row<std::uint8_t>(y)[x];
      dis.plane(0).row<std::uint8_t>(y)[x] =
          static_cast<std::uint8_t>(std::clamp(128 + (v - 128) * 3 / 2, 0, 255));
    }
  const FeatureCollector hi = run_once(ref, dis);
  const FeatureCollector lo = run_once(ref, dis, {{"vif_enhn_gain_limit", "1"}});
  bool some_lower = false;
  for (const char* n : kScales) {
    const double a = get(hi, n), b = get(lo, std::string(n) + "_egl_1");
    EXPECT_LE(b, a) << n;
    some_lower |= b < a;
  }
  EXPECT_TRUE(some_lower);
}

TEST(Vif, CloneAndThreadsGiveIdenticalResults) {
  VideoFormat f{97, 61, 12, ChromaFormat::k420};
  std::vector<Picture> refs, diss;
  for (unsigned i = 0; i < 6; ++i) {
    refs.emplace_back(f);
    diss.emplace_back(f);
    fill_luma(refs.back(), 100 + i, 25);
    fill_luma(diss.back(), 200 + i, 35);
  }
  auto base = make_extractor("vif", {{"vif_enhn_gain_limit", "2"}});
  base->init(f);
  FeatureCollector serial;
  for (unsigned i = 0; i < refs.size(); ++i) base->extract(refs[i], diss[i], i, serial);

  FeatureCollector parallel;
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < 3; ++t) {
    workers.emplace_back([&, t] {
      auto fex = base->clone();
      fex->init(f);
      // Reverse order per worker: results must not depend on history.
      for (int i = static_cast<int>(refs.size()) - 1; i >= 0; --i)
        if (static_cast<unsigned>(i) % 3 == t)
          fex->extract(refs[i], diss[i], static_cast<unsigned>(i), parallel);
    });
  }
  for (auto& w : workers) w.join();
  for (const std::string& n : base->feature_names())
    for (unsigned i = 0; i < refs.size(); ++i) EXPECT_EQ(get(parallel, n, i), get(serial, n, i));
}

TEST(Vif, RejectsMismatchedPicture) {
  auto fex = make_extractor("vif", {});
  fex->init(VideoFormat{32, 32, 8, ChromaFormat::k420});
  Picture a(VideoFormat{32, 32, 10, ChromaFormat::k420});
  FeatureCollector out;
  EXPECT_THROW(fex->extract(a, a, 0, out), Error);
}

// ---------------------------------------------------------------------------
// Golden: bit-identical to libvmaf 3.2.0 on every shared pair.

TEST(Vif, GoldenBitExactAgainstLibvmaf) {
  VQE_REQUIRE_SHARED(shared);
  const std::filesystem::path refdir = shared / "testdata" / "reference";
  const std::filesystem::path clips = shared / "testdata" / "clips";
  int pairs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(refdir)) {
    if (entry.path().extension() != ".json") continue;
    const nlohmann::json j = test::load_reference(entry.path().filename().string());
    const auto& frames = j.at("frames");
    if (frames.empty() || !frames[0].at("metrics").contains("integer_vif_scale0")) continue;
    SCOPED_TRACE(entry.path().filename().string());
    const FeatureCollector c = test::run_features(
        clips / j.at("reference").get<std::string>(), clips / j.at("distorted").get<std::string>(),
        {{"vif", {}}, {"vif", {{"vif_enhn_gain_limit", "1"}}}});
    int compared = 0, mismatched = 0;
    for (const auto& fr : frames) {
      const unsigned idx = fr.at("frameNum").get<unsigned>();
      for (const auto& [name, value] : fr.at("metrics").items()) {
        if (name.rfind("integer_vif_scale", 0) != 0) continue;
        const auto got = c.get(name, idx);
        ASSERT_TRUE(got.has_value()) << name << " frame " << idx;
        ++compared;
        if (*got != value.get<double>()) {
          ++mismatched;
          ADD_FAILURE() << name << " frame " << idx << ": got " << *got << " want "
                        << value.get<double>();
        }
      }
    }
    EXPECT_EQ(compared, static_cast<int>(frames.size()) * 8);
    EXPECT_EQ(mismatched, 0);
    std::printf("[ vif golden ] %-58s %3zu frames, %4d values, %d mismatched\n",
                entry.path().filename().string().c_str(), frames.size(), compared, mismatched);
    ++pairs;
  }
  EXPECT_GE(pairs, 28);
}

// The same values through the threaded pipeline (cloned extractors).
TEST(Vif, GoldenBitExactWithThreads) {
  VQE_REQUIRE_SHARED(shared);
  const std::filesystem::path clips = shared / "testdata" / "clips";
  for (const char* json : {"carphone_176x144_420p8_20f__x264_crf35_y4m.json",
                           "ciscovt2people_320x192_420p16_9f__x265_crf30_lowbits_yuv.json"}) {
    SCOPED_TRACE(json);
    const nlohmann::json j = test::load_reference(json);
    const FeatureCollector c = test::run_features(
        clips / j.at("reference").get<std::string>(), clips / j.at("distorted").get<std::string>(),
        {{"vif", {{"vif_enhn_gain_limit", "1"}}}}, 4);
    for (const auto& fr : j.at("frames")) {
      const unsigned idx = fr.at("frameNum").get<unsigned>();
      for (int s = 0; s < 4; ++s) {
        const std::string name = std::string(kScales[s]) + "_egl_1";
        EXPECT_EQ(get(c, name, idx), fr.at("metrics").at(name).get<double>()) << name << " " << idx;
      }
    }
  }
}

}  // namespace
}  // namespace vqe
