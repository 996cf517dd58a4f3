// SPDX-License-Identifier: BSD-2-Clause
// Per-target (Highway) helpers: exact sums of a vector's integer lanes.
//
// Highway's SumOfLanes() maps, at AVX-512, to GCC's _mm512_reduce_add_epi32
// and _mm512_reduce_add_epi64, whose header adds the lanes as *signed*
// integers: for lanes that hold wrapping (modulo 2^32 or 2^64) partial sums,
// as the integer kernels' accumulators do, that addition can overflow, which
// is undefined behaviour (UBSan stops on it) even though the machine result
// is the wanted one. WrappingSumOfLanes stores the lanes and adds them as
// unsigned integers, so the result is the exact sum modulo 2^(8*sizeof(T))
// for every input at every level: the same value the scalar kernels define.
// It runs once per row, outside the vector loops.
//
// Include after <hwy/highway.h> inside a file compiled through
// hwy/foreach_target.h (the usual per-target include guard below).

#if defined(VQE_CORE_SIMD_SUM_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef VQE_CORE_SIMD_SUM_INL_H_
#undef VQE_CORE_SIMD_SUM_INL_H_
#else
#define VQE_CORE_SIMD_SUM_INL_H_
#endif

#include <hwy/highway.h>

#include <cstdint>
#include <type_traits>

HWY_BEFORE_NAMESPACE();
namespace vqe::simd::HWY_NAMESPACE {

/// Sum of every lane of `v` (integer lanes, signed or unsigned), modulo
/// 2^(bits of a lane), returned as the unsigned lane type. Defined for every
/// input (no signed overflow anywhere).
template <class D, class V = hwy::HWY_NAMESPACE::VFromD<D>>
HWY_INLINE hwy::MakeUnsigned<hwy::HWY_NAMESPACE::TFromD<D>> WrappingSumOfLanes(D d, V v) {
  namespace hn = hwy::HWY_NAMESPACE;
  using T = hn::TFromD<D>;
  using U = hwy::MakeUnsigned<T>;
  static_assert(std::is_integral_v<T>, "integer lanes only");
  const hn::RebindToUnsigned<D> du;
  HWY_ALIGN U lanes[hn::MaxLanes(du)];
  hn::Store(hn::BitCast(du, v), du, lanes);
  U sum = 0;
  const std::size_t n = hn::Lanes(du);
  for (std::size_t i = 0; i < n; ++i) sum = static_cast<U>(sum + lanes[i]);
  (void)d;
  return sum;
}

/// Sum of every lane of `v` (unsigned lanes of at most 32 bits) as a 64-bit
/// integer: exact for any input (no lane sum can overflow 64 bits).
template <class D, class V = hwy::HWY_NAMESPACE::VFromD<D>>
HWY_INLINE std::uint64_t WideningSumOfLanes(D d, V v) {
  namespace hn = hwy::HWY_NAMESPACE;
  using T = hn::TFromD<D>;
  static_assert(std::is_unsigned_v<T> && sizeof(T) <= 4, "unsigned lanes of <= 32 bits");
  HWY_ALIGN T lanes[hn::MaxLanes(d)];
  hn::Store(v, d, lanes);
  std::uint64_t sum = 0;
  const std::size_t n = hn::Lanes(d);
  for (std::size_t i = 0; i < n; ++i) sum += lanes[i];
  return sum;
}

}  // namespace vqe::simd::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#endif  // VQE_CORE_SIMD_SUM_INL_H_
