// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `vif` extractor's definition, shared by its CPU compute
/// (vif_extractor.cpp) and its CUDA compute (vif_cuda.cu): options, libvmaf's
/// provided features, emitted names, refusals, and the per-frame outputs from
/// the four scales' values (libvmaf 3.2.0 libvmaf/src/feature/integer_vif.c,
/// vmaf_fex_integer_vif).

#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "features/vif/integer_vif.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::vif {

/// libvmaf's options of `vif` (names, aliases, defaults, ranges).
std::vector<OptionSpec> options();
/// libvmaf's provided_features of `vif`, in its order: the four per-scale
/// scores, then the debug outputs.
const std::vector<std::string>& provided_features();

/// Throws vqe::Error (naming "vif") unless `bit_depth` is 8, 10, 12 or 16
/// and the luma size is at least kMinWidth × kMinHeight.
void check_format(int width, int height, int bit_depth);

/// The outputs of one `vif` instance: integer_vif_scale0..3 (with option
/// suffixes), plus integer_vif, its numerator and denominator and each
/// scale's numerator and denominator with debug=true.
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Refusals for `format` (check_format on the luma plane).
  void init(const VideoFormat& format) const;
  /// Emitted names, in output order.
  std::vector<std::string> feature_names() const;
  /// Emits frame `index` from the scales' float numerators and denominators
  /// (scale 0 left at 0 with vif_skip_scale0): per-scale num / den, and with
  /// debug the totals in double.
  void emit(unsigned index, const VifValues& values, FeatureCollector& out) const;

  double gain_limit() const { return gain_limit_; }
  bool skip_scale0() const { return skip_scale0_; }

 private:
  bool debug_;
  bool skip_scale0_;
  double gain_limit_;
  std::vector<std::string> names_;  // every name, provided_features() order
};

/// The CUDA compute of `vif` (vif_cuda.cu; CUDA builds only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `vif` (vif_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::vif
