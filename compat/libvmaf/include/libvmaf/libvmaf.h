/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * VQE's libvmaf compatibility layer: libvmaf 3.x's public C API on top of
 * VQE's engine (vqe::Job), so that programs written for libvmaf (FFmpeg's
 * libvmaf filter, the vmaf tool's call sequence, bindings) run on VQE
 * unchanged. The names, signatures, enum values and struct layouts are
 * libvmaf's (API 3.2.0); the text is VQE's own, written from libvmaf's
 * documentation and behaviour. The layer only translates: every value comes
 * from vqe::Job, every log from VQE's writers.
 *
 * Build and install (CMake option VQE_BUILD_LIBVMAF_COMPAT, on by default on
 * Linux): `cmake --install BUILD --component libvmaf --prefix PREFIX` installs
 * PREFIX/lib/libvmaf.so.3 (SONAME libvmaf.so.3, VQE linked in, only vmaf_*
 * exported), PREFIX/include/libvmaf/{libvmaf,model,picture,feature,version}.h
 * and PREFIX/lib/pkgconfig/libvmaf.pc (version 3.2.0). A plain
 * `cmake --install` leaves it out, so it never replaces a system libvmaf by
 * accident. Use it with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig at build time
 * (FFmpeg: ./configure --enable-libvmaf) and LD_LIBRARY_PATH=PREFIX/lib (or
 * an rpath) at run time.
 *
 * The call sequence:
 *
 *   VmafConfiguration cfg = { .log_level = VMAF_LOG_LEVEL_INFO, .n_threads = 4 };
 *   vmaf_init(&vmaf, cfg);
 *   vmaf_model_load(&model, &(VmafModelConfig){ .name = "vmaf" }, "vmaf_v0.6.1");
 *   vmaf_use_features_from_model(vmaf, model);
 *   vmaf_use_feature(vmaf, "psnr", NULL);
 *   for (i = 0; each frame pair; i++) {
 *       vmaf_picture_alloc(&ref, VMAF_PIX_FMT_YUV420P, 8, w, h);   // fill ref.data
 *       vmaf_picture_alloc(&dist, VMAF_PIX_FMT_YUV420P, 8, w, h);  // fill dist.data
 *       vmaf_read_pictures(vmaf, &ref, &dist, i);       // the library unrefs both
 *   }
 *   vmaf_read_pictures(vmaf, NULL, NULL, 0);            // flush
 *   vmaf_score_pooled(vmaf, model, VMAF_POOL_METHOD_MEAN, &score, 0, i - 1);
 *   vmaf_write_output(vmaf, "log.json", VMAF_OUTPUT_FORMAT_JSON);
 *   vmaf_model_destroy(model);
 *   vmaf_close(vmaf);
 *
 * Errors: calls return 0 or a negative errno value (-EINVAL for bad
 * arguments, calls out of order, refused input or missing values; -ENOMEM);
 * none crashes on NULL pointers. The reason is logged to stderr as
 * "libvmaf ERROR ..." when the context's log level allows it.
 *
 * Threads: one context is used by one thread at a time (as libvmaf);
 * different contexts are independent, including their CPU level (cpumask)
 * and log level, which libvmaf keeps process-wide. n_threads worker threads
 * compute frames in parallel; results are the same bits for every count.
 *
 * Differences from libvmaf 3.2.0 (deliberate or not implemented):
 *  - Frames must be read in order: `index` 0, 1, 2, ... (what FFmpeg and the
 *    vmaf tool do; libvmaf's temporal features need it too). Another index
 *    returns -EINVAL.
 *  - Models and features must be registered before the first picture.
 *  - Scores of a model come only from contexts that registered it
 *    (vmaf_use_features_from_model); libvmaf also predicts an unregistered
 *    model from the context's features.
 *  - vmaf_write_output() needs the flush first, and writes the file
 *    atomically (a temporary file renamed when complete). Set the
 *    environment variable VQE_LIBVMAF_PRECISION=max (or a number of
 *    significant digits, 1-17) to print numbers as %.17g (or %.Ng) instead
 *    of libvmaf's %.6f.
 *  - Imported scores (vmaf_import_feature_score) appear in queries and in
 *    the log but do not feed models.
 *  - vmaf_preallocate_pictures() keeps no pool: each fetch allocates.
 *  - Everything runs on the CPU: gpumask is ignored, libvmaf_cuda.h (and
 *    the other CUDA/SYCL calls) is not provided.
 *  - Chroma planes of odd sizes are rounded up (see vmaf_picture_alloc).
 *  - Pictures of 8, 10, 12 and 16 bits are scored; 9, 11, 13-15 bits are
 *    allocated but refused by vmaf_read_pictures.
 */
#ifndef VQE_COMPAT_LIBVMAF_LIBVMAF_H
#define VQE_COMPAT_LIBVMAF_LIBVMAF_H

#include <stdint.h>
#include <stdio.h>

#include "libvmaf/model.h"
#include "libvmaf/picture.h"
#include "libvmaf/feature.h"

#ifdef __cplusplus
extern "C" {
#endif

/** What is logged to stderr. */
enum VmafLogLevel {
    VMAF_LOG_LEVEL_NONE = 0,
    VMAF_LOG_LEVEL_ERROR = 1,
    VMAF_LOG_LEVEL_WARNING = 2,
    VMAF_LOG_LEVEL_INFO = 3,
    VMAF_LOG_LEVEL_DEBUG = 4,
};

/** Log formats of vmaf_write_output(): libvmaf's layouts. */
enum VmafOutputFormat {
    VMAF_OUTPUT_FORMAT_NONE = 0,
    VMAF_OUTPUT_FORMAT_XML = 1,
    VMAF_OUTPUT_FORMAT_JSON = 2,
    VMAF_OUTPUT_FORMAT_CSV = 3,
    VMAF_OUTPUT_FORMAT_SUB = 4,
};

/** Pooling over frames. */
enum VmafPoolingMethod {
    VMAF_POOL_METHOD_UNKNOWN = 0,
    VMAF_POOL_METHOD_MIN = 1,
    VMAF_POOL_METHOD_MAX = 2,
    VMAF_POOL_METHOD_MEAN = 3,
    VMAF_POOL_METHOD_HARMONIC_MEAN = 4, /**< n / sum(1 / (x + 1)) - 1 */
    VMAF_POOL_METHOD_NB
};

/** Settings of a context. */
typedef struct VmafConfiguration {
    enum VmafLogLevel log_level; /**< of this context; also the level of calls
                                      without a context (model loading) */
    unsigned n_threads;   /**< worker threads; 0 computes in the calling thread */
    unsigned n_subsample; /**< score frames i with i % n_subsample == 0 (0, 1: all) */
    uint64_t cpumask;     /**< set bits disable instruction sets: 4 SSE4.1,
                               8 AVX2, 16 AVX-512 (x86); 1 NEON (Arm) */
    uint64_t gpumask;     /**< ignored: VQE's layer computes on the CPU */
} VmafConfiguration;

/** Opaque scoring context: one reference/distorted video pair. */
typedef struct VmafContext VmafContext;

/**
 * Opens a context with `cfg` into `*vmaf`; free it with vmaf_close().
 * @return 0, -EINVAL (NULL `vmaf`), -ENOMEM.
 */
int vmaf_init(VmafContext **vmaf, VmafConfiguration cfg);

/**
 * Computes `model`'s input features (with the options the model and its
 * overloads give them) and its score for every frame, under the model's
 * name. Registering several models shares the features they have in common;
 * registering the same model twice changes nothing. Two different models
 * with one name are refused. Before the first picture only.
 * @return 0 or -EINVAL.
 */
int vmaf_use_features_from_model(VmafContext *vmaf, VmafModel *model);

/** vmaf_use_features_from_model() for a bootstrap collection. */
int vmaf_use_features_from_model_collection(VmafContext *vmaf,
                                            VmafModelCollection *model_collection);

/**
 * Adds feature extractor `feature_name` ("psnr", "float_ssim", "cambi", ...:
 * libvmaf's extractor names, see `vqe --list-features`) with the options in
 * `opts_dict` (NULL: defaults). On success the context takes `opts_dict`;
 * on failure (unknown extractor or option, bad value, after the first
 * picture: -EINVAL) it stays the caller's. Before the first picture only.
 */
int vmaf_use_feature(VmafContext *vmaf, const char *feature_name,
                     VmafFeatureDictionary *opts_dict);

/**
 * Stores an externally computed `value` of `feature_name` at frame `index`.
 * It is returned by the score queries and written by vmaf_write_output();
 * models do not use it. A name the context computes itself is refused.
 * @return 0 or -EINVAL.
 */
int vmaf_import_feature_score(VmafContext *vmaf, const char *feature_name,
                              double value, unsigned index);

/**
 * Scores one frame pair: `index` must be the number of pairs read before
 * (0, 1, 2, ...). Both pictures must have the same size, format and bit
 * depth as each other and as the first pair. On success the library has
 * copied and released both pictures (vmaf_picture_unref); on failure they
 * stay the caller's. Waits while every frame slot of the context is busy
 * (2·n_threads + 2 slots; 1 without threads), so memory stays bounded however
 * fast pictures come.
 *
 * vmaf_read_pictures(vmaf, NULL, NULL, 0) flushes: the end-of-video values
 * are computed and every score becomes available. No picture is accepted
 * afterwards.
 *
 * @return 0; -EINVAL for a NULL context, one NULL picture, a wrong index, a
 *         picture of another size or format, a refused format (e.g. a frame
 *         too small for an extractor), a read after the flush; -ENOMEM.
 */
int vmaf_read_pictures(VmafContext *vmaf, VmafPicture *ref, VmafPicture *dist,
                       unsigned index);

/**
 * The score of registered `model` at frame `index`. Available once the frame
 * is final (with threads, or for models using motion2 which needs the next
 * frame, possibly only after later reads) and always after the flush.
 * @return 0, or -EINVAL (NULL pointer, unregistered model, no value yet).
 */
int vmaf_score_at_index(VmafContext *vmaf, VmafModel *model, double *score,
                        unsigned index);

/** A bootstrap collection's statistics at frame `index` (see vmaf_score_at_index). */
int vmaf_score_at_index_model_collection(VmafContext *vmaf,
                                         VmafModelCollection *model_collection,
                                         VmafModelCollectionScore *score,
                                         unsigned index);

/**
 * The value of feature `feature_name` at frame `index`: a name of the log
 * ("integer_adm2", "psnr_y", "float_ssim", a model's name, ...) or libvmaf's
 * internal name ("VMAF_integer_feature_adm2_score").
 * @return 0, or -EINVAL (NULL pointer, unknown name, no value yet).
 */
int vmaf_feature_score_at_index(VmafContext *vmaf, const char *feature_name,
                                double *score, unsigned index);

/**
 * `model`'s score pooled over frames index_low..index_high (both included;
 * with n_subsample N, only frames i with i % N == 0).
 * @return 0, or -EINVAL (NULL pointer, bad method or range, a frame without
 *         a value).
 */
int vmaf_score_pooled(VmafContext *vmaf, VmafModel *model,
                      enum VmafPoolingMethod pool_method, double *score,
                      unsigned index_low, unsigned index_high);

/** A bootstrap collection's statistics pooled over frames (see vmaf_score_pooled). */
int vmaf_score_pooled_model_collection(VmafContext *vmaf,
                                       VmafModelCollection *model_collection,
                                       enum VmafPoolingMethod pool_method,
                                       VmafModelCollectionScore *score,
                                       unsigned index_low, unsigned index_high);

/** Feature `feature_name` pooled over frames (names as vmaf_feature_score_at_index). */
int vmaf_feature_score_pooled(VmafContext *vmaf, const char *feature_name,
                              enum VmafPoolingMethod pool_method, double *score,
                              unsigned index_low, unsigned index_high);

/** Picture parameters for vmaf_preallocate_pictures(). */
typedef struct VmafPictureConfiguration {
    struct {
        unsigned w, h;
        unsigned bpc;
        enum VmafPixelFormat pix_fmt;
    } pic_params;
    unsigned pic_cnt; /**< must be nonzero; no pool is kept (see above) */
} VmafPictureConfiguration;

/**
 * Records the picture parameters that vmaf_fetch_preallocated_picture()
 * allocates with.
 * @return 0, or -EINVAL (NULL context, zero size or count, bad format).
 */
int vmaf_preallocate_pictures(VmafContext *vmaf, VmafPictureConfiguration cfg);

/**
 * Allocates a picture with the parameters of vmaf_preallocate_pictures();
 * release it with vmaf_picture_unref() or vmaf_read_pictures().
 * @return 0, -EINVAL (NULL pointer, nothing preallocated), -ENOMEM.
 */
int vmaf_fetch_preallocated_picture(VmafContext *vmaf, VmafPicture *pic);

/**
 * Closes `vmaf`: stops its threads and frees everything it holds (models
 * stay the caller's).
 * @return 0, or -EINVAL for NULL.
 */
int vmaf_close(VmafContext *vmaf);

/**
 * Writes every per-frame value, the pooled min/max/mean/harmonic mean and
 * the aggregate metrics to `output_path` in libvmaf's layout for `fmt`
 * (VQE's writers). After the flush.
 * @return 0, or -EINVAL (NULL pointer, unknown format, no flush yet, the
 *         file cannot be written).
 */
int vmaf_write_output(VmafContext *vmaf, const char *output_path,
                      enum VmafOutputFormat fmt);

/** "3.2.0+vqe.X.Y.Z": the libvmaf API level, then VQE's version. */
const char *vmaf_version(void);

#ifdef __cplusplus
}
#endif

#endif /* VQE_COMPAT_LIBVMAF_LIBVMAF_H */
