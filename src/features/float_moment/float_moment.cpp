// SPDX-License-Identifier: BSD-2-Clause
// The "float_moment" extractor: first and second moments of the reference
// and distorted luma planes (libvmaf 3.2.0 libvmaf/src/feature/float_moment.c,
// moment.c), on the 8-bit scale.
//
// libvmaf converts samples to float divided by s = 2^(bpc-8), sums them (and
// their float squares) in double and divides by the sample count. VQE sums
// the integer samples x and x² exactly in 64 bits and divides once in double:
// first moment Σx / (N·s), second moment Σx² / (N·s²). Up to 12 bits every
// libvmaf term and sum is exact as well, so both give the same correctly
// rounded quotient; at 16 bits libvmaf's float squares round, and the two
// agree within a few 1e-8 relative.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "features/float_moment/float_moment_kernels.h"
#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

constexpr const char* kExtractor = "float_moment";

using moment::PlaneSums;

/// float_moment: emits float_moment_ref1st, _dis1st, _ref2nd, _dis2nd for
/// each frame (libvmaf's names; its provided-feature list names only
/// "float_moment"). Any size >= 1x1, 8/10/12/16 bits.
class FloatMoment final : public FeatureExtractor {
 public:
  FloatMoment(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), dsp_(moment::moment_dsp(level)) {
    for (const char* n : {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd",
                          "float_moment_dis2nd"})
      names_.push_back(opts.feature_name(n));
  }

  void init(const VideoFormat& format) override {
    validate_format(format, kExtractor);
    format_ = format;
    const double n = static_cast<double>(format.width) * static_cast<double>(format.height);
    const double s = static_cast<double>(1 << (format.bit_depth - 8));
    first_divisor_ = n * s;       // exact: n < 2^31, s <= 2^8
    second_divisor_ = n * s * s;  // exact: < 2^47
  }

  std::vector<std::string> feature_names() const override { return names_; }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const PlaneSums r = sums(reference.plane(0));
    const PlaneSums d = sums(distorted.plane(0));
    out.set(names_[0], index, static_cast<double>(r.sum) / first_divisor_);
    out.set(names_[1], index, static_cast<double>(d.sum) / first_divisor_);
    out.set(names_[2], index, static_cast<double>(r.sum_sq) / second_divisor_);
    out.set(names_[3], index, static_cast<double>(d.sum_sq) / second_divisor_);
  }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatMoment>(opts_, level_);
  }

 private:
  PlaneSums sums(const Plane& plane) const {
    // Exact integer sums with the job's kernels (float_moment_kernels.h).
    return format_.bit_depth == 8
               ? dsp_.sums8(plane.row<std::uint8_t>(0), plane.stride, plane.width, plane.height)
               : dsp_.sums16(plane.row<std::uint16_t>(0), plane.stride / 2, plane.width,
                             plane.height);
  }

  ParsedOptions opts_;
  simd::Level level_;
  const moment::MomentDsp& dsp_;
  std::vector<std::string> names_;
  VideoFormat format_{};
  double first_divisor_ = 1, second_divisor_ = 1;
};

const bool kRegistered = register_extractor({
    .name = kExtractor,
    .options = {},
    .provided_features = {"float_moment"},
    .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<FloatMoment>(o, l);
    },
});

}  // namespace
}  // namespace vqe
