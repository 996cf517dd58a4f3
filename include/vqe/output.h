// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Result writers in libvmaf's XML, JSON, CSV and SUB layouts.

#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "vqe/feature_collector.h"
#include "vqe/io.h"

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

/// Formats one value. Non-finite values have one spelling each in every
/// format but JSON: "nan" (any NaN, whatever its sign), "inf" and "-inf";
/// the JSON writer prints null instead, so its output stays valid JSON.
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
/// writes (libvmaf/src/output.c). JSON output is always valid JSON. XML,
/// CSV and SUB output always parse: they throw vqe::Error, before writing
/// anything, for a name that they cannot carry (one not starting with a
/// letter or '_', or holding other characters than letters, digits, '_',
/// '.' and '-'; a job never emits such a name).
void write_output(std::ostream& out, const FeatureCollector& features, const OutputInfo& info);

/// A file an output must not replace: one of the job's inputs, by name
/// (for the message) and identity.
struct ProtectedFile {
  std::string name;
  FileIdentity identity;
};

/// An output that appears complete or not at all, checked and created before
/// any work so that a path that cannot be written fails at once:
///
/// - a regular file or a new name: a temporary file is created beside it
///   (same folder, so the final rename is atomic; a symbolic link is
///   followed to its target, which is replaced, not the link); commit()
///   writes what stream() received, flushes it to the disk and renames it
///   over the path, keeping an existing file's permissions. Destroyed
///   without commit() (an error, an exception), it removes the temporary
///   file and leaves the path as it was;
/// - "-", /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N: commit()
///   writes to that descriptor (so a shell's `>>` still appends);
/// - any other existing file that is not a regular file (a FIFO, a
///   terminal, /dev/null): opened for writing now, written at commit().
///
/// Throws vqe::Error naming the path and the system's reason (strerror)
/// when the folder is missing or not writable, the name is too long, the
/// path is a directory, an existing file is not writable, or the path is
/// the same file (device and inode) as one of `inputs`. Not thread-safe.
class OutputFile {
 public:
  explicit OutputFile(std::string path, const std::vector<ProtectedFile>& inputs = {});
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  /// Where to write the contents (kept in memory until commit()).
  std::ostream& stream();
  void commit();
  const std::string& path() const { return path_; }
  /// The temporary file that commit() renames into place; empty when the
  /// output is written straight to a descriptor, or after commit(). A
  /// signal handler may unlink() it (the CLI does on Ctrl-C).
  const std::string& temporary_path() const { return temp_; }

 private:
  std::string path_;
  std::string target_;   // where the rename goes (path_ with links resolved)
  std::string temp_;
  int fd_ = -1;
  bool owns_fd_ = true;  // false for standard output and friends
  int mode_ = -1;        // permissions to give the file; -1: the default
  std::unique_ptr<std::ostringstream> buffer_;
};

/// write_output() into `path` through an OutputFile.
void write_output_file(const std::string& path, const FeatureCollector& features,
                       const OutputInfo& info);

}  // namespace vqe
