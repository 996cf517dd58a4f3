// SPDX-License-Identifier: BSD-2-Clause
// vqe_bench_input: writes the Y4M pair that `scripts/bench --e2e` scores,
// made from one real frame pair without ffmpeg (bench_frames.h): the
// reference and its real encode, panned, at 1920x1080 8-bit or 3840x2160
// 10-bit 4:2:0. The files are what a user would score: both sides on disk
// (a RAM disk or the page cache), one FRAME line per frame.
//
//   vqe_bench_input --reference R.y4m --distorted D.y4m --size 1080p8
//                   --frames 600 --out-dir /dev/shm/vqe-e2e
//
// Prints the two paths. Files that exist with the expected size are kept.
//
//   vqe_bench_input --decode-only --reference R.mp4 --distorted D.mp4
//                   [--hwdec nvdec|none] [--gpu 0] [--planes 1|3]
//
// decodes two compressed files the way `vqe` reads them (scripts/
// bench-compressed --gpu: the decode-only rate beside the job's): both in one
// loop, each decoding ahead on its own thread; with NVDEC the frames are
// converted into device memory (the planes asked for) and dropped, on the CPU
// copied into host pictures. Prints one JSON line: frames, the seconds to
// open both (their first frames decoded), the seconds from the first frame
// pair to the last, and the rate of frames 2..N over that time.

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench_frames/bench_frames.h"
#include "io/device_source.h"
#include "vqe/io.h"
#include "vqe/error.h"

namespace {

std::string y4m_header(const vqe::VideoFormat& f) {
  const std::string chroma =
      f.bit_depth == 8 ? "C420jpeg" : fmt::format("C420p{} XYSCSS=420P{}", f.bit_depth, f.bit_depth);
  return fmt::format("YUV4MPEG2 W{} H{} F25:1 Ip A1:1 {}\n", f.width, f.height, chroma);
}

void write_frame(std::FILE* file, const vqe::Picture& pic, const std::string& path) {
  bool ok = std::fputs("FRAME\n", file) >= 0;
  const int bps = pic.format().bytes_per_sample();
  for (int p = 0; p < pic.num_planes() && ok; ++p) {
    const vqe::Plane& plane = pic.plane(p);
    const std::size_t row = static_cast<std::size_t>(plane.width) * bps;
    for (int y = 0; y < plane.height && ok; ++y)
      ok = std::fwrite(plane.row<std::uint8_t>(y), 1, row, file) == row;
  }
  if (!ok) throw vqe::Error(path + ": write failed");
}

std::uint64_t file_size(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

// --decode-only: see the top of this file.
int decode_only(const std::string& reference, const std::string& distorted,
                const std::string& hwdec, int gpu, int planes) {
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  vqe::DecodeOptions options;
  if (hwdec == "nvdec") {
    options.cuda_device = gpu;
    options.require_device = true;
  }
  const auto t0 = Clock::now();
  std::unique_ptr<vqe::FrameSource> sources[2] = {
      vqe::open_video(reference, nullptr, {}, options),
      vqe::open_video(distorted, nullptr, {}, options)};
  const auto opened = Clock::now();
  vqe::DeviceFrameSource* device[2] = {};
  for (int s = 0; s < 2; ++s) {
    device[s] = dynamic_cast<vqe::DeviceFrameSource*>(sources[s].get());
    if (device[s] && device[s]->frame_device() < 0) device[s] = nullptr;
    if (device[s]) device[s]->set_device_planes(planes);
  }
  vqe::Picture host[2];
  vqe::DevicePicture on_device[2];
  unsigned frames = 0;
  Clock::time_point first{};
  for (;;) {
    bool got[2] = {false, false};
    for (int s = 0; s < 2; ++s)
      got[s] = device[s] ? device[s]->read_device(on_device[s])
                         : sources[s]->read_planes(host[s], planes);
    if (!got[0] || !got[1]) break;
    for (auto& d : on_device) d = vqe::DevicePicture{};
    if (++frames == 1) first = Clock::now();
  }
  const auto end = Clock::now();
  const double steady = frames > 1 ? seconds(first, end) : 0.0;
  std::cout << fmt::format(
      "{{\"decoder\": \"{}\", \"frames\": {}, \"open_s\": {:.6f}, \"steady_s\": {:.6f}, "
      "\"steady_fps\": {:.3f}, \"total_s\": {:.6f}}}\n",
      device[0] || device[1] ? "nvdec" : "cpu", frames, seconds(t0, opened), steady,
      steady > 0 ? (frames - 1) / steady : 0.0, seconds(t0, end));
  return frames > 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Writes the Y4M pair of scripts/bench --e2e from one real frame pair; or "
               "(--decode-only) decodes two compressed files and drops the frames", "vqe_bench_input"};
  std::string reference, distorted, size = "1080p8", out_dir, hwdec = "nvdec";
  unsigned frames = 600;
  bool decode = false;
  int gpu = 0, planes = 1;
  app.add_option("--reference", reference, "1080p 8-bit 4:2:0 reference (its first frame is used)")
      ->required();
  app.add_option("--distorted", distorted, "its real encode, same format")->required();
  app.add_option("--size", size, "1080p8 or 2160p10")->check(CLI::IsMember({"1080p8", "2160p10"}));
  app.add_option("--frames", frames, "frames to write")->check(CLI::Range(1u, 100000u));
  app.add_option("--out-dir", out_dir, "folder for the two files");
  app.add_flag("--decode-only", decode,
               "Decode --reference and --distorted (compressed) and drop the frames; print a JSON "
               "line with the rate");
  app.add_option("--hwdec", hwdec, "--decode-only: nvdec (required) or none (the CPU)")
      ->check(CLI::IsMember({"nvdec", "none"}));
  app.add_option("--gpu", gpu, "--decode-only: the CUDA device for NVDEC");
  app.add_option("--planes", planes, "--decode-only: planes kept per frame, 1 (luma, as VMAF) or 3")
      ->check(CLI::IsMember({1, 3}));
  try {
    app.parse(argc, argv);
    if (!decode && out_dir.empty()) throw CLI::RequiredError("--out-dir");
  } catch (const CLI::ParseError& e) {
    return app.exit(e) ? 1 : 0;
  }
  if (decode) {
    try {
      return decode_only(reference, distorted, hwdec, gpu, planes);
    } catch (const vqe::Error& e) {
      std::cerr << "vqe_bench_input: " << e.what() << "\n";
      return 1;
    }
  }
  try {
    vqe::Picture ref = vqe::bench::read_first_frame(reference);
    vqe::Picture dist = vqe::bench::read_first_frame(distorted);
    if (size == "2160p10") {
      ref = vqe::bench::upscale_to_10bit(ref);
      dist = vqe::bench::upscale_to_10bit(dist);
    }
    const vqe::VideoFormat f = ref.format();
    const std::string base = fmt::format("{}/e2e_{}_{}f", out_dir, size, frames);
    const std::string paths[2] = {base + ".y4m", base + "__dist.y4m"};
    const std::uint64_t expected = y4m_header(f).size() + std::uint64_t{frames} * (6 + f.frame_bytes());
    if (file_size(paths[0]) != expected || file_size(paths[1]) != expected) {
      std::unique_ptr<std::FILE, int (*)(std::FILE*)> files[2] = {
          {std::fopen(paths[0].c_str(), "wb"), std::fclose},
          {std::fopen(paths[1].c_str(), "wb"), std::fclose}};
      for (int s = 0; s < 2; ++s) {
        if (!files[s]) throw vqe::Error(paths[s] + ": cannot create");
        std::fputs(y4m_header(f).c_str(), files[s].get());
      }
      // Batches made on several threads, written in order.
      const unsigned workers = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
      const unsigned batch = 4 * workers;
      std::vector<vqe::Picture> made[2] = {std::vector<vqe::Picture>(batch),
                                           std::vector<vqe::Picture>(batch)};
      for (unsigned first = 0; first < frames; first += batch) {
        const unsigned n = std::min(batch, frames - first);
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < workers; ++t)
          pool.emplace_back([&, t] {
            for (unsigned k = t; k < n; k += workers) {
              int dx = 0, dy = 0;
              vqe::bench::pan_offset(first + k, &dx, &dy);
              made[0][k] = vqe::bench::panned(ref, dx, dy);
              made[1][k] = vqe::bench::panned(dist, dx, dy);
            }
          });
        for (auto& th : pool) th.join();
        for (int s = 0; s < 2; ++s)
          for (unsigned k = 0; k < n; ++k) write_frame(files[s].get(), made[s][k], paths[s]);
      }
      for (int s = 0; s < 2; ++s)
        if (std::fflush(files[s].get()) != 0) throw vqe::Error(paths[s] + ": write failed");
    }
    std::cout << paths[0] << "\n" << paths[1] << "\n";
  } catch (const vqe::Error& e) {
    std::cerr << "vqe_bench_input: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
