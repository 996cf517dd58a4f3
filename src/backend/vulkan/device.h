// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Vulkan device discovery, available in every build (in a build
/// without the Vulkan backend every call says so and finds nothing).

#include <string>

namespace vqe::vulkan {

/// True when this build includes the Vulkan backend (libvulkan-dev, glslc
/// and spirv-cross were found at configure time).
bool compiled_in();

/// Number of Vulkan physical devices that can run VQE's shaders (Vulkan
/// 1.2 with timeline semaphores, shaderInt64 and a compute queue), in the
/// loader's order; --gpu N indexes this list. 0 when the build has no Vulkan
/// backend, no loader or driver is installed, or no device qualifies. Never
/// throws. The list is taken once per process.
int device_count();

/// Human-readable description of device `index` ("NVIDIA H200 (Vulkan
/// 1.3.277, driver NVIDIA 570.1, discrete GPU)"), or why it is unavailable.
std::string describe_device(int index);

/// True when device `index` is a CPU implementation (Mesa's lavapipe):
/// correct but slow, so tests cap their work on it and `--backend auto`
/// does not choose it.
bool device_is_software(int index);

/// Why device_count() is 0 ("no Vulkan loader", "no device with shaderInt64
/// and timeline semaphores: llvmpipe lacks ..."); "" when devices exist.
std::string why_no_device();

}  // namespace vqe::vulkan
