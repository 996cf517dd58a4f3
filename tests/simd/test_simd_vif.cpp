// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF (features/vif): every SIMD level against the scalar reference,
// checkasm style. Kernels (one scale's statistic sums, one decimation step)
// and the whole extractor must be bit-identical on random, smooth, flat and
// extreme inputs, at every bit depth, for widths that are and are not a
// multiple of the vector length, and for every option.

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/vif/integer_vif.h"
#include "test_util.h"
#include "core/extractor.h"

namespace vqe::vif {
namespace {

using simd::Level;

std::vector<Level> simd_levels() {
  std::vector<Level> out;
  for (Level l : simd::available_levels())
    if (l != Level::scalar) out.push_back(l);
  return out;
}

enum class Content { random, smooth, flat, extreme };

// A w x h plane pair (stride w + 3 samples) of samples below 2^bits.
struct PlanePair {
  int w = 0, h = 0, stride = 0, bits = 8;
  std::vector<std::uint16_t> ref16, dis16;
  std::vector<std::uint8_t> ref8, dis8;

  KernelInput input(bool eight_bit) const {
    KernelInput in;
    in.width = w;
    in.height = h;
    in.ref_stride = in.dis_stride = stride;
    in.eight_bit = eight_bit;
    if (eight_bit) {
      in.ref = ref8.data();
      in.dis = dis8.data();
    } else {
      in.ref = ref16.data();
      in.dis = dis16.data();
    }
    return in;
  }
};

PlanePair make_planes(int w, int h, int bits, Content content, std::uint32_t seed) {
  PlanePair p;
  p.w = w;
  p.h = h;
  p.stride = w + 3;
  p.bits = bits;
  const int maxv = static_cast<int>((1u << bits) - 1);
  std::mt19937 rng(seed);
  const std::size_t n = static_cast<std::size_t>(p.stride) * h;
  p.ref16.assign(n, 0);
  p.dis16.assign(n, 0);
  const int flat_value = static_cast<int>(rng() % (maxv + 1u));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < p.stride; ++x) {
      int r = 0, d = 0;
      switch (content) {
        case Content::random:
          r = static_cast<int>(rng() % (maxv + 1u));
          d = static_cast<int>(rng() % (maxv + 1u));
          break;
        case Content::smooth: {
          const int base = ((x * 5 + y * 11) % 256) << (bits - 8);
          r = std::min(maxv, base + static_cast<int>(rng() % (1u << (bits - 6))));
          d = std::clamp(r + static_cast<int>(rng() % 9) - 4, 0, maxv);
          break;
        }
        case Content::flat:
          r = d = flat_value;
          break;
        case Content::extreme:
          r = (rng() & 1) ? maxv : 0;
          d = (rng() & 1) ? maxv : 0;
          break;
      }
      p.ref16[static_cast<std::size_t>(y) * p.stride + x] = static_cast<std::uint16_t>(r);
      p.dis16[static_cast<std::size_t>(y) * p.stride + x] = static_cast<std::uint16_t>(d);
    }
  if (bits == 8) {
    p.ref8.assign(p.ref16.begin(), p.ref16.end());
    p.dis8.assign(p.dis16.begin(), p.dis16.end());
  }
  return p;
}

std::string describe(Level l, int w, int h, int bits, int scale, Content c, double egl) {
  return std::string(simd::level_name(l)) + " " + std::to_string(w) + "x" + std::to_string(h) +
         " bits " + std::to_string(bits) + " scale " + std::to_string(scale) + " content " +
         std::to_string(static_cast<int>(c)) + " egl " + std::to_string(egl);
}

// Runs both kernels of one scale at every SIMD level against scalar.
void check_scale(const PlanePair& p, int scale, int bit_depth, Content c, double gain_limit) {
  const bool eight_bit = scale == 0 && bit_depth == 8;
  const KernelInput in = p.input(eight_bit);
  Workspace ws;
  ws.init(p.w);
  const ScaleSums expect = statistic_scalar(in, scale, bit_depth, gain_limit, ws);
  const std::size_t out_n = static_cast<std::size_t>(p.w / 2) * (p.h / 2);
  std::vector<std::uint16_t> exp_ref(out_n), exp_dis(out_n);
  if (scale < kNumScales - 1)
    subsample_scalar(in, scale, bit_depth, ws, exp_ref.data(), exp_dis.data());
  for (Level l : simd_levels()) {
    const VifDsp& dsp = vif_dsp(l);
    Workspace ws2;
    ws2.init(p.w);
    const ScaleSums got = dsp.statistic(in, scale, bit_depth, gain_limit, ws2);
    const std::string what = describe(l, p.w, p.h, bit_depth, scale, c, gain_limit);
    EXPECT_EQ(got.num_log, expect.num_log) << what;
    EXPECT_EQ(got.den_log, expect.den_log) << what;
    EXPECT_EQ(got.num_non_log, expect.num_non_log) << what;
    EXPECT_EQ(got.den_non_log, expect.den_non_log) << what;
    if (scale < kNumScales - 1) {
      std::vector<std::uint16_t> got_ref(out_n, 0xABCD), got_dis(out_n, 0xABCD);
      dsp.subsample(in, scale, bit_depth, ws2, got_ref.data(), got_dis.data());
      EXPECT_EQ(got_ref, exp_ref) << what;
      EXPECT_EQ(got_dis, exp_dis) << what;
    }
  }
}

// The split statistic (reference part, pair part) and the one-sided
// subsampling at every level, scalar included, against the fused scalar
// reference: the reference rows equal the scalar reference part's, the two
// parts' sums add up to the fused sums, whole or cut into two row ranges
// (as tiles cut them), and each side's subsampling equals the two-sided one.
void check_split(const PlanePair& p, int scale, int bit_depth, Content c, double gain_limit) {
  const bool eight_bit = scale == 0 && bit_depth == 8;
  const KernelInput in = p.input(eight_bit);
  Workspace ws;
  ws.init(p.w);
  const ScaleSums expect = statistic_scalar(in, scale, bit_depth, gain_limit, ws);
  const std::size_t n = static_cast<std::size_t>(p.w) * p.h;
  std::vector<std::uint32_t> exp_mu1(n);
  std::vector<std::int32_t> exp_sigma1(n);
  const RefRows exp_rows{exp_mu1.data(), exp_sigma1.data(), p.w};
  KernelInput ref_only = in;
  ref_only.dis = nullptr;  // the reference part must not read it
  const ScaleSums exp_ref = ref_statistic_scalar(ref_only, scale, bit_depth, ws, exp_rows);
  EXPECT_EQ(exp_ref.num_log, 0);
  EXPECT_EQ(exp_ref.num_non_log, 0);
  const ScaleSums exp_pair = pair_statistic_scalar(in, scale, bit_depth, gain_limit, ws, exp_rows);
  EXPECT_EQ(exp_pair.den_log, 0);
  EXPECT_EQ(exp_pair.den_non_log, 0);
  const std::string base = describe(Level::scalar, p.w, p.h, bit_depth, scale, c, gain_limit);
  EXPECT_EQ(exp_ref.den_log, expect.den_log) << base;
  EXPECT_EQ(exp_ref.den_non_log, expect.den_non_log) << base;
  EXPECT_EQ(exp_pair.num_log, expect.num_log) << base;
  EXPECT_EQ(exp_pair.num_non_log, expect.num_non_log) << base;

  const std::size_t out_n = static_cast<std::size_t>(p.w / 2) * (p.h / 2);
  std::vector<std::uint16_t> exp_sub_ref(out_n), exp_sub_dis(out_n);
  if (scale < kNumScales - 1)
    subsample_scalar(in, scale, bit_depth, ws, exp_sub_ref.data(), exp_sub_dis.data());

  for (Level l : simd::available_levels()) {
    const VifDsp& dsp = vif_dsp(l);
    const std::string what = describe(l, p.w, p.h, bit_depth, scale, c, gain_limit);
    Workspace ws2;
    ws2.init(p.w);
    // Whole, then in two row ranges.
    for (int cut : {p.h, p.h / 2}) {
      std::vector<std::uint32_t> mu1(n, 0xDEADBEEFu);
      std::vector<std::int32_t> sigma1(n, -12345);
      const RefRows rows{mu1.data(), sigma1.data(), p.w};
      ScaleSums ref_sum, pair_sum;
      for (auto [a, b] : {std::pair{0, cut}, std::pair{cut, p.h}}) {
        if (a == b) continue;
        KernelInput part = ref_only;
        part.row_begin = a;
        part.row_end = b;
        const ScaleSums r = dsp.ref_statistic(part, scale, bit_depth, ws2, rows);
        ref_sum.den_log += r.den_log;
        ref_sum.den_non_log += r.den_non_log;
        ref_sum.num_log += r.num_log;
        ref_sum.num_non_log += r.num_non_log;
      }
      EXPECT_EQ(mu1, exp_mu1) << what << " cut " << cut;
      EXPECT_EQ(sigma1, exp_sigma1) << what << " cut " << cut;
      EXPECT_EQ(ref_sum, exp_ref) << what << " cut " << cut;
      // The pair part on the scalar reference part's rows (any level's
      // rows are the same).
      for (auto [a, b] : {std::pair{0, cut}, std::pair{cut, p.h}}) {
        if (a == b) continue;
        KernelInput part = in;
        part.row_begin = a;
        part.row_end = b;
        const ScaleSums r = dsp.pair_statistic(part, scale, bit_depth, gain_limit, ws2, exp_rows);
        pair_sum.den_log += r.den_log;
        pair_sum.den_non_log += r.den_non_log;
        pair_sum.num_log += r.num_log;
        pair_sum.num_non_log += r.num_non_log;
      }
      EXPECT_EQ(pair_sum, exp_pair) << what << " cut " << cut;
    }
    if (scale < kNumScales - 1) {
      std::vector<std::uint16_t> got_ref(out_n, 0xABCD), got_dis(out_n, 0xABCD);
      dsp.subsample(ref_only, scale, bit_depth, ws2, got_ref.data(), nullptr);
      KernelInput dis_only = in;
      dis_only.ref = nullptr;
      dsp.subsample(dis_only, scale, bit_depth, ws2, nullptr, got_dis.data());
      EXPECT_EQ(got_ref, exp_sub_ref) << what << " reference side";
      EXPECT_EQ(got_dis, exp_sub_dis) << what << " distorted side";
    }
  }
}

TEST(SimdVif, LevelsUnderTest) {
  std::string names;
  for (Level l : simd::available_levels()) names += std::string(simd::level_name(l)) + " ";
  std::printf("vif SIMD equality tests run at: %s\n", names.c_str());
  SUCCEED();
}

// Widths 2..70 (below, at and above every vector length), heights 2, 3, 9.
TEST(SimdVif, KernelsAllWidths) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  std::uint32_t seed = 1;
  for (int bits : {8, 10, 12, 16})
    for (int w = 2; w <= 70; ++w)
      for (int h : {2, 3, 9}) {
        // Scale 0 reads the video's samples; later scales 16-bit values.
        const PlanePair p0 = make_planes(w, h, bits, Content::random, seed++);
        check_scale(p0, 0, bits, Content::random, 100.0);
        const PlanePair s0 = make_planes(w, h, bits, Content::smooth, seed++);
        check_scale(s0, 0, bits, Content::smooth, 100.0);
        const int scale = 1 + w % 3;
        const PlanePair p1 = make_planes(w, h, 16, Content::random, seed++);
        check_scale(p1, scale, bits, Content::random, 100.0);
        check_split(p0, 0, bits, Content::random, 100.0);
        check_split(s0, 0, bits, Content::smooth, 100.0);
        check_split(p1, scale, bits, Content::random, 100.0);
      }
}

TEST(SimdVif, KernelsOddSizesAndContents) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  std::uint32_t seed = 100;
  const std::pair<int, int> sizes[] = {{127, 19}, {129, 18}, {333, 21}, {17, 40}, {64, 33},
                                       {1, 1},    {2, 2},    {96, 2}};
  for (auto [w, h] : sizes) {
    if (w < 2 || h < 2) continue;  // reflect-101 needs 2 samples per direction
    for (int bits : {8, 10, 12, 16})
      for (Content c : {Content::random, Content::smooth, Content::flat, Content::extreme})
        for (int scale = 0; scale < kNumScales; ++scale) {
          const PlanePair p = make_planes(w, h, scale == 0 ? bits : 16, c, seed++);
          check_scale(p, scale, bits, c, 100.0);
          check_split(p, scale, bits, c, 100.0);
          if (c == Content::smooth || c == Content::extreme) {
            check_scale(p, scale, bits, c, 1.0);
            check_scale(p, scale, bits, c, 1.5);
            check_split(p, scale, bits, c, 1.5);
          }
        }
  }
}

// Full-HD-wide rows (the row buffers, the split log pass and every block
// loop at production widths) at every depth and scale.
TEST(SimdVif, KernelsWideRows) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  std::uint32_t seed = 500;
  for (int bits : {8, 10, 12, 16})
    for (Content c : {Content::random, Content::smooth, Content::extreme})
      for (int scale = 0; scale < kNumScales; ++scale) {
        const int w = 1920 >> scale;
        const PlanePair p = make_planes(w + scale, 20, scale == 0 ? bits : 16, c, seed++);
        check_scale(p, scale, bits, c, 100.0);
        check_split(p, scale, bits, c, 100.0);
      }
}

// Whole extractor: every option, every depth, sizes around the vector
// lengths, random, smooth and flat frames, several frames per run.
TEST(SimdVif, ExtractorMatchesScalar) {
  if (simd_levels().empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  const std::vector<OptionValues> option_sets = {
      {},
      {{"vif_enhn_gain_limit", "1"}},
      {{"vif_enhn_gain_limit", "1.5"}},
      {{"vif_skip_scale0", "true"}},
      {{"debug", "true"}},
  };
  const std::pair<int, int> sizes[] = {{16, 16}, {17, 19}, {33, 65}, {127, 40},
                                       {129, 37}, {333, 50}, {71, 16}};
  std::uint32_t seed = 7;
  for (auto [w, h] : sizes)
    for (int bits : {8, 10, 12, 16}) {
      const VideoFormat f{w, h, bits, ChromaFormat::k420};
      std::vector<std::pair<Picture, Picture>> frames;
      for (test::Fill fill : {test::Fill::random, test::Fill::smooth, test::Fill::flat,
                              test::Fill::max_value}) {
        Picture ref = test::synthetic_picture(f, seed++, fill);
        Picture dis = test::distort_picture(ref, seed++, 3 << (bits - 8));
        frames.emplace_back(std::move(ref), std::move(dis));
      }
      for (const OptionValues& opts : option_sets) {
        const FeatureCollector expect =
            test::run_on_pictures("vif", opts, frames, nullptr, Level::scalar);
        for (Level l : simd_levels()) {
          const FeatureCollector got = test::run_on_pictures("vif", opts, frames, nullptr, l);
          test::expect_bit_identical(expect, got,
                                     std::string("vif ") + simd::level_name(l) + " " +
                                         std::to_string(w) + "x" + std::to_string(h) + " " +
                                         std::to_string(bits) + "-bit");
        }
      }
    }
}

}  // namespace
}  // namespace vqe::vif

namespace vqe::vif {
namespace {

// Runs tiles one after another on the calling thread, as if 4 threads took
// them (slots 0..3), so that tiles and per-slot workspaces are exercised.
// IntegerVifKernel in two parts (the ladder's shared reference work):
// compute_pair(compute_reference()) equals compute() bit for bit, with the
// reference part made at any level and the pair part at any other, with and
// without tiles, at every depth and for both skip_scale0 settings.
TEST(SimdVif, ReferencePartThenPairEqualsFused) {
  const std::vector<Level> levels = simd::available_levels();
  test::RoundRobinTiles tiles;
  std::uint32_t seed = 900;
  for (int bits : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{67, 70}, std::pair{333, 130}})
      for (bool skip0 : {false, true}) {
        const PlanePair p = make_planes(w, h, bits, Content::smooth, seed++);
        Plane ref, dis;
        ref.width = dis.width = w;
        ref.height = dis.height = h;
        const std::ptrdiff_t sample = bits == 8 ? 1 : 2;
        ref.stride = dis.stride = p.stride * sample;
        const auto bytes = [](const auto& v) {
          return reinterpret_cast<std::uint8_t*>(const_cast<void*>(static_cast<const void*>(v.data())));
        };
        ref.data = bits == 8 ? bytes(p.ref8) : bytes(p.ref16);
        dis.data = bits == 8 ? bytes(p.dis8) : bytes(p.dis16);
        IntegerVifKernel fused(100.0, skip0, Level::scalar);
        fused.init(w, h, bits);
        const VifValues expect = fused.compute(ref, dis);
        for (Level a : levels)
          for (Level b : levels)
            for (TileRunner* runner : {static_cast<TileRunner*>(nullptr),
                                       static_cast<TileRunner*>(&tiles)}) {
              IntegerVifKernel ka(100.0, skip0, a), kb(100.0, skip0, b);
              ka.init(w, h, bits);
              kb.init(w, h, bits);
              const auto frame = ka.compute_reference(ref, runner);
              const VifValues got = kb.compute_pair(*frame, ref, dis, runner);
              for (int s = 0; s < kNumScales; ++s) {
                const std::string what = std::string(simd::level_name(a)) + "/" +
                                         simd::level_name(b) + " " + std::to_string(w) + "x" +
                                         std::to_string(h) + " bits " + std::to_string(bits) +
                                         " skip0 " + std::to_string(skip0) + " tiles " +
                                         std::to_string(runner != nullptr) + " scale " +
                                         std::to_string(s);
                EXPECT_EQ(got.scale[s].num, expect.scale[s].num) << what;
                EXPECT_EQ(got.scale[s].den, expect.scale[s].den) << what;
              }
              // The fused path after the split one (shared workspaces) too.
              const VifValues again = kb.compute(ref, dis, runner);
              for (int s = 0; s < kNumScales; ++s) {
                EXPECT_EQ(again.scale[s].num, expect.scale[s].num);
                EXPECT_EQ(again.scale[s].den, expect.scale[s].den);
              }
            }
      }
}

}  // namespace
}  // namespace vqe::vif
