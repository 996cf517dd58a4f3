// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The Vulkan backend as seen from plain C++ (the job, the tests, the
/// benchmark): a GpuJob that runs the Vulkan computes of a job's extractors
/// (ExtractorInfo::make_vulkan), and its benchmark aids. Available in every
/// build; without the Vulkan backend make_vulkan_job() throws.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/extractor.h"
#include "core/gpu_job.h"

namespace vqe::vulkan {

/// True when extractor `name` has a Vulkan compute in this build.
inline bool has_vulkan_extractor(const std::string& name) {
  const ExtractorInfo* info = find_extractor(name);
  return info != nullptr && info->make_vulkan != nullptr;
}

/// What a Vulkan job did so far (counted on the host while recording).
struct JobStats {
  std::uint64_t frames = 0;       ///< frame pairs submitted
  std::uint64_t submissions = 0;  ///< vkQueueSubmit calls: 2 per batch (uploads, compute)
  std::uint64_t dispatches = 0;   ///< vkCmdDispatch calls recorded
  std::uint64_t copies = 0;       ///< vkCmdCopyBuffer calls recorded (uploads)
  unsigned batch_frames = 0;      ///< frames per batch
  bool upload_queue = false;      ///< uploads on a queue of their own
};

/// Benchmark and test aids of a Vulkan job (kept out of GpuJob).
class VulkanBenchHooks {
 public:
  virtual ~VulkanBenchHooks() = default;
  /// Frames recorded into one command buffer and submitted together
  /// (default 16; 1 submits every frame on its own). Call before init().
  /// Results are identical for every value.
  virtual void set_batch_frames(unsigned frames) = 0;
  virtual JobStats stats() const = 0;
};

/// The benchmark aids of `job`, which must come from make_vulkan_job().
VulkanBenchHooks& bench_hooks(GpuJob& job);

/// A job on Vulkan device `device` (0-based, as device_count() lists them)
/// scoring every `subsample`-th frame with non-temporal extractors. Throws
/// vqe::Error when the build has no Vulkan backend, the device does not
/// exist, or a Vulkan call fails.
std::unique_ptr<GpuJob> make_vulkan_job(int device, unsigned subsample);

}  // namespace vqe::vulkan
