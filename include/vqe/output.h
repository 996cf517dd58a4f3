// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Result writers in libvmaf's XML, JSON, CSV and SUB layouts.

#include <ostream>
#include <string>

#include "vqe/feature_collector.h"

namespace vqe {

enum class OutputFormat { kXml, kJson, kCsv, kSub };

/// How numbers are printed. kDefault is libvmaf's: "%.6f", or "%.16f" when
/// the fractional part has more than six leading zeros (libvmaf's
/// count_leading_zeros_d rule). kMax prints "%.17g" (round-trips a double);
/// kDigits prints "%.<digits>g".
struct Precision {
  enum class Mode { kDefault, kMax, kDigits } mode = Mode::kDefault;
  int digits = 6;
};

/// Parses --precision: "max" or a number of significant digits 1..17.
/// Throws vqe::Error otherwise.
Precision parse_precision(const std::string& text);

/// Formats one value. Non-finite values print as "nan", "inf" or "-inf"
/// (the JSON writer prints null instead).
std::string format_value(double value, const Precision& precision);

struct OutputInfo {
  OutputFormat format = OutputFormat::kXml;
  Precision precision;
  unsigned subsample = 1;  ///< frames not on the subsample grid are left out
  int width = 0;
  int height = 0;
  double fps = 0;          ///< processing speed, frames per second
  std::string version;     ///< written into the XML/JSON header
};

/// Writes per-frame values, pooled min/max/mean/harmonic_mean for every
/// feature, and aggregate metrics, in the layout libvmaf's `vmaf` tool
/// writes (libvmaf/src/output.c). JSON output is always valid JSON.
void write_output(std::ostream& out, const FeatureCollector& features, const OutputInfo& info);

}  // namespace vqe
