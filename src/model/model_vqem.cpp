// SPDX-License-Identifier: BSD-2-Clause
// Reader of VQE's own model text format, ".vqem" (specified in
// models/README.md). One statement per line: a keyword and its values
// separated by white space; '#' starts a comment line. Numbers are read with
// the same correctly rounded conversion as the JSON reader, so a .vqem file
// converted from a JSON model predicts exactly the same values.
#include <set>

#include <fmt/format.h>

#include "model/model_readers.h"
#include "vqe/error.h"

namespace vqe::model_detail {
namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

std::vector<std::string_view> split_words(std::string_view line) {
  std::vector<std::string_view> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  return words;
}

class Reader {
 public:
  Reader(std::string_view text, const std::string& origin) : text_(text), origin_(origin) {}

  /// Next statement (non-blank, non-comment line) split into words; false at
  /// the end of the text.
  bool next(std::vector<std::string_view>* words) {
    while (pos_ < text_.size()) {
      const std::size_t end = text_.find('\n', pos_);
      const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
      const std::string_view line = text_.substr(pos_, stop - pos_);
      pos_ = end == std::string_view::npos ? text_.size() : end + 1;
      ++line_;
      *words = split_words(line);
      if (words->empty() || words->front().front() == '#') continue;
      return true;
    }
    return false;
  }

  Error error(const std::string& message) const {
    return Error(fmt::format("{}: line {}: {}", origin_, line_, message));
  }

  double number(std::string_view token) const {
    double v = 0;
    if (!parse_decimal(token, &v)) throw error(fmt::format("'{}' is not a number", token));
    return v;
  }

  long integer(std::string_view token, long min, long max) const {
    double v = 0;
    if (!parse_decimal(token, &v) || v != static_cast<double>(static_cast<long>(v)) || v < min ||
        v > max)
      throw error(fmt::format("'{}' is not an integer in [{}, {}]", token, min, max));
    return static_cast<long>(v);
  }

  void expect_count(const std::vector<std::string_view>& w, std::size_t n) const {
    if (w.size() != n)
      throw error(fmt::format("'{}' takes {} value{}", w[0], n - 1, n == 2 ? "" : "s"));
  }

 private:
  std::string_view text_;
  const std::string& origin_;
  std::size_t pos_ = 0;
  int line_ = 0;
};

ModelType parse_type(const Reader& r, std::string_view t) {
  if (t == "LIBSVMNUSVR") return ModelType::kSvmNuSvr;
  if (t == "BOOTSTRAP_LIBSVMNUSVR") return ModelType::kBootstrapSvmNuSvr;
  if (t == "RESIDUEBOOTSTRAP_LIBSVMNUSVR") return ModelType::kResidueBootstrapSvmNuSvr;
  throw r.error(fmt::format("unknown model type '{}'", t));
}

// Option value: a bare number (normalised like libvmaf's JSON numbers),
// true/false, or a "quoted string" (kept verbatim).
std::string option_value(const Reader& r, std::string_view v) {
  if (v.size() >= 2 && v.front() == '"' && v.back() == '"') {
    const std::string_view inner = v.substr(1, v.size() - 2);
    if (inner.find('"') != std::string_view::npos) throw r.error("'\"' inside a string value");
    return std::string(inner);
  }
  if (v == "true" || v == "false") return std::string(v);
  double ignored = 0;
  if (!parse_decimal(v, &ignored))
    throw r.error(fmt::format("option value '{}' is not a number, true, false or a \"string\"",
                              v));
  return normalize_option_value(std::string(v));
}

// Reads the statements of one model after its "model <k>" line, up to "end".
SvmModel read_model(Reader& r, const std::string& what) {
  SvmModel m;
  std::set<std::string, std::less<>> seen;
  bool have_norm = false, have_score_rescale = false;
  bool have_svm = false;
  SvmDescription svm;
  long vectors = -1;
  bool have_gamma = false, have_rho = false;
  FeatureInput* current = nullptr;
  std::vector<bool> feature_rescaled;
  std::vector<std::string_view> w;

  auto once = [&](std::string_view key) {
    if (!seen.emplace(key).second) throw r.error(fmt::format("'{}' given twice", key));
  };

  while (true) {
    if (!r.next(&w)) throw r.error(fmt::format("{}: no 'end'", what));
    const std::string_view key = w[0];
    if (key == "end") {
      r.expect_count(w, 1);
      break;
    }
    if (key == "type") {
      once(key);
      r.expect_count(w, 2);
      m.type = parse_type(r, w[1]);
    } else if (key == "norm") {
      once(key);
      r.expect_count(w, 2);
      if (w[1] == "linear_rescale")
        m.norm = NormType::kLinearRescale;
      else if (w[1] == "none")
        m.norm = NormType::kNone;
      else
        throw r.error(fmt::format("unknown norm '{}' (linear_rescale or none)", w[1]));
      have_norm = true;
    } else if (key == "score_rescale") {
      once(key);
      r.expect_count(w, 3);
      m.slope = r.number(w[1]);
      m.intercept = r.number(w[2]);
      have_score_rescale = true;
    } else if (key == "clip") {
      once(key);
      r.expect_count(w, 3);
      m.clip_present = true;
      m.clip_min = r.number(w[1]);
      m.clip_max = r.number(w[2]);
    } else if (key == "transform") {
      once(key);
      r.expect_count(w, 2);
      if (w[1] != "enabled" && w[1] != "disabled")
        throw r.error("'transform' is 'enabled' or 'disabled'");
      m.transform_present = true;
      m.transform_enabled = w[1] == "enabled";
    } else if (key == "transform.p0" || key == "transform.p1" || key == "transform.p2") {
      once(key);
      r.expect_count(w, 2);
      std::optional<double>& p = key == "transform.p0" ? m.p0 : key == "transform.p1" ? m.p1 : m.p2;
      p = r.number(w[1]);
    } else if (key == "transform.knots") {
      once(key);
      if (w.size() % 2 != 1) throw r.error("'transform.knots' takes x y pairs");
      if ((w.size() - 1) / 2 > kMaxKnots)
        throw r.error(fmt::format("more than {} knots", kMaxKnots));
      for (std::size_t i = 1; i + 1 < w.size(); i += 2)
        m.knots.push_back({r.number(w[i]), r.number(w[i + 1])});
      m.knots_present = true;
    } else if (key == "transform.out_lte_in" || key == "transform.out_gte_in") {
      once(key);
      r.expect_count(w, 1);
      (key == "transform.out_lte_in" ? m.out_lte_in : m.out_gte_in) = true;
    } else if (key == "chroma_correction") {
      once(key);
      r.expect_count(w, 2);
      m.chroma_correction_present = true;
      m.chroma_correction = r.number(w[1]);
    } else if (key == "feature") {
      r.expect_count(w, 2);
      if (have_svm) throw r.error("'feature' after 'svm'");
      if (m.features.size() == kMaxFeatures)
        throw r.error(fmt::format("more than {} features", kMaxFeatures));
      m.features.push_back(FeatureInput{std::string(w[1]), {}, 1, 0});
      current = &m.features.back();
      feature_rescaled.push_back(false);
    } else if (key == "rescale") {
      r.expect_count(w, 3);
      if (!current) throw r.error("'rescale' before any 'feature'");
      if (feature_rescaled.back()) throw r.error("'rescale' given twice for one feature");
      current->slope = r.number(w[1]);
      current->intercept = r.number(w[2]);
      feature_rescaled.back() = true;
    } else if (key == "option") {
      r.expect_count(w, 3);
      if (!current) throw r.error("'option' before any 'feature'");
      const std::string name(w[1]);
      if (current->options.count(name))
        throw r.error(fmt::format("option '{}' given twice for one feature", name));
      current->options[name] = option_value(r, w[2]);
    } else if (key == "svm") {
      once(key);
      r.expect_count(w, 3);
      if (w[1] == "nu_svr")
        svm.svm_type = NU_SVR;
      else if (w[1] == "epsilon_svr")
        svm.svm_type = EPSILON_SVR;
      else
        throw r.error(fmt::format("svm type '{}' (nu_svr or epsilon_svr)", w[1]));
      if (w[2] == "linear")
        svm.kernel_type = LINEAR;
      else if (w[2] == "polynomial")
        svm.kernel_type = POLY;
      else if (w[2] == "rbf")
        svm.kernel_type = RBF;
      else if (w[2] == "sigmoid")
        svm.kernel_type = SIGMOID;
      else
        throw r.error(fmt::format("svm kernel '{}' (linear, polynomial, rbf or sigmoid)", w[2]));
      have_svm = true;
    } else if (key == "svm.gamma") {
      once(key);
      r.expect_count(w, 2);
      svm.gamma = r.number(w[1]);
      have_gamma = true;
    } else if (key == "svm.coef0") {
      once(key);
      r.expect_count(w, 2);
      svm.coef0 = r.number(w[1]);
    } else if (key == "svm.degree") {
      once(key);
      r.expect_count(w, 2);
      svm.degree = static_cast<int>(r.integer(w[1], -1000000, 1000000));
    } else if (key == "svm.rho") {
      once(key);
      r.expect_count(w, 2);
      svm.rho = r.number(w[1]);
      have_rho = true;
    } else if (key == "svm.vectors") {
      once(key);
      r.expect_count(w, 2);
      vectors = r.integer(w[1], 0, 100000000);
    } else if (key == "sv") {
      if (!have_svm || vectors < 0) throw r.error("'sv' before 'svm' and 'svm.vectors'");
      if (static_cast<long>(svm.vectors.size()) == vectors)
        throw r.error(fmt::format("more than the {} support vectors announced", vectors));
      if (w.size() < 2) throw r.error("'sv' needs a coefficient");
      std::vector<SvmEntry> entries;
      for (std::size_t i = 2; i < w.size(); ++i) {
        const std::size_t colon = w[i].find(':');
        if (colon == std::string_view::npos)
          throw r.error(fmt::format("'{}' is not index:value", w[i]));
        const long index = r.integer(w[i].substr(0, colon), 1, 1000000);
        if (!entries.empty() && index <= entries.back().index)
          throw r.error("support vector indices must increase");
        entries.push_back({static_cast<int>(index), r.number(w[i].substr(colon + 1))});
      }
      svm.coefficients.push_back(r.number(w[1]));
      svm.vectors.push_back(std::move(entries));
    } else {
      throw r.error(fmt::format("unknown statement '{}'", key));
    }
  }
  if (!have_norm) throw r.error(fmt::format("{}: no 'norm'", what));
  if (m.features.empty()) throw r.error(fmt::format("{}: no 'feature'", what));
  if (m.norm == NormType::kLinearRescale) {
    if (!have_score_rescale) throw r.error(fmt::format("{}: no 'score_rescale'", what));
    for (std::size_t i = 0; i < m.features.size(); ++i)
      if (!feature_rescaled[i])
        throw r.error(fmt::format("{}: feature '{}' has no 'rescale'", what, m.features[i].name));
  }
  if (!have_svm || !have_gamma || !have_rho || vectors < 0)
    throw r.error(fmt::format("{}: needs 'svm', 'svm.gamma', 'svm.rho' and 'svm.vectors'", what));
  if (static_cast<long>(svm.vectors.size()) != vectors)
    throw r.error(fmt::format("{}: {} support vectors announced, {} given", what, vectors,
                              svm.vectors.size()));
  m.svm = std::make_shared<SvmRegressor>(std::move(svm));
  validate(m, what);
  return m;
}

}  // namespace

std::unique_ptr<Model::Impl> read_vqem_model(std::string_view text, const std::string& origin) {
  Reader r(text, origin);
  std::vector<std::string_view> w;
  if (!r.next(&w) || w[0] != "vqem") throw r.error("not a .vqem model (no 'vqem 1' line)");
  if (w.size() != 2 || w[1] != "1") throw r.error("unsupported .vqem format version");

  auto impl = std::make_unique<Model::Impl>();
  impl->origin = origin;
  long collection = -1;
  bool seen_version = false, seen_license = false;
  while (r.next(&w)) {
    const std::string_view key = w[0];
    if (key == "version") {
      if (seen_version || w.size() != 2) throw r.error("one 'version <text>' line expected");
      seen_version = true;
    } else if (key == "license") {
      if (seen_license || w.size() < 2) throw r.error("one 'license <text>' line expected");
      seen_license = true;
    } else if (key == "collection") {
      if (collection >= 0 || !impl->models.empty() || w.size() != 2)
        throw r.error("'collection <N>' must come once, before the models");
      collection = r.integer(w[1], 1, static_cast<long>(kMaxBootstrapModels));
    } else if (key == "model") {
      r.expect_count(w, 2);
      const long k = r.integer(w[1], 0, static_cast<long>(kMaxBootstrapModels));
      if (k != static_cast<long>(impl->models.size()))
        throw r.error(fmt::format("expected 'model {}'", impl->models.size()));
      if (collection < 0 && k > 0) throw r.error("more than one model without 'collection'");
      if (collection >= 0 && k > collection)
        throw r.error(fmt::format("more models than 'collection {}' announced", collection));
      impl->models.push_back(read_model(r, fmt::format("model {}", k)));
      if (k > 0 && impl->models.back().type == ModelType::kSvmNuSvr)
        throw r.error("a bootstrap model needs type BOOTSTRAP_LIBSVMNUSVR or "
                      "RESIDUEBOOTSTRAP_LIBSVMNUSVR");
      if (k > 1 && impl->models.back().type != impl->models[1].type)
        throw r.error("bootstrap model types differ");
    } else {
      throw r.error(fmt::format("unknown statement '{}'", key));
    }
  }
  const std::size_t expected = collection < 0 ? 1 : static_cast<std::size_t>(collection) + 1;
  if (impl->models.size() != expected)
    throw Error(fmt::format("{}: {} model(s) expected, {} found", origin, expected,
                            impl->models.size()));
  impl->bootstrap = collection >= 0;
  impl->finish();
  return impl;
}

}  // namespace vqe::model_detail
