// SPDX-License-Identifier: BSD-2-Clause
// GPU throughput benchmark (run by `scripts/bench --gpu`; method in
// docs/benchmarks.md), for the CUDA backend (default) or the Vulkan one
// (--backend vulkan: frames always pass through the job's host-visible
// staging, so the "frames on device" column is empty; the table gives
// submissions and dispatches per frame instead of per-kernel times).
//
// Inputs are made in memory from one real frame pair: the first frame of a
// 1080p reference and of its real encode. Each benchmark frame is that pair
// panned by a few pixels (edge samples replicated), so that consecutive
// frames differ as in a camera pan. The 2160p 10-bit set is the same frames
// upscaled 2x with bilinear interpolation computed at 10-bit precision (so
// the low bits are not zero).
//
// Timed region: from the first frame taken from host RAM to the last score
// on the host (upload, kernels, readback and, for VMAF, the SVM prediction),
// after a warm-up, repeated over the frame set until at least --seconds.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#if defined(VQE_HAVE_CUDA)
#include <cuda_runtime.h>
#endif
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "backend/cuda/backend.h"
#include "bench_frames/bench_frames.h"
#include "backend/vulkan/backend.h"
#include "io/video_reader.h"
#include "vqe/error.h"
#include "core/extractor.h"
#include "vqe/model.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string reference, distorted, json;
  double seconds = 2.0;
  int device = 0;
  std::string backend = "cuda";  // or "vulkan"
  unsigned batch = 16;            // Vulkan: frames per submission
  unsigned frames_1080p = 240, frames_2160p = 120;
  bool split = false;  ///< also each of VMAF's extractors alone
  std::string only;    ///< run only the workloads whose name contains this (empty: all)
};

struct FrameSet {
  std::string name;
  std::vector<vqe::Picture> ref, dist;
  // Bytes uploaded per frame pair: luma only, or whole frames.
  std::size_t pair_bytes(bool chroma) const {
    const auto& f = ref.front().format();
    return chroma ? 2 * f.frame_bytes() : 2ull * f.width * f.height * f.bytes_per_sample();
  }
};

FrameSet make_set(const std::string& name, const vqe::Picture& ref, const vqe::Picture& dist,
                  unsigned count) {
  FrameSet set{name, {}, {}};
  vqe::bench::make_pan_frames(ref, dist, count, &set.ref, &set.dist);
  return set;
}

struct Workload {
  std::string name;
  std::vector<std::pair<std::string, vqe::OptionValues>> extractors;
  const vqe::Model* model = nullptr;
  bool chroma = false;  // reads the chroma planes too
};

struct Measurement {
  double fps = 0, seconds = 0;
  unsigned frames = 0;
  std::size_t device_bytes = 0, pinned_bytes = 0;
  double first_score = 0;
  vqe::vulkan::JobStats vulkan;  // Vulkan only
};

bool is_vulkan(const Args& args) { return args.backend == "vulkan"; }

std::unique_ptr<vqe::GpuJob> make_job(const Args& args) {
  if (!is_vulkan(args)) return vqe::cuda::make_gpu_job(args.device, 1);
  auto job = vqe::vulkan::make_vulkan_job(args.device, 1);
  vqe::vulkan::bench_hooks(*job).set_batch_frames(args.batch);
  return job;
}

bool has_extractor(const Args& args, const std::string& name) {
  return is_vulkan(args) ? vqe::vulkan::has_vulkan_extractor(name)
                         : vqe::cuda::has_cuda_extractor(name);
}

Measurement run(const Workload& w, const FrameSet& set, const Args& args, bool upload) {
  auto job = make_job(args);
  for (const auto& [name, opts] : w.extractors) job->add(name, opts);
  job->init(set.ref.front().format());
  std::vector<std::string> model_inputs;
  if (w.model)
    for (const vqe::ModelFeature& f : w.model->features()) {
      const vqe::ExtractorInfo* info = vqe::find_extractor_by_feature(f.internal_name);
      model_inputs.push_back(
          vqe::ParsedOptions(info->name, info->options, f.options).feature_name(f.internal_name));
    }
  const unsigned n = static_cast<unsigned>(set.ref.size());
  // Outside the timed region: page-lock the frames in host RAM (uploads then
  // go straight from them at PCIe speed), or copy them to the device once.
  if (upload) {
    for (unsigned i = 0; i < n; ++i) {
      job->register_host(set.ref[i]);
      job->register_host(set.dist[i]);
    }
  } else {
    std::vector<std::pair<const vqe::Picture*, const vqe::Picture*>> pairs;
    for (unsigned i = 0; i < n; ++i) pairs.emplace_back(&set.ref[i], &set.dist[i]);
    vqe::cuda::bench_hooks(*job).preload(pairs);
  }
  const auto submit = [&](unsigned i, unsigned index, vqe::FeatureCollector& out) {
    if (upload)
      job->submit(set.ref[i], set.dist[i], index, out);
    else
      vqe::cuda::bench_hooks(*job).submit_preloaded(i, index, out);
  };
  // Warm-up: the first frames of the stream, before the clock starts.
  vqe::FeatureCollector out;
  unsigned index = 0;
  for (unsigned i = 0; i < std::min(n, 16u); ++i) submit(i, index++, out);
  std::vector<double> values(model_inputs.size()), scores(1);
  Measurement m;
  const auto start = Clock::now();
  const unsigned first = index;
  unsigned done = 0;
  do {
    for (unsigned i = 0; i < n; ++i) submit(i, index++, out);
    done += n;
  } while (std::chrono::duration<double>(Clock::now() - start).count() < args.seconds);
  job->finish(out);
  if (w.model) {
    for (unsigned i = first; i < index; ++i) {
      for (std::size_t k = 0; k < model_inputs.size(); ++k) values[k] = *out.get(model_inputs[k], i);
      w.model->predict(values, scores);
      if (i == first) m.first_score = scores[0];
    }
  }
  m.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  m.frames = done;
  m.fps = done / m.seconds;
  m.device_bytes = job->device_peak_bytes();
  m.pinned_bytes = job->pinned_host_bytes();
  if (is_vulkan(args)) m.vulkan = vqe::vulkan::bench_hooks(*job).stats();
  if (upload)
    for (unsigned i = 0; i < n; ++i) {
      job->unregister_host(set.ref[i]);
      job->unregister_host(set.dist[i]);
    }
  return m;
}

// GPU time per frame of each extractor (CUDA events; frames on the device,
// one stream so that the times do not overlap).
std::vector<std::pair<std::string, double>> kernel_times(const Workload& w, const FrameSet& set,
                                                         const Args& args) {
  auto job = vqe::cuda::make_gpu_job(args.device, 1);
  for (const auto& [name, opts] : w.extractors) job->add(name, opts);
  job->init(set.ref.front().format());
  vqe::cuda::bench_hooks(*job).set_concurrent_frames(false);
  const unsigned n = std::min<unsigned>(static_cast<unsigned>(set.ref.size()), 64u);
  std::vector<std::pair<const vqe::Picture*, const vqe::Picture*>> pairs;
  for (unsigned i = 0; i < n; ++i) pairs.emplace_back(&set.ref[i], &set.dist[i]);
  vqe::cuda::bench_hooks(*job).preload(pairs);
  vqe::cuda::bench_hooks(*job).enable_kernel_timing(true);
  vqe::FeatureCollector out;
  unsigned index = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (unsigned i = 0; i < n; ++i) vqe::cuda::bench_hooks(*job).submit_preloaded(i, index++, out);
  job->finish(out);
  auto times = vqe::cuda::bench_hooks(*job).kernel_times_ms();
  for (auto& t : times) t.second = t.second * 1000.0 / index;  // microseconds per frame
  return times;
}

// Host-to-device bandwidth from pinned memory, GB/s (best of several 256 MiB
// copies); 0 in builds without CUDA.
double measure_h2d(int device) {
#if !defined(VQE_HAVE_CUDA)
  (void)device;
  return 0;
#else
  const std::size_t bytes = 256u << 20;
  cudaSetDevice(device);
  void *host = nullptr, *dev = nullptr;
  if (cudaMallocHost(&host, bytes) != cudaSuccess || cudaMalloc(&dev, bytes) != cudaSuccess)
    throw vqe::Error("bandwidth test: allocation failed");
  std::memset(host, 1, bytes);
  double best = 0;
  for (int rep = 0; rep < 8; ++rep) {
    const auto t0 = Clock::now();
    cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice);
    cudaDeviceSynchronize();
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    best = std::max(best, bytes / s / 1e9);
  }
  cudaFree(dev);
  cudaFreeHost(host);
  return best;
#endif
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
}

int main_impl(const Args& args) {
  const vqe::Picture ref8 = vqe::bench::read_first_frame(args.reference);
  const vqe::Picture dist8 = vqe::bench::read_first_frame(args.distorted);
  if (ref8.bit_depth() != 8 || ref8.width() != 1920 || ref8.height() != 1080)
    throw vqe::Error("vqe_gpu_bench: the inputs must be 1920x1080 8-bit");
  const auto t0 = Clock::now();
  std::vector<FrameSet> sets;
  sets.push_back(make_set("1080p 8-bit", ref8, dist8, args.frames_1080p));
  sets.push_back(make_set("2160p 10-bit", vqe::bench::upscale_to_10bit(ref8), vqe::bench::upscale_to_10bit(dist8),
                          args.frames_2160p));
  std::cerr << fmt::format("vqe_gpu_bench: made the frame sets in {:.1f} s\n",
                           std::chrono::duration<double>(Clock::now() - t0).count());
  const double h2d = is_vulkan(args) ? 0.0 : measure_h2d(args.device);
  const vqe::Model vmaf = vqe::Model::builtin("vmaf_v0.6.1");
  std::vector<Workload> workloads = {
      {"VMAF v0.6.1", {{"adm", {}}, {"motion", {}}, {"vif", {}}}, &vmaf},
      {"PSNR", {{"psnr", {}}}, nullptr, true},
      {"SSIM", {{"float_ssim", {}}}, nullptr},
      {"MS-SSIM", {{"float_ms_ssim", {}}}, nullptr},
  };
  if (args.split) {
    // Where VMAF's time goes: each of its extractors alone, same frames.
    workloads.push_back({"VMAF part: adm", {{"adm", {}}}, nullptr});
    workloads.push_back({"VMAF part: vif", {{"vif", {}}}, nullptr});
    workloads.push_back({"VMAF part: motion", {{"motion", {}}}, nullptr});
  }
  if (!args.only.empty())
    std::erase_if(workloads, [&](const Workload& w) { return w.name.find(args.only) == std::string::npos; });
  if (workloads.empty()) throw vqe::Error(fmt::format("--only {}: no workload matches", args.only));
  auto job_probe = make_job(args);
  const std::string device = job_probe->device_name();
  job_probe.reset();
  fmt::print("# vqe_gpu_bench --backend {} on {}\n", args.backend, device);
  if (h2d > 0)
    fmt::print("host-to-device bandwidth (pinned, 256 MiB copies, best of 8): {:.1f} GB/s\n\n", h2d);
  fmt::print("| workload | input | frames timed | fps, host RAM + upload | upload-bound fps "
             "| fraction of bound | fps, frames on device | device MiB | pinned MiB |\n");
  fmt::print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  nlohmann::json rows = nlohmann::json::array();
  for (const Workload& w : workloads) {
    bool all_gpu = true;
    for (const auto& e : w.extractors) all_gpu = all_gpu && has_extractor(args, e.first);
    for (const FrameSet& set : sets) {
      if (!all_gpu) {
        fmt::print("| {} | {} | — | no {} kernel yet | | | | | |\n", w.name, set.name, args.backend);
        continue;
      }
      Measurement host, resident;
      try {
        host = run(w, set, args, true);
        if (!is_vulkan(args)) resident = run(w, set, args, false);
      } catch (const std::exception& e) {
        fmt::print("| {} | {} | failed: {} | | | | | | |\n", w.name, set.name, e.what());
        std::fflush(stdout);
        continue;
      }
      const double bound = h2d * 1e9 / static_cast<double>(set.pair_bytes(w.chroma));
      fmt::print("| {} | {} | {} | {:.0f} | {} | {} | {} | {:.0f} | {:.0f} |\n", w.name,
                 set.name, host.frames, host.fps, h2d > 0 ? fmt::format("{:.0f}", bound) : "—",
                 h2d > 0 ? fmt::format("{:.2f}", host.fps / bound) : "—",
                 is_vulkan(args) ? "—" : fmt::format("{:.0f}", resident.fps),
                 host.device_bytes / 1048576.0, host.pinned_bytes / 1048576.0);
      std::string timing;
      if (is_vulkan(args)) {
        const auto& st = host.vulkan;
        const double frames = std::max<double>(1.0, static_cast<double>(st.frames));
        timing = fmt::format(
            "{} frames per batch (uploads {}); per frame: {:.3f} submissions, {:.2f} dispatches, "
            "{:.3f} copy commands",
            st.batch_frames, st.upload_queue ? "on their own queue" : "on the compute queue",
            st.submissions / frames, st.dispatches / frames, st.copies / frames);
        fmt::print("|   Vulkan work per frame | {} | {} | | | | | | |\n", set.name, timing);
      } else {
        try {
          for (const auto& [name, us] : kernel_times(w, set, args))
            timing += fmt::format("{}{} {:.0f} us", timing.empty() ? "" : ", ", name, us);
        } catch (const std::exception& e) {
          timing = std::string("timing failed: ") + e.what();
        }
        fmt::print("|   GPU time per frame (one stream) | {} | {} | | | | | | |\n", set.name, timing);
      }
      std::fflush(stdout);
      rows.push_back({{"workload", w.name}, {"input", set.name}, {"frames", host.frames},
                      {"seconds", host.seconds}, {"fps_upload", host.fps},
                      {"fps_resident", resident.fps}, {"upload_bound_fps", bound},
                      {"device_bytes", host.device_bytes}, {"pinned_bytes", host.pinned_bytes},
                      {"first_vmaf", host.first_score}, {"backend", args.backend},
                      {"submissions", host.vulkan.submissions},
                      {"dispatches", host.vulkan.dispatches},
                      {"vulkan_frames", host.vulkan.frames}});
    }
  }
  fmt::print("\npeak host RSS: {:.0f} MiB (includes the in-memory frame sets)\n", peak_rss_mib());
  if (!args.json.empty()) {
    nlohmann::json doc = {{"device", device}, {"h2d_gbps", h2d}, {"rows", rows},
                          {"peak_rss_mib", peak_rss_mib()}};
    std::ofstream(args.json) << doc.dump(2) << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw vqe::Error(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--reference") args.reference = value();
      else if (a == "--distorted") args.distorted = value();
      else if (a == "--json") args.json = value();
      else if (a == "--seconds") args.seconds = std::stod(value());
      else if (a == "--device") args.device = std::stoi(value());
      else if (a == "--batch") args.batch = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--backend") {
        args.backend = value();
        if (args.backend != "cuda" && args.backend != "vulkan")
          throw vqe::Error("--backend must be cuda or vulkan");
      }
      else if (a == "--frames-1080p") args.frames_1080p = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--frames-2160p") args.frames_2160p = static_cast<unsigned>(std::stoul(value()));
      else if (a == "--split") args.split = true;
      else if (a == "--only") args.only = value();
      else if (a == "--help") {
        std::cout << "vqe_gpu_bench --reference REF_1080p8.y4m --distorted DIST.y4m [--json FILE]\n"
                     "  [--seconds 2] [--device 0] [--backend cuda|vulkan] [--batch 16 (Vulkan)]\n"
                     "  [--frames-1080p 240]\n"
                     "  [--frames-2160p 120] [--split: also VMAF's adm, vif and motion alone]\n"
                     "  [--only TEXT: only the workloads whose name contains TEXT, e.g. VMAF]\n";
        return 0;
      } else throw vqe::Error("unknown argument " + a);
    } catch (const std::exception& e) {
      std::cerr << "vqe_gpu_bench: " << e.what() << "\n";
      return 2;
    }
  }
  if (args.reference.empty() || args.distorted.empty()) {
    std::cerr << "vqe_gpu_bench: --reference and --distorted are required (see --help)\n";
    return 2;
  }
  try {
    return main_impl(args);
  } catch (const std::exception& e) {
    std::cerr << "vqe_gpu_bench: " << e.what() << "\n";
    return 1;
  }
}
