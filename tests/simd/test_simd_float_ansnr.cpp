// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality of float_ansnr's SIMD 2-D filter and of the
// extractor: every SIMD level against the scalar reference, bit patterns.

#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/float_ansnr/float_ansnr_kernels.h"
#include "small_simd_util.h"

namespace vqe {
namespace {

using simdtest::Content;

TEST(SimdFloatAnsnr, Filter2dMatchesScalar) {
  const float k3[9] = {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f,
                       2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f};
  float k5[25];
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> tap(-0.1f, 0.3f);
  for (float& t : k5) t = tap(rng);
  std::uniform_real_distribution<float> val(-128.0f, 127.75f);
  const int sizes[][2] = {{1, 1},  {2, 2}, {3, 1},  {4, 5},  {5, 3},  {7, 7},
                          {9, 4},  {12, 3}, {13, 6}, {20, 5}, {37, 9}, {70, 4}};
  for (const auto& s : sizes)
    for (int fw : {3, 5})
      for (int kind = 0; kind < 3; ++kind) {
        const int w = s[0], h = s[1];
        std::vector<float> src(static_cast<std::size_t>(w) * h);
        for (std::size_t i = 0; i < src.size(); ++i)
          src[i] = kind == 0 ? val(rng) : (kind == 1 ? -128.0f : static_cast<float>(i % 7) * 0.25f);
        std::vector<int> cols(static_cast<std::size_t>(w) * fw);
        for (int x = 0; x < w; ++x)
          for (int k = 0; k < fw; ++k) cols[x * fw + k] = ansnr::mirror(x - fw / 2 + k, w);
        std::vector<float> inner(w), accum(w), ref(src.size()), got(src.size());
        const float* kernel = fw == 3 ? k3 : k5;
        ansnr::filter2d_scalar(kernel, fw, src.data(), ref.data(), w, h, cols.data(),
                               inner.data(), accum.data());
        for (simd::Level level : simd::available_levels()) {
          std::fill(got.begin(), got.end(), -1.0f);
          ansnr::ansnr_dsp(level).filter2d(kernel, fw, src.data(), got.data(), w, h, cols.data(),
                                           inner.data(), accum.data());
          EXPECT_EQ(0, std::memcmp(ref.data(), got.data(), ref.size() * sizeof(float)))
              << w << "x" << h << " fw " << fw << " kind " << kind << " @"
              << simd::level_name(level);
        }
      }
}

TEST(SimdFloatAnsnr, ExtractorMatchesScalar) {
  const int sizes[][2] = {{1, 1}, {2, 3}, {5, 5}, {17, 9}, {66, 35}, {160, 90}};
  std::uint32_t seed = 70;
  for (int bpc : {8, 10, 12, 16})
    for (const auto& s : sizes) {
      const VideoFormat f{s[0], s[1], bpc, ChromaFormat::k420};
      std::vector<std::pair<Picture, Picture>> frames;
      for (Content c : {Content::random, Content::smooth, Content::flat, Content::extreme}) {
        Picture p = simdtest::make_picture(f, c, seed++);
        Picture d = simdtest::distort(p, 4, seed++);
        frames.emplace_back(std::move(p), std::move(d));
      }
      const FeatureCollector ref = simdtest::run_at(simd::Level::scalar, "float_ansnr", {}, frames);
      for (simd::Level level : simdtest::simd_levels())
        simdtest::expect_same_bits(ref, simdtest::run_at(level, "float_ansnr", {}, frames),
                                   fmt::format("float_ansnr {}x{} {}-bit @{}", s[0], s[1], bpc,
                                               simd::level_name(level)));
    }
}

}  // namespace
}  // namespace vqe
