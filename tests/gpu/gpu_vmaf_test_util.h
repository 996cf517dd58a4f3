// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Helpers of the focused VIF/ADM CUDA tests: run an extractor on the
/// GPU (GpuJob) and on the CPU scalar reference over the same in-memory
/// frames and require bit-identical values, or the same refusal text.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "backend/cuda/backend.h"
#include "backend/cuda/device.h"
#include "core/simd.h"
#include "test_util.h"
#include "vqe/error.h"

namespace vqe::test::gpu {

#define VQE_REQUIRE_GPU() \
  if (vqe::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: skipping"

using Frames = std::vector<std::pair<Picture, Picture>>;

/// Runs `name` with `options` over `frames` through a one-extractor GpuJob.
inline FeatureCollector run_gpu(const std::string& name, const OptionValues& options,
                                const Frames& frames) {
  auto job = vqe::cuda::make_gpu_job(0, 1);
  const std::size_t h = job->add(name, options);
  job->init(frames.at(0).first.format());
  FeatureCollector out;
  for (const std::string& n : job->feature_names(h)) out.declare(n);
  for (unsigned i = 0; i < frames.size(); ++i) job->submit(frames[i].first, frames[i].second, i, out);
  job->finish(out);
  return out;
}

/// CPU (scalar level: the reference) vs GPU: same refusal text, or every
/// value bit-identical. Returns the number of values compared (0 on a
/// matching refusal).
inline int expect_gpu_matches_cpu(const std::string& name, const OptionValues& options,
                                  const Frames& frames, const std::string& what) {
  std::string cpu_err, gpu_err;
  FeatureCollector cpu, gpu;
  try {
    cpu = run_on_pictures(name, options, frames, nullptr, simd::Level::scalar);
  } catch (const Error& e) {
    cpu_err = e.what();
  }
  try {
    gpu = run_gpu(name, options, frames);
  } catch (const Error& e) {
    gpu_err = e.what();
  }
  EXPECT_EQ(cpu_err, gpu_err) << what << ": refusals differ";
  if (!cpu_err.empty() || !gpu_err.empty()) return 0;
  EXPECT_EQ(cpu.names(), gpu.names()) << what;
  expect_bit_identical(cpu, gpu, what);
  return static_cast<int>(cpu.names().size() * cpu.frame_count());
}

/// Frame pairs of `w` x `h` at `bpc` (4:0:0): kind 0 = smooth reference with
/// a small distortion, 1 = independent random frames (extreme variances),
/// 2 = all-max reference against black, 3 = flat identical frames.
inline Frames make_frames(int w, int h, int bpc, int kind, int n, std::uint32_t seed) {
  VideoFormat f;
  f.width = w;
  f.height = h;
  f.bit_depth = bpc;
  f.chroma = ChromaFormat::k400;
  Frames frames;
  for (int i = 0; i < n; ++i) {
    const std::uint32_t s = seed * 977 + static_cast<std::uint32_t>(i) * 31;
    switch (kind) {
      case 0: {
        Picture ref = synthetic_picture(f, s, Fill::smooth);
        Picture dis = distort_picture(ref, s + 1, bpc == 8 ? 6 : 6 << (bpc - 8));
        frames.emplace_back(std::move(ref), std::move(dis));
        break;
      }
      case 1:
        frames.emplace_back(synthetic_picture(f, s, Fill::random),
                            synthetic_picture(f, s + 1, Fill::random));
        break;
      case 2:
        frames.emplace_back(synthetic_picture(f, s, Fill::max_value), Picture(f));
        break;
      default:
        frames.emplace_back(synthetic_picture(f, s, Fill::flat), synthetic_picture(f, s, Fill::flat));
    }
  }
  return frames;
}

}  // namespace vqe::test::gpu
