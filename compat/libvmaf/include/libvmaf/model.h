/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VQE's libvmaf compatibility layer: VMAF models and model collections.
 *
 * Same names, signatures, enum values and struct layouts as libvmaf 3.x's
 * <libvmaf/model.h> (written for VQE from libvmaf's documentation; see
 * libvmaf.h for the whole layer). Models are VQE's (vqe::Model): the
 * built-in versions are libvmaf's (vmaf_v0.6.1, vmaf_v0.6.1neg,
 * vmaf_4k_v0.6.1, vmaf_b_v0.6.3, vmaf_float_*, vmaf_v1.0.16_*, ...), files
 * are libvmaf JSON models (or VQE's .vqem format).
 *
 * Threads: a model may be used by several contexts; loading, overloading and
 * destroying it must not overlap with other calls on it.
 */
#ifndef VQE_COMPAT_LIBVMAF_MODEL_H
#define VQE_COMPAT_LIBVMAF_MODEL_H

#include <stdint.h>

#include "feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Opaque loaded model. */
typedef struct VmafModel VmafModel;

/** Bits of VmafModelConfig.flags. */
enum VmafModelFlags {
    VMAF_MODEL_FLAGS_DEFAULT = 0,
    VMAF_MODEL_FLAG_DISABLE_CLIP = (1 << 0),     /**< never clip the score */
    VMAF_MODEL_FLAG_ENABLE_TRANSFORM = (1 << 1), /**< apply the file's score_transform
                                                      even where it says disabled */
    VMAF_MODEL_FLAG_DISABLE_TRANSFORM = (1 << 2) /**< accepted and ignored at load
                                                      time, as by libvmaf */
};

/** How to load a model. */
typedef struct VmafModelConfig {
    const char *name; /**< output name; NULL means "vmaf". Copied. */
    uint64_t flags;   /**< VmafModelFlags bits */
} VmafModelConfig;

/**
 * Loads built-in model `version` ("vmaf_v0.6.1", ...) into `*model`.
 * A bootstrap version (vmaf_b_v0.6.3, vmaf_float_b_v0.6.3) is a model
 * collection: this call fails for it, as in libvmaf; use
 * vmaf_model_collection_load().
 *
 * @return 0, or -EINVAL (NULL pointer, unknown version, a collection).
 */
int vmaf_model_load(VmafModel **model, VmafModelConfig *cfg,
                    const char *version);

/**
 * Loads a model file (libvmaf JSON with "model_dict", or VQE's .vqem) into
 * `*model`. A bootstrap collection file fails, as in libvmaf.
 *
 * @return 0, or -EINVAL (NULL pointer, unreadable or invalid file).
 */
int vmaf_model_load_from_path(VmafModel **model, VmafModelConfig *cfg,
                              const char *path);

/**
 * Sets the options in `opts_dict` for every input feature of `model` that
 * extractor `feature_name` ("adm", "vif", "motion", ...) computes, e.g.
 * adm_enhn_gain_limit=1.2. Affects contexts that use the model afterwards.
 * An extractor that the model does not use changes nothing (a warning is
 * logged). Takes `opts_dict` (frees it) on success.
 *
 * @return 0, or -EINVAL (NULL pointer).
 */
int vmaf_model_feature_overload(VmafModel *model, const char *feature_name,
                                VmafFeatureDictionary *opts_dict);

/** Frees `model` (NULL is accepted). Contexts that use it keep their copy. */
void vmaf_model_destroy(VmafModel *model);

/** Opaque bootstrap model collection. */
typedef struct VmafModelCollection VmafModelCollection;

enum VmafModelCollectionScoreType {
    VMAF_MODEL_COLLECTION_SCORE_UNKNOWN = 0,
    VMAF_MODEL_COLLECTION_SCORE_BOOTSTRAP = 1,
};

/** A collection's statistics for one frame or pooled over frames. */
typedef struct VmafModelCollectionScore {
    enum VmafModelCollectionScoreType type;
    struct {
        double bagging_score; /**< mean of the bootstrap models' predictions */
        double stddev;        /**< their standard deviation */
        struct {
            struct { double lo, hi; } p95; /**< 95% confidence interval */
        } ci;
    } bootstrap;
} VmafModelCollectionScore;

/**
 * Loads built-in bootstrap collection `version` (vmaf_b_v0.6.3,
 * vmaf_float_b_v0.6.3): `*model` is its main model (output name cfg->name,
 * default "vmaf") and `*model_collection` its bootstrap models (outputs
 * NAME_0001 ... NAME_NNNN). Both are freed separately. A single model fails.
 *
 * Unlike libvmaf, the two handles share one VQE model: using either or both
 * in a context computes every output of the collection (main score, each
 * bootstrap model, NAME_bagging, NAME_stddev, NAME_ci_p95_lo/_hi), and an
 * overload through either applies to both.
 *
 * @return 0, or -EINVAL (NULL pointer, unknown version, not a collection).
 */
int vmaf_model_collection_load(VmafModel **model,
                               VmafModelCollection **model_collection,
                               VmafModelConfig *cfg,
                               const char *version);

/** As vmaf_model_collection_load(), from a libvmaf JSON collection file. */
int vmaf_model_collection_load_from_path(VmafModel **model,
                                         VmafModelCollection **model_collection,
                                         VmafModelConfig *cfg,
                                         const char *path);

/**
 * vmaf_model_feature_overload() for a collection and its main model. Takes
 * `opts_dict` on success.
 *
 * @return 0, or -EINVAL (NULL pointer).
 */
int vmaf_model_collection_feature_overload(VmafModel *model,
                                           VmafModelCollection **model_collection,
                                           const char *feature_name,
                                           VmafFeatureDictionary *opts_dict);

/** Frees `model_collection` (NULL is accepted). */
void vmaf_model_collection_destroy(VmafModelCollection *model_collection);

#ifdef __cplusplus
}
#endif

#endif /* VQE_COMPAT_LIBVMAF_MODEL_H */
