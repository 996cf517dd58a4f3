// SPDX-License-Identifier: BSD-2-Clause
// The C API (vqe/vqe_c.h) over vqe::Job: every entry point catches every
// exception and turns it into a status code and a per-thread message.

#include "vqe/vqe_c.h"

#include <chrono>
#include <climits>
#include <exception>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "vqe/error.h"
#include "vqe/vqe.h"

struct VqeJob {
  vqe::JobConfig config;
  std::unique_ptr<vqe::Job> job;          // from the first frame on
  std::optional<vqe::JobResult> result;   // after vqe_job_finish
  std::chrono::steady_clock::time_point opened = std::chrono::steady_clock::now();
  double seconds = 0;                     // open to finish
  std::vector<std::string> names;         // for vqe_job_feature_name
};

namespace {

thread_local std::string last_error;

int fail(int status, const std::string& message) {
  last_error = message;
  return status;
}

// Runs `body`, mapping exceptions to status codes.
template <typename F>
int guarded(const char* call, F&& body) {
  try {
    last_error.clear();
    return body();
  } catch (const vqe::Error& e) {
    return fail(VQE_ERROR_FAILED, fmt::format("{}: {}", call, e.what()));
  } catch (const std::bad_alloc&) {
    return fail(VQE_ERROR_NO_MEMORY, fmt::format("{}: out of memory", call));
  } catch (const std::exception& e) {
    return fail(VQE_ERROR_FAILED, fmt::format("{}: internal error: {}", call, e.what()));
  } catch (...) {
    return fail(VQE_ERROR_FAILED, fmt::format("{}: unknown internal error", call));
  }
}

#define VQE_REQUIRE(cond, call, what) \
  do {                                \
    if (!(cond)) return fail(VQE_ERROR_INVALID_ARGUMENT, std::string(call) + ": " + (what)); \
  } while (0)

vqe::ChromaFormat to_chroma(int c, bool* ok) {
  *ok = true;
  switch (c) {
    case VQE_CHROMA_400: return vqe::ChromaFormat::k400;
    case VQE_CHROMA_420: return vqe::ChromaFormat::k420;
    case VQE_CHROMA_422: return vqe::ChromaFormat::k422;
    case VQE_CHROMA_444: return vqe::ChromaFormat::k444;
  }
  *ok = false;
  return vqe::ChromaFormat::k420;
}

// The view of a VqePicture, or a message saying what is wrong with it.
std::optional<vqe::PictureView> to_view(const VqePicture* p, std::string* error) {
  bool ok = false;
  vqe::PictureView v;
  v.format.width = p->width;
  v.format.height = p->height;
  v.format.bit_depth = p->bit_depth;
  v.format.chroma = to_chroma(p->chroma, &ok);
  if (!ok) {
    *error = fmt::format("unknown chroma format {}", p->chroma);
    return std::nullopt;
  }
  try {
    vqe::validate_format(v.format, "picture");
  } catch (const vqe::Error& e) {
    *error = e.what();
    return std::nullopt;
  }
  for (int i = 0; i < 3; ++i) {
    v.data[i] = p->data[i];
    v.stride[i] = p->stride[i];
  }
  return v;
}

// Common part of submit and try_submit.
int submit(VqeJob* job, const VqePicture* ref, const VqePicture* dist, bool wait,
           const char* call) {
  VQE_REQUIRE(job, call, "job is NULL");
  VQE_REQUIRE(ref && dist, call, "picture is NULL");
  if (job->result) return fail(VQE_ERROR_STATE, fmt::format("{}: the job is finished", call));
  std::string error;
  const auto rv = to_view(ref, &error);
  if (!rv) return fail(VQE_ERROR_INVALID_ARGUMENT, fmt::format("{}: reference: {}", call, error));
  const auto dv = to_view(dist, &error);
  if (!dv) return fail(VQE_ERROR_INVALID_ARGUMENT, fmt::format("{}: distorted: {}", call, error));
  return guarded(call, [&] {
    if (!job->job) job->job = std::make_unique<vqe::Job>(job->config);
    if (wait) {
      job->job->submit(*rv, *dv);
      return static_cast<int>(VQE_OK);
    }
    if (!job->job->try_submit(*rv, *dv))
      return fail(VQE_ERROR_AGAIN, fmt::format("{}: every frame slot is busy", call));
    return static_cast<int>(VQE_OK);
  });
}

const vqe::FeatureCollector* values_of(const VqeJob* job) {
  return job->result ? &job->result->features : nullptr;
}

}  // namespace

extern "C" {

const char* vqe_last_error(void) { return last_error.c_str(); }

const char* vqe_version(void) {
  static const std::string version = std::string("vqe ") + VQE_VERSION;
  return version.c_str();
}

void vqe_config_default(VqeConfig* config) {
  if (!config) return;
  *config = VqeConfig{};
  config->subsample = 1;
  config->backend = VQE_BACKEND_CPU;
}

int vqe_job_open(VqeJob** job, const VqeConfig* config) {
  VQE_REQUIRE(job, "vqe_job_open", "job is NULL");
  *job = nullptr;
  VqeConfig defaults;
  vqe_config_default(&defaults);
  const VqeConfig& c = config ? *config : defaults;
  return guarded("vqe_job_open", [&] {
    auto j = std::make_unique<VqeJob>();
    j->config.threads = c.threads;
    j->config.subsample = c.subsample ? c.subsample : 1;
    j->config.max_frames_in_flight = c.max_frames_in_flight;
    switch (c.backend) {  // an int: C callers may store any value
      case VQE_BACKEND_CPU: j->config.backend = vqe::JobConfig::Backend::kCpu; break;
      case VQE_BACKEND_CUDA: j->config.backend = vqe::JobConfig::Backend::kCuda; break;
      case VQE_BACKEND_AUTO: j->config.backend = vqe::JobConfig::Backend::kAuto; break;
      case VQE_BACKEND_VULKAN: j->config.backend = vqe::JobConfig::Backend::kVulkan; break;
      default:
        return fail(VQE_ERROR_INVALID_ARGUMENT,
                    fmt::format("vqe_job_open: unknown backend {}", c.backend));
    }
    j->config.gpu = c.gpu;
    vqe::simd::Level level = vqe::simd::max_level();
    if (c.cpu_level) {
      const auto parsed = vqe::simd::parse_level(c.cpu_level);
      if (!parsed)
        return fail(VQE_ERROR_INVALID_ARGUMENT,
                    fmt::format("vqe_job_open: unknown CPU level '{}'", c.cpu_level));
      if (!vqe::simd::is_available(*parsed))
        return fail(VQE_ERROR_INVALID_ARGUMENT,
                    fmt::format("vqe_job_open: CPU level {} is not supported here (highest: {})",
                                c.cpu_level, vqe::simd::level_name(vqe::simd::max_level())));
      level = *parsed;
    }
    level = std::min(level, vqe::simd::level_from_cpumask(c.cpumask));
    j->config.cpu_level = level;
    j->config.no_prediction = c.no_prediction != 0;
    *job = j.release();
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_close(VqeJob* job) {
  return guarded("vqe_job_close", [&] {
    delete job;
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_use_model(VqeJob* job, const char* spec) {
  VQE_REQUIRE(job, "vqe_job_use_model", "job is NULL");
  VQE_REQUIRE(spec, "vqe_job_use_model", "spec is NULL");
  if (job->job)
    return fail(VQE_ERROR_STATE, "vqe_job_use_model: models must be added before the first frame");
  return guarded("vqe_job_use_model", [&] {
    vqe::Model model = vqe::load_model_spec(spec);
    for (const vqe::Model& m : job->config.models)
      if (m.name() == model.name())
        return fail(VQE_ERROR_INVALID_ARGUMENT,
                    fmt::format("vqe_job_use_model: a model is already named '{}' (add "
                                ":name=LABEL)",
                                model.name()));
    job->config.models.push_back(std::move(model));
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_use_feature(VqeJob* job, const char* name, const char* options) {
  VQE_REQUIRE(job, "vqe_job_use_feature", "job is NULL");
  VQE_REQUIRE(name && *name, "vqe_job_use_feature", "name is NULL or empty");
  if (job->job)
    return fail(VQE_ERROR_STATE,
                "vqe_job_use_feature: features must be added before the first frame");
  return guarded("vqe_job_use_feature", [&] {
    vqe::FeatureRequest r;
    r.extractor = name;
    if (options && *options)
      r.options = vqe::parse_option_string(options, std::string("feature ") + name);
    bool known = false;
    for (const vqe::ExtractorDescription& e : vqe::list_extractors()) known |= e.name == name;
    if (!known)
      return fail(VQE_ERROR_NOT_FOUND,
                  fmt::format("vqe_job_use_feature: unknown feature '{}'", name));
    job->config.features.push_back(std::move(r));
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_submit(VqeJob* job, const VqePicture* reference, const VqePicture* distorted) {
  return submit(job, reference, distorted, true, "vqe_job_submit");
}

int vqe_job_try_submit(VqeJob* job, const VqePicture* reference, const VqePicture* distorted) {
  return submit(job, reference, distorted, false, "vqe_job_try_submit");
}

int vqe_job_flush(VqeJob* job) {
  VQE_REQUIRE(job, "vqe_job_flush", "job is NULL");
  if (job->result) return VQE_OK;
  return guarded("vqe_job_flush", [&] {
    if (job->job) job->job->flush();
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_finish(VqeJob* job) {
  VQE_REQUIRE(job, "vqe_job_finish", "job is NULL");
  if (job->result) return fail(VQE_ERROR_STATE, "vqe_job_finish: the job is already finished");
  if (!job->job) return fail(VQE_ERROR_STATE, "vqe_job_finish: no frame was submitted");
  return guarded("vqe_job_finish", [&] {
    job->result = job->job->finish();
    job->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - job->opened).count();
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_frames(const VqeJob* job, unsigned* submitted, unsigned* final_frames) {
  VQE_REQUIRE(job, "vqe_job_frames", "job is NULL");
  const unsigned s = job->result ? job->result->frames : job->job ? job->job->frames_submitted() : 0;
  const unsigned f = job->result ? job->result->frames : job->job ? job->job->frames_final() : 0;
  if (submitted) *submitted = s;
  if (final_frames) *final_frames = f;
  return VQE_OK;
}

int vqe_job_score_at_index(VqeJob* job, const char* name, unsigned index, double* score) {
  VQE_REQUIRE(job, "vqe_job_score_at_index", "job is NULL");
  VQE_REQUIRE(name, "vqe_job_score_at_index", "name is NULL");
  VQE_REQUIRE(score, "vqe_job_score_at_index", "score is NULL");
  return guarded("vqe_job_score_at_index", [&] {
    std::optional<double> v;
    if (const vqe::FeatureCollector* fc = values_of(job)) {
      if (!fc->has(name))
        return fail(VQE_ERROR_NOT_FOUND,
                    fmt::format("vqe_job_score_at_index: the job emits no '{}'", name));
      v = fc->get(name, index);
    } else {
      if (!job->job || index >= job->job->frames_final())
        return fail(VQE_ERROR_NOT_READY,
                    fmt::format("vqe_job_score_at_index: frame {} is not final yet", index));
      v = job->job->score(name, index);
    }
    if (!v)
      return fail(VQE_ERROR_NOT_FOUND,
                  fmt::format("vqe_job_score_at_index: no '{}' at frame {}", name, index));
    *score = *v;
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_score_pooled(VqeJob* job, const char* name, int method, unsigned first,
                         unsigned last, double* score) {
  VQE_REQUIRE(job, "vqe_job_score_pooled", "job is NULL");
  VQE_REQUIRE(name, "vqe_job_score_pooled", "name is NULL");
  VQE_REQUIRE(score, "vqe_job_score_pooled", "score is NULL");
  VQE_REQUIRE(method >= VQE_POOL_MIN && method <= VQE_POOL_HARMONIC_MEAN, "vqe_job_score_pooled",
              "unknown pooling method");
  VQE_REQUIRE(first <= last, "vqe_job_score_pooled", "first frame after last frame");
  return guarded("vqe_job_score_pooled", [&] {
    const auto m = static_cast<vqe::PoolMethod>(method);
    const unsigned subsample = job->config.subsample;
    std::optional<double> v;
    if (const vqe::FeatureCollector* fc = values_of(job)) {
      if (!fc->has(name))
        return fail(VQE_ERROR_NOT_FOUND,
                    fmt::format("vqe_job_score_pooled: the job emits no '{}'", name));
      v = fc->pooled(name, m, subsample, first, last);
    } else {
      const unsigned final_frames = job->job ? job->job->frames_final() : 0;
      if (first >= final_frames)
        return fail(VQE_ERROR_NOT_READY, "vqe_job_score_pooled: no frame of the range is final");
      std::vector<double> values;
      for (unsigned i = first; i <= last && i < final_frames; ++i) {
        if (subsample > 1 && i % subsample) continue;
        const auto x = job->job->score(name, i);
        if (!x)
          return fail(VQE_ERROR_NOT_FOUND,
                      fmt::format("vqe_job_score_pooled: no '{}' at frame {}", name, i));
        values.push_back(*x);
      }
      v = vqe::pool(values, m);
    }
    if (!v)
      return fail(VQE_ERROR_NOT_FOUND,
                  fmt::format("vqe_job_score_pooled: '{}' has no value to pool", name));
    *score = *v;
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_aggregate(VqeJob* job, const char* name, double* value) {
  VQE_REQUIRE(job, "vqe_job_aggregate", "job is NULL");
  VQE_REQUIRE(name && value, "vqe_job_aggregate", "name or value is NULL");
  if (!job->result) return fail(VQE_ERROR_STATE, "vqe_job_aggregate: call vqe_job_finish first");
  for (const auto& [n, v] : job->result->features.aggregates())
    if (n == name) {
      *value = v;
      return VQE_OK;
    }
  return fail(VQE_ERROR_NOT_FOUND, fmt::format("vqe_job_aggregate: no aggregate '{}'", name));
}

int vqe_job_feature_count(VqeJob* job, size_t* count) {
  VQE_REQUIRE(job && count, "vqe_job_feature_count", "job or count is NULL");
  return guarded("vqe_job_feature_count", [&] {
    job->names = job->result ? job->result->features.names()
                 : job->job  ? job->job->feature_names()
                             : std::vector<std::string>{};
    *count = job->names.size();
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_feature_name(VqeJob* job, size_t i, const char** name) {
  VQE_REQUIRE(job && name, "vqe_job_feature_name", "job or name is NULL");
  return guarded("vqe_job_feature_name", [&] {
    job->names = job->result ? job->result->features.names()
                 : job->job  ? job->job->feature_names()
                             : std::vector<std::string>{};
    if (i >= job->names.size())
      return fail(VQE_ERROR_NOT_FOUND,
                  fmt::format("vqe_job_feature_name: index {} of {} names", i, job->names.size()));
    *name = job->names[i].c_str();
    return static_cast<int>(VQE_OK);
  });
}

int vqe_job_write_output(VqeJob* job, const char* path, int format,
                         int max_precision) {
  VQE_REQUIRE(job && path && *path, "vqe_job_write_output", "job or path is NULL or empty");
  if (!job->result)
    return fail(VQE_ERROR_STATE, "vqe_job_write_output: call vqe_job_finish first");
  vqe::OutputInfo info;
  switch (format) {
    case VQE_OUTPUT_XML: info.format = vqe::OutputFormat::kXml; break;
    case VQE_OUTPUT_JSON: info.format = vqe::OutputFormat::kJson; break;
    case VQE_OUTPUT_CSV: info.format = vqe::OutputFormat::kCsv; break;
    case VQE_OUTPUT_SUB: info.format = vqe::OutputFormat::kSub; break;
    default:
      return fail(VQE_ERROR_INVALID_ARGUMENT,
                  fmt::format("vqe_job_write_output: unknown format {}", static_cast<int>(format)));
  }
  if (max_precision) info.precision.mode = vqe::Precision::Mode::kMax;
  info.subsample = job->config.subsample;
  info.width = job->result->format.width;
  info.height = job->result->format.height;
  info.fps = job->seconds > 0 ? job->result->frames / job->seconds : 0;
  info.version = vqe_version();
  return guarded("vqe_job_write_output", [&] {
    if (std::string(path) == "-")
      vqe::write_output(std::cout, job->result->features, info);
    else
      vqe::write_output_file(path, job->result->features, info);
    return static_cast<int>(VQE_OK);
  });
}

}  // extern "C"
