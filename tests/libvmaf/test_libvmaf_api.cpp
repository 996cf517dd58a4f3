// SPDX-License-Identifier: BSD-2-Clause
// The libvmaf compatibility layer (compat/libvmaf): libvmaf's call sequence
// on shared pairs gives vqe::Job's values bit for bit; bad calls return
// libvmaf's negative errno codes and never crash (run under ASan/UBSan and
// LeakSanitizer in the sanitizer build).

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "libvmaf/libvmaf.h"
#include "libvmaf/version.h"
#include "test_util.h"
#include "vqe/vqe.h"

namespace vqe::test {
namespace {

VmafConfiguration quiet_config(unsigned threads = 0) {
  VmafConfiguration cfg{};
  cfg.log_level = VMAF_LOG_LEVEL_NONE;
  cfg.n_threads = threads;
  return cfg;
}

enum VmafPixelFormat pix_fmt_of(ChromaFormat c) {
  switch (c) {
    case ChromaFormat::k400: return VMAF_PIX_FMT_YUV400P;
    case ChromaFormat::k420: return VMAF_PIX_FMT_YUV420P;
    case ChromaFormat::k422: return VMAF_PIX_FMT_YUV422P;
    case ChromaFormat::k444: return VMAF_PIX_FMT_YUV444P;
  }
  return VMAF_PIX_FMT_UNKNOWN;
}

// A libvmaf picture holding a copy of `p` (as FFmpeg's filter fills them).
VmafPicture to_vmaf(const Picture& p) {
  VmafPicture out{};
  EXPECT_EQ(vmaf_picture_alloc(&out, pix_fmt_of(p.format().chroma), p.bit_depth(), p.width(),
                               p.height()),
            0);
  const int bytes = p.format().bytes_per_sample();
  for (int i = 0; i < p.num_planes(); ++i) {
    EXPECT_EQ(out.w[i], static_cast<unsigned>(p.plane(i).width));
    EXPECT_EQ(out.h[i], static_cast<unsigned>(p.plane(i).height));
    for (int y = 0; y < p.plane(i).height; ++y)
      std::memcpy(static_cast<char*>(out.data[i]) + y * out.stride[i], p.plane(i).row<char>(y),
                  static_cast<std::size_t>(p.plane(i).width) * bytes);
  }
  return out;
}

// Reads every frame pair of ref/dist into `vmaf` as FFmpeg does, then flushes.
unsigned read_pair(VmafContext* vmaf, const std::filesystem::path& ref,
                   const std::filesystem::path& dist) {
  auto r = open_video(ref.string(), nullptr);
  auto d = open_video(dist.string(), nullptr);
  Picture pr, pd;
  unsigned i = 0;
  while (r->read(pr) && d->read(pd)) {
    VmafPicture vr = to_vmaf(pr), vd = to_vmaf(pd);
    EXPECT_EQ(vmaf_read_pictures(vmaf, &vr, &vd, i), 0);
    EXPECT_EQ(vr.ref, nullptr) << "the library releases pictures it took";
    ++i;
  }
  EXPECT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);
  return i;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Every per-frame value and every pooled value of `expected` read through
// the layer: bit-identical.
void expect_equal_to_job(VmafContext* vmaf, const JobResult& expected, unsigned subsample = 1,
                         int min_compared = 100) {
  int compared = 0;
  for (const std::string& name : expected.features.names()) {
    for (unsigned i = 0; i < expected.frames; ++i) {
      const auto want = expected.features.get(name, i);
      double got = 0;
      ASSERT_EQ(vmaf_feature_score_at_index(vmaf, name.c_str(), &got, i), want ? 0 : -EINVAL)
          << name << " at " << i;
      if (!want) continue;
      EXPECT_TRUE(same_bits(got, *want)) << name << " at " << i << ": " << got << " vs " << *want;
      ++compared;
    }
    for (int m = VMAF_POOL_METHOD_MIN; m < VMAF_POOL_METHOD_NB; ++m) {
      double got = 0;
      ASSERT_EQ(vmaf_feature_score_pooled(vmaf, name.c_str(), static_cast<VmafPoolingMethod>(m),
                                          &got, 0, expected.frames - 1),
                0)
          << name;
      const auto want =
          expected.features.pooled(name, static_cast<PoolMethod>(m - 1), subsample);
      ASSERT_TRUE(want);
      EXPECT_TRUE(same_bits(got, *want)) << name << " pooled " << m;
    }
  }
  EXPECT_GE(compared, min_compared);
}

TEST(LibvmafCompat, VersionAndHeaders) {
  EXPECT_EQ(VMAF_API_VERSION_MAJOR, 3);
  EXPECT_EQ(std::string(vmaf_version()).rfind("3.2.0+vqe.", 0), 0u) << vmaf_version();
  // libvmaf's ABI: enum values and struct layouts programs were compiled with.
  EXPECT_EQ(VMAF_OUTPUT_FORMAT_JSON, 2);
  EXPECT_EQ(VMAF_POOL_METHOD_HARMONIC_MEAN, 4);
  EXPECT_EQ(VMAF_PIX_FMT_YUV400P, 4);
  EXPECT_EQ(VMAF_MODEL_FLAG_ENABLE_TRANSFORM, 2);
  EXPECT_EQ(VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP, 1);
  EXPECT_EQ(offsetof(VmafConfiguration, cpumask), 16u);
  EXPECT_EQ(sizeof(VmafConfiguration), 32u);
  EXPECT_EQ(offsetof(VmafPicture, stride), 32u);
  EXPECT_EQ(offsetof(VmafPicture, ref), 80u);
  EXPECT_EQ(sizeof(VmafPicture), 96u);
  EXPECT_EQ(sizeof(VmafModelConfig), 16u);
  EXPECT_EQ(offsetof(VmafModelCollectionScore, bootstrap.ci.p95.hi), 32u);
  EXPECT_EQ(sizeof(VmafPictureConfiguration), 20u);
}

// FFmpeg's sequence: a model by version, features by name with options,
// threads; every value equals vqe::Job's with the same settings.
TEST(LibvmafCompat, SharedPairEqualsJob) {
  VQE_REQUIRE_SHARED(shared);
  const auto ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const auto dist = shared / "testdata/clips/dist/carphone_176x144_420p8_20f__x264_crf35.y4m";

  JobConfig config;
  config.models.push_back(Model::builtin("vmaf_v0.6.1"));
  Model k4 = Model::builtin("vmaf_4k_v0.6.1");
  k4.set_name("vmaf_4k");
  config.models.push_back(k4);
  config.features.push_back({"psnr", {{"enable_mse", "true"}}});
  config.features.push_back({"float_ssim", {}});
  const JobResult expected = run_pair(ref, dist, config);

  for (unsigned threads : {0u, 2u}) {
    SCOPED_TRACE(threads);
    VmafContext* vmaf = nullptr;
    ASSERT_EQ(vmaf_init(&vmaf, quiet_config(threads)), 0);
    VmafModel* model = nullptr;
    VmafModel* model_4k = nullptr;
    VmafModelConfig mc{};
    ASSERT_EQ(vmaf_model_load(&model, &mc, "vmaf_v0.6.1"), 0);
    VmafModelConfig mc4{"vmaf_4k", VMAF_MODEL_FLAGS_DEFAULT};
    ASSERT_EQ(vmaf_model_load(&model_4k, &mc4, "vmaf_4k_v0.6.1"), 0);
    ASSERT_EQ(vmaf_use_features_from_model(vmaf, model), 0);
    ASSERT_EQ(vmaf_use_features_from_model(vmaf, model_4k), 0);
    ASSERT_EQ(vmaf_use_features_from_model(vmaf, model), 0) << "the same model again: no-op";
    VmafFeatureDictionary* opts = nullptr;
    ASSERT_EQ(vmaf_feature_dictionary_set(&opts, "enable_mse", "true"), 0);
    ASSERT_EQ(vmaf_use_feature(vmaf, "psnr", opts), 0);  // takes opts
    ASSERT_EQ(vmaf_use_feature(vmaf, "float_ssim", nullptr), 0);

    const unsigned frames = read_pair(vmaf, ref, dist);
    ASSERT_EQ(frames, expected.frames);
    expect_equal_to_job(vmaf, expected);

    for (unsigned i = 0; i < frames; ++i) {
      double v = 0;
      ASSERT_EQ(vmaf_score_at_index(vmaf, model, &v, i), 0);
      EXPECT_TRUE(same_bits(v, *expected.features.get("vmaf", i)));
      ASSERT_EQ(vmaf_score_at_index(vmaf, model_4k, &v, i), 0);
      EXPECT_TRUE(same_bits(v, *expected.features.get("vmaf_4k", i)));
    }
    double mean = 0, hmean = 0, part = 0;
    ASSERT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &mean, 0, frames - 1), 0);
    EXPECT_TRUE(same_bits(mean, *expected.features.pooled("vmaf", PoolMethod::kMean)));
    ASSERT_EQ(vmaf_score_pooled(vmaf, model_4k, VMAF_POOL_METHOD_HARMONIC_MEAN, &hmean, 0,
                                frames - 1),
              0);
    EXPECT_TRUE(same_bits(hmean, *expected.features.pooled("vmaf_4k", PoolMethod::kHarmonicMean)));
    ASSERT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MAX, &part, 3, 5), 0);
    EXPECT_TRUE(same_bits(part, *expected.features.pooled("vmaf", PoolMethod::kMax, 1, 3, 5)));
    // libvmaf's internal names reach the same values.
    double internal = 0;
    ASSERT_EQ(vmaf_feature_score_at_index(vmaf, "VMAF_integer_feature_adm2_score", &internal, 4),
              0);
    EXPECT_TRUE(same_bits(internal, *expected.features.get("integer_adm2", 4)));

    // The log: VQE's writer over the same values (fps and version aside).
    const auto path = write_temp("libvmaf_compat.json", "");
    ::setenv("VQE_LIBVMAF_PRECISION", "max", 1);
    ASSERT_EQ(vmaf_write_output(vmaf, path.c_str(), VMAF_OUTPUT_FORMAT_JSON), 0);
    ::unsetenv("VQE_LIBVMAF_PRECISION");
    std::ostringstream want_text;
    OutputInfo info;
    info.format = OutputFormat::kJson;
    info.precision.mode = Precision::Mode::kMax;
    info.width = 176;
    info.height = 144;
    write_output(want_text, expected.features, info);
    auto got_json = nlohmann::json::parse(std::ifstream(path));
    auto want_json = nlohmann::json::parse(want_text.str());
    for (auto* j : {&got_json, &want_json}) {
      j->erase("fps");
      j->erase("version");
    }
    EXPECT_EQ(got_json, want_json);
    std::filesystem::remove(path);

    vmaf_model_destroy(model);
    vmaf_model_destroy(model_4k);
    EXPECT_EQ(vmaf_close(vmaf), 0);
  }
}

// The vmaf tool's sequence for a bootstrap model, at 10 bits, with
// subsampling and a CPU mask.
TEST(LibvmafCompat, CollectionAndSubsampleEqualJob) {
  VQE_REQUIRE_SHARED(shared);
  const auto ref = shared / "testdata/clips/ref/ciscovt2people_320x192_420p10_9f.y4m";
  const auto dist = shared / "testdata/clips/dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m";

  JobConfig config;
  Model b = Model::builtin("vmaf_b_v0.6.3");
  b.set_name("vmaf_b");
  config.models.push_back(b);
  config.subsample = 2;
  const JobResult expected = run_pair(ref, dist, config);

  VmafConfiguration cfg = quiet_config(1);
  cfg.n_subsample = 2;
  cfg.cpumask = ~0ull;  // scalar kernels: same bits
  VmafContext* vmaf = nullptr;
  ASSERT_EQ(vmaf_init(&vmaf, cfg), 0);
  VmafModel* model = nullptr;
  VmafModelCollection* collection = nullptr;
  VmafModelConfig mc{"vmaf_b", 0};
  EXPECT_EQ(vmaf_model_load(&model, &mc, "vmaf_b_v0.6.3"), -EINVAL) << "a collection";
  EXPECT_EQ(model, nullptr);
  ASSERT_EQ(vmaf_model_collection_load(&model, &collection, &mc, "vmaf_b_v0.6.3"), 0);
  ASSERT_EQ(vmaf_use_features_from_model_collection(vmaf, collection), 0);
  const unsigned frames = read_pair(vmaf, ref, dist);
  ASSERT_EQ(frames, 9u);
  expect_equal_to_job(vmaf, expected, 2);

  double v = 0;
  ASSERT_EQ(vmaf_score_at_index(vmaf, model, &v, 4), 0);
  EXPECT_TRUE(same_bits(v, *expected.features.get("vmaf_b", 4)));
  EXPECT_EQ(vmaf_score_at_index(vmaf, model, &v, 3), -EINVAL) << "not on the subsample grid";
  VmafModelCollectionScore s{};
  ASSERT_EQ(vmaf_score_at_index_model_collection(vmaf, collection, &s, 2), 0);
  EXPECT_EQ(s.type, VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP);
  EXPECT_TRUE(same_bits(s.bootstrap.bagging_score, *expected.features.get("vmaf_b_bagging", 2)));
  EXPECT_TRUE(same_bits(s.bootstrap.ci.p95.hi, *expected.features.get("vmaf_b_ci_p95_hi", 2)));
  ASSERT_EQ(vmaf_score_pooled_model_collection(vmaf, collection, VMAF_POOL_METHOD_MEAN, &s, 0,
                                               frames - 1),
            0);
  EXPECT_TRUE(same_bits(s.bootstrap.stddev,
                        *expected.features.pooled("vmaf_b_stddev", PoolMethod::kMean, 2)));
  EXPECT_TRUE(same_bits(s.bootstrap.ci.p95.lo,
                        *expected.features.pooled("vmaf_b_ci_p95_lo", PoolMethod::kMean, 2)));
  vmaf_model_destroy(model);
  vmaf_model_collection_destroy(collection);
  EXPECT_EQ(vmaf_close(vmaf), 0);
}

std::vector<std::pair<Picture, Picture>> synthetic_pairs(const VideoFormat& f, int n) {
  std::vector<std::pair<Picture, Picture>> out;
  for (int i = 0; i < n; ++i) {
    Picture r = synthetic_picture(f, 11 + i, Fill::smooth);
    Picture d = distort_picture(r, 40 + i, 3);
    out.emplace_back(std::move(r), std::move(d));
  }
  return out;
}

// Values are readable as soon as they are final: psnr after its frame,
// motion2 (and so VMAF) after the next frame, everything after the flush.
TEST(LibvmafCompat, ScoresWhileReading) {
  const VideoFormat f{64, 48, 8, ChromaFormat::k420};
  const auto pairs = synthetic_pairs(f, 4);
  VmafContext* vmaf = nullptr;
  ASSERT_EQ(vmaf_init(&vmaf, quiet_config()), 0);
  VmafModel* model = nullptr;
  VmafModelConfig mc{};
  ASSERT_EQ(vmaf_model_load(&model, &mc, "vmaf_v0.6.1"), 0);
  ASSERT_EQ(vmaf_use_features_from_model(vmaf, model), 0);
  ASSERT_EQ(vmaf_use_feature(vmaf, "psnr", nullptr), 0);
  double v = 0;
  for (unsigned i = 0; i < pairs.size(); ++i) {
    VmafPicture r = to_vmaf(pairs[i].first), d = to_vmaf(pairs[i].second);
    ASSERT_EQ(vmaf_read_pictures(vmaf, &r, &d, i), 0);
    if (i > 0) {
      EXPECT_EQ(vmaf_score_at_index(vmaf, model, &v, i - 1), 0) << i;
    }
    EXPECT_EQ(vmaf_score_at_index(vmaf, model, &v, i), -EINVAL) << "motion2 needs frame " << i + 1;
  }
  ASSERT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);
  EXPECT_EQ(vmaf_score_at_index(vmaf, model, &v, 3), 0);
  EXPECT_EQ(vmaf_feature_score_at_index(vmaf, "psnr_y", &v, 3), 0);
  vmaf_model_destroy(model);
  vmaf_close(vmaf);
}

// Model flags and overloads by extractor name equal libvmaf's
// --model ...:enable_transform:disable_clip:adm.option=value.
TEST(LibvmafCompat, FeatureOverloadEqualsModelSpec) {
  const VideoFormat f{80, 64, 8, ChromaFormat::k444};
  const auto pairs = synthetic_pairs(f, 3);
  JobConfig config;
  config.models.push_back(load_model_spec(
      "version=vmaf_v0.6.1:name=phone:enable_transform:disable_clip:adm.adm_enhn_gain_limit=1.2"));
  Job job(config);
  for (const auto& [r, d] : pairs) job.submit(view_of(r), view_of(d));
  const JobResult expected = job.finish();

  VmafContext* vmaf = nullptr;
  ASSERT_EQ(vmaf_init(&vmaf, quiet_config()), 0);
  VmafModel* model = nullptr;
  VmafModelConfig mc{"phone", VMAF_MODEL_FLAG_ENABLE_TRANSFORM | VMAF_MODEL_FLAG_DISABLE_CLIP};
  ASSERT_EQ(vmaf_model_load(&model, &mc, "vmaf_v0.6.1"), 0);
  VmafFeatureDictionary* d = nullptr;
  ASSERT_EQ(vmaf_feature_dictionary_set(&d, "adm_enhn_gain_limit", "1.20"), 0);
  ASSERT_EQ(vmaf_model_feature_overload(model, "adm", d), 0);  // takes d
  VmafFeatureDictionary* unused = nullptr;
  ASSERT_EQ(vmaf_feature_dictionary_set(&unused, "enable_chroma", "false"), 0);
  EXPECT_EQ(vmaf_model_feature_overload(model, "psnr", unused), 0) << "not used: no change";
  ASSERT_EQ(vmaf_use_features_from_model(vmaf, model), 0);
  for (unsigned i = 0; i < pairs.size(); ++i) {
    VmafPicture r = to_vmaf(pairs[i].first), dd = to_vmaf(pairs[i].second);
    ASSERT_EQ(vmaf_read_pictures(vmaf, &r, &dd, i), 0);
  }
  ASSERT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);
  expect_equal_to_job(vmaf, expected, 1, 3 * 12);
  // The flags matter: the transformed score differs from the plain model's.
  JobConfig plain;
  plain.models.push_back(load_model_spec("version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.2"));
  Job plain_job(plain);
  for (const auto& [r, dd] : pairs) plain_job.submit(view_of(r), view_of(dd));
  const JobResult plain_result = plain_job.finish();
  double phone = 0;
  ASSERT_EQ(vmaf_score_at_index(vmaf, model, &phone, 1), 0);
  EXPECT_NE(phone, *plain_result.features.get("vmaf", 1));
  vmaf_model_destroy(model);
  vmaf_close(vmaf);
}

TEST(LibvmafCompat, ImportedScores) {
  const VideoFormat f{64, 48, 8, ChromaFormat::k420};
  const auto pairs = synthetic_pairs(f, 2);
  VmafContext* vmaf = nullptr;
  ASSERT_EQ(vmaf_init(&vmaf, quiet_config()), 0);
  ASSERT_EQ(vmaf_use_feature(vmaf, "psnr", nullptr), 0);
  ASSERT_EQ(vmaf_import_feature_score(vmaf, "my_metric", 0.25, 0), 0);
  for (unsigned i = 0; i < 2; ++i) {
    VmafPicture r = to_vmaf(pairs[i].first), d = to_vmaf(pairs[i].second);
    ASSERT_EQ(vmaf_read_pictures(vmaf, &r, &d, i), 0);
  }
  EXPECT_EQ(vmaf_import_feature_score(vmaf, "psnr_y", 1.0, 0), -EINVAL) << "computed here";
  ASSERT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);
  ASSERT_EQ(vmaf_import_feature_score(vmaf, "my_metric", 0.75, 1), 0);
  double v = 0;
  ASSERT_EQ(vmaf_feature_score_pooled(vmaf, "my_metric", VMAF_POOL_METHOD_MEAN, &v, 0, 1), 0);
  EXPECT_EQ(v, 0.5);
  const auto path = write_temp("libvmaf_imported.csv", "");
  ASSERT_EQ(vmaf_write_output(vmaf, path.c_str(), VMAF_OUTPUT_FORMAT_CSV), 0);
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_NE(header.find("my_metric"), std::string::npos) << header;
  std::filesystem::remove(path);
  vmaf_close(vmaf);
}

TEST(LibvmafCompat, Dictionary) {
  VmafFeatureDictionary* d = nullptr;
  EXPECT_EQ(vmaf_feature_dictionary_set(nullptr, "a", "b"), -EINVAL);
  EXPECT_EQ(vmaf_feature_dictionary_set(&d, nullptr, "b"), -EINVAL);
  EXPECT_EQ(vmaf_feature_dictionary_set(&d, "a", nullptr), -EINVAL);
  EXPECT_EQ(d, nullptr);
  ASSERT_EQ(vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "2"), 0);
  ASSERT_EQ(vmaf_feature_dictionary_set(&d, "vif_enhn_gain_limit", "1.50"), 0);  // overwrites
  VmafContext* vmaf = nullptr;
  ASSERT_EQ(vmaf_init(&vmaf, quiet_config()), 0);
  ASSERT_EQ(vmaf_use_feature(vmaf, "vif", d), 0);
  VmafPicture r{}, dist{};
  ASSERT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 64, 48), 0);
  ASSERT_EQ(vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, 64, 48), 0);
  static_cast<unsigned char*>(dist.data[0])[5] = 9;
  ASSERT_EQ(vmaf_read_pictures(vmaf, &r, &dist, 0), 0);
  ASSERT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);
  double v = 0;
  // Emitted names carry the last value, normalised as libvmaf does ("1.50" -> "1.5").
  EXPECT_EQ(vmaf_feature_score_at_index(vmaf, "integer_vif_scale0_egl_1.5", &v, 0), 0);
  EXPECT_EQ(vmaf_feature_score_at_index(vmaf, "integer_vif_scale0", &v, 0), -EINVAL);
  vmaf_close(vmaf);
  VmafFeatureDictionary* empty = nullptr;
  EXPECT_EQ(vmaf_feature_dictionary_free(&empty), 0);
  EXPECT_EQ(vmaf_feature_dictionary_free(nullptr), -EINVAL);
}

// Bad calls return libvmaf's error codes (negative errno) and never crash;
// pictures of failed reads stay the caller's.
TEST(LibvmafCompat, BadCalls) {
  VmafConfiguration cfg = quiet_config();
  double v = 0;
  VmafModelCollectionScore s{};
  EXPECT_EQ(vmaf_init(nullptr, cfg), -EINVAL);
  EXPECT_EQ(vmaf_close(nullptr), -EINVAL);
  EXPECT_EQ(vmaf_use_feature(nullptr, "psnr", nullptr), -EINVAL);
  EXPECT_EQ(vmaf_use_features_from_model(nullptr, nullptr), -EINVAL);
  EXPECT_EQ(vmaf_use_features_from_model_collection(nullptr, nullptr), -EINVAL);
  EXPECT_EQ(vmaf_read_pictures(nullptr, nullptr, nullptr, 0), -EINVAL);
  EXPECT_EQ(vmaf_score_at_index(nullptr, nullptr, &v, 0), -EINVAL);
  EXPECT_EQ(vmaf_score_pooled(nullptr, nullptr, VMAF_POOL_METHOD_MEAN, &v, 0, 0), -EINVAL);
  EXPECT_EQ(vmaf_feature_score_at_index(nullptr, "x", &v, 0), -EINVAL);
  EXPECT_EQ(vmaf_feature_score_pooled(nullptr, "x", VMAF_POOL_METHOD_MEAN, &v, 0, 0), -EINVAL);
  EXPECT_EQ(vmaf_score_at_index_model_collection(nullptr, nullptr, &s, 0), -EINVAL);
  EXPECT_EQ(vmaf_score_pooled_model_collection(nullptr, nullptr, VMAF_POOL_METHOD_MEAN, &s, 0, 0),
            -EINVAL);
  EXPECT_EQ(vmaf_write_output(nullptr, "x", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
  EXPECT_EQ(vmaf_import_feature_score(nullptr, "x", 1, 0), -EINVAL);
  EXPECT_EQ(vmaf_preallocate_pictures(nullptr, VmafPictureConfiguration{}), -EINVAL);
  EXPECT_EQ(vmaf_fetch_preallocated_picture(nullptr, nullptr), -EINVAL);
  EXPECT_EQ(vmaf_picture_unref(nullptr), -EINVAL);
  VmafPicture zero{};
  EXPECT_EQ(vmaf_picture_unref(&zero), -EINVAL);
  vmaf_model_destroy(nullptr);
  vmaf_model_collection_destroy(nullptr);

  // Models.
  VmafModel* model = nullptr;
  VmafModelCollection* collection = nullptr;
  VmafModelConfig mc{};
  EXPECT_EQ(vmaf_model_load(nullptr, &mc, "vmaf_v0.6.1"), -EINVAL);
  EXPECT_EQ(vmaf_model_load(&model, nullptr, "vmaf_v0.6.1"), -EINVAL);
  EXPECT_EQ(vmaf_model_load(&model, &mc, nullptr), -EINVAL);
  EXPECT_EQ(vmaf_model_load(&model, &mc, "vmaf_v9"), -EINVAL);
  EXPECT_EQ(vmaf_model_load_from_path(&model, &mc, "/nonexistent/model.json"), -EINVAL);
  EXPECT_EQ(vmaf_model_collection_load(&model, &collection, &mc, "vmaf_v0.6.1"), -EINVAL)
      << "not a collection";
  EXPECT_EQ(model, nullptr);
  EXPECT_EQ(collection, nullptr);
  EXPECT_EQ(vmaf_model_collection_load(&model, nullptr, &mc, "vmaf_b_v0.6.3"), -EINVAL);
  EXPECT_EQ(vmaf_model_feature_overload(nullptr, "adm", nullptr), -EINVAL);
  EXPECT_EQ(vmaf_model_collection_feature_overload(nullptr, nullptr, "adm", nullptr), -EINVAL);
  ASSERT_EQ(vmaf_model_load(&model, &mc, "vmaf_v0.6.1"), 0);
  EXPECT_EQ(vmaf_model_feature_overload(model, "adm", nullptr), -EINVAL);
  VmafModel* same_name = nullptr;
  ASSERT_EQ(vmaf_model_load(&same_name, &mc, "vmaf_4k_v0.6.1"), 0);

  // Context.
  cfg.log_level = static_cast<VmafLogLevel>(77);  // clamped, not undefined
  cfg.n_subsample = 0;                            // as 1
  VmafContext* vmaf = nullptr;
  ASSERT_EQ(vmaf_init(&vmaf, cfg), 0);
  vmaf_close(vmaf);
  ASSERT_EQ(vmaf_init(&vmaf, quiet_config()), 0);
  EXPECT_EQ(vmaf_use_feature(vmaf, nullptr, nullptr), -EINVAL);
  VmafFeatureDictionary* bad = nullptr;
  ASSERT_EQ(vmaf_feature_dictionary_set(&bad, "no_such_option", "1"), 0);
  EXPECT_EQ(vmaf_use_feature(vmaf, "psnr", bad), -EINVAL) << "unknown option";
  EXPECT_EQ(vmaf_feature_dictionary_free(&bad), 0) << "the dictionary stays the caller's";
  EXPECT_EQ(vmaf_use_feature(vmaf, "no_such_feature", nullptr), -EINVAL);
  EXPECT_EQ(vmaf_use_features_from_model(vmaf, nullptr), -EINVAL);
  ASSERT_EQ(vmaf_use_features_from_model(vmaf, model), 0);
  EXPECT_EQ(vmaf_use_features_from_model(vmaf, same_name), -EINVAL) << "two models named vmaf";
  EXPECT_EQ(vmaf_score_at_index(vmaf, same_name, &v, 0), -EINVAL) << "not registered";
  EXPECT_EQ(vmaf_write_output(vmaf, "/tmp/never.json", VMAF_OUTPUT_FORMAT_JSON), -EINVAL)
      << "before the flush";
  EXPECT_EQ(vmaf_score_at_index(vmaf, model, &v, 0), -EINVAL) << "no frame yet";
  EXPECT_EQ(vmaf_score_at_index(vmaf, model, nullptr, 0), -EINVAL);

  // Pictures.
  VmafPicture r{}, d{}, small{}, deep{};
  EXPECT_EQ(vmaf_picture_alloc(nullptr, VMAF_PIX_FMT_YUV420P, 8, 64, 48), -EINVAL);
  EXPECT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_UNKNOWN, 8, 64, 48), -EINVAL);
  EXPECT_EQ(vmaf_picture_alloc(&r, static_cast<VmafPixelFormat>(99), 8, 64, 48), -EINVAL);
  EXPECT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 7, 64, 48), -EINVAL);
  EXPECT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 17, 64, 48), -EINVAL);
  EXPECT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 0, 48), -EINVAL);
  EXPECT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, UINT_MAX, UINT_MAX), -EINVAL);
  ASSERT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 65, 47), 0);
  EXPECT_EQ(r.w[1], 33u) << "chroma rounds up";
  EXPECT_EQ(r.h[1], 24u);
  ASSERT_EQ(vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 65, 47), 0);
  ASSERT_EQ(vmaf_picture_alloc(&small, VMAF_PIX_FMT_YUV420P, 8, 64, 47), 0);
  ASSERT_EQ(vmaf_picture_alloc(&deep, VMAF_PIX_FMT_YUV420P, 9, 65, 47), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, nullptr, 0), -EINVAL);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &small, 0), -EINVAL) << "sizes differ";
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &deep, 0), -EINVAL) << "9 bits";
  EXPECT_EQ(vmaf_read_pictures(vmaf, &deep, &deep, 0), -EINVAL) << "9 bits";
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &d, 1), -EINVAL) << "index 0 expected";
  VmafPicture tampered = r;
  tampered.w[1] = 32;  // libvmaf's rounded-down chroma: too few samples
  EXPECT_EQ(vmaf_read_pictures(vmaf, &tampered, &d, 0), -EINVAL);
  tampered = r;
  tampered.data[2] = nullptr;
  EXPECT_EQ(vmaf_read_pictures(vmaf, &tampered, &d, 0), -EINVAL);
  tampered = r;
  tampered.stride[0] = 10;
  EXPECT_EQ(vmaf_read_pictures(vmaf, &tampered, &d, 0), -EINVAL);
  tampered = r;
  std::memset(&tampered.pix_fmt, 0x7f, sizeof tampered.pix_fmt);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &tampered, &d, 0), -EINVAL);
  ASSERT_NE(r.ref, nullptr) << "failed reads leave the pictures to the caller";
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &d, 0), 0);
  EXPECT_EQ(r.ref, nullptr);
  EXPECT_EQ(vmaf_use_feature(vmaf, "psnr", nullptr), -EINVAL) << "after the first picture";
  ASSERT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 65, 47), 0);
  ASSERT_EQ(vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV422P, 8, 65, 47), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &d, 1), -EINVAL) << "formats differ";
  EXPECT_EQ(vmaf_read_pictures(vmaf, &small, &small, 1), -EINVAL) << "size changed mid-video";
  EXPECT_EQ(vmaf_picture_unref(&d), 0);
  ASSERT_EQ(vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 65, 47), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &d, 1), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);

  // After the flush.
  ASSERT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV420P, 8, 65, 47), 0);
  ASSERT_EQ(vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV420P, 8, 65, 47), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &d, 2), -EINVAL) << "read after flush";
  EXPECT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), -EINVAL) << "second flush";
  EXPECT_EQ(vmaf_score_at_index(vmaf, model, &v, 1), 0);
  EXPECT_EQ(vmaf_score_at_index(vmaf, model, &v, 2), -EINVAL) << "no frame 2";
  EXPECT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &v, 0, 2), -EINVAL);
  EXPECT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &v, 1, 0), -EINVAL);
  EXPECT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_UNKNOWN, &v, 0, 1), -EINVAL);
  EXPECT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_NB, &v, 0, 1), -EINVAL);
  EXPECT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &v, 0, UINT_MAX), -EINVAL);
  EXPECT_EQ(vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &v, 0, 1), 0);
  EXPECT_EQ(vmaf_feature_score_at_index(vmaf, "no_such_feature", &v, 0), -EINVAL);
  EXPECT_EQ(vmaf_score_at_index_model_collection(vmaf, nullptr, &s, 0), -EINVAL);
  EXPECT_EQ(vmaf_write_output(vmaf, nullptr, VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
  EXPECT_EQ(vmaf_write_output(vmaf, "/tmp/x.json", VMAF_OUTPUT_FORMAT_NONE), -EINVAL);
  EXPECT_EQ(vmaf_write_output(vmaf, "/tmp/x.json", static_cast<VmafOutputFormat>(42)), -EINVAL);
  EXPECT_EQ(vmaf_write_output(vmaf, "/nonexistent/dir/x.json", VMAF_OUTPUT_FORMAT_XML), -EINVAL);
  ::setenv("VQE_LIBVMAF_PRECISION", "lots", 1);
  const auto path = write_temp("libvmaf_bad_precision.xml", "");
  std::filesystem::remove(path);
  EXPECT_EQ(vmaf_write_output(vmaf, path.c_str(), VMAF_OUTPUT_FORMAT_XML), -EINVAL);
  EXPECT_FALSE(std::filesystem::exists(path));
  ::unsetenv("VQE_LIBVMAF_PRECISION");
  EXPECT_EQ(vmaf_write_output(vmaf, path.c_str(), VMAF_OUTPUT_FORMAT_XML), 0);
  std::filesystem::remove(path);
  EXPECT_EQ(vmaf_close(vmaf), 0);
  for (VmafPicture* p : {&r, &d, &small, &deep}) EXPECT_EQ(vmaf_picture_unref(p), 0);

  // A refused first frame (too small for float_ms_ssim) leaves the context
  // usable for a frame that fits.
  ASSERT_EQ(vmaf_init(&vmaf, quiet_config()), 0);
  ASSERT_EQ(vmaf_use_feature(vmaf, "float_ms_ssim", nullptr), 0);
  ASSERT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV444P, 8, 32, 32), 0);
  ASSERT_EQ(vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV444P, 8, 32, 32), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &d, 0), -EINVAL);
  EXPECT_EQ(vmaf_picture_unref(&r), 0);
  EXPECT_EQ(vmaf_picture_unref(&d), 0);
  ASSERT_EQ(vmaf_picture_alloc(&r, VMAF_PIX_FMT_YUV444P, 8, 192, 192), 0);
  ASSERT_EQ(vmaf_picture_alloc(&d, VMAF_PIX_FMT_YUV444P, 8, 192, 192), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, &r, &d, 0), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);
  EXPECT_EQ(vmaf_feature_score_at_index(vmaf, "float_ms_ssim", &v, 0), 0);
  EXPECT_EQ(v, 1.0);
  EXPECT_EQ(vmaf_close(vmaf), 0);

  // Flushing without pictures, and preallocated pictures.
  ASSERT_EQ(vmaf_init(&vmaf, quiet_config()), 0);
  VmafPictureConfiguration pc{};
  EXPECT_EQ(vmaf_preallocate_pictures(vmaf, pc), -EINVAL);
  EXPECT_EQ(vmaf_fetch_preallocated_picture(vmaf, &r), -EINVAL) << "nothing preallocated";
  pc.pic_params = {64, 48, 10, VMAF_PIX_FMT_YUV400P};
  pc.pic_cnt = 4;
  ASSERT_EQ(vmaf_preallocate_pictures(vmaf, pc), 0);
  ASSERT_EQ(vmaf_fetch_preallocated_picture(vmaf, &r), 0);
  EXPECT_EQ(r.bpc, 10u);
  EXPECT_EQ(r.data[1], nullptr);
  EXPECT_EQ(vmaf_picture_unref(&r), 0);
  EXPECT_EQ(vmaf_read_pictures(vmaf, nullptr, nullptr, 0), 0);
  EXPECT_EQ(vmaf_feature_score_at_index(vmaf, "psnr_y", &v, 0), -EINVAL);
  EXPECT_EQ(vmaf_write_output(vmaf, "/tmp/never.json", VMAF_OUTPUT_FORMAT_JSON), -EINVAL);
  EXPECT_EQ(vmaf_close(vmaf), 0);

  vmaf_model_destroy(model);
  vmaf_model_destroy(same_name);
}

// Many contexts and models opened and closed (LeakSanitizer in the
// sanitizer build).
TEST(LibvmafCompat, OpenCloseCycles) {
  const VideoFormat f{64, 48, 8, ChromaFormat::k420};
  const auto pairs = synthetic_pairs(f, 2);
  for (int cycle = 0; cycle < 20; ++cycle) {
    VmafContext* vmaf = nullptr;
    ASSERT_EQ(vmaf_init(&vmaf, quiet_config(cycle % 3)), 0);
    VmafModel* model = nullptr;
    VmafModel* main = nullptr;
    VmafModelCollection* collection = nullptr;
    VmafModelConfig mc{};
    VmafModelConfig mb{"vmaf_b", 0};
    ASSERT_EQ(vmaf_model_load(&model, &mc, "vmaf_v0.6.1"), 0);
    ASSERT_EQ(vmaf_model_collection_load(&main, &collection, &mb, "vmaf_b_v0.6.3"), 0);
    ASSERT_EQ(vmaf_use_features_from_model(vmaf, model), 0);
    ASSERT_EQ(vmaf_use_features_from_model(vmaf, main), 0);
    ASSERT_EQ(vmaf_use_features_from_model_collection(vmaf, collection), 0);
    if (cycle % 2) {  // half the cycles close mid-video
      VmafPicture r = to_vmaf(pairs[0].first), d = to_vmaf(pairs[0].second);
      ASSERT_EQ(vmaf_read_pictures(vmaf, &r, &d, 0), 0);
    }
    vmaf_model_destroy(model);
    vmaf_model_destroy(main);
    vmaf_model_collection_destroy(collection);
    ASSERT_EQ(vmaf_close(vmaf), 0);
  }
}

}  // namespace
}  // namespace vqe::test
