// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Host side of the exact workgroup sums of glsl/vqe_reduce.glsl:
/// per result slot, `sets` x `groups` workgroups each store `k` uint64 sums
/// as lo/hi uint32 pairs; sum() rebuilds each uint64 and adds the groups in
/// uint64 in group order. Vulkan builds only.

#include <cstdint>

#include "backend/vulkan/runtime.h"

namespace vqe::vulkan {

/// Workgroups used by a row-strided plane reduction over `height` rows
/// (group g takes rows g, g + groups, ...): at most 512.
inline std::uint32_t reduce_groups(int height) {
  return static_cast<std::uint32_t>(height < 512 ? (height < 1 ? 1 : height) : 512);
}

/// Host-visible partials of one extractor, [result slot][set][group][k][2].
struct GroupSums {
  Buffer buffer;
  std::uint32_t sets = 1, groups = 1, k = 1;

  void create(Context& ctx, std::uint32_t sets_, std::uint32_t groups_, std::uint32_t k_) {
    sets = sets_;
    groups = groups_;
    k = k_;
    buffer = ctx.host_buffer(static_cast<std::size_t>(ctx.result_slots()) * words_per_slot() * 4);
  }
  std::uint32_t words_per_slot() const { return sets * groups * k * 2; }

  /// Σ over the groups of value `value` of set `set` in result slot `slot`
  /// (groups [first, first + count) only, when given), in uint64 (a signed
  /// sum is the same bits read as int64).
  std::uint64_t sum(std::uint32_t slot, std::uint32_t set, std::uint32_t value,
                    std::uint32_t first = 0, std::uint32_t count = UINT32_MAX) const {
    const std::uint32_t* p = buffer.host<const std::uint32_t>() +
                             static_cast<std::size_t>(slot) * words_per_slot() +
                             static_cast<std::size_t>(set) * groups * k * 2;
    std::uint64_t total = 0;
    const std::uint32_t end = count == UINT32_MAX ? groups : first + count;
    for (std::uint32_t g = first; g < end; ++g) {
      const std::uint32_t* v = p + (static_cast<std::size_t>(g) * k + value) * 2;
      total += static_cast<std::uint64_t>(v[0]) | (static_cast<std::uint64_t>(v[1]) << 32);
    }
    return total;
  }
};

/// A one-dispatch exact reduction over the frame ring: shader `name` (binds
/// the ring at 0 and the partials at 1, specialization constant 24 = the
/// groups) sums `k` values per workgroup over `sets` sets (grid y, e.g.
/// planes) of every frame of a run (grid z). psnr, float_moment and
/// float_psnr use it.
class RingReduction {
 public:
  void create(Context& ctx, const char* shader, std::uint32_t sets, std::uint32_t k) {
    ctx_ = &ctx;
    const std::uint32_t groups = reduce_groups(ctx.format().height);
    sums_.create(ctx, sets, groups, k);
    const std::uint32_t spec[] = {groups};
    pipeline_ = &ctx.pipeline(shader, 2, spec);
    set_ = ctx.descriptor_set(*pipeline_, {&ctx.frames(), &sums_.buffer});
  }
  /// Records the dispatch over `run`, for the first `sets` sets.
  void record(const Run& run, std::uint32_t sets = 1) const {
    ctx_->dispatch(*pipeline_, set_, ctx_->push_for(run), sums_.groups, sets, run.count);
  }
  /// Value `value` of set `set` for submission `seq` (its batch completed).
  std::uint64_t sum(std::uint64_t seq, std::uint32_t set, std::uint32_t value) const {
    return sums_.sum(ctx_->result_of(seq), set, value);
  }

 private:
  Context* ctx_ = nullptr;
  GroupSums sums_;
  const Pipeline* pipeline_ = nullptr;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
};

}  // namespace vqe::vulkan
