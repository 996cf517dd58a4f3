// SPDX-License-Identifier: BSD-2-Clause
// libvmaf's scoring context (libvmaf/libvmaf.h) over vqe::Job: registered
// models and features become the JobConfig, pictures are submitted to the
// job, the flush finishes it, and scores, pooling and logs come from the
// job and VQE's writers.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "internal.h"
#include "vqe/feature_collector.h"
#include "vqe/job.h"
#include "vqe/options.h"
#include "vqe/output.h"

namespace lc = vqe::libvmaf_compat;

namespace {

// A model registered with vmaf_use_features_from_model[_collection]: the
// caller's handle target (for identity) and the output name it has in the job.
struct Registered {
  std::shared_ptr<vqe::Model> source;
  std::string name;
};

}  // namespace

struct VmafContext {
  VmafConfiguration cfg{};
  vqe::JobConfig config;
  std::vector<Registered> registered;
  std::unique_ptr<vqe::Job> job;         // from the first picture on
  std::optional<vqe::JobResult> result;  // after the flush, when frames were read
  bool flushed = false;
  unsigned frames_read = 0;
  std::chrono::steady_clock::time_point first_read;
  double seconds = 0;                    // first picture to flush
  vqe::FeatureCollector imported;        // vmaf_import_feature_score before the flush
  std::vector<std::string> imported_names;  // every name given to vmaf_import_feature_score
  std::optional<VmafPictureConfiguration> preallocated;

  int level() const { return cfg.log_level; }
  int fail(const std::string& message) const { return lc::fail(level(), message); }
};

namespace {

// The job's value of emitted name `name` at `index`, when final.
std::optional<double> job_value(const VmafContext& c, const std::string& name, unsigned index) {
  if (c.result) return c.result->features.get(name, index);
  if (c.job) return c.job->score(name, index);
  return std::nullopt;
}

// Whether the context computes or holds `name`.
bool known(const VmafContext& c, const std::string& name) {
  if (c.result) return c.result->features.has(name);
  if (c.imported.has(name)) return true;
  if (!c.job) return false;
  const std::vector<std::string> names = c.job->feature_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The value of `name` (an emitted name or libvmaf's internal name of it) at
// `index`, or -EINVAL with the reason logged.
int value_at(const VmafContext& c, const char* call, const std::string& name, unsigned index,
             double* out) {
  const std::string alias = vqe::feature_alias(name);
  for (const std::string* n : {&name, &alias}) {
    std::optional<double> v = job_value(c, *n, index);
    if (!v && !c.result) v = c.imported.get(*n, index);
    if (v) {
      *out = *v;
      return 0;
    }
  }
  if (!known(c, name) && !known(c, alias))
    return c.fail(fmt::format("{}: '{}' is not computed by this context", call, name));
  return c.fail(fmt::format("{}: '{}' has no value at frame {}{}", call, name, index,
                            c.flushed ? "" : " (yet: values become final as frames arrive)"));
}

std::optional<vqe::PoolMethod> pool_method(int method) {
  switch (method) {
    case VMAF_POOL_METHOD_MIN: return vqe::PoolMethod::kMin;
    case VMAF_POOL_METHOD_MAX: return vqe::PoolMethod::kMax;
    case VMAF_POOL_METHOD_MEAN: return vqe::PoolMethod::kMean;
    case VMAF_POOL_METHOD_HARMONIC_MEAN: return vqe::PoolMethod::kHarmonicMean;
    default: return std::nullopt;
  }
}

// libvmaf's pooling: every frame of low..high on the subsample grid must
// have a value.
int pooled(const VmafContext& c, const char* call, const std::string& name, int method,
           unsigned low, unsigned high, double* out) {
  const auto m = pool_method(method);
  if (!m) return c.fail(fmt::format("{}: unknown pooling method {}", call, method));
  if (low > high) return c.fail(fmt::format("{}: index_low {} > index_high {}", call, low, high));
  const unsigned subsample = std::max(1u, c.cfg.n_subsample);
  std::vector<double> values;
  for (std::uint64_t i = low; i <= high; ++i) {
    if (i % subsample) continue;
    double v = 0;
    if (const int err = value_at(c, call, name, static_cast<unsigned>(i), &v)) return err;
    values.push_back(v);
  }
  const std::optional<double> v = vqe::pool(values, *m);
  if (!v)
    return c.fail(fmt::format("{}: no frame of {}..{} is on the subsample grid", call, low, high));
  *out = *v;
  return 0;
}

// The name under which `model` was registered with `c`.
const std::string* registered_name(const VmafContext& c, const std::shared_ptr<vqe::Model>& m) {
  for (const Registered& r : c.registered)
    if (r.source == m) return &r.name;
  return nullptr;
}

// Runs `body` with the output name under which the model behind `handle`
// (a VmafModel or a VmafModelCollection) is registered with `vmaf`;
// -EINVAL when a pointer is NULL or the model is not registered.
template <typename Handle, typename F>
int with_registered(VmafContext* vmaf, const Handle* handle, const void* out, const char* call,
                    F&& body) {
  if (!vmaf) return -EINVAL;
  if (!handle || !handle->model || !out)
    return vmaf->fail(fmt::format("{}: model or result pointer is NULL", call));
  const std::string* name = registered_name(*vmaf, handle->model);
  if (!name)
    return vmaf->fail(fmt::format("{}: model '{}' is not registered with this context "
                                  "(vmaf_use_features_from_model[_collection])",
                                  call, handle->model->name()));
  return body(*name);
}

int register_model(VmafContext* c, const std::shared_ptr<vqe::Model>& model, const char* call) {
  if (c->job)
    return c->fail(fmt::format("{}: models must be registered before the first picture", call));
  if (registered_name(*c, model)) return 0;
  return lc::guarded(c->level(), call, [&] {
    c->config.models.push_back(*model);
    try {
      vqe::Job probe(c->config);  // checks extractors, options and unique names now
    } catch (...) {
      c->config.models.pop_back();
      throw;
    }
    c->registered.push_back({model, model->name()});
    return 0;
  });
}

// The four statistics of bootstrap collection `name`, at one frame or pooled.
template <typename Get>
int collection_score(const std::string& name, VmafModelCollectionScore* out, Get&& get) {
  VmafModelCollectionScore s{};
  s.type = VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP;
  int err = get(name + "_bagging", &s.bootstrap.bagging_score);
  if (!err) err = get(name + "_stddev", &s.bootstrap.stddev);
  if (!err) err = get(name + "_ci_p95_lo", &s.bootstrap.ci.p95.lo);
  if (!err) err = get(name + "_ci_p95_hi", &s.bootstrap.ci.p95.hi);
  if (!err) *out = s;
  return err;
}

int flush(VmafContext* c) {
  c->flushed = true;
  if (!c->job) return 0;  // nothing read, nothing to compute
  return lc::guarded(c->level(), "vmaf_read_pictures (flush)", [&] {
    c->result = c->job->finish();
    c->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - c->first_read)
                     .count();
    // Imported values join the job's, which win on a clash.
    vqe::FeatureCollector& values = c->result->features;
    for (const std::string& name : c->imported.names()) {
      if (values.has(name)) {
        lc::log(c->level(), VMAF_LOG_LEVEL_WARNING,
                fmt::format("imported '{}' ignored: the context computes it", name));
        continue;
      }
      values.declare(name);
      for (unsigned i = 0; i < c->imported.frame_count(); ++i)
        if (const auto v = c->imported.get(name, i)) values.set(name, i, *v);
    }
    c->imported = vqe::FeatureCollector();
    return 0;
  });
}

// Precision of vmaf_write_output: libvmaf's unless VQE_LIBVMAF_PRECISION says.
vqe::Precision output_precision() {
  const char* env = std::getenv("VQE_LIBVMAF_PRECISION");
  if (!env || !*env) return {};
  try {
    return vqe::parse_precision(env);
  } catch (const vqe::Error& e) {
    throw vqe::Error(fmt::format("VQE_LIBVMAF_PRECISION: {}", e.what()));
  }
}

}  // namespace

namespace vqe::libvmaf_compat {

std::atomic<int> default_log_level{VMAF_LOG_LEVEL_INFO};

void log(int allowed, VmafLogLevel level, const std::string& message) {
  static const char* const names[] = {"", "ERROR", "WARNING", "INFO", "DEBUG"};
  if (level <= VMAF_LOG_LEVEL_NONE || level > VMAF_LOG_LEVEL_DEBUG || level > allowed) return;
  std::fprintf(stderr, "libvmaf %s %s\n", names[level], message.c_str());
}

}  // namespace vqe::libvmaf_compat

extern "C" {

int vmaf_init(VmafContext** vmaf, VmafConfiguration cfg) {
  if (!vmaf) return -EINVAL;
  *vmaf = nullptr;
  // C callers may store any int in the enum: read it as one.
  const int level = std::clamp(lc::as_int(cfg.log_level), int{VMAF_LOG_LEVEL_NONE},
                               int{VMAF_LOG_LEVEL_DEBUG});
  lc::default_log_level = level;
  return lc::guarded(level, "vmaf_init", [&] {
    auto c = std::make_unique<VmafContext>();
    c->cfg = cfg;
    c->cfg.log_level = static_cast<VmafLogLevel>(level);
    c->config.threads = cfg.n_threads;
    c->config.subsample = std::max(1u, cfg.n_subsample);
    c->config.cpu_level = vqe::simd::level_from_cpumask(cfg.cpumask);
    c->config.on_warning = [level](const std::string& m) {
      lc::log(level, VMAF_LOG_LEVEL_WARNING, m);
    };
    c->config.on_note = [level](const std::string& m) { lc::log(level, VMAF_LOG_LEVEL_DEBUG, m); };
    *vmaf = c.release();
    return 0;
  });
}

int vmaf_close(VmafContext* vmaf) {
  if (!vmaf) return -EINVAL;
  delete vmaf;
  return 0;
}

int vmaf_use_features_from_model(VmafContext* vmaf, VmafModel* model) {
  if (!vmaf) return -EINVAL;
  if (!model || !model->model) return vmaf->fail("vmaf_use_features_from_model: model is NULL");
  return register_model(vmaf, model->model, "vmaf_use_features_from_model");
}

int vmaf_use_features_from_model_collection(VmafContext* vmaf,
                                            VmafModelCollection* model_collection) {
  if (!vmaf) return -EINVAL;
  if (!model_collection || !model_collection->model)
    return vmaf->fail("vmaf_use_features_from_model_collection: model collection is NULL");
  return register_model(vmaf, model_collection->model, "vmaf_use_features_from_model_collection");
}

int vmaf_use_feature(VmafContext* vmaf, const char* feature_name,
                     VmafFeatureDictionary* opts_dict) {
  if (!vmaf) return -EINVAL;
  if (!feature_name) return vmaf->fail("vmaf_use_feature: feature name is NULL");
  if (vmaf->job)
    return vmaf->fail("vmaf_use_feature: features must be registered before the first picture");
  const int err = lc::guarded(vmaf->level(), "vmaf_use_feature", [&] {
    vmaf->config.features.push_back({feature_name, lc::options_of(opts_dict)});
    try {
      vqe::Job probe(vmaf->config);  // unknown extractors and options fail here
    } catch (...) {
      vmaf->config.features.pop_back();
      throw;
    }
    return 0;
  });
  if (!err) vmaf_feature_dictionary_free(&opts_dict);
  return err;
}

int vmaf_import_feature_score(VmafContext* vmaf, const char* feature_name, double value,
                              unsigned index) {
  if (!vmaf) return -EINVAL;
  if (!feature_name) return vmaf->fail("vmaf_import_feature_score: feature name is NULL");
  return lc::guarded(vmaf->level(), "vmaf_import_feature_score", [&] {
    const std::string name = feature_name;
    auto& names = vmaf->imported_names;
    if (std::find(names.begin(), names.end(), name) == names.end()) {
      if (known(*vmaf, name))
        return vmaf->fail(fmt::format(
            "vmaf_import_feature_score: '{}' is computed by this context", name));
      names.push_back(name);
    }
    (vmaf->result ? vmaf->result->features : vmaf->imported).set(name, index, value);
    return 0;
  });
}

int vmaf_read_pictures(VmafContext* vmaf, VmafPicture* ref, VmafPicture* dist, unsigned index) {
  if (!vmaf) return -EINVAL;
  const char* call = "vmaf_read_pictures";
  if (vmaf->flushed)
    return vmaf->fail(fmt::format("{}: the context was flushed (NULL pictures); it takes no "
                                  "more pictures",
                                  call));
  if (!ref != !dist) return vmaf->fail(fmt::format("{}: one picture is NULL", call));
  if (!ref) return flush(vmaf);
  if (index != vmaf->frames_read)
    return vmaf->fail(fmt::format("{}: index {} out of order: pictures are read in order, "
                                  "{} expected",
                                  call, index, vmaf->frames_read));
  std::string why;
  const auto rv = lc::view_of_picture(*ref, &why);
  if (!rv) return vmaf->fail(fmt::format("{}: reference: {}", call, why));
  const auto dv = lc::view_of_picture(*dist, &why);
  if (!dv) return vmaf->fail(fmt::format("{}: distorted: {}", call, why));
  if (rv->format != dv->format)
    return vmaf->fail(fmt::format("{}: reference is {}x{} {}-bit {}, distorted is {}x{} {}-bit {}",
                                  call, rv->format.width, rv->format.height,
                                  rv->format.bit_depth, to_string(rv->format.chroma),
                                  dv->format.width, dv->format.height, dv->format.bit_depth,
                                  to_string(dv->format.chroma)));
  const int err = lc::guarded(vmaf->level(), call, [&] {
    if (!vmaf->job) {
      vmaf->job = std::make_unique<vqe::Job>(vmaf->config);
      vmaf->first_read = std::chrono::steady_clock::now();
    }
    try {
      vmaf->job->submit(*rv, *dv);
    } catch (...) {
      // A job refused at its first frame (e.g. a frame too small for an
      // extractor) is dropped, so that the next picture starts afresh.
      if (vmaf->job->frames_submitted() == 0) vmaf->job.reset();
      throw;
    }
    return 0;
  });
  if (err) return err;
  ++vmaf->frames_read;
  if (ref->ref) vmaf_picture_unref(ref);
  if (dist->ref) vmaf_picture_unref(dist);
  return 0;
}

int vmaf_score_at_index(VmafContext* vmaf, VmafModel* model, double* score, unsigned index) {
  const char* call = "vmaf_score_at_index";
  return with_registered(vmaf, model, score, call, [&](const std::string& name) {
    return value_at(*vmaf, call, name, index, score);
  });
}

int vmaf_score_at_index_model_collection(VmafContext* vmaf,
                                         VmafModelCollection* model_collection,
                                         VmafModelCollectionScore* score, unsigned index) {
  const char* call = "vmaf_score_at_index_model_collection";
  return with_registered(vmaf, model_collection, score, call, [&](const std::string& name) {
    return collection_score(name, score, [&](const std::string& n, double* v) {
      return value_at(*vmaf, call, n, index, v);
    });
  });
}

int vmaf_feature_score_at_index(VmafContext* vmaf, const char* feature_name, double* score,
                                unsigned index) {
  if (!vmaf) return -EINVAL;
  if (!feature_name || !score)
    return vmaf->fail("vmaf_feature_score_at_index: feature name or score is NULL");
  return value_at(*vmaf, "vmaf_feature_score_at_index", feature_name, index, score);
}

int vmaf_score_pooled(VmafContext* vmaf, VmafModel* model, enum VmafPoolingMethod pool_method,
                      double* score, unsigned index_low, unsigned index_high) {
  const char* call = "vmaf_score_pooled";
  const int method = lc::as_int(pool_method);
  return with_registered(vmaf, model, score, call, [&](const std::string& name) {
    return pooled(*vmaf, call, name, method, index_low, index_high, score);
  });
}

int vmaf_score_pooled_model_collection(VmafContext* vmaf, VmafModelCollection* model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore* score, unsigned index_low,
                                       unsigned index_high) {
  const char* call = "vmaf_score_pooled_model_collection";
  const int method = lc::as_int(pool_method);
  return with_registered(vmaf, model_collection, score, call, [&](const std::string& name) {
    return collection_score(name, score, [&](const std::string& n, double* v) {
      return pooled(*vmaf, call, n, method, index_low, index_high, v);
    });
  });
}

int vmaf_feature_score_pooled(VmafContext* vmaf, const char* feature_name,
                              enum VmafPoolingMethod pool_method, double* score,
                              unsigned index_low, unsigned index_high) {
  if (!vmaf) return -EINVAL;
  if (!feature_name || !score)
    return vmaf->fail("vmaf_feature_score_pooled: feature name or score is NULL");
  return pooled(*vmaf, "vmaf_feature_score_pooled", feature_name, lc::as_int(pool_method), index_low,
                index_high, score);
}

int vmaf_preallocate_pictures(VmafContext* vmaf, VmafPictureConfiguration cfg) {
  if (!vmaf) return -EINVAL;
  if (!cfg.pic_cnt || !cfg.pic_params.w || !cfg.pic_params.h)
    return vmaf->fail("vmaf_preallocate_pictures: zero picture count or size");
  // Checks the parameters by allocating one picture.
  VmafPicture probe{};
  const int err = lc::allocate(&probe, lc::as_int(cfg.pic_params.pix_fmt), cfg.pic_params.bpc,
                               cfg.pic_params.w, cfg.pic_params.h);
  if (err) return err;
  vmaf_picture_unref(&probe);
  vmaf->preallocated = cfg;
  return 0;
}

int vmaf_fetch_preallocated_picture(VmafContext* vmaf, VmafPicture* pic) {
  if (!vmaf) return -EINVAL;
  if (!pic) return vmaf->fail("vmaf_fetch_preallocated_picture: picture is NULL");
  if (!vmaf->preallocated)
    return vmaf->fail("vmaf_fetch_preallocated_picture: call vmaf_preallocate_pictures first");
  const auto& p = vmaf->preallocated->pic_params;
  return lc::allocate(pic, lc::as_int(p.pix_fmt), p.bpc, p.w, p.h);
}

int vmaf_write_output(VmafContext* vmaf, const char* output_path, enum VmafOutputFormat fmt) {
  if (!vmaf) return -EINVAL;
  const char* call = "vmaf_write_output";
  if (!output_path || !*output_path)
    return vmaf->fail(fmt::format("{}: output path is NULL or empty", call));
  vqe::OutputInfo info;
  switch (lc::as_int(fmt)) {
    case VMAF_OUTPUT_FORMAT_XML: info.format = vqe::OutputFormat::kXml; break;
    case VMAF_OUTPUT_FORMAT_JSON: info.format = vqe::OutputFormat::kJson; break;
    case VMAF_OUTPUT_FORMAT_CSV: info.format = vqe::OutputFormat::kCsv; break;
    case VMAF_OUTPUT_FORMAT_SUB: info.format = vqe::OutputFormat::kSub; break;
    default: return vmaf->fail(fmt::format("{}: unknown output format {}", call, lc::as_int(fmt)));
  }
  if (!vmaf->result)
    return vmaf->fail(fmt::format("{}: nothing to write: read pictures and flush "
                                  "(vmaf_read_pictures with NULL pictures) first",
                                  call));
  return lc::guarded(vmaf->level(), call, [&] {
    info.precision = output_precision();
    info.subsample = vmaf->config.subsample;
    info.width = vmaf->result->format.width;
    info.height = vmaf->result->format.height;
    info.fps = vmaf->seconds > 0 ? vmaf->result->frames / vmaf->seconds : 0;
    info.version = vmaf_version();
    vqe::write_output_file(output_path, vmaf->result->features, info);
    return 0;
  });
}

const char* vmaf_version(void) {
  static const std::string version = std::string(VQE_LIBVMAF_API_VERSION "+vqe.") + VQE_VERSION;
  return version.c_str();
}

}  // extern "C"
