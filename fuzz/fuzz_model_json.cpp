// SPDX-License-Identifier: BSD-2-Clause
// libFuzzer target: libvmaf JSON model parsing (and, when the input starts
// with "vqem", VQE's own model format). Any input must either load or throw
// vqe::Error; every other outcome (crash, sanitizer report, other exception
// escaping, hang) is a bug. Loaded models are also asked for a prediction.
//
// Built by the `fuzz` CMake preset; run by scripts/fuzz (seed corpus:
// ../shared/models/*.json).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "vqe/error.h"
#include "vqe/model.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const bool vqem = text.substr(0, 4) == "vqem";
    const vqe::Model model = vqem ? vqe::Model::from_vqem_string(text, "fuzz")
                                  : vqe::Model::from_json_string(text, "fuzz");
    std::vector<double> features(model.features().size(), 0.5);
    std::vector<double> out(model.output_names().size());
    model.predict(features, out);
  } catch (const vqe::Error&) {
    // Refusing malformed input is the expected outcome.
  }
  return 0;
}
