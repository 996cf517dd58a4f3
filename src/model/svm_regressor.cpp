// SPDX-License-Identifier: BSD-2-Clause
// libsvm regression models: text parsing and prediction through libsvm.
#include "model/svm_regressor.h"

#include <charconv>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::model_detail {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; }

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

bool parse_int(std::string_view token, int* out) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if (token.empty() || token.front() == '+') return false;
  int v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc() || end != token.data() + token.size()) return false;
  *out = v;
  return true;
}

// Sequential reader of lines.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool next(std::string_view* line) {
    if (pos_ >= text_.size()) return false;
    const std::size_t end = text_.find('\n', pos_);
    const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
    *line = text_.substr(pos_, stop - pos_);
    pos_ = end == std::string_view::npos ? text_.size() : end + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  int number_ = 0;
};

}  // namespace

bool parse_decimal(std::string_view token, double* out) {
  if (!token.empty() && token.front() == '+') token.remove_prefix(1);
  if (token.empty() || token.front() == '+') return false;
  // from_chars also reads "inf"/"nan"; libvmaf's readers do not, and a
  // non-finite model number is a defect in any case.
  double v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v,
                                         std::chars_format::general);
  if (ec != std::errc() || end != token.data() + token.size() || !std::isfinite(v)) return false;
  *out = v;
  return true;
}

SvmDescription parse_libsvm_text(std::string_view text, const std::string& what) {
  SvmDescription d;
  LineReader lines(text);
  std::string_view line;
  auto fail = [&](const std::string& message) -> Error {
    return Error(fmt::format("{}: libsvm model line {}: {}", what, lines.number(), message));
  };
  static constexpr const char* kSvmTypes[] = {"c_svc", "nu_svc", "one_class", "epsilon_svr",
                                              "nu_svr"};
  static constexpr const char* kKernelTypes[] = {"linear", "polynomial", "rbf", "sigmoid",
                                                 "precomputed"};
  bool have_type = false, have_kernel = false, have_rho = false, have_sv_header = false;
  int nr_class = 0;
  long total_sv = -1;

  while (lines.next(&line)) {
    const auto words = split_words(line);
    if (words.empty()) continue;
    const std::string_view key = words[0];
    if (key == "SV") {
      if (words.size() != 1) throw fail("unexpected text after 'SV'");
      have_sv_header = true;
      break;
    }
    auto one_value = [&]() -> std::string_view {
      if (words.size() != 2) throw fail(fmt::format("'{}' needs exactly one value", key));
      return words[1];
    };
    if (key == "svm_type") {
      const std::string_view v = one_value();
      int found = -1;
      for (int i = 0; i < 5; ++i)
        if (v == kSvmTypes[i]) found = i;
      if (found < 0) throw fail(fmt::format("unknown svm_type '{}'", v));
      if (found != EPSILON_SVR && found != NU_SVR)
        throw fail(fmt::format("svm_type '{}' is not a regression model (need nu_svr or "
                               "epsilon_svr)", v));
      d.svm_type = found;
      have_type = true;
    } else if (key == "kernel_type") {
      const std::string_view v = one_value();
      int found = -1;
      for (int i = 0; i < 5; ++i)
        if (v == kKernelTypes[i]) found = i;
      if (found < 0) throw fail(fmt::format("unknown kernel_type '{}'", v));
      if (found == PRECOMPUTED) throw fail("kernel_type 'precomputed' is not supported");
      d.kernel_type = found;
      have_kernel = true;
    } else if (key == "degree") {
      if (!parse_int(one_value(), &d.degree)) throw fail("bad degree");
    } else if (key == "gamma") {
      if (!parse_decimal(one_value(), &d.gamma)) throw fail("bad gamma");
    } else if (key == "coef0") {
      if (!parse_decimal(one_value(), &d.coef0)) throw fail("bad coef0");
    } else if (key == "nr_class") {
      if (!parse_int(one_value(), &nr_class) || nr_class != 2)
        throw fail("nr_class must be 2 for a regression model");
    } else if (key == "total_sv") {
      int n = 0;
      if (!parse_int(one_value(), &n) || n < 0) throw fail("bad total_sv");
      total_sv = n;
    } else if (key == "rho") {
      if (!parse_decimal(one_value(), &d.rho)) throw fail("bad rho (one number expected)");
      have_rho = true;
    } else if (key == "label" || key == "nr_sv" || key == "probA" || key == "probB") {
      // Classification/probability data: not used by regression prediction,
      // but check the numbers are numbers.
      for (std::size_t i = 1; i < words.size(); ++i) {
        double ignored = 0;
        if (!parse_decimal(words[i], &ignored)) throw fail(fmt::format("bad {} value", key));
      }
    } else {
      throw fail(fmt::format("unknown key '{}'", key));
    }
  }
  if (!have_sv_header) throw fail("no 'SV' line");
  if (!have_type) throw fail("no svm_type");
  if (!have_kernel) throw fail("no kernel_type");
  if (nr_class != 2) throw fail("no nr_class");
  if (total_sv < 0) throw fail("no total_sv");
  if (!have_rho) throw fail("no rho");

  for (long i = 0; i < total_sv; ++i) {
    if (!lines.next(&line))
      throw fail(fmt::format("total_sv is {} but only {} support vectors follow", total_sv, i));
    const auto words = split_words(line);
    if (words.empty()) throw fail("empty support vector line");
    double coef = 0;
    if (!parse_decimal(words[0], &coef)) throw fail("bad support vector coefficient");
    std::vector<SvmEntry> entries;
    entries.reserve(words.size() - 1);
    for (std::size_t w = 1; w < words.size(); ++w) {
      const std::size_t colon = words[w].find(':');
      SvmEntry e;
      if (colon == std::string_view::npos || !parse_int(words[w].substr(0, colon), &e.index) ||
          !parse_decimal(words[w].substr(colon + 1), &e.value))
        throw fail(fmt::format("bad support vector entry '{}' (expected index:value)", words[w]));
      if (e.index < 1 || e.index == std::numeric_limits<int>::max())
        throw fail(fmt::format("support vector index {} out of range", e.index));
      if (!entries.empty() && e.index <= entries.back().index)
        throw fail("support vector indices must increase");
      entries.push_back(e);
    }
    d.coefficients.push_back(coef);
    d.vectors.push_back(std::move(entries));
  }
  while (lines.next(&line))
    if (!split_words(line).empty())
      throw fail(fmt::format("text after the {} support vectors announced by total_sv",
                             total_sv));
  return d;
}

SvmRegressor::SvmRegressor(SvmDescription description) : description_(std::move(description)) {
  std::size_t total = 0;
  for (const auto& v : description_.vectors) total += v.size() + 1;
  nodes_.reserve(total);
  std::vector<std::size_t> starts;
  starts.reserve(description_.vectors.size());
  for (const auto& v : description_.vectors) {
    starts.push_back(nodes_.size());
    for (const SvmEntry& e : v) nodes_.push_back(svm_node{e.index, e.value});
    nodes_.push_back(svm_node{-1, 0.0});
  }
  for (std::size_t s : starts) vector_ptrs_.push_back(&nodes_[s]);
  coefficients_ = description_.coefficients;
  coefficient_rows_[0] = coefficients_.data();
  rho_[0] = description_.rho;

  model_.param.svm_type = description_.svm_type;
  model_.param.kernel_type = description_.kernel_type;
  model_.param.degree = description_.degree;
  model_.param.gamma = description_.gamma;
  model_.param.coef0 = description_.coef0;
  model_.nr_class = 2;
  model_.l = static_cast<int>(description_.vectors.size());
  model_.SV = vector_ptrs_.data();
  model_.sv_coef = coefficient_rows_;
  model_.rho = rho_;
  model_.free_sv = 0;
}

double SvmRegressor::predict(const svm_node* x) const {
  double decision = 0;
  // For regression, svm_predict() is svm_predict_values() plus a heap
  // allocation for the decision value; call the latter directly.
  return svm_predict_values(&model_, x, &decision);
}

}  // namespace vqe::model_detail
