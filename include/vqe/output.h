// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Result writers in libvmaf's XML, JSON, CSV and SUB layouts.

#include <memory>
#include <ostream>
#include <sstream>
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
  /// What was scaled (e.g. "distorted: scaled from 320x180 to 640x360
  /// (bicubic...)"): written into the XML params and as JSON "scale" when
  /// not empty (libvmaf writes no such field).
  std::string scale;
};

/// Writes per-frame values, pooled min/max/mean/harmonic_mean for every
/// feature, and aggregate metrics, in the layout libvmaf's `vmaf` tool
/// writes (libvmaf/src/output.c). JSON output is always valid JSON.
void write_output(std::ostream& out, const FeatureCollector& features, const OutputInfo& info);

/// A file that appears complete or not at all. The constructor creates a
/// temporary file beside `path` (same folder, so the final rename is
/// atomic), which makes a missing folder, a read-only folder or a name too
/// long fail at once, before any work; commit() writes what stream()
/// received, flushes it to the disk and renames it over `path`. Destroyed
/// without commit(), it removes the temporary file and leaves `path` as it
/// was. Errors throw vqe::Error naming the path and the system's reason.
class OutputFile {
 public:
  explicit OutputFile(std::string path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Where to write the contents (kept in memory until commit()).
  std::ostream& stream();
  void commit();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string temp_;
  int fd_ = -1;
  std::unique_ptr<std::ostringstream> buffer_;
};

/// write_output() into `path` through an OutputFile.
void write_output_file(const std::string& path, const FeatureCollector& features,
                       const OutputInfo& info);

}  // namespace vqe
