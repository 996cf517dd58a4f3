// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Feature-extractor options as users give them (`--feature psnr=enable_mse=true`,
/// model files) and as extractors declare them (for listing); libvmaf name aliases.

#include <map>
#include <span>
#include <string>
#include <vector>

namespace vqe {

/// Declaration of one option of a feature extractor, mirroring libvmaf's
/// VmafOption: name, optional short alias used in feature-name suffixes,
/// type, default and accepted range.
struct OptionSpec {
  enum class Type { kBool, kInt, kDouble, kString };
  std::string name{};
  std::string alias{};      ///< used in emitted names; empty = use `name`
  Type type = Type::kDouble;
  double default_value = 0; ///< for kBool (0/1), kInt and kDouble
  double min = -1e300;      ///< inclusive range, for kInt and kDouble
  double max = 1e300;
  std::string default_string{};  ///< for kString
  /// A feature parameter changes the numbers, so a non-default value is
  /// appended to emitted feature names (libvmaf's VMAF_OPT_FLAG_FEATURE_PARAM).
  bool feature_param = true;
  std::string help{};
};

/// Key/value pairs as given by a user (`--feature psnr=enable_mse=true`) or a
/// model file. Values are strings; ParsedOptions converts and validates them.
using OptionValues = std::map<std::string, std::string>;

/// libvmaf's output alias of an internal feature name, e.g.
/// "VMAF_integer_feature_vif_scale0_score" -> "integer_vif_scale0". Names with
/// no alias are returned unchanged.
std::string feature_alias(const std::string& internal_name);

/// Parses libvmaf's "key=value:key=value" option syntax. Throws vqe::Error
/// on an item without '='.
OptionValues parse_option_string(const std::string& text, const std::string& context);

}  // namespace vqe
