#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF on Vulkan, scale 3 (vif_scale.glsl).
#define VIF_SCALE 3
#include "vif_scale.glsl"
