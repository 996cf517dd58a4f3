// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// The jobs the golden test runs per pair, mirroring the extractor sets the
// reference tool ran (../shared/README.md), each run separately so that one
// refusal does not hide the others.

#include <string>
#include <vector>

#include "vqe/vqe.h"

namespace vqe::test {

struct GoldenRun {
  std::string label;        ///< for messages
  std::string refusal_key;  ///< key in the reference JSON's "refused" map
  JobConfig config;
  /// Names this run is expected to emit (used to judge refusals).
  std::vector<std::string> expected_features;
};

/// Every run: each registered extractor with default options, the option
/// variants the reference used, and each model.
const std::vector<GoldenRun>& golden_runs();

/// True for integer-pipeline features and values derived from them only,
/// which must equal the reference bit for bit.
bool requires_exact(const std::string& feature_name);

}  // namespace vqe::test
