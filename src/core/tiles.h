// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Row tiles: how an extractor spreads one frame's work over the job's
/// threads (`--threads N` scales over frames and, through this, within a
/// frame).
///
/// An extractor splits a pass over a plane into row tiles and hands them to
/// a TileRunner. The runner calls the tile function once per tile, on the
/// calling thread and on idle worker threads, and returns when all tiles are
/// done. Each call also gets a `slot` number that no other concurrently
/// running tile of the same run() has, so tiles can use per-slot scratch
/// buffers. Results must not depend on which thread ran a tile, nor on how
/// many tiles there are: extractors combine integer partial sums (exact in
/// any order) or keep float sums in the scalar reference's order.

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace vqe {

/// A non-owning reference to a callable `void(unsigned tile, unsigned slot)`
/// (no allocation; the callable must outlive the run() it is passed to).
class TileFn {
 public:
  template <typename F,
            typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, TileFn>>>
  TileFn(F&& f)  // NOLINT(google-explicit-constructor): passed inline as a lambda
      : object_(const_cast<void*>(static_cast<const void*>(&f))),
        call_([](void* o, unsigned tile, unsigned slot) {
          (*static_cast<std::remove_reference_t<F>*>(o))(tile, slot);
        }) {}
  /// Runs the callable for `tile` with scratch slot `slot`.
  void operator()(unsigned tile, unsigned slot) const { call_(object_, tile, slot); }

 private:
  void* object_;
  void (*call_)(void*, unsigned, unsigned);
};

/// Runs the row tiles of one frame's pass, possibly on several threads.
class TileRunner {
 public:
  virtual ~TileRunner() = default;

  /// The most threads that may run tiles of one run() at once (>= 1); slots
  /// passed to the tile function are below this number.
  virtual unsigned width() const = 0;

  /// Calls fn(tile, slot) once for every tile in [0, tiles), in any order
  /// and possibly concurrently, and returns when all calls have returned.
  /// The calling thread takes part (slot 0 is its). If a call throws, the
  /// remaining unstarted tiles are skipped and the first exception is
  /// rethrown here. fn must not call run() itself.
  virtual void run(unsigned tiles, TileFn fn) = 0;

  /// The fewest samples a tile should hold: smaller tiles cost more in
  /// hand-over between threads than they save (0: no minimum).
  virtual unsigned min_tile_samples() const { return 0; }

  /// How many tiles to cut `rows` rows of `row_samples` samples each into: 1
  /// when width() is 1, else up to 4 per thread (for balance when threads
  /// join late), each with at least `min_rows` rows and min_tile_samples()
  /// samples.
  unsigned tile_count(int rows, int min_rows, int row_samples) const {
    const unsigned w = width();
    if (w <= 1 || rows <= 0) return 1;
    int min = std::max(1, min_rows);
    if (row_samples > 0)
      min = std::max(min, static_cast<int>((min_tile_samples() + static_cast<unsigned>(row_samples) -
                                            1) / static_cast<unsigned>(row_samples)));
    const unsigned by_rows = static_cast<unsigned>(std::max(1, rows / min));
    return std::max(1u, std::min(4 * w, by_rows));
  }
};

/// Rows [begin, end) of tile `tile` out of `tiles` equal tiles of `rows`
/// rows (sizes differ by at most one row; tile order is row order).
struct TileRows {
  int begin = 0;
  int end = 0;
};
inline TileRows tile_rows(unsigned tile, unsigned tiles, int rows) {
  const auto at = [&](unsigned t) {
    return static_cast<int>(static_cast<long long>(rows) * t / tiles);
  };
  return {at(tile), at(tile + 1)};
}

/// A runner that runs every tile in order on the calling thread (width 1).
/// Shared and stateless; used when a job has no worker threads.
TileRunner& serial_tile_runner();

}  // namespace vqe
