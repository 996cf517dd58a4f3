// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The job's worker threads' shared queue: whole frames, and row tiles
/// of frames already being scored (TileRunner). Idle workers take tiles
/// first, so a frame that one worker has split finishes sooner, then frames.

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <vector>

#include "core/tiles.h"

namespace vqe {

/// Frame queue plus tile batches for a fixed set of threads. Thread-safe.
/// Items are opaque pointers owned by the caller.
class WorkScheduler final : public TileRunner {
 public:
  /// Default min_tile_samples(): 32768 samples.
  static constexpr unsigned kDefaultMinTileSamples = 1u << 15;

  /// `width`: the most threads that may take part in one tile batch (the
  /// workers plus any other thread that calls run()); >= 1.
  /// `min_tile_samples`: see TileRunner::min_tile_samples() (tests pass 0
  /// to tile even tiny frames).
  explicit WorkScheduler(unsigned width, unsigned min_tile_samples = kDefaultMinTileSamples);
  ~WorkScheduler() override;
  WorkScheduler(const WorkScheduler&) = delete;
  WorkScheduler& operator=(const WorkScheduler&) = delete;

  unsigned width() const override { return width_; }
  unsigned min_tile_samples() const override { return min_tile_samples_; }
  void run(unsigned tiles, TileFn fn) override;

  /// Queues a frame item for next_item().
  void push(void* item);
  /// For a worker thread: runs other threads' pending tiles while there are
  /// any, and returns the next queued item; nullptr once stop() was called
  /// and the queue is empty.
  void* next_item();
  /// For a thread that is not one of the workers but has nothing else to
  /// do for a while (the job's submitting thread waiting for a free frame
  /// slot): never waits. Runs the unclaimed tiles of one batch if there are
  /// any (returns nullptr, `*worked` true), else takes the next queued item
  /// (returns it, `*worked` true), else returns nullptr with `*worked`
  /// false. Such a thread counts in width() like a worker.
  void* try_next_item(bool* worked);
  /// Wakes every waiting worker; next_item() returns nullptr once the queue
  /// is empty.
  void stop();

 private:
  struct Batch;
  // Runs unclaimed tiles of `b` with `slot` until none is left. Never throws
  // (errors are stored in the batch).
  static void work_on(Batch& b, unsigned slot, std::unique_lock<std::mutex>& lock);
  // Joins the first batch with unclaimed tiles and a free slot, runs its
  // tiles; false when there is none.
  bool help_with_tiles(std::unique_lock<std::mutex>& lock);
  void finish_tile(Batch& b);

  const unsigned width_;
  const unsigned min_tile_samples_;
  std::mutex mutex_;
  std::condition_variable work_cv_;  // a batch or an item arrived, or stop
  std::condition_variable done_cv_;  // a tile or a helper finished
  std::deque<void*> items_;
  std::vector<Batch*> batches_;  // batches with unclaimed tiles
  bool stopping_ = false;
};

}  // namespace vqe
