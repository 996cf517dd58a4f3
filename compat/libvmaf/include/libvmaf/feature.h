/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VQE's libvmaf compatibility layer: feature option dictionaries.
 *
 * Same names, signatures and semantics as libvmaf 3.x's <libvmaf/feature.h>
 * (written for VQE from libvmaf's documentation; see libvmaf.h for the
 * whole layer and what it does not implement).
 */
#ifndef VQE_COMPAT_LIBVMAF_FEATURE_H
#define VQE_COMPAT_LIBVMAF_FEATURE_H

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque list of option key/value pairs for one feature extractor. */
typedef struct VmafFeatureDictionary VmafFeatureDictionary;

/**
 * Sets `key` to `val` in `*dict`, creating the dictionary when `*dict` is
 * NULL. An existing key gets the new value. Values that read as a number are
 * stored the way libvmaf stores them (converted to float and printed with
 * %g: "1.0" becomes "1"). Both strings are copied.
 *
 * @return 0, -EINVAL when a pointer is NULL, -ENOMEM.
 */
int vmaf_feature_dictionary_set(VmafFeatureDictionary **dict, const char *key,
                                const char *val);

/**
 * Frees `*dict` and sets it to NULL; `*dict == NULL` is accepted.
 * Only needed for a dictionary that was not handed over successfully to
 * vmaf_use_feature(), vmaf_model_feature_overload() or
 * vmaf_model_collection_feature_overload().
 *
 * @return 0, or -EINVAL when `dict` is NULL.
 */
int vmaf_feature_dictionary_free(VmafFeatureDictionary **dict);

#ifdef __cplusplus
}
#endif

#endif /* VQE_COMPAT_LIBVMAF_FEATURE_H */
