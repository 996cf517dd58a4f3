// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of the integer VIF kernels and the whole `vif` extractor,
// per CPU level (scalar reference and every SIMD level this CPU supports):
// 1920x1080 8-bit and 3840x2160 10-bit luma, synthetic natural-like content
// (smooth gradients plus noise; the distorted frame adds small noise), and
// the same sizes made from a real pair: the first frames of ../shared's
// trees clip and its x264 encode, the 2160p one upscaled into 10 bits as
// for scripts/bench ($VQE_SHARED overrides the path; left out when the clip
// is missing). The per-pixel log terms are skipped where the reference's
// variance is below the noise floor, so their cost depends on the content:
// the real pair is closer to what a user's video costs.
// Names: BM_Vif<What>/<frames>/<level>, frames 1080p8 and 2160p10
// (synthetic), trees1080p8 and trees2160p10 (real). One iteration = one
// frame pair.

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_frames/bench_frames.h"
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

// The trees pair's first frames, 1080p 8-bit or upscaled to 2160p 10-bit;
// nullptr when ../shared lacks the clip. Read once.
const Frames* trees_frames(bool uhd) {
  static const auto load = [](bool up) -> std::unique_ptr<Frames> {
    const char* env = std::getenv("VQE_SHARED");
    const std::filesystem::path clips =
        std::filesystem::path(env ? env : VQE_SHARED_DEFAULT) / "testdata" / "clips";
    const auto ref_path = clips / "ref" / "trees_1920x1080_420p8_2f.y4m";
    const auto dis_path = clips / "dist" / "trees_1920x1080_420p8_2f__x264_crf35.y4m";
    if (!std::filesystem::exists(ref_path) || !std::filesystem::exists(dis_path)) return nullptr;
    vqe::Picture ref = vqe::bench::read_first_frame(ref_path.string());
    vqe::Picture dis = vqe::bench::read_first_frame(dis_path.string());
    if (up) {
      ref = vqe::bench::upscale_to_10bit(ref);
      dis = vqe::bench::upscale_to_10bit(dis);
    }
    auto f = std::make_unique<Frames>();
    f->w = ref.format().width;
    f->h = ref.format().height;
    f->bits = ref.format().bit_depth;
    f->ref = std::make_unique<vqe::Picture>(std::move(ref));
    f->dis = std::make_unique<vqe::Picture>(std::move(dis));
    return f;
  };
  static const std::unique_ptr<Frames> hd = load(false);
  static const std::unique_ptr<Frames> uhd4k = load(true);
  return uhd ? uhd4k.get() : hd.get();
}

// A benchmark's frame pair: synthetic of a size, or the real one.
struct Source {
  const char* name;
  int w, h, bits;
  bool real;
  const Frames& get() const { return real ? *trees_frames(h > 1080) : frames(w, h, bits); }
};

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
void BM_VifStatisticScale0(benchmark::State& state, Source src, Level level) {
  const Frames& f = src.get();
  const int w = f.w, bits = f.bits;
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
void BM_VifSubsampleScale0(benchmark::State& state, Source src, Level level) {
  const Frames& f = src.get();
  const int w = f.w, h = f.h, bits = f.bits;
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
void BM_VifStatisticScale1(benchmark::State& state, Source src, Level level) {
  const Frames& f = src.get();
  const int w = f.w, h = f.h, bits = f.bits;
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
void BM_VifExtractor(benchmark::State& state, Source src, Level level) {
  const Frames& f = src.get();
  auto fex = vqe::make_extractor("vif", {}, level);
  fex->init(f.ref->format());
  vqe::FeatureCollector out;
  unsigned index = 0;
  for (auto _ : state) fex->extract(*f.ref, *f.dis, index++ % 16, out);
  state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                             benchmark::Counter::kIsRate);
}

// The kernel's fused pass (what a single job runs) and its two parts (a
// ladder: the reference part once per frame, the pair part per encode).
enum class KernelPass { fused, reference, pair };
void BM_VifKernel(benchmark::State& state, Source src, Level level, KernelPass pass) {
  const Frames& f = src.get();
  vqe::vif::IntegerVifKernel kernel(100.0, false, level);
  kernel.init(f.w, f.h, f.bits);
  const auto frame = kernel.compute_reference(f.ref->plane(0));
  vqe::vif::ReferenceFrame scratch = *frame;
  for (auto _ : state) {
    if (pass == KernelPass::fused) {
      auto v = kernel.compute(f.ref->plane(0), f.dis->plane(0));
      benchmark::DoNotOptimize(v);
    } else if (pass == KernelPass::reference) {
      // Into a recycled frame, as the extractor's pool does.
      kernel.compute_reference(f.ref->plane(0), scratch);
      benchmark::DoNotOptimize(scratch.scale[0].mu1.data());
    } else {
      auto v = kernel.compute_pair(*frame, f.ref->plane(0), f.dis->plane(0));
      benchmark::DoNotOptimize(v);
    }
  }
}

const bool kRegistered = [] {
  std::vector<Source> sources = {{"1080p8", 1920, 1080, 8, false},
                                 {"2160p10", 3840, 2160, 10, false}};
  if (trees_frames(false)) {
    sources.push_back({"trees1080p8", 1920, 1080, 8, true});
    sources.push_back({"trees2160p10", 3840, 2160, 10, true});
  }
  for (const Source& s : sources)
    for (Level level : vqe::simd::available_levels()) {
      const std::string suffix = std::string("/") + s.name + "/" + vqe::simd::level_name(level);
      benchmark::RegisterBenchmark(("BM_VifStatisticScale0" + suffix).c_str(),
                                   BM_VifStatisticScale0, s, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_VifSubsampleScale0" + suffix).c_str(),
                                   BM_VifSubsampleScale0, s, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_VifStatisticScale1" + suffix).c_str(),
                                   BM_VifStatisticScale1, s, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      benchmark::RegisterBenchmark(("BM_VifExtractor" + suffix).c_str(), BM_VifExtractor, s, level)
          ->Unit(benchmark::kMillisecond)
          ->UseRealTime();
      for (auto [name, pass] : {std::pair{"Fused", KernelPass::fused},
                                std::pair{"Reference", KernelPass::reference},
                                std::pair{"Pair", KernelPass::pair}})
        benchmark::RegisterBenchmark((std::string("BM_VifKernel") + name + suffix).c_str(),
                                     BM_VifKernel, s, level, pass)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
  return true;
}();

}  // namespace
