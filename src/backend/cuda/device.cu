// SPDX-License-Identifier: BSD-2-Clause
#include <cuda_runtime.h>

#include <string>

#include "backend/cuda/device.h"

namespace vqe::cuda {

bool compiled_in() { return true; }

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return n;
}

std::string describe_device(int index) {
  cudaDeviceProp prop{};
  const cudaError_t err = cudaGetDeviceProperties(&prop, index);
  if (err != cudaSuccess) return std::string("unavailable: ") + cudaGetErrorString(err);
  return std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
         std::to_string(prop.minor) + ", " +
         std::to_string(prop.totalGlobalMem >> 30) + " GiB)";
}

}  // namespace vqe::cuda
