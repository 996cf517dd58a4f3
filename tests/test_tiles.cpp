// SPDX-License-Identifier: BSD-2-Clause
// Row tiles: the scheduler runs every tile once with distinct slots, passes
// errors on, and every extractor gives bit-identical values with tiles run
// on several threads, at every SIMD level.

#include <array>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/simd.h"
#include "core/work_scheduler.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe::test {
namespace {

// A scheduler whose `width - 1` helper threads do nothing but wait for tiles
// (as idle frame workers do).
class HelpedScheduler {
 public:
  // No minimum tile size, so that the small test frames are tiled too.
  explicit HelpedScheduler(unsigned width) : scheduler_(width, 0) {
    for (unsigned t = 1; t < width; ++t)
      helpers_.emplace_back([this] {
        while (scheduler_.next_item() != nullptr) {
        }
      });
  }
  ~HelpedScheduler() {
    scheduler_.stop();
    for (auto& t : helpers_) t.join();
  }
  WorkScheduler& get() { return scheduler_; }

 private:
  WorkScheduler scheduler_;
  std::vector<std::thread> helpers_;
};

TEST(Tiles, RowsCoverEveryRowOnceInOrder) {
  for (int rows : {0, 1, 2, 7, 31, 32, 33, 135, 1080}) {
    for (unsigned tiles : {1u, 2u, 3u, 8u, 40u}) {
      int expect = 0;
      for (unsigned t = 0; t < tiles; ++t) {
        const TileRows r = tile_rows(t, tiles, rows);
        EXPECT_EQ(r.begin, expect) << rows << " rows, tile " << t << "/" << tiles;
        EXPECT_LE(r.begin, r.end);
        EXPECT_LE(r.end - r.begin, rows / static_cast<int>(tiles) + 1);
        expect = r.end;
      }
      EXPECT_EQ(expect, rows);
    }
  }
}

TEST(Tiles, TileCountFollowsWidthAndMinimumRows) {
  WorkScheduler one(1), four(4, 0), four_min(4, 1u << 15);
  EXPECT_EQ(one.tile_count(1080, 32, 1920), 1u);
  EXPECT_EQ(four.tile_count(1080, 32, 1920), 16u);  // 4 per thread
  EXPECT_EQ(four.tile_count(100, 32, 1920), 3u);    // at least 32 rows each
  EXPECT_EQ(four.tile_count(10, 32, 1920), 1u);
  EXPECT_EQ(serial_tile_runner().tile_count(1080, 32, 1920), 1u);
  // At least 32768 samples per tile: 1024 rows of 64 samples make 2 tiles,
  // 270 rows of 480 (a decimated 2160p frame) 3.
  EXPECT_EQ(four_min.tile_count(1024, 16, 64), 2u);
  EXPECT_EQ(four_min.tile_count(270, 16, 480), 3u);
  EXPECT_EQ(four_min.tile_count(1080, 16, 1920), 16u);
}

TEST(Tiles, EveryTileRunsOnceWithDistinctSlots) {
  HelpedScheduler pool(4);
  for (int round = 0; round < 50; ++round) {
    constexpr unsigned kTiles = 37;
    std::vector<std::atomic<int>> calls(kTiles);
    std::array<std::atomic<int>, 4> in_slot{};
    std::atomic<bool> clash{false}, bad_slot{false};
    std::mutex m;
    std::set<std::thread::id> threads;
    pool.get().run(kTiles, [&](unsigned tile, unsigned slot) {
      if (slot >= 4) {
        bad_slot = true;
        return;
      }
      if (in_slot[slot].fetch_add(1) != 0) clash = true;
      calls[tile].fetch_add(1);
      {
        std::lock_guard lock(m);
        threads.insert(std::this_thread::get_id());
      }
      // Long enough that helpers get a share.
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      in_slot[slot].fetch_sub(1);
    });
    for (unsigned t = 0; t < kTiles; ++t) EXPECT_EQ(calls[t].load(), 1) << "tile " << t;
    EXPECT_FALSE(clash.load()) << "two tiles ran at once in one slot";
    EXPECT_FALSE(bad_slot.load());
    if (round == 49) {
      EXPECT_GT(threads.size(), 1u) << "no helper ever took a tile";
    }
  }
}

TEST(Tiles, FirstErrorIsRethrownAndLaterTilesAreSkipped) {
  HelpedScheduler pool(3);
  std::atomic<int> ran{0};
  EXPECT_THROW(pool.get().run(1000,
                              [&](unsigned tile, unsigned) {
                                ++ran;
                                if (tile == 3) throw Error("tile 3 failed");
                                std::this_thread::sleep_for(std::chrono::microseconds(100));
                              }),
               Error);
  EXPECT_LT(ran.load(), 1000);
  // The scheduler is still usable afterwards.
  std::atomic<int> after{0};
  pool.get().run(10, [&](unsigned, unsigned) { ++after; });
  EXPECT_EQ(after.load(), 10);
}

TEST(Tiles, SerialRunnerRunsInOrderOnSlotZero) {
  std::vector<unsigned> order;
  serial_tile_runner().run(5, [&](unsigned tile, unsigned slot) {
    EXPECT_EQ(slot, 0u);
    order.push_back(tile);
  });
  EXPECT_EQ(order, (std::vector<unsigned>{0, 1, 2, 3, 4}));
}

// Every extractor, with its frames cut into tiles run by 4 threads, equals
// the untiled run, at every SIMD level, on frames whose heights are not
// multiples of the tile counts.
TEST(Tiles, ExtractorsBitIdenticalWithTiles) {
  struct Case {
    int width, height, bits;
  };
  // 197x181: large enough for float_ms_ssim (176x176 at least).
  const Case cases[] = {{176, 144, 8}, {203, 131, 10}, {96, 300, 12}, {64, 67, 16},
                        {197, 181, 8}};
  HelpedScheduler pool(4);
  int compared = 0;
  for (simd::Level level : simd::available_levels()) {
    for (const Case& c : cases) {
      VideoFormat f;
      f.width = c.width;
      f.height = c.height;
      f.bit_depth = c.bits;
      f.chroma = ChromaFormat::k420;
      std::vector<std::pair<Picture, Picture>> frames;
      for (std::uint32_t i = 0; i < 3; ++i) {
        Picture ref = synthetic_picture(f, 11 + i, Fill::smooth);
        Picture dis = distort_picture(ref, 101 + i, 1 << (c.bits - 6));
        frames.emplace_back(std::move(ref), std::move(dis));
      }
      for (const ExtractorInfo* e : all_extractors()) {
        FeatureCollector untiled;
        try {
          untiled = run_on_pictures(e->name, {}, frames, nullptr, level);
        } catch (const Error&) {
          EXPECT_THROW(run_on_pictures(e->name, {}, frames, &pool.get(), level), Error) << e->name;
          continue;
        }
        const FeatureCollector tiled = run_on_pictures(e->name, {}, frames, &pool.get(), level);
        expect_bit_identical(untiled, tiled,
                             fmt::format("{} {}x{} {}-bit at {}", e->name, c.width, c.height,
                                         c.bits, simd::level_name(level)));
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 0);
}

}  // namespace
}  // namespace vqe::test
