/* SPDX-License-Identifier: BSD-2-Clause */
#ifndef VQE_VQE_C_H
#define VQE_VQE_C_H
/**
 * @file VQE's C API (C99): score a distorted video against its reference by
 * pushing frame pairs, as libvmaf's vmaf_read_pictures does, from any
 * decoder, FFI or language binding.
 *
 *   VqeJob *job;
 *   vqe_job_open(&job, NULL);                                  // defaults
 *   vqe_job_use_model(job, "version=vmaf_v0.6.1");
 *   vqe_job_use_feature(job, "psnr", "enable_mse=true");
 *   for (each frame) vqe_job_submit(job, &ref, &dist);         // waits when full
 *   vqe_job_finish(job);
 *   vqe_job_score_pooled(job, "vmaf", VQE_POOL_MEAN, 0, UINT_MAX, &mean);
 *   vqe_job_write_output(job, "out.json", VQE_OUTPUT_JSON, 0);
 *   vqe_job_close(job);
 *
 * How libvmaf's calls map onto it:
 *   vmaf_init(&ctx, cfg)                    vqe_config_default + vqe_job_open
 *   vmaf_model_load / _load_from_path       vqe_job_use_model ("version=..." / "path=...")
 *     + vmaf_use_features_from_model          (the model's features come with it)
 *   vmaf_model_feature_overload             "extractor.option=value" items in the model spec
 *   vmaf_use_feature(ctx, name, dict)       vqe_job_use_feature(job, name, "k=v:k=v")
 *   vmaf_read_pictures(ctx, ref, dist, i)   vqe_job_submit (frames numbered 0, 1, 2, ...)
 *   vmaf_read_pictures(ctx, NULL, NULL, 0)  vqe_job_finish
 *   vmaf_score_at_index                     vqe_job_score_at_index
 *   vmaf_score_pooled                       vqe_job_score_pooled
 *   vmaf_feature_score_at_index             vqe_job_score_at_index (any emitted name)
 *   vmaf_write_output                       vqe_job_write_output
 *   vmaf_close                              vqe_job_close
 *
 * Errors: every call returns VQE_OK (0) or a negative VqeStatus; no C++
 * exception crosses the API. vqe_last_error() gives the message of the last
 * failed call on the calling thread.
 *
 * Ownership and threads: a VqeJob belongs to its opener until
 * vqe_job_close(). Calls on one job must not overlap (use it from one
 * thread at a time); different jobs are independent, also when their
 * settings (CPU level, threads, backend) differ. Strings passed in are
 * copied; pictures are read only during vqe_job_submit(). Strings returned
 * stay valid until the next call on the same job (or thread, for
 * vqe_last_error).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define VQE_API
#else
#define VQE_API __attribute__((visibility("default")))
#endif

/** Status codes: 0 or negative. */
typedef enum VqeStatus {
  VQE_OK = 0,
  VQE_ERROR_INVALID_ARGUMENT = -1, /**< null handle or pointer, malformed value */
  VQE_ERROR_FAILED = -2,           /**< refused or failed work (frame, file, model) */
  VQE_ERROR_AGAIN = -3,            /**< vqe_job_try_submit: every frame slot is busy */
  VQE_ERROR_NOT_READY = -4,        /**< the value is not final yet */
  VQE_ERROR_NOT_FOUND = -5,        /**< no such feature, model or frame */
  VQE_ERROR_STATE = -6,            /**< call out of order (e.g. a model after the first frame,
                                        a frame after vqe_job_finish) */
  VQE_ERROR_NO_MEMORY = -7         /**< an allocation failed */
} VqeStatus;

/** The message of the last failed call on this thread ("" if none). */
VQE_API const char *vqe_last_error(void);

/** "vqe X.Y.Z". */
VQE_API const char *vqe_version(void);

typedef enum VqeBackend {
  VQE_BACKEND_CPU = 0,  /**< everything on the CPU (default) */
  VQE_BACKEND_CUDA = 1, /**< extractors with a CUDA compute on GPU `gpu`, others on the CPU */
  VQE_BACKEND_AUTO = 2, /**< CUDA when a device is present, else Vulkan, else the CPU */
  VQE_BACKEND_VULKAN = 3 /**< extractors with a Vulkan compute on Vulkan device `gpu`, others on the CPU */
} VqeBackend;

/** Job settings. Initialise with vqe_config_default(), then change fields. */
typedef struct VqeConfig {
  unsigned threads;              /**< worker threads; 0 computes in the submitting thread */
  unsigned subsample;            /**< score every N-th frame (1 = all) */
  unsigned max_frames_in_flight; /**< frame pairs held at most; 0 = 2·threads + 2, fewer
                                      where those pass 1 GiB (JobConfig's rule) */
  int backend;                   /**< a VqeBackend value; others are refused by vqe_job_open */
  int gpu;                       /**< device index among the backend's devices (CUDA or Vulkan) */
  const char *cpu_level;         /**< NULL = best; "scalar", "sse4", "avx2", "avx512", "neon" */
  uint64_t cpumask;              /**< libvmaf's --cpumask bits (disables instruction sets) */
  int no_prediction;             /**< nonzero: compute models' features, no model score */
} VqeConfig;

/** Fills `config` with the defaults (no threads, subsample 1, CPU, best level). */
VQE_API void vqe_config_default(VqeConfig *config);

/** Opaque job. */
typedef struct VqeJob VqeJob;

/** Opens a job with `config` (NULL: defaults) into `*job`. */
VQE_API int vqe_job_open(VqeJob **job, const VqeConfig *config);
/** Closes `job` and frees everything it holds; NULL is accepted. */
VQE_API int vqe_job_close(VqeJob *job);

/**
 * Adds a VMAF model in libvmaf's --model syntax: "version=NAME" (built-in)
 * or "path=FILE" (libvmaf JSON or VQE's format), then optional
 * ":name=LABEL", ":enable_transform", ":disable_clip" and
 * ":extractor.option=value" overrides. Before the first frame only.
 */
VQE_API int vqe_job_use_model(VqeJob *job, const char *spec);

/**
 * Adds feature extractor `name` ("psnr", "float_ssim", ...; see
 * vqe --list-features) with `options` in libvmaf's "key=value:key=value"
 * syntax (NULL or "" for defaults). Before the first frame only.
 */
VQE_API int vqe_job_use_feature(VqeJob *job, const char *name, const char *options);

/** Chroma subsampling of a picture. */
typedef enum VqeChroma {
  VQE_CHROMA_400 = 0, /**< luma only */
  VQE_CHROMA_420 = 1,
  VQE_CHROMA_422 = 2,
  VQE_CHROMA_444 = 3
} VqeChroma;

/**
 * One picture in caller-owned memory. Samples are uint8_t at 8 bits and
 * native-endian uint16_t (below 2^bit_depth) at 10, 12 or 16 bits. Plane 0
 * is width × height; chroma planes are ceil(width/2) wide for 4:2:0 and
 * 4:2:2 and ceil(height/2) high for 4:2:0 (planes 1-2 unused for 4:0:0).
 * `stride[p]` is in bytes and at least a row.
 */
typedef struct VqePicture {
  int width;
  int height;
  int bit_depth;
  int chroma; /**< a VqeChroma value; others are refused by vqe_job_submit */
  const void *data[3];
  ptrdiff_t stride[3];
} VqePicture;

/**
 * Copies one frame pair in as the next frame. The first frame fixes the
 * format; every extractor's refusals come then (VQE_ERROR_FAILED with the
 * message). Waits while every frame slot is busy.
 */
VQE_API int vqe_job_submit(VqeJob *job, const VqePicture *reference, const VqePicture *distorted);
/** As vqe_job_submit, but returns VQE_ERROR_AGAIN at once when every slot is busy. */
VQE_API int vqe_job_try_submit(VqeJob *job, const VqePicture *reference,
                               const VqePicture *distorted);
/** Waits until every submitted frame is computed. */
VQE_API int vqe_job_flush(VqeJob *job);
/** Ends the video: end-of-video values, the remaining model scores. */
VQE_API int vqe_job_finish(VqeJob *job);

/** Frames submitted so far and frames whose values are final (either pointer may be NULL). */
VQE_API int vqe_job_frames(const VqeJob *job, unsigned *submitted, unsigned *final_frames);

/**
 * The value of `name` (a model name such as "vmaf", or any emitted feature
 * name such as "integer_adm2" or "psnr_y") at frame `index`.
 * VQE_ERROR_NOT_READY while the frame is not final, VQE_ERROR_NOT_FOUND for
 * a name the job does not emit or a frame without a value.
 */
VQE_API int vqe_job_score_at_index(VqeJob *job, const char *name, unsigned index, double *score);

typedef enum VqePoolMethod {
  VQE_POOL_MIN = 0,
  VQE_POOL_MAX = 1,
  VQE_POOL_MEAN = 2,
  VQE_POOL_HARMONIC_MEAN = 3 /**< n / sum(1 / (x + 1)) - 1 */
} VqePoolMethod;

/**
 * `name` pooled over frames first..last (last clamped to the final frames;
 * with subsample N, frames i with i mod N = 0), as vmaf_score_pooled.
 * After vqe_job_finish, or over frames already final. `method` is a
 * VqePoolMethod value (an int, so that any value a C caller passes is
 * defined; others give VQE_ERROR_INVALID_ARGUMENT).
 */
VQE_API int vqe_job_score_pooled(VqeJob *job, const char *name, int method,
                                 unsigned first, unsigned last, double *score);

/** A whole-video value (e.g. "apsnr_y"), after vqe_job_finish. */
VQE_API int vqe_job_aggregate(VqeJob *job, const char *name, double *value);

/** Number of emitted names (after the first frame). */
VQE_API int vqe_job_feature_count(VqeJob *job, size_t *count);
/** Emitted name `i` (0 .. count-1), in output order. */
VQE_API int vqe_job_feature_name(VqeJob *job, size_t i, const char **name);

typedef enum VqeOutputFormat {
  VQE_OUTPUT_XML = 0,
  VQE_OUTPUT_JSON = 1,
  VQE_OUTPUT_CSV = 2,
  VQE_OUTPUT_SUB = 3
} VqeOutputFormat;

/**
 * Writes libvmaf's log layout after vqe_job_finish. `path` "-" writes to
 * standard output; otherwise the file appears complete or not at all
 * (written to a temporary name beside it, then renamed). Numbers are printed
 * with libvmaf's default precision, or with 17 significant digits when
 * `max_precision` is nonzero. `format` is a VqeOutputFormat value (others
 * give VQE_ERROR_INVALID_ARGUMENT).
 */
VQE_API int vqe_job_write_output(VqeJob *job, const char *path, int format,
                                 int max_precision);

#ifdef __cplusplus
}
#endif

#endif /* VQE_VQE_C_H */
