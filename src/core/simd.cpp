// SPDX-License-Identifier: BSD-2-Clause
#include "core/simd.h"

#include "vqe/cpu.h"

#include <algorithm>
#include <cstring>
#include <iterator>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <fmt/format.h>
#include <hwy/targets.h>

#include "vqe/error.h"

namespace vqe::simd {
namespace {

constexpr std::int64_t kAvx512Targets = HWY_AVX3 | HWY_AVX3_DL
#ifdef HWY_AVX3_ZEN4
                                        | HWY_AVX3_ZEN4
#endif
#ifdef HWY_AVX3_SPR
                                        | HWY_AVX3_SPR
#endif
    ;

// Every level of any architecture, for names.
constexpr Level kAllLevels[] = {Level::scalar, Level::sse4, Level::avx2, Level::avx512,
                                Level::neon};

// The levels of this build's architecture, lowest first.
#if HWY_ARCH_X86
constexpr Level kArchLevels[] = {Level::scalar, Level::sse4, Level::avx2, Level::avx512};
#elif HWY_ARCH_ARM_A64
constexpr Level kArchLevels[] = {Level::scalar, Level::neon};
#else
constexpr Level kArchLevels[] = {Level::scalar};
#endif

// The Highway targets that implement `level` (none for scalar).
constexpr std::int64_t targets_of(Level level) {
  switch (level) {
    case Level::scalar: return 0;
    case Level::sse4: return HWY_SSE4;
    case Level::avx2: return HWY_AVX2;
    case Level::avx512: return kAvx512Targets;
    case Level::neon: return HWY_NEON;
  }
  return 0;
}

// Position of `level` in kArchLevels, or -1 if it is another architecture's.
int arch_index(Level level) {
  const auto* it = std::find(std::begin(kArchLevels), std::end(kArchLevels), level);
  return it == std::end(kArchLevels) ? -1 : static_cast<int>(it - std::begin(kArchLevels));
}

// Highway targets that this build compiled and this CPU runs. (Only read:
// Highway's process-wide target mask is never changed here.)
std::int64_t compiled_and_supported() {
  static const std::int64_t targets = hwy::SupportedTargets() & HWY_TARGETS;
  return targets;
}

Level detect() {
  const std::int64_t t = compiled_and_supported();
  for (auto it = std::rbegin(kArchLevels); it != std::rend(kArchLevels); ++it)
    if (t & targets_of(*it)) return *it;
  return Level::scalar;
}

}  // namespace

Level max_level() {
  static const Level level = detect();
  return level;
}

bool is_available(Level level) {
  const int i = arch_index(level);
  return i >= 0 && i <= arch_index(max_level());
}

void missing_kernel(Level level) {
  throw Error(fmt::format("internal: no {} kernel in this build (highest level here: {})",
                          level_name(level), level_name(max_level())));
}

const char* level_name(Level level) {
  switch (level) {
    case Level::scalar: return "scalar";
    case Level::sse4: return "sse4";
    case Level::avx2: return "avx2";
    case Level::avx512: return "avx512";
    case Level::neon: return "neon";
  }
  return "?";
}

std::optional<Level> parse_level(std::string_view name) {
  for (Level l : kAllLevels)
    if (name == level_name(l)) return l;
  return std::nullopt;
}

std::vector<Level> available_levels() {
  std::vector<Level> levels;
  for (Level l : kArchLevels)
    if (is_available(l)) levels.push_back(l);
  return levels;
}

Level level_from_cpumask(std::uint64_t mask) {
#if HWY_ARCH_ARM_A64
  // libvmaf's VMAF_ARM_CPU_FLAG_NEON.
  return (mask & 1u) ? Level::scalar : max_level();
#else
  Level level = Level::scalar;
  if (!(mask & (1u << 2))) level = Level::sse4;
  if (!(mask & (1u << 2)) && !(mask & (1u << 3))) level = Level::avx2;
  if (!(mask & (1u << 2)) && !(mask & (1u << 3)) && !(mask & (1u << 4))) level = Level::avx512;
  return level < max_level() ? level : max_level();
#endif
}

bool slow_gathers() {
  static const bool slow = [] {
#if defined(__x86_64__) || defined(__i386__)
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
    char vendor[12];
    std::memcpy(vendor, &ebx, 4);
    std::memcpy(vendor + 4, &edx, 4);
    std::memcpy(vendor + 8, &ecx, 4);
    return std::memcmp(vendor, "AuthenticAMD", 12) == 0;
#else
    return false;
#endif
  }();
  return slow;
}

}  // namespace vqe::simd
