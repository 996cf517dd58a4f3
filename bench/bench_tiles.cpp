// SPDX-License-Identifier: BSD-2-Clause
// Row tiles: one frame of an extractor on 1 thread against the same frame
// cut into row tiles over 2 threads (the caller plus one idle worker), at
// the best SIMD level. Names: BM_Tiles_<extractor>/<frame>/<threads>, with
// frame 0 = 1920x1080 8-bit, 1 = 3840x2160 10-bit. One iteration = one
// frame pair.

#include <thread>
#include <vector>

#include "bench_small_util.h"
#include "core/work_scheduler.h"

namespace vqe::benchsmall {
namespace {

void BM_Tiles(benchmark::State& state, const std::string& name) {
  const FramePair& fr = bench_frames(state.range(0));
  const auto threads = static_cast<unsigned>(state.range(1));
  WorkScheduler scheduler(threads);
  std::vector<std::thread> helpers;
  for (unsigned t = 1; t < threads; ++t)
    helpers.emplace_back([&] {
      while (scheduler.next_item() != nullptr) {
      }
    });
  auto e = make_extractor(name, {});
  e->init(fr.ref.format());
  e->set_tile_runner(threads > 1 ? &scheduler : nullptr);
  extract_each_iteration(state, *e, fr);
  scheduler.stop();
  for (auto& h : helpers) h.join();
  state.SetLabel(bench_label(state.range(0), 1) + "/threads:" + std::to_string(threads));
}

const bool kRegistered = [] {
  for (const char* name : {"vif", "adm", "motion", "float_ssim", "float_ms_ssim"})
    benchmark::RegisterBenchmark((std::string("BM_Tiles_") + name).c_str(), BM_Tiles,
                                 std::string(name))
        ->ArgsProduct({{0, 1}, {1, 2}})
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  return true;
}();

}  // namespace
}  // namespace vqe::benchsmall
