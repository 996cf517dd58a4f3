// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Readers of the two model formats into Model::Impl.

#include <memory>
#include <string>
#include <string_view>

#include "model/model_impl.h"

namespace vqe::model_detail {

/// libvmaf's JSON model format (read_json_model.c): a single model
/// {"model_dict": {…}} or a bootstrap collection {"0": {"model_dict": …},
/// "1": …}. Throws vqe::Error (message starting with `origin`) on any defect;
/// never crashes on malformed input.
std::unique_ptr<Model::Impl> read_json_model(std::string_view text, const std::string& origin);

/// VQE's .vqem text format (models/README.md). Throws vqe::Error.
std::unique_ptr<Model::Impl> read_vqem_model(std::string_view text, const std::string& origin);

}  // namespace vqe::model_detail
