// SPDX-License-Identifier: BSD-2-Clause
// NVDEC: compressed inputs decoded on the GPU into device memory and scored
// there by a CUDA job give the scores of CPU decoding bit for bit, frame by
// frame: VMAF v0.6.1 (luma only: the decoders keep luma only) and VMAF +
// psnr with chroma (the de-interleaved chroma planes), for H.264, HEVC 8, 10
// and 12-bit, VP9 8 and 10-bit, AV1 8 and 10-bit and a 1080p H.264 (cropped
// from 1088 coded rows). The encodes, and the per-frame values of each pair
// computed by a normal build (Debian's FFmpeg, libdav1d for AV1: an
// independent decoder), are made by scripts/gpu-pack (scripts/nvdec-media)
// into testdata/nvdec of ../shared ($VQE_SHARED; .carry/gpu/shared on the GPU
// machine). AV1 has no CPU decoder in the minimal static FFmpeg of the GPU
// build, so its NVDEC scores are compared with those values only.
//
// Skips without a CUDA device or without the media; with a device, NVDEC must
// decode every case (libnvcuvid.so.1 and the driver present).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/cuda/device.h"
#include "io/device_source.h"
#include "test_util.h"
#include "vqe/error.h"

namespace {

namespace fs = std::filesystem;
using vqe::DecodeOptions;
using vqe::FrameSource;
using vqe::JobConfig;
using vqe::JobResult;

struct NvdecCase {
  std::string name;
  fs::path reference, distorted;
  std::string codec;
  int bit_depth = 8;
  unsigned frames = 0;
  bool cpu_decode = true;  // the minimal FFmpeg decodes both on the CPU
  std::map<std::string, fs::path> expected;  // variant -> per-frame values (vqe --json)
};

// The media folder: $VQE_NVDEC_DATA, else testdata/nvdec of ../shared.
std::optional<fs::path> media_dir() {
  if (const char* env = std::getenv("VQE_NVDEC_DATA"); env && *env) return fs::path(env);
  const auto shared = vqe::test::shared_dir();
  if (!shared) return std::nullopt;
  const fs::path dir = *shared / "testdata/nvdec";
  if (!fs::exists(dir / "manifest.json")) return std::nullopt;
  return dir;
}

std::vector<NvdecCase> load_cases(const fs::path& dir) {
  std::ifstream in(dir / "manifest.json");
  const auto doc = nlohmann::json::parse(in);
  std::vector<NvdecCase> cases;
  for (const auto& c : doc.at("cases")) {
    NvdecCase k;
    k.name = c.at("name").get<std::string>();
    k.reference = dir / c.at("reference").get<std::string>();
    k.distorted = dir / c.at("distorted").get<std::string>();
    k.codec = c.at("codec").get<std::string>();
    k.bit_depth = c.at("bit_depth").get<int>();
    k.frames = c.at("frames").get<unsigned>();
    k.cpu_decode = c.at("cpu_decode").get<bool>();
    for (const auto& [variant, file] : c.at("expected").items())
      k.expected[variant] = dir / file.get<std::string>();
    cases.push_back(std::move(k));
  }
  return cases;
}

// "vmaf": VMAF v0.6.1 (luma only); "vmaf_psnr": and psnr with chroma.
JobConfig config_for(const std::string& variant, std::vector<std::string>* notes) {
  JobConfig c;
  c.models.push_back(vqe::load_model_spec("version=vmaf_v0.6.1"));
  if (variant == "vmaf_psnr") c.features.push_back(vqe::FeatureRequest{"psnr", {}});
  c.backend = JobConfig::Backend::kCuda;
  c.gpu = 0;
  c.on_note = [notes](const std::string& n) {
    if (notes) notes->push_back(n);
  };
  return c;
}

DecodeOptions nvdec() {
  DecodeOptions d;
  d.cuda_device = 0;
  d.require_device = true;
  return d;
}

bool any_note_has(const std::vector<std::string>& notes, const std::string& text) {
  for (const std::string& n : notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& notes) {
  std::string s;
  for (const std::string& n : notes) s += "\n  " + n;
  return s;
}

std::unique_ptr<FrameSource> open(const fs::path& path, bool on_gpu) {
  auto source = vqe::open_video(path.string(), nullptr, {}, on_gpu ? nvdec() : DecodeOptions{});
  auto* device = dynamic_cast<vqe::DeviceFrameSource*>(source.get());
  EXPECT_TRUE(device != nullptr) << path;
  if (device) {
    EXPECT_EQ(device->frame_device(), on_gpu ? 0 : -1) << path;
  }
  return source;
}

JobResult score(const NvdecCase& c, const std::string& variant, bool ref_gpu, bool dist_gpu,
                std::vector<std::string>* notes = nullptr) {
  auto ref = open(c.reference, ref_gpu);
  auto dist = open(c.distorted, dist_gpu);
  return vqe::run_job(*ref, *dist, config_for(variant, notes));
}

// Every value of the expected JSON (vqe --json --precision max of a normal
// build) equals the result's, bit for bit.
void expect_equals_json(const JobResult& result, const fs::path& json, const std::string& what) {
  std::ifstream in(json);
  ASSERT_TRUE(in) << json;
  const auto doc = nlohmann::json::parse(in);
  const auto& frames = doc.at("frames");
  ASSERT_EQ(frames.size(), result.frames) << what;
  int compared = 0, differing = 0;
  for (std::size_t i = 0; i < frames.size(); ++i)
    for (const auto& [name, value] : frames[i].at("metrics").items()) {
      const auto got = result.features.get(name, static_cast<unsigned>(i));
      ASSERT_TRUE(got.has_value()) << what << ": no " << name << " at frame " << i;
      const double want = value.get<double>();
      if (std::memcmp(&want, &*got, sizeof want) != 0 && ++differing <= 5) {
        ADD_FAILURE() << what << ": " << name << " at frame " << i << ": " << *got
                      << " (NVDEC), " << want << " (CPU decoding, " << json.filename() << ")";
      }
      ++compared;
    }
  EXPECT_EQ(differing, 0) << what;
  EXPECT_GT(compared, 0) << what;
}

#define VQE_NVDEC_SETUP(cases)                                                        \
  if (vqe::cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device: skipping";     \
  if (!vqe::compressed_input_available()) GTEST_SKIP() << "built without FFmpeg";     \
  const auto media_opt = media_dir();                                                 \
  if (!media_opt)                                                                     \
    GTEST_SKIP() << "no NVDEC media (testdata/nvdec: made by scripts/gpu-pack)";      \
  const std::vector<NvdecCase> cases = load_cases(*media_opt);                        \
  ASSERT_FALSE(cases.empty())

TEST(Nvdec, ScoresEqualCpuDecoding) {
  VQE_NVDEC_SETUP(cases);
  for (const NvdecCase& c : cases)
    for (const std::string variant : {"vmaf", "vmaf_psnr"}) {
      const std::string what = c.name + " " + variant;
      SCOPED_TRACE(what);
      std::vector<std::string> notes;
      JobResult on_gpu;
      try {
        on_gpu = score(c, variant, true, true, &notes);
      } catch (const vqe::Error& e) {
        // A GPU whose NVDEC lacks a codec (an H200 has no AV1) is told
        // apart from a wrong result: the message names the decoder.
        if (std::string(e.what()).find("this GPU's decoder (NVDEC) cannot decode") !=
            std::string::npos) {
          std::printf("[nvdec] %s: not compared: %s\n", what.c_str(), e.what());
          continue;
        }
        ADD_FAILURE() << what << ": " << e.what();
        continue;
      }
      EXPECT_TRUE(any_note_has(notes, "stay in the memory of CUDA device 0")) << joined(notes);
      EXPECT_EQ(on_gpu.frames, c.frames);
      EXPECT_EQ(on_gpu.format.bit_depth, c.bit_depth);
      if (c.cpu_decode) {
        const JobResult on_cpu = score(c, variant, false, false);
        EXPECT_EQ(vqe::test::expect_bit_identical(on_cpu.features, on_gpu.features, what), 0);
      }
      const auto json = c.expected.find(variant);
      if (json != c.expected.end()) expect_equals_json(on_gpu, json->second, what);
      std::cout << "[nvdec] " << what << ": " << on_gpu.frames << " frames, "
                << (c.cpu_decode ? "equal to CPU decoding and " : "") << "equal to "
                << (json != c.expected.end() ? json->second.filename().string() : "-") << "\n";
    }
}

// The same frames through FrameSource::read() (NVDEC, converted on the
// device, copied to host memory) as CPU decoding gives, sample for sample.
TEST(Nvdec, FramesCopiedToHostEqualCpuDecoding) {
  VQE_NVDEC_SETUP(cases);
  for (const NvdecCase& c : cases) {
    if (!c.cpu_decode) continue;
    SCOPED_TRACE(c.name);
    auto gpu = open(c.distorted, true);
    auto cpu = open(c.distorted, false);
    ASSERT_EQ(gpu->format(), cpu->format());
    vqe::Picture a, b;
    unsigned frames = 0, differing = 0;
    for (;;) {
      const bool got_a = gpu->read(a), got_b = cpu->read(b);
      ASSERT_EQ(got_a, got_b) << "frame " << frames;
      if (!got_a) break;
      const int bps = a.format().bytes_per_sample();
      for (int p = 0; p < a.num_planes(); ++p)
        for (int y = 0; y < a.plane(p).height; ++y)
          if (std::memcmp(a.plane(p).row<std::uint8_t>(y), b.plane(p).row<std::uint8_t>(y),
                          static_cast<std::size_t>(a.plane(p).width) * bps) != 0 &&
              ++differing <= 3) {
            ADD_FAILURE() << "frame " << frames << " plane " << p << " row " << y << " differs";
          }
      ++frames;
    }
    EXPECT_EQ(frames, c.frames);
    EXPECT_EQ(differing, 0u);
  }
}

// One input decoded on the CPU (host memory, uploaded), the other with
// NVDEC (device memory): the same scores.
TEST(Nvdec, HostAndDeviceInputsInOneJob) {
  VQE_NVDEC_SETUP(cases);
  const NvdecCase& c = cases.front();
  ASSERT_TRUE(c.cpu_decode) << c.name;
  const JobResult both = score(c, "vmaf_psnr", true, true);
  std::vector<std::string> notes;
  const JobResult ref_host = score(c, "vmaf_psnr", false, true, &notes);
  EXPECT_TRUE(any_note_has(notes, "stay in the memory of CUDA device 0")) << joined(notes);
  EXPECT_EQ(vqe::test::expect_bit_identical(both.features, ref_host.features, "ref on host"), 0);
  const JobResult dist_host = score(c, "vmaf_psnr", true, false);
  EXPECT_EQ(vqe::test::expect_bit_identical(both.features, dist_host.features, "dist on host"), 0);
}

// A job with an extractor that runs on the CPU takes NVDEC's frames copied
// to host memory, and says so.
TEST(Nvdec, JobWithCpuExtractorTakesHostCopies) {
  VQE_NVDEC_SETUP(cases);
  const NvdecCase& c = cases.front();
  const auto run = [&](bool on_gpu, std::vector<std::string>* notes) {
    JobConfig config = config_for("vmaf", notes);
    config.features.push_back(vqe::FeatureRequest{"ciede", {}});
    config.threads = 2;
    auto ref = open(c.reference, on_gpu);
    auto dist = open(c.distorted, on_gpu);
    return vqe::run_job(*ref, *dist, config);
  };
  std::vector<std::string> notes;
  const JobResult gpu = run(true, &notes);
  EXPECT_TRUE(any_note_has(notes, "copied to host memory: ciede runs on the CPU")) << joined(notes);
  const JobResult cpu = run(false, nullptr);
  EXPECT_EQ(vqe::test::expect_bit_identical(cpu.features, gpu.features, c.name + " ciede"), 0);
}

}  // namespace
