// SPDX-License-Identifier: BSD-2-Clause
// Registry of CUDA extractor twins (empty in builds without CUDA).

#include <map>

#include <fmt/format.h>

#include "backend/cuda/backend.h"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {
std::map<std::string, CudaFactory>& registry() {
  static std::map<std::string, CudaFactory> r;
  return r;
}
}  // namespace

bool register_cuda_extractor(const std::string& name, CudaFactory make) {
  registry().insert_or_assign(name, std::move(make));
  return true;
}

bool has_cuda_extractor(const std::string& name) { return registry().count(name) != 0; }

std::vector<std::string> cuda_extractor_names() {
  std::vector<std::string> names;
  for (const auto& [name, make] : registry()) names.push_back(name);
  return names;
}

/// The factory registered for `name`, or nullptr (used by gpu_job.cu).
const CudaFactory* find_cuda_factory(const std::string& name) {
  auto it = registry().find(name);
  return it == registry().end() ? nullptr : &it->second;
}

std::unique_ptr<FeatureExtractor> make_cpu_twin(const std::string& name,
                                                const ParsedOptions& options) {
  const ExtractorInfo* info = find_extractor(name);
  if (!info) throw Error(fmt::format("unknown feature '{}'", name));
  return info->make(options, simd::Level::scalar);
}

}  // namespace vqe::cuda
