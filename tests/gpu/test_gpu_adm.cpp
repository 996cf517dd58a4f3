// SPDX-License-Identifier: BSD-2-Clause
// Focused CUDA tests of integer ADM (src/backend/cuda/adm_cuda.cu) against
// the CPU scalar reference: every option that changes numbers (enhancement
// gain limit of the neg models, CSF modes and viewing conditions, noise
// weight, skipped scale 0 / AIM, ADM3 blending), bit depths 8/10/12/16 with
// low bits set, odd sizes near the 33-sample minimum and its refusal,
// extreme and flat content.

#include "gpu_vmaf_test_util.h"

namespace vqe::test::gpu {
namespace {

const std::vector<OptionValues> kAdmOptions = {
    {},
    {{"adm_enhn_gain_limit", "1.0"}},  // the neg models
    {{"debug", "true"}, {"adm_enhn_gain_limit", "1.2"}},
    {{"debug", "true"}, {"adm_skip_scale0", "true"}},
    {{"adm_skip_aim", "true"}, {"adm_dlm_weight", "0.7"}, {"adm_min_val", "0.9"}},
    {{"debug", "true"}, {"adm_csf_mode", "1"}, {"adm_csf_scale", "1.5"},
     {"adm_csf_diag_scale", "0.8"}},
    {{"adm_csf_mode", "2"}, {"adm_ref_display_height", "2160"}, {"adm_norm_view_dist", "1.5"}},
    {{"adm_csf_mode", "3"}},
    {{"debug", "true"}, {"adm_norm_view_dist", "5"}, {"adm_ref_display_height", "720"}},
    {{"debug", "true"}, {"adm_noise_weight", "0"}},
};

std::string label(const OptionValues& o) {
  std::string s = "adm";
  for (const auto& [k, v] : o) s += ":" + k + "=" + v;
  return s;
}

TEST(CudaAdm, OptionsBitDepthsAndSizes) {
  VQE_REQUIRE_GPU();
  const int sizes[][2] = {{33, 33}, {34, 35}, {37, 61}, {64, 33}, {100, 57},
                          {257, 129}, {32, 40}, {40, 32}};
  int values = 0;
  std::uint32_t seed = 1;
  for (const auto& sz : sizes)
    for (int bpc : {8, 10, 12, 16})
      for (int kind : {0, 1}) {
        const Frames frames = make_frames(sz[0], sz[1], bpc, kind, 2, seed++);
        for (const OptionValues& o : kAdmOptions)
          values += expect_gpu_matches_cpu(
              "adm", o, frames,
              label(o) + " " + std::to_string(sz[0]) + "x" + std::to_string(sz[1]) + " " +
                  std::to_string(bpc) + "-bit kind " + std::to_string(kind));
      }
  std::cout << "[adm] values compared: " << values << "\n";
}

TEST(CudaAdm, ExtremeAndFlatContent) {
  VQE_REQUIRE_GPU();
  std::uint32_t seed = 100;
  for (int bpc : {8, 10, 12, 16})
    for (int kind : {2, 3}) {
      const Frames frames = make_frames(70, 45, bpc, kind, 2, seed++);
      for (const OptionValues& o : kAdmOptions)
        expect_gpu_matches_cpu("adm", o, frames,
                               label(o) + " " + std::to_string(bpc) + "-bit kind " +
                                   std::to_string(kind));
    }
}

TEST(CudaAdm, LargeFrames) {
  VQE_REQUIRE_GPU();
  expect_gpu_matches_cpu("adm", {}, make_frames(1920, 1080, 8, 0, 2, 7), "adm 1080p 8-bit");
  expect_gpu_matches_cpu("adm", {{"adm_enhn_gain_limit", "1.0"}},
                         make_frames(1280, 720, 10, 0, 2, 8), "adm:egl=1 720p 10-bit");
  expect_gpu_matches_cpu("adm", {}, make_frames(1000, 562, 16, 1, 1, 9), "adm 16-bit random");
}

}  // namespace
}  // namespace vqe::test::gpu
