// SPDX-License-Identifier: BSD-2-Clause
// Built instead of gpu_job.cu when the CUDA toolkit is absent.
#include "backend/cuda/backend.h"
#include "vqe/error.h"

namespace vqe::cuda {

std::unique_ptr<GpuJob> make_gpu_job(int, unsigned) {
  throw Error("--backend cuda: this build has no CUDA backend (configure with nvcc present and "
              "VQE_ENABLE_CUDA=ON)");
}

GpuBenchHooks& bench_hooks(GpuJob&) {
  throw Error("this build has no CUDA backend");
}

}  // namespace vqe::cuda
