// SPDX-License-Identifier: BSD-2-Clause
// The `vqe` command line: exit codes and messages for good and bad input.

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>

#include <algorithm>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backend/cuda/device.h"
#include "backend/vulkan/device.h"
#include "cli_test_util.h"
#include "test_util.h"

namespace vqe::test {
namespace {

namespace fs = std::filesystem;

std::string y4m(int w, int h, const char* c, int frames, int bits = 8) {
  std::string s = "YUV4MPEG2 W" + std::to_string(w) + " H" + std::to_string(h) + " Ip C" + c + "\n";
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
      {"-r " + short_raw.string() + " -d " + short_raw.string(),
       "raw YUV input needs its width, height, pixel format and bit depth (-w, -h, -p, -b)"},
      // Counts that are not whole numbers in range say what is accepted.
      {"-r " + good.string() + " -d " + good.string() + " --threads abc",
       "--threads: \"abc\" is not a whole number from 0 to 1024"},
      {"-r " + good.string() + " -d " + good.string() + " --frame_cnt -1",
       "--frame_cnt: \"-1\" is not a whole number from 0 to 4294967295"},
      {"-r " + good.string() + " -d " + good.string() + " --subsample 2.5",
       "--subsample: \"2.5\" is not a whole number from 1 to 1073741824"},
  };
  for (const Case& c : cases) {
    const bool has_feature = c.args.find("--feature") != std::string::npos;
    auto r = run_cli(c.args + (has_feature ? "" : " -n --feature psnr") + " -q");
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.err;
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


// The JSON of a run without its speed ("fps"), for comparing runs.
nlohmann::ordered_json scores(const fs::path& json_file) {
  auto j = nlohmann::ordered_json::parse(slurp(json_file));
  j.erase("fps");
  return j;
}

// OutputFile's temporary files for `name` in its folder.
int temporary_files(const fs::path& file) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(file.parent_path()))
    if (e.path().filename().string().rfind("." + file.filename().string() + ".vqe-", 0) == 0) ++n;
  return n;
}

// A 4:2:0 Y4M of `frames` frames of w x h with content that moves (for
// motion) at `bits`, shifted left by `shift` (to make a deeper copy of
// an 8-bit clip), with `noise` added (for a distorted version).
std::string moving_y4m(int w, int h, int frames, int bits = 8, int shift = 0, int noise = 0) {
  std::string s = "YUV4MPEG2 W" + std::to_string(w) + " H" + std::to_string(h) + " F25:1 Ip C" +
                  (bits == 8 ? "420" : "420p" + std::to_string(bits)) + "\n";
  const int cw = (w + 1) / 2, ch = (h + 1) / 2;
  for (int f = 0; f < frames; ++f) {
    s += "FRAME\n";
    for (int p = 0; p < 3; ++p) {
      const int pw = p ? cw : w, ph = p ? ch : h;
      for (int y = 0; y < ph; ++y)
        for (int x = 0; x < pw; ++x) {
          int v = ((x + 3 * f) * 7 + y * 5 + ((x / 8 + y / 8) % 2) * 60 + p * 40) % 220 + 16;
          if (noise) v = std::min(255, v + ((x * 13 + y * 7 + f) % (2 * noise + 1)) - noise);
          const unsigned sample = static_cast<unsigned>(std::max(0, v)) << shift;
          s.push_back(static_cast<char>(sample & 0xff));
          if (bits > 8) s.push_back(static_cast<char>(sample >> 8));
        }
    }
  }
  return s;
}

// --- exit status and messages ----------------------------------------------

TEST(Cli, UsageErrorsExitOneWithOneLineAndAHint) {
  auto a = write_temp("usage_a.y4m", y4m(8, 6, "420", 1));
  const std::string io = "-r " + a.string() + " -d " + a.string() + " ";
  for (const std::string& args :
       {std::string("--bogus"), std::string("-r ") + a.string(), "-d " + a.string(),
        io + "--threads x", io + "--threads -1", io + "-w 0", io + "-p 411", io + "-b 9",
        io + "--aom_ctc v8.0", io + "--aom_ctc proposed", io + "--nflx_ctc v2.0",
        io + "--gpumask x", io + "--cpumask 1z", io + "--xml --json", io + "-m",
        io + "--gpumask 0 --backend cpu", io + "--gpumask 2 --backend cuda", io + "--gpu 1",
        io + "-m version=vmaf_v0.6.1 -m version=vmaf_v0.6.1neg", io + "-n",
        std::string("extra_positional")}) {
    auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("vqe: error: ", 0), 0u) << args << "\n[" << r.err << "]";
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("--help"), std::string::npos) << args << "\n" << r.err;
  }
}

// --- the user's files ------------------------------------------------------

TEST(Cli, OutputIsCheckedBeforeTheFirstFrame) {
  // An endless input: a run that opened its output only at the end would
  // never fail (timeout gives 124).
  auto r = run_cli("-r /dev/zero -d /dev/zero -w 64 -h 64 -n --feature psnr -o /nonexistent/x.xml");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("cannot create the output in /nonexistent/: No such file or directory"),
            std::string::npos)
      << r.err;
}

TEST(Cli, NeverOverwritesAnInput) {
  const std::string bytes = y4m(8, 6, "420", 2);
  auto ref = write_temp("keep_ref.y4m", bytes);
  auto dist = write_temp("keep_dist.y4m", y4m(8, 6, "420", 2));
  const fs::path link = ref.string() + ".lnk";
  fs::remove(link);
  fs::create_hard_link(ref, link);
  for (const fs::path& out : {ref, link, dist}) {
    auto r = run_cli("-r " + ref.string() + " -d " + dist.string() + " -n --feature psnr -q -o " +
                     out.string());
    EXPECT_EQ(r.exit_code, 1) << out;
    EXPECT_NE(r.err.find("is the same file as the input"), std::string::npos) << r.err;
  }
  EXPECT_EQ(slurp(ref), bytes);
  EXPECT_EQ(temporary_files(ref), 0);
  fs::remove(link);
}

TEST(Cli, FailedRunKeepsTheOldOutput) {
  auto good = write_temp("old_good.y4m", y4m(8, 6, "420", 3));
  const std::string full = y4m(8, 6, "420", 3);
  auto trunc = write_temp("old_trunc.y4m", full.substr(0, full.size() - 5));
  auto out = write_temp("old_out.json", "precious");
  auto r = run_cli("-r " + good.string() + " -d " + trunc.string() +
                   " -n --feature psnr --json -q -o " + out.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(temporary_files(out), 0);
}

// Starts the CLI with `args` (output to /dev/null), optionally with SIGHUP
// ignored as nohup leaves it; returns its pid.
pid_t spawn_cli(std::vector<std::string> args, bool ignore_hangup = false) {
  args.insert(args.begin(), VQE_CLI_PATH);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  // An ignored signal stays ignored across exec.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  if (ignore_hangup) ::sigaction(SIGHUP, &ignore, &previous);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  if (ignore_hangup) ::sigaction(SIGHUP, &previous, nullptr);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(spawned, 0);
  return pid;
}

// Waits (up to 10 s) until `path` has `count` temporary files beside it.
void wait_for_temporaries(const fs::path& path, int count) {
  for (int i = 0; i < 200 && temporary_files(path) < count; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
}

TEST(Cli, InterruptedRunLeavesNoTrace) {
  auto out = write_temp("interrupted.xml", "precious");
  const pid_t pid = spawn_cli({"-r", "/dev/zero", "-d", "/dev/zero", "-w", "64", "-h", "64", "-n",
                               "--feature", "psnr", "-q", "-o", out.string()});
  // The temporary output exists before the first frame: wait for it.
  wait_for_temporaries(out, 1);
  EXPECT_EQ(temporary_files(out), 1);
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(temporary_files(out), 0);
}

TEST(Cli, InterruptedLadderLeavesNoTraceAndIgnoredHangupStaysIgnored) {
  // Two endless raw inputs with different names: a ladder with two outputs.
  const fs::path dir = write_temp("ladder_signal", "").string() + ".d";
  fs::create_directories(dir);
  for (const char* name : {"a.yuv", "b.yuv"}) {
    fs::remove(dir / name);
    fs::create_symlink("/dev/zero", dir / name);
  }
  const fs::path out_a = dir / "out_a.json", out_b = dir / "out_b.json";
  std::ofstream(out_a) << "precious";
  fs::remove(out_b);
  for (int signal : {SIGINT, SIGTERM}) {
    const pid_t pid = spawn_cli({"-r", "/dev/zero", "-d", (dir / "a.yuv").string(), "-d",
                                 (dir / "b.yuv").string(), "-w", "64", "-h", "64", "-n",
                                 "--feature", "psnr", "-q", "-o", (dir / "out_{name}.json").string()},
                                /*ignore_hangup=*/true);
    wait_for_temporaries(out_a, 1);
    wait_for_temporaries(out_b, 1);
    EXPECT_EQ(temporary_files(out_a) + temporary_files(out_b), 2);
    // Started with SIGHUP ignored (nohup): a hangup does not end it.
    ::kill(pid, SIGHUP);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    int status = 0;
    EXPECT_EQ(::waitpid(pid, &status, WNOHANG), 0) << "ended by an ignored SIGHUP";
    ::kill(pid, signal);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << status;
    EXPECT_EQ(slurp(out_a), "precious");
    EXPECT_FALSE(fs::exists(out_b));
    EXPECT_EQ(temporary_files(out_a) + temporary_files(out_b), 0);
  }
  fs::remove_all(dir);
}

TEST(Cli, InterruptedLadderOfManyEncodesLeavesNoTrace) {
  // More outputs than the signal handler once had room for (64).
  const fs::path dir = write_temp("ladder_many", "").string() + ".d";
  fs::remove_all(dir);
  fs::create_directories(dir);
  constexpr int kEncodes = 70;
  std::vector<std::string> args = {"-r", "/dev/zero"};
  for (int i = 0; i < kEncodes; ++i) {
    const fs::path encode = dir / ((i < 10 ? "e0" : "e") + std::to_string(i) + ".yuv");
    fs::create_symlink("/dev/zero", encode);
    args.insert(args.end(), {"-d", encode.string()});
  }
  args.insert(args.end(), {"-w", "16", "-h", "16", "-n", "--feature", "psnr", "-q", "-o",
                           (dir / "out_{name}.json").string()});
  const pid_t pid = spawn_cli(args);
  const auto temporaries = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir))
      n += e.path().filename().string().rfind(".out_e", 0) == 0 ? 1 : 0;
    return n;
  };
  for (int i = 0; i < 200 && temporaries() < kEncodes; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(temporaries(), kEncodes);
  ::kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(temporaries(), 0);
  fs::remove_all(dir);
}

// --- inputs by content -----------------------------------------------------

TEST(Cli, PipesAndStandardInputScoreLikeFiles) {
  auto ref = write_temp("pipe_ref.y4m", moving_y4m(16, 12, 3));
  auto dist = write_temp("pipe_dist.y4m", moving_y4m(16, 12, 3, 8, 0, 3));
  // The same content under names that say nothing or say otherwise.
  auto upper = write_temp("PIPE_REF.Y4M", slurp(ref));
  auto as_yuv = write_temp("pipe_ref_as.yuv", slurp(ref));
  const std::string tail = " -n --feature psnr --feature motion --json --precision max -q -o ";
  auto expected = write_temp("pipe_file.json", "");
  ASSERT_EQ(run_cli("-r " + ref.string() + " -d " + dist.string() + tail + expected.string()).exit_code, 0);
  struct Case {
    std::string args, feed;
  } cases[] = {
      {"-r - -d " + dist.string(), "cat " + ref.string()},
      {"-r /dev/stdin -d " + dist.string(), "cat " + ref.string()},
      {"-r " + ref.string() + " -d -", "cat " + dist.string()},
      {"-r " + upper.string() + " -d " + dist.string(), ""},
      {"-r " + as_yuv.string() + " -d " + dist.string(), ""},
  };
  for (const Case& c : cases) {
    auto got = write_temp("pipe_got.json", "");
    auto r = run_cli(c.args + tail + got.string(), c.feed);
    ASSERT_EQ(r.exit_code, 0) << c.args << "\n" << r.err;
    EXPECT_TRUE(scores(got) == scores(expected)) << c.args;
  }
}

TEST(Cli, MessagesNameStandardInputAndEscapeControlCharacters) {
  auto dist = write_temp("names_dist.y4m", y4m(8, 6, "420", 2));
  auto r = run_cli("-r - -d " + dist.string() + " -n --feature psnr -q", "printf garbage");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("vqe: error: standard input: not a Y4M file"), std::string::npos) << r.err;
  // A file name holding a terminal escape sequence is printed escaped.
  auto odd = write_temp("names_\x1b[31m.y4m", "garbage");
  r = run_cli("-r '" + odd.string() + "' -d " + dist.string() + " -n --feature psnr -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("names_\\x1b[31m.y4m: not a Y4M file"), std::string::npos) << r.err;
  fs::remove(odd);
}

TEST(Cli, OneEncodeTakesTheLadderOutputPattern) {
  // -o with {name} and one -d: the name substituted, as a ladder would.
  auto ref = write_temp("pattern_ref.y4m", y4m(8, 6, "420", 2));
  auto dist = write_temp("pattern_enc.y4m", y4m(8, 6, "420", 2));
  const fs::path out = ref.parent_path() / ("pattern_out_" + dist.stem().string() + ".json");
  fs::remove(out);
  auto r = run_cli("-r " + ref.string() + " -d " + dist.string() +
                   " -n --feature psnr --json -q -o " +
                   (ref.parent_path() / "pattern_out_{name}.json").string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(fs::exists(ref.parent_path() / "pattern_out_{name}.json"));
  fs::remove(out);
  // An encode read from standard input is named "stdin", in a ladder too.
  const fs::path from_stdin = ref.parent_path() / "pattern_out_stdin.json";
  fs::remove(from_stdin);
  r = run_cli("-r " + ref.string() + " -d - -d " + dist.string() +
                  " -n --feature psnr --json -q -o " +
                  (ref.parent_path() / "pattern_out_{name}.json").string(),
              "cat " + dist.string());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(from_stdin));
  EXPECT_TRUE(fs::exists(out));
  fs::remove(from_stdin);
  fs::remove(out);
}

TEST(Cli, OneStreamIsNotBothInputs) {
  auto ref = write_temp("stream_ref.y4m", y4m(8, 6, "420", 2));
  const std::string feed = "cat " + ref.string();
  auto r = run_cli("-r - -d - -n --feature psnr -q", feed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("both inputs read standard input"), std::string::npos) << r.err;
  r = run_cli("-r - -d /dev/stdin -n --feature psnr -q", feed);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("are the same stream"), std::string::npos) << r.err;
  // A regular file given twice, and a device given twice, are read twice.
  EXPECT_EQ(run_cli("-r " + ref.string() + " -d " + ref.string() + " -n --feature psnr -q").exit_code, 0);
  r = run_cli("-r /dev/zero -d /dev/zero -w 8 -h 6 --frame_cnt 2 -n --feature psnr -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("psnr_y: 60.000000"), std::string::npos) << r.out;
}

TEST(Cli, DevicesDirectoriesAndProcFiles) {
  auto good = write_temp("dev_good.y4m", y4m(8, 6, "420", 2));
  const fs::path dir = fs::temp_directory_path() / "vqe-tests" / "cli_dir.y4m";
  fs::create_directories(dir);
  struct Case {
    std::string input, needle;
  } cases[] = {
      {"/dev/zero", "/dev/zero: not a Y4M file (it starts with \"\\x00\\x00"},
      {"/dev/urandom", "/dev/urandom: not a Y4M file"},
      {"/proc/self/status", "not a Y4M file (it starts with \"Name:"},
      {dir.string(), "cli_dir.y4m: is a directory"},
  };
  for (const Case& c : cases) {
    auto r = run_cli("-r " + c.input + " -d " + good.string() + " -n --feature psnr -q");
    EXPECT_EQ(r.exit_code, 1) << c.input;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  }
}

TEST(Cli, HeaderClaimingAHugeFrameFailsFast) {
  auto huge = write_temp("cli_huge.y4m",
                         "YUV4MPEG2 W32768 H32768 Ip C420\nFRAME\n" + std::string(6000, '\0'));
  const auto t0 = std::chrono::steady_clock::now();
  auto r = run_cli("-r " + huge.string() + " -d " + huge.string() + " --threads 4 -q");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is shorter than one frame"), std::string::npos) << r.err;
  // Through a pipe (no size to check): the first frame ends early, which is
  // found before the job allocates its buffers.
  r = run_cli("-r - -d " + huge.string() + " --threads 4 -q", "cat " + huge.string());
  EXPECT_EQ(r.exit_code, 1);
}

TEST(Cli, OutOfMemoryIsACleanError) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves more address space than the limit allows";
#else
  // Under an address-space limit, whichever allocation fails first (a
  // picture, an extractor's buffers on a worker thread, a thread's stack)
  // ends the run with a message and status 1, never an abort.
  for (const char* limit : {"200000", "600000", "1300000"}) {
    auto r = run_cli("-r /dev/zero -d /dev/zero -w 4096 -h 4096 --threads 4 --frame_cnt 12 -q "
                     "--feature float_ssim",
                     "", std::string("ulimit -v ") + limit);
    EXPECT_EQ(r.exit_code, 1) << limit << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("vqe: error: out of memory", 0), 0u) << limit << "\n" << r.err;
  }
#endif
}

TEST(Cli, RawOptionsWithY4mInputs) {
  auto a = write_temp("rawopt_a.y4m", y4m(8, 6, "420", 2));
  const std::string frames = y4m(8, 6, "420", 2);
  std::string raw_bytes;  // the same frames without the Y4M header and FRAME lines
  for (std::size_t at = frames.find("FRAME\n"); at != std::string::npos;) {
    const std::size_t next = frames.find("FRAME\n", at + 6);
    raw_bytes += frames.substr(at + 6, next == std::string::npos ? std::string::npos : next - at - 6);
    at = next;
  }
  auto raw = write_temp("rawopt_b.yuv", raw_bytes);
  // Agreeing with the header: scored, with a warning that they were not used.
  auto r = run_cli("-r " + a.string() + " -d " + a.string() + " -w 8 -h 6 -p 420 -b 8 -n --feature psnr -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("vqe: warning: -w, -h, -p and -b are for raw input and were not used"),
            std::string::npos)
      << r.err;
  // Saying another format: an error naming both.
  r = run_cli("-r " + a.string() + " -d " + a.string() + " -w 16 -h 6 -n --feature psnr -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("header says 8x6 420 8-bit, but -w 16 says otherwise"), std::string::npos) << r.err;
  // Needed for the raw input, agreeing with the Y4M one: no warning.
  r = run_cli("-r " + a.string() + " -d " + raw.string() + " -w 8 -h 6 -n --feature psnr -q");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(Cli, SmallThingsThatConfuse) {
  // A malformed FRAME line is shown escaped, not as raw bytes.
  auto bad = write_temp("cli_badframe.y4m", std::string("YUV4MPEG2 W4 H4 Ip C420\nFR\x1b[2J\n") +
                                                std::string(24, 'a'));
  auto r = run_cli("-r " + bad.string() + " -d " + bad.string() + " -n --feature psnr -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("found \"FR\\x1b[2J\""), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos);
  EXPECT_EQ(r.err.rfind("vqe: error: ", 0), 0u) << "[" << r.err << "]";
  // Unknown interlacing: libvmaf's warning, then the scores.
  auto unknown = write_temp("cli_unknown_i.y4m", "YUV4MPEG2 W4 H4 C420\nFRAME\n" + std::string(24, 'a'));
  r = run_cli("-r " + unknown.string() + " -d " + unknown.string() + " -n --feature psnr -q");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("interlacing unknown (Y4M tag I? or no I tag); assuming progressive scan"),
            std::string::npos)
      << r.err;
}

// --- names and values in the output ---------------------------------------

TEST(Cli, ModelNamesThatCollideOrCannotBeWritten) {
  auto a = write_temp("names_a.y4m", moving_y4m(48, 36, 2));
  const fs::path out = fs::temp_directory_path() / "vqe-tests" / "names_never.csv";
  fs::remove(out);
  struct Case {
    std::string model, needle;
  } cases[] = {
      {"version=vmaf_v0.6.1:name=integer_adm2", "'integer_adm2' is also the name of a feature"},
      {"version=vmaf_v0.6.1:name=a,b", "model name \"a,b\" cannot be written"},
      {"version=vmaf_v0.6.1:name=x y", "model name \"x y\""},
      {"version=vmaf_v0.6.1:name=<v>", "model name \"<v>\""},
      {"version=vmaf_v0.6.1:name=9lives", "model name \"9lives\""},
  };
  for (const Case& c : cases) {
    auto r = run_cli("-r " + a.string() + " -d " + a.string() + " -m '" + c.model +
                     "' --csv -q -o " + out.string());
    EXPECT_EQ(r.exit_code, 1) << c.model;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out));
  }
  auto r = run_cli("-r " + a.string() + " -d " + a.string() +
                   " -m version=vmaf_b_v0.6.3:name=b -m version=vmaf_v0.6.1:name=b_stddev -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'b_stddev' is also the name"), std::string::npos) << r.err;
}

TEST(Cli, BooleansTakeLibvmafSpellingsOnly) {
  auto a = write_temp("bool_a.y4m", moving_y4m(48, 36, 2));
  auto b = write_temp("bool_b.y4m", moving_y4m(48, 36, 2, 8, 0, 4));
  const std::string io = "-r " + a.string() + " -d " + b.string() + " --json --precision max -q -o ";
  std::map<std::string, nlohmann::ordered_json> got;
  for (const char* flag : {"enable_transform", "enable_transform=true", "enable_transform=1",
                           "enable_transform=false", "enable_transform=0"}) {
    auto out = write_temp("bool_out.json", "");
    auto r = run_cli(io + out.string() + " -m version=vmaf_v0.6.1:" + flag);
    ASSERT_EQ(r.exit_code, 0) << flag << "\n" << r.err;
    got[flag] = scores(out);
  }
  EXPECT_TRUE(got["enable_transform"] == got["enable_transform=true"]);
  EXPECT_TRUE(got["enable_transform=1"] == got["enable_transform=true"]);
  EXPECT_TRUE(got["enable_transform=0"] == got["enable_transform=false"]);
  EXPECT_TRUE(got["enable_transform=true"] != got["enable_transform=false"]);
  for (const std::string& spec : {std::string("-m version=vmaf_v0.6.1:enable_transform=yes"),
                                  std::string("-m version=vmaf_v0.6.1:disable_clip=on"),
                                  std::string("-n --feature psnr=enable_mse=yes")}) {
    auto r = run_cli("-r " + a.string() + " -d " + b.string() + " -q " + spec);
    EXPECT_EQ(r.exit_code, 1) << spec;
    EXPECT_TRUE(r.err.find("=yes is not a boolean") != std::string::npos ||
                r.err.find("=on is not a boolean") != std::string::npos)
        << r.err;
  }
}

TEST(Cli, NonFiniteValuesHaveOneFormPerFormat) {
  // Identical frames: CIEDE2000 is +inf, as in libvmaf.
  auto a = write_temp("inf_a.y4m", moving_y4m(16, 12, 1));
  const std::string io = "-r " + a.string() + " -d " + a.string() + " -n --feature ciede -q -o ";
  auto xml = write_temp("inf.xml", ""), csv = write_temp("inf.csv", ""),
       json = write_temp("inf.json", "");
  ASSERT_EQ(run_cli(io + xml.string() + " --xml").exit_code, 0);
  ASSERT_EQ(run_cli(io + csv.string() + " --csv").exit_code, 0);
  ASSERT_EQ(run_cli(io + json.string() + " --json").exit_code, 0);
  EXPECT_NE(slurp(xml).find("ciede2000=\"inf\""), std::string::npos) << slurp(xml);
  EXPECT_EQ(slurp(csv), "Frame,ciede2000,\n0,inf,\n");
  EXPECT_TRUE(scores(json)["frames"][0]["metrics"]["ciede2000"].is_null());
}

// --- libvmaf's presets and options -----------------------------------------

TEST(Cli, PresetsAreLibvmafs) {
  // 384x384: large enough for MS-SSIM and CAMBI, and for float_ssim's
  // automatic scale to be 2 (v7.0 sets scale=1).
  auto a = write_temp("ctc_a.y4m", moving_y4m(384, 384, 2));
  auto b = write_temp("ctc_b.y4m", moving_y4m(384, 384, 2, 8, 0, 6));
  const std::string io = "-r " + a.string() + " -d " + b.string() + " --json --precision max -q -o ";
  const auto run_json = [&](const std::string& args) {
    auto out = write_temp("ctc_out.json", "");
    auto r = run_cli(io + out.string() + " " + args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
    return r.exit_code == 0 ? scores(out) : nlohmann::ordered_json();
  };
  // libvmaf 3.2.0's definitions (libvmaf/tools/cli_parse.c), written out.
  const std::string v1 =
      "-m version=vmaf_v0.6.1:name=vmaf -m version=vmaf_v0.6.1neg:name=vmaf_neg "
      "--feature psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5 --feature ciede "
      "--feature float_ssim=enable_db=true:clip_db=true "
      "--feature float_ms_ssim=enable_db=true:clip_db=true --feature psnr_hvs";
  const std::string v3 = v1 + " --feature cambi";
  const std::string v7 =
      "-m version=vmaf_v0.6.1:name=vmaf -m version=vmaf_v0.6.1neg:name=vmaf_neg "
      "--feature psnr=reduced_hbd_peak=true:enable_apsnr=true:min_sse=0.5 --feature ciede "
      "--feature float_ssim=scale=1:enable_db=true:clip_db=true "
      "--feature float_ms_ssim=enable_db=true:clip_db=true --feature psnr_hvs --feature cambi";
  const std::string nflx =
      "-m version=vmaf_4k_v0.6.1:name=vmaf -m version=vmaf_4k_v0.6.1neg:name=vmaf_neg "
      "--feature psnr=enable_chroma=true:enable_apsnr=true "
      "--feature float_ssim=enable_db=true:clip_db=true --feature cambi";
  const auto explicit_v1 = run_json(v1), explicit_v3 = run_json(v3), explicit_v7 = run_json(v7);
  // (EXPECT_TRUE: a failure would print pages of JSON.)
  EXPECT_TRUE(run_json("--aom_ctc v1.0") == explicit_v1);
  EXPECT_TRUE(run_json("--aom_ctc v2.0") == explicit_v1);
  for (const char* v : {"v3.0", "v4.0", "v5.0", "v6.0"})
    EXPECT_TRUE(run_json(std::string("--aom_ctc ") + v) == explicit_v3) << v;
  EXPECT_TRUE(run_json("--aom_ctc v7.0") == explicit_v7);
  EXPECT_TRUE(run_json("--nflx_ctc v1.0") == run_json(nflx));
  EXPECT_TRUE(explicit_v3["frames"][0]["metrics"].contains("cambi"));
  EXPECT_FALSE(explicit_v1["frames"][0]["metrics"].contains("cambi"));
  EXPECT_NE(explicit_v7["frames"][0]["metrics"]["float_ssim"],
            explicit_v3["frames"][0]["metrics"]["float_ssim"]);  // scale 1, not 2
  // A preset's features go where it stands among the --feature options (a
  // model's features always come first, as in libvmaf).
  const auto before = run_json("--feature float_psnr --aom_ctc v1.0");
  std::vector<std::string> keys;
  for (const auto& [key, value] : before["pooled_metrics"].items()) keys.push_back(key);
  const auto at = [&](const char* k) { return std::find(keys.begin(), keys.end(), k) - keys.begin(); };
  EXPECT_EQ(keys.front(), "integer_adm2");
  EXPECT_LT(at("float_psnr"), at("psnr_y"));
  // v7.0 replaces the first float_ssim request where it stands, and a
  // second request of an extractor that would write the same names is
  // dropped with a warning (libvmaf drops it silently).
  EXPECT_TRUE(run_json("--feature float_ssim --aom_ctc v7.0") ==
              run_json("--feature float_ssim=scale=1:enable_db=true:clip_db=true " + v7));
  auto r = run_cli(io + "/dev/null --aom_ctc v7.0 --feature psnr=enable_mse=true");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("feature psnr=enable_mse=true is not computed: "
                       "psnr=enable_apsnr=true:min_sse=0.5:reduced_hbd_peak=true, requested first"),
            std::string::npos)
      << r.err;
}

TEST(Cli, AomCtcV6ComparesDifferentBitDepthsAtTheHigherOne) {
  // AOM CWG-D088: an 8-bit source against a 10-bit encode. libvmaf 3.2.0's
  // vmaf reads past its buffers there; VQE shifts the 8-bit input up.
  auto ref8 = write_temp("cbd_ref8.y4m", moving_y4m(256, 256, 2));
  auto ref10 = write_temp("cbd_ref10.y4m", moving_y4m(256, 256, 2, 10, 2));
  auto dist10 = write_temp("cbd_dist10.y4m", moving_y4m(256, 256, 2, 10, 2, 5));
  auto mixed = write_temp("cbd_mixed.json", ""), same = write_temp("cbd_same.json", "");
  auto r = run_cli("-r " + ref8.string() + " -d " + dist10.string() +
                   " --aom_ctc v6.0 --json --precision max -q -o " + mixed.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(run_cli("-r " + ref10.string() + " -d " + dist10.string() +
                    " --aom_ctc v6.0 --json --precision max -q -o " + same.string())
                .exit_code,
            0);
  EXPECT_TRUE(scores(mixed) == scores(same));
  // Before v6.0 the bit depths must agree.
  r = run_cli("-r " + ref8.string() + " -d " + dist10.string() + " --aom_ctc v5.0 -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("differ in bit depth"), std::string::npos) << r.err;
}

TEST(Cli, GpumaskAsLibvmaf) {
  auto a = write_temp("gpumask_a.y4m", y4m(8, 6, "420", 2));
  const std::string io = "-r " + a.string() + " -d " + a.string() + " -n --feature psnr -q ";
  // Non-zero: the CPU. -1 is libvmaf's "every bit" (strtoul wraps it).
  for (const char* mask : {"1", "-1", "0xff"}) {
    auto r = run_cli(io + "--gpumask " + mask);
    EXPECT_EQ(r.exit_code, 0) << mask << "\n" << r.err;
    EXPECT_NE(r.out.find("psnr_y: 60.000000"), std::string::npos);
  }
  // 0: the GPU where there is one, else the CPU with a note (libvmaf's
  // "using CPU").
  auto r = run_cli(io + "--gpumask 0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("psnr_y: 60.000000"), std::string::npos);
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

TEST(Cli, SeveralDistortedRunALadder) {
  auto ref = write_temp("ladder_ref.y4m", y4m(8, 6, "420", 3));
  auto a = write_temp("ladder_a.y4m", y4m(8, 6, "420", 3));
  auto b = write_temp("ladder_b.y4m", y4m(8, 6, "420", 2));
  const fs::path dir = a.parent_path();
  const std::string io = "-r " + ref.string() + " -d " + a.string() + " -d " + b.string() +
                         " -n --feature psnr --json -q ";
  auto r = run_cli(io + "-o " + (dir / "ladder_out_{name}.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // {name}: each distorted file's name without its extension.
  for (const auto& [input, frames] : {std::pair{a, 3u}, std::pair{b, 2u}}) {
    const fs::path written = dir / ("ladder_out_" + input.stem().string() + ".json");
    std::ifstream in(written);
    ASSERT_TRUE(in) << written;
    EXPECT_EQ(nlohmann::json::parse(in)["frames"].size(), frames) << written;
    fs::remove(written);
  }
  // Without {name}, with -o - or with --html: usage errors, nothing written.
  for (const std::string& extra : {"-o " + (dir / "ladder_one.json").string(), std::string("-o -"),
                                  "--html " + (dir / "ladder_one.html").string()}) {
    auto bad = run_cli(io + extra);
    EXPECT_EQ(bad.exit_code, 1) << extra;
    EXPECT_EQ(bad.err.rfind("vqe: error: ", 0), 0u) << bad.err;
    EXPECT_NE(bad.err.find("(see vqe --help)"), std::string::npos) << bad.err;
  }
  EXPECT_FALSE(fs::exists(dir / "ladder_one.json"));
  EXPECT_FALSE(fs::exists(dir / "ladder_one.html"));
  // An output that would be an input is refused before any work.
  auto clash = run_cli("-r " + ref.string() + " -d " + a.string() + " -d " + b.string() +
                       " -n --feature psnr -q -o " + (dir / "{name}.y4m").string());
  EXPECT_EQ(clash.exit_code, 1) << clash.err;
  EXPECT_EQ(fs::file_size(a), y4m(8, 6, "420", 3).size());
  // Without -o: each encode's pooled means on stdout.
  auto plain = run_cli("-r " + ref.string() + " -d " + a.string() + " -d " + b.string() +
                       " -n --feature psnr -q");
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_NE(plain.out.find(a.string() + ":"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find(b.string() + ":"), std::string::npos) << plain.out;
}

// An output that cannot be written (a full disk: /dev/full behind the
// first encode's name) fails that encode alone: the later encodes, scored
// already, are still written, and the status is 1.
TEST(Cli, LadderWriteErrorFailsOnlyThatOutput) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  auto ref = write_temp("ladder_full_ref.y4m", y4m(8, 6, "420", 3));
  auto a = write_temp("ladder_full_a.y4m", y4m(8, 6, "420", 3));
  auto b = write_temp("ladder_full_b.y4m", y4m(8, 6, "420", 3));
  const fs::path dir = a.parent_path();
  const fs::path full = dir / ("ladder_full_out_" + a.stem().string() + ".json");
  const fs::path written = dir / ("ladder_full_out_" + b.stem().string() + ".json");
  fs::remove(full);
  fs::remove(written);
  fs::create_symlink("/dev/full", full);
  auto r = run_cli("-r " + ref.string() + " -d " + a.string() + " -d " + b.string() +
                   " -n --feature psnr --json -q -o " + (dir / "ladder_full_out_{name}.json").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(full.string()), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_symlink(full));
  fs::remove(full);
  ASSERT_TRUE(fs::exists(written)) << "the second encode's output was not written: " << r.err;
  std::ifstream in(written);
  EXPECT_EQ(nlohmann::json::parse(in)["frames"].size(), 3u);
  fs::remove(written);
  for (const auto& p : {ref, a, b}) fs::remove(p);
}

TEST(Cli, HtmlReportIsAnOutput) {
  auto a = write_temp("html_a.y4m", y4m(8, 6, "420", 2));
  const fs::path page = a.parent_path() / "html_report.html";
  fs::remove(page);
  const std::string io = "-r " + a.string() + " -d " + a.string() + " -n --feature psnr -q ";
  auto r = run_cli(io + "--html " + page.string());
  if (r.exit_code == 1 && r.err.find("no HTML report") != std::string::npos)
    GTEST_SKIP() << "this build has no HTML report";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(page);
  const std::string html(std::istreambuf_iterator<char>(in), {});
  EXPECT_NE(html.find("<html"), std::string::npos);
  // Never an input, never the -o file.
  const auto before = fs::file_size(a);
  auto onto_input = run_cli(io + "--html " + a.string());
  EXPECT_EQ(onto_input.exit_code, 1);
  EXPECT_EQ(fs::file_size(a), before);
  auto same = run_cli(io + "-o " + page.string() + " --html " + page.string());
  EXPECT_EQ(same.exit_code, 1);
  EXPECT_NE(same.err.find("(see vqe --help)"), std::string::npos) << same.err;
}

TEST(Cli, VerbosePrintsWhereTheTimeWent) {
  auto a = write_temp("time_a.y4m", y4m(8, 6, "420", 2));
  auto r = run_cli("-r " + a.string() + " -d " + a.string() + " -n --feature psnr -q --verbose");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("time: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" wall for 2 frames"), std::string::npos) << r.err;
}

TEST(Cli, BackendVulkanIsAnOption) {
  auto a = write_temp("vk_a.y4m", y4m(8, 6, "420", 2));
  // Accepted by the parser; the job says whether the build or the machine
  // has the backend (status 0 or 1, never a usage error).
  auto r = run_cli("-r " + a.string() + " -d " + a.string() + " -n --feature psnr -q --backend vulkan");
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
  EXPECT_EQ(r.err.find("see vqe --help"), std::string::npos) << r.err;
  auto g = run_cli("-r " + a.string() + " -d " + a.string() + " -n --feature psnr -q --gpu 1");
  EXPECT_EQ(g.exit_code, 1);
  EXPECT_NE(g.err.find("--gpu needs --backend cuda, vulkan or auto"), std::string::npos) << g.err;
}

TEST(Cli, BackendAutoLeavesASoftwareVulkanDeviceAlone) {
  // Mesa's llvmpipe (installed for the Vulkan tests) runs on the CPU, tens
  // of times slower than the CPU backend: auto uses the CPU instead and says
  // why; --backend vulkan still runs on it.
  if (cuda::device_count() > 0 || vulkan::device_count() == 0 || !vulkan::device_is_software(0))
    GTEST_SKIP() << "needs a software Vulkan device 0 and no CUDA device";
  auto a = write_temp("auto_a.y4m", y4m(8, 6, "420", 2));
  auto r = run_cli("-r " + a.string() + " -d " + a.string() + " -n --feature psnr -q --backend auto");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("Vulkan device 0 is a software renderer"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("using the CPU"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("using Vulkan device"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace vqe::test
