// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file CUDA device discovery, available in every build.

#include <string>

namespace vqe::cuda {

/// True when this build includes the CUDA backend (nvcc was found at
/// configure time).
bool compiled_in();

/// Number of usable CUDA devices; 0 when the build has no CUDA backend, no
/// driver is installed or no GPU is present. Never throws.
int device_count();

/// Human-readable name of device `index` ("NVIDIA H200 (sm_90, 139 GiB)"),
/// or an explanation of why it is unavailable.
std::string describe_device(int index);

}  // namespace vqe::cuda
