// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// The inside of vqe::ReferenceShare (vqe/job.h): per (extractor, frame)
// values of reference-only pairwise extractors, computed by the first job of
// a ladder that needs them and taken by the others.

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "core/extractor.h"
#include "vqe/job.h"

namespace vqe {

struct ReferenceShare::Impl {
  using Values = FeatureExtractor::PairValues;

  /// Frame `index`'s values of the extractor `key` (its name and options):
  /// taken from the share when another job computed them, else computed by
  /// `compute` (other jobs asking meanwhile wait for it). An exception from
  /// `compute` propagates; jobs waiting for it then compute for themselves.
  template <typename Compute>
  Values take(const std::string& key, unsigned index, Compute&& compute) {
    const std::pair<std::string, unsigned> id{key, index};
    std::unique_lock lock(mutex);
    for (;;) {
      auto it = entries.find(id);
      if (it == entries.end()) break;
      if (it->second.ready) {
        const Values v = it->second.values;
        ++reused;
        if (++it->second.taken >= jobs) entries.erase(it);
        return v;
      }
      cv.wait(lock);  // another job is computing it
    }
    entries.emplace(id, Entry{});
    lock.unlock();
    Values v;
    try {
      v = compute();
    } catch (...) {
      lock.lock();
      entries.erase(id);
      cv.notify_all();
      throw;
    }
    lock.lock();
    ++computed;
    Entry& e = entries[id];
    e.values = v;
    e.ready = true;
    if (++e.taken >= jobs) entries.erase(id);
    cv.notify_all();
    return v;
  }

  /// A job finished or was dropped: values are no longer kept for it.
  void leave() {
    std::lock_guard lock(mutex);
    if (jobs > 0) --jobs;
    for (auto it = entries.begin(); it != entries.end();)
      it = it->second.ready && it->second.taken >= jobs ? entries.erase(it) : std::next(it);
  }

  struct Entry {
    bool ready = false;
    unsigned taken = 0;
    Values values;
  };
  std::mutex mutex;
  std::condition_variable cv;
  unsigned jobs = 0;
  std::map<std::pair<std::string, unsigned>, Entry> entries;
  unsigned long long computed = 0, reused = 0;
};

}  // namespace vqe
