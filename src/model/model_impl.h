// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Internal representation of a VMAF model, shared by the JSON and
/// .vqem readers and by prediction (model.cpp).

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/svm_regressor.h"
#include "vqe/model.h"

namespace vqe::model_detail {

/// libvmaf's VmafModelType.
enum class ModelType { kSvmNuSvr, kBootstrapSvmNuSvr, kResidueBootstrapSvmNuSvr };
/// libvmaf's VmafModelNormalizationType.
enum class NormType { kNone, kLinearRescale };

/// libvmaf's limits (read_json_model.c MAX_FEATURE_COUNT, MAX_KNOT_COUNT).
inline constexpr std::size_t kMaxFeatures = 64;
inline constexpr std::size_t kMaxKnots = 10;
/// Bootstrap collections larger than this are refused (libvmaf has no limit;
/// the published ones hold 20).
inline constexpr std::size_t kMaxBootstrapModels = 256;

struct Knot {
  double x = 0, y = 0;
};

/// One feature input of one SVM model.
struct FeatureInput {
  std::string name;      ///< libvmaf internal name
  OptionValues options;  ///< normalised option strings
  double slope = 1;      ///< linear rescale (used when NormType::kLinearRescale)
  double intercept = 0;
};

/// One nu-SVR model: libvmaf's VmafModel without the name.
struct SvmModel {
  ModelType type = ModelType::kSvmNuSvr;
  NormType norm = NormType::kNone;
  double slope = 1;      ///< score rescale: prediction = (svm − intercept) / slope
  double intercept = 0;
  std::vector<FeatureInput> features;

  bool clip_present = false;  ///< "score_clip" given
  double clip_min = 0, clip_max = 0;

  bool transform_present = false;  ///< "score_transform" given
  bool transform_enabled = false;  ///< its "enabled" value
  std::optional<double> p0, p1, p2;
  bool knots_present = false;
  std::vector<Knot> knots;
  bool out_lte_in = false, out_gte_in = false;

  bool chroma_correction_present = false;
  double chroma_correction = 0;  ///< chroma_correction_parameter

  std::shared_ptr<const SvmRegressor> svm;

  /// Filled by finish(): position of each feature in Model::features().
  std::vector<std::size_t> input_index;
  /// For chroma correction: index of the one feature whose name contains
  /// "adm3" (guiding) and "speed_chroma" (guided); set by validate().
  std::size_t guiding_feature = 0, guided_feature = 0;
};

/// Checks a parsed model for the defects libvmaf would trip over at
/// prediction time (missing norm_type, slope counts, knots out of order,
/// chroma correction without its features …) and throws vqe::Error naming
/// `what`.
void validate(SvmModel& model, const std::string& what);

}  // namespace vqe::model_detail

namespace vqe {

struct Model::Impl {
  std::string name = "vmaf";
  std::string origin;
  bool bootstrap = false;
  bool enable_transform = false;
  bool disable_clip = false;
  /// Single model: one entry. Bootstrap: [0] is the main model, [1..N] the
  /// bootstrap models (libvmaf's VmafModelCollection).
  std::vector<model_detail::SvmModel> models;
  std::vector<ModelFeature> features;  ///< union, first-use order

  /// Rebuilds `features` and each model's input_index.
  void finish();
};

}  // namespace vqe
