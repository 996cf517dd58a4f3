// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file What a hardware decoder (NVDEC through libavcodec, src/io/libav.cpp)
/// needs of the CUDA runtime, from plain C++: the device's primary context
/// (so that the decoder's device pointers are the CUDA job's), a stream, and
/// SurfaceConverter, which turns a decoder's semi-planar output surface
/// (NV12, P010, P016) into a DevicePicture in VQE's planar layout. Available
/// in every build; without CUDA every function throws vqe::Error
/// (decoded_frames_stub.cpp).

#include <cstddef>
#include <memory>

#include "core/device_picture.h"
#include "vqe/picture.h"

namespace vqe::cuda {

/// Retains the primary context of CUDA device `device` (the context the CUDA
/// runtime, and so every GpuJob, uses on it) through the driver API's
/// cuDevicePrimaryCtxRetain, reached via the runtime (no link to libcuda).
/// Returns the CUcontext. Each call must be paired with
/// release_primary_context(). Throws vqe::Error when the build has no CUDA,
/// there is no such device, or the driver refuses.
void* retain_primary_context(int device);
/// Releases one retain_primary_context(device). Never throws.
void release_primary_context(int device) noexcept;

/// A decoder's output surface: luma rows, then rows of interleaved Cb/Cr
/// pairs at half the height and half the width (4:2:0), in device memory.
/// 8-bit samples are bytes (NV12); deeper ones are 16-bit words holding the
/// value in their top bits (P010, P016: value << (16 - bit_depth)).
struct Surface {
  const void* luma = nullptr;
  std::size_t luma_pitch = 0;  ///< bytes
  const void* chroma = nullptr;
  std::size_t chroma_pitch = 0;  ///< bytes
};

/// Turns one decoder's surfaces into DevicePictures of one format (4:2:0 at
/// 8, 10, 12 or 16 bits) on a stream of its own, from a pool of device
/// pictures that grows to the number held at once. Used by one decoding
/// thread (convert) and one reading thread (download); pictures it gave out
/// may outlive it (the pool lives until the last one is dropped).
class SurfaceConverter {
 public:
  /// Makes the stream (non-blocking) on `device`. Throws vqe::Error (no
  /// CUDA build, CUDA errors).
  explicit SurfaceConverter(int device);
  ~SurfaceConverter();
  SurfaceConverter(const SurfaceConverter&) = delete;
  SurfaceConverter& operator=(const SurfaceConverter&) = delete;

  /// The stream (a cudaStream_t / CUstream) the conversions run on: give it
  /// to the decoder (its mapping of output surfaces then runs on it too, in
  /// order before the conversion).
  void* stream() const;

  /// Fixes the format of the pictures (once, before the first convert())
  /// and allocates the few pictures usually held at once. Throws vqe::Error
  /// for a format other than 4:2:0, or when the device is out of memory.
  void init(const VideoFormat& format);

  /// Converts planes [0, planes) of `surface` (`planes`: 1 or 3) whose
  /// visible picture starts at row `top`, column `left` (luma samples; even)
  /// into a pooled picture: luma copied (8 bits) or shifted down by 16 -
  /// bit_depth (deeper), chroma de-interleaved into Cb and Cr likewise.
  /// Returns once the device has finished, so the surface may be released.
  DevicePicture convert(const Surface& surface, int top, int left, int planes);

  /// Copies planes [0, planes) of `picture` (from convert()) into `target`
  /// (re-allocated when of another format), synchronously.
  void download(const DevicePicture& picture, Picture& target, int planes);

 private:
  struct Pool;
  int device_;
  VideoFormat format_{};
  void* stream_ = nullptr;
  std::shared_ptr<Pool> pool_;
};

}  // namespace vqe::cuda
