// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Per-level kernel tables (in the manner of dav1d's *_dsp_init).
///
/// Each metric with SIMD kernels has a table of function pointers (its
/// "dsp" struct). The table for a level holds the scalar reference kernels
/// at Level::scalar and that level's Highway target functions otherwise;
/// every entry has the scalar kernel's contract and result. Tables are
/// filled once per level, on first use, and live for the whole process;
/// extractors take the table of their job's level when they are built, so
/// callers never branch on the CPU level:
///
///   const PsnrDsp& dsp = psnr_dsp(level);   // once, when the job is set up
///   dsp.sse8(a, as, b, bs, w, h);           // per frame
///
/// Inside a file compiled for every target through hwy/foreach_target.h, the
/// HWY_ONCE section fills a table with VQE_SIMD_PICK(level, Function).

#include <array>
#include <cstddef>
#include <type_traits>

#include "vqe/cpu.h"

namespace vqe::simd {

/// True on CPUs whose vector gathers are slower than the exact arithmetic
/// some kernels can use instead (AMD x86: measured on Zen 5). Only a speed
/// choice: both paths give the same results.
bool slow_gathers();

/// Number of Level enumerators (size of per-level arrays).
inline constexpr std::size_t kLevelCount = 5;

/// Position of `level` in per-level arrays.
constexpr std::size_t level_index(Level level) { return static_cast<std::size_t>(level); }

/// Throws vqe::Error: no kernel of `level` was compiled (a build defect:
/// is_available() promised one).
[[noreturn]] void missing_kernel(Level level);

/// The function of `level` among the per-target pointers of one Highway
/// function (nullptr where that target was not compiled). Throws at the
/// scalar level or when the level's pointer is missing.
template <class Fn>
Fn pick(Level level, std::type_identity_t<Fn> sse4, std::type_identity_t<Fn> avx2,
        std::type_identity_t<Fn> avx512, std::type_identity_t<Fn> neon) {
  Fn f = nullptr;
  switch (level) {
    case Level::scalar: break;
    case Level::sse4: f = sse4; break;
    case Level::avx2: f = avx2; break;
    case Level::avx512: f = avx512; break;
    case Level::neon: f = neon; break;
  }
  if (f == nullptr) missing_kernel(level);
  return f;
}

/// One table per available level, built by `build(level)` in the
/// constructor (use as a function-local static: thread-safe, once).
template <class Table>
class LevelTables {
 public:
  template <class Build>
  explicit LevelTables(Build build) {
    for (Level l : available_levels()) tables_[level_index(l)] = build(l);
  }
  /// The table of `level`. Throws vqe::Error for a level this CPU lacks.
  const Table& operator[](Level level) const {
    if (!is_available(level)) missing_kernel(level);
    return tables_[level_index(level)];
  }

 private:
  std::array<Table, kLevelCount> tables_{};
};

}  // namespace vqe::simd

/// The function pointer of Highway function FUNC for `level` (not scalar),
/// in the HWY_ONCE section of a file compiled through foreach_target.h.
#define VQE_SIMD_PICK(level, FUNC)                                                       \
  ::vqe::simd::pick<decltype(&HWY_STATIC_DISPATCH(FUNC))>(                               \
      (level), HWY_CHOOSE_SSE4(FUNC), HWY_CHOOSE_AVX2(FUNC), HWY_CHOOSE_AVX3(FUNC), \
      HWY_CHOOSE_NEON(FUNC))
