#version 460
// SPDX-License-Identifier: BSD-2-Clause
// Integer VIF on Vulkan, scale 2 (vif_scale.glsl).
#define VIF_SCALE 2
#include "vif_scale.glsl"
