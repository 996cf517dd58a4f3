// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Running the `vqe` CLI from a test and reading files back: shared by the
// CLI, reader and compressed-input tests (each test executable that
// includes it defines VQE_CLI_PATH).

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "test_util.h"

namespace vqe::test {

/// The whole content of file `p` (empty when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// What one `vqe` run gave: exit status (128 + signal when killed), stdout
/// and stderr.
struct CliResult {
  int exit_code;
  std::string out;
  std::string err;
};

/// Runs `vqe args` through the shell. `feed` is a shell command whose output
/// becomes vqe's standard input (none: /dev/null); `setup` runs in the same
/// shell first (e.g. a ulimit).
inline CliResult run_cli(const std::string& args, const std::string& feed = "",
                         const std::string& setup = "") {
  const auto out = write_temp("cli.out", "");
  const auto err = write_temp("cli.err", "");
  // `timeout`: a run that should fail at once never hangs the tests (124).
  const std::string cmd = (setup.empty() ? "" : setup + "; ") +
                          (feed.empty() ? "" : feed + " | ") + "timeout 120 " +
                          std::string(VQE_CLI_PATH) + " " + args + " >" + out.string() + " 2>" +
                          err.string() + (feed.empty() ? " </dev/null" : "");
  const int status = std::system(cmd.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out),
          slurp(err)};
}

}  // namespace vqe::test
