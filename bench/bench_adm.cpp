// SPDX-License-Identifier: BSD-2-Clause
// Micro benchmarks of the integer ADM ("adm") row kernels and the whole
// extractor, per CPU level (scalar reference and every SIMD level this CPU
// supports): 1920x1080 8-bit and 3840x2160 10-bit luma, natural-like
// synthetic content (smooth gradients, edges, noise; the distorted frame adds
// noise). Kernel benchmarks run one kernel over every row of its level for
// one frame pair (level 0, and level 1 for the 32-bit kernels), on bands made
// once by the scalar DWT. Names: BM_Adm<What>/<size>/<level>.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/simd.h"
#include "features/adm/adm_kernels.h"
#include "core/extractor.h"
#include "vqe/picture.h"

namespace {

using vqe::simd::Level;
namespace kn = vqe::adm::kernels;

/// Band set of one DWT level: a, v, h, d (row-major, `w` x `h`).
template <typename T>
struct Bands {
  int w = 0, h = 0;
  std::vector<T> a, v, hb, d;
  void resize(int bw, int bh) {
    w = bw;
    h = bh;
    const std::size_t n = static_cast<std::size_t>(bw) * bh;
    a.assign(n, 0);
    v.assign(n, 0);
    hb.assign(n, 0);
    d.assign(n, 0);
  }
};

struct Data {
  int w = 0, h = 0, bits = 8;
  std::unique_ptr<vqe::Picture> ref, dis;
  Bands<std::int16_t> ref0, dis0;  // level 0
  Bands<std::int32_t> ref1, dis1;  // level 1
};

int mirror(int t, int n) { return t < 0 ? -t : (t >= n ? 2 * n - t - 1 : t); }

template <typename S>
void scalar_dwt0(const vqe::Plane& p, int w, int h, int bits, Bands<std::int16_t>& out) {
  out.resize((w + 1) / 2, (h + 1) / 2);
  std::vector<std::int16_t> lo(w + 16), hi(w + 16);
  for (int i = 0; i < out.h; ++i) {
    const S* rows[4];
    for (int k = 0; k < 4; ++k) rows[k] = p.row<S>(mirror(2 * i - 1 + k, h));
    if constexpr (sizeof(S) == 1)
      kn::dwt0_vertical_u8(rows, w, bits, lo.data() + 1, hi.data() + 1);
    else
      kn::dwt0_vertical_u16(rows, w, bits, lo.data() + 1, hi.data() + 1);
    for (auto* r : {lo.data() + 1, hi.data() + 1}) {
      r[-1] = r[1];
      r[w] = r[w - 1];
      r[w + 1] = r[w - 2];
    }
    const std::size_t at = static_cast<std::size_t>(i) * out.w;
    kn::dwt0_horizontal(lo.data() + 1, hi.data() + 1, out.w, &out.a[at], &out.v[at],
                        &out.hb[at], &out.d[at]);
  }
}

void scalar_dwt1(const Bands<std::int16_t>& in, Bands<std::int32_t>& out) {
  const int w = in.w, h = in.h;
  out.resize((w + 1) / 2, (h + 1) / 2);
  std::vector<std::int32_t> lo(w + 16), hi(w + 16);
  for (int i = 0; i < out.h; ++i) {
    const std::int16_t* rows[4];
    for (int k = 0; k < 4; ++k)
      rows[k] = in.a.data() + static_cast<std::size_t>(mirror(2 * i - 1 + k, h)) * w;
    kn::dwt1_vertical(rows, w, lo.data() + 1, hi.data() + 1);
    for (auto* r : {lo.data() + 1, hi.data() + 1}) {
      r[-1] = r[1];
      r[w] = r[w - 1];
      r[w + 1] = r[w - 2];
    }
    const std::size_t at = static_cast<std::size_t>(i) * out.w;
    kn::dwt123_horizontal(lo.data() + 1, hi.data() + 1, out.w, 15, &out.a[at], &out.v[at],
                          &out.hb[at], &out.d[at]);
  }
}

const Data& data(int w, int h, int bits) {
  static std::vector<std::unique_ptr<Data>> cache;
  for (const auto& f : cache)
    if (f->w == w && f->h == h && f->bits == bits) return *f;
  auto f = std::make_unique<Data>();
  f->w = w;
  f->h = h;
  f->bits = bits;
  const vqe::VideoFormat fmt{w, h, bits, vqe::ChromaFormat::k420};
  f->ref = std::make_unique<vqe::Picture>(fmt);
  f->dis = std::make_unique<vqe::Picture>(fmt);
  std::mt19937 rng(4321);
  std::normal_distribution<double> noise(0.0, 1.0);
  const int maxv = (1 << bits) - 1;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double v = 0.5 + 0.25 * std::sin(0.011 * x + 0.007 * y) + 0.1 * std::cos(0.023 * y);
      if (((x / 37) + (y / 29)) % 3 == 0) v += 0.12;
      const int rv = std::clamp(static_cast<int>(std::lround((v + 0.01 * noise(rng)) * maxv)), 0, maxv);
      const int dv = std::clamp(rv + static_cast<int>(std::lround(0.01 * maxv * noise(rng))), 0, maxv);
      if (bits == 8) {
        f->ref->plane(0).row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(rv);
        f->dis->plane(0).row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>(dv);
      } else {
        f->ref->plane(0).row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(rv);
        f->dis->plane(0).row<std::uint16_t>(y)[x] = static_cast<std::uint16_t>(dv);
      }
    }
  if (bits == 8) {
    scalar_dwt0<std::uint8_t>(f->ref->plane(0), w, h, bits, f->ref0);
    scalar_dwt0<std::uint8_t>(f->dis->plane(0), w, h, bits, f->dis0);
  } else {
    scalar_dwt0<std::uint16_t>(f->ref->plane(0), w, h, bits, f->ref0);
    scalar_dwt0<std::uint16_t>(f->dis->plane(0), w, h, bits, f->dis0);
  }
  scalar_dwt1(f->ref0, f->ref1);
  scalar_dwt1(f->dis0, f->dis1);
  cache.push_back(std::move(f));
  return *cache.back();
}

const float kCosSq = static_cast<float>(std::cos(3.14159265358979323846 / 180.0) *
                                        std::cos(3.14159265358979323846 / 180.0));
constexpr std::uint16_t kFixed0[3] = {36453, 36453, 49417};
constexpr std::uint32_t kFixed1[3] = {171036362u, 171036362u, 94566816u};

// Level-0 DWT of one picture (vertical and horizontal passes of every row).
void BM_AdmDwt0(benchmark::State& state, int w, int h, int bits, Level level) {
  const Data& f = data(w, h, bits);
  const vqe::Plane& p = f.ref->plane(0);
  Bands<std::int16_t> out;
  out.resize((w + 1) / 2, (h + 1) / 2);
  std::vector<std::int16_t> lo(w + 16), hi(w + 16);
  const vqe::adm::AdmDsp& sk = vqe::adm::adm_dsp(level);
  for (auto _ : state) {
    for (int i = 0; i < out.h; ++i) {
      std::int16_t *l = lo.data() + 1, *hh = hi.data() + 1;
      if (bits == 8) {
        const std::uint8_t* rows[4];
        for (int k = 0; k < 4; ++k) rows[k] = p.row<std::uint8_t>(mirror(2 * i - 1 + k, h));
        sk.dwt0_vertical_u8(rows, w, bits, l, hh);
      } else {
        const std::uint16_t* rows[4];
        for (int k = 0; k < 4; ++k) rows[k] = p.row<std::uint16_t>(mirror(2 * i - 1 + k, h));
        sk.dwt0_vertical_u16(rows, w, bits, l, hh);
      }
      for (auto* r : {l, hh}) {
        r[-1] = r[1];
        r[w] = r[w - 1];
        r[w + 1] = r[w - 2];
      }
      const std::size_t at = static_cast<std::size_t>(i) * out.w;
      sk.dwt0_horizontal(l, hh, out.w, &out.a[at], &out.v[at], &out.hb[at], &out.d[at]);
    }
    benchmark::DoNotOptimize(out.a.data());
  }
}

// Level-1 DWT (int16 LL in, int32 bands out) of one picture.
void BM_AdmDwt1(benchmark::State& state, int w, int h, int bits, Level level) {
  const Data& f = data(w, h, bits);
  const Bands<std::int16_t>& in = f.ref0;
  Bands<std::int32_t> out;
  out.resize((in.w + 1) / 2, (in.h + 1) / 2);
  std::vector<std::int32_t> lo(in.w + 16), hi(in.w + 16);
  const vqe::adm::AdmDsp& sk = vqe::adm::adm_dsp(level);
  for (auto _ : state) {
    for (int i = 0; i < out.h; ++i) {
      const std::int16_t* rows[4];
      for (int k = 0; k < 4; ++k)
        rows[k] = in.a.data() + static_cast<std::size_t>(mirror(2 * i - 1 + k, in.h)) * in.w;
      std::int32_t *l = lo.data() + 1, *hh = hi.data() + 1;
      sk.dwt1_vertical(rows, in.w, l, hh);
      for (auto* r : {l, hh}) {
        r[-1] = r[1];
        r[in.w] = r[in.w - 1];
        r[in.w + 1] = r[in.w - 2];
      }
      const std::size_t at = static_cast<std::size_t>(i) * out.w;
      sk.dwt123_horizontal(l, hh, out.w, 15, &out.a[at], &out.v[at], &out.hb[at], &out.d[at]);
    }
    benchmark::DoNotOptimize(out.a.data());
  }
}

template <typename T>
void run_decouple(benchmark::State& state, const Bands<T>& o, const Bands<T>& t, const vqe::adm::AdmDsp& sk) {
  std::vector<T> out(6 * o.a.size());
  const std::size_t n = o.a.size();
  for (auto _ : state) {
    for (int i = 0; i < o.h; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * o.w;
      const vqe::adm::DecoupleRow<T> r{&o.hb[at], &o.v[at], &o.d[at], &t.hb[at], &t.v[at],
                                       &t.d[at], &out[at], &out[n + at], &out[2 * n + at],
                                       &out[3 * n + at], &out[4 * n + at], &out[5 * n + at]};
      if constexpr (sizeof(T) == 2)
        sk.decouple0_row(r, 0, o.w, kCosSq, 100.0);
      else
        sk.decouple123_row(r, 0, o.w, kCosSq, 100.0);
    }
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_AdmDecouple0(benchmark::State& state, int w, int h, int bits, Level level) {
  const Data& f = data(w, h, bits);
  run_decouple(state, f.ref0, f.dis0, vqe::adm::adm_dsp(level));
}

void BM_AdmDecouple1(benchmark::State& state, int w, int h, int bits, Level level) {
  const Data& f = data(w, h, bits);
  run_decouple(state, f.ref1, f.dis1, vqe::adm::adm_dsp(level));
}

// Masker terms (csf) then the contrast-masking sums of one band set.
template <typename T, typename F>
void run_csf_masked(benchmark::State& state, const Bands<T>& b, const F* fixed, const vqe::adm::AdmDsp& sk,
                    bool csf_only) {
  const std::size_t n = b.a.size();
  std::vector<std::int32_t> mask(n), centre(n);
  const std::uint32_t cs = static_cast<std::uint32_t>(std::ceil(std::log2(b.w) - 4));
  const std::uint32_t cub[3] = {cs, cs, cs + 1};
  for (auto _ : state) {
    for (int i = 0; i < b.h; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * b.w;
      if constexpr (sizeof(T) == 2)
        sk.csf0_row(&b.hb[at], &b.v[at], &b.d[at], 0, b.w, fixed, &mask[at], &centre[at]);
      else
        sk.csf123_row(&b.hb[at], &b.v[at], &b.d[at], 0, b.w, fixed, &mask[at], &centre[at]);
    }
    if (csf_only) {
      benchmark::DoNotOptimize(mask.data());
      continue;
    }
    std::int64_t total = 0;
    for (int i = 0; i < b.h; ++i) {
      const std::size_t at = static_cast<std::size_t>(i) * b.w;
      const std::size_t up = static_cast<std::size_t>(i == 0 ? 1 : i - 1) * b.w;
      const std::size_t dn = static_cast<std::size_t>(i == b.h - 1 ? i : i + 1) * b.w;
      const vqe::adm::MaskRow<T> r{{&mask[up], &mask[at], &mask[dn]}, &centre[at],
                                   {&b.hb[at], &b.v[at], &b.d[at]}, b.w};
      std::int64_t inner[3] = {0, 0, 0};
      if constexpr (sizeof(T) == 2)
        sk.masked0_row(r, 0, b.w, fixed, cub, inner);
      else
        sk.masked123_row(r, 0, b.w, fixed, cs, inner);
      total += inner[0] + inner[1] + inner[2];
    }
    benchmark::DoNotOptimize(total);
  }
}

void BM_AdmCsf0(benchmark::State& state, int w, int h, int bits, Level level) {
  run_csf_masked(state, data(w, h, bits).dis0, kFixed0, vqe::adm::adm_dsp(level), true);
}
void BM_AdmCsfMasked0(benchmark::State& state, int w, int h, int bits, Level level) {
  run_csf_masked(state, data(w, h, bits).dis0, kFixed0, vqe::adm::adm_dsp(level), false);
}
void BM_AdmCsfMasked1(benchmark::State& state, int w, int h, int bits, Level level) {
  run_csf_masked(state, data(w, h, bits).dis1, kFixed1, vqe::adm::adm_dsp(level), false);
}

// Denominator row sums of the three level-0 reference bands.
void BM_AdmDen0(benchmark::State& state, int w, int h, int bits, Level level) {
  const Bands<std::int16_t>& b = data(w, h, bits).ref0;
  const vqe::adm::AdmDsp& sk = vqe::adm::adm_dsp(level);
  for (auto _ : state) {
    std::uint64_t total = 0;
    for (const auto* band : {&b.hb, &b.v, &b.d})
      for (int i = 0; i < b.h; ++i) {
        const std::int16_t* row = band->data() + static_cast<std::size_t>(i) * b.w;
        total += sk.den0_row(row, 0, b.w);
      }
    benchmark::DoNotOptimize(total);
  }
}

// The whole extractor (four levels, adm2 and aim) on one frame pair.
void BM_AdmExtractor(benchmark::State& state, int w, int h, int bits, Level level) {
  const Data& f = data(w, h, bits);
  auto fex = vqe::make_extractor("adm", {}, level);
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
  using Fn = void (*)(benchmark::State&, int, int, int, Level);
  struct Bench {
    const char* name;
    Fn fn;
  };
  const Size sizes[] = {{"1080p8", 1920, 1080, 8}, {"2160p10", 3840, 2160, 10}};
  const Bench benches[] = {{"BM_AdmDwt0", BM_AdmDwt0},           {"BM_AdmDwt1", BM_AdmDwt1},
                           {"BM_AdmDecouple0", BM_AdmDecouple0}, {"BM_AdmDecouple1", BM_AdmDecouple1},
                           {"BM_AdmCsf0", BM_AdmCsf0},           {"BM_AdmCsfMasked0", BM_AdmCsfMasked0},
                           {"BM_AdmCsfMasked1", BM_AdmCsfMasked1}, {"BM_AdmDen0", BM_AdmDen0},
                           {"BM_AdmExtractor", BM_AdmExtractor}};
  for (const Size& s : sizes)
    for (Level level : vqe::simd::available_levels())
      for (const Bench& b : benches) {
        const std::string name =
            std::string(b.name) + "/" + s.name + "/" + vqe::simd::level_name(level);
        benchmark::RegisterBenchmark(name.c_str(), b.fn, s.w, s.h, s.bits, level)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
      }
  return true;
}();

}  // namespace
