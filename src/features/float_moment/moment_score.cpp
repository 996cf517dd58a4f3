// SPDX-License-Identifier: BSD-2-Clause
#include "features/float_moment/moment_score.h"

namespace vqe::moment {

Scorer::Scorer(const ParsedOptions& opts) {
  for (const char* n : {"float_moment_ref1st", "float_moment_dis1st", "float_moment_ref2nd",
                        "float_moment_dis2nd"})
    names_.push_back(opts.feature_name(n));
}

void Scorer::init(const VideoFormat& format) {
  validate_format(format, "float_moment");
  const double n = static_cast<double>(format.width) * static_cast<double>(format.height);
  const double s = static_cast<double>(1 << (format.bit_depth - 8));
  first_divisor_ = n * s;       // exact: n < 2^31, s <= 2^8
  second_divisor_ = n * s * s;  // exact: < 2^47
}

void Scorer::emit(unsigned index, const PlaneSums& r, const PlaneSums& d,
                  FeatureCollector& out) const {
  out.set(names_[0], index, static_cast<double>(r.sum) / first_divisor_);
  out.set(names_[1], index, static_cast<double>(d.sum) / first_divisor_);
  out.set(names_[2], index, static_cast<double>(r.sum_sq) / second_divisor_);
  out.set(names_[3], index, static_cast<double>(d.sum_sq) / second_divisor_);
}

}  // namespace vqe::moment
