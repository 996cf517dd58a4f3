// SPDX-License-Identifier: BSD-2-Clause
// libvmaf's feature option dictionaries (libvmaf/feature.h).

#include <algorithm>

#include "internal.h"

namespace lc = vqe::libvmaf_compat;

namespace vqe::libvmaf_compat {

OptionValues options_of(const VmafFeatureDictionary* dict) {
  OptionValues out;
  if (dict)
    for (const auto& [key, value] : dict->entries) out[key] = value;
  return out;
}

}  // namespace vqe::libvmaf_compat

extern "C" {

int vmaf_feature_dictionary_set(VmafFeatureDictionary** dict, const char* key, const char* val) {
  if (!dict || !key || !val) return -EINVAL;
  return lc::guarded(lc::default_log_level, "vmaf_feature_dictionary_set", [&] {
    auto owned = std::unique_ptr<VmafFeatureDictionary>(*dict ? nullptr : new VmafFeatureDictionary);
    VmafFeatureDictionary* d = *dict ? *dict : owned.get();
    // libvmaf stores numbers normalised (strtof, then %g).
    std::string value = vqe::normalize_option_value(val);
    auto it = std::find_if(d->entries.begin(), d->entries.end(),
                           [&](const auto& e) { return e.first == key; });
    if (it != d->entries.end())
      it->second = std::move(value);
    else
      d->entries.emplace_back(key, std::move(value));
    if (owned) *dict = owned.release();
    return 0;
  });
}

int vmaf_feature_dictionary_free(VmafFeatureDictionary** dict) {
  if (!dict) return -EINVAL;
  delete *dict;
  *dict = nullptr;
  return 0;
}

}  // extern "C"
