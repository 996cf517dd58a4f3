// SPDX-License-Identifier: BSD-2-Clause
// The CUDA side of hardware decoding (backend/cuda/decoded_frames.h): the
// primary context for libavcodec's CUDA device, and the conversion of NVDEC's
// semi-planar surfaces into VQE's planar DevicePictures. (No fmt here: nvcc
// cannot compile fmt 9's consteval format strings.)

#include <cuda.h>
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "backend/cuda/decoded_frames.h"
#include "backend/cuda/device.h"
#include "backend/cuda/runtime.cuh"
#include "vqe/error.h"

namespace vqe::cuda {
namespace {

// A driver API function through the runtime (cudart_static loads libcuda
// itself, so VQE never links it): the version that CUDA 12.0 names `name`.
void* driver_function(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  const cudaError_t err =
      cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &status);
  if (err != cudaSuccess || status != cudaDriverEntryPointSuccess || fn == nullptr) {
    cudaGetLastError();
    throw Error(std::string("CUDA: the driver has no ") + name +
                (err != cudaSuccess ? std::string(" (") + cudaGetErrorString(err) + ")" : ""));
  }
  return fn;
}

CUdevice driver_device(int device) {
  using GetFn = CUresult (*)(CUdevice*, int);
  static const auto get = reinterpret_cast<GetFn>(driver_function("cuDeviceGet"));
  CUdevice dev = 0;
  if (get(&dev, device) != CUDA_SUCCESS)
    throw Error("CUDA: cuDeviceGet(" + std::to_string(device) + ") failed");
  return dev;
}

constexpr int kBlockX = 32, kBlockY = 8;
// Device pictures a converter allocates up front (SurfaceConverter::init).
constexpr std::size_t kPreallocated = 8;

template <typename T>
__global__ void shift_plane(const std::uint8_t* src, std::size_t src_pitch, std::uint8_t* dst,
                            std::size_t dst_pitch, int width, int height, int shift) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const T* in = reinterpret_cast<const T*>(src + static_cast<std::size_t>(y) * src_pitch);
  T* out = reinterpret_cast<T*>(dst + static_cast<std::size_t>(y) * dst_pitch);
  out[x] = static_cast<T>(in[x] >> shift);
}

template <typename T>
__global__ void split_chroma(const std::uint8_t* src, std::size_t src_pitch, std::uint8_t* cb,
                             std::size_t cb_pitch, std::uint8_t* cr, std::size_t cr_pitch,
                             int width, int height, int shift) {
  const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
  if (x >= width || y >= height) return;
  const T* in = reinterpret_cast<const T*>(src + static_cast<std::size_t>(y) * src_pitch);
  reinterpret_cast<T*>(cb + static_cast<std::size_t>(y) * cb_pitch)[x] =
      static_cast<T>(in[2 * x] >> shift);
  reinterpret_cast<T*>(cr + static_cast<std::size_t>(y) * cr_pitch)[x] =
      static_cast<T>(in[2 * x + 1] >> shift);
}

dim3 grid_for(int width, int height) {
  return dim3(static_cast<unsigned>((width + kBlockX - 1) / kBlockX),
              static_cast<unsigned>((height + kBlockY - 1) / kBlockY));
}

}  // namespace

void* retain_primary_context(int device) {
  const int count = device_count();
  if (device < 0 || device >= count)
    throw Error("no CUDA device " + std::to_string(device) + " (" + std::to_string(count) +
                " found)");
  using RetainFn = CUresult (*)(CUcontext*, CUdevice);
  static const auto retain = reinterpret_cast<RetainFn>(driver_function("cuDevicePrimaryCtxRetain"));
  CUcontext ctx = nullptr;
  const CUresult rc = retain(&ctx, driver_device(device));
  if (rc != CUDA_SUCCESS || ctx == nullptr)
    throw Error("CUDA: cannot retain the primary context of device " + std::to_string(device) +
                " (CUresult " + std::to_string(static_cast<int>(rc)) + ")");
  return ctx;
}

void release_primary_context(int device) noexcept {
  try {
    using ReleaseFn = CUresult (*)(CUdevice);
    static const auto release =
        reinterpret_cast<ReleaseFn>(driver_function("cuDevicePrimaryCtxRelease"));
    release(driver_device(device));
  } catch (...) {
  }
}

// Device pictures of one format: one allocation each (every plane, 256-byte
// aligned rows), reused once their last holder lets go.
struct SurfaceConverter::Pool {
  int device = 0;
  std::array<std::size_t, 3> pitch{}, offset{};
  std::size_t bytes = 0;
  std::mutex mutex;
  std::vector<void*> free;

  ~Pool() {
    cudaSetDevice(device);
    for (void* p : free) cudaFree(p);
    cudaGetLastError();
  }
};

SurfaceConverter::SurfaceConverter(int device) : device_(device), pool_(std::make_shared<Pool>()) {
  VQE_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t stream = nullptr;
  VQE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = stream;
  pool_->device = device;
}

void SurfaceConverter::init(const VideoFormat& format) {
  if (format.chroma != ChromaFormat::k420)
    throw Error("NVDEC surfaces: 4:2:0 only, not " + to_string(format.chroma));
  format_ = format;
  const int bps = format.bytes_per_sample();
  pool_->bytes = 0;
  for (int p = 0; p < 3; ++p) {
    pool_->pitch[p] =
        (static_cast<std::size_t>(format.plane_width(p)) * bps + 255) & ~std::size_t{255};
    pool_->offset[p] = pool_->bytes;
    pool_->bytes += pool_->pitch[p] * static_cast<std::size_t>(format.plane_height(p));
  }
  // The pictures usually held at once (decoded ahead, in a job's copies):
  // allocated now, not while frames flow (cudaMalloc may wait for the device).
  VQE_CUDA_CHECK(cudaSetDevice(device_));
  std::lock_guard lock(pool_->mutex);
  while (pool_->free.size() < kPreallocated) {
    void* memory = nullptr;
    VQE_CUDA_CHECK(cudaMalloc(&memory, pool_->bytes));
    pool_->free.push_back(memory);
  }
}

SurfaceConverter::~SurfaceConverter() {
  if (stream_ == nullptr) return;
  cudaSetDevice(device_);
  cudaStreamSynchronize(static_cast<cudaStream_t>(stream_));
  cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
  cudaGetLastError();
}

void* SurfaceConverter::stream() const { return stream_; }

DevicePicture SurfaceConverter::convert(const Surface& surface, int top, int left, int planes) {
  if (pool_->bytes == 0) throw Error("SurfaceConverter: convert() before init()");
  VQE_CUDA_CHECK(cudaSetDevice(device_));
  const auto stream = static_cast<cudaStream_t>(stream_);
  // A picture from the pool (or a new one).
  void* memory = nullptr;
  {
    std::lock_guard lock(pool_->mutex);
    if (!pool_->free.empty()) {
      memory = pool_->free.back();
      pool_->free.pop_back();
    }
  }
  if (memory == nullptr) VQE_CUDA_CHECK(cudaMalloc(&memory, pool_->bytes));
  DevicePicture out;
  out.owner = std::shared_ptr<const void>(memory, [pool = pool_](const void* p) {
    std::lock_guard lock(pool->mutex);
    pool->free.push_back(const_cast<void*>(p));
  });
  out.format = format_;
  out.device = device_;
  out.planes = planes;
  auto* base = static_cast<std::uint8_t*>(memory);
  for (int p = 0; p < 3; ++p) {
    out.data[p] = base + pool_->offset[p];
    out.pitch[p] = pool_->pitch[p];
  }

  const int bps = format_.bytes_per_sample();
  const int shift = bps == 2 ? 16 - format_.bit_depth : 0;
  const int w = format_.width, h = format_.height;
  const auto* luma = static_cast<const std::uint8_t*>(surface.luma) +
                     static_cast<std::size_t>(top) * surface.luma_pitch +
                     static_cast<std::size_t>(left) * bps;
  auto* y_out = base + pool_->offset[0];
  if (shift == 0) {
    VQE_CUDA_CHECK(cudaMemcpy2DAsync(y_out, pool_->pitch[0], luma, surface.luma_pitch,
                                     static_cast<std::size_t>(w) * bps, h,
                                     cudaMemcpyDeviceToDevice, stream));
  } else {
    shift_plane<std::uint16_t><<<grid_for(w, h), dim3(kBlockX, kBlockY), 0, stream>>>(
        luma, surface.luma_pitch, y_out, pool_->pitch[0], w, h, shift);
    VQE_CUDA_CHECK(cudaGetLastError());
  }
  if (planes > 1) {
    const int cw = format_.plane_width(1), ch = format_.plane_height(1);
    const auto* chroma = static_cast<const std::uint8_t*>(surface.chroma) +
                         static_cast<std::size_t>(top / 2) * surface.chroma_pitch +
                         static_cast<std::size_t>(left / 2) * 2 * bps;
    if (bps == 1)
      split_chroma<std::uint8_t><<<grid_for(cw, ch), dim3(kBlockX, kBlockY), 0, stream>>>(
          chroma, surface.chroma_pitch, base + pool_->offset[1], pool_->pitch[1],
          base + pool_->offset[2], pool_->pitch[2], cw, ch, 0);
    else
      split_chroma<std::uint16_t><<<grid_for(cw, ch), dim3(kBlockX, kBlockY), 0, stream>>>(
          chroma, surface.chroma_pitch, base + pool_->offset[1], pool_->pitch[1],
          base + pool_->offset[2], pool_->pitch[2], cw, ch, shift);
    VQE_CUDA_CHECK(cudaGetLastError());
  }
  VQE_CUDA_CHECK(cudaStreamSynchronize(stream));
  return out;
}

void SurfaceConverter::download(const DevicePicture& picture, Picture& target, int planes) {
  VQE_CUDA_CHECK(cudaSetDevice(device_));
  if (!(target.format() == picture.format)) target = Picture(picture.format);
  const int bps = picture.format.bytes_per_sample();
  for (int p = 0; p < planes && p < picture.planes; ++p) {
    Plane& plane = target.plane(p);
    VQE_CUDA_CHECK(cudaMemcpy2D(plane.data, static_cast<std::size_t>(plane.stride),
                                picture.data[p], picture.pitch[p],
                                static_cast<std::size_t>(plane.width) * bps, plane.height,
                                cudaMemcpyDeviceToHost));
  }
}

}  // namespace vqe::cuda
