// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The feature-extractor interface (CPU compute), the record of an
/// extractor with its compute per backend, and the explicit list.

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vqe/cpu.h"
#include "vqe/feature_collector.h"
#include "core/options.h"
#include "vqe/picture.h"
#include "core/scratch_arena.h"
#include "core/tiles.h"

namespace vqe {

/// Per-frame objects computed from the reference pictures alone, shared by
/// the jobs of a ladder (JobConfig::reference_share): each job hands its
/// non-temporal extractors one (set_reference_cache). Thread-safe.
class ReferenceCache {
 public:
  /// An immutable object of the extractor that made it (type known by key).
  using Object = std::shared_ptr<const void>;
  virtual ~ReferenceCache() = default;
  /// Frame `index`'s object under `key` (the extractor's name and options):
  /// taken from another job of the ladder that computed it, else computed by
  /// `compute` (jobs asking meanwhile wait for it). The share keeps it until
  /// every job of the ladder took it, so memory follows the frames in flight.
  /// An exception from `compute` propagates.
  virtual Object take(const std::string& key, unsigned index,
                      const std::function<Object()>& compute) = 0;
  /// The ladder's one state object under `key` (e.g. a pool of recycled
  /// buffers for take()'s objects, so that frames freed by one job serve
  /// the next frame whichever job computes it): made by `make` on the first
  /// request, the same object for every job and clone afterwards, kept as
  /// long as the ladder's share. Thread-safe.
  virtual std::shared_ptr<void> state(const std::string& key,
                                      const std::function<std::shared_ptr<void>()>& make) = 0;
};

/// One metric's computation over reference/distorted picture pairs.
///
/// Life cycle: construct with validated options; init() once with the video
/// format (throw vqe::Error to refuse, naming the extractor and its limit);
/// extract() for each frame; flush() once at the end. Non-temporal
/// extractors may be cloned per worker thread and see frames in any order;
/// temporal ones see every frame in order on one instance.
class FeatureExtractor {
 public:
  virtual ~FeatureExtractor() = default;

  /// Has the extractor take extract()'s whole-plane buffers from `arena`
  /// (which outlives it; null: its own arena, the default), shared with the
  /// other extractors that the same thread runs one after another. Call
  /// before init().
  void set_scratch(ScratchArena* arena) { shared_scratch_ = arena; }

  /// Prepares buffers for `format`. Throws vqe::Error if the format is
  /// outside what the extractor accepts (size, bit depth, chroma).
  virtual void init(const VideoFormat& format) = 0;

  /// Emitted feature names (with option suffixes), in output order.
  virtual std::vector<std::string> feature_names() const = 0;

  /// Scores frame `index` and stores values into `out`.
  virtual void extract(const Picture& reference, const Picture& distorted,
                       unsigned index, FeatureCollector& out) = 0;

  /// Emits values that need the end of the video (temporal features, the
  /// last frame's motion2, aggregate metrics).
  virtual void flush(FeatureCollector& out) { (void)out; }
  /// True when flush() writes nothing (it is not overridden), so that an
  /// instance that never scores need not hold initialised buffers: a job
  /// whose clones compute on its threads keeps such extractors' first
  /// instances uninitialised. The default, false, is always safe.
  virtual bool flush_writes_nothing() const { return false; }

  /// Gives the extractor the job's row-tile runner, which it may use in
  /// extract() to spread one frame over the job's threads (see tiles.h).
  /// Called after init(), before the first frame; `runner` outlives the
  /// job. Extractors that do not tile ignore it (the default).
  virtual void set_tile_runner(TileRunner* runner) { (void)runner; }

  /// Gives a non-temporal extractor the ladder's cache of reference-only
  /// work (see ReferenceCache) and its key there, so that extract() may take
  /// its per-frame reference part from it instead of computing it; the
  /// values must be the same bits either way. Called after init(), before
  /// the first frame, only for jobs of a ladder; `cache` outlives the
  /// extractor. Extractors without reference-only work ignore it (the
  /// default).
  virtual void set_reference_cache(ReferenceCache* cache, const std::string& key) {
    (void)cache, (void)key;
  }

  /// True if extract() needs the previous frames (frames arrive in order on
  /// one instance). Temporal extractors also run on every frame under
  /// --subsample, as libvmaf's TEMPORAL/PREV_REF extractors do.
  virtual bool temporal() const { return false; }
  /// True if extract() reads the chroma planes (planes 1 and 2); false lets
  /// the job's frame sources read luma only. Default true.
  virtual bool needs_chroma() const { return true; }

  /// Frames of look-ahead: the values this extractor writes for frame i are
  /// final once frame i + lag() has been extracted (and every value after
  /// flush()). 0 for extractors that write only the frame they extract;
  /// motion's motion2 needs the next frame's score (lag 1, or 2 with
  /// motion_five_frame_window). Only temporal extractors have a lag.
  virtual unsigned lag() const { return 0; }
  /// True if extract() must see every frame, also under --subsample
  /// (libvmaf's TEMPORAL flag). Always true for temporal extractors; a
  /// non-temporal extractor may also ask for it when its per-video state is
  /// order-independent and shared between its clones (psnr's APSNR totals).
  virtual bool every_frame() const { return temporal(); }

  /// A fresh, un-initialised instance with the same options, for another
  /// worker thread. Called for non-temporal and pairwise extractors.
  virtual std::unique_ptr<FeatureExtractor> clone() const = 0;

  // --- Pairwise temporal extractors -----------------------------------------
  // A temporal extractor whose per-frame work for frame i reads only frames
  // i and i - pair_distance() (and no other state of the past) is split in
  // two: extract_pair() does the work on any worker, frames in any order, on
  // a clone; emit_ordered() turns its few values into features, frames in
  // order, on the job's one instance. The job keeps frame i - d's pictures
  // until frame i's extract_pair() is done. extract() must still work on its
  // own (frames in order on one instance): it gives the same values.

  /// The distance d to the earlier frame extract_pair() reads, or 0 when the
  /// extractor is not pairwise (the default). At most kMaxPairDistance.
  virtual unsigned pair_distance() const { return 0; }
  static constexpr unsigned kMaxPairDistance = 4;

  /// What extract_pair() hands to emit_ordered(): a few numbers per frame.
  struct PairValues {
    double values[4] = {0, 0, 0, 0};
  };
  /// The per-frame part of frame `index` (pairwise extractors only):
  /// `earlier_reference`/`earlier_distorted` are frame index - d, nullptr for
  /// the first d frames. Thread-compatible: each worker calls its own clone.
  virtual PairValues extract_pair(const Picture* earlier_reference,
                                  const Picture* earlier_distorted, const Picture& reference,
                                  const Picture& distorted, unsigned index) {
    (void)earlier_reference, (void)earlier_distorted, (void)reference, (void)distorted,
        (void)index;
    return {};
  }
  /// The ordered part: frame `index`'s values from extract_pair(), frames in
  /// order 0, 1, 2, ... on the instance the job built first.
  virtual void emit_ordered(unsigned index, const PairValues& values, FeatureCollector& out) {
    (void)index, (void)values, (void)out;
  }
  /// True when extract_pair() reads the reference pictures only (motion):
  /// jobs of one ladder then compute its values once per frame and share
  /// them (JobConfig::reference_share). Default false.
  virtual bool pair_reference_only() const { return false; }

 protected:
  /// The arena for extract()'s whole-plane buffers (set_scratch()'s, else
  /// this extractor's own): a buffer's contents last only while extract()
  /// runs; init() asks for each buffer's size once, so that extract()
  /// allocates nothing.
  ScratchArena& scratch() {
    if (shared_scratch_) return *shared_scratch_;
    if (!own_scratch_) own_scratch_ = std::make_unique<ScratchArena>();
    return *own_scratch_;
  }

 private:
  ScratchArena* shared_scratch_ = nullptr;
  std::unique_ptr<ScratchArena> own_scratch_;
};

namespace cuda {
class CudaExtractor;  // backend/cuda/cuda_extractor.cuh (CUDA builds only)
}  // namespace cuda
namespace vulkan {
class VulkanExtractor;  // backend/vulkan/vulkan_extractor.h (Vulkan builds only)
}  // namespace vulkan

/// Builds the CUDA compute of an extractor for options already validated
/// against its ExtractorInfo::options (so emitted names are the CPU's).
using CudaFactory = std::unique_ptr<cuda::CudaExtractor> (*)(const ParsedOptions& options);
/// Builds the Vulkan compute of an extractor, likewise.
using VulkanFactory = std::unique_ptr<vulkan::VulkanExtractor> (*)(const ParsedOptions& options);

/// One extractor, as libvmaf's VmafFeatureExtractor record: its name,
/// options and provided features, and its compute per backend (CPU always;
/// CUDA and Vulkan where the metric has kernels). The metric's folder defines it; the
/// explicit list in core/extractor_list.cpp names every extractor.
struct ExtractorInfo {
  std::string name;                         ///< e.g. "psnr", "vif", "float_ssim"
  std::vector<OptionSpec> options;          ///< accepted options
  std::vector<std::string> provided_features;  ///< libvmaf internal names
  /// Builds the CPU extractor for options already validated against
  /// `options`, using the kernels of CPU level `level` (an available level).
  std::unique_ptr<FeatureExtractor> (*make)(const ParsedOptions& options, simd::Level level);
  /// The CUDA compute, or nullptr when the metric has no CUDA kernels or
  /// the build has no CUDA backend (use VQE_CUDA_TWIN).
  CudaFactory make_cuda = nullptr;
  /// The Vulkan compute, or nullptr when the metric has no Vulkan kernels
  /// or the build has no Vulkan backend (use VQE_VULKAN_TWIN).
  VulkanFactory make_vulkan = nullptr;
  /// When libvmaf first writes an emitted name (given without its option
  /// suffix, e.g. "integer_motion2") in its one-thread run, which fixes the
  /// name's column in libvmaf's output: the index of the frame during whose
  /// extraction it is first written, or kWrittenAtFlush for values written
  /// only at the end of the video. nullptr: every name at frame 0.
  unsigned (*first_written)(const std::string& name, const ParsedOptions& options) = nullptr;
};

/// ExtractorInfo::first_written of a value written only at the end.
inline constexpr unsigned kWrittenAtFlush = ~0u;

/// `factory` in builds with the CUDA backend, nullptr otherwise (so that a
/// metric's definition compiles the same either way).
#if defined(VQE_HAVE_CUDA)
#define VQE_CUDA_TWIN(factory) (factory)
#else
#define VQE_CUDA_TWIN(factory) nullptr
#endif

/// `factory` in builds with the Vulkan backend, nullptr otherwise.
#if defined(VQE_HAVE_VULKAN)
#define VQE_VULKAN_TWIN(factory) (factory)
#else
#define VQE_VULKAN_TWIN(factory) nullptr
#endif

/// Every extractor of this build, in the order of the explicit list
/// (core/extractor_list.cpp).
const std::vector<const ExtractorInfo*>& extractor_list();

/// The extractor named `name`, or nullptr.
const ExtractorInfo* find_extractor(const std::string& name);

/// The extractor that provides libvmaf internal feature `feature_name`
/// (e.g. "VMAF_integer_feature_adm2_score" -> "adm"), or nullptr.
const ExtractorInfo* find_extractor_by_feature(const std::string& feature_name);

/// Every extractor, sorted by name.
std::vector<const ExtractorInfo*> all_extractors();

/// Validates `values` against the extractor's options and builds it with the
/// kernels of CPU level `level`. Throws vqe::Error for an unknown extractor,
/// a bad option or a level this CPU lacks.
std::unique_ptr<FeatureExtractor> make_extractor(const std::string& name,
                                                 const OptionValues& values,
                                                 simd::Level level = simd::max_level());

}  // namespace vqe
