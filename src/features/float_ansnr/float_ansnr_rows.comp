#version 460
// SPDX-License-Identifier: BSD-2-Clause
// float_ansnr on Vulkan, pass 2: per row, the CPU's sequential float sums
// Σ r² and Σ (r − d)² over x (one invocation per row).
// Grid: x = 64 rows, z = frame of the run. Output: rows[z][h][2].
#include "vqe_common.glsl"

layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) readonly buffer Filtered { float filtered[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Rows { float rows[]; };

void main() {
  const int y = int(gl_GlobalInvocationID.x);
  const uint z = gl_WorkGroupID.z;
  if (y >= kHeight0) return;
  const uint n = uint(kWidth0) * uint(kHeight0);
  const uint r = z * 2u * n + uint(y) * uint(kWidth0), d = r + n;
  precise float signal = 0.0, noise = 0.0;
  for (uint x = 0u; x < uint(kWidth0); ++x) {
    const float a = filtered[r + x], b = filtered[d + x];
    signal += a * a;
    noise += (a - b) * (a - b);
  }
  rows[(z * uint(kHeight0) + uint(y)) * 2u] = signal;
  rows[(z * uint(kHeight0) + uint(y)) * 2u + 1u] = noise;
}
