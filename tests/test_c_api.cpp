// SPDX-License-Identifier: BSD-2-Clause
// The C API (vqe/vqe_c.h): a job through it equals the C++ job bit for bit;
// bad calls return errors with messages and never crash; many open/close
// cycles with several models leave nothing behind (LeakSanitizer checks the
// sanitizer build).

#include <climits>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test_util.h"
#include "vqe/vqe.h"
#include "vqe/vqe_c.h"

namespace vqe::test {
namespace {

VqePicture to_c(const Picture& p) {
  VqePicture c{};
  c.width = p.width();
  c.height = p.height();
  c.bit_depth = p.bit_depth();
  c.chroma = static_cast<int>(p.format().chroma);
  for (int i = 0; i < p.num_planes(); ++i) {
    c.data[i] = p.plane(i).data;
    c.stride[i] = p.plane(i).stride;
  }
  return c;
}

std::vector<std::pair<Picture, Picture>> frames(const VideoFormat& f, int n, std::uint32_t seed) {
  std::vector<std::pair<Picture, Picture>> out;
  for (int i = 0; i < n; ++i) {
    Picture ref = synthetic_picture(f, seed + i, Fill::smooth);
    Picture dis = distort_picture(ref, seed + 100 + i, 4 << (f.bit_depth - 8));
    out.emplace_back(std::move(ref), std::move(dis));
  }
  return out;
}

TEST(CApi, JobEqualsCppJob) {
  const VideoFormat f{96, 64, 10, ChromaFormat::k420};
  const auto pairs = frames(f, 6, 1);

  JobConfig config;
  config.models.push_back(Model::builtin("vmaf_v0.6.1"));
  config.features.push_back({"psnr", {{"enable_mse", "true"}}});
  Job job(config);
  for (const auto& [r, d] : pairs) job.submit(view_of(r), view_of(d));
  const JobResult expected = job.finish();

  VqeConfig cfg;
  vqe_config_default(&cfg);
  cfg.threads = 2;
  VqeJob* c = nullptr;
  ASSERT_EQ(vqe_job_open(&c, &cfg), VQE_OK) << vqe_last_error();
  ASSERT_EQ(vqe_job_use_model(c, "version=vmaf_v0.6.1"), VQE_OK) << vqe_last_error();
  ASSERT_EQ(vqe_job_use_feature(c, "psnr", "enable_mse=true"), VQE_OK) << vqe_last_error();
  for (const auto& [r, d] : pairs) {
    const VqePicture cr = to_c(r), cd = to_c(d);
    ASSERT_EQ(vqe_job_submit(c, &cr, &cd), VQE_OK) << vqe_last_error();
  }
  ASSERT_EQ(vqe_job_finish(c), VQE_OK) << vqe_last_error();
  unsigned submitted = 0, final_frames = 0;
  ASSERT_EQ(vqe_job_frames(c, &submitted, &final_frames), VQE_OK);
  EXPECT_EQ(submitted, 6u);
  EXPECT_EQ(final_frames, 6u);

  size_t count = 0;
  ASSERT_EQ(vqe_job_feature_count(c, &count), VQE_OK);
  ASSERT_EQ(count, expected.features.names().size());
  int compared = 0;
  for (size_t k = 0; k < count; ++k) {
    const char* name = nullptr;
    ASSERT_EQ(vqe_job_feature_name(c, k, &name), VQE_OK);
    EXPECT_EQ(std::string(name), expected.features.names()[k]);
    for (unsigned i = 0; i < 6; ++i) {
      double v = 0;
      ASSERT_EQ(vqe_job_score_at_index(c, name, i, &v), VQE_OK) << name << " " << vqe_last_error();
      const double want = *expected.features.get(name, i);
      EXPECT_EQ(std::memcmp(&v, &want, sizeof v), 0) << name << " " << i;
      ++compared;
    }
  }
  EXPECT_GT(compared, 60);
  double mean = 0;
  ASSERT_EQ(vqe_job_score_pooled(c, "vmaf", VQE_POOL_MEAN, 0, UINT_MAX, &mean), VQE_OK);
  EXPECT_EQ(mean, *expected.features.pooled("vmaf", PoolMethod::kMean));
  double part = 0;
  ASSERT_EQ(vqe_job_score_pooled(c, "vmaf", VQE_POOL_MIN, 2, 3, &part), VQE_OK);
  EXPECT_EQ(part, std::min(*expected.features.get("vmaf", 2), *expected.features.get("vmaf", 3)));

  const auto out = std::filesystem::temp_directory_path() / "vqe_c_api_out.json";
  ASSERT_EQ(vqe_job_write_output(c, out.string().c_str(), VQE_OUTPUT_JSON, 1), VQE_OK)
      << vqe_last_error();
  const auto json = nlohmann::json::parse(std::ifstream(out));
  EXPECT_EQ(json["frames"].size(), 6u);
  std::filesystem::remove(out);
  EXPECT_EQ(vqe_job_close(c), VQE_OK);
}

TEST(CApi, ScoresBecomeReadableWhenFinal) {
  const VideoFormat f{64, 48, 8, ChromaFormat::k420};
  const auto pairs = frames(f, 5, 7);
  VqeJob* c = nullptr;
  ASSERT_EQ(vqe_job_open(&c, nullptr), VQE_OK);
  ASSERT_EQ(vqe_job_use_feature(c, "motion", nullptr), VQE_OK);
  ASSERT_EQ(vqe_job_use_feature(c, "psnr", nullptr), VQE_OK);
  double v = 0;
  EXPECT_EQ(vqe_job_score_at_index(c, "psnr_y", 0, &v), VQE_ERROR_NOT_READY);
  for (const auto& [r, d] : pairs) {
    const VqePicture cr = to_c(r), cd = to_c(d);
    ASSERT_EQ(vqe_job_submit(c, &cr, &cd), VQE_OK);
  }
  unsigned final_frames = 0;
  ASSERT_EQ(vqe_job_frames(c, nullptr, &final_frames), VQE_OK);
  // motion2 of a frame needs the next frame: the last one waits for finish.
  EXPECT_EQ(final_frames, 4u);
  EXPECT_EQ(vqe_job_score_at_index(c, "integer_motion2", 3, &v), VQE_OK) << vqe_last_error();
  EXPECT_EQ(vqe_job_score_at_index(c, "integer_motion2", 4, &v), VQE_ERROR_NOT_READY);
  EXPECT_NE(std::string(vqe_last_error()).find("not final"), std::string::npos);
  ASSERT_EQ(vqe_job_finish(c), VQE_OK);
  EXPECT_EQ(vqe_job_score_at_index(c, "integer_motion2", 4, &v), VQE_OK);
  vqe_job_close(c);
}

TEST(CApi, BadCallsReturnErrorsWithMessages) {
  const VideoFormat f{64, 48, 8, ChromaFormat::k420};
  const auto pairs = frames(f, 2, 3);
  const VqePicture r0 = to_c(pairs[0].first), d0 = to_c(pairs[0].second);
  double v = 0;
  const auto expect_error = [](int status, int expected, const char* what) {
    EXPECT_EQ(status, expected) << what;
    EXPECT_GT(std::strlen(vqe_last_error()), 0u) << what;
  };

  // Null handles and pointers.
  expect_error(vqe_job_open(nullptr, nullptr), VQE_ERROR_INVALID_ARGUMENT, "open null");
  expect_error(vqe_job_use_model(nullptr, "version=vmaf_v0.6.1"), VQE_ERROR_INVALID_ARGUMENT,
               "model null job");
  expect_error(vqe_job_submit(nullptr, &r0, &d0), VQE_ERROR_INVALID_ARGUMENT, "submit null job");
  expect_error(vqe_job_finish(nullptr), VQE_ERROR_INVALID_ARGUMENT, "finish null job");
  expect_error(vqe_job_score_at_index(nullptr, "vmaf", 0, &v), VQE_ERROR_INVALID_ARGUMENT,
               "score null job");
  EXPECT_EQ(vqe_job_close(nullptr), VQE_OK);

  VqeConfig cfg;
  vqe_config_default(&cfg);
  cfg.cpu_level = "avx9";
  VqeJob* bad = nullptr;
  expect_error(vqe_job_open(&bad, &cfg), VQE_ERROR_INVALID_ARGUMENT, "unknown level");
  EXPECT_EQ(bad, nullptr);
  cfg.cpu_level = nullptr;
  cfg.backend = 42;  // not a VqeBackend value
  expect_error(vqe_job_open(&bad, &cfg), VQE_ERROR_INVALID_ARGUMENT, "unknown backend");

  VqeJob* c = nullptr;
  ASSERT_EQ(vqe_job_open(&c, nullptr), VQE_OK);
  expect_error(vqe_job_use_model(c, nullptr), VQE_ERROR_INVALID_ARGUMENT, "null spec");
  expect_error(vqe_job_use_model(c, "version=no_such_model"), VQE_ERROR_FAILED, "unknown model");
  expect_error(vqe_job_use_model(c, "path=/nonexistent/model.json"), VQE_ERROR_FAILED,
               "missing model file");
  expect_error(vqe_job_use_feature(c, "no_such_feature", nullptr), VQE_ERROR_NOT_FOUND,
               "unknown feature");
  expect_error(vqe_job_use_feature(c, "psnr", "enable_mse"), VQE_ERROR_FAILED,
               "option without value");
  expect_error(vqe_job_finish(c), VQE_ERROR_STATE, "finish before any frame");
  expect_error(vqe_job_write_output(c, "/tmp/x.json", VQE_OUTPUT_JSON, 0), VQE_ERROR_STATE,
               "write before finish");
  ASSERT_EQ(vqe_job_use_feature(c, "psnr", nullptr), VQE_OK);

  // Malformed pictures.
  VqePicture broken = r0;
  broken.data[0] = nullptr;
  expect_error(vqe_job_submit(c, &broken, &d0), VQE_ERROR_FAILED, "null plane");
  broken = r0;
  broken.stride[1] = 3;
  expect_error(vqe_job_submit(c, &broken, &d0), VQE_ERROR_FAILED, "stride below a row");
  broken = r0;
  broken.bit_depth = 9;
  expect_error(vqe_job_submit(c, &broken, &d0), VQE_ERROR_INVALID_ARGUMENT, "bit depth 9");
  broken = r0;
  broken.chroma = 7;
  expect_error(vqe_job_submit(c, &broken, &d0), VQE_ERROR_INVALID_ARGUMENT, "chroma 7");
  broken = r0;
  broken.width = -5;
  expect_error(vqe_job_submit(c, &broken, &d0), VQE_ERROR_INVALID_ARGUMENT, "negative width");

  ASSERT_EQ(vqe_job_submit(c, &r0, &d0), VQE_OK) << vqe_last_error();
  // Models and features are fixed once frames arrive.
  expect_error(vqe_job_use_feature(c, "float_ssim", nullptr), VQE_ERROR_STATE, "late feature");
  expect_error(vqe_job_use_model(c, "version=vmaf_v0.6.1"), VQE_ERROR_STATE, "late model");
  // A picture of another format mid-job.
  const auto other = frames({80, 48, 8, ChromaFormat::k420}, 1, 9);
  const VqePicture r1 = to_c(other[0].first), d1 = to_c(other[0].second);
  expect_error(vqe_job_submit(c, &r1, &d1), VQE_ERROR_FAILED, "format change");
  expect_error(vqe_job_submit(c, &r0, &d1), VQE_ERROR_FAILED, "pair of two formats");
  expect_error(vqe_job_score_at_index(c, "psnr_y", 99, &v), VQE_ERROR_NOT_READY, "future frame");
  expect_error(vqe_job_score_pooled(c, "psnr_y", 9, 0, 1, &v),
               VQE_ERROR_INVALID_ARGUMENT, "pool method");
  expect_error(vqe_job_score_pooled(c, "psnr_y", VQE_POOL_MEAN, 3, 1, &v),
               VQE_ERROR_INVALID_ARGUMENT, "reversed range");
  ASSERT_EQ(vqe_job_finish(c), VQE_OK) << vqe_last_error();
  expect_error(vqe_job_score_at_index(c, "vmaf", 0, &v), VQE_ERROR_NOT_FOUND, "name not emitted");
  expect_error(vqe_job_aggregate(c, "apsnr_y", &v), VQE_ERROR_NOT_FOUND, "aggregate not enabled");
  expect_error(vqe_job_submit(c, &r0, &d0), VQE_ERROR_STATE, "submit after finish");
  expect_error(vqe_job_finish(c), VQE_ERROR_STATE, "finish twice");
  expect_error(vqe_job_write_output(c, "/nonexistent/dir/out.json", VQE_OUTPUT_JSON, 0),
               VQE_ERROR_FAILED, "output in a missing folder");
  EXPECT_NE(std::string(vqe_last_error()).find("No such file or directory"), std::string::npos)
      << vqe_last_error();
  expect_error(vqe_job_write_output(c, "/tmp/x.json", 9, 0),
               VQE_ERROR_INVALID_ARGUMENT, "output format");
  const char* name = nullptr;
  expect_error(vqe_job_feature_name(c, 1000, &name), VQE_ERROR_NOT_FOUND, "name index");
  EXPECT_EQ(vqe_job_close(c), VQE_OK);

  // A frame too small for an extractor: the refusal comes with the first frame.
  ASSERT_EQ(vqe_job_open(&c, nullptr), VQE_OK);
  ASSERT_EQ(vqe_job_use_feature(c, "float_ms_ssim", nullptr), VQE_OK);
  expect_error(vqe_job_submit(c, &r0, &d0), VQE_ERROR_FAILED, "frame too small");
  EXPECT_NE(std::string(vqe_last_error()).find("176"), std::string::npos) << vqe_last_error();
  vqe_job_close(c);
}

TEST(CApi, LastErrorIsPerThread) {
  ASSERT_NE(vqe_job_use_model(nullptr, "x"), VQE_OK);
  std::string other;
  std::thread t([&] {
    VqeJob* c = nullptr;
    vqe_job_open(&c, nullptr);
    other = vqe_last_error();
    vqe_job_close(c);
  });
  t.join();
  EXPECT_EQ(other, "");
  EXPECT_NE(std::string(vqe_last_error()), "");
}

// 100 open/close cycles with three models (one a bootstrap collection) and a
// few frames each; LeakSanitizer (the sanitizer build) reports any leak.
TEST(CApi, ManyCyclesWithThreeModels) {
  const VideoFormat f{64, 48, 8, ChromaFormat::k420};
  const auto pairs = frames(f, 2, 11);
  for (int cycle = 0; cycle < 100; ++cycle) {
    VqeConfig cfg;
    vqe_config_default(&cfg);
    cfg.threads = cycle % 3;
    VqeJob* c = nullptr;
    ASSERT_EQ(vqe_job_open(&c, &cfg), VQE_OK);
    ASSERT_EQ(vqe_job_use_model(c, "version=vmaf_v0.6.1"), VQE_OK);
    ASSERT_EQ(vqe_job_use_model(c, "version=vmaf_v0.6.1neg:name=vmaf_neg"), VQE_OK);
    ASSERT_EQ(vqe_job_use_model(c, "version=vmaf_b_v0.6.3:name=vmaf_b"), VQE_OK);
    if (cycle % 4 != 3) {  // every fourth job is closed without any frame
      for (const auto& [r, d] : pairs) {
        const VqePicture cr = to_c(r), cd = to_c(d);
        ASSERT_EQ(vqe_job_submit(c, &cr, &cd), VQE_OK) << vqe_last_error();
      }
      if (cycle % 2 == 0) {
        ASSERT_EQ(vqe_job_finish(c), VQE_OK) << vqe_last_error();
      }
    }
    ASSERT_EQ(vqe_job_close(c), VQE_OK);
  }
}

}  // namespace
}  // namespace vqe::test
