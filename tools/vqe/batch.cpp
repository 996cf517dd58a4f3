// SPDX-License-Identifier: BSD-2-Clause
// `vqe batch`: see batch.h.

#include "batch.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#ifndef VQE_PYTHON_EXECUTABLE
#define VQE_PYTHON_EXECUTABLE "python3"
#endif

namespace vqe::cli {

int run_batch_command(int argc, char** argv) {
  const char* env = std::getenv("VQE_PYTHON");
  const std::string python = env && *env ? env : VQE_PYTHON_EXECUTABLE;
  // The build tree's package (build/<preset>/python/vqe) comes first.
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path package = exe.parent_path() / "python";
    if (std::filesystem::exists(package / "vqe" / "__init__.py", ec)) {
      const char* old = std::getenv("PYTHONPATH");
      std::string path = package.string();
      if (old && *old) path += std::string(":") + old;
      setenv("PYTHONPATH", path.c_str(), 1);
    }
  }
  std::vector<char*> args;
  args.push_back(const_cast<char*>(python.c_str()));
  args.push_back(const_cast<char*>("-m"));
  args.push_back(const_cast<char*>("vqe.batch"));
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  ::execvp(python.c_str(), args.data());
  std::cerr << "vqe batch: error: cannot start " << python << ": " << std::strerror(errno)
            << " (the batch runner is the Python package vqe: build it, or set VQE_PYTHON)\n";
  return 1;
}

}  // namespace vqe::cli
