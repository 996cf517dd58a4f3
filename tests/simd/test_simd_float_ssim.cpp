// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality of the SSIM SIMD kernels (Gaussian blur, SSIM
// map + sums, decimate) and of float_ssim: every SIMD level against the
// scalar reference, compared as bit patterns.

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/float_plane.h"
#include "core/simd.h"
#include "features/float_ssim/iqa_ssim.h"
#include "small_simd_util.h"

namespace vqe {
namespace {

// A float image on the 8-bit scale: random, smooth, flat, or with zeros
// (negative kernel taps times 0 give -0.0 products).
std::vector<float> make_image(int w, int h, int kind, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> any(0.0f, 255.0f);
  std::vector<float> v(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      float& o = v[static_cast<std::size_t>(y) * w + x];
      switch (kind) {
        case 0: o = any(rng); break;
        case 1: o = static_cast<float>((x * 3 + y * 5) % 256) + any(rng) / 64.0f; break;
        case 2: o = 37.25f; break;
        default: o = ((x + y) % 3 == 0) ? 0.0f : static_cast<float>(x % 256) / 1024.0f; break;
      }
    }
  return v;
}

bool same_floats(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

const int kSizes[][2] = {{11, 11}, {12, 11}, {11, 13}, {15, 12}, {18, 14}, {19, 11},
                         {26, 17}, {27, 16}, {43, 21}, {64, 12}, {97, 23}};

TEST(SimdSsim, BlurMatchesScalar) {
  std::uint32_t seed = 1;
  for (const auto& s : kSizes)
    for (int kind = 0; kind < 4; ++kind) {
      const int w = s[0], h = s[1];
      const auto img = make_image(w, h, kind, seed++);
      const std::size_t out = static_cast<std::size_t>(w - 10) * (h - 10);
      std::vector<float> rows(static_cast<std::size_t>(w - 10) * h);
      std::vector<float> ref(out);
      iqa::gaussian_blur_valid_scalar(img.data(), w, h, rows.data(), ref.data());
      for (simd::Level level : simd::available_levels()) {
        const iqa::IqaDsp& dsp = iqa::iqa_dsp(level);
        std::vector<float> got(out, -1.0f);
        dsp.blur_valid(img.data(), w, h, rows.data(), got.data());
        EXPECT_TRUE(same_floats(ref, got)) << w << "x" << h << " kind " << kind << " @"
                                           << simd::level_name(level);
        // In place, as ssim_gaussian blurs its second-moment maps.
        std::vector<float> inplace = img;
        dsp.blur_valid(inplace.data(), w, h, rows.data(), inplace.data());
        inplace.resize(out);
        EXPECT_TRUE(same_floats(ref, inplace)) << "in place " << w << "x" << h;
      }
    }
}

TEST(SimdSsim, SsimGaussianMatchesScalar) {
  std::uint32_t seed = 100;
  for (const auto& s : kSizes)
    for (int kr = 0; kr < 4; ++kr)
      for (int kd = 0; kd < 4; ++kd) {
        const int w = s[0], h = s[1];
        const auto r = make_image(w, h, kr, seed++);
        const auto d = kr == kd ? r : make_image(w, h, kd, seed++);  // identical pairs too
        iqa::SsimWorkspace ws;
        ws.reserve(w, h);
        const iqa::SsimMeans ref =
            iqa::ssim_gaussian(iqa::iqa_dsp(simd::Level::scalar), r.data(), d.data(), w, h, ws);
        for (simd::Level level : simdtest::simd_levels()) {
          const iqa::SsimMeans got =
              iqa::ssim_gaussian(iqa::iqa_dsp(level), r.data(), d.data(), w, h, ws);
          const std::string at =
              fmt::format("{}x{} {}/{} @{}", w, h, kr, kd, simd::level_name(level));
          EXPECT_TRUE(simdtest::same_bits(ref.ssim, got.ssim)) << at;
          EXPECT_TRUE(simdtest::same_bits(ref.luminance, got.luminance)) << at;
          EXPECT_TRUE(simdtest::same_bits(ref.contrast, got.contrast)) << at;
          EXPECT_TRUE(simdtest::same_bits(ref.structure, got.structure)) << at;
        }
      }
}

TEST(SimdSsim, DecimateMatchesScalar) {
  // MS-SSIM-like 9x9 signed taps at factor 2, and float_ssim's box filters
  // at factors 2..10 (even and odd kernel sizes; 2, 4, 8 use the vector
  // deinterleave).
  std::vector<float> lowpass(81);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> tap(-0.05f, 0.2f);
  for (float& t : lowpass) t = tap(rng);
  struct Filter {
    int factor, size;
    std::vector<float> taps;
  };
  std::vector<Filter> filters = {{2, 9, lowpass}};
  for (int f = 2; f <= 10; ++f)
    filters.push_back({f, f, std::vector<float>(static_cast<std::size_t>(f) * f, 1.0f / (f * f))});
  std::uint32_t seed = 300;
  const int sizes[][2] = {{1, 1},   {2, 3},   {5, 4},   {9, 9},   {10, 7},  {17, 12},
                          {23, 19}, {40, 11}, {67, 29}, {130, 9}, {263, 17}};
  for (const Filter& flt : filters)
    for (const auto& s : sizes)
      for (int kind = 0; kind < 4; ++kind) {
        const int w = s[0], h = s[1];
        const auto img = make_image(w, h, kind, seed++);
        const std::size_t out = static_cast<std::size_t>(iqa::decimated_size(w, flt.factor)) *
                                iqa::decimated_size(h, flt.factor);
        std::vector<float> ref(out);
        iqa::decimate(img.data(), w, h, flt.factor, flt.taps.data(), flt.size, ref.data());
        std::vector<float> scratch(iqa::decimate_scratch_size(w, flt.factor, flt.size));
        for (simd::Level level : simd::available_levels()) {
          std::vector<float> got(out, -1.0f);
          iqa::decimate(iqa::iqa_dsp(level), img.data(), w, h, flt.factor, flt.taps.data(),
                        flt.size, got.data(), scratch.data());
          EXPECT_TRUE(same_floats(ref, got))
              << w << "x" << h << " factor " << flt.factor << " size " << flt.size << " kind "
              << kind << " @" << simd::level_name(level);
        }
      }
}

// float_ssim's fused path: box decimation straight from 8/10/12/16-bit
// samples against plane_to_float + the scalar decimate.
TEST(SimdSsim, DecimatePlaneMatchesScalar) {
  const int sizes[][2] = {{1, 1}, {3, 2}, {9, 9}, {17, 12}, {40, 11}, {67, 29}, {263, 17}};
  std::uint32_t seed = 500;
  for (int bpc : {8, 10, 12, 16})
    for (int f = 2; f <= 10; ++f)
      for (const auto& s : sizes)
        for (simdtest::Content c : {simdtest::Content::random, simdtest::Content::smooth,
                                    simdtest::Content::extreme}) {
          const Picture p =
              simdtest::make_picture({s[0], s[1], bpc, ChromaFormat::k400}, c, seed++);
          const int w = s[0], h = s[1];
          const std::vector<float> box(static_cast<std::size_t>(f) * f, 1.0f / (f * f));
          std::vector<float> full(static_cast<std::size_t>(w) * h);
          plane_to_float(p.plane(0), bpc, 0.0f, full.data());
          const std::size_t out = static_cast<std::size_t>(iqa::decimated_size(w, f)) *
                                  iqa::decimated_size(h, f);
          std::vector<float> ref(out);
          iqa::decimate(full.data(), w, h, f, box.data(), f, ref.data());
          std::vector<float> scratch(iqa::decimate_scratch_size(w, f, f));
          {
            std::vector<float> got(out);
            EXPECT_FALSE(iqa::decimate_plane(iqa::iqa_dsp(simd::Level::scalar), p.plane(0), bpc,
                                             f, box.data(), f, got.data(), scratch.data()));
          }
          for (simd::Level level : simdtest::simd_levels()) {
            std::vector<float> got(out, -1.0f);
            ASSERT_TRUE(iqa::decimate_plane(iqa::iqa_dsp(level), p.plane(0), bpc, f, box.data(),
                                            f, got.data(), scratch.data()));
            EXPECT_TRUE(same_floats(ref, got)) << w << "x" << h << " " << bpc << "-bit factor "
                                               << f << " @" << simd::level_name(level);
          }
        }
}

TEST(SimdSsim, FloatSsimExtractorMatchesScalar) {
  simdtest::check_extractor_levels(
      "float_ssim",
      {{}, {{"enable_lcs", "true"}}, {{"scale", "3"}, {"enable_lcs", "true"}},
       {{"scale", "8"}}, {{"enable_db", "true"}, {"clip_db", "true"}}},
      {{11, 11, 8}, {13, 12, 10}, {37, 23, 12}, {67, 41, 16}, {300, 260, 8}, {530, 517, 10},
       {1100, 1030, 8}});
}

}  // namespace
}  // namespace vqe
