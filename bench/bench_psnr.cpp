// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of the psnr SSE kernel and extractor, scalar against the
// best SIMD level (arguments: see bench_small_util.h).

#include "bench_small_util.h"
#include "features/psnr/psnr_kernels.h"

namespace vqe {
namespace {

void BM_psnr_plane_sse(benchmark::State& state) {
  const auto& fr = benchsmall::bench_frames(state.range(0));
  const psnr::PsnrDsp& dsp = psnr::psnr_dsp(benchsmall::bench_level(state.range(1)));
  const Plane& a = fr.ref.plane(0);
  const Plane& b = fr.dist.plane(0);
  for (auto _ : state) {
    if (fr.ref.bit_depth() == 8)
      benchmark::DoNotOptimize(dsp.sse8(a.row<std::uint8_t>(0), a.stride, b.row<std::uint8_t>(0),
                                        b.stride, a.width, a.height));
    else
      benchmark::DoNotOptimize(dsp.sse16(a.row<std::uint16_t>(0), a.stride / 2,
                                         b.row<std::uint16_t>(0), b.stride / 2, a.width,
                                         a.height));
  }
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_psnr_plane_sse)->VQE_SMALL_BENCH_ARGS;

void BM_psnr_extractor(benchmark::State& state) { benchsmall::bench_extractor(state, "psnr"); }
BENCHMARK(BM_psnr_extractor)->VQE_SMALL_BENCH_ARGS;

}  // namespace
}  // namespace vqe
