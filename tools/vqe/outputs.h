// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Where results go: an output file prepared before the first frame (and
// removed again if VQE fails or is interrupted), standard output, or the
// pooled means printed when there is no -o.

#include <memory>
#include <optional>
#include <string>

#include "cli_options.h"
#include "inputs.h"
#include "vqe/vqe.h"

namespace vqe::cli {

class ResultOutput {
 public:
  /// Prepares -o and --html (see vqe::OutputFile: checked and created now,
  /// refused when one is an input). While an output is pending, SIGINT,
  /// SIGTERM and SIGHUP remove its temporary file before VQE dies of them.
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
