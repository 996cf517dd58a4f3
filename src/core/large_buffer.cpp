// SPDX-License-Identifier: BSD-2-Clause
#include "core/large_buffer.h"

#include <sys/mman.h>

#include <atomic>

namespace vqe {

namespace {
// Successive blocks start at different offsets into their mappings (one of
// 15 steps of 4 KiB + 64 bytes): blocks that all began 2 MiB-aligned would
// put the same rows of two pictures in the same cache sets.
std::atomic<unsigned> g_colour{0};
constexpr std::size_t kColourStep = 4096 + 64;
constexpr unsigned kColours = 15;
static_assert(kColours * kColourStep <= kLargeBlockSlack, "slack holds every offset");
}  // namespace

std::uint8_t* map_large(std::size_t bytes, std::size_t& mapped) {
  if (bytes > SIZE_MAX - 3 * kHugePageBytes) return nullptr;
  mapped = large_mapping_bytes(bytes);
  // One huge page more than needed, then the unaligned head and the tail
  // given back: the kernel backs only aligned 2 MiB ranges with huge pages
  // (the block's last, partial one stays in ordinary pages).
  const std::size_t span = mapped + kHugePageBytes;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) ::munmap(raw, aligned - start);
  const std::uintptr_t end = start + span;
  if (end > aligned + mapped)
    ::munmap(reinterpret_cast<void*>(aligned + mapped), end - aligned - mapped);
  auto* base = reinterpret_cast<std::uint8_t*>(aligned);
#ifdef MADV_HUGEPAGE
  ::madvise(base, mapped, MADV_HUGEPAGE);
#endif
  const unsigned colour = g_colour.fetch_add(1, std::memory_order_relaxed) % kColours;
  return base + colour * kColourStep;
}

void unmap_large(void* block, std::size_t mapped) noexcept {
  if (!block) return;
  // The mapping starts at the 2 MiB boundary below the block (its offset is
  // below kLargeBlockSlack).
  const auto at = reinterpret_cast<std::uintptr_t>(block);
  ::munmap(reinterpret_cast<void*>(at / kHugePageBytes * kHugePageBytes), mapped);
}

}  // namespace vqe
