// SPDX-License-Identifier: BSD-2-Clause
// The Vulkan shaders' binary64 arithmetic in integers
// (backend/vulkan/glsl/vqe_softdouble.glsl) against the CPU's doubles, bit
// for bit: random operands over a wide exponent range, operands whose exact
// results lie on or next to a rounding tie, cancellation, integers and the
// int conversions the VIF and ADM kernels use. Skips without a Vulkan device.

#include <gtest/gtest.h>

#if defined(VQE_HAVE_VULKAN)

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <random>
#include <vector>

#include "backend/vulkan/device.h"
#include "backend/vulkan/runtime.h"
#include "vulkan_selftest_util.h"

namespace {

enum Op : std::uint32_t {
  kAdd, kSub, kMul, kDiv, kFromInt, kTrunc, kLess, kTrunc32, kFromInt32, kFloatOfInt
};

struct Case {
  Op op;
  double a, b;
  std::int64_t ia = 0;  // kFromInt
};

std::uint64_t bits(double d) { return std::bit_cast<std::uint64_t>(d); }

std::uint64_t expected(const Case& c) {
  switch (c.op) {
    case kAdd: return bits(c.a + c.b);
    case kSub: return bits(c.a - c.b);
    case kMul: return bits(c.a * c.b);
    case kDiv: return bits(c.a / c.b);
    case kFromInt: return bits(static_cast<double>(c.ia));
    case kFromInt32: return bits(static_cast<double>(static_cast<std::int32_t>(c.ia)));
    case kFloatOfInt: return bits(static_cast<double>(static_cast<float>(c.ia)));
    case kTrunc: return static_cast<std::uint64_t>(static_cast<std::int64_t>(c.a));
    case kLess: return c.a < c.b ? 1 : 0;
    case kTrunc32: {
      const std::int32_t v = c.a <= -2147483648.0 ? INT32_MIN : static_cast<std::int32_t>(c.a);
      return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    }
  }
  return 0;
}

double random_double(std::mt19937_64& rng, int min_exp, int max_exp) {
  std::uniform_int_distribution<int> e(min_exp, max_exp);
  const std::uint64_t frac = rng() & ((std::uint64_t{1} << 52) - 1);
  double v = std::ldexp(1.0 + static_cast<double>(frac) / 4503599627370496.0, e(rng));
  return (rng() & 1) ? -v : v;
}

TEST(VulkanSoftDouble, MatchesCpuDoubles) {
  if (vqe::vulkan::device_count() == 0) GTEST_SKIP() << "no Vulkan device: skipping";
  std::mt19937_64 rng(12345);
  std::vector<Case> cases;
  for (int i = 0; i < 40000; ++i) {
    const Op op = static_cast<Op>(i % 4);
    // Mostly nearby exponents (real rounding and cancellation), some far.
    const int spread = i % 7 == 0 ? 80 : 6;
    cases.push_back({op, random_double(rng, -40, 40), random_double(rng, -spread, spread)});
  }
  // Ties: a + b where b is exactly half an ulp of a (and odd/even a), and
  // products/quotients of small integers that land on ties.
  for (int i = 0; i < 4000; ++i) {
    const double a = random_double(rng, 0, 30);
    const double half_ulp = std::ldexp(1.0, std::ilogb(a) - 53);
    cases.push_back({kAdd, a, half_ulp});
    cases.push_back({kAdd, a, -half_ulp});
    cases.push_back({kAdd, a, half_ulp * 3});
    cases.push_back({kSub, a, a * (1 - std::ldexp(1.0, -(i % 60)))});
    const double m = static_cast<double>((rng() >> 11) | 1);
    cases.push_back({kMul, m, static_cast<double>(rng() >> 40)});
    cases.push_back({kDiv, static_cast<double>(rng() >> 33), static_cast<double>((rng() >> 40) | 1)});
  }
  // The VIF/ADM shapes: integer numerators over integer + eps, products with
  // integers, truncations.
  const double eps = 65536 * 1.0e-10;
  for (int i = 0; i < 20000; ++i) {
    const double s12 = static_cast<double>(static_cast<std::int32_t>(rng()) / 2);
    const double s1 = static_cast<double>((rng() >> 34) + 131072) + eps;
    const double g = s12 / s1;
    cases.push_back({kDiv, s12, s1});
    cases.push_back({kMul, g, s12});
    cases.push_back({kSub, static_cast<double>(rng() >> 33), g * s12});
    cases.push_back({kMul, g * g, static_cast<double>(rng() >> 34)});
    cases.push_back({kTrunc, g * s12 * 0.37, 0});
    cases.push_back({kTrunc32, static_cast<double>(rng() >> 33) - g * s12, 0});
    cases.push_back({kLess, g, 100.0});
    Case fi{kFromInt, 0, 0, static_cast<std::int64_t>(rng())};
    cases.push_back(fi);
    cases.push_back({kAdd, static_cast<double>(rng() >> 33), eps});
  }
  cases.push_back({kAdd, 0.0, 0.0});
  cases.push_back({kAdd, 1.5, -1.5});
  cases.push_back({kMul, 0.0, 3.0});
  cases.push_back({kDiv, 0.0, 3.0});
  cases.push_back({kTrunc32, -1e12, 0});
  cases.push_back({kTrunc32, -2147483648.0, 0});
  cases.push_back({kTrunc, 0.999, 0});
  cases.push_back({kTrunc, -7.5, 0});
  cases.push_back({kFromInt, 0, 0, INT64_MIN});
  for (std::int64_t v : {-1LL, -2LL, -48100076LL, -47557689LL, -(1LL << 40) - 3, 7LL})
    cases.push_back({kFromInt, 0, 0, v});
  // int32 conversions, and C's (double)(float) of int64 (ADM's angle test).
  for (std::int64_t v : {0LL, 1LL, -1LL, 2147483647LL, -2147483648LL, -48100076LL})
    cases.push_back({kFromInt32, 0, 0, v});
  for (int i = 0; i < 20000; ++i) {
    cases.push_back({kFromInt32, 0, 0, static_cast<std::int32_t>(rng())});
    const int bits_kept = 1 + i % 63;  // magnitudes of every size, ties included
    const auto v = static_cast<std::int64_t>(rng() >> (64 - bits_kept)) * ((i & 1) ? -1 : 1);
    cases.push_back({kFloatOfInt, 0, 0, v});
  }
  for (std::int64_t v : std::initializer_list<std::int64_t>{INT64_MIN, INT64_MAX, (1LL << 24) + 1,
                                                           (1LL << 25) + 3, -(1LL << 24) - 1})
    cases.push_back({kFloatOfInt, 0, 0, v});
  cases.push_back({kFromInt, 0, 0, (std::int64_t{1} << 53) + 1});

  vqe::vulkan::Context ctx(0);
  vqe::test::vulkan::init_selftest_context(ctx);
  const std::size_t n = cases.size();
  vqe::vulkan::Buffer in = ctx.host_buffer(n * 5 * 4), out = ctx.host_buffer(n * 2 * 4);
  auto* w = in.host<std::uint32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    const bool int_operand =
        cases[i].op == kFromInt || cases[i].op == kFromInt32 || cases[i].op == kFloatOfInt;
    const std::uint64_t a = int_operand ? static_cast<std::uint64_t>(cases[i].ia) : bits(cases[i].a);
    const std::uint64_t b = bits(cases[i].b);
    w[5 * i] = cases[i].op;
    w[5 * i + 1] = static_cast<std::uint32_t>(a);
    w[5 * i + 2] = static_cast<std::uint32_t>(a >> 32);
    w[5 * i + 3] = static_cast<std::uint32_t>(b);
    w[5 * i + 4] = static_cast<std::uint32_t>(b >> 32);
  }
  vqe::test::vulkan::run_selftest(ctx, ctx.pipeline("softdouble_selftest", 2), {&in, &out}, n);
  const auto* r = out.host<const std::uint32_t>();
  int differing = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t got = r[2 * i] | (static_cast<std::uint64_t>(r[2 * i + 1]) << 32);
    const std::uint64_t want = expected(cases[i]);
    if (got != want && differing++ < 10)
      ADD_FAILURE() << "op " << cases[i].op << " a " << cases[i].a << " (int " << cases[i].ia
                    << ") b " << cases[i].b << ": want 0x" << std::hex << want << " got 0x" << got;
  }
  EXPECT_EQ(differing, 0);
  std::cout << "[softdouble] cases compared: " << n << ", differing: " << differing << "\n";
}

}  // namespace

#else
TEST(VulkanSoftDouble, NeedsTheVulkanBackend) { GTEST_SKIP() << "no Vulkan backend"; }
#endif
