// SPDX-License-Identifier: BSD-2-Clause
// The Vulkan shaders' exact float steps against the CPU, bit for bit:
// float <-> double conversions, the correctly rounded square root and
// quotient (backend/vulkan/glsl/vqe_float_exact.glsl), the loop-free
// division by a float-valued double (sd_div_narrow), the CPU's short double
// sums of float terms (VqeFsum, both its exact fast path and the sd_add
// replay), and the workgroup emulation of long sequential double sums
// (glsl/vqe_seqsum.glsl) on sequences chosen to stress it: positive terms,
// random walks around zero, rounding ties, wide magnitudes and exact
// cancellation, lengths around the 256-element chunk. SSIM on Vulkan
// (float_ssim, float_ms_ssim) rests on these. Skips without a Vulkan device.

#include <gtest/gtest.h>

#if defined(VQE_HAVE_VULKAN)

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <random>
#include <vector>

#include "backend/vulkan/device.h"
#include "backend/vulkan/runtime.h"
#include "features/float_ssim/iqa_ssim.h"
#include "vulkan_selftest_util.h"

namespace {

using vqe::vulkan::Buffer;
using vqe::vulkan::Context;

enum Op : std::uint32_t { kFromFloat, kToFloat, kSqrt, kDiv, kFsum, kDivNarrow, kFsumOf };

struct FloatCase {
  Op op;
  std::uint32_t a = 0, b = 0, c = 0;
};

std::uint32_t fbits(float f) { return std::bit_cast<std::uint32_t>(f); }
std::uint64_t dbits(double d) { return std::bit_cast<std::uint64_t>(d); }

float random_float(std::mt19937_64& rng, int min_exp, int max_exp) {
  std::uniform_int_distribution<int> e(min_exp, max_exp);
  const float m = 1.0f + static_cast<float>(rng() & 0x7fffff) / 8388608.0f;
  const float v = std::ldexp(m, e(rng));
  return (rng() & 1) ? -v : v;
}

double random_double(std::mt19937_64& rng, int min_exp, int max_exp) {
  std::uniform_int_distribution<int> e(min_exp, max_exp);
  const std::uint64_t frac = rng() & ((std::uint64_t{1} << 52) - 1);
  const double v = std::ldexp(1.0 + static_cast<double>(frac) / 4503599627370496.0, e(rng));
  return (rng() & 1) ? -v : v;
}

using vqe::test::vulkan::init_selftest_context;

TEST(VulkanFloatExact, MatchesCpuFloats) {
  if (vqe::vulkan::device_count() == 0) GTEST_SKIP() << "no Vulkan device: skipping";
  std::mt19937_64 rng(2024);
  std::vector<FloatCase> cases;
  std::vector<float> terms;
  std::vector<std::uint32_t> want;
  auto add = [&](Op op, std::uint32_t a, std::uint32_t b, std::uint64_t expected_lo_hi,
                 std::uint32_t c = 0) {
    cases.push_back({op, a, b, c});
    want.push_back(static_cast<std::uint32_t>(expected_lo_hi));
    want.push_back(static_cast<std::uint32_t>(expected_lo_hi >> 32));
  };
  // Conversions: every exponent, subnormal floats, zeros.
  for (int i = 0; i < 20000; ++i) {
    float f = random_float(rng, -126, 127);
    if (i % 10 == 0) f = std::bit_cast<float>(static_cast<std::uint32_t>(rng() & 0x807fffffu));
    add(kFromFloat, fbits(f), 0, dbits(static_cast<double>(f)));
    double d = random_double(rng, -150, 126);
    if (i % 3 == 0) {  // exactly halfway between two floats (or subnormals)
      const float lo = std::fabs(random_float(rng, -140, 126));
      const float hi = std::nextafter(lo, 2 * lo);
      d = (static_cast<double>(lo) + static_cast<double>(hi)) / 2;
      if (rng() & 1) d = -d;
    }
    add(kToFloat, static_cast<std::uint32_t>(dbits(d)), static_cast<std::uint32_t>(dbits(d) >> 32),
        fbits(static_cast<float>(d)));
  }
  for (float f : {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, 3.4e38f})
    add(kFromFloat, fbits(f), 0, dbits(static_cast<double>(f)));
  // Square roots: every exponent, subnormals, perfect squares and their
  // neighbours.
  for (int i = 0; i < 30000; ++i) {
    float f = std::fabs(random_float(rng, -149, 127));
    if (i % 5 == 0) {
      const float r = std::fabs(random_float(rng, -60, 60));
      f = r * r;
      if (i % 10 == 0) f = std::nextafter(f, (i & 1) ? 0.0f : 2 * f);
    }
    if (i % 7 == 0) f = std::bit_cast<float>(static_cast<std::uint32_t>(rng() & 0x7fffffu));
    add(kSqrt, fbits(f), 0, fbits(static_cast<float>(std::sqrt(static_cast<double>(f)))));
  }
  for (float f : {0.0f, -0.0f, 1.0f, 4.0f, 2.0f, 65025.0f})
    add(kSqrt, fbits(f), 0, fbits(static_cast<float>(std::sqrt(static_cast<double>(f)))));
  // Quotients.
  for (int i = 0; i < 30000; ++i) {
    const float a = random_float(rng, -40, 40), b = random_float(rng, -40, 40);
    add(kDiv, fbits(a), fbits(b), fbits(a / b));
  }
  add(kDiv, fbits(0.0f), fbits(3.0f), fbits(0.0f / 3.0f));
  // Doubles over floats (SSIM's l and c), ties and exact quotients included.
  for (int i = 0; i < 30000; ++i) {
    double a = random_double(rng, -30, 30);
    const float b = random_float(rng, -30, 30);
    if (i % 5 == 0) a = static_cast<double>(b) * static_cast<double>(random_float(rng, -8, 8));
    if (i % 11 == 0) a = 0.0;
    const double q = a / static_cast<double>(b);
    add(kDivNarrow, static_cast<std::uint32_t>(dbits(a)), static_cast<std::uint32_t>(dbits(a) >> 32),
        dbits(q), fbits(b));
  }
  // Short double sums of float terms: IQA-like products (the fast path)
  // and wide ranges, negative terms and cancellation (the replay).
  for (int i = 0; i < 20000; ++i) {
    const int n = i % 3 == 0 ? 81 : 11;
    const auto first = static_cast<std::uint32_t>(terms.size());
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
      float t;
      switch (i % 6) {
        case 0: t = static_cast<float>(rng() % 256) * vqe::iqa::kGaussianTaps[k % 11]; break;
        case 1: {
          const float v = static_cast<float>(rng() % 65536) / 256.0f;
          t = (v * v) * vqe::iqa::kGaussianTaps[k % 11];
          break;
        }
        case 2: t = random_float(rng, -40, 20); break;
        case 3: t = random_float(rng, -5, 8); break;
        case 4: t = k % 2 ? -terms.back() : random_float(rng, -10, 10); break;
        default: t = (rng() % 4 == 0) ? ((rng() & 1) ? -0.0f : 0.0f) : random_float(rng, -60, 10);
      }
      terms.push_back(t);
      sum += t;
    }
    add(kFsum, first, static_cast<std::uint32_t>(n), fbits(static_cast<float>(sum)));
    if (n == 11) add(kFsumOf, first, 11, fbits(static_cast<float>(sum)));
  }

  Context ctx(0);
  init_selftest_context(ctx);
  const std::size_t n = cases.size();
  Buffer in = ctx.host_buffer(n * 16), tb = ctx.host_buffer(terms.size() * 4 + 4),
         out = ctx.host_buffer(n * 12);
  auto* w = in.host<std::uint32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    w[4 * i] = cases[i].op;
    w[4 * i + 1] = cases[i].a;
    w[4 * i + 2] = cases[i].b;
    w[4 * i + 3] = cases[i].c;
  }
  std::memcpy(tb.host<float>(), terms.data(), terms.size() * 4);
  vqe::test::vulkan::run_selftest(ctx, ctx.pipeline("float_exact_selftest", 3), {&in, &tb, &out},
                                  n);
  const auto* r = out.host<const std::uint32_t>();
  int differing = 0;
  long fast = 0, replayed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool wide = cases[i].op == kFromFloat || cases[i].op == kDivNarrow;
    const bool same = r[3 * i] == want[2 * i] && (!wide || r[3 * i + 1] == want[2 * i + 1]);
    if (!same && differing++ < 10)
      ADD_FAILURE() << "op " << cases[i].op << " a 0x" << std::hex << cases[i].a << " b 0x"
                    << cases[i].b << ": want 0x" << want[2 * i + 1] << "'" << want[2 * i]
                    << " got 0x" << r[3 * i + 1] << "'" << r[3 * i];
    if (cases[i].op == kFsum || cases[i].op == kFsumOf) (r[3 * i + 2] ? fast : replayed) += 1;
  }
  EXPECT_EQ(differing, 0);
  EXPECT_GT(fast, 0);
  EXPECT_GT(replayed, 0);
  std::cout << "[float exact] cases compared: " << n << ", differing: " << differing
            << " (short sums: " << fast << " exact fast path, " << replayed << " replayed)\n";
}

// One sequence's four chains of values.
using Chains = std::vector<std::array<double, 4>>;

Chains make_sequence(std::mt19937_64& rng, std::size_t n, int kind) {
  Chains v(n);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    // Chain 0: positive terms in (0, 1] (SSIM's l and c).
    v[i][0] = kind == 1 ? 1.0 : 1.0 - unit(rng) * 0.5;
    // Chain 1: a random walk around zero (s, l·c·s of unrelated pictures).
    v[i][1] = kind == 1 ? static_cast<double>(static_cast<float>(unit(rng) * 2 - 1))
                        : unit(rng) * 2 - 1;
    // Chain 2: ties: a start at 2^53, then halves and odd multiples of the
    // ulp (nearly every element is an event: the first 700 only, then the
    // walk, to keep the test short on software devices).
    static const double kTieSteps[] = {1.0, 3.0, -1.0, 0.5, 2.0, -3.0, 5.0};
    v[i][2] = i == 0 ? 9007199254740992.0 : i < 700 ? kTieSteps[rng() % 7] : unit(rng) * 2 - 1;
    // Chain 3: wide magnitudes and exact cancellation (likewise), then
    // positive terms.
    if (i > 0 && i < 700 && rng() % 5 == 0) v[i][3] = -v[i - 1][3];
    else if (i < 700) v[i][3] = random_double(rng, kind == 2 ? -900 : -60, kind == 2 ? 900 : 20);
    else v[i][3] = unit(rng) * 1e-3;
  }
  return v;
}

// Chunks per dispatch: the count SSIM's map sums use (ssim_vulkan.cpp).
constexpr std::uint32_t kChunksPerPass = 160;

TEST(VulkanSeqSum, MatchesCpuSequentialSums) {
  if (vqe::vulkan::device_count() == 0) GTEST_SKIP() << "no Vulkan device: skipping";
  Context ctx(0);
  init_selftest_context(ctx);
  const vqe::vulkan::Pipeline& p = ctx.pipeline("seqsum_selftest", 2);
  std::mt19937_64 rng(77);
  long compared = 0, differing = 0;
  const std::size_t kSequences = 3;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{255},
                        std::size_t{256}, std::size_t{257}, std::size_t{1000},
                        std::size_t{40960}, std::size_t{40961}}) {
    std::vector<Chains> seqs;
    for (std::size_t s = 0; s < kSequences; ++s) seqs.push_back(make_sequence(rng, n, static_cast<int>(s)));
    Buffer in = ctx.host_buffer(kSequences * n * 4 * 8 + 8), out = ctx.host_buffer(kSequences * 4 * 8);
    auto* w = in.host<std::uint32_t>();
    for (std::size_t s = 0; s < kSequences; ++s)
      for (std::size_t i = 0; i < n; ++i)
        for (int q = 0; q < 4; ++q) {
          const std::uint64_t b = dbits(seqs[s][i][static_cast<std::size_t>(q)]);
          const std::size_t at = ((s * n + i) * 4 + static_cast<std::size_t>(q)) * 2;
          w[at] = static_cast<std::uint32_t>(b);
          w[at + 1] = static_cast<std::uint32_t>(b >> 32);
        }
    const VkDescriptorSet set = ctx.descriptor_set(p, {&in, &out});
    ctx.begin_batch(0, 0);
    // Passes of at most kChunksPerPass chunks, as SSIM's map sums run.
    const std::uint32_t chunks = static_cast<std::uint32_t>((n + 255) / 256);
    for (std::uint32_t first = 0; first == 0 || first < chunks; first += kChunksPerPass) {
      if (first > 0) ctx.barrier();
      vqe::vulkan::Push push;
      push.arg[0] = static_cast<std::uint32_t>(n);
      push.arg[1] = first;
      push.arg[2] = kChunksPerPass;
      ctx.dispatch(p, set, push, static_cast<std::uint32_t>(kSequences), 1, 1);
    }
    ctx.wait(ctx.submit_batch());
    const auto* r = out.host<const std::uint32_t>();
    for (std::size_t s = 0; s < kSequences; ++s)
      for (int q = 0; q < 4; ++q) {
        double sum = 0.0;
        for (std::size_t i = 0; i < n; ++i) sum += seqs[s][i][static_cast<std::size_t>(q)];
        const std::size_t at = (s * 4 + static_cast<std::size_t>(q)) * 2;
        const std::uint64_t got = r[at] | (static_cast<std::uint64_t>(r[at + 1]) << 32);
        ++compared;
        if (got != dbits(sum) && differing++ < 10)
          ADD_FAILURE() << "n " << n << " sequence " << s << " chain " << q << ": want "
                        << sum << " got " << std::bit_cast<double>(got);
      }
  }
  EXPECT_EQ(differing, 0);
  std::cout << "[seqsum] sums compared: " << compared << ", differing: " << differing << "\n";
}

}  // namespace

#else
TEST(VulkanFloatExact, NeedsTheVulkanBackend) { GTEST_SKIP() << "no Vulkan backend"; }
#endif
