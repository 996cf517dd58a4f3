// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of the integer motion kernels and extractor, scalar
// against the best SIMD level (arguments: see bench_small_util.h).

#include <vector>

#include "bench_small_util.h"
#include "features/motion/motion_kernels.h"

namespace vqe {
namespace {

using benchsmall::bench_frames;

template <typename T>
const T* luma(const Picture& p) {
  return p.plane(0).row<T>(0);
}
template <typename T>
std::ptrdiff_t luma_stride(const Picture& p) {
  return p.plane(0).stride / static_cast<std::ptrdiff_t>(sizeof(T));
}

void BM_motion_frame_difference_sad(benchmark::State& state) {
  const auto& fr = bench_frames(state.range(0));
  const motion::MotionDsp& dsp = motion::motion_dsp(benchsmall::bench_level(state.range(1)));
  const int w = fr.ref.width(), h = fr.ref.height(), bpc = fr.ref.bit_depth();
  std::vector<std::int32_t> row(static_cast<std::size_t>(w) + 4);
  for (auto _ : state) {
    if (bpc == 8)
      benchmark::DoNotOptimize(dsp.sad8(
          luma<std::uint8_t>(fr.ref), luma_stride<std::uint8_t>(fr.ref),
          luma<std::uint8_t>(fr.ref_next), luma_stride<std::uint8_t>(fr.ref_next), w, h, bpc,
          row.data()));
    else
      benchmark::DoNotOptimize(dsp.sad16(
          luma<std::uint16_t>(fr.ref), luma_stride<std::uint16_t>(fr.ref),
          luma<std::uint16_t>(fr.ref_next), luma_stride<std::uint16_t>(fr.ref_next), w, h, bpc,
          row.data()));
  }
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_motion_frame_difference_sad)->VQE_SMALL_BENCH_ARGS;

void BM_motion_legacy_blur(benchmark::State& state) {
  const auto& fr = bench_frames(state.range(0));
  const motion::MotionDsp& dsp = motion::motion_dsp(benchsmall::bench_level(state.range(1)));
  const int w = fr.ref.width(), h = fr.ref.height(), bpc = fr.ref.bit_depth();
  std::vector<std::uint16_t> row(static_cast<std::size_t>(w) + 4);
  std::vector<std::uint16_t> out(static_cast<std::size_t>(w) * h);
  for (auto _ : state) {
    if (bpc == 8)
      dsp.legacy_blur8(luma<std::uint8_t>(fr.ref),
                                        luma_stride<std::uint8_t>(fr.ref), out.data(), w, w, h,
                                        bpc, row.data());
    else
      dsp.legacy_blur16(luma<std::uint16_t>(fr.ref),
                                         luma_stride<std::uint16_t>(fr.ref), out.data(), w, w, h,
                                         bpc, row.data());
    benchmark::ClobberMemory();
  }
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_motion_legacy_blur)->VQE_SMALL_BENCH_ARGS;

void BM_motion_legacy_sad(benchmark::State& state) {
  const auto& fr = bench_frames(state.range(0));
  const int w = fr.ref.width(), h = fr.ref.height();
  std::vector<std::uint16_t> a(static_cast<std::size_t>(w) * h), b(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<std::uint16_t>(i * 2654435761u >> 16);
    b[i] = static_cast<std::uint16_t>(i * 40503u);
  }
  const motion::MotionDsp& dsp = motion::motion_dsp(benchsmall::bench_level(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(dsp.legacy_sad(a.data(), b.data(), w, w, h));
  state.SetLabel(benchsmall::bench_label(state.range(0), state.range(1)));
}
BENCHMARK(BM_motion_legacy_sad)->VQE_SMALL_BENCH_ARGS;

void BM_motion_extractor(benchmark::State& state) { benchsmall::bench_extractor(state, "motion"); }
BENCHMARK(BM_motion_extractor)->VQE_SMALL_BENCH_ARGS;

void BM_motion_extractor_legacy(benchmark::State& state) {
  benchsmall::bench_extractor(state, "motion", {{"motion_legacy", "true"}});
}
BENCHMARK(BM_motion_extractor_legacy)->VQE_SMALL_BENCH_ARGS;

}  // namespace
}  // namespace vqe
