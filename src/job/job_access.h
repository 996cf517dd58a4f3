// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file What run_job() (src/job) does with a Job beyond its public API:
/// frames decoded into a GPU's memory (NVDEC) handed to the job's CUDA part
/// without passing through host memory.

#include <string>

#include "core/gpu_job.h"
#include "vqe/job.h"

namespace vqe::detail {

/// run_job()'s access to a Job's internals.
struct JobAccess {
  /// The CUDA device whose pictures in device memory the started `job` takes
  /// as input (submit_inputs), or -1 when it takes none; then `*why` says
  /// why not (the job computes on the CPU, another backend, an extractor
  /// that runs on the CPU and so needs frames in host memory).
  static int device_input(const Job& job, std::string* why);

  /// Queues the next frame pair of a job whose device_input() is a device:
  /// each side in host memory (copied during the call) or in device memory
  /// (GpuJob::submit_inputs). Throws vqe::Error as Job::submit() does.
  static void submit_inputs(Job& job, const GpuInput& reference, const GpuInput& distorted);
};

}  // namespace vqe::detail
