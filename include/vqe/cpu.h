// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file CPU instruction-set levels: which SIMD kernels a job may use.
///
/// Every metric has a scalar reference path; the hot loops also have SIMD
/// kernels (Google Highway) for SSE4, AVX2 and AVX-512 on x86 and NEON on
/// 64-bit Arm, all bit-identical to the scalar path. A job picks its level
/// (JobConfig::cpu_level, the CLI's --cpu-level and --cpumask); the choice
/// belongs to that job alone: nothing process-wide changes (Highway's own
/// global target mask is never touched), so two jobs with different levels
/// can run at the same time in one process. All functions are thread-safe.

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace vqe::simd {

/// Instruction-set levels. A build has the levels of its architecture only
/// (scalar plus x86's or AArch64's, see available_levels()); within one
/// architecture a later enumerator is a higher level. Levels of different
/// architectures do not compare meaningfully: use is_available().
enum class Level : std::uint8_t {
  scalar,  ///< plain C++ reference kernels, no SIMD
  sse4,    ///< x86: Highway HWY_SSE4 (SSE4.1/4.2 + CLMUL/AES)
  avx2,    ///< x86: Highway HWY_AVX2 (AVX2 + FMA + BMI2)
  avx512,  ///< x86: Highway HWY_AVX3 (AVX-512 F/BW/DQ/VL)
  neon,    ///< AArch64: Highway HWY_NEON (Advanced SIMD + AES); the SVE
           ///< targets are not built (see CMakeLists.txt)
};

/// The highest level this CPU and build support.
Level max_level();
/// True if this CPU and build support `level` (it is in available_levels()).
bool is_available(Level level);
/// "scalar", "sse4", "avx2", "avx512" or "neon".
const char* level_name(Level level);
/// Parses a level name as printed by level_name(), of any architecture;
/// nullopt if unknown.
std::optional<Level> parse_level(std::string_view name);
/// Every level this CPU and build support, scalar first, lowest to highest.
std::vector<Level> available_levels();
/// The level libvmaf would use under `--cpumask mask`: bits set in the mask
/// disable instruction sets. x86 (libvmaf's VMAF_X86_CPU_FLAG_*): 1 SSE2,
/// 2 SSSE3, 4 SSE4.1, 8 AVX2, 16 AVX-512, 32 AVX-512 ICL. AArch64 (libvmaf's
/// VMAF_ARM_CPU_FLAG_NEON): 1 NEON, which disables every SIMD level; other
/// bits are ignored. Capped at max_level().
Level level_from_cpumask(std::uint64_t mask);

}  // namespace vqe::simd
