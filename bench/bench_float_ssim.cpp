// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of the SSIM kernels (Gaussian blur, whole SSIM of one
// scale, as MS-SSIM's scale 0) and of float_ssim, scalar
// against the best SIMD level (arguments: see bench_small_util.h).

#include <vector>

#include "bench_small_util.h"
#include "core/float_plane.h"
#include "features/float_ssim/iqa_ssim.h"

namespace vqe {
namespace {

using benchsmall::float_frames;
using benchsmall::FloatFrames;

void BM_ssim_gaussian_blur(benchmark::State& state) {
  const FloatFrames& f = float_frames(state.range(0));
  const iqa::IqaDsp& dsp = iqa::iqa_dsp(benchsmall::bench_level(state.range(1)));
  std::vector<float> rows(static_cast<std::size_t>(f.w - 10) * f.h);
  std::vector<float> out(static_cast<std::size_t>(f.w - 10) * (f.h - 10));
  for (auto _ : state) {
    dsp.blur_valid(f.ref.data(), f.w, f.h, rows.data(), out.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_ssim_gaussian_blur)->VQE_SMALL_BENCH_ARGS;

// One full-resolution SSIM (5 blurs + the map), MS-SSIM's scale 0.
void BM_ssim_gaussian_full(benchmark::State& state) {
  const FloatFrames& f = float_frames(state.range(0));
  const iqa::IqaDsp& dsp = iqa::iqa_dsp(benchsmall::bench_level(state.range(1)));
  iqa::SsimWorkspace ws;
  ws.reserve(f.w, f.h);
  for (auto _ : state)
    benchmark::DoNotOptimize(iqa::ssim_gaussian(dsp, f.ref.data(), f.dist.data(), f.w, f.h, ws));
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_ssim_gaussian_full)->VQE_SMALL_BENCH_ARGS;

void BM_float_ssim_extractor(benchmark::State& state) {
  benchsmall::bench_extractor(state, "float_ssim");
}
BENCHMARK(BM_float_ssim_extractor)->VQE_SMALL_BENCH_ARGS;

}  // namespace
}  // namespace vqe
