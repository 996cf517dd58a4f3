// SPDX-License-Identifier: BSD-2-Clause
// Flat and black frames: every feature finite (or infinite exactly where
// libvmaf's is), never NaN, and equal to libvmaf's values
// (tests/data/libvmaf_flat, produced by libvmaf 3.2.0's C path).

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "golden/golden_runs.h"
#include "test_util.h"

namespace vqe::test {
namespace {

std::string flat_y4m(int bits, unsigned y, unsigned c) {
  const int w = 64, h = 64, frames = 3;
  std::string s = std::string("YUV4MPEG2 W64 H64 F25:1 Ip C") + (bits == 8 ? "420" : "420p10") + "\n";
  auto put = [&](unsigned v, int n) {
    for (int i = 0; i < n; ++i) {
      s.push_back(static_cast<char>(v & 0xff));
      if (bits > 8) s.push_back(static_cast<char>(v >> 8));
    }
  };
  for (int f = 0; f < frames; ++f) {
    s += "FRAME\n";
    put(y, w * h);
    put(c, 2 * (w / 2) * (h / 2));
  }
  return s;
}

struct FlatCase {
  const char* file;
  int bits;
  unsigned ref_y, ref_c, dist_y, dist_c;
};

class Flat : public ::testing::TestWithParam<FlatCase> {};

// The case's two inputs, written to temporary files.
std::pair<std::filesystem::path, std::filesystem::path> flat_inputs(const FlatCase& c) {
  return {write_temp(std::string("flat_ref_") + c.file + ".y4m", flat_y4m(c.bits, c.ref_y, c.ref_c)),
          write_temp(std::string("flat_dist_") + c.file + ".y4m",
                     flat_y4m(c.bits, c.dist_y, c.dist_c))};
}

// libvmaf's JSON for the case, keys in libvmaf's order.
nlohmann::ordered_json libvmaf_json(const FlatCase& c) {
  std::ifstream in(std::string(VQE_SOURCE_DIR) + "/tests/data/libvmaf_flat/" + c.file);
  if (!in) throw Error(std::string("cannot open tests/data/libvmaf_flat/") + c.file);
  return nlohmann::ordered_json::parse(in);
}

TEST_P(Flat, MatchesLibvmafWithoutNaN) {
  const FlatCase& c = GetParam();
  const auto [ref, dist] = flat_inputs(c);
  const auto expected = libvmaf_json(c);

  JobConfig cfg;
  for (const auto& [version, name] : {std::pair{"vmaf_v0.6.1", "vmaf"},
                                      std::pair{"vmaf_v0.6.1neg", "vmaf_neg"},
                                      std::pair{"vmaf_b_v0.6.3", "vmaf_b"}}) {
    Model m = Model::builtin(version);
    m.set_name(name);
    cfg.models.push_back(std::move(m));
  }
  for (const char* f : {"psnr", "float_ssim", "float_vif", "float_adm", "float_motion",
                        "float_psnr", "float_ansnr", "float_moment", "ciede", "psnr_hvs"})
    cfg.features.push_back({f, {}});
  const JobResult r = run_pair(ref, dist, cfg);
  ASSERT_EQ(r.frames, 3u);

  int compared = 0;
  for (unsigned i = 0; i < 3; ++i) {
    const auto& metrics = expected["frames"][i]["metrics"];
    for (const std::string& name : r.features.names()) {
      const auto got = r.features.get(name, i);
      ASSERT_TRUE(got.has_value()) << name << " frame " << i;
      EXPECT_FALSE(std::isnan(*got)) << name << " frame " << i;
      if (!metrics.contains(name)) continue;
      ++compared;
      if (metrics[name].is_null()) {
        EXPECT_TRUE(std::isinf(*got)) << name << " frame " << i << ": libvmaf gives inf";
        continue;
      }
      const double want = metrics[name].get<double>();
      if (requires_exact(name)) {
        EXPECT_EQ(*got, want) << name << " frame " << i;
      } else {
        EXPECT_LE(std::fabs(*got - want), 1e-6 * std::fabs(want)) << name << " frame " << i;
      }
    }
  }
  // Every libvmaf feature was produced.
  for (const auto& [name, v] : expected["frames"][0]["metrics"].items())
    EXPECT_TRUE(r.features.has(name)) << "VQE lacks " << name;
  EXPECT_GT(compared, 100);
}

// libvmaf's column order is the order in which its one-thread run first
// writes each feature (frame 0 extractor by extractor, then later frames,
// then flush, then the models); the key order of libvmaf's own JSON here is
// that order. VQE's output must list the same names in the same order.
TEST_P(Flat, ColumnsInLibvmafOrder) {
  const FlatCase& c = GetParam();
  const auto [ref, dist] = flat_inputs(c);
  const auto expected = libvmaf_json(c);
  JobConfig cfg;
  for (const char* spec : {"version=vmaf_v0.6.1:name=vmaf", "version=vmaf_v0.6.1neg:name=vmaf_neg",
                           "version=vmaf_b_v0.6.3:name=vmaf_b"})
    cfg.models.push_back(load_model_spec(spec));
  for (const char* f : {"psnr", "float_ssim", "float_vif", "float_adm", "float_motion",
                        "float_psnr", "float_ansnr", "float_moment", "ciede", "psnr_hvs"})
    cfg.features.push_back({f, {}});
  cfg.threads = 2;  // the order does not depend on which thread finishes first
  const JobResult r = run_pair(ref, dist, cfg);
  std::vector<std::string> libvmaf_frame, libvmaf_pooled;
  for (const auto& [name, value] : expected["frames"][0]["metrics"].items()) libvmaf_frame.push_back(name);
  for (const auto& [name, value] : expected["pooled_metrics"].items()) libvmaf_pooled.push_back(name);
  ASSERT_GT(libvmaf_frame.size(), 50u);
  EXPECT_EQ(r.features.names(), libvmaf_frame);
  EXPECT_EQ(r.features.names(), libvmaf_pooled);
}

INSTANTIATE_TEST_SUITE_P(
    LibvmafFlat, Flat,
    ::testing::Values(FlatCase{"black8__black8.json", 8, 0, 0, 0, 0},
                      FlatCase{"y16_8__y128_8.json", 8, 16, 128, 128, 128},
                      FlatCase{"black10__black10.json", 10, 0, 0, 0, 0},
                      FlatCase{"y64_10__y512_10.json", 10, 64, 512, 512, 512}),
    [](const auto& info) {
      std::string n = info.param.file;
      n = n.substr(0, n.find('.'));
      return n;
    });

}  // namespace
}  // namespace vqe::test
