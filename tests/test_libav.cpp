// SPDX-License-Identifier: BSD-2-Clause
// Compressed input (libavformat/libavcodec) and --scale (libswscale): real
// encodes made here by Debian's `ffmpeg` from the shared clips (x264, x265,
// libvpx-vp9, libaom-av1; MP4, MKV, WebM, IVF, elementary streams) score
// bit for bit as ffmpeg's own Y4M decodes of them do, and scaled inputs as
// `ffmpeg -vf scale=W:H:flags=bicubic` output does. Skips without ffmpeg,
// an encoder, or ../shared.

#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "backend/cuda/device.h"
#include "cli_test_util.h"
#include "io/device_source.h"
#include "test_util.h"

namespace vqe::test {
namespace {

namespace fs = std::filesystem;

int run_shell(const std::string& cmd) {
  const int status = std::system(cmd.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

bool have_ffmpeg() {
  static const bool have = run_shell("ffmpeg -hide_banner -version >/dev/null 2>&1") == 0;
  return have;
}

bool have_encoder(const std::string& name) {
  static const std::string list = [] {
    const fs::path out = write_temp("libav_encoders.txt", "");
    run_shell("ffmpeg -hide_banner -encoders >" + out.string() + " 2>/dev/null");
    return slurp(out);
  }();
  return list.find(" " + name + " ") != std::string::npos;
}

// Clips made by ffmpeg live beside the CLI in the build tree, named by a
// hash of the command that made them (made once, reused by later runs).
fs::path clip_dir() {
  fs::path dir = fs::path(VQE_CLI_PATH).parent_path() / "libav_test_clips";
  fs::create_directories(dir);
  return dir;
}

// Runs `ffmpeg -i input ARGS OUT` once: OUT is named `name` (its extension
// says the container) plus a hash of the command.
fs::path ffmpeg_make(const fs::path& input, const std::string& args, const std::string& name) {
  const std::string key = input.string() + "|" + args;
  const fs::path stem = fs::path(name).stem();
  const fs::path out = clip_dir() / (stem.string() + "_" +
                                     std::to_string(std::hash<std::string>{}(key) % 1000000007) +
                                     fs::path(name).extension().string());
  if (fs::exists(out)) return out;
  // Written under a temporary name and renamed: parallel test processes
  // never see half a file.
  const fs::path temp = out.string() + ".tmp" + std::to_string(::getpid()) +
                        fs::path(name).extension().string();
  const std::string cmd = "ffmpeg -nostdin -hide_banner -loglevel error -y -i '" + input.string() +
                          "' " + args + " '" + temp.string() + "'";
  const int rc = run_shell(cmd);
  if (rc != 0) {
    std::error_code ignored;
    fs::remove(temp, ignored);
  }
  if (rc != 0) throw Error("ffmpeg failed (" + std::to_string(rc) + "): " + cmd);
  fs::rename(temp, out);
  return out;
}

// ffmpeg's decode of `compressed` to Y4M: every frame as decoded, none
// dropped or repeated.
fs::path ffmpeg_y4m(const fs::path& compressed, const std::string& filter = "") {
  return ffmpeg_make(compressed,
                     (filter.empty() ? "" : "-vf " + filter + " ") +
                         "-fps_mode passthrough -strict -1 -f yuv4mpegpipe",
                     compressed.stem().string() + (filter.empty() ? "" : "_scaled") + ".y4m");
}

JobConfig vmaf_and_psnr() {
  JobConfig c;
  c.models.push_back(load_model_spec("version=vmaf_v0.6.1"));
  c.features.push_back(FeatureRequest{"psnr", {}});
  c.threads = 2;
  return c;
}

JobResult score(std::unique_ptr<FrameSource> ref, std::unique_ptr<FrameSource> dist,
                JobConfig config = vmaf_and_psnr()) {
  return run_job(*ref, *dist, config);
}

void expect_same_scores(const JobResult& expected, const JobResult& actual, const std::string& what,
                        unsigned frames) {
  EXPECT_EQ(actual.frames, frames) << what;
  EXPECT_EQ(expected.frames, actual.frames) << what;
  EXPECT_EQ(expected.format, actual.format) << what;
  // Every feature of vmaf_v0.6.1, the model's score and psnr, per frame.
  for (const char* name : {"vmaf", "psnr_y", "psnr_cb", "psnr_cr", "integer_adm2", "integer_motion2",
                           "integer_vif_scale0", "integer_vif_scale3"})
    EXPECT_TRUE(actual.features.get(name, 0).has_value()) << what << ": no " << name;
  EXPECT_EQ(expect_bit_identical(expected.features, actual.features, what), 0);
}

struct Encode {
  const char* name;     // output file name: its extension is the container
  const char* encoder;  // ffmpeg encoder needed
  const char* args;     // ffmpeg output options
};

// Small, fast encodes of the 20-frame carphone clip (176x144 4:2:0 8-bit).
const Encode kEncodes[] = {
    {"x264.mp4", "libx264", "-c:v libx264 -preset veryfast -crf 35 -threads 2"},
    {"x264.h264", "libx264", "-c:v libx264 -preset veryfast -crf 30 -threads 2 -f h264"},
    {"x265.mkv", "libx265",
     "-c:v libx265 -preset ultrafast -crf 35 -x265-params log-level=error:pools=2"},
    {"x265.hevc", "libx265",
     "-c:v libx265 -preset ultrafast -crf 30 -x265-params log-level=error:pools=2 -f hevc"},
    {"vp9.webm", "libvpx-vp9",
     "-c:v libvpx-vp9 -deadline realtime -cpu-used 8 -b:v 150k -threads 2"},
    {"aom.ivf", "libaom-av1", "-c:v libaom-av1 -usage realtime -cpu-used 8 -crf 45 -b:v 0 -threads 2"},
    {"svtav1.mkv", "libsvtav1", "-c:v libsvtav1 -preset 12 -crf 50"},
};

class Compressed : public ::testing::TestWithParam<Encode> {};

TEST_P(Compressed, ScoresEqualFfmpegsY4mDecode) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  const Encode& e = GetParam();
  if (!have_encoder(e.encoder)) GTEST_SKIP() << "ffmpeg has no " << e.encoder;
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const fs::path enc = ffmpeg_make(ref, e.args, std::string("carphone_") + e.name);
  const fs::path decoded = ffmpeg_y4m(enc);

  {
    // Dropped mid-stream, its decoding thread ahead: stops cleanly.
    auto early = open_video(enc.string(), nullptr);
    Picture p;
    ASSERT_TRUE(early->read(p));
    ASSERT_TRUE(early->skip(2));
    EXPECT_EQ(early->frames_read(), 3u);
  }
  auto source = open_video(enc.string(), nullptr);
  EXPECT_FALSE(source->random_access());
  EXPECT_EQ(source->format(), (VideoFormat{176, 144, 8, ChromaFormat::k420}));
  if (fs::path(e.name).extension() == ".mp4") {
    EXPECT_EQ(source->frame_count_hint(), 20u);
  }
  EXPECT_EQ(open_video(ref.string(), nullptr)->frame_count_hint(), 20u);
  const JobResult expected = score(open_video(ref.string(), nullptr), open_video(decoded.string(), nullptr));
  const JobResult actual = score(open_video(ref.string(), nullptr), std::move(source));
  expect_same_scores(expected, actual, e.name, 20);

  // Skips and counts apply to decoded frames; the compressed file as the
  // reference too.
  JobConfig partial = vmaf_and_psnr();
  partial.frame_skip_ref = 3;
  partial.frame_skip_dist = 3;
  partial.frame_cnt = 12;
  expect_same_scores(score(open_video(decoded.string(), nullptr), open_video(ref.string(), nullptr), partial),
                     score(open_video(enc.string(), nullptr), open_video(ref.string(), nullptr), partial),
                     std::string(e.name) + " skipped", 12);
}

INSTANTIATE_TEST_SUITE_P(Encodes, Compressed, ::testing::ValuesIn(kEncodes),
                         [](const ::testing::TestParamInfo<Encode>& info) {
                           std::string n = info.param.name;
                           for (char& c : n)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return n;
                         });

TEST(Compressed10Bit, X265Main10ScoresEqualFfmpegsY4mDecode) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  if (!have_encoder("libx265")) GTEST_SKIP() << "ffmpeg has no libx265";
  const fs::path ref = shared / "testdata/clips/ref/ciscovt2people_320x192_420p10_9f.y4m";
  const fs::path enc = ffmpeg_make(
      ref, "-c:v libx265 -pix_fmt yuv420p10le -preset ultrafast -crf 32 -x265-params log-level=error:pools=2",
      "cisco_x265_10bit.mkv");
  const fs::path decoded = ffmpeg_y4m(enc);
  auto source = open_video(enc.string(), nullptr);
  EXPECT_EQ(source->format(), (VideoFormat{320, 192, 10, ChromaFormat::k420}));
  EXPECT_EQ(source->frame_count_hint(), 9u);
  expect_same_scores(score(open_video(ref.string(), nullptr), open_video(decoded.string(), nullptr)),
                     score(open_video(ref.string(), nullptr), std::move(source)), "x265 10-bit", 9);
}

// --scale distorted: a downscaled encode brought back to the reference's
// size; --scale WxH: both inputs scaled (8-bit 4:2:0 and 10-bit).
TEST(Scale, EqualsFfmpegScaleFilter) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  if (!have_encoder("libx264")) GTEST_SKIP() << "ffmpeg has no libx264";
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const fs::path small = ffmpeg_make(
      ref, "-vf scale=120:96 -c:v libx264 -preset veryfast -crf 30 -threads 2", "carphone_120x96.mp4");
  // Distorted to the reference's size.
  {
    const fs::path up = ffmpeg_y4m(small, "scale=176:144:flags=bicubic");
    auto scaled = scale_source(open_video(small.string(), nullptr), 176, 144);
    EXPECT_NE(scaled->transform().find("120x96 to 176x144"), std::string::npos) << scaled->transform();
    expect_same_scores(score(open_video(ref.string(), nullptr), open_video(up.string(), nullptr)),
                       score(open_video(ref.string(), nullptr), std::move(scaled)), "scale distorted",
                       20);
  }
  // Both to WxH, 8-bit (yuv420p: the filter's MPEG-2 chroma siting) and 10-bit.
  struct Case {
    fs::path ref, dist;
    int w, h;
    unsigned frames;
  };
  const Case cases[] = {
      {ref, shared / "testdata/clips/dist/carphone_176x144_420p8_20f__x264_crf35.y4m", 232, 190, 20},
      {shared / "testdata/clips/ref/ciscovt2people_320x192_420p10_9f.y4m",
       shared / "testdata/clips/dist/ciscovt2people_320x192_420p10_9f__x265_crf30.y4m", 200, 120, 9},
  };
  for (const Case& c : cases) {
    const std::string filter = "scale=" + std::to_string(c.w) + ":" + std::to_string(c.h) + ":flags=bicubic";
    const fs::path ref_s = ffmpeg_make(c.ref, "-vf " + filter + " -strict -1 -f yuv4mpegpipe",
                                       c.ref.stem().string() + "_s.y4m");
    const fs::path dist_s = ffmpeg_make(c.dist, "-vf " + filter + " -strict -1 -f yuv4mpegpipe",
                                        c.dist.stem().string() + "_s.y4m");
    expect_same_scores(
        score(open_video(ref_s.string(), nullptr), open_video(dist_s.string(), nullptr)),
        score(scale_source(open_video(c.ref.string(), nullptr), c.w, c.h),
              scale_source(open_video(c.dist.string(), nullptr), c.w, c.h)),
        "scale " + filter + " of " + c.ref.filename().string(), c.frames);
  }
}

// A faststart MP4 with 300 bytes of garbage at 70 %: the frames before the
// damage come out, then an error naming the file and that frame.
TEST(CompressedErrors, CorruptMidStreamNamesTheFrame) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  if (!have_encoder("libx264")) GTEST_SKIP() << "ffmpeg has no libx264";
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const fs::path whole = ffmpeg_make(
      ref, "-c:v libx264 -preset veryfast -crf 20 -threads 2 -movflags +faststart",
      "carphone_whole_faststart.mp4");
  std::string bytes = slurp(whole);
  const std::size_t at = bytes.size() * 7 / 10;
  for (std::size_t i = at; i < at + 300 && i < bytes.size(); ++i)
    bytes[i] = static_cast<char>((i * 37) & 0xff);
  const fs::path bad = write_temp("libav_corrupt.mp4", bytes);
  auto source = open_video(bad.string(), nullptr);
  Picture picture;
  std::string message;
  try {
    while (source->read(picture)) {
    }
  } catch (const Error& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty()) << "the damage went unnoticed";
  EXPECT_GT(source->frames_read(), 0u);
  EXPECT_LT(source->frames_read(), 20u);
  EXPECT_NE(message.find(bad.string()), std::string::npos) << message;
  EXPECT_NE(message.find("frame " + std::to_string(source->frames_read())), std::string::npos)
      << message;
}

TEST(CompressedCli, ScaleOptionAndSizeHint) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  if (!have_encoder("libx264")) GTEST_SKIP() << "ffmpeg has no libx264";
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const fs::path small = ffmpeg_make(
      ref, "-vf scale=120:96 -c:v libx264 -preset veryfast -crf 30 -threads 2", "carphone_120x96.mp4");
  const fs::path up = ffmpeg_y4m(small, "scale=176:144:flags=bicubic");
  // Without --scale: an error with the hint.
  CliResult r = run_cli("-r " + ref.string() + " -d " + small.string() + " -q");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("differ in size"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--scale"), std::string::npos) << r.err;
  // With it: the scores of ffmpeg's scaled decode, and the output says what was scaled.
  const fs::path a = write_temp("libav_scaled.json", ""), b = write_temp("libav_ffmpeg.json", "");
  r = run_cli("-r " + ref.string() + " -d " + small.string() +
              " --scale distorted --feature psnr --json --precision max -q --threads 2 -o " + a.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli("-r " + ref.string() + " -d " + up.string() +
              " --feature psnr --json --precision max -q --threads 2 -o " + b.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ja = nlohmann::json::parse(slurp(a)), jb = nlohmann::json::parse(slurp(b));
  ASSERT_EQ(ja["frames"].size(), 20u);
  EXPECT_EQ(ja["frames"], jb["frames"]);
  EXPECT_EQ(ja["pooled_metrics"], jb["pooled_metrics"]);
  ASSERT_TRUE(ja.contains("scale"));
  EXPECT_NE(ja["scale"].get<std::string>().find("distorted: scaled from 120x96 to 176x144"),
            std::string::npos)
      << ja["scale"];
  EXPECT_FALSE(jb.contains("scale"));
  // A ladder under --scale: each encode's output says what was done to that
  // encode (nothing, for one of the reference's size), as a separate run's.
  const fs::path same = shared / "testdata/clips/dist/carphone_176x144_420p8_20f__x264_crf35.y4m";
  const fs::path dir = a.parent_path() / "libav_scaled_ladder";
  fs::create_directories(dir);
  r = run_cli("-r " + ref.string() + " -d " + small.string() + " -d " + same.string() +
              " --scale distorted --feature psnr --json -q -o " + (dir / "ladder_{name}.json").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const fs::path& d : {small, same}) {
    const fs::path alone = dir / ("alone_" + d.stem().string() + ".json");
    r = run_cli("-r " + ref.string() + " -d " + d.string() +
                " --scale distorted --feature psnr --json -q -o " + alone.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto lad = nlohmann::json::parse(slurp(dir / ("ladder_" + d.stem().string() + ".json")));
    auto sep = nlohmann::json::parse(slurp(alone));
    lad.erase("fps");
    sep.erase("fps");
    EXPECT_EQ(lad, sep) << d;
  }
  fs::remove_all(dir);
  // Bad --scale values.
  r = run_cli("-r " + ref.string() + " -d " + small.string() + " --scale 12y5 -q");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--scale"), std::string::npos) << r.err;
}

TEST(CompressedCli, BadFilesExitOneWithMessage) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  if (!have_encoder("libx264")) GTEST_SKIP() << "ffmpeg has no libx264";
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const std::string r_arg = "-r " + ref.string() + " -q -d ";
  // Text renamed .mp4.
  const fs::path text = write_temp("libav_text.mp4", "This is not a video, only some text.\n");
  CliResult r = run_cli(r_arg + text.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(text.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not a video"), std::string::npos) << r.err;
  // Audio only.
  const fs::path audio = clip_dir() / "audio_only.m4a";
  if (!fs::exists(audio)) {
    ASSERT_EQ(run_shell("ffmpeg -nostdin -hide_banner -loglevel error -y -f lavfi -i "
                        "sine=frequency=440:duration=0.3 -c:a aac '" + audio.string() + "'"),
              0);
  }
  r = run_cli(r_arg + audio.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(audio.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no video stream"), std::string::npos) << r.err;
  // Truncated MP4s: the index (moov) at the end, lost; at the start
  // (faststart), the samples cut short mid-stream.
  for (const char* flags : {"", "-movflags +faststart"}) {
    const fs::path whole = ffmpeg_make(
        ref, std::string("-c:v libx264 -preset veryfast -crf 20 -threads 2 ") + flags,
        std::string("carphone_whole") + (*flags ? "_faststart" : "") + ".mp4");
    const std::string bytes = slurp(whole);
    const fs::path cut = write_temp(std::string("libav_cut") + (*flags ? "_fs" : "") + ".mp4",
                                    bytes.substr(0, bytes.size() / 2));
    r = run_cli(r_arg + cut.string());
    EXPECT_EQ(r.exit_code, 1) << flags << ": " << r.err;
    EXPECT_NE(r.err.find(cut.string()), std::string::npos) << r.err;
    if (*flags) {
      EXPECT_NE(r.err.find("frame "), std::string::npos) << r.err;
    }
  }
  // A pixel format VQE does not take without conversion.
  const fs::path rgb = ffmpeg_make(ref, "-frames:v 2 -c:v rawvideo -pix_fmt rgb24", "carphone_rgb.nut");
  r = run_cli(r_arg + rgb.string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("rgb24"), std::string::npos) << r.err;
  // A raw .yuv without its shape.
  r = run_cli(r_arg + (shared / "testdata/clips/ref/carphone_176x144_420p8_20f.yuv").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("-w, -h, -p, -b"), std::string::npos) << r.err;
}

// --- NVDEC requested where it cannot decode -------------------------------------
// (tests/gpu/test_nvdec.cpp checks NVDEC itself on a machine with a GPU.)

// Reads every frame of both sources and requires the same samples.
void expect_same_frames(FrameSource& a, FrameSource& b, const std::string& what) {
  ASSERT_EQ(a.format(), b.format()) << what;
  Picture pa, pb;
  unsigned frames = 0;
  for (;; ++frames) {
    const bool got_a = a.read(pa), got_b = b.read(pb);
    ASSERT_EQ(got_a, got_b) << what << ": frame " << frames;
    if (!got_a) break;
    for (int p = 0; p < pa.num_planes(); ++p)
      for (int y = 0; y < pa.plane(p).height; ++y)
        ASSERT_EQ(std::memcmp(pa.plane(p).row<std::uint8_t>(y), pb.plane(p).row<std::uint8_t>(y),
                              static_cast<std::size_t>(pa.plane(p).width) *
                                  pa.format().bytes_per_sample()),
                  0)
            << what << ": frame " << frames << " plane " << p << " row " << y;
  }
  EXPECT_GT(frames, 0u) << what;
}

TEST(Hwdec, FallsBackToTheCpuAndSaysWhy) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  if (!have_encoder("libx264")) GTEST_SKIP() << "ffmpeg has no libx264";
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const fs::path h264 = ffmpeg_make(ref, kEncodes[0].args, "carphone_x264.mp4");
  // 4:4:4 and VP8: not what NVDEC decodes here, whatever the machine.
  const fs::path h264_444 = ffmpeg_make(
      ref, "-frames:v 3 -pix_fmt yuv444p -c:v libx264 -preset veryfast -crf 30 -threads 2",
      "carphone_x264_444.mkv");
  std::vector<std::string> notes;
  DecodeOptions nvdec;
  nvdec.cuda_device = 0;
  nvdec.on_note = [&](const std::string& n) { notes.push_back(n); };
  {
    auto s = open_video(h264_444.string(), nullptr, {}, nvdec);
    ASSERT_EQ(notes.size(), 1u);
    // Without a CUDA backend that is the reason given, whatever the stream.
    EXPECT_NE(notes[0].find(cuda::compiled_in()
                                ? "h264 yuv444p 176x144, decoded on the CPU (not with NVDEC: its "
                                  "pixel format yuv444p is not 4:2:0"
                                : "h264 yuv444p 176x144, decoded on the CPU (not with NVDEC: this "
                                  "build of VQE has no CUDA backend)"),
              std::string::npos)
        << notes[0];
    auto* device = dynamic_cast<DeviceFrameSource*>(s.get());
    ASSERT_NE(device, nullptr);
    EXPECT_EQ(device->frame_device(), -1);
    auto cpu = open_video(h264_444.string(), nullptr);
    expect_same_frames(*s, *cpu, "4:4:4");
  }
  if (have_encoder("libvpx")) {
    const fs::path vp8 = ffmpeg_make(ref, "-frames:v 3 -c:v libvpx -b:v 200k -threads 2",
                                      "carphone_vp8.webm");
    notes.clear();
    auto s = open_video(vp8.string(), nullptr, {}, nvdec);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find(cuda::compiled_in()
                                ? "not with NVDEC: VQE decodes H.264, HEVC, VP9 and AV1 with "
                                  "NVDEC, not vp8"
                                : "vp8 yuv420p 176x144, decoded on the CPU (not with NVDEC: this "
                                  "build of VQE has no CUDA backend)"),
              std::string::npos)
        << notes[0];
  }
  // Required: an error naming the reason.
  DecodeOptions required = nvdec;
  required.require_device = true;
  notes.clear();
  try {
    open_video(h264_444.string(), nullptr, {}, required);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot be decoded with NVDEC on CUDA device 0: "),
              std::string::npos)
        << e.what();
  }
  if (cuda::device_count() > 0) GTEST_SKIP() << "a CUDA device is present (tests/gpu: NVDEC)";
  // No GPU here: the 4:2:0 H.264 file, too, on the CPU, and the note says why.
  notes.clear();
  auto s = open_video(h264.string(), nullptr, {}, nvdec);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("h264 yuv420p 176x144, decoded on the CPU (not with NVDEC: "),
            std::string::npos)
      << notes[0];
  EXPECT_NE(notes[0].find(cuda::compiled_in() ? "no CUDA device 0 (0 found)"
                                              : "this build of VQE has no CUDA backend"),
            std::string::npos)
      << notes[0];
  EXPECT_EQ(dynamic_cast<DeviceFrameSource&>(*s).frame_device(), -1);
  auto cpu = open_video(h264.string(), nullptr);
  expect_same_frames(*s, *cpu, "4:2:0");
  EXPECT_THROW(open_video(h264.string(), nullptr, {}, required), Error);
}

// A source that says it decodes on CUDA device 0 but serves frames from a
// Y4M file (host memory): run_job hands a CPU job host copies and says so.
class PretendDeviceSource final : public FrameSource, public DeviceFrameSource {
 public:
  explicit PretendDeviceSource(std::unique_ptr<FrameSource> inner) : inner_(std::move(inner)) {}
  const VideoFormat& format() const override { return inner_->format(); }
  const std::string& path() const override { return inner_->path(); }
  unsigned frames_read() const override { return inner_->frames_read(); }
  bool read(Picture& picture) override { return inner_->read(picture); }
  bool skip(unsigned count) override { return inner_->skip(count); }
  int frame_device() const override { return 0; }
  void set_device_planes(int) override { ADD_FAILURE() << "set_device_planes"; }
  bool read_device(DevicePicture&) override {
    ADD_FAILURE() << "read_device";
    return false;
  }

 private:
  std::unique_ptr<FrameSource> inner_;
};

TEST(Hwdec, CpuJobTakesHostCopies) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const fs::path dist = shared / "testdata/clips/dist/carphone_176x144_420p8_20f__x264_crf35.y4m";
  JobConfig config = vmaf_and_psnr();
  std::vector<std::string> notes;
  config.on_note = [&](const std::string& n) { notes.push_back(n); };
  PretendDeviceSource pretend(open_video(dist.string(), nullptr));
  auto reference = open_video(ref.string(), nullptr);
  const JobResult result = run_job(*reference, pretend, config);
  ASSERT_FALSE(notes.empty());
  EXPECT_EQ(notes[0], "frames decoded with NVDEC are copied to host memory: the job computes on "
                      "the CPU");
  expect_same_scores(score(open_video(ref.string(), nullptr), open_video(dist.string(), nullptr)),
                     result, "host copies", 20);
}

TEST(HwdecCli, OptionAndNotes) {
  VQE_REQUIRE_SHARED(shared);
  if (!compressed_input_available()) GTEST_SKIP() << "built without FFmpeg's libraries";
  if (!have_ffmpeg()) GTEST_SKIP() << "no ffmpeg on PATH";
  if (!have_encoder("libx264")) GTEST_SKIP() << "ffmpeg has no libx264";
  const fs::path ref = shared / "testdata/clips/ref/carphone_176x144_420p8_20f.y4m";
  const fs::path h264 = ffmpeg_make(ref, kEncodes[0].args, "carphone_x264.mp4");
  const std::string pair = "-r " + ref.string() + " -d " + h264.string() + " -q -o /dev/null ";
  CliResult r = run_cli(pair + "--hwdec sometimes");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--hwdec"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(see vqe --help)"), std::string::npos) << r.err;
  // On the CPU: said with --verbose, with the steady rate at the end.
  r = run_cli(pair + "--verbose");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(h264.string() + ": h264 yuv420p 176x144, decoded on the CPU\n"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("steady: first frame after "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("frames 2..20 in "), std::string::npos) << r.err;
  r = run_cli(pair + "--backend cuda --hwdec none --verbose");
  EXPECT_EQ(r.err.find("NVDEC"), std::string::npos) << r.err;
  r = run_cli(pair + "--backend cuda --scale distorted --verbose");
  EXPECT_NE(r.err.find("compressed input is decoded on the CPU: --scale scales frames in host "
                       "memory"),
            std::string::npos)
      << r.err;
  if (cuda::device_count() > 0) GTEST_SKIP() << "a CUDA device is present (tests/gpu: NVDEC)";
  // --backend cuda without a GPU: NVDEC cannot, the CPU decodes, then the
  // job stops (no CUDA device).
  r = run_cli(pair + "--backend cuda --verbose");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(h264.string() + ": h264 yuv420p 176x144, decoded on the CPU (not with "
                                       "NVDEC: "),
            std::string::npos)
      << r.err;
  // Required: the error names the file and the reason.
  r = run_cli(pair + "--hwdec nvdec");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("vqe: error: " + h264.string() +
                       ": cannot be decoded with NVDEC on CUDA device 0: "),
            std::string::npos)
      << r.err;
}

// Builds against the shared FFmpeg load it on first use (src/io/libav_dl.h):
// a Y4M job never loads it, and where it cannot be loaded a compressed input
// is refused with the library and the loader's reason, exit 1.
TEST(LibavLoading, UnloadableFfmpegIsNamedAndY4mStillRuns) {
#if !defined(VQE_LIBAV_DLOPEN)
  GTEST_SKIP() << "this build links FFmpeg (static) or has none";
#else
  const fs::path bad = fs::path(::testing::TempDir()) / "vqe_bad_ffmpeg";
  fs::create_directories(bad);
  std::ofstream(bad / "libavutil.so.57");  // empty: not a library
  std::ofstream(bad / "libavutil.so.58");
  std::ofstream(bad / "libavutil.so.59");
  const auto mp4 = write_temp("not_loaded.mp4", std::string("\0\0\0 ftypisom\0\0\2\0isomiso2", 24));
  const std::string setup = "export LD_LIBRARY_PATH=" + bad.string();
  const CliResult r = run_cli("-r " + mp4.string() + " -d " + mp4.string() + " -q -o /dev/null", "",
                              setup);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("FFmpeg's shared library libavutil.so."), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("could not be loaded"), std::string::npos) << r.err;
  // Y4M input does not need FFmpeg: the same environment scores it.
  const auto y4m = write_temp("loaded_not.y4m",
                              std::string("YUV4MPEG2 W8 H8 F25:1 Ip A1:1 C420jpeg\nFRAME\n") +
                                  std::string(8 * 8 * 3 / 2, '\x80'));
  const CliResult ok = run_cli("-r " + y4m.string() + " -d " + y4m.string() +
                                   " --feature psnr --no_prediction -q -o /dev/null",
                               "", setup);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
#endif
}

}  // namespace
}  // namespace vqe::test
