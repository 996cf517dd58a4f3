// SPDX-License-Identifier: BSD-2-Clause
// GPU vs CPU parity, for every GPU backend of the build (CUDA, Vulkan), from
// one table of cases: feature by feature and frame by frame at full
// precision: every reference pair of ../shared/testdata/reference, synthetic
// frames at 8/10/12/16 bits with non-zero low bits, odd sizes and sizes near
// the filters' support (refusals must match), flat and black frames (no
// NaN), 1-, 2- and 3-frame videos, mixed CPU+GPU jobs with threads and
// subsampling; per backend: CUDA's three upload paths and serial vs
// concurrent streams, Vulkan's batch sizes. Each backend's tests skip when it
// has no device (Mesa's lavapipe is a Vulkan device on any machine).
//
// To add an extractor, add rows to kParityCases: cases whose extractor has no
// compute on the backend under test are skipped. $VQE_PARITY_ONLY=TEXT keeps
// only the cases whose extractor name contains TEXT (e.g. "ssim" on a
// device machine with little time: every case compiles its pipelines anew).
// Omitted cases are not counted; the totals line says which ran.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "backend/cuda/backend.h"
#include "backend/cuda/device.h"
#include "backend/vulkan/backend.h"
#include "backend/vulkan/device.h"
#include "test_util.h"
#include "vqe/error.h"

namespace {

using vqe::FeatureCollector;
using vqe::OptionValues;
using vqe::Picture;
using vqe::VideoFormat;
namespace fs = std::filesystem;

struct ParityCase {
  std::string extractor;
  OptionValues options;
  /// true: every value must be bit-identical (integer features, and float
  /// features whose CUDA kernel reproduces the CPU's operation order);
  /// false: within kFloatTolerance relative on CUDA (whose SSIM map sums
  /// take a tree order). On Vulkan every case must be bit-identical.
  bool exact = true;
};

constexpr double kFloatTolerance = 1e-6;

// The table. Extractors without a compute on the backend under test are
// skipped.
const std::vector<ParityCase> kParityCases = {
    {"psnr", {}, true},
    {"psnr", {{"enable_mse", "true"}, {"enable_apsnr", "true"}}, true},
    {"psnr", {{"reduced_hbd_peak", "true"}, {"min_sse", "0.5"}, {"enable_mse", "true"}}, true},
    {"psnr", {{"enable_chroma", "false"}}, true},
    {"float_moment", {}, true},
    {"float_psnr", {}, true},
    {"float_ansnr", {}, true},
    {"float_motion", {}, true},
    {"float_motion", {{"motion_force_zero", "true"}}, true},
    {"float_motion", {{"motion_add_scale1", "true"}, {"debug", "false"}}, true},
    {"float_motion", {{"motion_filter_size", "3"}, {"motion_fps_weight", "1.5"}}, true},
    {"float_motion",
     {{"motion_add_uv", "true"}, {"motion_filter_size", "1"}, {"motion_blend_factor", "0.3"},
      {"motion_blend_offset", "2"}},
     true},
    {"motion", {}, true},
    {"motion", {{"motion_five_frame_window", "true"}, {"motion_moving_average", "true"}}, true},
    {"motion",
     {{"debug", "true"}, {"motion_fps_weight", "2.5"}, {"motion_blend_factor", "0.5"},
      {"motion_blend_offset", "3"}, {"motion_max_val", "20"}},
     true},
    {"motion", {{"motion_legacy", "true"}, {"debug", "true"}}, true},
    {"motion", {{"motion_legacy", "true"}, {"motion_five_frame_window", "true"}}, true},
    {"motion", {{"motion_force_zero", "true"}}, true},
    {"motion_v2", {}, true},
    {"motion_v2",
     {{"motion_blend_factor", "0.5"}, {"motion_blend_offset", "2"}, {"motion_fps_weight", "1.5"},
      {"motion_max_val", "8"}, {"motion_moving_average", "true"}},
     true},
    {"motion_v2", {{"motion_force_zero", "true"}}, true},
    {"vif", {}, true},
    {"vif", {{"vif_enhn_gain_limit", "1.0"}}, true},
    {"adm", {}, true},
    {"adm", {{"adm_enhn_gain_limit", "1.0"}}, true},
    {"float_ssim", {}, false},
    {"float_ssim", {{"enable_lcs", "true"}, {"scale", "2"}}, false},
    {"float_ssim", {{"enable_db", "true"}, {"clip_db", "true"}, {"scale", "1"}}, false},
    {"float_ms_ssim", {}, false},
    {"float_ms_ssim", {{"enable_lcs", "true"}}, false},
};

std::string case_name(const ParityCase& c) {
  std::string s = c.extractor;
  for (const auto& [k, v] : c.options) s += ":" + k + "=" + v;
  return s;
}

// A GPU backend under test.
struct Backend {
  const char* name;
  vqe::JobConfig::Backend config;
  int (*device_count)();
  bool (*has)(const std::string& extractor);
  std::unique_ptr<vqe::GpuJob> (*make_job)(int device, unsigned subsample);
  /// Pixel-frames at most per reference pair (0: every frame): software
  /// devices score the first frames of the big pairs only (CI time).
  long (*pair_budget)();
};

const Backend kCudaBackend{"cuda", vqe::JobConfig::Backend::kCuda, vqe::cuda::device_count,
                           vqe::cuda::has_cuda_extractor, vqe::cuda::make_gpu_job,
                           [] { return 0L; }};
const Backend kVulkanBackend{
    "vulkan", vqe::JobConfig::Backend::kVulkan, vqe::vulkan::device_count,
    vqe::vulkan::has_vulkan_extractor, vqe::vulkan::make_vulkan_job,
    [] { return vqe::vulkan::device_is_software(0) ? 1'000'000L : 0L; }};

class GpuParity : public ::testing::TestWithParam<const Backend*> {
 protected:
  void SetUp() override;
  const Backend& backend() const { return *GetParam(); }
};

#define VQE_REQUIRE_GPU()                                                           \
  if (backend().device_count() == 0)                                                 \
  GTEST_SKIP() << "no " << backend().name << " device: skipping"

// Totals printed at the end of the run (the closing note quotes them).
struct Totals {
  std::string backend;
  long pairs = 0, synthetic_videos = 0, frames = 0, values = 0, differing = 0, refusals = 0;
  double max_rel_diff_inexact = 0;
  ~Totals() {
    if (values == 0) return;
    const char* only = std::getenv("VQE_PARITY_ONLY");
    if (only) std::cout << "[parity " << backend << "] cases of extractors matching '" << only << "' only\n";
    std::cout << "[parity " << backend << "] reference pairs: " << pairs << ", synthetic videos: " << synthetic_videos
              << ", frames scored (per case): " << frames << ", values compared: " << values
              << ", differing values: " << differing << ", matching refusals: " << refusals
              << ", max rel diff (tolerance cases): " << max_rel_diff_inexact << "\n";
  }
};
Totals g_cuda_totals{"cuda"}, g_vulkan_totals{"vulkan"};
Totals* g_current = &g_cuda_totals;
Totals& totals() { return *g_current; }

void GpuParity::SetUp() {
  g_current = backend().config == vqe::JobConfig::Backend::kCuda ? &g_cuda_totals : &g_vulkan_totals;
}

std::string fmt_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Compares every per-frame and aggregate value; reports each difference.
void compare(const FeatureCollector& cpu, const FeatureCollector& gpu, const ParityCase& c,
             const std::string& what) {
  const auto names = cpu.names();
  // Vulkan reproduces every CPU sum in the CPU's order: no tolerance.
  const bool exact = c.exact || &totals() == &g_vulkan_totals;
  ASSERT_EQ(names, gpu.names()) << what << ": feature names differ";
  ASSERT_EQ(cpu.frame_count(), gpu.frame_count()) << what;
  int reported = 0;
  for (const std::string& name : names)
    for (unsigned i = 0; i < cpu.frame_count(); ++i) {
      const auto a = cpu.get(name, i);
      const auto b = gpu.get(name, i);
      ASSERT_EQ(a.has_value(), b.has_value()) << what << " " << name << " frame " << i;
      if (!a) continue;
      ++totals().values;
      EXPECT_FALSE(std::isnan(*b)) << what << " " << name << " frame " << i << " is NaN";
      bool ok = same_bits(*a, *b);
      if (!ok && !exact) {
        const double rel = std::fabs(*a - *b) / std::max(std::fabs(*a), 1e-300);
        totals().max_rel_diff_inexact = std::max(totals().max_rel_diff_inexact, rel);
        ok = rel <= kFloatTolerance;
      }
      if (!ok) {
        ++totals().differing;
        if (reported++ < 10)
          ADD_FAILURE() << what << ": " << name << " frame " << i << ": cpu " << fmt_double(*a)
                        << " gpu " << fmt_double(*b);
      }
    }
  const auto ca = cpu.aggregates(), ga = gpu.aggregates();
  ASSERT_EQ(ca.size(), ga.size()) << what << ": aggregates differ";
  for (std::size_t k = 0; k < ca.size(); ++k) {
    ++totals().values;
    EXPECT_EQ(ca[k].first, ga[k].first) << what;
    if (!same_bits(ca[k].second, ga[k].second)) {
      ++totals().differing;
      ADD_FAILURE() << what << ": aggregate " << ca[k].first << ": cpu "
                    << fmt_double(ca[k].second) << " gpu " << fmt_double(ga[k].second);
    }
  }
}

// Runs `c` on the GPU over in-memory frames (the CPU side is
// vqe::test::run_on_pictures).
FeatureCollector run_gpu_on_pictures(const Backend& b, const ParityCase& c,
                                     const std::vector<std::pair<Picture, Picture>>& frames) {
  auto job = b.make_job(0, 1);
  const std::size_t h = job->add(c.extractor, c.options);
  job->init(frames.at(0).first.format());
  FeatureCollector out;
  for (const std::string& n : job->feature_names(h)) out.declare(n);
  for (unsigned i = 0; i < frames.size(); ++i)
    job->submit(frames[i].first, frames[i].second, i, out);
  job->finish(out);
  return out;
}

std::vector<ParityCase> active_cases(const Backend& b) {
  const char* only = std::getenv("VQE_PARITY_ONLY");
  std::vector<ParityCase> out;
  for (const ParityCase& c : kParityCases)
    if (b.has(c.extractor) && (!only || c.extractor.find(only) != std::string::npos))
      out.push_back(c);
  return out;
}

TEST_P(GpuParity, ReferencePairs) {
  VQE_REQUIRE_GPU();
  VQE_REQUIRE_SHARED(shared);
  const fs::path refdir = shared / "testdata" / "reference";
  const fs::path clips = shared / "testdata" / "clips";
  std::vector<fs::path> jsons;
  for (const auto& e : fs::directory_iterator(refdir))
    if (e.path().extension() == ".json") jsons.push_back(e.path());
  std::sort(jsons.begin(), jsons.end());
  ASSERT_FALSE(jsons.empty());
  for (const fs::path& j : jsons) {
    nlohmann::json doc;
    std::ifstream(j) >> doc;
    const fs::path ref = clips / doc.at("reference").get<std::string>();
    const fs::path dist = clips / doc.at("distorted").get<std::string>();
    if (!fs::exists(ref) || !fs::exists(dist)) {
      std::cout << "[parity] " << j.filename().string() << ": clips not present, skipped\n";
      continue;
    }
    ++totals().pairs;
    bool counted_frames = false;
    // Frames scored: all, or the first ones within the backend's budget.
    unsigned frame_cnt = 0;
    if (const long budget = backend().pair_budget(); budget > 0) {
      const auto params = vqe::test::raw_params_from_name(ref);
      auto reader = vqe::open_video(ref.string(), params ? &*params : nullptr);
      const long pixels = static_cast<long>(reader->format().width) * reader->format().height;
      frame_cnt = static_cast<unsigned>(std::max(2L, budget / std::max(pixels, 1L)));
    }
    for (const ParityCase& c : active_cases(backend())) {
      const std::string what = j.stem().string() + " " + case_name(c);
      vqe::JobConfig cpu_cfg, gpu_cfg;
      cpu_cfg.features = gpu_cfg.features = {{c.extractor, c.options}};
      cpu_cfg.frame_cnt = gpu_cfg.frame_cnt = frame_cnt;
      gpu_cfg.backend = backend().config;
      std::string cpu_err, gpu_err;
      vqe::JobResult cpu, gpu;
      try {
        cpu = vqe::test::run_pair(ref, dist, cpu_cfg);
      } catch (const vqe::Error& e) {
        cpu_err = e.what();
      }
      try {
        gpu = vqe::test::run_pair(ref, dist, gpu_cfg);
      } catch (const vqe::Error& e) {
        gpu_err = e.what();
      }
      EXPECT_EQ(cpu_err, gpu_err) << what << ": refusals differ";
      if (!cpu_err.empty() || !gpu_err.empty()) {
        if (cpu_err == gpu_err) ++totals().refusals;
        continue;
      }
      EXPECT_EQ(gpu.gpu_extractors, std::vector<std::string>{c.extractor}) << what;
      if (!counted_frames) {
        totals().frames += cpu.frames;
        counted_frames = true;
      }
      compare(cpu.features, gpu.features, c, what);
    }
  }
}

struct SyntheticSpec {
  int width, height, bpc;
  vqe::ChromaFormat chroma;
  vqe::test::Fill fill;
  int frames;
  int amount;  // distortion amplitude; 0: independent frames; -1: identical copy;
               // -2: both frames black (all zero)
};

void run_synthetic(const Backend& b, const std::vector<SyntheticSpec>& specs) {
  std::uint32_t seed = 1;
  for (const SyntheticSpec& s : specs) {
    VideoFormat f;
    f.width = s.width;
    f.height = s.height;
    f.bit_depth = s.bpc;
    f.chroma = s.chroma;
    std::vector<std::pair<Picture, Picture>> frames;
    for (int i = 0; i < s.frames; ++i) {
      Picture ref =
          s.amount == -2 ? Picture(f) : vqe::test::synthetic_picture(f, seed++, s.fill);
      Picture dist = s.amount > 0     ? vqe::test::distort_picture(ref, seed++, s.amount)
                     : s.amount == -2 ? Picture(f)
                     : s.amount < 0   ? vqe::test::distort_picture(ref, seed++, 0)
                                      : vqe::test::synthetic_picture(f, seed++, s.fill);
      frames.emplace_back(std::move(ref), std::move(dist));
    }
    ++totals().synthetic_videos;
    totals().frames += s.frames;
    for (const ParityCase& c : active_cases(b)) {
      const std::string what = case_name(c) + " @" + std::to_string(s.width) + "x" +
                               std::to_string(s.height) + " " + std::to_string(s.bpc) + "-bit " +
                               vqe::to_string(s.chroma) + " fill " +
                               std::to_string(static_cast<int>(s.fill)) + " frames " +
                               std::to_string(s.frames) + " amount " + std::to_string(s.amount);
      std::string cpu_err, gpu_err;
      FeatureCollector cpu, gpu;
      try {
        cpu = vqe::test::run_on_pictures(c.extractor, c.options, frames);
      } catch (const vqe::Error& e) {
        cpu_err = e.what();
      }
      try {
        gpu = run_gpu_on_pictures(b, c, frames);
      } catch (const vqe::Error& e) {
        gpu_err = e.what();
      }
      EXPECT_EQ(cpu_err, gpu_err) << what << ": refusals differ";
      if (!cpu_err.empty() || !gpu_err.empty()) {
        if (cpu_err == gpu_err) ++totals().refusals;
        continue;
      }
      compare(cpu, gpu, c, what);
    }
  }
}

TEST_P(GpuParity, BitDepthsWithLowBits) {
  VQE_REQUIRE_GPU();
  std::vector<SyntheticSpec> specs;
  for (int bpc : {8, 10, 12, 16})
    for (auto fill : {vqe::test::Fill::random, vqe::test::Fill::smooth}) {
      specs.push_back({96, 64, bpc, vqe::ChromaFormat::k420, fill, 3, 0});
      specs.push_back({179, 101, bpc, vqe::ChromaFormat::k420, fill, 3, bpc == 8 ? 9 : 40});
    }
  // A full 1080p frame on GPUs; half that size on software devices (CI time).
  if (backend().pair_budget() > 0)
    specs.push_back({960, 540, 10, vqe::ChromaFormat::k420, vqe::test::Fill::smooth, 2, 30});
  else
    specs.push_back({1920, 1080, 10, vqe::ChromaFormat::k420, vqe::test::Fill::smooth, 2, 30});
  specs.push_back({640, 360, 16, vqe::ChromaFormat::k444, vqe::test::Fill::random, 3, 0});
  specs.push_back({256, 144, 12, vqe::ChromaFormat::k422, vqe::test::Fill::smooth, 3, 20});
  specs.push_back({128, 72, 8, vqe::ChromaFormat::k400, vqe::test::Fill::smooth, 3, 5});
  run_synthetic(backend(), specs);
}

TEST_P(GpuParity, OddAndTinySizes) {
  VQE_REQUIRE_GPU();
  std::vector<SyntheticSpec> specs;
  const int sizes[][2] = {{1, 1},   {2, 2},   {3, 3},   {4, 5},   {5, 4},   {7, 9},
                          {8, 8},   {9, 7},   {15, 17}, {16, 16}, {17, 15}, {31, 33},
                          {32, 32}, {33, 17}, {33, 33}, {35, 21}, {63, 65}, {65, 63},
                          {127, 3}, {3, 127}, {257, 129}};
  const int depths[] = {8, 10, 12, 16};
  int k = 0;
  for (const auto& s : sizes) {
    const int bpc = depths[k++ % 4];
    specs.push_back({s[0], s[1], bpc, vqe::ChromaFormat::k420, vqe::test::Fill::smooth, 3, 7});
    specs.push_back({s[0], s[1], 8, vqe::ChromaFormat::k444, vqe::test::Fill::random, 2, 0});
  }
  run_synthetic(backend(), specs);
}

TEST_P(GpuParity, FlatAndBlackFramesGiveNoNaN) {
  VQE_REQUIRE_GPU();
  std::vector<SyntheticSpec> specs;
  for (int bpc : {8, 10, 12, 16}) {
    specs.push_back({64, 64, bpc, vqe::ChromaFormat::k420, vqe::test::Fill::flat, 3, 0});
    specs.push_back({64, 48, bpc, vqe::ChromaFormat::k420, vqe::test::Fill::max_value, 2, 0});
    specs.push_back({48, 32, bpc, vqe::ChromaFormat::k420, vqe::test::Fill::flat, 3, -1});
    specs.push_back({40, 24, bpc, vqe::ChromaFormat::k420, vqe::test::Fill::flat, 3, -2});
  }
  run_synthetic(backend(), specs);
}

TEST_P(GpuParity, OneTwoThreeFrameVideos) {
  VQE_REQUIRE_GPU();
  std::vector<SyntheticSpec> specs;
  for (int n : {1, 2, 3, 4, 6})
    specs.push_back({80, 48, 10, vqe::ChromaFormat::k420, vqe::test::Fill::smooth, n, 25});
  run_synthetic(backend(), specs);
}

// The ways frames reach the device (staging copy, page-locked pictures,
// preloaded pairs) and serial vs concurrent streams all give the CPU's
// values; repeated runs are deterministic (each is compared bit for bit).
TEST_P(GpuParity, UploadPathsStreamsAndDeterminism) {
  if (backend().config != vqe::JobConfig::Backend::kCuda) GTEST_SKIP() << "CUDA only";
  VQE_REQUIRE_GPU();
  VideoFormat f;
  f.width = 333;
  f.height = 187;
  f.bit_depth = 10;
  f.chroma = vqe::ChromaFormat::k420;
  std::vector<std::pair<Picture, Picture>> frames;
  for (std::uint32_t i = 0; i < 11; ++i) {
    Picture ref = vqe::test::synthetic_picture(f, 100 + i, vqe::test::Fill::smooth);
    Picture dist = vqe::test::distort_picture(ref, 200 + i, 33);
    frames.emplace_back(std::move(ref), std::move(dist));
  }
  for (const ParityCase& c : active_cases(backend())) {
    const FeatureCollector cpu = vqe::test::run_on_pictures(c.extractor, c.options, frames);
    for (int path = 0; path < 4; ++path) {
      auto job = vqe::cuda::make_gpu_job(0, 1);
      const std::size_t h = job->add(c.extractor, c.options);
      job->init(f);
      vqe::cuda::bench_hooks(*job).enable_kernel_timing(true);
      if (path == 3) vqe::cuda::bench_hooks(*job).set_concurrent_frames(false);
      FeatureCollector out;
      for (const std::string& n : job->feature_names(h)) out.declare(n);
      if (path == 1)
        for (auto& [r, d] : frames) {
          job->register_host(r);
          job->register_host(d);
        }
      if (path == 2) {
        std::vector<std::pair<const Picture*, const Picture*>> ptrs;
        for (auto& [r, d] : frames) ptrs.emplace_back(&r, &d);
        vqe::cuda::bench_hooks(*job).preload(ptrs);
      }
      for (unsigned i = 0; i < frames.size(); ++i) {
        if (path == 2)
          vqe::cuda::bench_hooks(*job).submit_preloaded(i, i, out);
        else
          job->submit(frames[i].first, frames[i].second, i, out);
      }
      job->finish(out);
      const auto times = vqe::cuda::bench_hooks(*job).kernel_times_ms();
      ASSERT_EQ(times.size(), 1u);
      EXPECT_GE(times[0].second, 0.0) << case_name(c);
      EXPECT_GT(job->device_peak_bytes(), 0u);
      compare(cpu, out, c, case_name(c) + " upload path " + std::to_string(path));
    }
  }
}

// A job mixing GPU and CPU extractors, with threads and subsampling, gives
// the CPU-only job's values; extractors without a CUDA twin stay on the CPU.
TEST_P(GpuParity, MixedJobThreadsSubsample) {
  VQE_REQUIRE_GPU();
  VQE_REQUIRE_SHARED(shared);
  const fs::path clips = shared / "testdata" / "clips";
  const fs::path ref = clips / "ref" / "carphone_176x144_420p8_20f.y4m";
  const fs::path dist = clips / "dist" / "carphone_176x144_420p8_20f__x264_crf35.y4m";
  if (!fs::exists(ref) || !fs::exists(dist)) GTEST_SKIP() << "carphone clips not present";
  for (unsigned subsample : {1u, 3u})
    for (unsigned threads : {1u, 3u}) {
      vqe::JobConfig cpu_cfg;
      cpu_cfg.features = {{"psnr", {{"enable_apsnr", "true"}}}, {"float_ssim", {}},
                          {"motion", {}}, {"float_moment", {}}, {"float_psnr", {}},
                          {"vif", {}}, {"adm", {}}, {"float_motion", {}}, {"motion_v2", {}}};
      cpu_cfg.threads = threads;
      cpu_cfg.subsample = subsample;
      vqe::JobConfig gpu_cfg = cpu_cfg;
      gpu_cfg.backend = backend().config;
      std::vector<std::string> notes;
      gpu_cfg.on_note = [&](const std::string& n) { notes.push_back(n); };
      const vqe::JobResult cpu = vqe::test::run_pair(ref, dist, cpu_cfg);
      const vqe::JobResult gpu = vqe::test::run_pair(ref, dist, gpu_cfg);
      EXPECT_TRUE(std::find(gpu.gpu_extractors.begin(), gpu.gpu_extractors.end(), "psnr") !=
                  gpu.gpu_extractors.end());
      for (const auto& f : cpu_cfg.features)
        EXPECT_EQ(std::find(gpu.gpu_extractors.begin(), gpu.gpu_extractors.end(), f.extractor) !=
                      gpu.gpu_extractors.end(),
                  backend().has(f.extractor))
            << f.extractor;
      EXPECT_FALSE(notes.empty());
      compare(cpu.features, gpu.features, ParityCase{"mixed", {}, true},
              "mixed job threads " + std::to_string(threads) + " subsample " +
                  std::to_string(subsample));
    }
}

// A ladder whose jobs run extractors on the GPU (the shared reference
// picture is copied into each job's own slots there) gives the CPU ladder's
// values, encode by encode.
TEST_P(GpuParity, LadderEqualsCpuLadder) {
  VQE_REQUIRE_GPU();
  VQE_REQUIRE_SHARED(shared);
  const fs::path clips = shared / "testdata" / "clips";
  const fs::path ref = clips / "ref" / "carphone_176x144_420p8_20f.y4m";
  const std::vector<fs::path> encodes = {
      clips / "dist" / "carphone_176x144_420p8_20f__x264_crf35.y4m",
      clips / "dist" / "carphone_176x144_420p8_20f__x264_crf23.y4m"};
  for (const auto& p : encodes)
    if (!fs::exists(p)) GTEST_SKIP() << p << " not present";
  vqe::JobConfig cpu_cfg;
  cpu_cfg.models.push_back(vqe::Model::builtin("vmaf_v0.6.1"));
  cpu_cfg.features = {{"psnr", {}}};
  cpu_cfg.threads = 2;
  vqe::JobConfig gpu_cfg = cpu_cfg;
  gpu_cfg.backend = backend().config;
  std::vector<std::vector<vqe::LadderOutcome>> runs;
  for (const vqe::JobConfig* cfg : {&cpu_cfg, &gpu_cfg}) {
    auto reference = vqe::open_video(ref.string(), nullptr);
    std::vector<std::unique_ptr<vqe::FrameSource>> sources;
    std::vector<vqe::FrameSource*> pointers;
    for (const auto& e : encodes) {
      sources.push_back(vqe::open_video(e.string(), nullptr));
      pointers.push_back(sources.back().get());
    }
    runs.push_back(vqe::run_ladder(*reference, pointers, *cfg));
  }
  for (std::size_t i = 0; i < encodes.size(); ++i) {
    ASSERT_TRUE(runs[0][i].result && runs[1][i].result) << runs[1][i].error;
    EXPECT_FALSE(runs[1][i].result->gpu_extractors.empty());
    compare(runs[0][i].result->features, runs[1][i].result->features,
            ParityCase{"ladder", {}, true}, "ladder encode " + encodes[i].filename().string());
  }
}

// Vulkan: frames per submission (1, 3, the default 16) and the upload path
// (staging copy, or pictures imported with register_host where the device
// can) change nothing; repeated runs are deterministic (each is compared bit
// for bit); the job counts its submissions and dispatches.
TEST_P(GpuParity, VulkanBatchSizesAndDeterminism) {
  if (backend().config != vqe::JobConfig::Backend::kVulkan) GTEST_SKIP() << "Vulkan only";
  VQE_REQUIRE_GPU();
  // 133x77 frames; 179x177 for extractors that refuse those (MS-SSIM needs
  // 176x176).
  auto make = [](int width, int height) {
    VideoFormat f;
    f.width = width;
    f.height = height;
    f.bit_depth = 12;
    f.chroma = vqe::ChromaFormat::k420;
    std::vector<std::pair<Picture, Picture>> frames;
    for (std::uint32_t i = 0; i < 11; ++i) {
      Picture ref = vqe::test::synthetic_picture(f, 300 + i, vqe::test::Fill::smooth);
      Picture dist = vqe::test::distort_picture(ref, 400 + i, 33);
      frames.emplace_back(std::move(ref), std::move(dist));
    }
    return frames;
  };
  std::vector<std::pair<Picture, Picture>> small = make(133, 77), large = make(179, 177);
  for (const ParityCase& c : active_cases(backend())) {
    std::vector<std::pair<Picture, Picture>>* set = &small;
    FeatureCollector cpu;
    try {
      cpu = vqe::test::run_on_pictures(c.extractor, c.options, *set);
    } catch (const vqe::Error&) {
      set = &large;
      cpu = vqe::test::run_on_pictures(c.extractor, c.options, *set);
    }
    std::vector<std::pair<Picture, Picture>>& frames = *set;
    const VideoFormat f = frames.at(0).first.format();
    for (unsigned batch : {1u, 3u, 16u, 4u}) {
      auto job = vqe::vulkan::make_vulkan_job(0, 1);
      vqe::vulkan::bench_hooks(*job).set_batch_frames(batch);
      const std::size_t h = job->add(c.extractor, c.options);
      job->init(f);
      if (batch == 4)  // the imported-picture path
        for (auto& [r, d] : frames) {
          job->register_host(r);
          job->register_host(d);
        }
      FeatureCollector out;
      for (const std::string& n : job->feature_names(h)) out.declare(n);
      for (unsigned i = 0; i < frames.size(); ++i)
        job->submit(frames[i].first, frames[i].second, i, out);
      job->finish(out);
      const vqe::vulkan::JobStats st = vqe::vulkan::bench_hooks(*job).stats();
      EXPECT_EQ(st.frames, frames.size());
      EXPECT_EQ(st.submissions, 2 * ((frames.size() + batch - 1) / batch)) << case_name(c);
      if (c.options.count("motion_force_zero") == 0) {  // force_zero dispatches nothing
        EXPECT_GE(st.dispatches, st.submissions / 2) << case_name(c);  // one per batch at least
      }
      EXPECT_GT(job->device_bytes(), 0u);
      compare(cpu, out, c, case_name(c) + " batch " + std::to_string(batch));
    }
  }
}

std::string backend_param_name(const ::testing::TestParamInfo<const Backend*>& info) {
  return info.param->name;
}

INSTANTIATE_TEST_SUITE_P(Backends, GpuParity, ::testing::Values(&kCudaBackend, &kVulkanBackend),
                         backend_param_name);

}  // namespace
