// SPDX-License-Identifier: BSD-2-Clause
// The `vqe` command line: exit codes and messages for good and bad input.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sys/wait.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_util.h"

namespace vqe::test {
namespace {

namespace fs = std::filesystem;

struct CliResult {
  int exit_code;
  std::string out;
  std::string err;
};

CliResult run_cli(const std::string& args) {
  const auto out = write_temp("cli.out", "");
  const auto err = write_temp("cli.err", "");
  const std::string cmd = std::string(VQE_CLI_PATH) + " " + args + " >" + out.string() + " 2>" +
                          err.string() + " </dev/null";
  const int status = std::system(cmd.c_str());
  auto slurp = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(out), slurp(err)};
}

std::string y4m(int w, int h, const char* c, int frames, int bits = 8) {
  std::string s = "YUV4MPEG2 W" + std::to_string(w) + " H" + std::to_string(h) + " C" + c + "\n";
  const int cw = (w + 1) / 2, ch = std::string(c).rfind("420", 0) == 0 ? (h + 1) / 2 : h;
  const int samples = w * h + 2 * cw * ch;
  for (int f = 0; f < frames; ++f) {
    s += "FRAME\n";
    for (int i = 0; i < samples * (bits > 8 ? 2 : 1); ++i) s.push_back(static_cast<char>((i * 3 + f) & (bits > 8 ? 0x03 : 0xff)));
  }
  return s;
}

TEST(Cli, HelpAndVersion) {
  auto r = run_cli("--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* opt : {"--reference", "--distorted", "--width", "--height", "--pixel_format",
                          "--bitdepth", "--model", "--output", "--xml", "--json", "--csv", "--sub",
                          "--threads", "--feature", "--subsample", "--frame_cnt",
                          "--frame_skip_ref", "--frame_skip_dist", "--quiet", "--no_prediction",
                          "--version", "--precision", "--backend", "--gpu", "--verbose"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
  r = run_cli("-v");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("vqe"), std::string::npos);
}

TEST(Cli, ScoresAndWritesJson) {
  auto a = write_temp("cli_a.y4m", y4m(8, 6, "420", 3));
  auto b = write_temp("cli_b.y4m", y4m(8, 6, "420", 3));
  auto out = write_temp("cli_out.json", "");
  auto r = run_cli("-r " + a.string() + " -d " + b.string() +
                   " -n --feature psnr=enable_mse=true --json --precision max -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out);
  auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["frames"].size(), 3u);
  EXPECT_EQ(j["frames"][0]["metrics"]["psnr_y"].get<double>(), 60.0);
  EXPECT_EQ(j["frames"][0]["metrics"]["mse_y"].get<double>(), 0.0);
}

TEST(Cli, BadInputsExitNonZeroWithAMessage) {
  auto good = write_temp("cli_good.y4m", y4m(8, 6, "420", 2));
  auto wide = write_temp("cli_wide.y4m", y4m(10, 6, "420", 2));
  auto deep = write_temp("cli_deep.y4m", y4m(8, 6, "420p10", 2, 10));
  auto c444 = write_temp("cli_444.y4m", y4m(8, 6, "444", 2));
  const std::string full = y4m(8, 6, "420", 2);
  auto trunc = write_temp("cli_trunc.y4m", full.substr(0, full.size() - 5));
  auto empty = write_temp("cli_empty.y4m", "");
  auto inter = write_temp("cli_inter.y4m", "YUV4MPEG2 W8 H6 It\nFRAME\n" + std::string(72, 'a'));
  auto header_only = write_temp("cli_header_only.y4m", "YUV4MPEG2 W8 H6\n");
  auto short_raw = write_temp("cli_short.yuv", std::string(5, 'a'));
  struct Case {
    std::string args;
    std::string needle;
  } cases[] = {
      {"-r " + good.string() + " -d " + wide.string(), "differ in size"},
      {"-r " + good.string() + " -d " + deep.string(), "differ in bit depth"},
      {"-r " + good.string() + " -d " + c444.string(), "differ in chroma format"},
      {"-r " + good.string() + " -d " + trunc.string(), "frame 1 is truncated"},
      {"-r " + good.string() + " -d " + empty.string(), "empty"},
      {"-r " + good.string() + " -d " + inter.string(), "interlaced"},
      {"-r " + good.string() + " -d " + header_only.string(), "no frames"},
      {"-r " + short_raw.string() + " -d " + short_raw.string() + " -w 8 -h 6 -p 420 -b 8",
       "shorter than one frame"},
      {"-r " + good.string() + " -d /nonexistent.y4m", "cannot open"},
      {"-r " + good.string() + " -d " + good.string() + " -n --feature nosuch", "unknown feature"},
      {"-r " + good.string() + " -d " + good.string() + " -n --feature psnr=bogus=1",
       "unknown option 'bogus'"},
      {"-r " + good.string() + " -d " + good.string() + " -n --feature psnr --precision 99",
       "--precision"},
      {"-r " + short_raw.string() + " -d " + short_raw.string(), "-w, -h, -p and -b"},
  };
  for (const Case& c : cases) {
    const bool has_feature = c.args.find("--feature") != std::string::npos;
    auto r = run_cli(c.args + (has_feature ? "" : " -n --feature psnr") + " -q");
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_LT(r.exit_code, 128) << "crashed: " << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << "\n" << r.err;
  }
}

TEST(Cli, NoPartialOutputOnError) {
  auto good = write_temp("cli_good2.y4m", y4m(8, 6, "420", 2));
  const std::string full = y4m(8, 6, "420", 2);
  auto trunc = write_temp("cli_trunc2.y4m", full.substr(0, full.size() - 5));
  const fs::path out = fs::temp_directory_path() / "vqe-tests" / "cli_never_written.json";
  fs::remove(out);
  auto r = run_cli("-r " + good.string() + " -d " + trunc.string() +
                   " -n --feature psnr --json -q -o " + out.string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, ShorterFileWarnsAndScoresPrefix) {
  auto three = write_temp("cli_three.y4m", y4m(8, 6, "420", 3));
  auto two = write_temp("cli_two.y4m", y4m(8, 6, "420", 2));
  auto out = write_temp("cli_prefix.json", "");
  auto r = run_cli("-r " + three.string() + " -d " + two.string() +
                   " -n --feature psnr --json -q -o " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("cli_two.y4m ended after 2 frames"), std::string::npos) << r.err;
  std::ifstream in(out);
  EXPECT_EQ(nlohmann::json::parse(in)["frames"].size(), 2u);
}

}  // namespace
}  // namespace vqe::test
