// SPDX-License-Identifier: BSD-2-Clause
#include "core/options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "vqe/error.h"

namespace vqe {
namespace {

bool parse_bool(const std::string& text, bool* out) {
  if (text == "true" || text == "1") { *out = true; return true; }
  if (text == "false" || text == "0") { *out = false; return true; }
  return false;
}

bool parse_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (errno != 0 || end != text.c_str() + text.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

const char* type_name(OptionSpec::Type t) {
  switch (t) {
    case OptionSpec::Type::kBool: return "a boolean (true/false)";
    case OptionSpec::Type::kInt: return "an integer";
    case OptionSpec::Type::kDouble: return "a number";
    case OptionSpec::Type::kString: return "a string";
  }
  return "?";
}

}  // namespace

ParsedOptions::ParsedOptions(const std::string& extractor, std::span<const OptionSpec> specs,
                             const OptionValues& given)
    : extractor_(extractor), specs_(specs.begin(), specs.end()) {
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    Value v{i, specs_[i].default_value, specs_[i].default_string};
    values_.emplace(specs_[i].name, v);
  }
  for (const auto& [key, text] : given) {
    auto it = values_.find(key);
    if (it == values_.end()) {
      std::string known;
      for (const OptionSpec& s : specs_) known += (known.empty() ? "" : ", ") + s.name;
      throw Error(fmt::format("feature '{}': unknown option '{}' (options: {})", extractor, key,
                              known.empty() ? "none" : known));
    }
    Value& v = it->second;
    const OptionSpec& s = specs_[v.spec];
    bool ok = true;
    switch (s.type) {
      case OptionSpec::Type::kBool: {
        bool b = false;
        ok = parse_bool(text, &b);
        v.number = b ? 1 : 0;
        break;
      }
      case OptionSpec::Type::kInt:
      case OptionSpec::Type::kDouble: {
        double d = 0;
        ok = parse_number(text, &d);
        if (ok && s.type == OptionSpec::Type::kInt && d != std::floor(d)) ok = false;
        if (ok && (d < s.min || d > s.max))
          throw Error(fmt::format("feature '{}': option {}={} is out of range [{:g}, {:g}]",
                                  extractor, key, text, s.min, s.max));
        v.number = d;
        break;
      }
      case OptionSpec::Type::kString:
        v.text = text;
        break;
    }
    if (!ok)
      throw Error(fmt::format("feature '{}': option {}={} is not {}", extractor, key, text,
                              type_name(s.type)));
  }
}

const ParsedOptions::Value& ParsedOptions::find(const std::string& name,
                                                OptionSpec::Type type) const {
  auto it = values_.find(name);
  if (it == values_.end() || specs_[it->second.spec].type != type)
    throw Error(fmt::format("internal: feature '{}' has no option '{}' of that type",
                            extractor_, name));
  return it->second;
}

bool ParsedOptions::get_bool(const std::string& n) const {
  return find(n, OptionSpec::Type::kBool).number != 0;
}
int ParsedOptions::get_int(const std::string& n) const {
  return static_cast<int>(find(n, OptionSpec::Type::kInt).number);
}
double ParsedOptions::get_double(const std::string& n) const {
  return find(n, OptionSpec::Type::kDouble).number;
}
const std::string& ParsedOptions::get_string(const std::string& n) const {
  return find(n, OptionSpec::Type::kString).text;
}

std::string ParsedOptions::name_suffix() const {
  std::string out;
  // values_ is a std::map: iteration is alphabetical by option name.
  for (const auto& [name, v] : values_) {
    const OptionSpec& s = specs_[v.spec];
    if (!s.feature_param) continue;
    const std::string& key = s.alias.empty() ? s.name : s.alias;
    switch (s.type) {
      case OptionSpec::Type::kBool:
        if (v.number != s.default_value) out += "_" + key;
        break;
      case OptionSpec::Type::kInt:
        if (v.number != s.default_value)
          out += fmt::format("_{}_{}", key, static_cast<int>(v.number));
        break;
      case OptionSpec::Type::kDouble:
        if (v.number != s.default_value) out += fmt::sprintf("_%s_%g", key, v.number);
        break;
      case OptionSpec::Type::kString:
        if (v.text != s.default_string) out += "_" + key + "_" + v.text;
        break;
    }
  }
  return out;
}

std::string ParsedOptions::feature_name(const std::string& internal_name) const {
  return feature_alias(internal_name) + name_suffix();
}

std::string feature_alias(const std::string& internal_name) {
  // libvmaf's alias table (libvmaf/src/feature/alias.c): internal names of the
  // form <Prefix>_feature_<x>_score print as <x> or integer_<x>.
  static const std::unordered_map<std::string, std::string> table = [] {
    std::unordered_map<std::string, std::string> t;
    const char* plain[] = {"adm2", "aim", "adm3", "adm_scale0", "adm_scale1", "adm_scale2",
                           "adm_scale3", "motion", "motion2", "motion3", "vif_scale0",
                           "vif_scale1", "vif_scale2", "vif_scale3"};
    for (const char* n : plain) t[fmt::format("VMAF_feature_{}_score", n)] = n;
    const char* integer[] = {"adm2", "aim", "adm3", "motion", "motion2", "motion3",
                             "vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3"};
    for (const char* n : integer)
      t[fmt::format("VMAF_integer_feature_{}_score", n)] = fmt::format("integer_{}", n);
    t["Cambi_feature_cambi_score"] = "cambi";
    t["Speed_chroma_feature_speed_chroma_u_score"] = "speed_chroma_u";
    t["Speed_chroma_feature_speed_chroma_v_score"] = "speed_chroma_v";
    t["Speed_chroma_feature_speed_chroma_uv_score"] = "speed_chroma_uv";
    t["Speed_temporal_feature_speed_temporal_score"] = "speed_temporal";
    return t;
  }();
  auto it = table.find(internal_name);
  return it == table.end() ? internal_name : it->second;
}

bool is_portable_name(const std::string& name) {
  const auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  if (name.empty() || !(letter(name[0]) || name[0] == '_')) return false;
  for (char c : name)
    if (!(letter(c) || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')) return false;
  return true;
}

void check_portable_name(const std::string& name, const std::string& what,
                         const std::string& hint) {
  if (is_portable_name(name)) return;
  std::string shown;
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    shown += (u >= 0x20 && u < 0x7f && c != '"' && c != '\\') ? std::string(1, c)
                                                              : fmt::format("\\x{:02x}", u);
  }
  throw Error(fmt::format("{} \"{}\" cannot be written as it is in XML, CSV and SUB output: "
                          "names start with a letter or '_' and hold only letters, digits, '_', "
                          "'.' and '-'{}",
                          what, shown, hint.empty() ? "" : "; " + hint));
}

OptionValues parse_option_string(const std::string& text, const std::string& context) {
  OptionValues out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(':', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    if (!item.empty()) {
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0)
        throw Error(fmt::format("{}: expected key=value, got '{}'", context, item));
      out[item.substr(0, eq)] = item.substr(eq + 1);
    }
    start = end + 1;
  }
  return out;
}


}  // namespace vqe
