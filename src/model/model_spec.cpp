// SPDX-License-Identifier: BSD-2-Clause
// Models as the command line and the C API name them: libvmaf's --model
// syntax (tools/cli_parse.c) and feature overrides by extractor name, which
// need the extractor list (kept apart from the model parser, model.cpp, so
// that the parser builds alone, e.g. for its fuzz target).

#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/extractor.h"
#include "vqe/error.h"
#include "vqe/model.h"

namespace vqe {

void Model::apply_override(const std::string& extractor, const std::string& option,
                           const std::string& value) {
  apply_override(extractor, option, value, [](const std::string& feature) -> std::string {
    const ExtractorInfo* info = find_extractor_by_feature(feature);
    return info ? info->name : std::string();
  });
}

Model load_model_spec(const std::string& cli_spec) {
  std::optional<std::string> version, path, name;
  bool enable_transform = false, disable_clip = false;
  struct Override {
    std::string extractor, option, value;
  };
  std::vector<Override> overrides;

  std::size_t start = 0;
  while (true) {
    const std::size_t colon = cli_spec.find(':', start);
    const std::string item = cli_spec.substr(
        start, colon == std::string::npos ? std::string::npos : colon - start);
    if (item.empty())
      throw Error(fmt::format("model option '{}': empty item (items are separated by ':')",
                              cli_spec));
    const std::size_t eq = item.find('=');
    const std::string key = item.substr(0, eq);
    std::string val;
    if (eq == std::string::npos) {
      if (key != "disable_clip" && key != "enable_transform")
        throw Error(fmt::format("model option '{}': bad item '{}' (expected key=value)",
                                cli_spec, item));
      val = "true";
    } else {
      val = item.substr(eq + 1);
    }
    if (key == "path") {
      path = val;
    } else if (key == "name") {
      name = val;
    } else if (key == "version") {
      version = val;
    } else if (key == "disable_clip" || key == "enable_transform") {
      // libvmaf turns the flag on for "true" and silently ignores anything
      // else; here a value that is not a boolean is an error.
      bool on = false;
      if (val == "true" || val == "1")
        on = true;
      else if (val != "false" && val != "0")
        throw Error(fmt::format("model option '{}': {}={} is not a boolean (true/false or 1/0)",
                                cli_spec, key, val));
      // As libvmaf's flag bits: once on, a flag stays on.
      (key == "disable_clip" ? disable_clip : enable_transform) |= on;
    } else {
      const std::size_t dot = key.find('.');
      if (dot == std::string::npos || dot == 0 || dot + 1 == key.size())
        throw Error(fmt::format("model option '{}': unknown key '{}' (expected path, version, "
                                "name, enable_transform, disable_clip or "
                                "<extractor>.<option>=<value>)",
                                cli_spec, key));
      // libvmaf takes the text between the first and second '.' as the option.
      const std::size_t dot2 = key.find('.', dot + 1);
      overrides.push_back(
          {key.substr(0, dot),
           key.substr(dot + 1, dot2 == std::string::npos ? std::string::npos : dot2 - dot - 1),
           val});
    }
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (version && path)
    throw Error(fmt::format("model option '{}': give either version= or path=, not both",
                            cli_spec));
  if (!version && !path)
    throw Error(fmt::format("model option '{}': needs version=<built-in> or path=<file>",
                            cli_spec));
  Model model = version ? Model::builtin(*version) : Model::from_file(*path);
  if (name) model.set_name(*name);
  model.set_enable_transform(enable_transform);
  model.set_disable_clip(disable_clip);
  for (const Override& o : overrides) model.apply_override(o.extractor, o.option, o.value);
  return model;
}

}  // namespace vqe
