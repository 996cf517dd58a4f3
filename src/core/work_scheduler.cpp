// SPDX-License-Identifier: BSD-2-Clause
#include "core/work_scheduler.h"

#include <algorithm>

namespace vqe {

namespace {

class SerialTileRunner final : public TileRunner {
 public:
  unsigned width() const override { return 1; }
  void run(unsigned tiles, TileFn fn) override {
    for (unsigned t = 0; t < tiles; ++t) fn(t, 0);
  }
};

}  // namespace

TileRunner& serial_tile_runner() {
  static SerialTileRunner runner;
  return runner;
}

// One run() call. Lives on the issuing thread's stack; every field is
// guarded by the scheduler's mutex.
struct WorkScheduler::Batch {
  Batch(TileFn f, unsigned n) : fn(f), tiles(n) {}
  TileFn fn;
  unsigned tiles = 0;
  unsigned next = 0;       // tiles claimed so far
  unsigned done = 0;       // claimed tiles whose call has returned
  unsigned helpers = 0;    // other threads inside work_on() for this batch
  unsigned next_slot = 1;  // slot 0 is the issuer's
  std::exception_ptr error;
};

WorkScheduler::WorkScheduler(unsigned width, unsigned min_tile_samples)
    : width_(std::max(1u, width)), min_tile_samples_(min_tile_samples) {}

WorkScheduler::~WorkScheduler() { stop(); }

void WorkScheduler::work_on(Batch& b, unsigned slot, std::unique_lock<std::mutex>& lock) {
  while (b.next < b.tiles && !b.error) {
    const unsigned tile = b.next++;
    lock.unlock();
    std::exception_ptr error;
    try {
      b.fn(tile, slot);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    if (error && !b.error) b.error = error;
    ++b.done;
  }
}

void WorkScheduler::run(unsigned tiles, TileFn fn) {
  if (tiles == 0) return;
  if (tiles == 1 || width_ == 1) {
    for (unsigned t = 0; t < tiles; ++t) fn(t, 0);
    return;
  }
  Batch b(fn, tiles);
  std::unique_lock lock(mutex_);
  batches_.push_back(&b);
  work_cv_.notify_all();
  work_on(b, 0, lock);
  // No new helper may join once the batch leaves the list; wait for the
  // tiles that helpers are still running.
  batches_.erase(std::remove(batches_.begin(), batches_.end(), &b), batches_.end());
  done_cv_.wait(lock, [&] { return b.done == b.next && b.helpers == 0; });
  if (b.error) std::rethrow_exception(b.error);
}

void WorkScheduler::push(void* item) {
  {
    std::lock_guard lock(mutex_);
    items_.push_back(item);
  }
  work_cv_.notify_one();
}

bool WorkScheduler::help_with_tiles(std::unique_lock<std::mutex>& lock) {
  while (!batches_.empty()) {
    Batch* b = batches_.front();
    if (b->next >= b->tiles || b->error || b->next_slot >= width_) {
      batches_.erase(batches_.begin());
      continue;
    }
    const unsigned slot = b->next_slot++;
    ++b->helpers;
    work_on(*b, slot, lock);
    --b->helpers;
    done_cv_.notify_all();
    return true;
  }
  return false;
}

void* WorkScheduler::try_next_item(bool* worked) {
  std::unique_lock lock(mutex_);
  *worked = help_with_tiles(lock);
  if (*worked || items_.empty()) return nullptr;
  void* item = items_.front();
  items_.pop_front();
  *worked = true;
  return item;
}

void* WorkScheduler::next_item() {
  std::unique_lock lock(mutex_);
  for (;;) {
    // Tiles of frames in progress first.
    while (help_with_tiles(lock)) {
    }
    if (!items_.empty()) {
      void* item = items_.front();
      items_.pop_front();
      return item;
    }
    if (stopping_) return nullptr;
    work_cv_.wait(lock);
  }
}

void WorkScheduler::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_cv_.notify_all();
}

}  // namespace vqe
