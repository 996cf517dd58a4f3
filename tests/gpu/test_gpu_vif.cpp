// SPDX-License-Identifier: BSD-2-Clause
// Focused CUDA tests of integer VIF (src/backend/cuda/vif_cuda.cu) against
// the CPU scalar reference: every option, bit depths 8/10/12/16 with low
// bits set, sizes around the tiles and the 17-tap support, the 16x16
// minimum and its refusal, extreme and flat content.

#include "gpu_vmaf_test_util.h"

namespace vqe::test::gpu {
namespace {

const std::vector<OptionValues> kVifOptions = {
    {},
    {{"vif_enhn_gain_limit", "1.0"}},  // the neg models
    {{"debug", "true"}},
    {{"debug", "true"}, {"vif_skip_scale0", "true"}},
    {{"debug", "true"}, {"vif_enhn_gain_limit", "1.5"}},
};

std::string label(const OptionValues& o) {
  std::string s = "vif";
  for (const auto& [k, v] : o) s += ":" + k + "=" + v;
  return s;
}

TEST(CudaVif, OptionsBitDepthsAndSizes) {
  VQE_REQUIRE_GPU();
  const int sizes[][2] = {{16, 16}, {17, 19}, {33, 31}, {64, 16}, {65, 17},
                          {127, 35}, {200, 120}, {15, 16}, {16, 15}};
  int values = 0;
  std::uint32_t seed = 1;
  for (const auto& sz : sizes)
    for (int bpc : {8, 10, 12, 16})
      for (int kind : {0, 1}) {
        const Frames frames = make_frames(sz[0], sz[1], bpc, kind, 2, seed++);
        for (const OptionValues& o : kVifOptions)
          values += expect_gpu_matches_cpu(
              "vif", o, frames,
              label(o) + " " + std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + " " +
                  std::to_string(bpc) + "-bit kind " + std::to_string(kind));
      }
  std::cout << "[vif] values compared: " << values << "\n";
}

TEST(CudaVif, ExtremeAndFlatContent) {
  VQE_REQUIRE_GPU();
  std::uint32_t seed = 100;
  for (int bpc : {8, 10, 12, 16})
    for (int kind : {2, 3}) {
      const Frames frames = make_frames(70, 40, bpc, kind, 2, seed++);
      for (const OptionValues& o : kVifOptions)
        expect_gpu_matches_cpu("vif", o, frames,
                               label(o) + " " + std::to_string(bpc) + "-bit kind " +
                                   std::to_string(kind));
    }
}

TEST(CudaVif, LargeFrames) {
  VQE_REQUIRE_GPU();
  expect_gpu_matches_cpu("vif", {}, make_frames(1920, 1080, 8, 0, 2, 7), "vif 1080p 8-bit");
  expect_gpu_matches_cpu("vif", {{"vif_enhn_gain_limit", "1.0"}},
                         make_frames(1280, 720, 10, 0, 2, 8), "vif:egl=1 720p 10-bit");
  expect_gpu_matches_cpu("vif", {}, make_frames(1000, 562, 16, 1, 1, 9), "vif 16-bit random");
}

}  // namespace
}  // namespace vqe::test::gpu
