// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Error type thrown by every VQE API on bad input or refused work.

#include <stdexcept>
#include <string>

namespace vqe {

/// Exception carrying a message meant for the user: it names the file, frame,
/// extractor or option at fault. The CLI prints `what()` and exits non-zero.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

}  // namespace vqe
