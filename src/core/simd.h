// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file CPU instruction-set levels and the switch between the scalar
/// reference kernels and the Highway SIMD kernels.
///
/// Every metric keeps a scalar reference path. SIMD kernels are compiled with
/// Highway for several targets (x86: SSE4, AVX2, AVX-512; AArch64: NEON) and
/// chosen at run time; `set_level()` restricts that choice (the
/// CLI's --cpu-level and libvmaf-compatible --cpumask). Kernels dispatch as:
///
///   if (vqe::simd::use_simd()) HWY_DYNAMIC_DISPATCH(kernel)(args...);
///   else kernel_scalar(args...);
///
/// The level is process-wide. Set it before starting a job; changing it while
/// a job runs is not supported.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vqe::simd {

/// Instruction-set levels. A build has the levels of its architecture only
/// (scalar plus x86's or AArch64's, see available_levels()); within one
/// architecture a later enumerator is a higher level. Levels of different
/// architectures do not compare meaningfully: use is_available().
enum class Level {
  scalar,  ///< plain C++ reference kernels, no SIMD
  sse4,    ///< x86: Highway HWY_SSE4 (SSE4.1/4.2 + CLMUL/AES)
  avx2,    ///< x86: Highway HWY_AVX2 (AVX2 + FMA + BMI2)
  avx512,  ///< x86: Highway HWY_AVX3 / HWY_AVX3_DL (AVX-512 F/BW/DQ/VL)
  neon,    ///< AArch64: Highway HWY_NEON (Advanced SIMD + AES); the SVE
           ///< targets are not built (see CMakeLists.txt)
};

/// The highest level this CPU and build support.
Level max_level();
/// The level kernels use now (max_level() unless set_level() lowered it).
Level active_level();
/// True if this CPU and build support `level` (it is in available_levels()).
bool is_available(Level level);
/// Selects the level for all later kernel calls. Throws vqe::Error if the CPU
/// or the build does not support `level`.
void set_level(Level level);
/// True when the active level is above scalar.
bool use_simd();
/// "scalar", "sse4", "avx2", "avx512" or "neon".
const char* level_name(Level level);
/// Parses a level name as printed by level_name(), of any architecture;
/// nullopt if unknown.
std::optional<Level> parse_level(std::string_view name);
/// Every level this CPU and build support, scalar first, lowest to highest
/// (for equality tests).
std::vector<Level> available_levels();
/// The level libvmaf would use under `--cpumask mask`: bits set in the mask
/// disable instruction sets. x86 (libvmaf's VMAF_X86_CPU_FLAG_*): 1 SSE2,
/// 2 SSSE3, 4 SSE4.1, 8 AVX2, 16 AVX-512, 32 AVX-512 ICL. AArch64 (libvmaf's
/// VMAF_ARM_CPU_FLAG_NEON): 1 NEON, which disables every SIMD level; other
/// bits are ignored.
/// Capped at max_level().
Level level_from_cpumask(std::uint64_t mask);

/// Sets a level for the lifetime of the object and restores the previous one.
class ScopedLevel {
 public:
  explicit ScopedLevel(Level level) : previous_(active_level()) { set_level(level); }
  ~ScopedLevel() { set_level(previous_); }
  ScopedLevel(const ScopedLevel&) = delete;
  ScopedLevel& operator=(const ScopedLevel&) = delete;

 private:
  Level previous_;
};

}  // namespace vqe::simd
