// SPDX-License-Identifier: BSD-2-Clause
// Built instead of device.cu when the CUDA toolkit is absent.
#include "backend/cuda/device.h"

namespace vqe::cuda {

bool compiled_in() { return false; }
int device_count() { return 0; }
std::string describe_device(int) { return "unavailable: VQE was built without CUDA"; }

}  // namespace vqe::cuda
