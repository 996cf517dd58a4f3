// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `adm` extractor's definition, shared by its CPU compute
/// (adm_extractor.cpp) and its CUDA compute (adm_cuda.cu): options,
/// libvmaf's provided features, emitted names, refusals and the per-frame
/// outputs from an AdmResult (libvmaf 3.2.0 libvmaf/src/feature/integer_adm.c).

#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "features/adm/integer_adm.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::adm {

/// libvmaf 3.2.0's options of `adm` (names, aliases, defaults, ranges,
/// feature-parameter flags).
std::vector<OptionSpec> options();
/// libvmaf's provided_features of `adm`, in its order (the first seven are
/// always emitted; the rest only with debug=true).
const std::vector<std::string>& provided_features();

/// The outputs of one `adm` instance: integer_adm2, integer_aim,
/// integer_adm3 and integer_adm_scale0..3 (with option suffixes), plus
/// integer_adm, its numerator and denominator and each scale's with
/// debug=true.
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Refusals for `format` (check_format of the luma size and the options).
  void init(const VideoFormat& format) const;
  std::vector<std::string> feature_names() const;
  /// Emits frame `index` from its result: adm2, aim, adm3 = w·adm2 +
  /// (1 − w)·(1 − aim) floored at adm_min_val, per-scale scores, debug values.
  void emit(unsigned index, const AdmResult& result, FeatureCollector& out) const;
  /// The options that change the computation.
  const AdmParams& params() const { return params_; }

 private:
  AdmParams params_;
  bool debug_ = false;
  double dlm_weight_ = 0.5;
  double min_val_ = 0.0;
  std::vector<std::string> names_;  // provided_features() order
};

/// The CUDA compute of `adm` (adm_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `adm` (adm_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::adm
