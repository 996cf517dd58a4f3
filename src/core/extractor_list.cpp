// SPDX-License-Identifier: BSD-2-Clause
// The explicit list of extractors (in the manner of libvmaf's
// feature_extractor_list[]): every metric folder defines one record, named
// here, so a static library needs no whole-archive linking.

#include <algorithm>

#include <fmt/format.h>

#include "core/extractor.h"
#include "vqe/error.h"
#include "vqe/extractors.h"

namespace vqe {

// Defined in src/features/<metric>/.
const ExtractorInfo& adm_extractor();
const ExtractorInfo& cambi_extractor();
const ExtractorInfo& ciede_extractor();
const ExtractorInfo& float_adm_extractor();
const ExtractorInfo& float_ansnr_extractor();
const ExtractorInfo& float_moment_extractor();
const ExtractorInfo& float_motion_extractor();
const ExtractorInfo& float_ms_ssim_extractor();
const ExtractorInfo& float_psnr_extractor();
const ExtractorInfo& float_ssim_extractor();
const ExtractorInfo& float_vif_extractor();
const ExtractorInfo& motion_extractor();
const ExtractorInfo& motion_v2_extractor();
const ExtractorInfo& psnr_extractor();
const ExtractorInfo& psnr_hvs_extractor();
const ExtractorInfo& speed_chroma_extractor();
const ExtractorInfo& speed_temporal_extractor();
const ExtractorInfo& vif_extractor();

const std::vector<const ExtractorInfo*>& extractor_list() {
  static const std::vector<const ExtractorInfo*> list = {
      &vif_extractor(),          &adm_extractor(),           &motion_extractor(),
      &psnr_extractor(),         &cambi_extractor(),         &float_psnr_extractor(),
      &float_moment_extractor(), &float_ansnr_extractor(),   &float_motion_extractor(),
      &float_vif_extractor(),    &float_adm_extractor(),     &float_ssim_extractor(),
      &float_ms_ssim_extractor(), &ciede_extractor(),        &psnr_hvs_extractor(),
      &speed_chroma_extractor(), &speed_temporal_extractor(), &motion_v2_extractor(),
  };
  return list;
}

const ExtractorInfo* find_extractor(const std::string& name) {
  for (const ExtractorInfo* info : extractor_list())
    if (info->name == name) return info;
  return nullptr;
}

const ExtractorInfo* find_extractor_by_feature(const std::string& feature_name) {
  for (const ExtractorInfo* info : extractor_list())
    for (const std::string& f : info->provided_features)
      if (f == feature_name) return info;
  return nullptr;
}

std::vector<const ExtractorInfo*> all_extractors() {
  std::vector<const ExtractorInfo*> out = extractor_list();
  std::sort(out.begin(), out.end(),
            [](const ExtractorInfo* a, const ExtractorInfo* b) { return a->name < b->name; });
  return out;
}

std::vector<ExtractorDescription> list_extractors() {
  std::vector<ExtractorDescription> out;
  for (const ExtractorInfo* e : all_extractors())
    out.push_back({e->name, e->options, e->provided_features, e->make_cuda != nullptr,
                   e->make_vulkan != nullptr});
  return out;
}

std::unique_ptr<FeatureExtractor> make_extractor(const std::string& name,
                                                 const OptionValues& values, simd::Level level) {
  const ExtractorInfo* info = find_extractor(name);
  if (!info) {
    std::string known;
    for (const ExtractorInfo* e : all_extractors()) known += (known.empty() ? "" : ", ") + e->name;
    throw Error(fmt::format("unknown feature '{}' (known: {})", name, known));
  }
  if (!simd::is_available(level))
    throw Error(fmt::format("CPU level {} is not supported here (highest: {})",
                            simd::level_name(level), simd::level_name(simd::max_level())));
  ParsedOptions opts(name, info->options, values);
  return info->make(opts, level);
}

}  // namespace vqe
