// SPDX-License-Identifier: BSD-2-Clause
// VMAF with libvmaf 3.0/3.1's motion (motion_legacy=true, set through a model
// override as users would: -m version=vmaf_v0.6.1:motion.motion_legacy=true)
// against libvmaf 3.0.0's published 6-decimal values.

#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "test_util.h"
#include "vqe/model.h"

namespace vqe::test {
namespace {

TEST(LegacyVmaf, MatchesLibvmaf300WithinOneMillionth) {
  VQE_REQUIRE_SHARED(shared);
  const auto dir = shared / "testdata" / "reference-v3.0.0";
  if (!std::filesystem::is_directory(dir)) GTEST_SKIP() << "no reference-v3.0.0 in " << shared;
  int pairs = 0, compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    const auto ref = nlohmann::json::parse(in);
    SCOPED_TRACE(entry.path().filename().string());
    const auto clips = shared / "testdata" / "clips";
    JobConfig cfg;
    cfg.models.push_back(load_model_spec("version=vmaf_v0.6.1:motion.motion_legacy=true"));
    const JobResult r = run_pair(clips / ref["reference"].get<std::string>(),
                                 clips / ref["distorted"].get<std::string>(), cfg);
    for (const auto& frame : ref["frames"]) {
      if (!frame["metrics"].contains("vmaf")) continue;
      const unsigned i = frame["frameNum"];
      const auto got = r.features.get("vmaf", i);
      ASSERT_TRUE(got.has_value()) << "frame " << i;
      // libvmaf 3.0.0 printed six decimals.
      EXPECT_NEAR(std::round(*got * 1e6) / 1e6, frame["metrics"]["vmaf"].get<double>(), 1e-6)
          << "frame " << i;
      ++compared;
    }
    ++pairs;
  }
  EXPECT_GE(pairs, 10);
  EXPECT_GT(compared, 100);
}

}  // namespace
}  // namespace vqe::test
