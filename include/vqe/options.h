// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Feature-extractor options: declaration, parsing, libvmaf name suffixes.

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
  std::string name;
  std::string alias;        ///< used in emitted names; empty = use `name`
  Type type = Type::kDouble;
  double default_value = 0; ///< for kBool (0/1), kInt and kDouble
  double min = -1e300;      ///< inclusive range, for kInt and kDouble
  double max = 1e300;
  std::string default_string;  ///< for kString
  /// A feature parameter changes the numbers, so a non-default value is
  /// appended to emitted feature names (libvmaf's VMAF_OPT_FLAG_FEATURE_PARAM).
  bool feature_param = true;
  std::string help;
};

/// Builds an option declaration: `name`, `alias` (used in feature-name
/// suffixes; empty = `name`), `type`, default, inclusive range (kInt and
/// kDouble only), whether it is a feature parameter, help text, and the
/// default of a kString option.
OptionSpec make_option(std::string name, std::string alias, OptionSpec::Type type,
                       double default_value, double min, double max, bool feature_param,
                       std::string help, std::string default_string = {});

/// A boolean option, false by default.
OptionSpec bool_option(std::string name, std::string alias, bool feature_param, std::string help);

/// A double option, a feature parameter, with an inclusive range.
OptionSpec double_option(std::string name, std::string alias, double default_value, double min,
                         double max, std::string help);

/// Key/value pairs as given by a user (`--feature psnr=enable_mse=true`) or a
/// model file. Values are strings; ParsedOptions converts and validates them.
using OptionValues = std::map<std::string, std::string>;

/// Options of one extractor instance after validation against its specs.
class ParsedOptions {
 public:
  ParsedOptions() = default;
  /// Validates `given` against `specs`. Throws vqe::Error naming the
  /// extractor and option for an unknown option, a malformed value or a value
  /// out of range. Booleans accept true/false/1/0.
  ParsedOptions(const std::string& extractor, std::span<const OptionSpec> specs,
                const OptionValues& given);

  bool get_bool(const std::string& name) const;
  int get_int(const std::string& name) const;
  double get_double(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;

  /// libvmaf's suffix for emitted names: for each feature-param option whose
  /// value differs from its default, in alphabetical order of option name,
  /// "_<alias>" for booleans and "_<alias>_<value>" otherwise (ints as %d,
  /// doubles as %g). Empty when every option has its default value.
  std::string name_suffix() const;

  /// Emitted name for a libvmaf internal feature name: its alias
  /// (feature_alias) followed by name_suffix().
  std::string feature_name(const std::string& internal_name) const;

 private:
  struct Value {
    std::size_t spec;  ///< index into specs_ (an index survives copies)
    double number = 0;
    std::string text;
  };
  const Value& find(const std::string& name, OptionSpec::Type type) const;
  std::string extractor_;
  std::vector<OptionSpec> specs_;
  std::map<std::string, Value> values_;
};

/// libvmaf's output alias of an internal feature name, e.g.
/// "VMAF_integer_feature_vif_scale0_score" -> "integer_vif_scale0". Names with
/// no alias are returned unchanged.
std::string feature_alias(const std::string& internal_name);

/// Parses libvmaf's "key=value:key=value" option syntax. Throws vqe::Error
/// on an item without '='.
OptionValues parse_option_string(const std::string& text, const std::string& context);

}  // namespace vqe
