// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Validated extractor options (internal): ParsedOptions, and the
/// emitted-name suffixes libvmaf derives from non-default options.

#include <map>
#include <span>
#include <string>
#include <vector>

#include "vqe/options.h"

namespace vqe {

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

/// True if `name` can be written unchanged as an XML attribute name, a CSV
/// header cell, a JSON key and a SUB field: a letter or '_' first, then
/// letters, digits, '_', '.' or '-'. Every name VQE emits must be one.
bool is_portable_name(const std::string& name);

/// Throws vqe::Error unless is_portable_name(name); `what` says what the
/// name is (e.g. "model name", "feature name") and `hint` how to avoid it.
void check_portable_name(const std::string& name, const std::string& what,
                         const std::string& hint);

}  // namespace vqe
