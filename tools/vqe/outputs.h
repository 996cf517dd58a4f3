// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Where results go: an output file prepared before the first frame (and
// removed again if VQE fails or is interrupted), standard output, or the
// pooled means printed when there is no -o.

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cli_options.h"
#include "inputs.h"
#include "vqe/vqe.h"

namespace vqe::cli {

/// `text` for a terminal: control characters other than newline and tab
/// (e.g. an escape sequence in a file name) as \xNN; other bytes, UTF-8
/// included, as they are.
std::string terminal_safe(std::string_view text);

/// Until unwatch_temporary(`temporary`), a signal that ends the process
/// (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR1/2, SIGXCPU,
/// SIGXFSZ; not those the caller ignores) first removes that temporary file
/// (an OutputFile's). Any number of files at once; main thread only.
void watch_temporary(const std::string& temporary);
void unwatch_temporary(const std::string& temporary);

/// Destroys the watched OutputFile held by `file` (std::optional or
/// std::unique_ptr; nothing when empty), which removes its temporary file
/// unless committed, and stops watching that file.
template <class Holder>
void discard_watched(Holder& file) {
  if (!file) return;
  const std::string temporary = file->temporary_path();
  file.reset();
  unwatch_temporary(temporary);
}

class ResultOutput {
 public:
  /// Prepares -o and --html (see vqe::OutputFile: checked and created now,
  /// refused when one is an input). While an output is pending, a signal
  /// that ends VQE removes its temporary file first (watch_temporary).
  ResultOutput(const Settings& settings, const Inputs& inputs);
  ~ResultOutput();
  ResultOutput(const ResultOutput&) = delete;
  ResultOutput& operator=(const ResultOutput&) = delete;

  /// Writes the results (or, without -o, each feature's pooled mean to
  /// stdout) and the --html report, and commits the files. `config` is the
  /// job's (the report lists its models).
  void write(const JobResult& result, const OutputInfo& info, const JobConfig& config);

 private:
  void write_report(const JobResult& result, const OutputInfo& info, const JobConfig& config);

  const Settings& settings_;
  std::optional<OutputFile> file_;
  std::optional<OutputFile> html_;
};

}  // namespace vqe::cli
