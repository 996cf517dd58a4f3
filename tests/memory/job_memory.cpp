// SPDX-License-Identifier: BSD-2-Clause
// Memory stays flat however fast frames are pushed: a producer thread pushes
// 2,000 frames of 1080p 8-bit 4:2:0 through a Job (VMAF v0.6.1, 4 worker
// threads) as fast as submit() lets it. The resident set is sampled after
// 200 frames and at the end; the test fails if the end exceeds the early
// sample by more than 16 MiB (growth with the frame count) or the peak
// exceeds 400 MiB. Usage: vqe_memory_test [frames] [threads]

#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include "vqe/vqe.h"

namespace {

// Resident set size now, in MiB (VmRSS of /proc/self/status).
double rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") {
      double kib = 0;
      status >> kib;
      return kib / 1024.0;
    }
    std::getline(status, key);
  }
  return -1;
}

double peak_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

vqe::Picture pattern(const vqe::VideoFormat& f, int seed) {
  vqe::Picture p(f);
  for (int i = 0; i < p.num_planes(); ++i) {
    vqe::Plane& pl = p.plane(i);
    for (int y = 0; y < pl.height; ++y)
      for (int x = 0; x < pl.width; ++x)
        pl.row<std::uint8_t>(y)[x] = static_cast<std::uint8_t>((x * 3 + y * 5 + seed * 7) & 255);
  }
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned frames = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 2000;
  const unsigned threads = argc > 2 ? static_cast<unsigned>(std::atoi(argv[2])) : 4;
  const vqe::VideoFormat f{1920, 1080, 8, vqe::ChromaFormat::k420};
  const vqe::Picture ref[2] = {pattern(f, 0), pattern(f, 1)};
  const vqe::Picture dis[2] = {pattern(f, 2), pattern(f, 3)};
  try {
    vqe::JobConfig config;
    config.models.push_back(vqe::Model::builtin("vmaf_v0.6.1"));
    config.threads = threads;
    vqe::Job job(config);
    double early = 0;
    for (unsigned i = 0; i < frames; ++i) {
      job.submit(vqe::view_of(ref[i & 1]), vqe::view_of(dis[i & 1]));
      if (i + 1 == 200) early = rss_mib();
    }
    const double late = rss_mib();
    const vqe::JobResult r = job.finish();
    const double peak = peak_mib();
    std::printf("vqe_memory_test: %u frames 1080p8, %u threads: RSS %.1f MiB after 200 frames, "
                "%.1f MiB after %u, peak %.1f MiB; %u scored\n",
                frames, threads, early, late, frames, peak, r.frames);
    if (r.frames != frames) return 1;
    if (late > early + 16) {
      std::printf("vqe_memory_test: memory grew with the frame count\n");
      return 1;
    }
    if (peak > 400) {
      std::printf("vqe_memory_test: peak above 400 MiB\n");
      return 1;
    }
  } catch (const std::exception& e) {
    std::printf("vqe_memory_test: %s\n", e.what());
    return 1;
  }
  return 0;
}
