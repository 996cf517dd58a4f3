// SPDX-License-Identifier: BSD-2-Clause
// libvmaf's models and bootstrap collections (libvmaf/model.h) as vqe::Model.

#include "internal.h"

namespace lc = vqe::libvmaf_compat;

namespace {

enum class Source { kVersion, kPath };

// Loads a model by built-in version or path with libvmaf's config applied.
vqe::Model load(Source source, const char* what, const VmafModelConfig& cfg) {
  vqe::Model model =
      source == Source::kVersion ? vqe::Model::builtin(what) : vqe::Model::from_file(what);
  if (cfg.name) model.set_name(cfg.name);
  model.set_enable_transform(cfg.flags & VMAF_MODEL_FLAG_ENABLE_TRANSFORM);
  model.set_disable_clip(cfg.flags & VMAF_MODEL_FLAG_DISABLE_CLIP);
  return model;
}

int load_model(VmafModel** out, VmafModelConfig* cfg, const char* what, Source source,
               const char* call) {
  const int level = lc::default_log_level;
  if (!out || !cfg || !what) return lc::fail(level, fmt::format("{}: NULL argument", call));
  *out = nullptr;
  return lc::guarded(level, call, [&] {
    vqe::Model model = load(source, what, *cfg);
    if (model.is_bootstrap())
      return lc::fail(level, fmt::format("{}: '{}' is a bootstrap model collection: load it "
                                         "with vmaf_model_collection_load{}",
                                         call, what, source == Source::kPath ? "_from_path" : ""));
    *out = new VmafModel{std::make_shared<vqe::Model>(std::move(model))};
    return 0;
  });
}

int load_collection(VmafModel** out_model, VmafModelCollection** out_collection,
                    VmafModelConfig* cfg, const char* what, Source source, const char* call) {
  const int level = lc::default_log_level;
  if (!out_model || !out_collection || !cfg || !what)
    return lc::fail(level, fmt::format("{}: NULL argument", call));
  *out_model = nullptr;
  *out_collection = nullptr;
  return lc::guarded(level, call, [&] {
    vqe::Model model = load(source, what, *cfg);
    if (!model.is_bootstrap())
      return lc::fail(level, fmt::format("{}: '{}' is a single model, not a bootstrap "
                                         "collection: load it with vmaf_model_load{}",
                                         call, what, source == Source::kPath ? "_from_path" : ""));
    auto shared = std::make_shared<vqe::Model>(std::move(model));
    auto collection = std::make_unique<VmafModelCollection>(VmafModelCollection{shared});
    *out_model = new VmafModel{shared};
    *out_collection = collection.release();
    return 0;
  });
}

// Applies every option of `dict` to the features of `model` computed by
// extractor `extractor`; an extractor the model does not use changes
// nothing (libvmaf's behaviour) but is logged as a warning.
void overload(vqe::Model& model, const std::string& extractor, const VmafFeatureDictionary& dict,
              const char* call) {
  for (const auto& entry : dict.entries)
    if (entry.first.empty()) throw vqe::Error("empty option name");
  for (const auto& [option, value] : dict.entries) {
    try {
      model.apply_override(extractor, option, value);
    } catch (const vqe::Error& e) {
      lc::log(lc::default_log_level, VMAF_LOG_LEVEL_WARNING,
              fmt::format("{}: ignored: {}", call, e.what()));
      return;
    }
  }
}

}  // namespace

extern "C" {

int vmaf_model_load(VmafModel** model, VmafModelConfig* cfg, const char* version) {
  return load_model(model, cfg, version, Source::kVersion, "vmaf_model_load");
}

int vmaf_model_load_from_path(VmafModel** model, VmafModelConfig* cfg, const char* path) {
  return load_model(model, cfg, path, Source::kPath, "vmaf_model_load_from_path");
}

int vmaf_model_feature_overload(VmafModel* model, const char* feature_name,
                                VmafFeatureDictionary* opts_dict) {
  const int level = lc::default_log_level;
  if (!model || !model->model || !feature_name || !*feature_name || !opts_dict)
    return lc::fail(level, "vmaf_model_feature_overload: NULL or empty argument");
  const int err = lc::guarded(level, "vmaf_model_feature_overload", [&] {
    overload(*model->model, feature_name, *opts_dict, "vmaf_model_feature_overload");
    return 0;
  });
  if (!err) vmaf_feature_dictionary_free(&opts_dict);
  return err;
}

void vmaf_model_destroy(VmafModel* model) { delete model; }

int vmaf_model_collection_load(VmafModel** model, VmafModelCollection** model_collection,
                               VmafModelConfig* cfg, const char* version) {
  return load_collection(model, model_collection, cfg, version, Source::kVersion,
                         "vmaf_model_collection_load");
}

int vmaf_model_collection_load_from_path(VmafModel** model,
                                         VmafModelCollection** model_collection,
                                         VmafModelConfig* cfg, const char* path) {
  return load_collection(model, model_collection, cfg, path, Source::kPath,
                         "vmaf_model_collection_load_from_path");
}

int vmaf_model_collection_feature_overload(VmafModel* model,
                                           VmafModelCollection** model_collection,
                                           const char* feature_name,
                                           VmafFeatureDictionary* opts_dict) {
  const int level = lc::default_log_level;
  if (!model_collection || !*model_collection || !(*model_collection)->model || !feature_name ||
      !*feature_name || !opts_dict)
    return lc::fail(level, "vmaf_model_collection_feature_overload: NULL or empty argument");
  const char* call = "vmaf_model_collection_feature_overload";
  const int err = lc::guarded(level, call, [&] {
    overload(*(*model_collection)->model, feature_name, *opts_dict, call);
    // A main model loaded apart from the collection gets the options too.
    if (model && model->model && model->model != (*model_collection)->model)
      overload(*model->model, feature_name, *opts_dict, call);
    return 0;
  });
  if (!err) vmaf_feature_dictionary_free(&opts_dict);
  return err;
}

void vmaf_model_collection_destroy(VmafModelCollection* model_collection) {
  delete model_collection;
}

}  // extern "C"
