// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The SPIR-V of every Vulkan compute shader (src/**/*.comp), compiled
/// by glslc at build time and embedded in the library
/// (cmake/VulkanShaders.cmake). Vulkan builds only.

#include <cstdint>
#include <span>
#include <string_view>

namespace vqe::vulkan {

/// One shader: its name (the .comp file's stem, unique in the tree) and its
/// SPIR-V words.
struct EmbeddedShader {
  std::string_view name;
  std::span<const std::uint32_t> words;
};

/// Every embedded shader, in name order.
std::span<const EmbeddedShader> embedded_shaders();

}  // namespace vqe::vulkan
