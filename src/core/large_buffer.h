// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Memory for large buffers (pictures, whole-frame planes of the
/// kernels) in mappings of their own that start on a 2 MiB boundary, with
/// transparent huge pages asked for: the whole 2 MiB pages inside a block
/// then take one page fault and TLB entry each instead of 512; the tail
/// stays in ordinary pages, so a block costs no more memory than its size.
/// Successive blocks start at different small offsets, so that rows of two
/// pictures do not fall in the same cache sets. Measured (docs/benchmarks.md,
/// "Huge pages and reads straight into the frames", variant 3): 1080p VMAF
/// jobs about 4-7 % faster on this project's 2-core virtual machine, where
/// page faults are dear (not measured on the H200 host's Xeon; a variant
/// that rounded blocks up to whole huge pages was 5-14 % faster there).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace vqe {

#if defined(__SANITIZE_ADDRESS__)
#define VQE_LARGE_BUFFER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VQE_LARGE_BUFFER_ASAN 1
#endif
#endif

/// Whether large blocks are mapped in huge pages: not under AddressSanitizer,
/// which watches heap blocks (their overruns) but not mappings.
#ifdef VQE_LARGE_BUFFER_ASAN
inline constexpr bool kLargeBlocksMapped = false;
#else
inline constexpr bool kLargeBlocksMapped = true;
#endif

/// The huge page size this file maps in (x86-64 and Arm64 Linux).
inline constexpr std::size_t kHugePageBytes = std::size_t{2} << 20;
/// Blocks of at least this many bytes go to map_large() (where
/// kLargeBlocksMapped): 1080p pictures and the 16-bit half-size planes of
/// the VIF and ADM kernels at 1080p (1.04 MB) are (blocks under 2 MiB get
/// no huge page, only their offset).
inline constexpr std::size_t kLargeBlockBytes = std::size_t{768} << 10;

/// Whether a block of `bytes` bytes goes to map_large() (else to the heap).
constexpr bool maps_large(std::size_t bytes) {
  return kLargeBlocksMapped && bytes >= kLargeBlockBytes;
}

/// Room a mapping keeps before its block (the block's offset, which differs
/// from one block to the next so that blocks do not share cache sets).
inline constexpr std::size_t kLargeBlockSlack = std::size_t{64} << 10;

/// Bytes map_large() maps for a block of `bytes` bytes: the block and the
/// room before it, in whole 4 KiB pages.
constexpr std::size_t large_mapping_bytes(std::size_t bytes) {
  return (bytes + kLargeBlockSlack + 4095) / 4096 * 4096;
}

/// Zeroed memory of at least `bytes` bytes, 64-byte aligned, in a mapping of
/// its own that starts on a 2 MiB boundary (`mapped` receives its size,
/// large_mapping_bytes(bytes), which unmap_large() needs), with transparent
/// huge pages asked for (madvise; only advice: where the system has none,
/// ordinary pages). Null when the system refuses the mapping (out of
/// memory). Thread-safe.
std::uint8_t* map_large(std::size_t bytes, std::size_t& mapped);
/// Returns a block of map_large() (`mapped` as it said).
void unmap_large(void* block, std::size_t mapped) noexcept;

/// A std::allocator whose blocks come from map_large() where maps_large()
/// says so, others from operator new. Every block comes zeroed, and
/// elements constructed without a value are default-initialised (for the
/// trivial types these vectors hold: not written), so that growing an empty
/// vector with resize() gives zeros without touching its pages (see
/// assign_zeros()). Stateless; throws std::bad_alloc when memory runs out.
template <class T>
struct LargeAllocator {
  using value_type = T;
  LargeAllocator() = default;
  template <class U>
  LargeAllocator(const LargeAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    const std::size_t bytes = n * sizeof(T);
    if (!maps_large(bytes)) {
      T* p = std::allocator<T>().allocate(n);
      std::memset(static_cast<void*>(p), 0, bytes);
      return p;
    }
    std::size_t mapped = 0;
    if (std::uint8_t* p = map_large(bytes, mapped)) return reinterpret_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, std::size_t n) noexcept {
    const std::size_t bytes = n * sizeof(T);
    if (!maps_large(bytes)) return std::allocator<T>().deallocate(p, n);
    unmap_large(p, large_mapping_bytes(bytes));
  }
  /// Default-initialises (a trivial U: the block's zero stays, unwritten).
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  bool operator==(const LargeAllocator<U>&) const noexcept {
    return true;
  }
};

/// A vector whose storage, when large, is in huge pages (LargeAllocator).
template <class T>
using LargeVector = std::vector<T, LargeAllocator<T>>;

/// Sets `v` to `n` zeros (as v.assign(n, 0)). A vector without storage yet
/// gets a fresh zeroed block and nothing is written, so pages of it that are
/// never used are never touched (no page fault, no memory). T: trivial.
template <class T>
void assign_zeros(LargeVector<T>& v, std::size_t n) {
  static_assert(std::is_trivial_v<T>);
  if (v.capacity() == 0) {
    v.resize(n);
  } else {
    v.assign(n, T{});
  }
}

}  // namespace vqe
