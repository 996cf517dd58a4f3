// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: the command-line parser of `vqe` (CLI11 options, the
// --aom_ctc/--nflx_ctc presets, libvmaf's integer syntax) must turn any
// argument list into Settings, help text or a UsageError, never crash or
// throw anything else. The input is the arguments separated by NUL bytes.
#include <cstdint>
#include <string>
#include <vector>

#include "cli_options.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"vqe"};
  std::string current;
  for (std::size_t i = 0; i < size && args.size() < 64; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  if (!current.empty() && args.size() < 64) args.push_back(current);
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    const vqe::cli::ParseOutcome outcome =
        vqe::cli::parse_command_line(static_cast<int>(argv.size()), argv.data());
    // A run the parser accepts names both inputs.
    const vqe::cli::Settings& s = outcome.settings;
    if (!outcome.print_and_exit && !s.list_features && (s.reference.empty() || s.distorted.empty()))
      __builtin_trap();
  } catch (const vqe::cli::UsageError&) {
  }
  return 0;
}
