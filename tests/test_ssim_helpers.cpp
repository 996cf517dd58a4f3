// SPDX-License-Identifier: BSD-2-Clause
// Helpers shared by test_ssim.cpp, test_ciede.cpp and test_psnr_hvs.cpp:
// synthetic pictures, one-shot scoring, refusal checks and the golden
// comparison against ../shared/testdata/reference. Declared in each user
// under "defined in test_ssim_helpers.cpp".

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "io/video_reader.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe::ssim_test {

namespace fs = std::filesystem;

// Fills every plane with uniform random samples below 2^bit_depth.
void fill_random(Picture& p, unsigned seed) {
  std::mt19937 rng(seed);
  const int max = (1 << p.bit_depth()) - 1;
  std::uniform_int_distribution<int> dist(0, max);
  for (int k = 0; k < p.num_planes(); ++k) {
    Plane& pl = p.plane(k);
    for (int y = 0; y < pl.height; ++y)
      for (int x = 0; x < pl.width; ++x) {
        if (p.bit_depth() == 8) pl.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(dist(rng));
        else pl.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(dist(rng));
      }
  }
}

// A smooth picture (gradient plus a little noise) so SSIM is meaningful.
void fill_smooth(Picture& p, unsigned seed, int noise) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> n(-noise, noise);
  const int max = (1 << p.bit_depth()) - 1;
  for (int k = 0; k < p.num_planes(); ++k) {
    Plane& pl = p.plane(k);
    for (int y = 0; y < pl.height; ++y)
      for (int x = 0; x < pl.width; ++x) {
        const int base = (x * 7 + y * 3) * max / (7 * pl.width + 3 * pl.height + 1);
        const int v = std::clamp(base + (noise ? n(rng) : 0), 0, max);
        if (p.bit_depth() == 8) pl.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(v);
        else pl.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v);
      }
  }
}

void fill_flat(Picture& p, int value) {
  for (int k = 0; k < p.num_planes(); ++k) {
    Plane& pl = p.plane(k);
    for (int y = 0; y < pl.height; ++y)
      for (int x = 0; x < pl.width; ++x) {
        if (p.bit_depth() == 8) pl.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(value);
        else pl.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(value);
      }
  }
}

// Copy of `src` at a higher bit depth with samples shifted left.
Picture shifted_copy(const Picture& src, int bit_depth) {
  VideoFormat f = src.format();
  f.bit_depth = bit_depth;
  Picture out(f);
  const int shift = bit_depth - src.bit_depth();
  for (int k = 0; k < src.num_planes(); ++k)
    for (int y = 0; y < src.plane(k).height; ++y)
      for (int x = 0; x < src.plane(k).width; ++x) {
        const int v = src.bit_depth() == 8 ? src.plane(k).row<std::uint8_t>(y)[x]
                                           : src.plane(k).row<std::uint16_t>(y)[x];
        out.plane(k).row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(v << shift);
      }
  return out;
}

// Runs one extractor on one pair of pictures; returns name -> value.
std::map<std::string, double> score(const std::string& extractor, const OptionValues& opts,
                                    const Picture& ref, const Picture& dist) {
  auto ex = make_extractor(extractor, opts);
  ex->init(ref.format());
  FeatureCollector out;
  ex->extract(ref, dist, 0, out);
  std::map<std::string, double> values;
  for (const std::string& name : ex->feature_names()) values[name] = *out.get(name, 0);
  return values;
}

VideoFormat fmt_of(int w, int h, int bits, ChromaFormat c = ChromaFormat::k420) {
  VideoFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = bits;
  f.chroma = c;
  return f;
}

void expect_refused(const std::string& extractor, const OptionValues& opts,
                    const VideoFormat& f, const std::string& must_contain) {
  auto ex = make_extractor(extractor, opts);
  try {
    ex->init(f);
    ADD_FAILURE() << extractor << " accepted " << f.width << "x" << f.height;
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(extractor), std::string::npos) << msg;
    EXPECT_NE(msg.find(must_contain), std::string::npos) << msg;
  }
}

// Scores a reference pair with one extractor, frame by frame, outside the
// pipeline; returns nullopt-like empty collector and sets `refused` on init
// failure.
FeatureCollector run_direct(const fs::path& ref, const fs::path& dist,
                            const std::string& extractor, const OptionValues& opts,
                            std::string* refused) {
  auto rp = test::raw_params_from_name(ref);
  auto dp = test::raw_params_from_name(dist);
  auto r = open_video(ref.string(), rp ? &*rp : nullptr);
  auto d = open_video(dist.string(), dp ? &*dp : nullptr);
  auto ex = make_extractor(extractor, opts);
  FeatureCollector out;
  try {
    ex->init(r->format());
  } catch (const Error& e) {
    *refused = e.what();
    return out;
  }
  Picture pr, pd;
  unsigned i = 0;
  while (r->read(pr) && d->read(pd)) ex->extract(pr, pd, i++, out);
  ex->flush(out);
  return out;
}

// Compares `features` of `extractor` against every reference JSON; prints the
// largest relative error per feature.
void golden(const std::string& extractor, const std::vector<std::string>& features) {
  VQE_REQUIRE_SHARED(shared);
  std::map<std::string, double> worst;
  int pairs = 0, refusals = 0;
  for (const auto& entry : fs::directory_iterator(shared / "testdata" / "reference")) {
    if (entry.path().extension() != ".json") continue;
    const auto j = test::load_reference(entry.path().filename().string());
    const fs::path clips = shared / "testdata" / "clips";
    const fs::path ref = clips / j["reference"].get<std::string>();
    const fs::path dist = clips / j["distorted"].get<std::string>();
    const bool reference_refused = j.contains("refused") && j["refused"].contains(extractor);
    const auto& frames = j["frames"];
    const bool has_values = !frames.empty() && frames[0]["metrics"].contains(features[0]);
    std::string refused;
    const FeatureCollector out = run_direct(ref, dist, extractor, {}, &refused);
    const std::string label = entry.path().filename().string();
    if (reference_refused) {
      EXPECT_FALSE(refused.empty()) << label << ": libvmaf refused " << extractor;
      ++refusals;
      continue;
    }
    if (!has_values) {
      // No reference (odd-size subsampled pair): still defined and finite.
      ASSERT_TRUE(refused.empty()) << label << ": " << refused;
      for (const auto& f : features)
        for (unsigned i = 0; i < out.frame_count(); ++i) {
          const auto v = out.get(f, i);
          ASSERT_TRUE(v.has_value()) << label << " " << f;
          EXPECT_FALSE(std::isnan(*v)) << label << " " << f << " frame " << i;
        }
      continue;
    }
    ASSERT_TRUE(refused.empty()) << label << ": " << refused;
    ++pairs;
    ASSERT_EQ(out.frame_count(), frames.size()) << label;
    for (const auto& fr : frames) {
      const unsigned idx = fr["frameNum"].get<unsigned>();
      for (const auto& f : features) {
        const double want = fr["metrics"][f].get<double>();
        const auto got = out.get(f, idx);
        ASSERT_TRUE(got.has_value()) << label << " " << f;
        const double rel = std::fabs(*got - want) / std::max(std::fabs(want), 1e-300);
        worst[f] = std::max(worst[f], rel);
        EXPECT_LE(rel, 1e-6) << label << " frame " << idx << " " << f << ": got " << *got
                             << " want " << want;
      }
    }
  }
  EXPECT_GT(pairs, 0);
  for (const auto& [f, e] : worst)
    std::printf("[golden] %-14s max relative error %.3g over %d pairs (%d refused as libvmaf)\n",
                f.c_str(), e, pairs, refusals);
}

}  // namespace vqe::ssim_test
