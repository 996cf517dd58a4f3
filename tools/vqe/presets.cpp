// SPDX-License-Identifier: BSD-2-Clause
#include "presets.h"

#include <algorithm>
#include <initializer_list>

#include <fmt/format.h>

namespace vqe::cli {
namespace {

// The extractor a --feature spec names ("float_ssim=scale=1" -> "float_ssim").
std::string extractor_of(const std::string& spec) { return spec.substr(0, spec.find('=')); }

void add_models(Settings& s, std::initializer_list<const char*> specs) {
  for (const char* spec : specs) s.models.emplace_back(spec);
}

void add_features(Settings& s, std::initializer_list<const char*> specs) {
  for (const char* spec : specs) s.features.emplace_back(spec);
}

// libvmaf's CHECKED_REPLACE: the first request for the same extractor is
// replaced where it stands; without one, the spec is appended.
void replace_feature(Settings& s, const std::string& spec) {
  const std::string name = extractor_of(spec);
  auto it = std::find_if(s.features.begin(), s.features.end(),
                         [&](const std::string& f) { return extractor_of(f) == name; });
  if (it != s.features.end())
    *it = spec;
  else
    s.features.push_back(spec);
}

// The AOM CTC versions in order: each adds to the one before.
constexpr const char* kAomVersions[] = {"v1.0", "v2.0", "v3.0", "v4.0", "v5.0", "v6.0", "v7.0"};

}  // namespace

void apply_aom_ctc(const std::string& version, Settings& settings) {
  if (version == "proposed")
    throw UsageError("--aom_ctc proposed: retired by libvmaf; give a version, v1.0 to v7.0");
  const auto* end = std::end(kAomVersions);
  const auto* found = std::find(std::begin(kAomVersions), end, version);
  if (found == end)
    throw UsageError(fmt::format("--aom_ctc: unknown version \"{}\" (v1.0 to v7.0)", version));
  const int v = static_cast<int>(found - std::begin(kAomVersions)) + 1;  // 1..7

  add_models(settings, {"version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg"});
  add_features(settings, {"psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5", "ciede",
                          "float_ssim=enable_db=true:clip_db=true",
                          "float_ms_ssim=enable_db=true:clip_db=true", "psnr_hvs"});
  if (v >= 3) add_features(settings, {"cambi"});
  if (v >= 6) settings.common_bit_depth = true;
  if (v >= 7) replace_feature(settings, "float_ssim=scale=1:enable_db=true:clip_db=true");
  settings.presets.push_back("--aom_ctc " + version);
}

void apply_nflx_ctc(const std::string& version, Settings& settings) {
  if (version != "v1.0")
    throw UsageError(fmt::format("--nflx_ctc: unknown version \"{}\" (v1.0)", version));
  add_models(settings,
             {"version=vmaf_4k_v0.6.1:name=vmaf", "version=vmaf_4k_v0.6.1neg:name=vmaf_neg"});
  add_features(settings, {"psnr=enable_chroma=true:enable_apsnr=true",
                          "float_ssim=enable_db=true:clip_db=true", "cambi"});
  settings.presets.push_back("--nflx_ctc " + version);
}

}  // namespace vqe::cli
