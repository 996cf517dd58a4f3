// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality of float_ms_ssim: its 9x9 low-pass decimation at
// factor 2 on every scale and the whole extractor, every SIMD level against
// the scalar reference, compared as bit patterns. (The shared SSIM kernels
// are tested in test_simd_float_ssim.cpp.)

#include <array>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/float_ssim/iqa_ssim.h"
#include "small_simd_util.h"

namespace vqe {
namespace {

TEST(SimdMsSsim, LowPassDecimateMatchesScalar) {
  std::vector<float> taps(81);
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> tap(-0.05f, 0.37f);
  for (float& t : taps) t = tap(rng);
  std::uniform_real_distribution<float> val(0.0f, 255.0f);
  for (const auto& s : {std::array<int, 2>{176, 176}, {177, 181}, {203, 190}, {97, 45}}) {
    int w = s[0], h = s[1];
    std::vector<float> img(static_cast<std::size_t>(w) * h);
    for (std::size_t i = 0; i < img.size(); ++i) img[i] = (i % 5 == 0) ? 0.0f : val(rng);
    std::vector<float> scratch(iqa::decimate_scratch_size(w, 2, 9));
    for (int scale = 1; scale < 5; ++scale) {
      const int ow = iqa::decimated_size(w, 2), oh = iqa::decimated_size(h, 2);
      std::vector<float> ref(static_cast<std::size_t>(ow) * oh);
      iqa::decimate(img.data(), w, h, 2, taps.data(), 9, ref.data());
      for (simd::Level level : simd::available_levels()) {
        std::vector<float> got(ref.size(), -1.0f);
        iqa::decimate(iqa::iqa_dsp(level), img.data(), w, h, 2, taps.data(), 9, got.data(),
                      scratch.data());
        EXPECT_EQ(0, std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)))
            << w << "x" << h << " @" << simd::level_name(level);
      }
      img = ref;
      w = ow;
      h = oh;
    }
  }
}

TEST(SimdMsSsim, ExtractorMatchesScalar) {
  simdtest::check_extractor_levels(
      "float_ms_ssim", {{}, {{"enable_lcs", "true"}, {"enable_db", "true"}}},
      {{176, 176, 8}, {177, 179, 10}, {203, 181, 12}, {241, 190, 16}, {175, 300, 8}});
}

}  // namespace
}  // namespace vqe
