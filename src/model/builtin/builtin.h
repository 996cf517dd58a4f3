// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The model files embedded in the library. The table and the texts
/// are generated from models/*.vqem by scripts/vmaf_json_to_vqem.py --embed
/// (files builtin/index.cpp and builtin/vqem_*.cpp); do not edit those by hand.

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
