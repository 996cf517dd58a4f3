#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF on Vulkan, scale 0 (vif_scale.glsl).
#define VIF_SCALE 0
#include "vif_scale.glsl"
