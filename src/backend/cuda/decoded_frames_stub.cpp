// SPDX-License-Identifier: BSD-2-Clause
// Built instead of decoded_frames.cu when the CUDA toolkit is absent.
#include "backend/cuda/decoded_frames.h"
#include "vqe/error.h"

namespace vqe::cuda {

struct SurfaceConverter::Pool {};

void* retain_primary_context(int) { throw Error("this build of VQE has no CUDA backend"); }
void release_primary_context(int) noexcept {}

SurfaceConverter::SurfaceConverter(int device) : device_(device) {
  throw Error("this build of VQE has no CUDA backend");
}
void SurfaceConverter::init(const VideoFormat&) {}
SurfaceConverter::~SurfaceConverter() = default;
void* SurfaceConverter::stream() const { return nullptr; }
DevicePicture SurfaceConverter::convert(const Surface&, int, int, int) {
  throw Error("this build of VQE has no CUDA backend");
}
void SurfaceConverter::download(const DevicePicture&, Picture&, int) {
  throw Error("this build of VQE has no CUDA backend");
}

}  // namespace vqe::cuda
