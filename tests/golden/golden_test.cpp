// SPDX-License-Identifier: BSD-2-Clause
// Golden test: every pair in ../shared/testdata/reference, every feature VQE
// implements, per frame and pooled, against libvmaf 3.2.0's values.
// Integer-pipeline features must be equal; float features within 1e-6
// relative. Prints a coverage table and fails on any difference.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "core/simd.h"
#include "golden/golden_runs.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe::test {
namespace {

namespace fs = std::filesystem;

enum class Status { kExact, kWithinTolerance, kDiffers, kNotImplemented, kNoReference, kRefusedLikeReference };

char status_code(Status s) {
  switch (s) {
    case Status::kExact: return 'E';
    case Status::kWithinTolerance: return 'T';
    case Status::kDiffers: return 'X';
    case Status::kNotImplemented: return '-';
    case Status::kNoReference: return '.';
    case Status::kRefusedLikeReference: return 'R';
  }
  return '?';
}

std::vector<std::string> reference_files() {
  std::vector<std::string> files;
  if (auto dir = shared_dir()) {
    for (const auto& e : fs::directory_iterator(*dir / "testdata" / "reference"))
      if (e.path().extension() == ".json") files.push_back(e.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Per-pair outcome, kept for the coverage table printed after all pairs.
struct PairOutcome {
  std::map<std::string, Status> by_feature;
};
std::map<std::string, PairOutcome>& outcomes() {
  static std::map<std::string, PairOutcome> o;
  return o;
}

Status worst(Status a, Status b) {
  auto rank = [](Status s) {
    switch (s) {
      case Status::kDiffers: return 5;
      case Status::kWithinTolerance: return 3;
      case Status::kExact: return 2;
      default: return 1;
    }
  };
  return rank(a) >= rank(b) ? a : b;
}

// $VQE_CPU_LEVEL (scalar, sse4, avx2, avx512, neon) runs the whole golden test at
// that SIMD level; ctest runs it once per level (a level this CPU lacks is
// skipped). Unset: the best level.
std::optional<std::string> cpu_level_skip_reason() {
  const char* name = std::getenv("VQE_CPU_LEVEL");
  if (!name || !*name) return std::nullopt;
  const auto level = vqe::simd::parse_level(name);
  if (!level) return fmt::format("unknown VQE_CPU_LEVEL '{}'", name);
  if (!vqe::simd::is_available(*level))
    return fmt::format("this CPU does not support level {}", name);
  if (*level == vqe::simd::max_level())
    return fmt::format("level {} is this CPU's best: the default golden run covers it", name);
  return std::nullopt;
}

// The CPU level of every job: $VQE_CPU_LEVEL when it names an available
// level, else the best.
vqe::simd::Level golden_cpu_level() {
  const char* name = std::getenv("VQE_CPU_LEVEL");
  const auto level = name ? vqe::simd::parse_level(name) : std::nullopt;
  return level && vqe::simd::is_available(*level) ? *level : vqe::simd::max_level();
}

class Golden : public ::testing::TestWithParam<std::string> {};

TEST_P(Golden, MatchesReference) {
  static const std::optional<std::string> skip = cpu_level_skip_reason();
  if (skip) {
    // An unknown name is a mistake in the test set-up, not a missing feature.
    ASSERT_EQ(skip->find("unknown"), std::string::npos) << *skip;
    GTEST_SKIP() << *skip;
  }
  VQE_REQUIRE_SHARED(shared);
  const std::string file = GetParam();
  const nlohmann::json ref = load_reference(file);
  const fs::path clips = shared / "testdata" / "clips";
  const fs::path ref_path = clips / ref["reference"].get<std::string>();
  const fs::path dist_path = clips / ref["distorted"].get<std::string>();

  // Reference values: feature -> per-frame values.
  std::map<std::string, std::vector<std::optional<double>>> expected;
  const auto& frames = ref["frames"];
  for (std::size_t i = 0; i < frames.size(); ++i)
    for (const auto& [name, v] : frames[i]["metrics"].items()) {
      auto& col = expected[name];
      col.resize(frames.size());
      if (v.is_number()) col[i] = v.get<double>();
    }
  std::set<std::string> refused_sets;
  for (const auto& [k, v] : ref["refused"].items()) refused_sets.insert(k);

  PairOutcome& outcome = outcomes()[file];
  std::set<std::string> produced;
  int differs = 0;

  // $VQE_THREADS: worker threads of every job (unset: 0, all on this
  // thread); ctest's golden_threads runs with 3 (frames and row tiles on
  // several threads, the frames read by 3 parallel readers where the files
  // allow it).
  const char* threads_env = std::getenv("VQE_THREADS");
  const unsigned threads = threads_env ? static_cast<unsigned>(std::atoi(threads_env)) : 0;

  for (const GoldenRun& golden_run : golden_runs()) {
    GoldenRun run = golden_run;
    run.config.threads = threads;
    run.config.readers = threads;
    run.config.cpu_level = golden_cpu_level();
    JobResult result;
    try {
      result = run_pair(ref_path, dist_path, run.config);
    } catch (const Error& e) {
      // A refusal must match the reference's, or be a documented deliberate
      // refusal (ADM at 32 px or less, where libvmaf reads undefined memory).
      const bool ref_refused = refused_sets.count(run.refusal_key) != 0;
      bool ref_has_values = false;
      for (const std::string& f : run.expected_features)
        if (expected.count(f)) ref_has_values = true;
      if (ref_refused || !ref_has_values) {
        for (const std::string& f : run.expected_features)
          outcome.by_feature[f] = Status::kRefusedLikeReference;
        continue;
      }
      ADD_FAILURE() << file << ": VQE refused '" << run.label
                    << "' but the reference has values: " << e.what();
      ++differs;
      continue;
    }
    if (refused_sets.count(run.refusal_key))
      ADD_FAILURE() << file << ": the reference refused '" << run.label
                    << "' but VQE scored it (document it if deliberate)";
    for (const std::string& name : result.features.names()) {
      produced.insert(name);
      auto it = expected.find(name);
      if (it == expected.end()) {
        outcome.by_feature[name] = Status::kNoReference;
        continue;
      }
      const bool exact_required = requires_exact(name);
      Status status = Status::kExact;
      for (std::size_t i = 0; i < it->second.size(); ++i) {
        const auto& want = it->second[i];
        const auto got = result.features.get(name, static_cast<unsigned>(i));
        if (!want) continue;
        if (!got) {
          ADD_FAILURE() << file << ": " << name << " missing at frame " << i;
          status = Status::kDiffers;
          continue;
        }
        if (*got == *want) continue;
        const double rel = std::fabs(*got - *want) / std::max(std::fabs(*want), 1e-300);
        if (!exact_required && rel <= 1e-6) {
          status = worst(status, Status::kWithinTolerance);
        } else {
          status = Status::kDiffers;
          ADD_FAILURE() << fmt::format("{}: {} frame {}: VQE {:.17g} vs libvmaf {:.17g} (rel {:.3g}{})",
                                       file, name, i, *got, *want, rel,
                                       exact_required ? ", must be exact" : "");
        }
      }
      // Pooled values over all frames.
      if (ref["pooled_metrics"].contains(name)) {
        const auto& pooled = ref["pooled_metrics"][name];
        const std::pair<const char*, PoolMethod> methods[] = {
            {"min", PoolMethod::kMin}, {"max", PoolMethod::kMax}, {"mean", PoolMethod::kMean},
            {"harmonic_mean", PoolMethod::kHarmonicMean}};
        for (const auto& [key, method] : methods) {
          if (!pooled.contains(key) || !pooled[key].is_number()) continue;
          const double want = pooled[key].get<double>();
          const auto got = result.features.pooled(name, method);
          ASSERT_TRUE(got.has_value()) << name;
          if (*got == want) continue;
          const double rel = std::fabs(*got - want) / std::max(std::fabs(want), 1e-300);
          if (!exact_required && rel <= 1e-6) {
            status = worst(status, Status::kWithinTolerance);
          } else {
            status = Status::kDiffers;
            ADD_FAILURE() << fmt::format("{}: pooled {} {}: VQE {:.17g} vs libvmaf {:.17g}", file,
                                         key, name, *got, want);
          }
        }
      }
      if (status == Status::kDiffers) ++differs;
      outcome.by_feature[name] = worst(outcome.by_feature.count(name) ? outcome.by_feature[name]
                                                                       : Status::kExact,
                                       status);
    }
    // Aggregates (apsnr_*).
    for (const auto& [name, v] : result.features.aggregates()) {
      if (!ref["aggregate_metrics"].contains(name)) continue;
      const double want = ref["aggregate_metrics"][name].get<double>();
      EXPECT_EQ(v, want) << file << ": aggregate " << name;
      outcome.by_feature[name] = v == want ? Status::kExact : Status::kDiffers;
      produced.insert(name);
    }
  }
  for (const auto& [name, col] : expected)
    if (!produced.count(name) && !outcome.by_feature.count(name))
      outcome.by_feature[name] = Status::kNotImplemented;
  EXPECT_EQ(differs, 0) << file;
}

INSTANTIATE_TEST_SUITE_P(SharedPairs, Golden, ::testing::ValuesIn(reference_files()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string n = info.param.substr(0, info.param.size() - 5);
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);

TEST(GoldenCoverage, SharedDataPresent) {
  VQE_REQUIRE_SHARED(shared);
  EXPECT_FALSE(reference_files().empty()) << "no reference JSON in " << shared;
}

// Prints the feature × pair coverage table once all pairs ran.
class CoverageReporter : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    if (outcomes().empty()) return;
    std::set<std::string> features;
    for (const auto& [pair, o] : outcomes())
      for (const auto& [f, s] : o.by_feature) features.insert(f);
    std::vector<std::string> pairs;
    for (const auto& [pair, o] : outcomes()) pairs.push_back(pair);
    std::printf("\nGolden coverage: E exact, T within 1e-6 rel, X differs, - not implemented,\n"
                ". no reference value, R refused like the reference. Pairs:\n");
    for (std::size_t i = 0; i < pairs.size(); ++i) std::printf("  %2zu %s\n", i, pairs[i].c_str());
    std::printf("%-55s", "feature");
    for (std::size_t i = 0; i < pairs.size(); ++i) std::printf("%3zu", i);
    std::printf("\n");
    for (const std::string& f : features) {
      std::printf("%-55s", f.c_str());
      for (const std::string& p : pairs) {
        auto& m = outcomes()[p].by_feature;
        auto it = m.find(f);
        std::printf("  %c", it == m.end() ? ' ' : status_code(it->second));
      }
      std::printf("\n");
    }
  }
};

const bool kReporterInstalled = [] {
  ::testing::UnitTest::GetInstance()->listeners().Append(new CoverageReporter);
  return true;
}();

}  // namespace
}  // namespace vqe::test
