// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Helpers shared by the tests: locating ../shared, loading reference JSON,
// running extractors over a pair of files.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "io/video_reader.h"
#include "vqe/cpu.h"
#include "core/scratch_arena.h"
#include "core/tiles.h"
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

namespace vqe::test {

/// How synthetic test frames are filled.
enum class Fill {
  random,     ///< uniform random samples over the whole bit depth (low bits set)
  smooth,     ///< random smooth gradients plus noise, like natural content
  flat,       ///< every sample equal to `seed % (max+1)`
  max_value,  ///< every sample at the bit depth's maximum
};

/// A picture of `format` filled per `fill`, reproducible from `seed`.
Picture synthetic_picture(const VideoFormat& format, std::uint32_t seed, Fill fill = Fill::random);

/// A distorted version of `reference`: each sample moved by up to ±`amount`
/// (clamped to the bit depth), reproducible from `seed`.
Picture distort_picture(const Picture& reference, std::uint32_t seed, int amount);

/// Runs extractor `name` with `options` and the kernels of CPU level
/// `level` over in-memory frame pairs (init, set_tile_runner(tiles), extract
/// per frame in order, flush) and returns every value; with `arena`, the
/// extractor's working buffers come from it (set_scratch). Throws what the
/// extractor throws (e.g. vqe::Error for refused sizes).
FeatureCollector run_on_pictures(const std::string& name, const OptionValues& options,
                                 const std::vector<std::pair<Picture, Picture>>& frames,
                                 TileRunner* tiles = nullptr,
                                 simd::Level level = simd::max_level(),
                                 ScratchArena* arena = nullptr);

/// A tile runner of width 4 that runs every tile in order on the calling
/// thread, tile t in slot t % 4: row tiles, their boundaries and per-slot
/// buffers without threads.
class RoundRobinTiles final : public TileRunner {
 public:
  unsigned width() const override { return 4; }
  void run(unsigned tiles, TileFn fn) override {
    for (unsigned t = 0; t < tiles; ++t) fn(t, t % 4);
  }
};

/// Adds a gtest failure for every feature value of `actual` whose bits differ
/// from `expected` (per frame and aggregate; names must match too). `what`
/// prefixes the messages. Returns the number of differing values.
int expect_bit_identical(const FeatureCollector& expected, const FeatureCollector& actual,
                         const std::string& what);

}  // namespace vqe::test
