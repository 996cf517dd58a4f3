// SPDX-License-Identifier: BSD-2-Clause
#include "job_setup.h"

#include <algorithm>
#include <iostream>

#include <fmt/format.h>

namespace vqe::cli {
namespace {

// "--feature name=opt=val:opt=val" or "--feature name" (libvmaf syntax).
FeatureRequest parse_feature(const std::string& text) {
  const std::size_t eq = text.find('=');
  FeatureRequest r;
  r.extractor = text.substr(0, eq);
  if (r.extractor.empty()) throw Error(fmt::format("--feature: no name in '{}'", text));
  if (eq != std::string::npos)
    r.options = parse_option_string(text.substr(eq + 1), "--feature " + r.extractor);
  return r;
}

// The level of --cpu-level and --cpumask (both may be given; the lower
// level wins).
simd::Level select_cpu_level(const Settings& s) {
  simd::Level level = simd::max_level();
  if (!s.cpu_level.empty()) {
    const auto parsed = simd::parse_level(s.cpu_level);
    if (!parsed) throw UsageError(fmt::format("--cpu-level: unknown level '{}'", s.cpu_level));
    if (!simd::is_available(*parsed))
      throw Error(fmt::format("--cpu-level {}: this CPU supports up to {}", s.cpu_level,
                              simd::level_name(simd::max_level())));
    level = *parsed;
  }
  if (s.cpumask) level = std::min(level, simd::level_from_cpumask(*s.cpumask));
  return level;
}

// --backend, or libvmaf's --gpumask: 0 lets the GPU compute (libvmaf falls
// back to the CPU with a message when CUDA cannot start: backend auto), any
// other value keeps everything on the CPU.
JobConfig::Backend select_backend(const Settings& s) {
  std::string backend = s.backend;
  if (s.gpumask) {
    const bool gpu = *s.gpumask == 0;
    if (backend.empty())
      backend = gpu ? "auto" : "cpu";
    else if (gpu != (backend != "cpu"))
      throw UsageError(fmt::format("--gpumask {} and --backend {} disagree (--gpumask 0 computes "
                                   "on the GPU, another mask on the CPU): give one of them",
                                   *s.gpumask, backend));
  }
  if (backend.empty()) backend = "cpu";
  if (s.gpu != 0 && backend == "cpu")
    throw UsageError("--gpu needs --backend cuda, vulkan or auto");
  return backend == "cuda"     ? JobConfig::Backend::kCuda
         : backend == "vulkan" ? JobConfig::Backend::kVulkan
         : backend == "auto"   ? JobConfig::Backend::kAuto
                               : JobConfig::Backend::kCpu;
}

}  // namespace

DecodeOptions make_decode_options(const Settings& s, const WarningHandler& note) {
  DecodeOptions d;
  d.on_note = note;
  if (s.hwdec == "none") return d;
  if (s.hwdec == "nvdec") {
    d.cuda_device = s.gpu;
    d.require_device = true;
    return d;
  }
  if (select_backend(s) != JobConfig::Backend::kCuda) return d;
  const char* why = s.scale.any()      ? "--scale scales frames in host memory"
                    : !s.ladder.empty() ? "a ladder shares the reference's frames in host memory"
                                        : nullptr;
  if (why) {
    if (note) note(fmt::format("compressed input is decoded on the CPU: {}", why));
    return d;
  }
  d.cuda_device = s.gpu;
  return d;
}

JobConfig make_job_config(const Settings& s) {
  JobConfig config;
  config.backend = select_backend(s);
  config.gpu = s.gpu;
  config.cpu_level = select_cpu_level(s);
  std::vector<std::string> model_specs = s.models;
  if (model_specs.empty() && !s.no_prediction)
    model_specs.push_back("version=" + Model::default_version());
  for (const std::string& spec : model_specs) {
    config.models.push_back(load_model_spec(spec));
    // libvmaf refuses the same name twice before anything else.
    for (std::size_t i = 0; i + 1 < config.models.size(); ++i)
      if (config.models[i].name() == config.models.back().name())
        throw UsageError(fmt::format(
            "two models are named '{}': give each a unique name with -m ...:name=NAME",
            config.models.back().name()));
  }
  config.no_prediction = s.no_prediction;
  for (const std::string& f : s.features) config.features.push_back(parse_feature(f));
  if (config.features.empty() && config.models.empty())
    throw UsageError("nothing to compute: give --feature NAME or a model (-m), or drop -n");
  config.threads = s.threads;
  config.subsample = s.subsample;
  config.frame_cnt = s.frame_cnt;
  config.frame_skip_ref = s.frame_skip_ref;
  config.frame_skip_dist = s.frame_skip_dist;
  // The job checks its extractors and options when it is made: a typo in a
  // feature fails here, before any file is opened.
  Job check(config);
  return config;
}

std::string list_extractors_text() {
  std::string out;
  for (const ExtractorDescription& e : list_extractors()) {
    const std::string gpus = std::string(e.cuda ? ", cuda" : "") + (e.vulkan ? ", vulkan" : "");
    out += fmt::format("  {}{}\n", e.name, gpus.empty() ? "" : "  (cpu" + gpus + ")");
    for (const OptionSpec& o : e.options)
      out += fmt::format("      {}{}  {}\n", o.name, o.alias.empty() ? "" : " (" + o.alias + ")",
                         o.help);
  }
  return out;
}

}  // namespace vqe::cli
