// SPDX-License-Identifier: BSD-2-Clause
// Built instead of the Vulkan runtime when the build has no Vulkan backend.
#include "backend/vulkan/backend.h"
#include "backend/vulkan/device.h"
#include "vqe/error.h"

namespace vqe::vulkan {

bool compiled_in() { return false; }
int device_count() { return 0; }
std::string describe_device(int) { return "unavailable: VQE was built without Vulkan"; }
bool device_is_software(int) { return false; }
std::string why_no_device() { return "VQE was built without Vulkan"; }

std::unique_ptr<GpuJob> make_vulkan_job(int, unsigned) {
  throw Error("--backend vulkan: this build has no Vulkan backend (configure with libvulkan-dev, "
              "glslc and spirv-cross installed and VQE_ENABLE_VULKAN=ON)");
}

VulkanBenchHooks& bench_hooks(GpuJob&) { throw Error("this build has no Vulkan backend"); }

}  // namespace vqe::vulkan
