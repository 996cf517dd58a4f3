// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of float_ansnr's 5x5 filter and extractor, scalar
// against the best SIMD level (arguments: see bench_small_util.h).

#include <vector>

#include "bench_small_util.h"
#include "core/float_plane.h"
#include "features/float_ansnr/float_ansnr_kernels.h"

namespace vqe {
namespace {

void BM_float_ansnr_filter5(benchmark::State& state) {
  const auto& fr = benchsmall::bench_frames(state.range(0));
  const int w = fr.ref.width(), h = fr.ref.height();
  std::vector<float> src(static_cast<std::size_t>(w) * h), dst(src.size());
  plane_to_float(fr.ref.plane(0), fr.ref.bit_depth(), -128.0f, src.data());
  float kernel[25];
  for (int i = 0; i < 25; ++i) kernel[i] = 1.0f / 25.0f;
  std::vector<int> cols(static_cast<std::size_t>(w) * 5);
  for (int x = 0; x < w; ++x)
    for (int k = 0; k < 5; ++k) cols[x * 5 + k] = ansnr::mirror(x - 2 + k, w);
  std::vector<float> inner(w), accum(w);
  const ansnr::AnsnrDsp& dsp = ansnr::ansnr_dsp(benchsmall::bench_level(state.range(1)));
  for (auto _ : state) {
    dsp.filter2d(kernel, 5, src.data(), dst.data(), w, h, cols.data(), inner.data(),
                 accum.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_float_ansnr_filter5)->VQE_SMALL_BENCH_ARGS;

void BM_float_ansnr_extractor(benchmark::State& state) {
  benchsmall::bench_extractor(state, "float_ansnr");
}
BENCHMARK(BM_float_ansnr_extractor)->VQE_SMALL_BENCH_ARGS;

}  // namespace
}  // namespace vqe
