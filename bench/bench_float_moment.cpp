// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of float_moment's plane sums and extractor, scalar
// against the best SIMD level (arguments: see bench_small_util.h).

#include "bench_small_util.h"
#include "features/float_moment/float_moment_kernels.h"

namespace vqe {
namespace {

void BM_float_moment_plane_sums(benchmark::State& state) {
  const auto& fr = benchsmall::bench_frames(state.range(0));
  const moment::MomentDsp& dsp = moment::moment_dsp(benchsmall::bench_level(state.range(1)));
  const Plane& p = fr.ref.plane(0);
  for (auto _ : state) {
    if (fr.ref.bit_depth() == 8)
      benchmark::DoNotOptimize(
          dsp.sums8(p.row<std::uint8_t>(0), p.stride, p.width, p.height));
    else
      benchmark::DoNotOptimize(
          dsp.sums16(p.row<std::uint16_t>(0), p.stride / 2, p.width, p.height));
  }
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_float_moment_plane_sums)->VQE_SMALL_BENCH_ARGS;

void BM_float_moment_extractor(benchmark::State& state) {
  benchsmall::bench_extractor(state, "float_moment");
}
BENCHMARK(BM_float_moment_extractor)->VQE_SMALL_BENCH_ARGS;

}  // namespace
}  // namespace vqe
