// SPDX-License-Identifier: BSD-2-Clause
// Throughput of the CUDA runtime with the VMAF feature set (vif, adm,
// motion): frames in host RAM (page-locked, upload timed) and frames already
// on the device, serial vs concurrent streams, plus the measured
// host-to-device bandwidth. Not a correctness test: runs only with
// VQE_GPU_TIMING=1 (skips otherwise) and prints a table.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/cuda/backend.h"
#include "backend/cuda/device.h"
#include "test_util.h"

namespace {

using vqe::FeatureCollector;
using vqe::Picture;
using vqe::VideoFormat;

// Submits `warm` frames, then times `total` more (cycling through
// `frames`) until finish() returns every result; returns frames per second.
double run(vqe::cuda::GpuJob& job, const std::vector<std::pair<Picture, Picture>>& frames,
           unsigned warm, unsigned total, bool preloaded) {
  FeatureCollector out;
  auto submit = [&](unsigned i) {
    const std::size_t k = i % frames.size();
    if (preloaded)
      vqe::cuda::bench_hooks(job).submit_preloaded(k, i, out);
    else
      job.submit(frames[k].first, frames[k].second, i, out);
  };
  for (unsigned i = 0; i < warm; ++i) submit(i);
  const auto t0 = std::chrono::steady_clock::now();
  for (unsigned i = warm; i < warm + total; ++i) submit(i);
  job.finish(out);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return total / s;
}

TEST(CudaThroughput, VmafFeatureSet) {
  if (vqe::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const char* env = std::getenv("VQE_GPU_TIMING");
  if (!env || std::string(env) != "1") GTEST_SKIP() << "set VQE_GPU_TIMING=1 to run";
  struct Size {
    int w, h, bpc;
    unsigned frames;
  };
  for (const Size& sz : {Size{1920, 1080, 8, 400}, Size{3840, 2160, 10, 200}}) {
    VideoFormat f;
    f.width = sz.w;
    f.height = sz.h;
    f.bit_depth = sz.bpc;
    f.chroma = vqe::ChromaFormat::k420;
    std::vector<std::pair<Picture, Picture>> frames;
    for (std::uint32_t i = 0; i < 8; ++i) {
      Picture ref = vqe::test::synthetic_picture(f, 10 + i, vqe::test::Fill::smooth);
      Picture dist = vqe::test::distort_picture(ref, 50 + i, sz.bpc == 8 ? 6 : 24);
      frames.emplace_back(std::move(ref), std::move(dist));
    }
    for (int mode = 0; mode < 4; ++mode) {
      const bool preloaded = mode >= 2, concurrent = mode % 2 == 1;
      auto job = vqe::cuda::make_gpu_job(0, 1);
      for (const char* e : {"vif", "adm", "motion"})
        if (vqe::cuda::has_cuda_extractor(e)) job->add(e, {});
      job->init(f);
      vqe::cuda::bench_hooks(*job).set_concurrent_frames(concurrent);
      if (preloaded) {
        std::vector<std::pair<const Picture*, const Picture*>> ptrs;
        for (auto& [r, d] : frames) ptrs.emplace_back(&r, &d);
        vqe::cuda::bench_hooks(*job).preload(ptrs);
      } else {
        for (auto& [r, d] : frames) {
          job->register_host(r);
          job->register_host(d);
        }
      }
      if (mode == 2) vqe::cuda::bench_hooks(*job).enable_kernel_timing(true);
      const double fps = run(*job, frames, 32, sz.frames, preloaded);
      if (mode == 2) {
        std::printf("[throughput] %dx%d %d-bit GPU time per frame (serial, on-device):", sz.w,
                    sz.h, sz.bpc);
        for (const auto& [name, ms] : vqe::cuda::bench_hooks(*job).kernel_times_ms())
          std::printf(" %s %.1f us", name.c_str(), 1000.0 * ms / (32 + sz.frames));
        std::printf("\n");
      }
      std::printf("[throughput] %dx%d %d-bit vif+adm+motion %-9s %-10s %8.1f fps  device %zu MiB\n",
                  sz.w, sz.h, sz.bpc, preloaded ? "on-device" : "host-RAM",
                  concurrent ? "concurrent" : "serial", fps, job->device_peak_bytes() >> 20);
    }
    // Host-to-device bandwidth of the luma pair upload alone (no extractor).
    {
      auto job = vqe::cuda::make_gpu_job(0, 1);
      job->init(f);
      for (auto& [r, d] : frames) {
        job->register_host(r);
        job->register_host(d);
      }
      const double fps = run(*job, frames, 32, sz.frames * 2, false);
      const double bytes = 2.0 * sz.w * sz.h * (sz.bpc > 8 ? 2 : 1);
      std::printf("[throughput] %dx%d %d-bit upload only (luma pair %.1f MB): %8.1f fps = %.1f GB/s\n",
                  sz.w, sz.h, sz.bpc, bytes / 1e6, fps, fps * bytes / 1e9);
    }
  }
}

}  // namespace
