// SPDX-License-Identifier: BSD-2-Clause
// The CUDA reduction primitives (src/backend/cuda/reduce.cuh) against CPU
// sums on adversarial data: all-max 16-bit samples, sizes around warp,
// block and grid boundaries, and random sizes and block shapes.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "backend/cuda/device.h"
#include "backend/cuda/selftest.h"

namespace {

namespace st = vqe::cuda::selftest;

#define VQE_REQUIRE_GPU() \
  if (vqe::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: skipping"

const std::vector<std::size_t> kSizes = {1,    2,    31,    32,    33,             255,
                                         256,  257,  1023,  1025,  65535,          65537,
                                         (1u << 20) + 1,    (1u << 24) + 1};

TEST(CudaReduce, AllMax16BitMomentsAtBoundarySizes) {
  VQE_REQUIRE_GPU();
  for (std::size_t n : kSizes) {
    const std::vector<std::uint16_t> data(n, 65535);
    const std::uint64_t sum = 65535ull * n, sum_sq = 65535ull * 65535ull * n;
    for (int block : {32, 256, 1024}) {
      const auto r = st::sum_u16_moments(data, block, 1024);
      EXPECT_EQ(r[0], sum) << "n=" << n << " block=" << block;
      EXPECT_EQ(r[1], sum_sq) << "n=" << n << " block=" << block;
    }
  }
}

TEST(CudaReduce, Uint64NearOverflowAndSigned) {
  VQE_REQUIRE_GPU();
  std::mt19937_64 rng(5);
  for (std::size_t n : kSizes) {
    // Values whose 32-bit halves both carry: a split sum would lose them.
    std::vector<std::uint64_t> u(n);
    std::vector<std::int64_t> s(n);
    std::uint64_t cu = 0;
    std::int64_t cs = 0;
    const std::uint64_t cap = ~0ull / (n + 1);
    for (std::size_t i = 0; i < n; ++i) {
      u[i] = cap - (rng() % 1024);
      s[i] = static_cast<std::int64_t>(rng() % (1ull << 40)) - (1ll << 39);
      cu += u[i];
      cs += s[i];
    }
    EXPECT_EQ(st::sum_u64(u, 256, 1024), cu) << "n=" << n;
    EXPECT_EQ(st::sum_i64(s, 256, 1024), cs) << "n=" << n;
  }
}

TEST(CudaReduce, RandomSizesAndShapes) {
  VQE_REQUIRE_GPU();
  std::mt19937 rng(42);
  for (int t = 0; t < 300; ++t) {
    const std::size_t n = 1 + rng() % (t < 200 ? 5000 : 300000);
    const int block = 32 * (1 + static_cast<int>(rng() % 32));
    const int max_blocks = 1 + static_cast<int>(rng() % 2048);
    std::vector<std::uint16_t> data(n);
    std::uint64_t sum = 0, sum_sq = 0;
    for (auto& v : data) {
      v = static_cast<std::uint16_t>(rng() % 2 ? 65535 - rng() % 4 : rng() % 65536);
      sum += v;
      sum_sq += static_cast<std::uint64_t>(v) * v;
    }
    const auto r = st::sum_u16_moments(data, block, max_blocks);
    ASSERT_EQ(r[0], sum) << "n=" << n << " block=" << block << " max_blocks=" << max_blocks;
    ASSERT_EQ(r[1], sum_sq) << "n=" << n << " block=" << block << " max_blocks=" << max_blocks;
  }
}

TEST(CudaReduce, DoubleSumIsDeterministicAndClose) {
  VQE_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (std::size_t n : {std::size_t{1}, std::size_t{33}, std::size_t{1025}, std::size_t{1} << 20}) {
    std::vector<double> data(n);
    long double ref = 0;
    for (auto& v : data) {
      v = dist(rng);
      ref += v;
    }
    const double a = st::sum_f64(data, 256, 1024);
    const double b = st::sum_f64(data, 256, 1024);
    EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "n=" << n << ": not deterministic";
    EXPECT_NEAR(a, static_cast<double>(ref), 1e-9 * static_cast<double>(n)) << "n=" << n;
  }
}

}  // namespace
