// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of MS-SSIM's low-pass decimation and of float_ms_ssim,
// scalar against the best SIMD level (arguments: see bench_small_util.h).

#include <vector>

#include "bench_small_util.h"
#include "features/float_ssim/iqa_ssim.h"

namespace vqe {
namespace {

using benchsmall::float_frames;
using benchsmall::FloatFrames;

// MS-SSIM's first decimation (9x9 low-pass, factor 2), with a stand-in kernel.
void BM_ssim_decimate_lowpass(benchmark::State& state) {
  const FloatFrames& f = float_frames(state.range(0));
  const iqa::IqaDsp& dsp = iqa::iqa_dsp(benchsmall::bench_level(state.range(1)));
  std::vector<float> kernel(81, 1.0f / 81.0f);
  std::vector<float> out(static_cast<std::size_t>(iqa::decimated_size(f.w, 2)) *
                         iqa::decimated_size(f.h, 2));
  std::vector<float> scratch(iqa::decimate_scratch_size(f.w, 2, 9));
  for (auto _ : state) {
    iqa::decimate(dsp, f.ref.data(), f.w, f.h, 2, kernel.data(), 9, out.data(), scratch.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_ssim_decimate_lowpass)->VQE_SMALL_BENCH_ARGS;

void BM_float_ms_ssim_extractor(benchmark::State& state) {
  benchsmall::bench_extractor(state, "float_ms_ssim");
}
BENCHMARK(BM_float_ms_ssim_extractor)->VQE_SMALL_BENCH_ARGS;

}  // namespace
}  // namespace vqe
