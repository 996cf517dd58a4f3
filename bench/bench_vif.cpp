// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of the integer VIF kernels and the whole `vif` extractor,
// per CPU level (scalar reference and every SIMD level this CPU supports):
// 1920x1080 8-bit and 3840x2160 10-bit luma, synthetic natural-like content
// (smooth gradients plus noise; the distorted frame adds small noise).
// Names: BM_Vif<What>/<size>/<level>. One iteration = one frame pair.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/simd.h"
#include "features/vif/integer_vif.h"
#include "core/extractor.h"
#include "vqe/picture.h"

namespace {

using vqe::simd::Level;

struct Frames {
  int w = 0, h = 0, bits = 8;
  std::unique_ptr<vqe::Picture> ref, dis;
};

// Smooth content with texture and a mildly distorted copy, reproducible.
const Frames& frames(int w, int h, int bits) {
  static std::vector<std::unique_ptr<Frames>> cache;
  for (const auto& f : cache)
    if (f->w == w && f->h == h && f->bits == bits) return *f;
  auto f = std::make_unique<Frames>();
  f->w = w;
  f->h = h;
  f->bits = bits;
  const vqe::VideoFormat fmt{w, h, bits, vqe::ChromaFormat::k420};
  f->ref = std::make_unique<vqe::Picture>(fmt);
  f->dis = std::make_unique<vqe::Picture>(fmt);
  std::mt19937 rng(1234);
  const int maxv = (1 << bits) - 1;
  vqe::Plane& r = f->ref->plane(0);
  vqe::Plane& d = f->dis->plane(0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int base = ((x / 3 + y / 5) % 200 + 20) << (bits - 8);
      const int rv = std::min(maxv, base + static_cast<int>(rng() % (8u << (bits - 8))));
      const int dv = std::clamp(rv + static_cast<int>(rng() % (5u << (bits - 8))) -
                                    (2 << (bits - 8)),
                                0, maxv);
      if (bits == 8) {
        r.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(rv);
        d.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(dv);
      } else {
        r.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(rv);
        d.row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(dv);
      }
    }
  cache.push_back(std::move(f));
  return *cache.back();
}

vqe::vif::KernelInput scale0_input(const Frames& f) {
  vqe::vif::KernelInput in;
  const std::ptrdiff_t sample = f.bits == 8 ? 1 : 2;
  in.ref = f.ref->plane(0).data;
  in.dis = f.dis->plane(0).data;
  in.ref_stride = f.ref->plane(0).stride / sample;
  in.dis_stride = f.dis->plane(0).stride / sample;
  in.width = f.w;
  in.height = f.h;
  in.eight_bit = f.bits == 8;
  return in;
}

// Scale-0 statistic (17-tap filters, log terms).
void BM_VifStatisticScale0(benchmark::State& state, int w, int h, int bits, Level level) {
  const Frames& f = frames(w, h, bits);
  const auto in = scale0_input(f);
  vqe::vif::Workspace ws;
  ws.init(w);
  for (auto _ : state) {
    auto sums = vqe::vif::vif_dsp(level).statistic(in, 0, bits, 100.0, ws);
    benchmark::DoNotOptimize(sums);
  }
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                             benchmark::Counter::kIsRate);
}

// Scale-0 -> scale-1 decimation (9-tap blur, even rows and columns).
void BM_VifSubsampleScale0(benchmark::State& state, int w, int h, int bits, Level level) {
  const Frames& f = frames(w, h, bits);
  const auto in = scale0_input(f);
  vqe::vif::Workspace ws;
  ws.init(w);
  std::vector<std::uint16_t> out_ref(static_cast<std::size_t>(w / 2) * (h / 2));
  std::vector<std::uint16_t> out_dis(out_ref.size());
  for (auto _ : state) {
    vqe::vif::vif_dsp(level).subsample(in, 0, bits, ws, out_ref.data(), out_dis.data());
    benchmark::DoNotOptimize(out_ref.data());
  }
}

// Scale-1 statistic on 16-bit decimated data (9-tap filters).
void BM_VifStatisticScale1(benchmark::State& state, int w, int h, int bits, Level level) {
  const Frames& f = frames(w, h, bits);
  const auto in0 = scale0_input(f);
  vqe::vif::Workspace ws;
  ws.init(w);
  const int w1 = w / 2, h1 = h / 2;
  std::vector<std::uint16_t> ref1(static_cast<std::size_t>(w1) * h1), dis1(ref1.size());
  vqe::vif::subsample_scalar(in0, 0, bits, ws, ref1.data(), dis1.data());
  vqe::vif::KernelInput in{ref1.data(), dis1.data(), w1, w1, w1, h1, false};
  for (auto _ : state) {
    auto sums = vqe::vif::vif_dsp(level).statistic(in, 1, bits, 100.0, ws);
    benchmark::DoNotOptimize(sums);
  }
}

// The whole extractor (four scales) on one frame pair.
void BM_VifExtractor(benchmark::State& state, int w, int h, int bits, Level level) {
  const Frames& f = frames(w, h, bits);
  auto fex = vqe::make_extractor("vif", {}, level);
  fex->init(f.ref->format());
  vqe::FeatureCollector out;
  unsigned index = 0;
  for (auto _ : state) fex->extract(*f.ref, *f.dis, index++ % 16, out);
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                             benchmark::Counter::kIsRate);
}

const bool kRegistered = [] {
  struct Size {
    const char* name;
    int w, h, bits;
  };
  const Size sizes[] = {{"1080p8", 1920, 1080, 8}, {"2160p10", 3840, 2160, 10}};
  for (const Size& s : sizes)
    for (Level level : vqe::simd::available_levels()) {
      const std::string suffix = std::string("/") + s.name + "/" + vqe::simd::level_name(level);
      benchmark::RegisterBenchmark(("BM_VifStatisticScale0" + suffix).c_str(),
                                   BM_VifStatisticScale0, s.w, s.h, s.bits, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_VifSubsampleScale0" + suffix).c_str(),
                                   BM_VifSubsampleScale0, s.w, s.h, s.bits, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_VifStatisticScale1" + suffix).c_str(),
                                   BM_VifStatisticScale1, s.w, s.h, s.bits, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_VifExtractor" + suffix).c_str(), BM_VifExtractor, s.w,
                                   s.h, s.bits, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
    }
  return true;
}();

}  // namespace
