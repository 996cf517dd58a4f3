#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_ansnr on Vulkan, pass 3: the row sums added in row order in float
// (one invocation per frame), as the CPU. Output: result[result slot][2]
// (signal, noise) as float bits.
#include "vqe_common.glsl"

layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) readonly buffer Rows { float rows[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Result { uint result[]; };

void main() {
  const uint z = gl_WorkGroupID.z;
  precise float signal = 0.0, noise = 0.0;
  for (uint y = 0u; y < uint(kHeight0); ++y) {
    signal += rows[(z * uint(kHeight0) + y) * 2u];
    noise += rows[(z * uint(kHeight0) + y) * 2u + 1u];
  }
  result[vqe_result_slot(z) * 2u] = floatBitsToUint(signal);
  result[vqe_result_slot(z) * 2u + 1u] = floatBitsToUint(noise);
}
