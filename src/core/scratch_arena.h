// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Whole-plane working buffers that the extractors run by one thread
/// share: each extractor's extract() uses them only while it runs, so the
/// extractors of a thread need the largest of their buffers, not the sum
/// (a job's per-thread clones share one arena; see FeatureExtractor::
/// set_scratch).

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/large_buffer.h"

namespace vqe {

/// The float extractors' slots: the same numbers in every extractor, so that
/// the extractors of one thread overlap their buffers (the pairs: a reference
/// and a distorted plane at +0 and +1).
enum ScratchSlot : unsigned {
  kScratchPlanes = 0,   ///< the planes as float (full size)
  kScratchSecond = 2,   ///< a second full-size pair (filtered, prescaled)
  kScratchPyramid = 4,  ///< smaller pairs from here (MS-SSIM's scales 1..4: to 11)
  kScratchWork = 12,    ///< an extractor's other buffers from here (SSIM's maps, ADM's bands)
};

/// Numbered buffers that grow to the largest size asked for. Contents are
/// unspecified between uses: a user writes what it reads within one
/// extract(). Not thread-safe (one thread at a time).
class ScratchArena {
 public:
  /// Buffer `slot` with room for at least `count` values of T (trivial T),
  /// at least 16-byte aligned (64 for large blocks). Grows (reallocating,
  /// contents lost) only when more is asked for than the slot holds, so
  /// pointers from earlier calls for the slot stay valid until a larger
  /// request; init() should ask for every size that extract() will.
  /// Throws std::bad_alloc when memory runs out.
  template <class T>
  T* get(unsigned slot, std::size_t count) {
    static_assert(std::is_trivial_v<T>);
    if (slot >= slots_.size()) slots_.resize(slot + 1);
    LargeVector<std::uint8_t>& b = slots_[slot];
    const std::size_t bytes = count * sizeof(T);
    if (b.size() < bytes) {
      b = LargeVector<std::uint8_t>();  // the old block first: no two at once
      assign_zeros(b, bytes);
    }
    return reinterpret_cast<T*>(b.data());
  }

  /// get() of slots `first` and `first` + 1 (a reference and a distorted
  /// plane of `count` values each).
  template <class T>
  std::pair<T*, T*> get_pair(unsigned first, std::size_t count) {
    T* a = get<T>(first, count);
    return {a, get<T>(first + 1, count)};
  }

  /// Bytes held by all slots.
  std::size_t bytes() const {
    std::size_t n = 0;
    for (const auto& b : slots_) n += b.size();
    return n;
  }

 private:
  std::vector<LargeVector<std::uint8_t>> slots_;
};

}  // namespace vqe
