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
  /// Prepares -o (see vqe::OutputFile: checked and created now, refused when
  /// it is one of the inputs). While the output is pending, SIGINT, SIGTERM
  /// and SIGHUP remove its temporary file before VQE dies of them.
  ResultOutput(const Settings& settings, const Inputs& inputs);
  ~ResultOutput();
  ResultOutput(const ResultOutput&) = delete;
  ResultOutput& operator=(const ResultOutput&) = delete;

  /// Writes the results (or, without -o, each feature's pooled mean to
  /// stdout) and commits the file.
  void write(const JobResult& result, const OutputInfo& info);

 private:
  std::optional<OutputFile> file_;
};

}  // namespace vqe::cli
