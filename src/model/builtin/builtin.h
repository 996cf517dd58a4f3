// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The model files embedded in the library. CMake generates the table
/// and the texts from models/*.vqem at configure time
/// (cmake/EmbedModels.cmake, into <build>/builtin_models/).

#include <span>
#include <string_view>

namespace vqe::model_detail {

/// One embedded model: the libvmaf version string that selects it and the
/// complete text of its .vqem file (which carries the upstream licence).
struct BuiltinModelText {
  const char* version;
  std::string_view text;
};

/// Every embedded model, the default (vmaf_v0.6.1) first.
std::span<const BuiltinModelText> builtin_model_texts();

}  // namespace vqe::model_detail
