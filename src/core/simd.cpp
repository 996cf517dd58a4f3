// SPDX-License-Identifier: BSD-2-Clause
#include "core/simd.h"

#include <atomic>

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
constexpr std::int64_t kAvx2Targets = HWY_AVX2;
constexpr std::int64_t kSse4Targets = HWY_SSE4;

// Highway targets that this build compiled and this CPU runs.
std::int64_t compiled_and_supported() {
  static const std::int64_t targets = [] {
    hwy::DisableTargets(0);
    return hwy::SupportedTargets() & HWY_TARGETS;
  }();
  return targets;
}

Level detect() {
  const std::int64_t t = compiled_and_supported();
  if (t & kAvx512Targets) return Level::avx512;
  if (t & kAvx2Targets) return Level::avx2;
  if (t & kSse4Targets) return Level::sse4;
  return Level::scalar;
}

std::atomic<Level>& current() {
  static std::atomic<Level> level{detect()};
  return level;
}

}  // namespace

Level max_level() {
  static const Level level = detect();
  return level;
}

Level active_level() { return current().load(std::memory_order_relaxed); }

bool use_simd() { return active_level() != Level::scalar; }

void set_level(Level level) {
  if (level > max_level())
    throw Error(fmt::format("CPU level {} is not supported here (highest: {})", level_name(level),
                            level_name(max_level())));
  std::int64_t disabled = 0;
  if (level < Level::avx512) disabled |= kAvx512Targets;
  if (level < Level::avx2) disabled |= kAvx2Targets;
  // At the scalar level the SIMD kernels are not called at all.
  hwy::DisableTargets(disabled);
  current().store(level, std::memory_order_relaxed);
}

const char* level_name(Level level) {
  switch (level) {
    case Level::scalar: return "scalar";
    case Level::sse4: return "sse4";
    case Level::avx2: return "avx2";
    case Level::avx512: return "avx512";
  }
  return "?";
}

std::optional<Level> parse_level(std::string_view name) {
  for (Level l : {Level::scalar, Level::sse4, Level::avx2, Level::avx512})
    if (name == level_name(l)) return l;
  return std::nullopt;
}

std::vector<Level> available_levels() {
  std::vector<Level> levels;
  for (Level l : {Level::scalar, Level::sse4, Level::avx2, Level::avx512})
    if (l <= max_level()) levels.push_back(l);
  return levels;
}

Level level_from_cpumask(std::uint64_t mask) {
  Level level = Level::scalar;
  if (!(mask & (1u << 2))) level = Level::sse4;
  if (!(mask & (1u << 2)) && !(mask & (1u << 3))) level = Level::avx2;
  if (!(mask & (1u << 2)) && !(mask & (1u << 3)) && !(mask & (1u << 4))) level = Level::avx512;
  return level < max_level() ? level : max_level();
}

}  // namespace vqe::simd
