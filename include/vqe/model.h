// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file VMAF models: loading (libvmaf JSON, VQE's own .vqem text format,
/// built-in models) and per-frame prediction, bit-identical to libvmaf 3.2.0
/// (libvmaf/src/model.c, predict.c, read_json_model.c, svm.cpp).
///
/// A model maps one frame's feature values to a score: each feature is
/// rescaled linearly (slope·x + intercept), a nu-SVR with an RBF kernel
/// (evaluated by libsvm) predicts a normalised score, which is rescaled back
/// ((y − intercept) / slope), optionally transformed (polynomial, knots,
/// rectification) and clipped (usually to [0, 100]).
///
/// Bootstrap models (vmaf_b_v0.6.3, vmaf_float_b_v0.6.3) hold a main model and
/// N bootstrap models; they emit `<name>`, `<name>_0001` … `<name>_NNNN`,
/// `<name>_bagging`, `<name>_stddev`, `<name>_ci_p95_lo`, `<name>_ci_p95_hi`.

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "vqe/options.h"

namespace vqe {

/// One input of a model: the libvmaf internal feature name (e.g.
/// "VMAF_integer_feature_adm2_score") and the options of the extractor that
/// must compute it (e.g. adm_enhn_gain_limit -> "1"). Option values are
/// already normalised the way libvmaf stores them (numbers printed with %g
/// after a round trip through float), so they can be handed to ParsedOptions
/// as they are.
struct ModelFeature {
  std::string internal_name;
  OptionValues options;
  bool operator==(const ModelFeature&) const = default;
};

/// A loaded VMAF model (single or bootstrap collection). Copyable; copies are
/// independent. predict() is const and thread-safe.
class Model {
 public:
  /// An empty placeholder (no features, name "vmaf"); predict() throws until
  /// a loaded model is assigned to it.
  Model();
  Model(const Model&);
  Model& operator=(const Model&);
  Model(Model&&) noexcept;
  Model& operator=(Model&&) noexcept;
  ~Model();

  /// Reads a libvmaf JSON model file (a single model with "model_dict", or a
  /// bootstrap collection with keys "0", "1", …). Throws vqe::Error naming
  /// the file when it cannot be read or is not a valid model.
  static Model from_json_file(const std::filesystem::path& path);
  /// Parses libvmaf JSON model text. `origin` names the source in error
  /// messages (a path, "built-in vmaf_v0.6.1", …). Never crashes on bad
  /// input: any defect throws vqe::Error.
  static Model from_json_string(std::string_view text, const std::string& origin);
  /// Parses VQE's own model format (models/README.md). Throws vqe::Error.
  static Model from_vqem_string(std::string_view text, const std::string& origin);
  /// Reads a model file of either format: .vqem text (first word "vqem") or
  /// libvmaf JSON (anything else). Throws vqe::Error.
  static Model from_file(const std::filesystem::path& path);
  /// A model embedded in the library, by libvmaf version string
  /// ("vmaf_v0.6.1", "vmaf_b_v0.6.3", "vmaf_v1.0.16_3d0h", …). Throws
  /// vqe::Error for an unknown version, listing the known ones.
  static Model builtin(const std::string& version);
  /// Versions accepted by builtin(), default first.
  static std::vector<std::string> builtin_versions();
  /// The model libvmaf's CLI uses when none is given: "vmaf_v0.6.1".
  static std::string default_version();

  /// Output name (libvmaf's model name): "vmaf" unless set (libvmaf's
  /// vmaf_model_generate_name). Bootstrap outputs derive from it.
  const std::string& name() const;
  /// Sets the output name. Throws vqe::Error for a name that output files
  /// cannot carry as it is: it must start with a letter or '_' and hold only
  /// letters, digits, '_', '.' and '-' (XML attribute names, CSV header
  /// cells and SUB fields have no escape for other characters).
  void set_name(const std::string& name);
  /// Where the model came from: the built-in version or the file path, as
  /// libvmaf's CLI labels models in its messages.
  const std::string& origin() const;

  /// The features predict() expects, in order. For a bootstrap collection
  /// this is the union of its models' features (in first-use order; in the
  /// published models all of them use the same six features).
  const std::vector<ModelFeature>& features() const;
  /// True for a bootstrap collection (vmaf_b_v0.6.3 …).
  bool is_bootstrap() const;

  /// libvmaf's VMAF_MODEL_FLAG_ENABLE_TRANSFORM (`-m …:enable_transform`):
  /// applies the model's score_transform even where the file says
  /// "enabled": false (only when the file has a score_transform).
  void set_enable_transform(bool enable);
  /// libvmaf's VMAF_MODEL_FLAG_DISABLE_CLIP (`-m …:disable_clip`): never
  /// clips, including the bootstrap statistics.
  void set_disable_clip(bool disable);
  bool enable_transform() const;
  bool disable_clip() const;

  /// libvmaf's vmaf_model_feature_overload (`-m …:adm.adm_enhn_gain_limit=1.2`):
  /// sets `option` to `value` (normalised like libvmaf: a numeric value is
  /// printed with %g after a round trip through float) for every feature of
  /// every model of the collection whose providing extractor (looked up in
  /// the extractor registry) is named `extractor`. Throws vqe::Error when no
  /// feature of the model comes from `extractor` (libvmaf silently ignores
  /// that; a typo should not go unnoticed). The option name is validated
  /// later, when the pipeline builds the extractor.
  void apply_override(const std::string& extractor, const std::string& option,
                      const std::string& value);
  /// Same, with the internal-feature-name -> extractor-name lookup supplied by
  /// the caller (returns "" for an unknown feature). For tests and for
  /// callers with their own registry.
  void apply_override(const std::string& extractor, const std::string& option,
                      const std::string& value,
                      const std::function<std::string(const std::string&)>& extractor_of);

  /// Names of the values predict() produces, in order: {name()} for a single
  /// model; for a bootstrap collection name(), name()_0001 … name()_NNNN,
  /// name()_bagging, name()_stddev, name()_ci_p95_lo, name()_ci_p95_hi (the
  /// order in which libvmaf's collector receives them).
  std::vector<std::string> output_names() const;

  /// Per-frame prediction from feature values in features() order. Returns
  /// (output name, value) pairs as output_names(). Throws vqe::Error when
  /// `features` has the wrong size.
  std::vector<std::pair<std::string, double>> predict(std::span<const double> features) const;
  /// Allocation-free form: writes output_names().size() values into `out`.
  /// Throws vqe::Error on a size mismatch.
  void predict(std::span<const double> features, std::span<double> out) const;

  struct Impl;  ///< private (src/model/model_impl.h)

 private:
  explicit Model(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// Builds a model from libvmaf's `--model` option syntax (tools/cli_parse.c):
/// colon-separated items
///   version=<built-in version>   or   path=<model file (.json or .vqem)>
///   name=<output name>           (default "vmaf")
///   enable_transform[=true|false] disable_clip[=true|false]   (also 1/0; once
///                                on, a flag stays on, as libvmaf's flag bits;
///                                any other value is an error, where libvmaf
///                                silently ignores it)
///   <extractor>.<option>=<value> (feature option override, applied in order)
/// e.g. "version=vmaf_v0.6.1neg:name=vmaf_neg" or
/// "path=m.json:adm.adm_enhn_gain_limit=1.2". Throws vqe::Error on an empty
/// item, an item without '=' (other than the two flags), neither or both of
/// version/path, an unknown built-in, a flag that is not a boolean, or a
/// name that is not a portable output name (see Model::set_name).
Model load_model_spec(const std::string& cli_spec);

/// libvmaf's numeric normalisation of option values (dict.c with
/// VMAF_DICT_NORMALIZE_NUMERICAL_VALUES, used for model feature options and
/// CLI overrides): text that reads as a number is converted to float and
/// printed with %g ("1.0" -> "1", "0.0600" -> "0.06", "1234567" ->
/// "1.23457e+06"); any other text is returned unchanged.
std::string normalize_option_value(const std::string& value);

}  // namespace vqe
