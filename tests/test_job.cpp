// SPDX-License-Identifier: BSD-2-Clause
// The push-style Job: backpressure, in-place frames, results readable once
// final, and jobs with different settings running at the same time in one
// process giving exactly what each gives alone.

#include <atomic>
#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_util.h"
#include "vqe/vqe.h"

namespace vqe::test {
namespace {

std::vector<std::pair<Picture, Picture>> make_frames(const VideoFormat& f, int n,
                                                     std::uint32_t seed) {
  std::vector<std::pair<Picture, Picture>> out;
  for (int i = 0; i < n; ++i) {
    Picture ref = synthetic_picture(f, seed + i, Fill::smooth);
    Picture dis = distort_picture(ref, seed + 50 + i, 3 << (f.bit_depth - 8));
    out.emplace_back(std::move(ref), std::move(dis));
  }
  return out;
}

JobResult run(const JobConfig& config, const std::vector<std::pair<Picture, Picture>>& frames) {
  Job job(config);
  for (const auto& [r, d] : frames) job.submit(view_of(r), view_of(d));
  return job.finish();
}

JobConfig vmaf_config() {
  JobConfig config;
  config.models.push_back(Model::builtin("vmaf_v0.6.1"));
  config.features.push_back({"psnr", {{"enable_apsnr", "true"}}});
  config.features.push_back({"float_ssim", {}});
  config.features.push_back({"float_motion", {}});
  return config;
}

// Four jobs on four threads, each with its own CPU level and thread count,
// against the same jobs run one after another.
TEST(Job, ConcurrentJobsWithDifferentSettingsMatchSequentialRuns) {
  const VideoFormat f{200, 120, 10, ChromaFormat::k420};
  const auto frames = make_frames(f, 8, 5);
  const std::vector<simd::Level> levels = simd::available_levels();
  struct Setting {
    simd::Level level;
    unsigned threads;
  };
  std::vector<Setting> settings;
  for (unsigned k = 0; k < 4; ++k)
    settings.push_back({levels[(levels.size() - 1 - k % levels.size())], k});  // 0..3 threads
  std::vector<JobResult> sequential;
  for (const Setting& s : settings) {
    JobConfig c = vmaf_config();
    c.cpu_level = s.level;
    c.threads = s.threads;
    sequential.push_back(run(c, frames));
  }
  std::vector<std::future<JobResult>> running;
  for (const Setting& s : settings)
    running.push_back(std::async(std::launch::async, [&, s] {
      JobConfig c = vmaf_config();
      c.cpu_level = s.level;
      c.threads = s.threads;
      return run(c, frames);
    }));
  for (std::size_t k = 0; k < settings.size(); ++k) {
    const JobResult concurrent = running[k].get();
    EXPECT_EQ(expect_bit_identical(sequential[k].features, concurrent.features,
                                   fmt::format("job {} ({}, {} threads)", k,
                                               simd::level_name(settings[k].level),
                                               settings[k].threads)),
              0);
    // And every setting gives the same values as the first.
    EXPECT_EQ(expect_bit_identical(sequential[0].features, concurrent.features,
                                   fmt::format("job {} against job 0", k)),
              0);
  }
}

// The default slot count: 2·threads + 2 pairs, fewer where those would
// pass 1 GiB (never fewer than threads + 2); counted over the planes the
// job reads (PSNR reads all three, VMAF's features luma only).
TEST(Job, DefaultFramesInFlightStayWithinABudgetForLargePictures) {
  struct Case {
    VideoFormat format;
    const char* feature;
    unsigned threads, expected;
  };
  const Case cases[] = {
      {{1920, 1080, 8, ChromaFormat::k420}, "psnr", 8, 18},  // 3 MB pairs: 2·8 + 2
      {{3840, 2160, 16, ChromaFormat::k444}, "psnr", 8, 10},  // 100 MB pairs: 10 fit 1 GiB
      {{3840, 2160, 16, ChromaFormat::k444}, "psnr", 16, 18},  // never below threads + 2
      {{3840, 2160, 16, ChromaFormat::k444}, "vif", 8, 18},    // luma only: 33 MB pairs
      {{3840, 2160, 16, ChromaFormat::k444}, "psnr", 0, 1}};
  for (const Case& c : cases) {
    JobConfig config;
    config.features.push_back({c.feature, {}});
    config.threads = c.threads;
    Job job(config);
    job.start(c.format);
    EXPECT_EQ(job.frames_in_flight(), c.expected)
        << c.format.width << "x" << c.format.height << " " << c.feature << " threads "
        << c.threads;
  }
}

TEST(Job, TrySubmitReportsFullAndSubmitWaits) {
  const VideoFormat f{64, 48, 8, ChromaFormat::k420};
  const auto frames = make_frames(f, 3, 9);
  JobConfig config;
  config.features.push_back({"psnr", {}});
  config.threads = 1;
  config.max_frames_in_flight = 2;
  Job job(config);
  job.start(f);
  // Hold both slots: try_submit must report the job full.
  JobFrame a = job.acquire();
  JobFrame b = job.acquire();
  EXPECT_FALSE(job.try_submit(view_of(frames[0].first), view_of(frames[0].second)));
  // submit() waits for a slot: it returns once one is given back.
  std::atomic<bool> done{false};
  std::thread producer([&] {
    job.submit(view_of(frames[1].first), view_of(frames[1].second));
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(done.load());
  a = JobFrame();  // dropping an unsubmitted frame returns its slot
  producer.join();
  EXPECT_TRUE(done.load());
  copy_picture(view_of(frames[2].first), b.reference(), "test");
  copy_picture(view_of(frames[2].second), b.distorted(), "test");
  job.submit(std::move(b));
  EXPECT_FALSE(static_cast<bool>(b));
  EXPECT_THROW(job.submit(std::move(b)), Error);  // already submitted
  const JobResult r = job.finish();
  EXPECT_EQ(r.frames, 2u);
  EXPECT_THROW(job.finish(), Error);
  EXPECT_THROW(job.submit(view_of(frames[0].first), view_of(frames[0].second)), Error);
}

TEST(Job, ResultsBecomeFinalInOrderAndEqualTheEnd) {
  const VideoFormat f{96, 64, 8, ChromaFormat::k420};
  const auto frames = make_frames(f, 12, 13);
  JobConfig config = vmaf_config();
  config.threads = 2;
  Job job(config);
  std::vector<std::optional<double>> early(frames.size());
  unsigned seen_final = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    job.submit(view_of(frames[i].first), view_of(frames[i].second));
    const unsigned final_frames = job.frames_final();
    EXPECT_LE(final_frames, job.frames_submitted());
    EXPECT_GE(final_frames, seen_final);  // never goes back
    for (; seen_final < final_frames; ++seen_final) early[seen_final] = job.score("vmaf", seen_final);
  }
  job.flush();
  // After a flush every frame but those waiting for look-ahead is final.
  EXPECT_GE(job.frames_final(), frames.size() - 1);
  for (; seen_final < job.frames_final(); ++seen_final) early[seen_final] = job.score("vmaf", seen_final);
  const JobResult r = job.finish();
  for (unsigned i = 0; i < seen_final; ++i) {
    ASSERT_TRUE(early[i].has_value()) << i;
    EXPECT_EQ(*early[i], *r.features.get("vmaf", i)) << i;
  }
  EXPECT_GE(seen_final, frames.size() - 1);
}

TEST(Job, RejectsWrongUse) {
  JobConfig empty;
  EXPECT_THROW(Job{empty}, Error);
  JobConfig unknown;
  unknown.features.push_back({"no_such_feature", {}});
  EXPECT_THROW(Job{unknown}, Error);
  JobConfig bad_option;
  bad_option.features.push_back({"psnr", {{"enable_mse", "maybe"}}});
  EXPECT_THROW(Job{bad_option}, Error);
  JobConfig twins;
  twins.models.push_back(Model::builtin("vmaf_v0.6.1"));
  twins.models.push_back(Model::builtin("vmaf_v0.6.1neg"));
  EXPECT_THROW(Job{twins}, Error);  // both named "vmaf"

  JobConfig config;
  config.features.push_back({"psnr", {}});
  Job job(config);
  EXPECT_THROW(job.acquire(), Error);  // no format yet
  EXPECT_THROW(job.finish(), Error);   // no frame
}


// The submitting thread computing while it waits (help_while_waiting) or
// sleeping gives the same values, with one slot or many, and one worker or
// several.
TEST(Job, HelpingSubmitterGivesTheSameResults) {
  const VideoFormat f{160, 96, 8, ChromaFormat::k420};
  const auto frames = make_frames(f, 12, 9);
  JobConfig base = vmaf_config();
  base.features.push_back({"motion", {{"motion_five_frame_window", "true"}}});
  const JobResult reference = run(base, frames);  // no threads
  for (const unsigned threads : {1u, 3u})
    for (const unsigned slots : {0u, 1u, 3u})
      for (const bool help : {true, false}) {
        JobConfig cfg = base;
        cfg.threads = threads;
        cfg.max_frames_in_flight = slots;
        cfg.help_while_waiting = help;
        const JobResult r = run(cfg, frames);
        ASSERT_EQ(r.features.names(), reference.features.names());
        for (const std::string& n : reference.features.names())
          for (unsigned i = 0; i < reference.frames; ++i)
            EXPECT_EQ(r.features.get(n, i), reference.features.get(n, i))
                << n << " frame " << i << " threads " << threads << " slots " << slots
                << " help " << help;
      }
}

// JobFrame::share_reference: frames whose reference is a shared picture
// (several frames of two jobs at once, with temporal and pairwise
// extractors that read earlier frames' references) give the values of
// frames filled by copies; every hold on the pictures ends with the jobs;
// misuse is refused.
TEST(Job, SharedReferencePicturesGiveTheSameResults) {
  const VideoFormat f{160, 96, 8, ChromaFormat::k420};
  const auto frames = make_frames(f, 10, 31);
  JobConfig base = vmaf_config();
  base.features.push_back({"motion", {{"motion_five_frame_window", "true"}}});
  const JobResult expect = run(base, frames);
  std::vector<std::shared_ptr<Picture>> refs;
  for (const auto& [r, d] : frames) {
    refs.push_back(std::make_shared<Picture>(f));
    copy_picture(view_of(r), *refs.back(), "test");
  }
  for (const unsigned threads : {0u, 3u}) {
    JobConfig cfg = base;
    cfg.threads = threads;
    Job a(cfg), b(cfg);
    a.start(f);
    b.start(f);
    for (std::size_t i = 0; i < frames.size(); ++i)
      for (Job* job : {&a, &b}) {
        JobFrame frame = job->acquire();
        frame.share_reference(refs[i]);
        copy_picture(view_of(frames[i].second), frame.distorted(), "test");
        job->submit(std::move(frame));
      }
    for (Job* job : {&a, &b}) {
      const JobResult got = job->finish();
      EXPECT_EQ(expect_bit_identical(expect.features, got.features,
                                     fmt::format("threads {}", threads)),
                0);
    }
    for (const auto& p : refs) EXPECT_EQ(p.use_count(), 1) << "threads " << threads;
  }

  Job job(base);
  job.start(f);
  JobFrame frame = job.acquire();
  EXPECT_THROW(frame.share_reference(nullptr), Error);
  EXPECT_THROW(frame.share_reference(std::make_shared<Picture>(
                   VideoFormat{f.width, f.height, 10, ChromaFormat::k420})),
               Error);
  EXPECT_THROW(JobFrame().share_reference(refs[0]), Error);
  // A frame given back unsubmitted lets go of its picture.
  frame.share_reference(refs[0]);
  EXPECT_EQ(refs[0].use_count(), 2);
  frame = JobFrame();
  EXPECT_EQ(refs[0].use_count(), 1);
}

}  // namespace
}  // namespace vqe::test
