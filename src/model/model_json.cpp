// SPDX-License-Identifier: BSD-2-Clause
// libvmaf's JSON model format (libvmaf/src/read_json_model.c), read with
// nlohmann::json. Keys and their meaning follow libvmaf; where libvmaf would
// accept a defective file and predict garbage (or crash), this reader throws
// vqe::Error instead. Differences, all on files libvmaf mishandles:
//  - "p0"/"p1"/"p2"/"knots": null means "absent" (libvmaf fails to parse null);
//  - "out_lte_in"/"out_gte_in" may be JSON booleans as well as "true"/"false";
//  - slopes/intercepts must hold exactly one entry more than feature_names
//    (libvmaf leaves missing ones at 0), norm_type is required, knots must be
//    increasing, score_clip must be [min, max].
#include <charconv>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/model_readers.h"
#include "vqe/error.h"

namespace vqe::model_detail {
namespace {

using json = nlohmann::json;

constexpr int kMaxJsonDepth = 32;

double number(const json& j, const std::string& what) {
  if (!j.is_number()) throw Error(fmt::format("{}: expected a number", what));
  const double v = j.get<double>();
  if (!std::isfinite(v)) throw Error(fmt::format("{}: number out of range", what));
  return v;
}

const std::string& string_value(const json& j, const std::string& what) {
  if (!j.is_string()) throw Error(fmt::format("{}: expected a string", what));
  return j.get_ref<const std::string&>();
}

bool bool_value(const json& j, const std::string& what) {
  if (!j.is_boolean()) throw Error(fmt::format("{}: expected true or false", what));
  return j.get<bool>();
}

// The text libvmaf's JSON reader sees for a number (pdjson hands over the
// digits as written). Published models are written by Python, whose float
// repr is the shortest round-trip form, which is what to_chars produces.
std::string number_text(const json& j) {
  if (j.is_number_unsigned()) return std::to_string(j.get<std::uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, j.get<double>());
  if (ec != std::errc()) throw Error("internal: cannot format a number");
  return std::string(buf, end);
}

// One value of a feature_opts_dicts entry as libvmaf stores it in its
// dictionary (numbers normalised, booleans as "true"/"false").
std::string option_value(const json& j, const std::string& what) {
  if (j.is_number()) {
    if (j.is_number_float() && !std::isfinite(j.get<double>()))
      throw Error(fmt::format("{}: number out of range", what));
    return normalize_option_value(number_text(j));
  }
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  if (j.is_string()) return j.get<std::string>();
  throw Error(fmt::format("{}: option values must be numbers, booleans or strings", what));
}

std::vector<double> number_array(const json& j, const std::string& what) {
  if (!j.is_array() || j.empty())
    throw Error(fmt::format("{}: expected a non-empty array of numbers", what));
  std::vector<double> out;
  for (std::size_t i = 0; i < j.size(); ++i)
    out.push_back(number(j[i], fmt::format("{}[{}]", what, i)));
  return out;
}

void read_score_transform(const json& t, SvmModel& m, const std::string& what) {
  if (!t.is_object()) throw Error(fmt::format("{}: expected an object", what));
  m.transform_present = true;
  m.transform_enabled = false;
  for (const auto& [key, value] : t.items()) {
    const std::string at = what + "." + key;
    if (key == "enabled") {
      m.transform_enabled = bool_value(value, at);
    } else if (key == "p0" || key == "p1" || key == "p2") {
      std::optional<double>& p = key == "p0" ? m.p0 : key == "p1" ? m.p1 : m.p2;
      if (value.is_null())
        p.reset();
      else
        p = number(value, at);
    } else if (key == "knots") {
      m.knots.clear();
      m.knots_present = false;
      if (value.is_null()) continue;
      if (!value.is_array()) throw Error(fmt::format("{}: expected an array of [x, y]", at));
      if (value.size() > kMaxKnots)
        throw Error(fmt::format("{}: {} knots; libvmaf accepts at most {}", at, value.size(),
                                kMaxKnots));
      for (std::size_t i = 0; i < value.size(); ++i) {
        const json& k = value[i];
        const std::string kat = fmt::format("{}[{}]", at, i);
        if (!k.is_array() || k.size() != 2) throw Error(fmt::format("{}: expected [x, y]", kat));
        m.knots.push_back({number(k[0], kat + "[0]"), number(k[1], kat + "[1]")});
      }
      m.knots_present = true;
    } else if (key == "out_lte_in" || key == "out_gte_in") {
      bool& flag = key == "out_lte_in" ? m.out_lte_in : m.out_gte_in;
      if (value.is_boolean())
        flag = value.get<bool>();
      else
        flag = string_value(value, at) == "true";
    }
    // Other keys are ignored, as in libvmaf.
  }
}

ModelType model_type(const std::string& text, const std::string& what) {
  if (text == "LIBSVMNUSVR") return ModelType::kSvmNuSvr;
  if (text == "BOOTSTRAP_LIBSVMNUSVR") return ModelType::kBootstrapSvmNuSvr;
  if (text == "RESIDUEBOOTSTRAP_LIBSVMNUSVR") return ModelType::kResidueBootstrapSvmNuSvr;
  throw Error(fmt::format("{}: unknown model_type '{}' (expected LIBSVMNUSVR, "
                          "BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR)",
                          what, text));
}

// One {"model_dict": {...}} object. `has_type` reports whether model_type
// was given.
SvmModel read_model(const json& root, const std::string& what, bool* has_type) {
  if (!root.is_object()) throw Error(fmt::format("{}: expected an object", what));
  const auto md_it = root.find("model_dict");
  if (md_it == root.end()) throw Error(fmt::format("{}: no \"model_dict\"", what));
  const json& md = *md_it;
  const std::string at = what + ": model_dict";
  if (!md.is_object()) throw Error(fmt::format("{}: expected an object", at));

  SvmModel m;
  *has_type = false;
  bool have_norm = false;
  std::vector<double> slopes, intercepts;
  std::vector<std::string> names;
  std::vector<OptionValues> opts;
  for (const auto& [key, value] : md.items()) {
    const std::string kat = at + "." + key;
    if (key == "model_type") {
      m.type = model_type(string_value(value, kat), kat);
      *has_type = true;
    } else if (key == "norm_type") {
      const std::string& n = string_value(value, kat);
      if (n == "linear_rescale")
        m.norm = NormType::kLinearRescale;
      else if (n == "none")
        m.norm = NormType::kNone;
      else
        throw Error(fmt::format("{}: unknown norm_type '{}' (expected linear_rescale or none)",
                                kat, n));
      have_norm = true;
    } else if (key == "score_clip") {
      const std::vector<double> c = number_array(value, kat);
      if (c.size() != 2) throw Error(fmt::format("{}: expected [min, max]", kat));
      m.clip_present = true;
      m.clip_min = c[0];
      m.clip_max = c[1];
    } else if (key == "score_transform") {
      read_score_transform(value, m, kat);
    } else if (key == "chroma_correction_parameter") {
      m.chroma_correction_present = true;
      m.chroma_correction = number(value, kat);
    } else if (key == "slopes") {
      slopes = number_array(value, kat);
    } else if (key == "intercepts") {
      intercepts = number_array(value, kat);
    } else if (key == "feature_names") {
      if (!value.is_array()) throw Error(fmt::format("{}: expected an array of strings", kat));
      if (value.size() > kMaxFeatures)
        throw Error(fmt::format("{}: {} features; libvmaf accepts at most {}", kat,
                                value.size(), kMaxFeatures));
      for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string& n = string_value(value[i], fmt::format("{}[{}]", kat, i));
        if (n.empty()) throw Error(fmt::format("{}[{}]: empty feature name", kat, i));
        names.push_back(n);
      }
    } else if (key == "feature_opts_dicts") {
      if (!value.is_array()) throw Error(fmt::format("{}: expected an array of objects", kat));
      if (value.size() > kMaxFeatures)
        throw Error(fmt::format("{}: {} entries; libvmaf accepts at most {}", kat,
                                value.size(), kMaxFeatures));
      for (std::size_t i = 0; i < value.size(); ++i) {
        const json& d = value[i];
        const std::string dat = fmt::format("{}[{}]", kat, i);
        if (!d.is_object()) throw Error(fmt::format("{}: expected an object", dat));
        OptionValues o;
        for (const auto& [ok, ov] : d.items()) {
          if (ok.empty()) throw Error(fmt::format("{}: empty option name", dat));
          o[ok] = option_value(ov, dat + "." + ok);
        }
        opts.push_back(std::move(o));
      }
    } else if (key == "model") {
      m.svm = std::make_shared<SvmRegressor>(parse_libsvm_text(string_value(value, kat), kat));
    }
    // Other keys (feature_dict, param_dict's copies …) are ignored, as in libvmaf.
  }

  if (!have_norm) throw Error(fmt::format("{}: no norm_type", at));
  if (names.empty()) throw Error(fmt::format("{}: no feature_names", at));
  if (opts.size() > names.size())
    throw Error(fmt::format("{}: {} feature_opts_dicts for {} feature_names", at, opts.size(),
                            names.size()));
  if (m.norm == NormType::kLinearRescale) {
    if (slopes.size() != names.size() + 1 || intercepts.size() != names.size() + 1)
      throw Error(fmt::format("{}: linear_rescale needs {} slopes and intercepts (score + one "
                              "per feature), found {} and {}",
                              at, names.size() + 1, slopes.size(), intercepts.size()));
    m.slope = slopes[0];
    m.intercept = intercepts[0];
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    FeatureInput f;
    f.name = names[i];
    if (i < opts.size()) f.options = opts[i];
    if (m.norm == NormType::kLinearRescale) {
      f.slope = slopes[i + 1];
      f.intercept = intercepts[i + 1];
    }
    m.features.push_back(std::move(f));
  }
  validate(m, at);
  return m;
}

json parse_json(std::string_view text, const std::string& origin) {
  try {
    const json::parser_callback_t limit_depth = [&origin](int depth, json::parse_event_t,
                                                          json&) -> bool {
      if (depth > kMaxJsonDepth)
        throw Error(fmt::format("{}: JSON nested deeper than {} levels", origin, kMaxJsonDepth));
      return true;
    };
    return json::parse(text.begin(), text.end(), limit_depth);
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: not valid JSON: {}", origin, e.what()));
  }
}

}  // namespace

std::unique_ptr<Model::Impl> read_json_model(std::string_view text, const std::string& origin) {
  try {
    const json root = parse_json(text, origin);
    if (!root.is_object())
      throw Error(fmt::format("{}: a model file is a JSON object", origin));
    auto impl = std::make_unique<Model::Impl>();
    impl->origin = origin;
    bool has_type = false;
    if (root.contains("model_dict")) {
      // A single model; libvmaf does not look at its model_type.
      impl->models.push_back(read_model(root, origin, &has_type));
    } else if (root.contains("0")) {
      // A bootstrap collection: "0" is the main model, "1" … "N" the
      // bootstrap models, read until the first missing index.
      impl->bootstrap = true;
      for (std::size_t i = 0;; ++i) {
        const auto it = root.find(std::to_string(i));
        if (it == root.end()) break;
        if (i > kMaxBootstrapModels)
          throw Error(fmt::format("{}: more than {} bootstrap models", origin,
                                  kMaxBootstrapModels));
        const std::string what = fmt::format("{}: model \"{}\"", origin, i);
        impl->models.push_back(read_model(*it, what, &has_type));
        if (i == 0) continue;
        const ModelType t = impl->models.back().type;
        if (!has_type || t == ModelType::kSvmNuSvr)
          throw Error(fmt::format("{}: a bootstrap collection's models need model_type "
                                  "BOOTSTRAP_LIBSVMNUSVR or RESIDUEBOOTSTRAP_LIBSVMNUSVR",
                                  what));
        if (t != impl->models[1].type)
          throw Error(fmt::format("{}: model_type differs from model \"1\"", what));
      }
      if (impl->models.size() < 2)
        throw Error(fmt::format("{}: a bootstrap collection needs models \"0\" and \"1\"",
                                origin));
    } else {
      throw Error(fmt::format("{}: neither a model (\"model_dict\") nor a bootstrap "
                              "collection (\"0\", \"1\", …)",
                              origin));
    }
    impl->finish();
    return impl;
  } catch (const json::exception& e) {
    throw Error(fmt::format("{}: malformed model: {}", origin, e.what()));
  }
}

}  // namespace vqe::model_detail
