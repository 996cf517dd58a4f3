// SPDX-License-Identifier: BSD-2-Clause
// The `vif` extractor on the CPU: libvmaf's integer VIF
// (libvmaf/src/feature/integer_vif.c, vmaf_fex_integer_vif) on the luma
// plane; its definition (options, names, outputs) is vif_score.h.

#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/extractor.h"
#include "features/vif/integer_vif.h"
#include "features/vif/vif_score.h"
#include "vqe/error.h"

namespace vqe {
namespace {

/// Frames of VIF's shared reference work, recycled: a 1080p frame is 23 MB,
/// and fresh memory for each costs page faults and clearing (with a pool per
/// job, which a frame computed by another job never reached, 14 % of a
/// 6-encode ladder's samples were that clearing; perf, 2-core machine).
/// One pool per ladder (ReferenceCache::state), shared by every job and
/// clone: a frame comes back to it when the ladder's last job drops it.
/// Keeps at most kMaxFree frames, so that a burst of frames in flight does
/// not stay allocated; the free frames never outnumber those that were in
/// flight at once.
struct FramePool {
  static constexpr std::size_t kMaxFree = 8;
  FramePool() { free.reserve(kMaxFree); }
  std::mutex mutex;
  std::vector<std::unique_ptr<vif::ReferenceFrame>> free;
};

/// Integer VIF on luma. Accepts 8/10/12/16-bit pictures of at least 16x16
/// luma samples; non-temporal, cloneable.
class VifExtractor final : public FeatureExtractor {
 public:
  VifExtractor(const ParsedOptions& opts, simd::Level level,
               std::shared_ptr<FramePool> pool = std::make_shared<FramePool>())
      : opts_(opts),
        level_(level),
        scorer_(opts),
        kernel_(scorer_.gain_limit(), scorer_.skip_scale0(), level),
        pool_(std::move(pool)) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    kernel_.init(format.width, format.height, format.bit_depth);
    format_ = format;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error(fmt::format("vif: frame {} does not have the initialised format {}x{} {}-bit",
                              index, format_.width, format_.height, format_.bit_depth));
    if (!cache_) {
      scorer_.emit(index, kernel_.compute(reference.plane(0), distorted.plane(0), tiles_), out);
      return;
    }
    // In a ladder: the reference part once per frame for all the encodes.
    const ReferenceCache::Object shared =
        cache_->take(cache_key_, index, [&] { return compute_reference(reference); });
    const auto& frame = *static_cast<const vif::ReferenceFrame*>(shared.get());
    scorer_.emit(index,
                 kernel_.compute_pair(frame, reference.plane(0), distorted.plane(0), tiles_),
                 out);
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  void set_reference_cache(ReferenceCache* cache, const std::string& key) override {
    cache_ = cache;
    cache_key_ = key;
    if (cache)
      pool_ = std::static_pointer_cast<FramePool>(
          cache->state(key + "/frames", [] { return std::make_shared<FramePool>(); }));
  }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<VifExtractor>(opts_, level_, pool_);
  }

 private:
  /// The frame's reference part, in a recycled frame of the pool when there
  /// is one; the object hands the frame back to the pool when dropped.
  ReferenceCache::Object compute_reference(const Picture& reference) {
    std::unique_ptr<vif::ReferenceFrame> frame;
    {
      std::lock_guard lock(pool_->mutex);
      if (!pool_->free.empty()) {
        frame = std::move(pool_->free.back());
        pool_->free.pop_back();
      }
    }
    if (!frame) frame = std::make_unique<vif::ReferenceFrame>();
    kernel_.compute_reference(reference.plane(0), *frame, tiles_);
    return ReferenceCache::Object(frame.release(), [pool = pool_](const void* p) {
      std::unique_ptr<vif::ReferenceFrame> back(
          static_cast<vif::ReferenceFrame*>(const_cast<void*>(p)));
      std::lock_guard lock(pool->mutex);
      // Capacity reserved: push_back does not allocate (or throw).
      if (pool->free.size() < FramePool::kMaxFree) pool->free.push_back(std::move(back));
    });
  }

  ParsedOptions opts_;
  simd::Level level_;
  vif::Scorer scorer_;
  vif::IntegerVifKernel kernel_;  // working buffers of this instance only
  VideoFormat format_{};
  TileRunner* tiles_ = nullptr;  // null: one thread
  std::shared_ptr<FramePool> pool_;  // recycled frames of compute_reference()
  ReferenceCache* cache_ = nullptr;  // a ladder's shared reference work, or null
  std::string cache_key_;            // this extractor's key in cache_
};

}  // namespace

const ExtractorInfo& vif_extractor() {
  static const ExtractorInfo info{
      .name = "vif",
      .options = vif::options(),
      .provided_features = vif::provided_features(),
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<VifExtractor>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(vif::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(vif::make_vulkan),
  };
  return info;
}

}  // namespace vqe
