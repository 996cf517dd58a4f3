// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Helpers of the Vulkan shader self-tests (test_softdouble.cpp,
/// test_float_exact.cpp, test_vif_num.cpp): a context with no frames, and one
/// dispatch of a self-test shader over n cases. Vulkan builds only.

#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "backend/vulkan/runtime.h"
#include "vqe/picture.h"

namespace vqe::test::vulkan {

/// Prepares `ctx` for self-test dispatches: a 16 x 16 8-bit frame layout,
/// one frame per batch (the shaders read no frames).
inline void init_selftest_context(vqe::vulkan::Context& ctx) {
  VideoFormat f;
  f.width = f.height = 16;
  ctx.init(f, false, 1);
}

/// Runs `p` once over `n` cases (workgroups of 64 invocations) with
/// `buffers` bound in order, push argument 0 = n and `args` as arguments
/// 1, 2, ...; returns when the device has finished.
inline void run_selftest(vqe::vulkan::Context& ctx, const vqe::vulkan::Pipeline& p,
                         std::initializer_list<const vqe::vulkan::Buffer*> buffers, std::size_t n,
                         std::initializer_list<std::uint32_t> args = {}) {
  const VkDescriptorSet set = ctx.descriptor_set(p, buffers);
  ctx.begin_batch(0, 0);
  vqe::vulkan::Push push;
  push.arg[0] = static_cast<std::uint32_t>(n);
  int k = 1;
  for (std::uint32_t a : args) push.arg[k++] = a;
  ctx.dispatch(p, set, push, static_cast<std::uint32_t>((n + 63) / 64), 1, 1);
  ctx.wait(ctx.submit_batch());
}

}  // namespace vqe::test::vulkan
