// SPDX-License-Identifier: BSD-2-Clause
#include "golden/golden_runs.h"

#include "core/extractor.h"

namespace vqe::test {
namespace {

GoldenRun extractor_run(const std::string& name, const OptionValues& options,
                        const std::string& refusal_key) {
  GoldenRun run;
  run.label = name;
  for (const auto& [k, v] : options) run.label += ":" + k + "=" + v;
  run.refusal_key = refusal_key;
  run.config.features.push_back({name, options});
  auto extractor = make_extractor(name, options);
  run.expected_features = extractor->feature_names();
  return run;
}

}  // namespace

const std::vector<GoldenRun>& golden_runs() {
  static const std::vector<GoldenRun> runs = [] {
    std::vector<GoldenRun> out;
    for (const ExtractorInfo* e : all_extractors()) {
      if (e->name == "psnr") {
        out.push_back(extractor_run("psnr", {{"enable_mse", "true"}, {"enable_apsnr", "true"}},
                                    "psnr"));
        continue;
      }
      out.push_back(extractor_run(e->name, {}, e->name));
    }
    // The *_egl_1 features the neg models pull in.
    const std::pair<const char*, const char*> egl[] = {{"vif", "vif_enhn_gain_limit"},
                                                       {"adm", "adm_enhn_gain_limit"},
                                                       {"float_vif", "vif_enhn_gain_limit"},
                                                       {"float_adm", "adm_enhn_gain_limit"}};
    for (const auto& [name, option] : egl)
      if (find_extractor(name)) out.push_back(extractor_run(name, {{option, "1"}}, name));
    // Models, named as in the reference JSON.
    const std::pair<const char*, const char*> models[] = {
        {"vmaf_v0.6.1", "vmaf"},
        {"vmaf_v0.6.1neg", "vmaf_neg"},
        {"vmaf_4k_v0.6.1", "vmaf_4k"},
        {"vmaf_b_v0.6.3", "vmaf_b"},
        {"vmaf_float_v0.6.1", "vmaf_float"},
        {"vmaf_float_v0.6.1neg", "vmaf_float_neg"},
        {"vmaf_float_4k_v0.6.1", "vmaf_float_4k"},
        {"vmaf_float_b_v0.6.3", "vmaf_float_b"},
        {"vmaf_v1.0.16_3d0h", "vmaf_v1_3d0h"},
        {"vmaf_v1.0.16_hfr_3d0h", "vmaf_v1_hfr_3d0h"},
        {"vmaf_v1.0.16_1d5h_2160", "vmaf_v1_1d5h_2160"},
    };
    for (const auto& [version, name] : models) {
      GoldenRun run;
      run.label = std::string("model ") + version;
      run.refusal_key = std::string(version).find("v1.0.16") != std::string::npos ? "models_v1"
                                                                                   : "models";
      Model model = Model::builtin(version);
      model.set_name(name);
      run.expected_features = model.output_names();
      run.config.models.push_back(std::move(model));
      out.push_back(std::move(run));
    }
    return out;
  }();
  return runs;
}

bool requires_exact(const std::string& n) {
  auto starts = [&](const char* p) { return n.rfind(p, 0) == 0; };
  if (starts("integer_") || starts("VMAF_integer_") || starts("psnr_") || starts("mse_") ||
      starts("apsnr_") || starts("cambi"))
    return !starts("psnr_hvs");
  // Models on integer features: vmaf, vmaf_neg, vmaf_4k, vmaf_b*, vmaf_v1*.
  if (starts("vmaf") && !starts("vmaf_float")) return true;
  return false;
}

}  // namespace vqe::test
