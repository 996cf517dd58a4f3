// SPDX-License-Identifier: BSD-2-Clause
// The Vulkan runtime: device discovery, the per-job Context (device, queue,
// memory pool, pipelines from the embedded SPIR-V, frame ring, staging,
// batches of frames recorded into one command buffer and signalled on a
// timeline semaphore).

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/vulkan/device.h"
#include "backend/vulkan/runtime.h"
#include "backend/vulkan/shaders.h"
#include "vqe/error.h"

namespace vqe::vulkan {

namespace {

// A zeroed Vulkan structure of type `type`.
template <class T>
T vk_struct(VkStructureType type) {
  T v{};
  v.sType = type;
  return v;
}

const char* result_name(VkResult r) {
  switch (r) {
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    default: return "VkResult";
  }
}

// A Vulkan list read in the API's two calls (count, then items), each item
// starting as `init`; empty where either call fails.
template <class T, class Query>
std::vector<T> vk_list(const T& init, Query query) {
  std::uint32_t n = 0;
  if (query(&n, static_cast<T*>(nullptr)) != VK_SUCCESS) return {};
  std::vector<T> items(n, init);
  if (query(&n, items.data()) != VK_SUCCESS) return {};
  items.resize(n);
  return items;
}

// The driver's statistics of `pipeline`'s executables, one line each on
// stderr (VQE_VULKAN_PIPELINE_STATS; the extension enabled at device creation).
void print_pipeline_stats(VkDevice device, VkPipeline pipeline, const std::string& name) {
  const auto props_fn = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
  const auto stats_fn = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
  if (props_fn == nullptr || stats_fn == nullptr) return;
  auto pinfo = vk_struct<VkPipelineInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR);
  pinfo.pipeline = pipeline;
  const auto execs = vk_list(
      vk_struct<VkPipelineExecutablePropertiesKHR>(
          VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR),
      [&](std::uint32_t* n, VkPipelineExecutablePropertiesKHR* out) {
        return props_fn(device, &pinfo, n, out);
      });
  for (std::uint32_t e = 0; e < execs.size(); ++e) {
    auto einfo = vk_struct<VkPipelineExecutableInfoKHR>(VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR);
    einfo.pipeline = pipeline;
    einfo.executableIndex = e;
    const auto stats = vk_list(
        vk_struct<VkPipelineExecutableStatisticKHR>(
            VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR),
        [&](std::uint32_t* n, VkPipelineExecutableStatisticKHR* out) {
          return stats_fn(device, &einfo, n, out);
        });
    std::string line = fmt::format("vqe: Vulkan pipeline {} [{}]:", name, execs[e].name);
    for (const auto& st : stats) {
      switch (st.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
          line += fmt::format(" {}={}", st.name, st.value.b32 ? "true" : "false");
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
          line += fmt::format(" {}={}", st.name, st.value.i64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
          line += fmt::format(" {}={}", st.name, st.value.u64);
          break;
        default:
          line += fmt::format(" {}={}", st.name, st.value.f64);
      }
    }
    std::fprintf(stderr, "%s\n", line.c_str());
  }
}

// An instance for Vulkan 1.2, with portability enumeration when the loader
// offers it (MoltenVK on Apple systems lists its devices only then).
VkResult create_instance(VkInstance* instance) {
  auto app = vk_struct<VkApplicationInfo>(VK_STRUCTURE_TYPE_APPLICATION_INFO);
  app.pApplicationName = "vqe";
  app.pEngineName = "vqe";
  app.apiVersion = VK_API_VERSION_1_2;
  std::vector<const char*> extensions;
  VkInstanceCreateFlags flags = 0;
  const auto props = vk_list(VkExtensionProperties{}, [](std::uint32_t* n, VkExtensionProperties* out) {
    return vkEnumerateInstanceExtensionProperties(nullptr, n, out);
  });
  for (const auto& p : props)
    if (std::strcmp(p.extensionName, "VK_KHR_portability_enumeration") == 0) {
      extensions.push_back("VK_KHR_portability_enumeration");
      flags |= 0x00000001;  // VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR
    }
  auto info = vk_struct<VkInstanceCreateInfo>(VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO);
  info.flags = flags;
  info.pApplicationInfo = &app;
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  return vkCreateInstance(&info, nullptr, instance);
}

// Why `dev` cannot run VQE's shaders, or "" when it can; sets `family` to a
// queue family with compute.
std::string unsuitable(VkPhysicalDevice dev, std::uint32_t* family) {
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(dev, &props);
  if (props.apiVersion < VK_API_VERSION_1_2) return "Vulkan 1.2 needed";
  auto f12 = vk_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  auto f = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  f.pNext = &f12;
  vkGetPhysicalDeviceFeatures2(dev, &f);
  if (!f.features.shaderInt64) return "no shaderInt64";
  if (!f12.timelineSemaphore) return "no timeline semaphores";
  if (props.limits.maxComputeWorkGroupInvocations < 256) return "fewer than 256 invocations";
  if (props.limits.maxComputeSharedMemorySize < 16384) return "less than 16 KiB shared memory";
  std::uint32_t n = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &n, nullptr);
  std::vector<VkQueueFamilyProperties> q(n);
  vkGetPhysicalDeviceQueueFamilyProperties(dev, &n, q.data());
  for (std::uint32_t i = 0; i < n; ++i)
    if (q[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      *family = i;
      return "";
    }
  return "no compute queue";
}

// The usable devices of `instance`, in the loader's order.
std::vector<VkPhysicalDevice> usable_devices(VkInstance instance, std::string* why) {
  std::uint32_t n = 0;
  if (vkEnumeratePhysicalDevices(instance, &n, nullptr) != VK_SUCCESS) {
    if (why) *why = "vkEnumeratePhysicalDevices failed";
    return {};
  }
  std::vector<VkPhysicalDevice> all(n), out;
  vkEnumeratePhysicalDevices(instance, &n, all.data());
  std::string reasons;
  for (VkPhysicalDevice d : all) {
    std::uint32_t family = 0;
    const std::string bad = unsuitable(d, &family);
    if (bad.empty()) {
      out.push_back(d);
    } else {
      VkPhysicalDeviceProperties props{};
      vkGetPhysicalDeviceProperties(d, &props);
      reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", props.deviceName, bad);
    }
  }
  if (why) *why = all.empty() ? "no Vulkan driver (ICD) lists a device" : reasons;
  return out;
}

const char* device_type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU (software)";
    default: return "other";
  }
}

std::string describe(VkPhysicalDevice d) {
  auto driver = vk_struct<VkPhysicalDeviceDriverProperties>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES);
  auto p = vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
  p.pNext = &driver;
  vkGetPhysicalDeviceProperties2(d, &p);
  const std::uint32_t v = p.properties.apiVersion;
  return fmt::format("{} (Vulkan {}.{}.{}, driver {} {}, {})", p.properties.deviceName,
                     VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v),
                     driver.driverName, driver.driverInfo, device_type_name(p.properties.deviceType));
}

// The process-wide instance and device list, made once (the loader loads
// the drivers once per process; every job's Context opens its own VkDevice
// from it). Never destroyed: the drivers stay loaded until the process ends.
struct DeviceList {
  VkInstance instance = VK_NULL_HANDLE;
  std::vector<VkPhysicalDevice> devices;
  std::vector<std::string> descriptions;
  std::vector<bool> software;
  std::string why_none;
};

const DeviceList& device_list() {
  static const DeviceList list = [] {
    DeviceList l;
    const VkResult r = create_instance(&l.instance);
    if (r != VK_SUCCESS) {
      l.instance = VK_NULL_HANDLE;
      l.why_none = fmt::format("no Vulkan loader or driver: vkCreateInstance gave {}",
                               result_name(r));
      return l;
    }
    std::string why;
    l.devices = usable_devices(l.instance, &why);
    for (VkPhysicalDevice d : l.devices) {
      VkPhysicalDeviceProperties props{};
      vkGetPhysicalDeviceProperties(d, &props);
      l.descriptions.push_back(describe(d));
      l.software.push_back(props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU);
    }
    if (l.devices.empty()) l.why_none = why;
    return l;
  }();
  return list;
}

}  // namespace

void throw_vk_error(VkResult result, const char* call, const char* file, int line) {
  const char* base = std::strrchr(file, '/');
  throw Error(fmt::format("Vulkan error in {} ({}:{}): {} ({})", call, base ? base + 1 : file, line,
                          result_name(result), static_cast<int>(result)));
}

bool compiled_in() { return true; }
int device_count() { return static_cast<int>(device_list().descriptions.size()); }
std::string describe_device(int index) {
  const auto& l = device_list();
  if (index < 0 || index >= static_cast<int>(l.descriptions.size()))
    return fmt::format("unavailable: no Vulkan device {} ({} found)", index,
                       l.descriptions.size());
  return l.descriptions[static_cast<std::size_t>(index)];
}
std::string why_no_device() { return device_list().why_none; }
bool device_is_software(int index) {
  const auto& l = device_list();
  return index >= 0 && index < static_cast<int>(l.software.size()) &&
         l.software[static_cast<std::size_t>(index)];
}

// --- Context -----------------------------------------------------------------

Context::Context(int device) {
  const int count = device_count();
  if (device < 0 || device >= count)
    throw Error(fmt::format("--gpu {}: no such Vulkan device ({} found{}{})", device, count,
                            count ? "" : ": ", count ? "" : why_no_device()));
  physical_ = device_list().devices[static_cast<std::size_t>(device)];
  unsuitable(physical_, &queue_family_);
  vkGetPhysicalDeviceProperties(physical_, &props_);
  vkGetPhysicalDeviceMemoryProperties(physical_, &memory_props_);

  // Uploads go to a queue of their own where the device has one (a
  // transfer-only family: the DMA engines; else a second queue of the
  // compute family), so that a batch's uploads overlap the previous batch's
  // compute; else to the compute queue, in the same protocol.
  std::uint32_t families = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, nullptr);
  std::vector<VkQueueFamilyProperties> qf(families);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &families, qf.data());
  upload_family_ = queue_family_;
  std::uint32_t upload_index = 0;
  for (std::uint32_t i = 0; i < families; ++i)
    if ((qf[i].queueFlags & VK_QUEUE_TRANSFER_BIT) &&
        !(qf[i].queueFlags & (VK_QUEUE_COMPUTE_BIT | VK_QUEUE_GRAPHICS_BIT))) {
      upload_family_ = i;
      break;
    }
  if (upload_family_ == queue_family_ && qf[queue_family_].queueCount >= 2) upload_index = 1;
  const float priorities[2] = {1.0f, 1.0f};
  std::vector<VkDeviceQueueCreateInfo> queues;
  auto queue = vk_struct<VkDeviceQueueCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO);
  queue.queueFamilyIndex = queue_family_;
  queue.queueCount = upload_index + 1;
  queue.pQueuePriorities = priorities;
  queues.push_back(queue);
  if (upload_family_ != queue_family_) {
    queue.queueFamilyIndex = upload_family_;
    queue.queueCount = 1;
    queues.push_back(queue);
  }
  auto f12 = vk_struct<VkPhysicalDeviceVulkan12Features>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES);
  f12.timelineSemaphore = VK_TRUE;
  auto features = vk_struct<VkPhysicalDeviceFeatures2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2);
  features.pNext = &f12;
  features.features.shaderInt64 = VK_TRUE;
  // VK_KHR_portability_subset must be enabled where the device has it
  // (MoltenVK); the shaders use nothing it restricts.
  std::vector<const char*> extensions;
  const auto ext = vk_list(VkExtensionProperties{}, [&](std::uint32_t* n, VkExtensionProperties* out) {
    return vkEnumerateDeviceExtensionProperties(physical_, nullptr, n, out);
  });
  const bool want_stats = std::getenv("VQE_VULKAN_PIPELINE_STATS") != nullptr;
  for (const auto& e : ext) {
    if (std::strcmp(e.extensionName, "VK_KHR_portability_subset") == 0)
      extensions.push_back("VK_KHR_portability_subset");
    // Uploads straight from registered pictures (Context::register_host).
    if (std::strcmp(e.extensionName, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) == 0) {
      extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
      can_import_ = true;
    }
    if (want_stats &&
        std::strcmp(e.extensionName, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME) == 0) {
      extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
      pipeline_stats_ = true;
    }
  }
  auto exec_props = vk_struct<VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR>(
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR);
  exec_props.pipelineExecutableInfo = VK_TRUE;
  if (pipeline_stats_)
    f12.pNext = &exec_props;
  else if (want_stats)
    std::fprintf(stderr,
                 "vqe: VQE_VULKAN_PIPELINE_STATS: this driver lacks "
                 "VK_KHR_pipeline_executable_properties; no statistics\n");
  if (can_import_) {
    auto host_props = vk_struct<VkPhysicalDeviceExternalMemoryHostPropertiesEXT>(
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_MEMORY_HOST_PROPERTIES_EXT);
    auto props2 = vk_struct<VkPhysicalDeviceProperties2>(VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2);
    props2.pNext = &host_props;
    vkGetPhysicalDeviceProperties2(physical_, &props2);
    import_alignment_ = std::max<VkDeviceSize>(host_props.minImportedHostPointerAlignment, 1);
  }
  auto info = vk_struct<VkDeviceCreateInfo>(VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO);
  info.pNext = &features;
  info.queueCreateInfoCount = static_cast<std::uint32_t>(queues.size());
  info.pQueueCreateInfos = queues.data();
  info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  info.ppEnabledExtensionNames = extensions.data();
  VQE_VK_CHECK(vkCreateDevice(physical_, &info, nullptr, &device_));
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);
  vkGetDeviceQueue(device_, upload_family_, upload_index, &upload_queue_);
  if (can_import_) {
    get_host_pointer_properties_ = reinterpret_cast<PFN_vkGetMemoryHostPointerPropertiesEXT>(
        vkGetDeviceProcAddr(device_, "vkGetMemoryHostPointerPropertiesEXT"));
    can_import_ = get_host_pointer_properties_ != nullptr;
  }

  auto pool = vk_struct<VkCommandPoolCreateInfo>(VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO);
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = queue_family_;
  VQE_VK_CHECK(vkCreateCommandPool(device_, &pool, nullptr, &command_pool_));
  pool.queueFamilyIndex = upload_family_;
  VQE_VK_CHECK(vkCreateCommandPool(device_, &pool, nullptr, &upload_pool_));

  const VkDescriptorPoolSize sizes{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 8192};
  auto dp = vk_struct<VkDescriptorPoolCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO);
  dp.maxSets = 2048;
  dp.poolSizeCount = 1;
  dp.pPoolSizes = &sizes;
  VQE_VK_CHECK(vkCreateDescriptorPool(device_, &dp, nullptr, &descriptor_pool_));

  auto type = vk_struct<VkSemaphoreTypeCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO);
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = 0;
  auto sem = vk_struct<VkSemaphoreCreateInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO);
  sem.pNext = &type;
  VQE_VK_CHECK(vkCreateSemaphore(device_, &sem, nullptr, &timeline_));
  VQE_VK_CHECK(vkCreateSemaphore(device_, &sem, nullptr, &upload_timeline_));
}

Context::~Context() {
  if (device_) vkDeviceWaitIdle(device_);
  for (Pipeline& p : pipelines_) {
    vkDestroyPipeline(device_, p.pipeline, nullptr);
    vkDestroyPipelineLayout(device_, p.layout, nullptr);
    vkDestroyDescriptorSetLayout(device_, p.set_layout, nullptr);
  }
  for (VkShaderModule m : modules_) vkDestroyShaderModule(device_, m, nullptr);
  for (VkBuffer b : buffers_) vkDestroyBuffer(device_, b, nullptr);
  for (const Imported& im : imported_) {
    vkDestroyBuffer(device_, im.buffer, nullptr);
    vkFreeMemory(device_, im.memory, nullptr);
  }
  for (Pool& pool : pools_)
    for (auto& c : pool.chunks) {
      if (c.mapped) vkUnmapMemory(device_, c.memory);
      vkFreeMemory(device_, c.memory, nullptr);
    }
  if (timeline_) vkDestroySemaphore(device_, timeline_, nullptr);
  if (upload_timeline_) vkDestroySemaphore(device_, upload_timeline_, nullptr);
  if (upload_pool_) vkDestroyCommandPool(device_, upload_pool_, nullptr);
  if (descriptor_pool_) vkDestroyDescriptorPool(device_, descriptor_pool_, nullptr);
  if (command_pool_) vkDestroyCommandPool(device_, command_pool_, nullptr);
  if (device_) vkDestroyDevice(device_, nullptr);
}

std::string Context::device_name() const { return describe(physical_); }

std::uint32_t Context::find_memory_type(std::uint32_t bits, VkMemoryPropertyFlags want,
                                        VkMemoryPropertyFlags avoid) const {
  for (int pass = 0; pass < 2; ++pass)
    for (std::uint32_t i = 0; i < memory_props_.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags f = memory_props_.memoryTypes[i].propertyFlags;
      if (!(bits & (1u << i)) || (f & want) != want) continue;
      if (pass == 0 && (f & avoid)) continue;
      return i;
    }
  throw Error("Vulkan: no suitable memory type");
}

// Host buffers: coherent system memory, preferably cached (the host reads
// results back) and not device-local (no BAR window).
std::uint32_t Context::find_host_type(std::uint32_t bits) const {
  constexpr VkMemoryPropertyFlags kVisible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (const VkMemoryPropertyFlags want : {kVisible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, kVisible})
    for (std::uint32_t i = 0; i < memory_props_.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags f = memory_props_.memoryTypes[i].propertyFlags;
      if ((bits & (1u << i)) && (f & want) == want && !(f & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT))
        return i;
    }
  return find_memory_type(bits, kVisible, 0);
}

Buffer Context::make_buffer(std::size_t bytes, bool host, bool both_queues) {
  Buffer b;
  b.size = std::max<std::size_t>(bytes, 4);
  auto info = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
  info.size = b.size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const std::uint32_t family_list[2] = {queue_family_, upload_family_};
  if (both_queues && upload_family_ != queue_family_) {
    // The ring: written by the upload queue, read by the compute queue.
    info.sharingMode = VK_SHARING_MODE_CONCURRENT;
    info.queueFamilyIndexCount = 2;
    info.pQueueFamilyIndices = family_list;
  }
  VQE_VK_CHECK(vkCreateBuffer(device_, &info, nullptr, &b.buffer));
  buffers_.push_back(b.buffer);
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device_, b.buffer, &req);
  const std::uint32_t type =
      host ? find_host_type(req.memoryTypeBits)
           : find_memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
  Pool& pool = pools_[host ? 1 : 0];
  const VkDeviceSize align = std::max<VkDeviceSize>(req.alignment, 256);
  for (auto& c : pool.chunks) {
    const VkDeviceSize start = (c.used + align - 1) / align * align;
    if (c.type == type && start + req.size <= c.size) {
      VQE_VK_CHECK(vkBindBufferMemory(device_, b.buffer, c.memory, start));
      c.used = start + req.size;
      if (c.mapped) b.mapped = static_cast<std::uint8_t*>(c.mapped) + start;
      return b;
    }
  }
  constexpr VkDeviceSize kChunk = VkDeviceSize{64} << 20;
  Pool::Chunk c;
  c.type = type;
  c.size = req.size > kChunk / 2 ? req.size : kChunk;
  auto alloc = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
  alloc.allocationSize = c.size;
  alloc.memoryTypeIndex = type;
  VQE_VK_CHECK(vkAllocateMemory(device_, &alloc, nullptr, &c.memory));
  if (host) VQE_VK_CHECK(vkMapMemory(device_, c.memory, 0, VK_WHOLE_SIZE, 0, &c.mapped));
  VQE_VK_CHECK(vkBindBufferMemory(device_, b.buffer, c.memory, 0));
  c.used = req.size;
  b.mapped = c.mapped;
  pool.bytes += c.size;
  pool.chunks.push_back(c);
  return b;
}

Buffer Context::device_buffer(std::size_t bytes) { return make_buffer(bytes, false, false); }
Buffer Context::host_buffer(std::size_t bytes, bool zero) {
  Buffer b = make_buffer(bytes, true, false);
  if (zero) std::memset(b.mapped, 0, b.size);
  return b;
}

Buffer Context::device_table(const void* data, std::size_t bytes) {
  Buffer staging = host_buffer(bytes, false);
  std::memcpy(staging.mapped, data, bytes);
  Buffer table = device_buffer(bytes);
  auto ai = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  ai.commandPool = command_pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VQE_VK_CHECK(vkAllocateCommandBuffers(device_, &ai, &cmd));
  auto bi = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  VQE_VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
  const VkBufferCopy region{0, 0, bytes};
  vkCmdCopyBuffer(cmd, staging.buffer, table.buffer, 1, &region);
  VQE_VK_CHECK(vkEndCommandBuffer(cmd));
  auto si = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  VQE_VK_CHECK(vkQueueSubmit(queue_, 1, &si, VK_NULL_HANDLE));
  VQE_VK_CHECK(vkQueueWaitIdle(queue_));
  vkFreeCommandBuffers(device_, command_pool_, 1, &cmd);
  return table;
}

Pipeline& Context::pipeline(std::string_view shader, int buffers,
                            std::span<const std::uint32_t> extra) {
  const EmbeddedShader* found = nullptr;
  for (const EmbeddedShader& s : embedded_shaders())
    if (s.name == shader) found = &s;
  if (!found) throw Error(fmt::format("Vulkan: no embedded shader '{}'", shader));
  auto mi = vk_struct<VkShaderModuleCreateInfo>(VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO);
  mi.codeSize = found->words.size() * 4;
  mi.pCode = found->words.data();
  VkShaderModule module = VK_NULL_HANDLE;
  VQE_VK_CHECK(vkCreateShaderModule(device_, &mi, nullptr, &module));
  modules_.push_back(module);

  Pipeline p;
  p.name = std::string(shader);
  p.buffers = buffers;
  std::vector<VkDescriptorSetLayoutBinding> bindings(static_cast<std::size_t>(buffers));
  for (int i = 0; i < buffers; ++i)
    bindings[static_cast<std::size_t>(i)] = {static_cast<std::uint32_t>(i),
                                             VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                             VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  auto sl = vk_struct<VkDescriptorSetLayoutCreateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO);
  sl.bindingCount = static_cast<std::uint32_t>(bindings.size());
  sl.pBindings = bindings.data();
  VQE_VK_CHECK(vkCreateDescriptorSetLayout(device_, &sl, nullptr, &p.set_layout));
  const VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push)};
  auto pl = vk_struct<VkPipelineLayoutCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO);
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &p.set_layout;
  pl.pushConstantRangeCount = 1;
  pl.pPushConstantRanges = &range;
  VQE_VK_CHECK(vkCreatePipelineLayout(device_, &pl, nullptr, &p.layout));

  // Specialization constants: the frame layout at ids 0..18, `extra` from 24.
  const FrameLayout& L = layout_;
  std::vector<std::uint32_t> values = {slots_, L.slot_words, static_cast<std::uint32_t>(L.bpc)};
  for (int k = 0; k < 3; ++k) values.push_back(L.ref_offset[k]);
  for (int k = 0; k < 3; ++k) values.push_back(L.dist_offset[k]);
  for (int k = 0; k < 3; ++k) values.push_back(L.pitch[k]);
  for (int k = 0; k < 3; ++k) values.push_back(static_cast<std::uint32_t>(L.width[k]));
  for (int k = 0; k < 3; ++k) values.push_back(static_cast<std::uint32_t>(L.height[k]));
  values.push_back(result_slots_);
  std::vector<VkSpecializationMapEntry> entries;
  for (std::uint32_t i = 0; i < values.size(); ++i) entries.push_back({i, i * 4, 4});
  for (std::uint32_t i = 0; i < extra.size(); ++i) {
    entries.push_back({24 + i, static_cast<std::uint32_t>(values.size()) * 4, 4});
    values.push_back(extra[i]);
  }
  VkSpecializationInfo spec{};
  spec.mapEntryCount = static_cast<std::uint32_t>(entries.size());
  spec.pMapEntries = entries.data();
  spec.dataSize = values.size() * 4;
  spec.pData = values.data();
  auto ci = vk_struct<VkComputePipelineCreateInfo>(VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO);
  ci.stage = vk_struct<VkPipelineShaderStageCreateInfo>(VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO);
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.stage.pSpecializationInfo = &spec;
  ci.layout = p.layout;
  if (pipeline_stats_) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
  VQE_VK_CHECK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &ci, nullptr, &p.pipeline));
  if (pipeline_stats_) print_pipeline_stats(device_, p.pipeline, p.name);
  pipelines_.push_back(p);
  return pipelines_.back();
}

VkDescriptorSet Context::descriptor_set(const Pipeline& p, std::span<const Buffer* const> buffers) {
  if (static_cast<int>(buffers.size()) != p.buffers)
    throw Error(fmt::format("Vulkan: pipeline {} takes {} buffers, got {}", p.name, p.buffers,
                            buffers.size()));
  auto ai = vk_struct<VkDescriptorSetAllocateInfo>(VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO);
  ai.descriptorPool = descriptor_pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &p.set_layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  VQE_VK_CHECK(vkAllocateDescriptorSets(device_, &ai, &set));
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    infos[i] = {buffers[i]->buffer, 0, VK_WHOLE_SIZE};
    writes[i] = vk_struct<VkWriteDescriptorSet>(VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET);
    writes[i].dstSet = set;
    writes[i].dstBinding = static_cast<std::uint32_t>(i);
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(device_, static_cast<std::uint32_t>(writes.size()), writes.data(), 0,
                         nullptr);
  return set;
}

void Context::init(const VideoFormat& format, bool chroma, unsigned batch_frames) {
  format_ = format;
  FrameLayout& L = layout_;
  L = FrameLayout{};
  L.planes = chroma ? format.num_planes() : 1;
  L.bpc = format.bit_depth;
  const int bps = format.bytes_per_sample();
  std::uint32_t words = 0;
  for (int side = 0; side < 2; ++side)
    for (int p = 0; p < L.planes; ++p) {
      const int w = format.plane_width(p), h = format.plane_height(p);
      // Rows start on 64-byte boundaries.
      const std::uint32_t pitch = static_cast<std::uint32_t>((w * bps + 63) / 64 * 16);
      L.width[p] = w;
      L.height[p] = h;
      L.pitch[p] = pitch;
      (side ? L.dist_offset : L.ref_offset)[p] = words;
      words += pitch * static_cast<std::uint32_t>(h);
    }
  L.slot_words = words;
  const std::size_t slot_bytes = static_cast<std::size_t>(words) * 4;
  // Ring: two batches (one computing, the next uploading) plus the two
  // frames before them; it must fit one storage-buffer binding.
  const std::size_t max_range = props_.limits.maxStorageBufferRange;
  const std::size_t fit = max_range / std::max<std::size_t>(slot_bytes, 1);
  if (fit < 4)
    throw Error(fmt::format(
        "Vulkan: a {}x{} {}-bit frame pair ({} MiB) is too large for this device's storage "
        "buffers ({} MiB at most, 4 pairs needed)",
        format.width, format.height, format.bit_depth, slot_bytes >> 20, max_range >> 20));
  batch_frames_ = std::clamp<unsigned>(batch_frames, 1, static_cast<unsigned>((fit - 2) / 2));
  slots_ = 2 * batch_frames_ + 2;
  result_slots_ = 2 * batch_frames_;
  ring_ = make_buffer(slot_bytes * slots_, false, true);
  staging_ = host_buffer(slot_bytes * result_slots_, false);
  sources_.assign(result_slots_, {});
  commands_.assign(result_slots_, VK_NULL_HANDLE);
  command_value_.assign(result_slots_, 0);
  auto ai = vk_struct<VkCommandBufferAllocateInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO);
  ai.commandPool = command_pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = result_slots_;
  VQE_VK_CHECK(vkAllocateCommandBuffers(device_, &ai, commands_.data()));
  upload_commands_.assign(result_slots_, VK_NULL_HANDLE);
  ai.commandPool = upload_pool_;
  VQE_VK_CHECK(vkAllocateCommandBuffers(device_, &ai, upload_commands_.data()));
}

const Context::Imported* Context::imported(const Plane& plane) const {
  const std::uint8_t* end = plane.data + static_cast<std::size_t>(plane.stride) * plane.height;
  for (const Imported& im : imported_)
    if (plane.data >= im.begin && end <= im.end) return &im;
  return nullptr;
}

bool Context::register_host(const Picture& picture) {
  if (!can_import_) return false;
  for (int p = 0; p < picture.num_planes(); ++p) {
    const Plane& pl = picture.plane(p);
    if (imported(pl)) continue;
    // The pages holding the plane (imports start and end on the alignment).
    const auto a = static_cast<std::uintptr_t>(import_alignment_);
    const auto first = reinterpret_cast<std::uintptr_t>(pl.data) / a * a;
    const auto last = (reinterpret_cast<std::uintptr_t>(pl.data) +
                       static_cast<std::size_t>(pl.stride) * pl.height + a - 1) / a * a;
    void* host = reinterpret_cast<void*>(first);
    auto ptr_props = vk_struct<VkMemoryHostPointerPropertiesEXT>(
        VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT);
    if (get_host_pointer_properties_(device_, VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT,
                                     host, &ptr_props) != VK_SUCCESS)
      return false;
    Imported im;
    im.begin = reinterpret_cast<const std::uint8_t*>(first);
    im.end = reinterpret_cast<const std::uint8_t*>(last);
    auto ext = vk_struct<VkExternalMemoryBufferCreateInfo>(
        VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO);
    ext.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    auto bi = vk_struct<VkBufferCreateInfo>(VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO);
    bi.pNext = &ext;
    bi.size = last - first;
    bi.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VQE_VK_CHECK(vkCreateBuffer(device_, &bi, nullptr, &im.buffer));
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device_, im.buffer, &req);
    const std::uint32_t bits = req.memoryTypeBits & ptr_props.memoryTypeBits;
    if (bits == 0) {
      vkDestroyBuffer(device_, im.buffer, nullptr);
      return false;
    }
    auto import = vk_struct<VkImportMemoryHostPointerInfoEXT>(
        VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT);
    import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
    import.pHostPointer = host;
    auto alloc = vk_struct<VkMemoryAllocateInfo>(VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO);
    alloc.pNext = &import;
    alloc.allocationSize = last - first;
    alloc.memoryTypeIndex = static_cast<std::uint32_t>(std::countr_zero(bits));
    if (vkAllocateMemory(device_, &alloc, nullptr, &im.memory) != VK_SUCCESS) {
      vkDestroyBuffer(device_, im.buffer, nullptr);
      return false;
    }
    VQE_VK_CHECK(vkBindBufferMemory(device_, im.buffer, im.memory, 0));
    imported_.push_back(im);
  }
  return true;
}

void Context::unregister_host(const Picture& picture) {
  // Uploads in flight may read the planes.
  VQE_VK_CHECK(vkDeviceWaitIdle(device_));
  for (int p = 0; p < picture.num_planes(); ++p) {
    const Plane& pl = picture.plane(p);
    for (std::size_t i = 0; i < imported_.size(); ++i)
      if (imported_[i].begin <= pl.data && pl.data < imported_[i].end) {
        vkDestroyBuffer(device_, imported_[i].buffer, nullptr);
        vkFreeMemory(device_, imported_[i].memory, nullptr);
        imported_.erase(imported_.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      }
  }
}

void Context::stage(const Picture& ref, const Picture& dist, std::uint64_t seq) {
  std::uint8_t* base = staging_.host<std::uint8_t>() +
                       static_cast<std::size_t>(result_of(seq)) * layout_.slot_words * 4;
  std::array<PlaneSource, 6>& src = sources_[result_of(seq)];
  const int bps = format_.bytes_per_sample();
  for (int side = 0; side < 2; ++side)
    for (int p = 0; p < layout_.planes; ++p) {
      const Plane& pl = (side ? dist : ref).plane(p);
      PlaneSource& ps = src[static_cast<std::size_t>(side * 3 + p)];
      if (const Imported* im = imported(pl)) {
        ps = {im->buffer, static_cast<VkDeviceSize>(pl.data - im->begin),
              static_cast<VkDeviceSize>(pl.stride)};
        continue;
      }
      ps = PlaneSource{};
      const std::size_t row = static_cast<std::size_t>(pl.width) * bps;
      std::uint8_t* dst = base + static_cast<std::size_t>((side ? layout_.dist_offset
                                                                : layout_.ref_offset)[p]) * 4;
      const std::size_t pitch = static_cast<std::size_t>(layout_.pitch[p]) * 4;
      for (int y = 0; y < pl.height; ++y)
        std::memcpy(dst + y * pitch, pl.data + static_cast<std::size_t>(y) * pl.stride, row);
    }
}

Push Context::push_for(const Run& run) const {
  Push p;
  p.first_slot = slot_of(run.first_seq);
  p.first_result = result_of(run.first_seq);
  p.count = run.count;
  return p;
}

void Context::begin_batch(std::uint64_t first_seq, unsigned count) {
  const std::size_t i = static_cast<std::size_t>(batches_ % commands_.size());
  if (command_value_[i]) wait(command_value_[i]);  // its uploads completed before it
  auto bi = vk_struct<VkCommandBufferBeginInfo>(VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO);
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  // The batch's uploads, for the upload queue (submit_batch orders them).
  uploading_ = upload_commands_[i];
  VQE_VK_CHECK(vkResetCommandBuffer(uploading_, 0));
  VQE_VK_CHECK(vkBeginCommandBuffer(uploading_, &bi));
  record_uploads(first_seq, count);
  VQE_VK_CHECK(vkEndCommandBuffer(uploading_));
  // The batch's compute, after the previous batch's (extractors reuse
  // their scratch from batch to batch).
  recording_ = commands_[i];
  VQE_VK_CHECK(vkResetCommandBuffer(recording_, 0));
  VQE_VK_CHECK(vkBeginCommandBuffer(recording_, &bi));
  auto mb = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(recording_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Context::record_uploads(std::uint64_t first_seq, unsigned count) {
  // Staged planes: one region per frame when none of its planes is
  // imported, else one per staged plane; imported planes: one region per
  // plane (equal row pitch) or per row, straight from the picture.
  const VkDeviceSize slot_bytes = static_cast<VkDeviceSize>(layout_.slot_words) * 4;
  std::vector<VkBufferCopy> regions;
  for (unsigned k = 0; k < count; ++k) {
    const std::uint64_t seq = first_seq + k;
    const std::array<PlaneSource, 6>& src = sources_[result_of(seq)];
    const VkDeviceSize from = result_of(seq) * slot_bytes, to = slot_of(seq) * slot_bytes;
    bool any_imported = false;
    for (int side = 0; side < 2; ++side)
      for (int p = 0; p < layout_.planes; ++p)
        any_imported = any_imported || src[static_cast<std::size_t>(side * 3 + p)].buffer;
    if (!any_imported) {
      regions.push_back({from, to, slot_bytes});
      continue;
    }
    for (int side = 0; side < 2; ++side)
      for (int p = 0; p < layout_.planes; ++p) {
        const PlaneSource& ps = src[static_cast<std::size_t>(side * 3 + p)];
        const VkDeviceSize plane_at = static_cast<VkDeviceSize>(
                                          (side ? layout_.dist_offset : layout_.ref_offset)[p]) * 4;
        const VkDeviceSize pitch = static_cast<VkDeviceSize>(layout_.pitch[p]) * 4;
        const VkDeviceSize rows = static_cast<VkDeviceSize>(layout_.height[p]);
        if (!ps.buffer) {
          regions.push_back({from + plane_at, to + plane_at, pitch * rows});
          continue;
        }
        std::vector<VkBufferCopy> own;
        const VkDeviceSize row_bytes =
            static_cast<VkDeviceSize>(layout_.width[p]) * format_.bytes_per_sample();
        if (ps.stride == pitch)
          own.push_back({ps.offset, to + plane_at, pitch * (rows - 1) + row_bytes});
        else
          for (VkDeviceSize y = 0; y < rows; ++y)
            own.push_back({ps.offset + y * ps.stride, to + plane_at + y * pitch, row_bytes});
        vkCmdCopyBuffer(uploading_, ps.buffer, ring_.buffer, static_cast<std::uint32_t>(own.size()),
                        own.data());
        ++copies_;
      }
  }
  if (!regions.empty()) {
    vkCmdCopyBuffer(uploading_, staging_.buffer, ring_.buffer,
                    static_cast<std::uint32_t>(regions.size()), regions.data());
    ++copies_;
  }
}

void Context::dispatch(const Pipeline& p, VkDescriptorSet set, const Push& push, std::uint32_t gx,
                       std::uint32_t gy, std::uint32_t gz) {
  if (gx == 0 || gy == 0 || gz == 0) return;
  vkCmdBindPipeline(recording_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
  vkCmdBindDescriptorSets(recording_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0,
                          nullptr);
  vkCmdPushConstants(recording_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(Push), &push);
  vkCmdDispatch(recording_, gx, gy, gz);
  ++dispatches_;
}

void Context::barrier() {
  auto mb = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(recording_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void Context::submit_with_timelines(VkQueue queue, VkCommandBuffer cmd, VkSemaphore wait_on,
                                    std::uint64_t wait_value, VkPipelineStageFlags wait_stage,
                                    VkSemaphore signal, std::uint64_t signal_value) {
  auto ts = vk_struct<VkTimelineSemaphoreSubmitInfo>(VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO);
  ts.waitSemaphoreValueCount = 1;
  ts.pWaitSemaphoreValues = &wait_value;
  ts.signalSemaphoreValueCount = 1;
  ts.pSignalSemaphoreValues = &signal_value;
  auto si = vk_struct<VkSubmitInfo>(VK_STRUCTURE_TYPE_SUBMIT_INFO);
  si.pNext = &ts;
  si.waitSemaphoreCount = 1;
  si.pWaitSemaphores = &wait_on;
  si.pWaitDstStageMask = &wait_stage;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  si.signalSemaphoreCount = 1;
  si.pSignalSemaphores = &signal;
  VQE_VK_CHECK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
}

std::uint64_t Context::submit_batch() {
  auto mb = vk_struct<VkMemoryBarrier>(VK_STRUCTURE_TYPE_MEMORY_BARRIER);
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(recording_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  VQE_VK_CHECK(vkEndCommandBuffer(recording_));
  const std::uint64_t value = ++batches_;
  // Uploads of batch v overwrite ring slots that batches up to v − 2 read
  // (the ring holds two batches and the two frames before them): they wait
  // for the compute of batch v − 2, then signal the upload timeline.
  const std::uint64_t upload_wait = value > 2 ? value - 2 : 0;
  submit_with_timelines(upload_queue_, uploading_, timeline_, upload_wait,
                        VK_PIPELINE_STAGE_TRANSFER_BIT, upload_timeline_, value);
  // The compute waits for its uploads and signals the compute timeline.
  submit_with_timelines(queue_, recording_, upload_timeline_, value,
                        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, timeline_, value);
  command_value_[static_cast<std::size_t>((value - 1) % commands_.size())] = value;
  recording_ = VK_NULL_HANDLE;
  uploading_ = VK_NULL_HANDLE;
  submissions_ += 2;
  return value;
}

void Context::wait(std::uint64_t value) {
  auto wi = vk_struct<VkSemaphoreWaitInfo>(VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO);
  wi.semaphoreCount = 1;
  wi.pSemaphores = &timeline_;
  wi.pValues = &value;
  VQE_VK_CHECK(vkWaitSemaphores(device_, &wi, UINT64_MAX));
}

}  // namespace vqe::vulkan
