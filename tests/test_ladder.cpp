// SPDX-License-Identifier: BSD-2-Clause
// Ladders (vqe/ladder.h): one reference read once, one job per encode, the
// reference-only work shared (ReferenceShare); every encode's values equal
// a separate run's, bit for bit.

#include <gtest/gtest.h>

#include "test_util.h"
#include "vqe/vqe.h"

namespace vqe {
namespace {

// Every value of every name and every aggregate, compared as bits.
void expect_same(const FeatureCollector& a, const FeatureCollector& b, const std::string& what) {
  ASSERT_EQ(a.names(), b.names()) << what;
  ASSERT_EQ(a.frame_count(), b.frame_count()) << what;
  for (const std::string& name : a.names())
    for (unsigned i = 0; i < a.frame_count(); ++i) {
      const auto x = a.get(name, i), y = b.get(name, i);
      ASSERT_EQ(x.has_value(), y.has_value()) << what << " " << name << " frame " << i;
      if (x) {
        ASSERT_EQ(std::memcmp(&*x, &*y, sizeof(double)), 0)
            << what << " " << name << " frame " << i << ": " << *x << " vs " << *y;
      }
    }
  const auto ga = a.aggregates(), gb = b.aggregates();
  ASSERT_EQ(ga.size(), gb.size()) << what;
  for (std::size_t k = 0; k < ga.size(); ++k) {
    EXPECT_EQ(ga[k].first, gb[k].first) << what;
    EXPECT_EQ(std::memcmp(&ga[k].second, &gb[k].second, sizeof(double)), 0) << what;
  }
}

JobConfig vmaf_and_psnr(unsigned threads) {
  JobConfig c;
  c.models.push_back(Model::builtin("vmaf_v0.6.1"));
  c.features.push_back({"psnr", {{"enable_apsnr", "true"}}});
  c.threads = threads;
  return c;
}

TEST(Ladder, EachEncodeEqualsASeparateRun) {
  VQE_REQUIRE_SHARED(shared);
  const auto clips = shared / "testdata/clips";
  const auto ref = clips / "ref/carphone_176x144_420p8_20f.y4m";
  const std::vector<std::filesystem::path> encodes = {
      clips / "dist/carphone_176x144_420p8_20f__x264_crf23.y4m",
      clips / "dist/carphone_176x144_420p8_20f__x264_crf45.y4m",
      clips / "dist/carphone_176x144_420p8_20f__x265_crf30.y4m"};
  for (const unsigned threads : {0u, 2u, 5u}) {
    JobConfig config = vmaf_and_psnr(threads);
    config.subsample = threads == 5 ? 3 : 1;
    auto reference = open_video(ref.string(), nullptr);
    std::vector<std::unique_ptr<FrameSource>> sources;
    std::vector<FrameSource*> pointers;
    for (const auto& e : encodes) {
      sources.push_back(open_video(e.string(), nullptr));
      pointers.push_back(sources.back().get());
    }
    const std::vector<LadderOutcome> outcomes = run_ladder(*reference, pointers, config);
    ASSERT_EQ(outcomes.size(), encodes.size());
    for (std::size_t i = 0; i < encodes.size(); ++i) {
      ASSERT_TRUE(outcomes[i].result) << outcomes[i].error;
      EXPECT_TRUE(outcomes[i].error.empty());
      const JobResult alone = test::run_pair(ref, encodes[i], config);
      EXPECT_EQ(outcomes[i].result->frames, 20u);
      expect_same(outcomes[i].result->features, alone.features,
                  encodes[i].filename().string() + " threads " + std::to_string(threads));
    }
  }
}

TEST(Ladder, ABadEncodeFailsAloneAndShorterEncodesScoreTheirFrames) {
  VQE_REQUIRE_SHARED(shared);
  const auto clips = shared / "testdata/clips";
  const auto ref = clips / "ref/carphone_176x144_420p8_20f.y4m";
  const auto good = clips / "dist/carphone_176x144_420p8_20f__x264_crf23.y4m";
  const auto other_size = clips / "dist/bbb_576x324_420p8_8f__x264_crf23.y4m";
  // The first 5 frames of `good` (a shorter encode) and a truncated copy.
  std::string bytes;
  {
    std::FILE* f = std::fopen(good.c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buffer[65536];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) bytes.append(buffer, n);
    std::fclose(f);
  }
  const std::size_t header = bytes.find('\n') + 1;
  const std::size_t frame = 6 + 176 * 144 * 3 / 2;
  const auto shorter = test::write_temp("ladder_short.y4m", bytes.substr(0, header + 5 * frame));
  const auto truncated =
      test::write_temp("ladder_trunc.y4m", bytes.substr(0, header + 7 * frame + 100));

  JobConfig config = vmaf_and_psnr(2);
  std::vector<std::string> warnings;
  config.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  auto reference = open_video(ref.string(), nullptr);
  std::vector<std::unique_ptr<FrameSource>> sources;
  std::vector<FrameSource*> pointers;
  for (const auto& p : {good, other_size, shorter, truncated}) {
    sources.push_back(open_video(p.string(), nullptr));
    pointers.push_back(sources.back().get());
  }
  const auto outcomes = run_ladder(*reference, pointers, config);
  ASSERT_EQ(warnings.size(), 1u);  // the shorter encode
  EXPECT_NE(warnings[0].find("ended after 5 frames"), std::string::npos) << warnings[0];
  ASSERT_EQ(outcomes.size(), 4u);
  ASSERT_TRUE(outcomes[0].result) << outcomes[0].error;
  expect_same(outcomes[0].result->features, test::run_pair(ref, good, config).features, "good");
  EXPECT_FALSE(outcomes[1].result);
  EXPECT_NE(outcomes[1].error.find("differ in size"), std::string::npos) << outcomes[1].error;
  ASSERT_TRUE(outcomes[2].result) << outcomes[2].error;
  EXPECT_EQ(outcomes[2].result->frames, 5u);
  expect_same(outcomes[2].result->features, test::run_pair(ref, shorter, config).features,
              "shorter");
  EXPECT_FALSE(outcomes[3].result);
  EXPECT_NE(outcomes[3].error.find(truncated.string()), std::string::npos) << outcomes[3].error;
}

TEST(Ladder, ReferenceShareComputesMotionOncePerFrame) {
  // Three jobs holding one share, fed the same reference: motion's SAD is
  // computed once per frame, taken twice, and every value equals a job
  // without the share.
  const VideoFormat format{64, 48, 10, ChromaFormat::k420};
  const unsigned frames = 12;
  std::vector<Picture> refs;
  for (unsigned i = 0; i < frames; ++i)
    refs.push_back(test::synthetic_picture(format, 100 + i, test::Fill::smooth));
  auto share = std::make_shared<ReferenceShare>(3);
  std::vector<FeatureCollector> shared_results, alone_results;
  for (const bool with_share : {true, false}) {
    std::vector<std::unique_ptr<Job>> jobs;
    for (unsigned j = 0; j < 3; ++j) {
      JobConfig c;
      c.features.push_back({"motion", {}});
      c.features.push_back({"psnr", {}});
      c.threads = j;  // 0, 1 and 2 workers
      if (with_share) c.reference_share = share;
      jobs.push_back(std::make_unique<Job>(c));
    }
    for (unsigned i = 0; i < frames; ++i)
      for (unsigned j = 0; j < 3; ++j) {
        const Picture dist = test::distort_picture(refs[i], 7 * i + j, 20 + 10 * j);
        jobs[j]->submit(view_of(refs[i]), view_of(dist));
      }
    for (auto& job : jobs)
      (with_share ? shared_results : alone_results).push_back(job->finish().features);
  }
  EXPECT_EQ(share->computed(), frames);
  EXPECT_EQ(share->reused(), 2ull * frames);
  for (unsigned j = 0; j < 3; ++j)
    expect_same(shared_results[j], alone_results[j], "job " + std::to_string(j));
}

TEST(Ladder, ReferenceShareKeepsValuesForAJobBehind) {
  // Jobs 0 and 1 take every frame, job 0 finishes, and only then job 2
  // asks: the values job 2 has not taken are still there (a job that left
  // no longer counts, whether or not it took them).
  const VideoFormat format{64, 48, 8, ChromaFormat::k420};
  const unsigned frames = 6;
  auto share = std::make_shared<ReferenceShare>(3);
  std::vector<std::unique_ptr<Job>> jobs;
  for (unsigned j = 0; j < 3; ++j) {
    JobConfig c;
    c.features.push_back({"motion", {}});
    c.reference_share = share;
    jobs.push_back(std::make_unique<Job>(c));
  }
  std::vector<Picture> refs, dists;
  for (unsigned i = 0; i < frames; ++i) {
    refs.push_back(test::synthetic_picture(format, 300 + i, test::Fill::smooth));
    dists.push_back(test::distort_picture(refs.back(), i, 20));
  }
  for (unsigned j : {0u, 1u})
    for (unsigned i = 0; i < frames; ++i) jobs[j]->submit(view_of(refs[i]), view_of(dists[i]));
  jobs[0]->finish();
  for (unsigned i = 0; i < frames; ++i) jobs[2]->submit(view_of(refs[i]), view_of(dists[i]));
  jobs[1]->finish();
  jobs[2]->finish();
  EXPECT_EQ(share->computed(), frames);
  EXPECT_EQ(share->reused(), 2ull * frames);
}

TEST(Ladder, TenBitLadderEqualsSeparateRuns) {
  // A 10-bit reference against two encodes (one file twice, and the
  // reference itself), VMAF (VIF's reference work shared) with 0, 1, 2 and 4
  // threads (tiles at 4: 2 per job).
  VQE_REQUIRE_SHARED(shared);
  const auto clips = shared / "testdata/clips";
  const auto ref = clips / "ref/ciscovt2people_320x192_420p10_9f.y4m";
  const std::vector<std::filesystem::path> encodes = {
      clips / "dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m",
      clips / "dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m", ref};
  for (const unsigned threads : {0u, 1u, 2u, 4u}) {
    JobConfig config = vmaf_and_psnr(threads);
    auto reference = open_video(ref.string(), nullptr);
    std::vector<std::unique_ptr<FrameSource>> sources;
    std::vector<FrameSource*> pointers;
    for (const auto& e : encodes) {
      sources.push_back(open_video(e.string(), nullptr));
      pointers.push_back(sources.back().get());
    }
    const std::vector<LadderOutcome> outcomes = run_ladder(*reference, pointers, config);
    ASSERT_EQ(outcomes.size(), encodes.size());
    for (std::size_t i = 0; i < encodes.size(); ++i) {
      ASSERT_TRUE(outcomes[i].result) << outcomes[i].error;
      const JobResult alone = test::run_pair(ref, encodes[i], config);
      EXPECT_EQ(outcomes[i].result->frames, 9u);
      expect_same(outcomes[i].result->features, alone.features,
                  encodes[i].filename().string() + " threads " + std::to_string(threads));
    }
  }
}

TEST(Ladder, ReferenceShareComputesVifAndAdmReferenceWorkOncePerFrame) {
  // Three jobs holding one share, fed the same reference: VIF's reference
  // part (every scale's filtered reference statistics and decimation) and
  // ADM's (every level's reference DWT and denominator) are computed once
  // per frame and taken twice, at 8 and 10 bits, with 0 to 4 workers per
  // job (tiles), for VIF's both skip_scale0 settings and two ADM option
  // sets; every value equals a job without the share. ADM with
  // adm_skip_scale0 has no split and takes nothing (had it taken without
  // the others, the share would keep its frames).
  for (const int bits : {8, 10}) {
    const VideoFormat format{352, 288, bits, ChromaFormat::k420};
    const unsigned frames = 5;
    std::vector<Picture> refs;
    for (unsigned i = 0; i < frames; ++i)
      refs.push_back(test::synthetic_picture(format, 500 + i, test::Fill::smooth));
    for (const unsigned base_threads : {0u, 2u}) {
      auto share = std::make_shared<ReferenceShare>(3);
      std::vector<FeatureCollector> shared_results, alone_results;
      for (const bool with_share : {true, false}) {
        std::vector<std::unique_ptr<Job>> jobs;
        for (unsigned j = 0; j < 3; ++j) {
          JobConfig c;
          c.features.push_back({"vif", {}});
          c.features.push_back({"vif", {{"vif_skip_scale0", "true"}, {"vif_enhn_gain_limit", "1.5"}}});
          c.features.push_back({"adm", {}});
          c.features.push_back({"adm", {{"adm_enhn_gain_limit", "1.2"}, {"adm_csf_mode", "1"}}});
          c.features.push_back({"adm", {{"adm_skip_scale0", "true"}}});
          c.threads = base_threads + j;  // 0..2 or 2..4 workers
          if (with_share) c.reference_share = share;
          jobs.push_back(std::make_unique<Job>(c));
        }
        for (unsigned i = 0; i < frames; ++i)
          for (unsigned j = 0; j < 3; ++j) {
            const Picture dist = test::distort_picture(refs[i], 11 * i + j, 10 + 15 * j);
            jobs[j]->submit(view_of(refs[i]), view_of(dist));
          }
        for (auto& job : jobs)
          (with_share ? shared_results : alone_results).push_back(job->finish().features);
      }
      const std::string what =
          std::to_string(bits) + "-bit, threads from " + std::to_string(base_threads);
      // Four extractors (four keys) per frame.
      EXPECT_EQ(share->computed(), 4ull * frames) << what;
      EXPECT_EQ(share->reused(), 8ull * frames) << what;
      for (unsigned j = 0; j < 3; ++j)
        expect_same(shared_results[j], alone_results[j], what + ", job " + std::to_string(j));
    }
  }
}

}  // namespace
}  // namespace vqe
