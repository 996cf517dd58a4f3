// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file A libsvm regression model built in memory from libsvm's text format,
/// evaluated with libsvm's own svm_predict_values (Debian libsvm 3.24).

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <libsvm/svm.h>

namespace vqe::model_detail {

/// One support vector entry "index:value" of libsvm's text format.
struct SvmEntry {
  int index = 0;
  double value = 0;
};

/// The numbers of a libsvm regression model, as written in libsvm's text
/// format ("svm_type nu_svr / kernel_type rbf / gamma … / rho … / SV" and one
/// line "<coef> <index>:<value> …" per support vector).
struct SvmDescription {
  int svm_type = NU_SVR;      ///< EPSILON_SVR or NU_SVR
  int kernel_type = RBF;      ///< LINEAR, POLY, RBF or SIGMOID
  int degree = 0;             ///< POLY only
  double gamma = 0;           ///< POLY, RBF, SIGMOID
  double coef0 = 0;           ///< POLY, SIGMOID
  double rho = 0;             ///< decision-function constant
  std::vector<double> coefficients;             ///< one per support vector
  std::vector<std::vector<SvmEntry>> vectors;   ///< indices strictly increasing, >= 1
};

/// Parses libsvm's model text as libvmaf's svm_parse_model_from_buffer does
/// (libvmaf/src/svm.cpp; numbers read like `istream >> double`, i.e. correctly
/// rounded). Accepts regression models only (epsilon_svr, nu_svr, nr_class 2)
/// with kernels linear, polynomial, rbf, sigmoid. Throws vqe::Error whose
/// message starts with `what` on any defect (unknown key, missing or extra
/// support vectors, non-finite or malformed numbers, unsorted indices).
SvmDescription parse_libsvm_text(std::string_view text, const std::string& what);

/// Reads one number the way libvmaf's parsers do (strtod semantics, locale
/// independent): optional sign, decimal digits, optional fraction and
/// exponent; the whole token must be consumed and the value finite.
bool parse_decimal(std::string_view token, double* out);

/// An SvmDescription turned into libsvm's svm_model (pointers into owned
/// storage, never freed by libsvm). Immutable after construction; predict()
/// is thread-safe.
class SvmRegressor {
 public:
  explicit SvmRegressor(SvmDescription description);
  SvmRegressor(const SvmRegressor&) = delete;
  SvmRegressor& operator=(const SvmRegressor&) = delete;

  /// Σ coef_i·K(x, sv_i) − rho through libsvm's svm_predict_values (the same
  /// arithmetic as libvmaf's copy of svm.cpp). `x` is terminated by index -1.
  double predict(const svm_node* x) const;

  const SvmDescription& description() const { return description_; }

 private:
  SvmDescription description_;
  std::vector<svm_node> nodes_;        // all vectors, each ending with index -1
  std::vector<svm_node*> vector_ptrs_;
  std::vector<double> coefficients_;
  double* coefficient_rows_[1] = {nullptr};
  double rho_[1] = {0};
  svm_model model_{};
};

}  // namespace vqe::model_detail
