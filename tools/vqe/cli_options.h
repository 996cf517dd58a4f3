// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// The command line of `vqe`: libvmaf's `vmaf` options (tools/cli_parse.c)
// plus VQE's own, parsed into Settings without touching any file, so that
// the parser can be fuzzed alone.

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vqe/output.h"

namespace vqe::cli {

/// A usage error: a one-line message; the CLI adds a hint to --help and
/// exits with status 1 (libvmaf's usage() exit status).
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

/// The raw-input options as given (unset when not given).
struct RawInputOptions {
  std::optional<int> width;
  std::optional<int> height;
  std::optional<std::string> pixel_format;
  std::optional<int> bit_depth;
  bool any() const { return width || height || pixel_format || bit_depth; }
};

/// --scale: "distorted" (the distorted video to the reference's size) or
/// "WxH" (both videos to W x H), with FFmpeg's default bicubic scaler.
struct ScaleRequest {
  bool distorted_to_reference = false;
  int width = 0;   ///< > 0 for WxH
  int height = 0;
  bool any() const { return distorted_to_reference || width > 0; }
};

/// Everything the command line asks for.
struct Settings {
  std::string reference;
  /// The first -d.
  std::string distorted;
  /// Every -d, in command-line order, when there are several: a ladder (one
  /// reference, several encodes, -o with {name}); empty for one pair.
  std::vector<std::string> ladder;
  RawInputOptions raw;
  ScaleRequest scale;
  /// -m specs and preset models, in command-line order (libvmaf's order).
  std::vector<std::string> models;
  /// --feature specs and preset features, in command-line order.
  std::vector<std::string> features;
  /// Presets applied (e.g. "--aom_ctc v7.0"), for --verbose.
  std::vector<std::string> presets;
  /// A preset asked for a common bit depth (libvmaf's aom_ctc v6.0 and later):
  /// inputs of different bit depths are compared at the higher one.
  bool common_bit_depth = false;
  bool no_prediction = false;

  std::string output;  ///< empty: print pooled means to stdout
  std::string html;    ///< --html: a report page to write too (empty: none)
  OutputFormat format = OutputFormat::kXml;
  std::string precision;  ///< as given; empty: libvmaf's default

  unsigned threads = 0;
  unsigned subsample = 1;
  unsigned frame_cnt = 0;
  unsigned frame_skip_ref = 0;
  unsigned frame_skip_dist = 0;

  std::optional<unsigned> cpumask;  ///< libvmaf --cpumask
  std::optional<unsigned> gpumask;  ///< libvmaf --gpumask
  std::string cpu_level;            ///< empty: the best this CPU has
  std::string backend;              ///< empty: not given (cpu unless --gpumask 0)
  int gpu = 0;
  /// --hwdec: how compressed input is decoded: "auto" (NVDEC on --gpu with
  /// --backend cuda where it can, else the CPU), "nvdec" (NVDEC, or an
  /// error), "none" (the CPU).
  std::string hwdec = "auto";

  bool quiet = false;
  bool verbose = false;
  bool list_features = false;
};

/// What to do after parsing.
struct ParseOutcome {
  /// Set for --help and --version: print `text` to stdout and exit 0.
  std::optional<std::string> print_and_exit;
  Settings settings;
};

/// Parses `argv` (argv[0] is the program). Throws UsageError for any usage
/// error: an unknown option, a missing or malformed value, a value out of
/// range, conflicting options, an unknown preset version, no -r/-d.
ParseOutcome parse_command_line(int argc, const char* const* argv);

/// libvmaf's integer parsing (strtoul, base 0: decimal, 0x hex, 0 octal;
/// "-1" wraps to all bits set), refusing empty text and trailing characters.
/// Throws UsageError naming `option`.
unsigned parse_libvmaf_unsigned(const std::string& text, const std::string& option);

/// Parses --scale's value: "distorted" or WxH with W and H in 1..32768.
/// Throws UsageError otherwise.
ScaleRequest parse_scale(const std::string& text);

}  // namespace vqe::cli
