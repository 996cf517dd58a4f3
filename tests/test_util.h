// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Helpers shared by the tests: locating ../shared, loading reference JSON,
// running extractors over a pair of files.

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/video_reader.h"
#include "vqe/vqe.h"

namespace vqe::test {

/// $VQE_SHARED if set, else ../shared beside the source tree, if it exists.
std::optional<std::filesystem::path> shared_dir();

/// Parses ../shared/testdata/reference/<json_file_name>.
nlohmann::json load_reference(const std::string& json_file_name);

/// Reader options for a clip, from its file name
/// (<content>_<W>x<H>_<chroma>p<bits>_<N>f[__tag].yuv); nullopt for .y4m.
std::optional<RawVideoParams> raw_params_from_name(const std::filesystem::path& path);

/// Runs `extractors` over ref/dist (Y4M or raw by extension) and returns the
/// collector.
FeatureCollector run_features(const std::filesystem::path& ref, const std::filesystem::path& dist,
                              const std::vector<std::pair<std::string, OptionValues>>& extractors,
                              unsigned threads = 1);

/// Runs a whole job config over a pair; returns the result.
JobResult run_pair(const std::filesystem::path& ref, const std::filesystem::path& dist,
                   const JobConfig& config);

/// Writes bytes to a fresh temporary file and returns its path.
std::filesystem::path write_temp(const std::string& name, const std::string& bytes);

}  // namespace vqe::test

/// Skips the current test with a message when ../shared is missing;
/// otherwise binds `dir` to it.
#define VQE_REQUIRE_SHARED(dir)                                                       \
  const auto dir##_opt = ::vqe::test::shared_dir();                                   \
  if (!dir##_opt) GTEST_SKIP() << "../shared not found (set VQE_SHARED): skipping";   \
  const std::filesystem::path dir = *dir##_opt
