// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// `vqe -r REF -d ENC1 -d ENC2 ...`: a ladder, one reference scored against
// several encodes with the reference read once (vqe::run_ladder), one
// output per encode (-o with a {name} pattern).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vqe/vqe.h"

namespace vqe::cli {

struct LadderCommand {
  std::unique_ptr<vqe::FrameSource> reference;
  std::vector<std::string> distorted;  // paths, two or more
  /// Opens a distorted path as the single-pair command would.
  std::function<std::unique_ptr<vqe::FrameSource>(const std::string&)> open;
  vqe::JobConfig config;   // complete, as for run_job
  vqe::OutputInfo output;  // format and precision
  std::string output_pattern;  // -o: must hold {name}; empty: pooled means to stdout
  bool verbose = false;
};

/// The output path of `distorted` under `pattern`: each "{name}" replaced by
/// the file name of `distorted` without its folder and last extension
/// ("stdin" for "-", standard input).
std::string ladder_output_path(const std::string& pattern, const std::string& distorted);

/// Runs the ladder and writes its outputs. Returns the exit status: 0 when
/// every encode was scored, 1 when some failed (each failure is printed;
/// the other encodes' outputs are written). Throws vqe::Error for problems
/// of the whole ladder (options, the reference).
int run_ladder_command(LadderCommand command);

}  // namespace vqe::cli
