// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file What this build can compute: every feature extractor with its
/// options and the backends that implement it (for --list-features, GUIs
/// and bindings).

#include <string>
#include <vector>

#include "vqe/options.h"

namespace vqe {

/// One feature extractor as a job's FeatureRequest names it.
struct ExtractorDescription {
  std::string name;                            ///< e.g. "psnr", "vif", "float_ssim"
  std::vector<OptionSpec> options;             ///< accepted options, defaults, ranges, help
  std::vector<std::string> provided_features;  ///< libvmaf's internal feature names
  bool cuda = false;                           ///< has a CUDA compute in this build
  bool vulkan = false;                         ///< has a Vulkan compute in this build
};

/// Every extractor of this build, sorted by name.
std::vector<ExtractorDescription> list_extractors();

}  // namespace vqe
