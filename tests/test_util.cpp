// SPDX-License-Identifier: BSD-2-Clause
#include "test_util.h"

#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <regex>

#include <unistd.h>

#include <fmt/format.h>

#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe::test {

std::optional<std::filesystem::path> shared_dir() {
  if (const char* env = std::getenv("VQE_SHARED"); env && *env) {
    if (std::filesystem::is_directory(env)) return std::filesystem::path(env);
    return std::nullopt;
  }
  std::filesystem::path p(VQE_SHARED_DEFAULT);
  if (std::filesystem::is_directory(p / "testdata")) return p;
  return std::nullopt;
}

nlohmann::json load_reference(const std::string& json_file_name) {
  auto dir = shared_dir();
  if (!dir) throw Error("../shared not found");
  std::ifstream in(*dir / "testdata" / "reference" / json_file_name);
  if (!in) throw Error("cannot open reference " + json_file_name);
  return nlohmann::json::parse(in);
}

std::optional<RawVideoParams> raw_params_from_name(const std::filesystem::path& path) {
  if (path.extension() == ".y4m") return std::nullopt;
  static const std::regex re(R"(_(\d+)x(\d+)_(\d{3})p(\d+)_)");
  std::smatch m;
  const std::string name = path.filename().string();
  if (!std::regex_search(name, m, re)) throw Error("cannot infer raw format of " + name);
  RawVideoParams p;
  p.width = std::stoi(m[1]);
  p.height = std::stoi(m[2]);
  p.chroma = parse_chroma_format(m[3]);
  p.bit_depth = std::stoi(m[4]);
  return p;
}

JobResult run_pair(const std::filesystem::path& ref, const std::filesystem::path& dist,
                   const JobConfig& config) {
  auto rp = raw_params_from_name(ref);
  auto dp = raw_params_from_name(dist);
  auto r = open_video(ref.string(), rp ? &*rp : nullptr);
  auto d = open_video(dist.string(), dp ? &*dp : nullptr);
  return run_job(*r, *d, config);
}

FeatureCollector run_features(const std::filesystem::path& ref, const std::filesystem::path& dist,
                              const std::vector<std::pair<std::string, OptionValues>>& extractors,
                              unsigned threads) {
  JobConfig config;
  for (const auto& [name, opts] : extractors) config.features.push_back({name, opts});
  config.threads = threads;
  return std::move(run_pair(ref, dist, config).features);
}

std::filesystem::path write_temp(const std::string& name, const std::string& bytes) {
  const auto dir = std::filesystem::temp_directory_path() / "vqe-tests";
  std::filesystem::create_directories(dir);
  const auto path = dir / (std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

namespace {

template <typename T>
void fill_plane(Plane& plane, int max_value, std::uint32_t seed, Fill fill) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> any(0, max_value);
  std::uniform_int_distribution<int> noise(-max_value / 16 - 1, max_value / 16 + 1);
  const double fx = 0.5 + (seed % 7), fy = 0.3 + (seed % 5);
  for (int y = 0; y < plane.height; ++y) {
    T* row = plane.row<T>(y);
    for (int x = 0; x < plane.width; ++x) {
      int v = 0;
      switch (fill) {
        case Fill::random: v = any(rng); break;
        case Fill::flat: v = static_cast<int>(seed % (static_cast<std::uint32_t>(max_value) + 1)); break;
        case Fill::max_value: v = max_value; break;
        case Fill::smooth: {
          const double s = 0.5 + 0.25 * std::sin(fx * x / 23.0) + 0.25 * std::cos(fy * y / 17.0);
          v = static_cast<int>(s * max_value) + noise(rng);
          break;
        }
      }
      row[x] = static_cast<T>(std::clamp(v, 0, max_value));
    }
  }
}

template <typename T>
void distort_plane(const Plane& in, Plane& out, int max_value, std::mt19937& rng, int amount) {
  std::uniform_int_distribution<int> delta(-amount, amount);
  for (int y = 0; y < in.height; ++y)
    for (int x = 0; x < in.width; ++x)
      out.row<T>(y)[x] =
          static_cast<T>(std::clamp(static_cast<int>(in.row<T>(y)[x]) + delta(rng), 0, max_value));
}

}  // namespace

Picture synthetic_picture(const VideoFormat& format, std::uint32_t seed, Fill fill) {
  Picture pic(format);
  const int max_value = (1 << format.bit_depth) - 1;
  for (int p = 0; p < pic.num_planes(); ++p) {
    const std::uint32_t plane_seed = seed * 3 + static_cast<std::uint32_t>(p);
    if (format.bit_depth > 8)
      fill_plane<std::uint16_t>(pic.plane(p), max_value, plane_seed, fill);
    else
      fill_plane<std::uint8_t>(pic.plane(p), max_value, plane_seed, fill);
  }
  return pic;
}

Picture distort_picture(const Picture& reference, std::uint32_t seed, int amount) {
  Picture out(reference.format());
  std::mt19937 rng(seed);
  const int max_value = (1 << reference.bit_depth()) - 1;
  for (int p = 0; p < reference.num_planes(); ++p) {
    if (reference.bit_depth() > 8)
      distort_plane<std::uint16_t>(reference.plane(p), out.plane(p), max_value, rng, amount);
    else
      distort_plane<std::uint8_t>(reference.plane(p), out.plane(p), max_value, rng, amount);
  }
  return out;
}

FeatureCollector run_on_pictures(const std::string& name, const OptionValues& options,
                                 const std::vector<std::pair<Picture, Picture>>& frames,
                                 TileRunner* tiles, simd::Level level, ScratchArena* arena) {
  FeatureCollector out;
  if (frames.empty()) return out;
  auto extractor = make_extractor(name, options, level);
  if (arena != nullptr) extractor->set_scratch(arena);
  extractor->init(frames.front().first.format());
  extractor->set_tile_runner(tiles);
  for (const std::string& feature : extractor->feature_names()) out.declare(feature);
  for (std::size_t i = 0; i < frames.size(); ++i)
    extractor->extract(frames[i].first, frames[i].second, static_cast<unsigned>(i), out);
  extractor->flush(out);
  return out;
}

int expect_bit_identical(const FeatureCollector& expected, const FeatureCollector& actual,
                         const std::string& what) {
  int differing = 0;
  const auto bits = [](double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  };
  EXPECT_EQ(expected.names(), actual.names()) << what;
  EXPECT_EQ(expected.frame_count(), actual.frame_count()) << what;
  for (const std::string& name : expected.names()) {
    for (unsigned i = 0; i < expected.frame_count(); ++i) {
      const auto e = expected.get(name, i);
      const auto a = actual.get(name, i);
      if (e.has_value() != a.has_value() || (e && bits(*e) != bits(*a))) {
        ++differing;
        ADD_FAILURE() << what << ": " << name << " frame " << i << ": expected "
                      << (e ? fmt::format("{:.17g}", *e) : "none") << ", got "
                      << (a ? fmt::format("{:.17g}", *a) : "none");
      }
    }
  }
  const auto ea = expected.aggregates();
  const auto aa = actual.aggregates();
  EXPECT_EQ(ea.size(), aa.size()) << what;
  for (std::size_t k = 0; k < std::min(ea.size(), aa.size()); ++k) {
    if (ea[k].first != aa[k].first || bits(ea[k].second) != bits(aa[k].second)) {
      ++differing;
      ADD_FAILURE() << what << ": aggregate " << ea[k].first << " expected "
                    << fmt::format("{:.17g}", ea[k].second) << ", got " << aa[k].first << " "
                    << fmt::format("{:.17g}", aa[k].second);
    }
  }
  return differing;
}

}  // namespace vqe::test
