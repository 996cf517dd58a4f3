// SPDX-License-Identifier: BSD-2-Clause
#include <map>

#include <fmt/format.h>

#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {
std::map<std::string, ExtractorInfo>& registry() {
  static std::map<std::string, ExtractorInfo> r;
  return r;
}
}  // namespace

bool register_extractor(ExtractorInfo info) {
  std::string name = info.name;
  registry().insert_or_assign(name, std::move(info));
  return true;
}

const ExtractorInfo* find_extractor(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

const ExtractorInfo* find_extractor_by_feature(const std::string& feature_name) {
  for (const auto& [name, info] : registry())
    for (const std::string& f : info.provided_features)
      if (f == feature_name) return &info;
  return nullptr;
}

std::vector<const ExtractorInfo*> all_extractors() {
  std::vector<const ExtractorInfo*> out;
  for (const auto& [name, info] : registry()) out.push_back(&info);
  return out;
}

std::unique_ptr<FeatureExtractor> make_extractor(const std::string& name,
                                                 const OptionValues& values, simd::Level level) {
  const ExtractorInfo* info = find_extractor(name);
  if (!info) {
    std::string known;
    for (const auto& [n, i] : registry()) known += (known.empty() ? "" : ", ") + n;
    throw Error(fmt::format("unknown feature '{}' (known: {})", name, known));
  }
  if (!simd::is_available(level))
    throw Error(fmt::format("CPU level {} is not supported here (highest: {})",
                            simd::level_name(level), simd::level_name(simd::max_level())));
  ParsedOptions opts(name, info->options, values);
  return info->make(opts, level);
}

}  // namespace vqe
