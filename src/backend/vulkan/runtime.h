// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file The Vulkan runtime shared by every Vulkan extractor: error checks,
/// the job's memory pool, compute pipelines built from the embedded SPIR-V,
/// the ring of frame pairs on the device and the recording of one batch of
/// frames into one command buffer. Vulkan builds only (include from
/// *_vulkan.cpp files).
///
/// Frames on the device. Every frame pair of a job lives in one slot of a
/// ring (one storage buffer, `slots()` slots of `slot_words()` 32-bit words):
/// the reference's planes, then the distorted's, each row `pitch` words
/// apart, samples packed (four 8-bit or two 16-bit samples per word,
/// little-endian). Frame number `seq` (the seq-th frame submitted) is in
/// ring slot seq % slots() and its per-frame results in result slot seq %
/// result_slots(). The layout reaches the shaders as specialization
/// constants 0..18 (glsl/vqe_frames.glsl); each batch's first slots as push
/// constants, so descriptor sets never change after init().
///
/// Batches. The job records up to batch_frames() consecutive frames into two
/// command buffers: their uploads (staging or imported pictures -> ring), for
/// the upload queue (a transfer-only queue where the device has one), and
/// every extractor's dispatches (usually one dispatch covers the whole
/// batch: the workgroup grid's z is the frame) with a barrier to the host,
/// for the compute queue. Two timeline semaphores order them: a batch's
/// compute waits for its uploads; its uploads wait for the compute of the
/// batch two before (the ring holds two batches and the two frames before
/// them, the history of temporal extractors), so the uploads of batch v
/// overlap the compute of batch v − 1. A barrier at the start of each
/// compute orders it after the previous batch's.

#include <vulkan/vulkan.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "vqe/picture.h"

namespace vqe::vulkan {

/// Throws vqe::Error("Vulkan error in <call> (<file>:<line>): <VkResult>").
[[noreturn]] void throw_vk_error(VkResult result, const char* call, const char* file, int line);

/// Checks a Vulkan call; on failure throws vqe::Error naming it.
#define VQE_VK_CHECK(call)                                                     \
  do {                                                                         \
    const VkResult vqe_vk_result_ = (call);                                    \
    if (vqe_vk_result_ != VK_SUCCESS)                                          \
      ::vqe::vulkan::throw_vk_error(vqe_vk_result_, #call, __FILE__, __LINE__); \
  } while (0)

/// A buffer suballocated from the pool. `mapped` is its host address for
/// host-visible buffers (persistently mapped, coherent), else null.
struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  void* mapped = nullptr;
  template <class T>
  T* host() const {
    return static_cast<T*>(mapped);
  }
};

/// A compute pipeline made from one embedded shader: storage buffers at
/// bindings 0..buffers-1 of set 0, the common push-constant block (Push),
/// specialization constants 0..n-1.
struct Pipeline {
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  int buffers = 0;
  std::string name;
};

/// The push constants every shader declares (glsl/vqe_frames.glsl):
/// the batch's first ring slot and first result slot, the frames the
/// dispatch covers, and five words for the kernel.
struct Push {
  std::uint32_t first_slot = 0;
  std::uint32_t first_result = 0;
  std::uint32_t count = 0;
  std::uint32_t arg[5] = {0, 0, 0, 0, 0};
};

/// Frames of one extractor's work in a batch: `count` consecutive
/// submissions starting at `first_seq`, with video frame indexes
/// first_index, first_index + 1, ...
struct Run {
  std::uint64_t first_seq = 0;
  unsigned first_index = 0;
  unsigned count = 0;
};

/// Where each plane of a frame pair sits inside a ring slot (words).
struct FrameLayout {
  int planes = 1;                      ///< planes held: 1 (luma) or 3
  int bpc = 8;                         ///< 8, 10, 12 or 16
  std::array<std::uint32_t, 3> ref_offset{}, dist_offset{}, pitch{};  ///< words
  std::array<int, 3> width{}, height{};
  std::uint32_t slot_words = 0;
};

/// Per-job Vulkan state shared by all extractors of the job: instance,
/// device, queue, memory pool, pipelines, the frame ring, the staging and
/// the command buffer being recorded. Not thread-safe.
class Context {
 public:
  /// Opens device `device` (device.h's numbering). Throws vqe::Error.
  explicit Context(int device);
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkDevice device() const { return device_; }
  const VkPhysicalDeviceProperties& properties() const { return props_; }
  std::string device_name() const;

  // --- memory (init() time only; freed with the context) ------------------
  /// Device-local storage buffer of `bytes` (contents undefined).
  Buffer device_buffer(std::size_t bytes);
  /// Host-visible, coherent, mapped storage/transfer buffer of `bytes`,
  /// zeroed unless `zero` is false (results read back by the host, staging).
  Buffer host_buffer(std::size_t bytes, bool zero = true);
  /// Device-local buffer holding a copy of `bytes` at `data` (constant
  /// tables read by shaders), uploaded synchronously.
  Buffer device_table(const void* data, std::size_t bytes);
  std::size_t device_bytes() const { return pools_[0].bytes; }
  std::size_t host_bytes() const { return pools_[1].bytes; }

  // --- pipelines -----------------------------------------------------------
  /// The pipeline of embedded shader `shader` with `buffers` storage-buffer
  /// bindings and specialization constants: the frame layout's (ids 0..18,
  /// see frame_constants()) followed by `extra` at ids 24, 25, ...
  Pipeline& pipeline(std::string_view shader, int buffers,
                     std::span<const std::uint32_t> extra = {});
  /// A descriptor set for `p` binding `buffers` (whole buffers) in order.
  VkDescriptorSet descriptor_set(const Pipeline& p, std::span<const Buffer* const> buffers);
  VkDescriptorSet descriptor_set(const Pipeline& p, std::initializer_list<const Buffer*> buffers) {
    return descriptor_set(p, std::span<const Buffer* const>(buffers.begin(), buffers.size()));
  }

  // --- frames --------------------------------------------------------------
  const VideoFormat& format() const { return format_; }
  const FrameLayout& layout() const { return layout_; }
  /// The ring of frame pairs (bind it at binding 0 of frame-reading shaders).
  const Buffer& frames() const { return ring_; }
  std::uint32_t slots() const { return slots_; }
  std::uint32_t result_slots() const { return result_slots_; }
  unsigned batch_frames() const { return batch_frames_; }
  std::uint32_t slot_of(std::uint64_t seq) const { return static_cast<std::uint32_t>(seq % slots_); }
  std::uint32_t result_of(std::uint64_t seq) const {
    return static_cast<std::uint32_t>(seq % result_slots_);
  }
  /// Push constants for a dispatch over `run` (first slots, count).
  Push push_for(const Run& run) const;

  // --- recording (valid inside VulkanExtractor::record) --------------------
  /// Binds `p` with `set`, pushes `push` and dispatches a grid of
  /// gx x gy x gz workgroups.
  void dispatch(const Pipeline& p, VkDescriptorSet set, const Push& push, std::uint32_t gx,
                std::uint32_t gy, std::uint32_t gz);
  /// Orders every earlier shader write before every later shader read or
  /// write (between dependent passes).
  void barrier();

  // --- used by the job -----------------------------------------------------
  /// Sets the ring and staging for `format` (`chroma`: planes 1 and 2 too)
  /// with `batch_frames` frames per submission.
  void init(const VideoFormat& format, bool chroma, unsigned batch_frames);
  /// Prepares the upload of frame `seq`: planes of pictures imported with
  /// register_host() are copied by the device straight from them; the
  /// others are copied into the staging of frame `seq` here (the caller made
  /// sure frame seq - result_slots() is collected).
  void stage(const Picture& ref, const Picture& dist, std::uint64_t seq);
  /// Imports `picture`'s planes as device-visible host memory
  /// (VK_EXT_external_memory_host), so that their uploads skip the staging
  /// copy: the "frames in host RAM" path at PCIe speed. The picture must
  /// stay alive and unchanged until unregister_host() or the context's end.
  /// Returns false (and changes nothing) where the device cannot import.
  bool register_host(const Picture& picture);
  void unregister_host(const Picture& picture);
  /// Starts recording a batch: frames [first_seq, first_seq + count) are
  /// staged; records their uploads and the start of the batch's compute.
  void begin_batch(std::uint64_t first_seq, unsigned count);
  /// Ends and submits the batch (its uploads, then its compute); returns its
  /// timeline value.
  std::uint64_t submit_batch();
  /// Blocks until the batch with timeline value `value` has completed.
  void wait(std::uint64_t value);

  /// vkQueueSubmit calls: two per batch (its uploads, its compute).
  std::uint64_t submissions() const { return submissions_; }
  /// True when uploads run on a queue of their own (overlapping compute).
  bool separate_upload_queue() const { return upload_queue_ != queue_; }
  std::uint64_t dispatches() const { return dispatches_; }
  std::uint64_t copies() const { return copies_; }

 private:
  struct Pool {
    struct Chunk {
      VkDeviceMemory memory = VK_NULL_HANDLE;
      VkDeviceSize size = 0, used = 0;
      std::uint32_t type = 0;
      void* mapped = nullptr;
    };
    std::vector<Chunk> chunks;
    std::size_t bytes = 0;
  };
  Buffer make_buffer(std::size_t bytes, bool host, bool both_queues);
  void record_uploads(std::uint64_t first_seq, unsigned count);
  // Submits `cmd` to `queue`, waiting for timeline `wait_on` >= wait_value
  // at `wait_stage` and signalling `signal` = signal_value.
  void submit_with_timelines(VkQueue queue, VkCommandBuffer cmd, VkSemaphore wait_on,
                             std::uint64_t wait_value, VkPipelineStageFlags wait_stage,
                             VkSemaphore signal, std::uint64_t signal_value);
  // A host range imported as a transfer-source buffer.
  struct Imported {
    const std::uint8_t *begin = nullptr, *end = nullptr;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
  };
  const Imported* imported(const Plane& plane) const;
  // Where each plane of a staged frame comes from: an imported buffer
  // (offset, stride in bytes) or the frame's staging (buffer null).
  struct PlaneSource {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0, stride = 0;
  };
  std::uint32_t find_memory_type(std::uint32_t bits, VkMemoryPropertyFlags want,
                                 VkMemoryPropertyFlags avoid) const;
  std::uint32_t find_host_type(std::uint32_t bits) const;

  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkPhysicalDeviceProperties props_{};
  VkPhysicalDeviceMemoryProperties memory_props_{};
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE, upload_queue_ = VK_NULL_HANDLE;
  std::uint32_t queue_family_ = 0, upload_family_ = 0;
  VkCommandPool upload_pool_ = VK_NULL_HANDLE;
  VkSemaphore upload_timeline_ = VK_NULL_HANDLE;
  std::vector<VkCommandBuffer> upload_commands_;
  VkCommandBuffer uploading_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  std::array<Pool, 2> pools_;  // device-local, host-visible
  std::vector<VkBuffer> buffers_;
  std::deque<Pipeline> pipelines_;  // stable addresses
  std::vector<VkShaderModule> modules_;

  VideoFormat format_{};
  FrameLayout layout_{};
  Buffer ring_, staging_;
  std::uint32_t slots_ = 1, result_slots_ = 1;
  std::vector<Imported> imported_;
  std::vector<std::array<PlaneSource, 6>> sources_;  // per result slot: ref planes, dist planes
  bool can_import_ = false;
  VkDeviceSize import_alignment_ = 4096;
  PFN_vkGetMemoryHostPointerPropertiesEXT get_host_pointer_properties_ = nullptr;
  // VQE_VULKAN_PIPELINE_STATS set and VK_KHR_pipeline_executable_properties
  // present: each pipeline's compiler statistics go to stderr (a developer's
  // diagnostic: registers, shared memory, instructions, as the driver names them).
  bool pipeline_stats_ = false;
  unsigned batch_frames_ = 1;

  // Command buffers, one per batch in flight (index batch % size), with the
  // timeline value that marks each one's completion.
  std::vector<VkCommandBuffer> commands_;
  std::vector<std::uint64_t> command_value_;
  VkCommandBuffer recording_ = VK_NULL_HANDLE;
  std::uint64_t batches_ = 0;  // timeline value of the last submitted batch
  std::uint64_t submissions_ = 0, dispatches_ = 0, copies_ = 0;
};

}  // namespace vqe::vulkan
