// SPDX-License-Identifier: BSD-2-Clause
// The CPU-level switch itself: parsing, cpumask mapping, scoped selection.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/psnr/psnr_kernels.h"
#include "core/extractor.h"
#include "vqe/error.h"

namespace vqe::simd {
namespace {

TEST(SimdLevel, NamesRoundTrip) {
  for (Level l : {Level::scalar, Level::sse4, Level::avx2, Level::avx512, Level::neon})
    EXPECT_EQ(parse_level(level_name(l)), l);
  EXPECT_FALSE(parse_level("avx9").has_value());
  EXPECT_FALSE(parse_level("").has_value());
}

TEST(SimdLevel, AvailableLevelsStartWithScalarAndEndAtMax) {
  const auto levels = available_levels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), Level::scalar);
  EXPECT_EQ(levels.back(), max_level());
}

TEST(SimdLevel, AvailableLevelsAreOneArchitecture) {
  for (Level l : available_levels()) EXPECT_TRUE(is_available(l)) << level_name(l);
#if defined(__aarch64__)
  for (Level l : {Level::sse4, Level::avx2, Level::avx512}) EXPECT_FALSE(is_available(l));
#else
  EXPECT_FALSE(is_available(Level::neon));
#endif
}

#if defined(__aarch64__)
TEST(SimdLevel, CpumaskBitsDisableLevels) {
  // libvmaf's only Arm flag, VMAF_ARM_CPU_FLAG_NEON = 1.
  EXPECT_EQ(level_from_cpumask(0), max_level());
  EXPECT_EQ(level_from_cpumask(1u << 4), max_level());
  EXPECT_EQ(level_from_cpumask(1), Level::scalar);
  EXPECT_EQ(level_from_cpumask(~0ull), Level::scalar);
}
#else
TEST(SimdLevel, CpumaskBitsDisableLevels) {
  const auto capped = [](Level l) { return l < max_level() ? l : max_level(); };
  EXPECT_EQ(level_from_cpumask(0), max_level());
  EXPECT_EQ(level_from_cpumask(1u << 4), capped(Level::avx2));          // no AVX-512
  EXPECT_EQ(level_from_cpumask((1u << 3) | (1u << 4)), capped(Level::sse4));  // no AVX2
  EXPECT_EQ(level_from_cpumask(1u << 3), capped(Level::sse4));  // AVX-512 needs AVX2
  EXPECT_EQ(level_from_cpumask(1u << 2), Level::scalar);        // no SSE4.1
  EXPECT_EQ(level_from_cpumask(~0ull), Level::scalar);
}
#endif

// The SIMD tests run every level in available_levels(); this checks that the
// list holds every level the CPU has (so that a build, the sanitizer one
// included, cannot silently skip AVX-512 on a machine that has it), and
// prints the list, which scripts/test repeats after each suite.
TEST(SimdLevel, EveryLevelOfThisCpuIsBuiltAndTested) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  const bool sse4 = __builtin_cpu_supports("sse4.1") && __builtin_cpu_supports("sse4.2");
  const bool avx2 = sse4 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("bmi2");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq") &&
                      __builtin_cpu_supports("avx512vl");
  EXPECT_EQ(is_available(Level::sse4), sse4);
  EXPECT_EQ(is_available(Level::avx2), avx2);
  EXPECT_EQ(is_available(Level::avx512), avx512)
      << "the CPU " << (avx512 ? "has" : "lacks") << " AVX-512 F/BW/DQ/VL";
#elif defined(__aarch64__)
  EXPECT_TRUE(is_available(Level::neon));
#endif
  std::string names;
  for (Level l : available_levels()) names += std::string(names.empty() ? "" : " ") + level_name(l);
  std::printf("SIMD levels under test: %s\n", names.c_str());
}

// Each level has its own kernel table: the scalar table holds the scalar
// references, every SIMD level other functions, and asking for one level
// never changes another's table (no process-wide state).
TEST(SimdLevel, TablesArePerLevel) {
  const psnr::PsnrDsp& scalar = psnr::psnr_dsp(Level::scalar);
  EXPECT_EQ(scalar.sse8, static_cast<decltype(scalar.sse8)>(psnr::plane_sse_scalar));
  for (Level l : available_levels()) {
    if (l == Level::scalar) continue;
    const psnr::PsnrDsp& t = psnr::psnr_dsp(l);
    EXPECT_NE(t.sse8, scalar.sse8) << level_name(l);
    for (Level other : available_levels()) {
      if (other == l || other == Level::scalar) continue;
      EXPECT_NE(psnr::psnr_dsp(other).sse8, t.sse8) << level_name(l) << " " << level_name(other);
    }
  }
  EXPECT_EQ(psnr::psnr_dsp(Level::scalar).sse8, scalar.sse8);
}

TEST(SimdLevel, UnsupportedLevelIsRefused) {
  if (max_level() != Level::avx512) {
    EXPECT_THROW(psnr::psnr_dsp(Level::avx512), vqe::Error);
    EXPECT_THROW(make_extractor("psnr", {}, Level::avx512), vqe::Error);
  }
  // Another architecture's level.
  const Level foreign = max_level() == Level::neon ? Level::sse4 : Level::neon;
  EXPECT_THROW(psnr::psnr_dsp(foreign), vqe::Error);
  EXPECT_THROW(make_extractor("psnr", {}, foreign), vqe::Error);
}

}  // namespace
}  // namespace vqe::simd
