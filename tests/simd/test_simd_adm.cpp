// SPDX-License-Identifier: BSD-2-Clause
// checkasm-style equality of the integer ADM ("adm") SIMD row kernels
// (features/adm/adm_simd.cpp) and of the whole extractor: every SIMD level
// against the scalar reference (features/adm/adm_kernels.h), bit for bit.
// Kernel inputs are random over the whole sample range (plus the cases that
// reach each branch: zeros, aligned vectors, extreme and huge level 1-3
// values); widths are odd and not multiples of any vector length.

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/simd.h"
#include "features/adm/adm_kernels.h"
#include "features/adm/integer_adm.h"
#include "test_util.h"
#include "core/extractor.h"

namespace vqe {
namespace {

using adm::DecoupleRow;
using adm::MaskRow;
namespace kn = adm::kernels;

constexpr int kWidths[] = {5, 9, 17, 33, 37, 61, 67, 100, 131, 257};

std::vector<simd::Level> simd_levels() {
  std::vector<simd::Level> out;
  for (simd::Level l : simd::available_levels())
    if (l != simd::Level::scalar) out.push_back(l);
  return out;
}

TEST(SimdAdm, LevelsUnderTest) {
  std::string names;
  for (simd::Level l : simd_levels()) names += std::string(" ") + simd::level_name(l);
  std::printf("SIMD levels compared with scalar:%s\n", names.empty() ? " none" : names.c_str());
  SUCCEED();
}

template <typename T>
std::vector<T> random_vec(std::mt19937& rng, std::size_t n, std::int64_t lo, std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> dist(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(dist(rng));
  return v;
}

/// A row with 1 readable sample before it and 16 after, random contents.
template <typename T>
struct PaddedRow {
  std::vector<T> buf;
  T* row() { return buf.data() + 1; }
  PaddedRow(std::mt19937& rng, int n, std::int64_t lo, std::int64_t hi)
      : buf(random_vec<T>(rng, static_cast<std::size_t>(n) + 17, lo, hi)) {}
};

template <typename S>
void check_dwt0_vertical(std::mt19937& rng, int w, int bd, std::int64_t maxv, simd::Level level) {
  const adm::AdmDsp& sk = adm::adm_dsp(level);
  std::vector<S> r[4];
  for (auto& x : r) x = random_vec<S>(rng, w, 0, maxv);
  const S* rows[4] = {r[0].data(), r[1].data(), r[2].data(), r[3].data()};
  std::vector<std::int16_t> l1(w), h1(w), l2(w), h2(w);
  if constexpr (sizeof(S) == 1) {
    kn::dwt0_vertical_u8(rows, w, bd, l1.data(), h1.data());
    sk.dwt0_vertical_u8(rows, w, bd, l2.data(), h2.data());
  } else {
    kn::dwt0_vertical_u16(rows, w, bd, l1.data(), h1.data());
    sk.dwt0_vertical_u16(rows, w, bd, l2.data(), h2.data());
  }
  EXPECT_EQ(l1, l2) << simd::level_name(level) << " dwt0_vertical lo w=" << w << " bd=" << bd
                    << " max=" << maxv;
  EXPECT_EQ(h1, h2) << simd::level_name(level) << " dwt0_vertical hi w=" << w << " bd=" << bd
                    << " max=" << maxv;
}

TEST(SimdAdm, DwtKernelsMatchScalar) {
  std::mt19937 rng(7);
  for (simd::Level level : simd_levels()) {
    const adm::AdmDsp& sk = adm::adm_dsp(level);
    const std::string lv = simd::level_name(level);
    for (int w : kWidths) {
      check_dwt0_vertical<std::uint8_t>(rng, w, 8, 255, level);
      for (int bd : {10, 12, 16}) {
        check_dwt0_vertical<std::uint16_t>(rng, w, bd, (std::int64_t{1} << bd) - 1, level);
        // Out-of-range samples (a 10-bit plane holding 16-bit values) must
        // still match the reference's wrap-around.
        check_dwt0_vertical<std::uint16_t>(rng, w, bd, 65535, level);
      }
      const int half = (w + 1) / 2;
      {
        PaddedRow<std::int16_t> lo(rng, w, -32768, 32767), hi(rng, w, -32768, 32767);
        std::vector<std::int16_t> o1(4 * half), o2(4 * half);
        kn::dwt0_horizontal(lo.row(), hi.row(), half, &o1[0], &o1[half], &o1[2 * half],
                            &o1[3 * half]);
        sk.dwt0_horizontal(lo.row(), hi.row(), half, &o2[0], &o2[half], &o2[2 * half],
                            &o2[3 * half]);
        EXPECT_EQ(o1, o2) << lv << " dwt0_horizontal w=" << w;
      }
      {
        std::vector<std::int16_t> r[4];
        for (auto& x : r) x = random_vec<std::int16_t>(rng, w, -32768, 32767);
        const std::int16_t* rows[4] = {r[0].data(), r[1].data(), r[2].data(), r[3].data()};
        std::vector<std::int32_t> l1(w), h1(w), l2(w), h2(w);
        kn::dwt1_vertical(rows, w, l1.data(), h1.data());
        sk.dwt1_vertical(rows, w, l2.data(), h2.data());
        EXPECT_EQ(l1, l2) << lv << " dwt1_vertical w=" << w;
        EXPECT_EQ(h1, h2) << lv << " dwt1_vertical w=" << w;
      }
      {
        std::vector<std::int32_t> r[4];
        for (auto& x : r) x = random_vec<std::int32_t>(rng, w, INT32_MIN, INT32_MAX);
        r[0][0] = INT32_MAX;
        r[1][0] = INT32_MAX;
        r[2][0] = INT32_MIN;
        r[3][0] = INT32_MIN;
        const std::int32_t* rows[4] = {r[0].data(), r[1].data(), r[2].data(), r[3].data()};
        std::vector<std::int32_t> l1(w), h1(w), l2(w), h2(w);
        kn::dwt23_vertical(rows, w, l1.data(), h1.data());
        sk.dwt23_vertical(rows, w, l2.data(), h2.data());
        EXPECT_EQ(l1, l2) << lv << " dwt23_vertical w=" << w;
        EXPECT_EQ(h1, h2) << lv << " dwt23_vertical w=" << w;
      }
      for (int shift : {15, 16}) {
        PaddedRow<std::int32_t> lo(rng, w, INT32_MIN, INT32_MAX), hi(rng, w, INT32_MIN, INT32_MAX);
        std::vector<std::int32_t> o1(4 * half), o2(4 * half);
        kn::dwt123_horizontal(lo.row(), hi.row(), half, shift, &o1[0], &o1[half],
                              &o1[2 * half], &o1[3 * half]);
        sk.dwt123_horizontal(lo.row(), hi.row(), half, shift, &o2[0], &o2[half],
                              &o2[2 * half], &o2[3 * half]);
        EXPECT_EQ(o1, o2) << lv << " dwt123_horizontal w=" << w << " shift=" << shift;
      }
    }
  }
}

/// Distorted bands near g·reference (so that the angle test passes often),
/// random ones, zeros, and extreme vectors (at int16: dot product and
/// magnitudes of exactly 2^31).
template <typename T>
void make_decouple_inputs(std::mt19937& rng, int n, std::int64_t range, std::vector<T> o[3],
                          std::vector<T> t[3]) {
  std::uniform_real_distribution<double> gain(-0.2, 1.6);
  std::uniform_int_distribution<int> kind(0, 9);
  for (int k = 0; k < 3; ++k) {
    o[k] = random_vec<T>(rng, n, -range, range);
    t[k].resize(n);
  }
  for (int j = 0; j < n; ++j) {
    const double gj = gain(rng);
    const int kd = kind(rng);
    for (int k = 0; k < 3; ++k) {
      if (kd == 0) o[k][j] = 0;
      if (kd <= 5)
        t[k][j] = static_cast<T>(static_cast<double>(o[k][j]) * gj);
      else
        t[k][j] = random_vec<T>(rng, 1, -range, range)[0];
      if (kd == 7) t[k][j] = 0;
    }
    if (kd == 8) {
      const T m = static_cast<T>(-range - 1);
      o[0][j] = o[1][j] = t[0][j] = t[1][j] = m;
    }
    // Only 32-bit inputs reach this range (16-bit rows never do).
    if constexpr (sizeof(T) >= 4) {
      if (kd == 9 && range >= (std::int64_t{1} << 30) - 1) {
        // dot = 2^60 + 2^36 + 1: its nearest double is a float midpoint, so a
        // conversion through double would round it the wrong way.
        const T sign = static_cast<T>(j % 2 == 0 ? 1 : -1);
        o[0][j] = static_cast<T>(std::int64_t{1} << 30);
        t[0][j] = static_cast<T>(sign * (std::int64_t{1} << 30));
        o[1][j] = static_cast<T>(130561);
        t[1][j] = static_cast<T>(sign * 526321);
      }
    }
  }
}

// The reciprocal paths of the decoupling kernels (both at every level,
// whichever this CPU prefers).
constexpr adm::ReciprocalPath kReciprocalPaths[] = {adm::ReciprocalPath::gather,
                                                    adm::ReciprocalPath::divide};

const char* path_name(adm::ReciprocalPath path) {
  return path == adm::ReciprocalPath::gather ? "gather" : "divide";
}

template <typename T>
void check_decouple(simd::Level level, adm::ReciprocalPath path, int n, std::int64_t range,
                    double gain, std::mt19937& rng) {
  const adm::AdmDsp& sk = adm::adm_dsp(level, path);
  std::vector<T> o[3], t[3];
  make_decouple_inputs(rng, n, range, o, t);
  std::vector<T> out1(6 * n, 0), out2(6 * n, 0);
  auto row = [&](std::vector<T>& out) {
    return DecoupleRow<T>{o[0].data(), o[1].data(), o[2].data(), t[0].data(), t[1].data(),
                          t[2].data(), &out[0],     &out[n],     &out[2 * n], &out[3 * n],
                          &out[4 * n], &out[5 * n]};
  };
  const float cos_sq = static_cast<float>(std::cos(3.14159265358979323846 / 180.0) *
                                          std::cos(3.14159265358979323846 / 180.0));
  const int begin = n > 3 ? 1 : 0;
  if constexpr (sizeof(T) == 2) {
    kn::decouple0_row(row(out1), begin, n, cos_sq, gain);
    sk.decouple0_row(row(out2), begin, n, cos_sq, gain);
  } else {
    kn::decouple123_row(row(out1), begin, n, cos_sq, gain);
    sk.decouple123_row(row(out2), begin, n, cos_sq, gain);
  }
  EXPECT_EQ(out1, out2) << simd::level_name(level) << " " << path_name(path) << " decouple"
                        << (sizeof(T) == 2 ? "0" : "123") << " n=" << n << " range=" << range
                        << " gain=" << gain;
}

TEST(SimdAdm, DecoupleKernelsMatchScalar) {
  std::mt19937 rng(11);
  for (simd::Level level : simd_levels())
    for (adm::ReciprocalPath path : kReciprocalPaths)
      for (int n : kWidths)
        for (double gain : {100.0, 1.0, 7.0, 1.5}) {
          check_decouple<std::int16_t>(level, path, n, 32767, gain, rng);
          check_decouple<std::int16_t>(level, path, n, 300, gain, rng);
          // Levels 1-3: small values (exact double angle test) and large
          // ones (products beyond 2^51: per-lane reference angle test).
          check_decouple<std::int32_t>(level, path, n, 40000, gain, rng);
          check_decouple<std::int32_t>(level, path, n, 1 << 24, gain, rng);
          check_decouple<std::int32_t>(level, path, n, (1 << 30) - 1, gain, rng);
        }
}

// Every int16 reference value (all reciprocal table entries) against
// distorted values that expose an error of one unit in the reciprocal.
TEST(SimdAdm, DecoupleEveryReferenceValue) {
  const float cos_sq = static_cast<float>(std::cos(3.14159265358979323846 / 180.0) *
                                          std::cos(3.14159265358979323846 / 180.0));
  const int n = 65536;
  std::mt19937 rng(19);
  for (simd::Level level : simd_levels())
    for (adm::ReciprocalPath path : kReciprocalPaths) {
      const adm::AdmDsp& sk = adm::adm_dsp(level, path);
      for (int variant = 0; variant < 4; ++variant) {
        std::vector<std::int16_t> o[3], t[3];
        for (int k = 0; k < 3; ++k) {
          o[k].resize(n);
          t[k] = variant == 0   ? std::vector<std::int16_t>(n, 32767)
                 : variant == 1 ? std::vector<std::int16_t>(n, -32768)
                                : random_vec<std::int16_t>(rng, n, -32768, 32767);
          for (int j = 0; j < n; ++j) o[k][j] = static_cast<std::int16_t>(j - 32768 + 7 * k);
          if (variant == 3)
            for (int j = 0; j < n; ++j) t[k][j] = static_cast<std::int16_t>(o[k][j] / 2 + (j % 3));
        }
        std::vector<std::int16_t> out1(6 * n), out2(6 * n);
        auto row = [&](std::vector<std::int16_t>& out) {
          return DecoupleRow<std::int16_t>{o[0].data(), o[1].data(), o[2].data(), t[0].data(),
                                           t[1].data(), t[2].data(), &out[0],     &out[n],
                                           &out[2 * n], &out[3 * n], &out[4 * n], &out[5 * n]};
        };
        kn::decouple0_row(row(out1), 0, n, cos_sq, 100.0);
        sk.decouple0_row(row(out2), 0, n, cos_sq, 100.0);
        EXPECT_EQ(out1, out2) << simd::level_name(level) << " " << path_name(path) << " variant "
                              << variant;
      }
    }
}

// Every int16 band value through the level-0 masker terms, for weights that
// reach each branch (top bit set or not, the Watson defaults, extremes).
TEST(SimdAdm, Csf0EveryBandValue) {
  const int n = 65536 + 5;
  std::vector<std::int16_t> x[3];
  for (int k = 0; k < 3; ++k) {
    x[k].resize(n);
    for (int j = 0; j < n; ++j) x[k][j] = static_cast<std::int16_t>(j * (k == 1 ? 7 : 1) + k);
  }
  const std::uint16_t weights[][3] = {
      {36453, 36453, 49417}, {1, 32767, 32768}, {65535, 32768, 65535}, {0, 40000, 12345},
      {32769, 1, 1}};
  for (simd::Level level : simd_levels()) {
    const adm::AdmDsp& sk = adm::adm_dsp(level);
    for (const auto& f : weights) {
      std::vector<std::int32_t> m1(n), c1(n), m2(n), c2(n);
      kn::csf0_row(x[0].data(), x[1].data(), x[2].data(), 3, n, f, m1.data(), c1.data());
      sk.csf0_row(x[0].data(), x[1].data(), x[2].data(), 3, n, f, m2.data(), c2.data());
      EXPECT_EQ(m1, m2) << simd::level_name(level) << " weights " << f[0] << " " << f[1] << " " << f[2];
      EXPECT_EQ(c1, c2) << simd::level_name(level) << " weights " << f[0] << " " << f[1] << " " << f[2];
    }
  }
}

TEST(SimdAdm, CsfAndDenominatorKernelsMatchScalar) {
  std::mt19937 rng(13);
  for (simd::Level level : simd_levels()) {
    const adm::AdmDsp& sk = adm::adm_dsp(level);
    const std::string lv = simd::level_name(level);
    for (int n : kWidths) {
      const int begin = n > 4 ? 2 : 0;
      {
        auto h = random_vec<std::int16_t>(rng, n, -32768, 32767);
        auto v = random_vec<std::int16_t>(rng, n, -32768, 32767);
        auto d = random_vec<std::int16_t>(rng, n, -32768, 32767);
        const auto rf16 = random_vec<std::uint16_t>(rng, 3, 0, 65535);
        for (const std::vector<std::uint16_t>& fixed :
             {std::vector<std::uint16_t>{36453, 36453, 49417}, rf16}) {
          const std::uint16_t f[3] = {fixed[0], fixed[1], fixed[2]};
          std::vector<std::int32_t> m1(n, 5), c1(n, 5), m2(n, 5), c2(n, 5);
          kn::csf0_row(h.data(), v.data(), d.data(), begin, n, f, m1.data(), c1.data());
          sk.csf0_row(h.data(), v.data(), d.data(), begin, n, f, m2.data(), c2.data());
          EXPECT_EQ(m1, m2) << lv << " csf0 n=" << n;
          EXPECT_EQ(c1, c2) << lv << " csf0 n=" << n;
        }
        EXPECT_EQ(kn::den0_row(h.data(), begin, n), sk.den0_row(h.data(), begin, n))
            << lv << " den0 n=" << n;
      }
      for (std::int64_t range : {std::int64_t{1} << 20, std::int64_t{INT32_MAX}}) {
        auto h = random_vec<std::int32_t>(rng, n, -range - 1, range);
        auto v = random_vec<std::int32_t>(rng, n, -range - 1, range);
        auto d = random_vec<std::int32_t>(rng, n, -range - 1, range);
        if (range == INT32_MAX) h[n - 1] = INT32_MIN;
        const auto rf = random_vec<std::uint32_t>(rng, 3, 0, UINT32_MAX);
        for (const std::vector<std::uint32_t>& f :
             {std::vector<std::uint32_t>{171036362u, 171036362u, 94566816u}, rf}) {
          const std::uint32_t fx[3] = {f[0], f[1], f[2]};
          std::vector<std::int32_t> m1(n, 5), c1(n, 5), m2(n, 5), c2(n, 5);
          kn::csf123_row(h.data(), v.data(), d.data(), begin, n, fx, m1.data(), c1.data());
          sk.csf123_row(h.data(), v.data(), d.data(), begin, n, fx, m2.data(), c2.data());
          EXPECT_EQ(m1, m2) << lv << " csf123 n=" << n;
          EXPECT_EQ(c1, c2) << lv << " csf123 n=" << n;
        }
        for (std::uint32_t ss : {30u, 31u})
          for (std::uint32_t sc : {0u, 3u, 9u})
            EXPECT_EQ(kn::den123_row(h.data(), begin, n, ss, sc),
                      sk.den123_row(h.data(), begin, n, ss, sc))
                << lv << " den123 n=" << n << " ss=" << ss << " sc=" << sc;
      }
    }
  }
}

TEST(SimdAdm, MaskingKernelsMatchScalar) {
  std::mt19937 rng(17);
  for (simd::Level level : simd_levels()) {
    const adm::AdmDsp& sk = adm::adm_dsp(level);
    const std::string lv = simd::level_name(level);
    for (int n : kWidths) {
      for (std::int64_t mrange : {std::int64_t{3000}, std::int64_t{INT32_MAX}}) {
        const std::int64_t mlo = mrange == 3000 ? 0 : -mrange - 1;
        std::vector<std::int32_t> mask[3], centre;
        for (auto& m : mask) m = random_vec<std::int32_t>(rng, n, mlo, mrange);
        centre = random_vec<std::int32_t>(rng, n, mlo, mrange);
        // Whole rows (mirrored columns), interior spans, the scored region.
        const std::pair<int, int> spans[] = {{0, n}, {1, n - 1}, {n / 10, n - n / 10}};
        {
          std::vector<std::int16_t> x[3];
          for (auto& xx : x) xx = random_vec<std::int16_t>(rng, n, -32768, 32767);
          const MaskRow<std::int16_t> r{{mask[0].data(), mask[1].data(), mask[2].data()},
                                        centre.data(),
                                        {x[0].data(), x[1].data(), x[2].data()},
                                        n};
          const auto rf = random_vec<std::uint16_t>(rng, 3, 0, 65535);
          for (const std::vector<std::uint16_t>& f :
               {std::vector<std::uint16_t>{36453, 36453, 49417}, rf}) {
            const std::uint16_t fx[3] = {f[0], f[1], f[2]};
            for (std::uint32_t cs : {0u, 4u, 7u})
              for (const auto& [b, e] : spans) {
                const std::uint32_t cub[3] = {cs, cs, cs + 1};
                std::int64_t i1[3] = {1, 2, 3}, i2[3] = {1, 2, 3};
                kn::masked0_row(r, b, e, fx, cub, i1);
                sk.masked0_row(r, b, e, fx, cub, i2);
                for (int k = 0; k < 3; ++k)
                  EXPECT_EQ(i1[k], i2[k]) << lv << " masked0 n=" << n << " span " << b << ".."
                                          << e << " theta " << k;
              }
          }
        }
        for (std::int64_t xr : {std::int64_t{1} << 22, std::int64_t{INT32_MAX}}) {
          std::vector<std::int32_t> x[3];
          for (auto& xx : x) xx = random_vec<std::int32_t>(rng, n, -xr - 1, xr);
          const MaskRow<std::int32_t> r{{mask[0].data(), mask[1].data(), mask[2].data()},
                                        centre.data(),
                                        {x[0].data(), x[1].data(), x[2].data()},
                                        n};
          const auto rf = random_vec<std::uint32_t>(rng, 3, 0, UINT32_MAX);
          for (const std::vector<std::uint32_t>& f :
               {std::vector<std::uint32_t>{171036362u, 171036362u, 94566816u}, rf}) {
            const std::uint32_t fx[3] = {f[0], f[1], f[2]};
            for (std::uint32_t cs : {0u, 3u, 9u})
              for (const auto& [b, e] : spans) {
                std::int64_t i1[3] = {0, 0, 0}, i2[3] = {0, 0, 0};
                kn::masked123_row(r, b, e, fx, cs, i1);
                sk.masked123_row(r, b, e, fx, cs, i2);
                for (int k = 0; k < 3; ++k)
                  EXPECT_EQ(i1[k], i2[k])
                      << lv << " masked123 n=" << n << " span " << b << ".." << e;
              }
          }
        }
      }
    }
  }
}

// --- whole extractor ---------------------------------------------------------

FeatureCollector run_adm(simd::Level level, const OptionValues& opts,
                         const std::vector<std::pair<Picture, Picture>>& frames) {
  return test::run_on_pictures("adm", opts, frames, nullptr, level);
}

void compare_levels(const OptionValues& opts,
                    const std::vector<std::pair<Picture, Picture>>& frames,
                    const std::string& what) {
  const FeatureCollector ref = run_adm(simd::Level::scalar, opts, frames);
  for (simd::Level level : simd_levels()) {
    const FeatureCollector got = run_adm(level, opts, frames);
    test::expect_bit_identical(ref, got, fmt::format("{} at {}", what, simd::level_name(level)));
  }
}

TEST(SimdAdm, ExtractorMatchesScalarOnSyntheticFrames) {
  const int sizes[][2] = {{33, 33}, {35, 47}, {67, 45}, {100, 37}, {129, 71}, {257, 131}};
  const OptionValues debug = {{"debug", "true"}};
  std::uint32_t seed = 100;
  for (int bd : {8, 10, 12, 16})
    for (const auto& s : sizes) {
      const VideoFormat f{s[0], s[1], bd, ChromaFormat::k400};
      std::vector<std::pair<Picture, Picture>> frames;
      for (test::Fill fill : {test::Fill::random, test::Fill::smooth, test::Fill::flat,
                              test::Fill::max_value}) {
        Picture ref = test::synthetic_picture(f, seed++, fill);
        Picture dis = test::distort_picture(ref, seed++, 1 << (bd - 5));
        frames.emplace_back(std::move(ref), std::move(dis));
      }
      // A reference against an unrelated picture, and a picture against itself.
      frames.emplace_back(test::synthetic_picture(f, seed, test::Fill::smooth),
                          test::synthetic_picture(f, seed + 1, test::Fill::random));
      frames.emplace_back(test::synthetic_picture(f, seed + 2, test::Fill::smooth),
                          test::synthetic_picture(f, seed + 2, test::Fill::smooth));
      seed += 3;
      compare_levels(debug, frames, fmt::format("adm {}x{} {}-bit", s[0], s[1], bd));
    }
}

TEST(SimdAdm, ExtractorMatchesScalarForEveryOption) {
  const OptionValues option_sets[] = {
      {{"adm_enhn_gain_limit", "1.0"}},
      {{"adm_enhn_gain_limit", "1.2"}},
      {{"adm_enhn_gain_limit", "37"}},
      {{"adm_csf_mode", "1"}},
      {{"adm_csf_mode", "1"}, {"adm_csf_scale", "20"}, {"adm_csf_diag_scale", "3"}},
      {{"adm_csf_mode", "2"}, {"adm_norm_view_dist", "5"}, {"adm_ref_display_height", "720"}},
      {{"adm_csf_mode", "3"}, {"adm_norm_view_dist", "1.5"}, {"adm_ref_display_height", "2160"}},
      {{"adm_norm_view_dist", "4.5"}, {"adm_ref_display_height", "2160"}},
      {{"adm_noise_weight", "0"}},
      {{"adm_skip_aim", "true"}},
      {{"adm_skip_scale0", "true"}},
      {{"adm_dlm_weight", "0.7"}, {"adm_min_val", "0.5"}},
  };
  std::uint32_t seed = 900;
  for (int bd : {8, 10}) {
    const VideoFormat f{97, 61, bd, ChromaFormat::k400};
    std::vector<std::pair<Picture, Picture>> frames;
    for (test::Fill fill : {test::Fill::random, test::Fill::smooth, test::Fill::flat}) {
      Picture ref = test::synthetic_picture(f, seed++, fill);
      Picture dis = test::distort_picture(ref, seed++, 1 << (bd - 4));
      frames.emplace_back(std::move(ref), std::move(dis));
    }
    for (const OptionValues& o : option_sets) {
      OptionValues opts = o;
      opts["debug"] = "true";
      std::string what = fmt::format("adm {}-bit", bd);
      for (const auto& [k, v] : o) what += fmt::format(" {}={}", k, v);
      compare_levels(opts, frames, what);
    }
  }
}

// IntegerAdm in two parts (the ladder's shared reference work):
// compute_pair(compute_reference()) equals the scalar reference's compute()
// bit for bit, with the reference part made at any SIMD level and the pair
// part at any other, with and without row tiles, at every depth, for option
// sets that change the denominator's weights and the masking, and with one
// frame object recycled over pictures of different content (as the ladder's
// pool recycles them).
TEST(SimdAdm, ReferencePartThenPairEqualsFused) {
  const std::vector<simd::Level> levels = simd_levels();
  if (levels.empty()) GTEST_SKIP() << "no SIMD level on this CPU";
  adm::AdmParams watson;
  adm::AdmParams other;
  other.enhn_gain_limit = 1.2;
  other.skip_aim = true;
  other.csf.mode = adm::CsfMode::kBarten;
  test::RoundRobinTiles tiles;
  const auto bits = [](auto v) {
    return std::bit_cast<std::conditional_t<sizeof(v) == 4, std::uint32_t, std::uint64_t>>(v);
  };
  std::uint32_t seed = 1300;
  for (int bd : {8, 10, 12, 16})
    for (auto [w, h] : {std::pair{67, 45}, std::pair{257, 131}})
      for (const adm::AdmParams* params : {&watson, &other}) {
        const VideoFormat f{w, h, bd, ChromaFormat::k400};
        adm::IntegerAdm scalar(w, h, bd, *params, simd::Level::scalar);
        EXPECT_FALSE(scalar.splits_reference());
        adm::ReferenceFrame frame;  // recycled over every case below
        for (test::Fill fill : {test::Fill::smooth, test::Fill::random}) {
          const Picture ref = test::synthetic_picture(f, seed++, fill);
          const Picture dis = test::distort_picture(ref, seed++, 1 << (bd - 4));
          const adm::AdmResult expect = scalar.compute(ref.plane(0), dis.plane(0));
          for (simd::Level a : levels)
            for (simd::Level b : levels)
              for (TileRunner* runner : {static_cast<TileRunner*>(nullptr),
                                         static_cast<TileRunner*>(&tiles)}) {
                adm::IntegerAdm ka(w, h, bd, *params, a), kb(w, h, bd, *params, b);
                ASSERT_TRUE(ka.splits_reference());
                ka.compute_reference(ref.plane(0), frame, runner);
                const adm::AdmResult got = kb.compute_pair(frame, dis.plane(0), runner);
                const std::string what =
                    fmt::format("{}/{} {}x{} {}-bit {} tiles {}", simd::level_name(a),
                                simd::level_name(b), w, h, bd,
                                params == &watson ? "defaults" : "other options",
                                runner != nullptr);
                // As bits: some of these options give NaN at small sizes
                // (libvmaf's too).
                for (int s = 0; s < adm::kNumScales; ++s) {
                  EXPECT_EQ(bits(got.num_scale[s]), bits(expect.num_scale[s]))
                      << what << " scale " << s;
                  EXPECT_EQ(bits(got.den_scale[s]), bits(expect.den_scale[s]))
                      << what << " scale " << s;
                }
                EXPECT_EQ(bits(got.adm2), bits(expect.adm2)) << what;
                EXPECT_EQ(bits(got.aim), bits(expect.aim)) << what;
                // The fused path after the split one (shared buffers) too.
                const adm::AdmResult again = kb.compute(ref.plane(0), dis.plane(0), runner);
                EXPECT_EQ(bits(again.adm2), bits(expect.adm2)) << what;
                EXPECT_EQ(bits(again.aim), bits(expect.aim)) << what;
              }
        }
        // A frame of another format is refused.
        adm::IntegerAdm smaller(w - 1, h, bd, *params, levels.front());
        EXPECT_THROW(smaller.compute_pair(frame, test::synthetic_picture(
                                                     VideoFormat{w - 1, h, bd, ChromaFormat::k400},
                                                     1).plane(0)),
                     Error);
      }
  // Where the split does not exist (adm_skip_scale0), both parts refuse.
  adm::AdmParams skip0;
  skip0.skip_scale0 = true;
  adm::IntegerAdm k(67, 45, 8, skip0, levels.front());
  EXPECT_FALSE(k.splits_reference());
  adm::ReferenceFrame frame;
  const Picture pic = test::synthetic_picture(VideoFormat{67, 45, 8, ChromaFormat::k400}, 7);
  EXPECT_THROW(k.compute_reference(pic.plane(0), frame), Error);
  EXPECT_THROW(k.compute_pair(frame, pic.plane(0)), Error);
}

}  // namespace
}  // namespace vqe
