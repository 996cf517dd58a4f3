// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The `float_moment` extractor's definition, shared by its CPU compute
/// (float_moment.cpp) and its CUDA compute (float_moment_cuda.cu): emitted
/// names, refusals and the moments from exact plane sums.
///
/// libvmaf 3.2.0 (libvmaf/src/feature/float_moment.c, moment.c) converts
/// samples to float divided by s = 2^(bpc-8), sums them (and their float
/// squares) in double and divides by the sample count. VQE sums the integer
/// samples x and x² exactly in 64 bits and divides once in double: first
/// moment Σx / (N·s), second moment Σx² / (N·s²). Up to 12 bits every
/// libvmaf term and sum is exact as well, so both give the same correctly
/// rounded quotient; at 16 bits libvmaf's float squares round, and the two
/// agree within a few 1e-8 relative.

#include <memory>
#include <string>
#include <vector>

#include "core/extractor.h"
#include "core/options.h"
#include "features/float_moment/float_moment_kernels.h"
#include "vqe/feature_collector.h"
#include "vqe/picture.h"

namespace vqe::moment {

/// The outputs of one `float_moment` instance: float_moment_ref1st,
/// _dis1st, _ref2nd, _dis2nd (on the 8-bit scale).
class Scorer {
 public:
  explicit Scorer(const ParsedOptions& options);
  /// Refusals for `format` (any size >= 1x1, 8/10/12/16 bits) and the
  /// divisors N·s and N·s².
  void init(const VideoFormat& format);
  std::vector<std::string> feature_names() const { return names_; }
  /// Emits frame `index` from the luma sums of both pictures.
  void emit(unsigned index, const PlaneSums& reference, const PlaneSums& distorted,
            FeatureCollector& out) const;

 private:
  std::vector<std::string> names_;
  double first_divisor_ = 1, second_divisor_ = 1;
};

/// The CUDA compute of `float_moment` (float_moment_cuda.cu; CUDA builds
/// only).
std::unique_ptr<cuda::CudaExtractor> make_cuda(const ParsedOptions& options);
/// The Vulkan compute of `float_moment` (float_moment_vulkan.cpp; Vulkan builds only).
std::unique_ptr<vulkan::VulkanExtractor> make_vulkan(const ParsedOptions& options);

}  // namespace vqe::moment
