// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file An extractor's shared reference work in a ladder: its link to the
/// ladder's ReferenceCache (core/extractor.h) and the pool recycling the
/// frames it hands to it.

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/extractor.h"

namespace vqe {

/// A pool of `Frame` objects (an extractor's per-frame reference part, several
/// MB each) for a ladder: fresh memory for every frame costs page faults and
/// clearing (with a pool per job, which a frame computed by another job
/// never reached, 14 % of a 6-encode ladder's samples were that clearing;
/// perf, 2-core machine). One pool per extractor key and ladder (of()),
/// shared by every job and clone: a frame comes back to it when the ladder's
/// last job drops it. Keeps at most kMaxFree frames, so that a burst of
/// frames in flight does not stay allocated; the free frames never
/// outnumber those that were in flight at once. Thread-safe.
template <typename Frame>
class ReferencePool {
 public:
  static constexpr std::size_t kMaxFree = 8;

  ReferencePool() { free_.reserve(kMaxFree); }

  /// The pool of the ladder holding `cache`, for the extractor key `key`.
  static std::shared_ptr<ReferencePool> of(ReferenceCache& cache, const std::string& key) {
    return std::static_pointer_cast<ReferencePool>(
        cache.state(key + "/frames", [] { return std::make_shared<ReferencePool>(); }));
  }

  /// A frame to compute into: a recycled one (buffers of an earlier frame
  /// of the same format, contents stale) or a new one.
  std::unique_ptr<Frame> get() {
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        std::unique_ptr<Frame> frame = std::move(free_.back());
        free_.pop_back();
        return frame;
      }
    }
    return std::make_unique<Frame>();
  }

  /// `frame`, computed, as the cache's object: when its last holder drops
  /// it, it goes back to `pool` (or is freed when the pool is full).
  static ReferenceCache::Object share(const std::shared_ptr<ReferencePool>& pool,
                                      std::unique_ptr<Frame> frame) {
    return ReferenceCache::Object(frame.release(), [pool](const void* p) {
      std::unique_ptr<Frame> back(static_cast<Frame*>(const_cast<void*>(p)));
      std::lock_guard lock(pool->mutex_);
      // Capacity reserved: push_back does not allocate (or throw).
      if (pool->free_.size() < kMaxFree) pool->free_.push_back(std::move(back));
    });
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Frame>> free_;
};

/// An extractor's link to a ladder's ReferenceCache (set_reference_cache)
/// for its per-frame reference part of type `Frame`, recycled through the
/// ladder's ReferencePool. Empty (false) outside a ladder.
template <typename Frame>
class SharedReference {
 public:
  /// Links to `cache` under the extractor's `key` (null: unlinks).
  void attach(ReferenceCache* cache, const std::string& key) {
    cache_ = cache;
    key_ = key;
    pool_ = cache ? ReferencePool<Frame>::of(*cache, key) : nullptr;
  }
  explicit operator bool() const { return cache_ != nullptr; }

  /// Frame `index`'s reference part: another job's, or made here by
  /// `fill(Frame&)` into a frame of the pool. The pointer holds the frame.
  template <typename Fill>
  std::shared_ptr<const Frame> take(unsigned index, const Fill& fill) {
    const ReferenceCache::Object object = cache_->take(key_, index, [&] {
      std::unique_ptr<Frame> frame = pool_->get();
      fill(*frame);
      return ReferencePool<Frame>::share(pool_, std::move(frame));
    });
    return std::static_pointer_cast<const Frame>(object);
  }

 private:
  ReferenceCache* cache_ = nullptr;  // outlives the extractor (set_reference_cache)
  std::string key_;
  std::shared_ptr<ReferencePool<Frame>> pool_;
};

}  // namespace vqe
