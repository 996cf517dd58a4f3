// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// The inside of vqe::ReferenceShare (vqe/job.h): per (extractor, frame)
// values of reference-only pairwise extractors, and per (extractor, frame)
// reference objects of non-temporal extractors (ReferenceCache: VIF's
// reference statistics), computed by the first job of a ladder that needs
// them and taken by the others.

#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/extractor.h"
#include "vqe/job.h"

namespace vqe {

struct ReferenceShare::Impl {
  using Values = FeatureExtractor::PairValues;
  using Object = ReferenceCache::Object;

  /// A job starts holding the share: returns its id (for take and leave).
  unsigned join() {
    std::lock_guard lock(mutex);
    return next_id++;
  }

  /// Frame `index`'s values of the extractor `key` (its name and options)
  /// for job `job` (join()'s id): taken from the share when another job
  /// computed them, else computed by `compute` (other jobs asking meanwhile
  /// wait for it). An exception from `compute` propagates; jobs waiting for
  /// it then compute for themselves.
  template <typename Compute>
  Values take(const std::string& key, unsigned index, unsigned job, Compute&& compute) {
    return take_field(key, index, job, &Entry::values, compute);
  }

  /// As take(), for an extractor's opaque per-frame reference object
  /// (ReferenceCache): one object per (key, index), kept until every job
  /// holding the share took it.
  template <typename Compute>
  Object take_object(const std::string& key, unsigned index, unsigned job, Compute&& compute) {
    return take_field(key, index, job, &Entry::object, compute);
  }

  /// The ladder's state object under `key`, made by `make` on the first
  /// request (ReferenceCache::state).
  template <typename Make>
  std::shared_ptr<void> state(const std::string& key, Make&& make) {
    std::lock_guard lock(mutex);
    std::shared_ptr<void>& s = states[key];
    if (!s) s = make();
    return s;
  }

  /// Job `job` finished or was dropped: values are no longer kept for it
  /// (a value it took still waits for the jobs that have not).
  void leave(unsigned job) {
    std::vector<Entry> dropped;  // freed after the mutex is unlocked
    std::lock_guard lock(mutex);
    if (!left.insert(job).second) return;
    if (jobs > 0) --jobs;
    for (auto it = entries.begin(); it != entries.end();) {
      if (it->second.ready && taken_by_all(it->second)) {
        dropped.push_back(std::move(it->second));
        it = entries.erase(it);
      } else {
        ++it;
      }
    }
  }

  struct Entry {
    bool ready = false;
    std::vector<unsigned> takers;  // ids of the jobs that took the values
    Values values;                 // take()'s
    Object object;                 // take_object()'s
  };

  /// take() and take_object(): the entry's `field`. An object released by
  /// the share (the last job took it) is dropped after the mutex is
  /// unlocked, so that freeing a large object does not hold up other jobs.
  template <typename T, typename Compute>
  T take_field(const std::string& key, unsigned index, unsigned job, T Entry::*field,
               Compute& compute) {
    const std::pair<std::string, unsigned> id{key, index};
    Entry dropped;  // destroyed after `lock`
    std::unique_lock lock(mutex);
    for (;;) {
      auto it = entries.find(id);
      if (it == entries.end()) break;
      if (it->second.ready) {
        T v = it->second.*field;
        ++reused;
        it->second.takers.push_back(job);
        if (taken_by_all(it->second)) {
          dropped = std::move(it->second);
          entries.erase(it);
        }
        return v;
      }
      cv.wait(lock);  // another job is computing it
    }
    entries.emplace(id, Entry{});
    lock.unlock();
    T v;
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
    e.*field = v;
    e.ready = true;
    e.takers.push_back(job);
    if (taken_by_all(e)) {
      dropped = std::move(e);
      entries.erase(id);
    }
    cv.notify_all();
    return v;
  }
  /// True when every job still holding the share has taken `e` (a job that
  /// left does not count, whether it took it or not). Under `mutex`.
  bool taken_by_all(const Entry& e) const {
    unsigned holding = 0;
    for (const unsigned t : e.takers) holding += left.count(t) ? 0 : 1;
    return holding >= jobs;
  }

  std::mutex mutex;
  std::condition_variable cv;
  unsigned jobs = 0;  // jobs still holding the share
  unsigned next_id = 0;
  std::set<unsigned> left;  // ids of the jobs that left
  std::map<std::pair<std::string, unsigned>, Entry> entries;
  std::map<std::string, std::shared_ptr<void>> states;  // state()'s
  unsigned long long computed = 0, reused = 0;
};

}  // namespace vqe
