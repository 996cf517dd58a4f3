// SPDX-License-Identifier: BSD-2-Clause
// Every extractor gives bit-identical output for any thread count and
// --subsample leaves temporal extractors running on every frame.

#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe::test {
namespace {

namespace fs = std::filesystem;

// name -> per-frame bit patterns (so NaN compares equal to NaN).
std::map<std::string, std::vector<std::uint64_t>> snapshot(const FeatureCollector& fc) {
  std::map<std::string, std::vector<std::uint64_t>> out;
  for (const std::string& n : fc.names())
    for (unsigned i = 0; i < fc.frame_count(); ++i) {
      const double v = fc.get(n, i).value_or(-1.0);
      std::uint64_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      out[n].push_back(bits);
    }
  return out;
}

TEST(Threads, BitIdenticalForAnyThreadCount) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path clips = shared / "testdata" / "clips";
  const std::pair<fs::path, fs::path> pairs[] = {
      {clips / "ref/bbb_576x324_420p8_8f.y4m", clips / "dist/bbb_576x324_420p8_8f__x264_crf45.y4m"},
      {clips / "ref/ciscovt2people_320x192_420p12_9f.yuv",
       clips / "dist/ciscovt2people_320x192_420p12_9f__x265_crf30_lowbits.yuv"},
  };
  int compared = 0;
  for (const auto& [ref, dist] : pairs) {
    for (const ExtractorInfo* e : all_extractors()) {
      std::map<std::string, std::vector<std::uint64_t>> one;
      try {
        one = snapshot(run_features(ref, dist, {{e->name, {}}}, 0));
      } catch (const Error&) {
        // Refused at this format: every thread count must refuse too.
        EXPECT_THROW(run_features(ref, dist, {{e->name, {}}}, 2), Error) << e->name;
        continue;
      }
      // 0: no workers, no tiles; from 1 on, frames and row tiles spread over
      // the workers.
      for (unsigned threads : {1u, 2u, 8u})
        EXPECT_EQ(snapshot(run_features(ref, dist, {{e->name, {}}}, threads)), one)
            << e->name << " with " << threads << " threads on " << dist.filename();
      ++compared;
    }
  }
  EXPECT_GT(compared, 0);
}

TEST(Threads, SubsampleSkipsNonTemporalFramesOnly) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path clips = shared / "testdata" / "clips";
  JobConfig cfg;
  cfg.features.push_back({"psnr", {}});
  cfg.subsample = 3;
  cfg.threads = 2;
  JobResult r = run_pair(clips / "ref/carphone_176x144_420p8_20f.y4m",
                         clips / "dist/carphone_176x144_420p8_20f__x264_crf35.y4m", cfg);
  EXPECT_EQ(r.frames, 20u);
  // psnr is temporal in libvmaf (it accumulates APSNR): every frame is scored.
  for (unsigned i = 0; i < 20; ++i) EXPECT_TRUE(r.features.get("psnr_y", i).has_value()) << i;
  if (find_extractor("float_ssim")) {
    cfg.features = {{"float_ssim", {}}};
    r = run_pair(clips / "ref/carphone_176x144_420p8_20f.y4m",
                 clips / "dist/carphone_176x144_420p8_20f__x264_crf35.y4m", cfg);
    for (unsigned i = 0; i < 20; ++i)
      EXPECT_EQ(r.features.get("float_ssim", i).has_value(), i % 3 == 0) << i;
  }
}

}  // namespace
}  // namespace vqe::test
