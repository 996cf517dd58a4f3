// SPDX-License-Identifier: BSD-2-Clause
#include "test_util.h"

#include <cstdlib>
#include <fstream>
#include <regex>

#include <unistd.h>

#include "vqe/error.h"

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

}  // namespace vqe::test
