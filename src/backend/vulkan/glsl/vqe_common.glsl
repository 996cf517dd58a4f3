// SPDX-License-Identifier: BSD-2-Clause
// Common declarations of every VQE compute shader: 64-bit integer
// arithmetic (never atomics), the frame ring's layout as specialization
// constants (backend/vulkan/runtime.h, Context::pipeline) and the push
// constants of a dispatch (Push).
//
// The Metal subset (docs/vulkan.md): no 64-bit atomics, no double, at most
// 32 KiB of shared memory and 1024 invocations per workgroup, nothing that
// depends on the subgroup size. tests/gpu/test_metal_subset.cpp checks the
// SPIR-V's MSL translation.
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_control_flow_attributes : require  // [[unroll]]

layout(constant_id = 0) const uint kSlots = 1u;       // ring slots
layout(constant_id = 1) const uint kSlotWords = 0u;   // words per slot
layout(constant_id = 2) const int kBpc = 8;           // 8, 10, 12, 16
layout(constant_id = 3) const uint kRefOffset0 = 0u;  // plane offsets in a slot (words)
layout(constant_id = 4) const uint kRefOffset1 = 0u;
layout(constant_id = 5) const uint kRefOffset2 = 0u;
layout(constant_id = 6) const uint kDistOffset0 = 0u;
layout(constant_id = 7) const uint kDistOffset1 = 0u;
layout(constant_id = 8) const uint kDistOffset2 = 0u;
layout(constant_id = 9) const uint kPitch0 = 0u;  // row pitch (words)
layout(constant_id = 10) const uint kPitch1 = 0u;
layout(constant_id = 11) const uint kPitch2 = 0u;
layout(constant_id = 12) const int kWidth0 = 1;
layout(constant_id = 13) const int kWidth1 = 1;
layout(constant_id = 14) const int kWidth2 = 1;
layout(constant_id = 15) const int kHeight0 = 1;
layout(constant_id = 16) const int kHeight1 = 1;
layout(constant_id = 17) const int kHeight2 = 1;
layout(constant_id = 18) const uint kResultSlots = 1u;  // per-frame result slots

layout(push_constant) uniform VqePush {
  uint first_slot;    // ring slot of the dispatch's frame z = 0
  uint first_result;  // result slot of frame z = 0
  uint count;         // frames covered (z)
  uint arg[5];        // the kernel's own
} pc;

uint vqe_ring_slot(uint z) { return (pc.first_slot + z) % kSlots; }
uint vqe_result_slot(uint z) { return (pc.first_result + z) % kResultSlots; }
uint vqe_ref_offset(int p) { return p == 0 ? kRefOffset0 : p == 1 ? kRefOffset1 : kRefOffset2; }
uint vqe_dist_offset(int p) { return p == 0 ? kDistOffset0 : p == 1 ? kDistOffset1 : kDistOffset2; }
uint vqe_pitch(int p) { return p == 0 ? kPitch0 : p == 1 ? kPitch1 : kPitch2; }
int vqe_width(int p) { return p == 0 ? kWidth0 : p == 1 ? kWidth1 : kWidth2; }
int vqe_height(int p) { return p == 0 ? kHeight0 : p == 1 ? kHeight1 : kHeight2; }

// Where plane `p` of ring slot `slot` starts (words): reference or distorted.
uint vqe_ref_plane(uint slot, int p) { return slot * kSlotWords + vqe_ref_offset(p); }
uint vqe_dist_plane(uint slot, int p) { return slot * kSlotWords + vqe_dist_offset(p); }
