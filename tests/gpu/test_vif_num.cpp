// SPDX-License-Identifier: BSD-2-Clause
// VIF's per-pixel numerator term on Vulkan (features/vif/vif_num.glsl)
// against the CPU's double-precision steps (integer_vif.cpp, libvmaf 3.2.0),
// bit for bit: the fast path (no binary64) wherever it decides, and the
// software-binary64 path it falls back to on every case. Cases: realistic
// statistics, gains above the limits 100 (VMAF) and 1 (the NEG models),
// huge sigma12 / sigma1_sq ratios, and cases built to sit on the
// truncations' edges (sigma12² a multiple of sigma1_sq, sigma2_sq next to
// g · sigma12), where the fast path must give up. Skips without a Vulkan
// device.

#include <gtest/gtest.h>

#if defined(VQE_HAVE_VULKAN)

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "backend/vulkan/device.h"
#include "backend/vulkan/runtime.h"
#include "features/vif/integer_vif.h"
#include "vulkan_selftest_util.h"

namespace {

struct NumCase {
  std::int32_t s1, s12, s2;
  double gain;
};

// integer_vif.cpp's steps for one pixel (sigma1_sq >= 2^17, sigma12 > 0,
// sigma2_sq > 0). Out-of-range int32 conversions give INT32_MIN as on x86.
std::int32_t cpu_term(const NumCase& c) {
  const double eps = 65536 * 1.0e-10;
  double g = c.s12 / (c.s1 + eps);
  const double d = c.s2 - g * c.s12;
  std::int32_t sv = d <= -2147483649.0 ? INT32_MIN : static_cast<std::int32_t>(d);
  sv = std::max(sv, 0);
  g = g < c.gain ? g : c.gain;
  const std::uint32_t numer1 = static_cast<std::uint32_t>(sv) + (65536u << 1);  // no int overflow
  const std::int64_t numer1_tmp = static_cast<std::int64_t>(g * g * c.s1) + std::int64_t{numer1};
  return vqe::vif::log2_64(static_cast<std::uint64_t>(numer1_tmp)) - vqe::vif::log2_64(numer1);
}

TEST(VulkanVifNum, FastAndExactPathsMatchCpuDoubles) {
  if (vqe::vulkan::device_count() == 0) GTEST_SKIP() << "no Vulkan device: skipping";
  std::mt19937_64 rng(20261202);
  const auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * std::uniform_real_distribution<double>(0, 1)(rng);
  };
  const auto log_uniform = [&](double lo, double hi) {
    return std::exp(uniform(std::log(lo), std::log(hi)));
  };
  const auto clamp32 = [](double v) {
    return static_cast<std::int32_t>(std::clamp(v, 1.0, 2147483647.0));
  };
  std::vector<NumCase> cases;
  // Realistic: sigma12 = rho · sqrt(sigma1_sq · sigma2_sq), |rho| <= 1.2.
  const std::size_t realistic = 150000;
  for (std::size_t i = 0; i < realistic; ++i) {
    const double s1 = log_uniform(131072, 2147483647), s2 = log_uniform(1, 2147483647);
    const double s12 = uniform(0, 1.2) * std::sqrt(s1 * s2);
    cases.push_back({clamp32(s1), clamp32(s12), clamp32(s2), (i & 1) ? 100.0 : 1.0});
  }
  // Gains past the limit; ratios large enough to leave the fast path's range.
  for (int i = 0; i < 20000; ++i) {
    const double s1 = log_uniform(131072, 1 << 24);
    const double s12 = s1 * log_uniform(0.5, 16384);
    cases.push_back({clamp32(s1), clamp32(s12), clamp32(log_uniform(1, 2147483647)),
                     (i & 1) ? 100.0 : 1.0});
  }
  // The truncations' edges: sigma12² a multiple of sigma1_sq (the exact
  // quotient an integer, eps pulling it just below), sigma2_sq at and next
  // to it.
  for (int i = 0; i < 20000; ++i) {
    const auto s12 = static_cast<std::int64_t>(log_uniform(131072, 46340));
    const std::int64_t k = 1 + static_cast<std::int64_t>(rng() % 4);
    const std::int64_t s1 = std::max<std::int64_t>(131072, s12 * k);
    const std::int64_t q = s12 * s12 / s1;
    const std::int64_t s2 = std::max<std::int64_t>(1, q + static_cast<std::int64_t>(rng() % 5) - 1);
    cases.push_back({static_cast<std::int32_t>(s1), static_cast<std::int32_t>(s12),
                     static_cast<std::int32_t>(std::min<std::int64_t>(s2, INT32_MAX)),
                     (i & 1) ? 100.0 : 1.0});
  }
  // Where the reference's rounding of g · sigma12 or g² · sigma1_sq decides
  // the truncation: their exact values (long double here) within 2^-19 of an
  // integer, found by search among large ratios (the doubles' ulp is then
  // 2^-20 or coarser).
  const double eps = 65536 * 1.0e-10;
  std::size_t edges = 0;
  for (int i = 0; i < 4000000 && edges < 400; ++i) {
    const auto s1 = static_cast<std::int32_t>(131072 + rng() % 393216);
    const auto s12 = static_cast<std::int32_t>((1 << 20) + rng() % ((1 << 26) - (1 << 20)));
    const long double den = static_cast<long double>(s1) + ((s1 + eps) - s1);
    const long double a = static_cast<long double>(s12) * static_cast<long double>(s12);
    const long double p = a / den, t = p * (static_cast<long double>(s1) / den);
    const auto near = [](long double v) {
      const long double fr = v - std::floor(v);
      return fr < 0x1p-19L || fr > 1 - 0x1p-19L;
    };
    if (!near(p) && !near(t)) continue;
    ++edges;
    const auto s2 = static_cast<std::int64_t>(std::floor(p)) + 1 + static_cast<std::int64_t>(rng() % 1000);
    if (s2 > INT32_MAX) continue;
    cases.push_back({s1, s12, static_cast<std::int32_t>(s2), 1e30});
  }
  EXPECT_GT(edges, 10u) << "the edge search found too few cases";
  // Exactly at the gain limits.
  for (std::int32_t s1 : {131072, 131073, 1000000, 21474836})
    for (double gain : {1.0, 100.0})
      cases.push_back({s1, static_cast<std::int32_t>(s1 * gain), 12345, gain});

  vqe::vulkan::Context ctx(0);
  vqe::test::vulkan::init_selftest_context(ctx);
  const std::size_t n = cases.size();
  vqe::vulkan::Buffer in = ctx.host_buffer(n * 5 * 4), out = ctx.host_buffer(n * 3 * 4);
  vqe::vulkan::Buffer log2 = ctx.host_buffer(32768 * 4);
  const auto& table = vqe::vif::log2_table();
  for (std::uint32_t i = 0; i < 32768; ++i) log2.host<std::uint32_t>()[i] = table[32768 + i];
  auto* w = in.host<std::uint32_t>();
  for (std::size_t i = 0; i < n; ++i) {
    const auto gain_bits = std::bit_cast<std::uint64_t>(cases[i].gain);
    w[5 * i] = static_cast<std::uint32_t>(cases[i].s1);
    w[5 * i + 1] = static_cast<std::uint32_t>(cases[i].s12);
    w[5 * i + 2] = static_cast<std::uint32_t>(cases[i].s2);
    w[5 * i + 3] = static_cast<std::uint32_t>(gain_bits);
    w[5 * i + 4] = static_cast<std::uint32_t>(gain_bits >> 32);
  }
  const auto eps_bits = std::bit_cast<std::uint64_t>(65536 * 1.0e-10);
  vqe::test::vulkan::run_selftest(
      ctx, ctx.pipeline("vif_num_selftest", 3), {&in, &log2, &out}, n,
      {static_cast<std::uint32_t>(eps_bits), static_cast<std::uint32_t>(eps_bits >> 32)});

  const auto* r = out.host<const std::int32_t>();
  std::size_t decided = 0, decided_realistic = 0, differing = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t want = cpu_term(cases[i]);
    const bool fast = r[3 * i] != 0;
    if (r[3 * i + 2] != want && differing++ < 10)
      ADD_FAILURE() << "exact path: s1 " << cases[i].s1 << " s12 " << cases[i].s12 << " s2 "
                    << cases[i].s2 << " gain " << cases[i].gain << ": want " << want << " got "
                    << r[3 * i + 2];
    if (fast) {
      ++decided;
      if (i < realistic) ++decided_realistic;
      if (r[3 * i + 1] != want && differing++ < 10)
        ADD_FAILURE() << "fast path: s1 " << cases[i].s1 << " s12 " << cases[i].s12 << " s2 "
                      << cases[i].s2 << " gain " << cases[i].gain << ": want " << want
                      << " got " << r[3 * i + 1];
    }
  }
  EXPECT_EQ(differing, 0u);
  // The fast path must carry nearly all realistic pixels (else the kernel is
  // slow) and must have given up somewhere (else its edges went untested).
  EXPECT_GT(decided_realistic, realistic * 95 / 100);
  EXPECT_LT(decided, n);
  std::cout << "[vif num] cases: " << n << ", decided by the fast path: " << decided
            << " (realistic: " << decided_realistic << " of " << realistic
            << "), differing: " << differing << "\n";
}

}  // namespace

#else
TEST(VulkanVifNum, NeedsTheVulkanBackend) { GTEST_SKIP() << "no Vulkan backend"; }
#endif
