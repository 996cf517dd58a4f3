// SPDX-License-Identifier: BSD-2-Clause
// Y4M and raw readers: header spellings, raw/Y4M equivalence, bad input.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "io/video_reader.h"
#include "cli_test_util.h"
#include "test_util.h"
#include "vqe/error.h"
#include "vqe/model.h"
#include "core/extractor.h"
#include "vqe/output.h"

namespace vqe::test {
namespace {

namespace fs = std::filesystem;

// A Y4M file of `frames` frames whose samples follow a simple pattern.
std::string make_y4m(const std::string& header, const VideoFormat& f, int frames) {
  std::string s = header + "\n";
  for (int n = 0; n < frames; ++n) {
    s += "FRAME\n";
    for (int p = 0; p < f.num_planes(); ++p)
      for (int i = 0; i < f.plane_width(p) * f.plane_height(p); ++i) {
        const unsigned v = (i * 7 + n * 13 + p * 31) & ((1u << f.bit_depth) - 1);
        s.push_back(static_cast<char>(v & 0xff));
        if (f.bit_depth > 8) s.push_back(static_cast<char>(v >> 8));
      }
  }
  return s;
}

// A Y4M reader of `content` (which must outlive it) read as a stream, as
// through a pipe: no random access, no file size.
std::unique_ptr<FrameSource> stream_reader(const std::string& content) {
  std::FILE* memory = fmemopen(const_cast<char*>(content.data()), content.size(), "rb");
  if (!memory) throw std::runtime_error("fmemopen failed");
  OpenedInput in;
  in.stream = ByteStream::from_file(memory, "memory.y4m");
  return make_y4m_reader("memory.y4m", std::move(in), nullptr);
}

void expect_error_containing(const std::function<void()>& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected vqe::Error containing '" << needle << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(Y4mHeader, TagsInAnyOrderAndDefaults) {
  VideoFormat f = parse_y4m_header("YUV4MPEG2 W33 H17 F25:1 Ip A1:1", "x");
  EXPECT_EQ(f, (VideoFormat{33, 17, 8, ChromaFormat::k420}));
  f = parse_y4m_header("YUV4MPEG2 XYSCSS=420P10 C420p10 A0:0 H4 W6 XCOLORRANGE=FULL", "x");
  EXPECT_EQ(f, (VideoFormat{6, 4, 10, ChromaFormat::k420}));
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W2 H2 Cmono16", "x"),
            (VideoFormat{2, 2, 16, ChromaFormat::k400}));
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W2 H2 C444p12", "x"),
            (VideoFormat{2, 2, 12, ChromaFormat::k444}));
  EXPECT_EQ(parse_y4m_header("YUV4MPEG2 W2 H2 C422", "x").chroma, ChromaFormat::k422);
  for (const char* c : {"420jpeg", "420mpeg2", "420paldv", "420"})
    EXPECT_EQ(parse_y4m_header(std::string("YUV4MPEG2 W2 H2 C") + c, "x").chroma,
              ChromaFormat::k420);
}

TEST(Y4mHeader, RejectsInterlacedNamingTheTag) {
  for (const char* tag : {"It", "Ib", "Im"})
    expect_error_containing(
        [&] { parse_y4m_header(std::string("YUV4MPEG2 W2 H2 ") + tag, "clip.y4m"); },
        std::string("tag ") + tag);
}

TEST(Y4mHeader, RejectsMalformed) {
  expect_error_containing([] { parse_y4m_header("RIFF W2 H2", "a.y4m"); }, "not a Y4M");
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W2", "a.y4m"); }, "lacks the H");
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W2 H-1", "a.y4m"); }, "malformed H");
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W0 H2", "a.y4m"); }, "unsupported size");
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W99999999 H2", "a.y4m"); },
                          "W tag 99999999 is above 32768");
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W2 H32769", "a.y4m"); },
                          "H tag 32769 is above 32768");
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W2 H2 C411", "a.y4m"); }, "C411");
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W2 H2 Q9", "a.y4m"); }, "unknown tag");
}

TEST(Reader, ReadsFramesWithParametersAndLongHeaders) {
  const VideoFormat f{5, 3, 10, ChromaFormat::k422};
  std::string header = "YUV4MPEG2 W5 H3 C422p10";
  for (int i = 0; i < 200; ++i) header += " XLONGTAG" + std::to_string(i) + "=value";
  std::string bytes = make_y4m(header, f, 2);
  // Parameters on the second FRAME line.
  const std::size_t second = bytes.find("FRAME\n", bytes.find("FRAME\n") + 1);
  bytes.replace(second, 6, "FRAME Ixyz XA=1\n");
  auto path = write_temp("params.y4m", bytes);
  auto r = open_video(path.string(), nullptr);
  EXPECT_EQ(r->format(), f);
  Picture pic;
  ASSERT_TRUE(r->read(pic));
  EXPECT_EQ(pic.plane(1).width, 3);  // ceil(5/2)
  EXPECT_EQ(pic.plane(0).row<std::uint16_t>(0)[1], 7);
  ASSERT_TRUE(r->read(pic));
  EXPECT_EQ(pic.plane(0).row<std::uint16_t>(0)[0], 13);
  EXPECT_FALSE(r->read(pic));
}

TEST(Reader, BadInputsNameFileAndFrame) {
  const VideoFormat f{4, 4, 8, ChromaFormat::k420};
  const std::string good = make_y4m("YUV4MPEG2 W4 H4 C420", f, 2);
  Picture pic;
  // Truncated last frame.
  auto trunc = write_temp("trunc.y4m", good.substr(0, good.size() - 3));
  auto r = open_video(trunc.string(), nullptr);
  ASSERT_TRUE(r->read(pic));
  expect_error_containing([&] { r->read(pic); }, "frame 1 is truncated");
  // Empty file, Y4M and raw.
  auto empty = write_temp("empty.y4m", "");
  expect_error_containing([&] { open_video(empty.string(), nullptr); }, "empty");
  RawVideoParams raw{4, 4, 8, ChromaFormat::k420};
  auto empty_raw = write_temp("empty.yuv", "");
  expect_error_containing([&] { open_video(empty_raw.string(), &raw); }, "empty");
  // Raw file shorter than one frame.
  auto short_raw = write_temp("short.yuv", std::string(10, '\0'));
  expect_error_containing([&] { open_video(short_raw.string(), &raw); },
                          "shorter than one frame");
  // A raw file that is not a whole number of frames (a wrong width, say): the truncated
  // frame's message asks whether the shape is right; a whole number says nothing more.
  auto odd_raw = write_temp("odd.yuv", std::string(24 * 2 + 7, '\0'));
  auto o2 = open_video(odd_raw.string(), &raw);
  ASSERT_TRUE(o2->read(pic));
  ASSERT_TRUE(o2->read(pic));
  expect_error_containing([&] { o2->read(pic); },
                          "frame 2 is truncated (plane 0, row 1 of 4: the input ends); its 55 "
                          "bytes are not a whole number of 4x4 420p8 frames (24 bytes each): are "
                          "the width, height, pixel format and bit depth (-w, -h, -p, -b) right?");
  auto whole_raw = write_temp("whole.yuv", std::string(24 * 2, '\0'));
  auto w2 = open_video(whole_raw.string(), &raw);
  ASSERT_TRUE(w2->read(pic));
  ASSERT_TRUE(w2->read(pic));
  EXPECT_FALSE(w2->read(pic));
  // Garbage where a FRAME header belongs.
  auto garbage = write_temp("garbage.y4m", "YUV4MPEG2 W4 H4\nFRAMX\n" + std::string(24, 'a'));
  auto g = open_video(garbage.string(), nullptr);
  expect_error_containing([&] { g->read(pic); }, "expected a FRAME header");
  // Bytes after the last whole frame: a cut FRAME line, or other bytes;
  // the same words from a file (read with pread) and from a stream.
  for (const auto& [tail, words] :
       {std::pair<std::string, std::string>{"FRA", "the input ends inside frame 2's FRAME header"},
        {"FRAME 12", "the input ends inside frame 2's FRAME header"},
        {"abc", "the input ends with 3 bytes that are not a frame (\"abc\") after frame 1"},
        {"\n", "expected a FRAME header, found \"\""},
        {"x", "the input ends with 1 byte that is not a frame (\"x\") after frame 1"}}) {
    const std::string content = good + tail;
    auto tailed = write_temp("tailed.y4m", content);
    auto file = open_video(tailed.string(), nullptr);
    auto stream = stream_reader(content);
    for (FrameSource* source : {file.get(), stream.get()}) {
      ASSERT_TRUE(source->read(pic));
      ASSERT_TRUE(source->read(pic));
      expect_error_containing([&] { source->read(pic); }, words);
    }
  }
  {
    // (A regular file this short is refused at opening: shorter than one frame.)
    const std::string header_only = "YUV4MPEG2 W4 H4 C420\nzz";
    auto h = stream_reader(header_only);
    expect_error_containing([&] { h->read(pic); },
                            "2 bytes that are not a frame (\"zz\") after the header");
  }
  // Header never ends.
  auto endless = write_temp("endless.y4m", "YUV4MPEG2 W4 H4 " + std::string(70000, 'X'));
  expect_error_containing([&] { open_video(endless.string(), nullptr); }, "longer than");
  // Missing file.
  expect_error_containing([&] { open_video("/nonexistent/x.y4m", nullptr); }, "cannot open");
  // Sample above the bit depth.
  std::string hbd = "YUV4MPEG2 W2 H2 C420p10\nFRAME\n" + std::string(12, '\xff');
  auto over = write_temp("over.y4m", hbd);
  auto o = open_video(over.string(), nullptr);
  expect_error_containing([&] { o->read(pic); }, "exceeds the 10-bit maximum");
}


// --- inputs by content ------------------------------------------------------

TEST(Reader, FormatComesFromContentNotName) {
  const VideoFormat f{4, 4, 8, ChromaFormat::k420};
  const std::string bytes = make_y4m("YUV4MPEG2 W4 H4 Ip C420", f, 2);
  // Y4M content under names that say otherwise: upper case, .yuv, none.
  RawVideoParams wrong{8, 8, 10, ChromaFormat::k444};
  for (const char* name : {"upper.Y4M", "named.yuv", "noext"}) {
    auto path = write_temp(name, bytes);
    auto r = open_video(path.string(), &wrong);  // the header wins over `raw`
    EXPECT_EQ(r->format(), f) << name;
    EXPECT_EQ(r->container(), VideoContainer::kY4m) << name;
    Picture pic;
    EXPECT_TRUE(r->read(pic));
    EXPECT_TRUE(r->read(pic));
    EXPECT_FALSE(r->read(pic));
  }
  // Raw content named .y4m is raw when a shape is given, refused without.
  auto raw_named_y4m = write_temp("raw.y4m", std::string(24 * 2, 'a'));
  RawVideoParams raw{4, 4, 8, ChromaFormat::k420};
  auto r = open_video(raw_named_y4m.string(), &raw);
  EXPECT_EQ(r->container(), VideoContainer::kRaw);
  expect_error_containing([&] { open_video(raw_named_y4m.string(), nullptr); },
                          "not a Y4M file (it starts with \"aaaa");
}

TEST(Reader, DirectoriesDevicesAndProcFiles) {
  const fs::path dir = fs::temp_directory_path() / "vqe-tests" / "dir.y4m";
  fs::create_directories(dir);
  expect_error_containing([&] { open_video(dir.string(), nullptr); }, "dir.y4m: is a directory");
  // A character device is a stream: /dev/zero as raw gives black frames
  // without end; without a shape it is "not a Y4M file", not "empty".
  RawVideoParams raw{6, 4, 10, ChromaFormat::k420};
  auto zero = open_video("/dev/zero", &raw);
  Picture pic;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(zero->read(pic));
    EXPECT_EQ(pic.plane(0).row<std::uint16_t>(3)[5], 0);
  }
  expect_error_containing([] { open_video("/dev/zero", nullptr); }, "not a Y4M file");
  // /proc files say their size is 0 but have content.
  expect_error_containing([] { open_video("/proc/self/status", nullptr); }, "not a Y4M file");
  expect_error_containing([] { open_video("/nonexistent/x.y4m", nullptr); },
                          "cannot open: No such file or directory");
}

TEST(Reader, FifoScoresLikeTheFile) {
  const VideoFormat f{6, 4, 8, ChromaFormat::k420};
  const std::string bytes = make_y4m("YUV4MPEG2 W6 H4 Ip C420", f, 3);
  auto file = write_temp("fifo_src.y4m", bytes);
  const fs::path fifo = fs::temp_directory_path() / "vqe-tests" / (std::to_string(::getpid()) + "_in.fifo");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    std::ofstream out(fifo, std::ios::binary);
    out << bytes;
  });
  auto from_fifo = open_video(fifo.string(), nullptr);
  EXPECT_FALSE(from_fifo->identity()->reopenable);
  auto from_file = open_video(file.string(), nullptr);
  Picture a, b;
  int frames = 0;
  while (from_file->read(a)) {
    ASSERT_TRUE(from_fifo->read(b));
    for (int p = 0; p < 3; ++p)
      for (int y = 0; y < a.plane(p).height; ++y)
        for (int x = 0; x < a.plane(p).width; ++x)
          ASSERT_EQ(a.plane(p).row<std::uint8_t>(y)[x], b.plane(p).row<std::uint8_t>(y)[x]);
    ++frames;
  }
  EXPECT_FALSE(from_fifo->read(b));
  EXPECT_EQ(frames, 3);
  writer.join();
  fs::remove(fifo);
}

TEST(Reader, HeaderClaimingMoreThanTheFileIsRefusedAtOnce) {
  // A 6 KB file whose header says 32768x32768: refused before anything of
  // the frame's size (1.5 GiB) is allocated.
  std::string bytes = "YUV4MPEG2 W32768 H32768 Ip C420\nFRAME\n" + std::string(6000, '\0');
  auto path = write_temp("huge_header.y4m", bytes);
  const auto t0 = std::chrono::steady_clock::now();
  expect_error_containing([&] { open_video(path.string(), nullptr); },
                          "is shorter than one frame: its header says 32768x32768 420p8 "
                          "(1610612742 bytes a frame with its FRAME line), but only 6006 bytes "
                          "follow the header");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 1.0);
  // A header alone is a video of no frames, not an error here.
  auto header_only = write_temp("huge_header_only.y4m", "YUV4MPEG2 W32768 H32768 Ip\n");
  Picture pic;
  EXPECT_FALSE(open_video(header_only.string(), nullptr)->read(pic));
}

TEST(Reader, MalformedTextIsShownEscaped) {
  auto path = write_temp("escape.y4m", std::string("YUV4MPEG2 W4 H4 Ip\nFR\x1b[31m\x07\n") +
                                           std::string(24, 'a'));
  auto r = open_video(path.string(), nullptr);
  Picture pic;
  try {
    r->read(pic);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("found \"FR\\x1b[31m\\x07\""), std::string::npos) << what;
    for (char c : what) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "raw byte in: " << what;
  }
  expect_error_containing([] { parse_y4m_header("YUV4MPEG2 W2 H2 I\x01", "x.y4m"); },
                          "tag I\\x01");
}

TEST(Y4mHeader, UnknownInterlacingWarnsAsLibvmaf) {
  std::vector<std::string> warnings;
  const WarningHandler collect = [&](const std::string& w) { warnings.push_back(w); };
  parse_y4m_header("YUV4MPEG2 W2 H2 Ip", "p.y4m", collect);
  EXPECT_TRUE(warnings.empty());
  parse_y4m_header("YUV4MPEG2 W2 H2 I?", "q.y4m", collect);
  parse_y4m_header("YUV4MPEG2 W2 H2", "none.y4m", collect);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("q.y4m: interlacing unknown"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("none.y4m: interlacing unknown"), std::string::npos);
  EXPECT_NE(warnings[1].find("assuming progressive"), std::string::npos);
}

TEST(Pairing, OneStreamCannotBeBothInputs) {
  const FileIdentity pipe{7, 42, false, false};
  const FileIdentity other_pipe{7, 43, false, false};
  const FileIdentity file{8, 42, true, false};
  const FileIdentity stdin_file{8, 42, true, true};
  expect_error_containing([&] { check_separate_inputs("a", pipe, "b", pipe); },
                          "a and b are the same stream");
  expect_error_containing([&] { check_separate_inputs("-", stdin_file, "-", stdin_file); },
                          "both inputs read standard input");
  EXPECT_NO_THROW(check_separate_inputs("a", pipe, "b", other_pipe));
  EXPECT_NO_THROW(check_separate_inputs("a", file, "b", file));
  EXPECT_NO_THROW(check_separate_inputs("-", stdin_file, "/dev/stdin", file));
  // Devices open independently (/dev/zero twice is libvmaf's own smoke test).
  EXPECT_NO_THROW(check_separate_inputs("/dev/zero", *file_identity("/dev/zero"), "/dev/zero",
                                        *file_identity("/dev/zero")));
  // A FIFO is found without opening it.
  const fs::path fifo = fs::temp_directory_path() / "vqe-tests" / (std::to_string(::getpid()) + "_id.fifo");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto id = file_identity(fifo.string());
  ASSERT_TRUE(id);
  expect_error_containing([&] { check_separate_inputs("f", *id, "g", *id); }, "same stream");
  fs::remove(fifo);
  EXPECT_FALSE(file_identity("/nonexistent/x"));
}

TEST(Reader, ConvertBitDepthShiftsSamplesUp) {
  const VideoFormat f8{5, 3, 8, ChromaFormat::k422};
  auto path = write_temp("shift8.y4m", make_y4m("YUV4MPEG2 W5 H3 Ip C422", f8, 2));
  auto plain = open_video(path.string(), nullptr);
  auto shifted = convert_bit_depth(open_video(path.string(), nullptr), 10);
  EXPECT_EQ(shifted->format(), (VideoFormat{5, 3, 10, ChromaFormat::k422}));
  EXPECT_EQ(shifted->container(), VideoContainer::kY4m);
  EXPECT_EQ(shifted->path(), path.string());
  Picture a, b;
  for (int frame = 0; frame < 2; ++frame) {
    ASSERT_TRUE(plain->read(a));
    ASSERT_TRUE(shifted->read(b));
    for (int p = 0; p < 3; ++p)
      for (int y = 0; y < a.plane(p).height; ++y)
        for (int x = 0; x < a.plane(p).width; ++x)
          ASSERT_EQ(b.plane(p).row<std::uint16_t>(y)[x], a.plane(p).row<std::uint8_t>(y)[x] << 2);
  }
  EXPECT_FALSE(shifted->read(b));
  EXPECT_EQ(shifted->frames_read(), 2u);
  auto same_depth = open_video(path.string(), nullptr);
  const FrameSource* unchanged = same_depth.get();
  EXPECT_EQ(convert_bit_depth(std::move(same_depth), 8).get(), unchanged);
  auto deep = convert_bit_depth(open_video(path.string(), nullptr), 16);
  expect_error_containing([&] { convert_bit_depth(std::move(deep), 10); }, "down to 10 bits");
}

// --- outputs ----------------------------------------------------------------

// Files in `dir` whose name starts with ".<base>.vqe-" (OutputFile's
// temporary files for <base>).
int temporary_files(const fs::path& dir, const std::string& base) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().rfind("." + base + ".vqe-", 0) == 0) ++n;
  return n;
}

TEST(OutputFile, AppearsWholeOrNotAtAll) {
  const fs::path dir = fs::temp_directory_path() / "vqe-tests";
  auto out = write_temp("keep.json", "precious");
  const std::string base = out.filename().string();
  ::chmod(out.c_str(), 0640);
  {
    OutputFile file(out.string());
    EXPECT_EQ(temporary_files(dir, base), 1);  // created before any work
    file.stream() << "half";
  }  // destroyed without commit: an error happened
  EXPECT_EQ(slurp(out), "precious");
  EXPECT_EQ(temporary_files(dir, base), 0);
  {
    OutputFile file(out.string());
    file.stream() << "done";
    file.commit();
  }
  EXPECT_EQ(slurp(out), "done");
  EXPECT_EQ(temporary_files(dir, base), 0);
  struct stat st {};
  ASSERT_EQ(::stat(out.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file's permissions
}

TEST(OutputFile, RefusesWhatItCannotWriteWithTheReason) {
  expect_error_containing([] { OutputFile("/nonexistent/dir/out.xml"); },
                          "/nonexistent/dir/out.xml: cannot create the output in "
                          "/nonexistent/dir/: No such file or directory");
  const fs::path dir = fs::temp_directory_path() / "vqe-tests" / "out_dir.xml";
  fs::create_directories(dir);
  expect_error_containing([&] { OutputFile(dir.string()); }, "out_dir.xml: is a directory");
  expect_error_containing([] { OutputFile(std::string(300, 'n') + ".xml"); }, "File name too long");
  expect_error_containing([] { OutputFile(""); }, "empty");
}

TEST(OutputFile, NeverReplacesAnInput) {
  const VideoFormat f{4, 4, 8, ChromaFormat::k420};
  const std::string bytes = make_y4m("YUV4MPEG2 W4 H4 Ip", f, 1);
  auto ref = write_temp("protected.y4m", bytes);
  auto source = open_video(ref.string(), nullptr);
  const std::vector<ProtectedFile> inputs{{ref.string(), *source->identity()}};
  expect_error_containing([&] { OutputFile(ref.string(), inputs); },
                          "is the same file as the input");
  // The same file under another name: a hard link, a symbolic link.
  const fs::path hard = ref.string() + ".hard";
  const fs::path soft = ref.string() + ".soft";
  fs::remove(hard);
  fs::remove(soft);
  fs::create_hard_link(ref, hard);
  fs::create_symlink(ref, soft);
  expect_error_containing([&] { OutputFile(hard.string(), inputs); }, "same file as the input");
  expect_error_containing([&] { OutputFile(soft.string(), inputs); }, "same file as the input");
  EXPECT_EQ(slurp(ref), bytes);
  fs::remove(hard);
  fs::remove(soft);
}

TEST(OutputFile, FollowsLinksAndWritesIntoSpecialFiles) {
  // A symbolic link: the file it names is replaced, the link stays.
  auto target = write_temp("link_target.json", "old");
  const fs::path link = target.string() + ".link";
  fs::remove(link);
  fs::create_symlink(target, link);
  {
    OutputFile file(link.string());
    file.stream() << "new";
    file.commit();
  }
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(slurp(target), "new");
  fs::remove(link);
  // /dev/null is written into, never replaced.
  {
    OutputFile file("/dev/null");
    EXPECT_TRUE(file.temporary_path().empty());
    file.stream() << "x";
    file.commit();
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  // A FIFO: its reader gets the contents.
  const fs::path fifo = fs::temp_directory_path() / "vqe-tests" / (std::to_string(::getpid()) + "_out.fifo");
  fs::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  {
    OutputFile file(fifo.string());
    file.stream() << "through the fifo";
    file.commit();
  }
  reader.join();
  EXPECT_EQ(got, "through the fifo");
  fs::remove(fifo);
}

TEST(Output, NonFiniteValuesHaveOneSpelling) {
  for (const Precision& p : {Precision{}, Precision{Precision::Mode::kMax, 17},
                             Precision{Precision::Mode::kDigits, 4}}) {
    EXPECT_EQ(format_value(std::nan(""), p), "nan");
    EXPECT_EQ(format_value(-std::nan(""), p), "nan");
    EXPECT_EQ(format_value(std::numeric_limits<double>::infinity(), p), "inf");
    EXPECT_EQ(format_value(-std::numeric_limits<double>::infinity(), p), "-inf");
  }
}

TEST(Output, NamesXmlAndCsvCannotCarryAreRefused) {
  FeatureCollector fc;
  fc.set("a,b", 0, 1.0);
  OutputInfo info;
  for (OutputFormat f : {OutputFormat::kXml, OutputFormat::kCsv, OutputFormat::kSub}) {
    info.format = f;
    std::ostringstream s;
    expect_error_containing([&] { write_output(s, fc, info); }, "feature name \"a,b\"");
    EXPECT_TRUE(s.str().empty());
  }
  info.format = OutputFormat::kJson;
  std::ostringstream json;
  write_output(json, fc, info);
  EXPECT_EQ(nlohmann::json::parse(json.str())["frames"][0]["metrics"]["a,b"].get<double>(), 1.0);
}

// Runs every registered extractor alone over a pair; refused extractors are
// recorded by name. Returns name -> per-frame values, plus refusals.
std::map<std::string, std::vector<double>> all_features(const fs::path& ref, const fs::path& dist,
                                                        std::set<std::string>* refused) {
  std::map<std::string, std::vector<double>> out;
  for (const ExtractorInfo* e : all_extractors()) {
    try {
      FeatureCollector fc = run_features(ref, dist, {{e->name, {}}});
      for (const std::string& n : fc.names())
        for (unsigned i = 0; i < fc.frame_count(); ++i)
          out[n].push_back(fc.get(n, i).value_or(-12345.0));
    } catch (const Error&) {
      refused->insert(e->name);
    }
  }
  return out;
}

TEST(Reader, HeaderSpellingsScoreLikeTheReference) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path robust = shared / "testdata" / "clips" / "robust";
  const fs::path ref = robust / "carphone_33x17_420p8_10f.y4m";
  std::set<std::string> refused_same;
  const auto same = all_features(ref, ref, &refused_same);
  ASSERT_FALSE(same.empty());
  int variants = 0;
  for (const auto& e : fs::directory_iterator(robust)) {
    const std::string name = e.path().filename().string();
    if (name.find("__hdr_") == std::string::npos) continue;
    ++variants;
    std::set<std::string> refused;
    EXPECT_EQ(all_features(ref, e.path(), &refused), same) << name;
    EXPECT_EQ(refused, refused_same) << name;
  }
  EXPECT_EQ(variants, 5);
}

TEST(Reader, InterlacedClipIsRefused) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path p =
      shared / "testdata" / "clips" / "robust" / "carphone_33x17_420p8_10f__bad_interlaced.y4m";
  expect_error_containing([&] { open_video(p.string(), nullptr); }, "interlaced");
}

TEST(Reader, RawAndY4mGiveIdenticalScores) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path clips = shared / "testdata" / "clips";
  struct Pair { fs::path ref, dist; };
  std::vector<Pair> pairs;
  for (const char* stem : {"robust/carphone_33x17_420p8_10f", "robust/carphone_33x17_422p10_10f",
                           "robust/carphone_33x17_444p8_10f"}) {
    const std::string tag = std::string(stem).find("p8") != std::string::npos ? "__x264_crf35"
                                                                                : "__x265_crf35";
    pairs.push_back({clips / (std::string(stem)), clips / (std::string(stem) + tag)});
  }
  pairs.push_back({clips / "ref/vmaf_src01_160x90_420p8_48f", clips / "dist/vmaf_src01_160x90_420p8_48f__vmaf_hrc01"});
  for (const Pair& p : pairs) {
    std::set<std::string> r1, r2;
    auto y4m = all_features(p.ref.string() + ".y4m", p.dist.string() + ".y4m", &r1);
    auto yuv = all_features(p.ref.string() + ".yuv", p.dist.string() + ".yuv", &r2);
    EXPECT_FALSE(y4m.empty());
    EXPECT_EQ(y4m, yuv) << p.dist;
    EXPECT_EQ(r1, r2) << p.dist;
  }
}

TEST(Pairing, MismatchedFormatsAreRefusedNamingBoth) {
  const VideoFormat a{4, 4, 8, ChromaFormat::k420};
  auto pa = write_temp("a.y4m", make_y4m("YUV4MPEG2 W4 H4 C420", a, 1));
  auto pb = write_temp("b.y4m", make_y4m("YUV4MPEG2 W6 H4 C420", {6, 4, 8, ChromaFormat::k420}, 1));
  auto pc = write_temp("c.y4m", make_y4m("YUV4MPEG2 W4 H4 C420p10", {4, 4, 10, ChromaFormat::k420}, 1));
  auto pd = write_temp("d.y4m", make_y4m("YUV4MPEG2 W4 H4 C444", {4, 4, 8, ChromaFormat::k444}, 1));
  JobConfig cfg;
  cfg.features.push_back({"psnr", {}});
  expect_error_containing([&] { run_pair(pa, pb, cfg); }, "4x4");
  expect_error_containing([&] { run_pair(pa, pb, cfg); }, "6x4");
  expect_error_containing([&] { run_pair(pa, pc, cfg); }, "10-bit");
  expect_error_containing([&] { run_pair(pa, pd, cfg); }, "444p");
}

TEST(Pairing, DifferentLengthsScoreTheCommonPrefixWithAWarning) {
  const VideoFormat f{4, 4, 8, ChromaFormat::k420};
  auto three = write_temp("three.y4m", make_y4m("YUV4MPEG2 W4 H4", f, 3));
  auto two = write_temp("two.y4m", make_y4m("YUV4MPEG2 W4 H4", f, 2));
  JobConfig cfg;
  cfg.features.push_back({"psnr", {}});
  std::string warning;
  cfg.on_warning = [&](const std::string& w) { warning = w; };
  JobResult r = run_pair(three, two, cfg);
  EXPECT_EQ(r.frames, 2u);
  EXPECT_NE(warning.find(two.string() + " ended after 2 frames"), std::string::npos) << warning;
}

TEST(Pairing, FrameCountAndSkips) {
  const VideoFormat f{4, 4, 8, ChromaFormat::k420};
  auto five = write_temp("five.y4m", make_y4m("YUV4MPEG2 W4 H4", f, 5));
  JobConfig cfg;
  cfg.features.push_back({"psnr", {}});
  cfg.frame_cnt = 2;
  EXPECT_EQ(run_pair(five, five, cfg).frames, 2u);
  cfg.frame_cnt = 0;
  cfg.frame_skip_ref = 1;
  cfg.frame_skip_dist = 1;
  JobResult r = run_pair(five, five, cfg);
  EXPECT_EQ(r.frames, 4u);
  // Skipping shifts frames alike: identical content, PSNR at its cap (60 dB).
  EXPECT_EQ(*r.features.get("psnr_y", 0), 60.0);
  cfg.frame_skip_dist = 0;
  r = run_pair(five, five, cfg);
  EXPECT_LT(*r.features.get("psnr_y", 0), 60.0);
  cfg.frame_skip_ref = 9;
  expect_error_containing([&] { run_pair(five, five, cfg); }, "fewer than 9 frames");
}


// Every value of two results equal (NaN equal to NaN), same frame count.
void expect_same_results(const JobResult& a, const JobResult& b, const std::string& what) {
  ASSERT_EQ(a.frames, b.frames) << what;
  ASSERT_EQ(a.features.names(), b.features.names()) << what;
  for (const std::string& n : a.features.names())
    for (unsigned i = 0; i < a.frames; ++i) {
      const auto x = a.features.get(n, i), y = b.features.get(n, i);
      ASSERT_EQ(x.has_value(), y.has_value()) << what << " " << n << " frame " << i;
      if (x && !(std::isnan(*x) && std::isnan(*y))) {
        EXPECT_EQ(*x, *y) << what << " " << n << " frame " << i;
      }
    }
}

// A Y4M pair whose frames differ from frame to frame (motion sees them).
std::string moving_y4m(const std::string& header, const VideoFormat& f, int frames, int seed) {
  std::string s = header + "\n";
  for (int n = 0; n < frames; ++n) {
    s += "FRAME\n";
    for (int p = 0; p < f.num_planes(); ++p)
      for (int i = 0; i < f.plane_width(p) * f.plane_height(p); ++i) {
        const unsigned v = static_cast<unsigned>((i * (7 + seed) + n * n * 13 + p * 31 + (i >> 3) * n) %
                                                 (1u << f.bit_depth));
        s.push_back(static_cast<char>(v & 0xff));
        if (f.bit_depth > 8) s.push_back(static_cast<char>(v >> 8));
      }
  }
  return s;
}

TEST(ParallelReading, EqualsSequentialReadingWithSkipsIrregularFramesAndLengths) {
  const VideoFormat f{40, 36, 10, ChromaFormat::k420};
  const std::string header = "YUV4MPEG2 W40 H36 C420p10";
  std::string ref = moving_y4m(header, f, 16, 0);
  // From frame 6 the reference's FRAME lines carry a parameter: frames are
  // no longer at computable offsets, so parallel reading hands over to
  // reading in order there.
  std::size_t at = 0;
  for (int n = 0; n <= 6; ++n) at = ref.find("FRAME\n", at + 1);
  for (std::size_t pos = at; pos != std::string::npos; pos = ref.find("FRAME\n", pos + 10))
    ref.replace(pos, 6, "FRAME XA=1\n");
  const auto ref_path = write_temp("par_ref.y4m", ref);
  const auto dist_path = write_temp("par_dist.y4m", moving_y4m(header, f, 12, 3));
  for (const bool vmaf : {true, false})
    for (const unsigned skip : {0u, 2u}) {
      JobConfig base;
      if (vmaf) base.models.push_back(Model::builtin("vmaf_v0.6.1"));
      base.features.push_back({"psnr", {}});
      if (!vmaf) base.features.push_back({"motion", {}});
      base.frame_skip_ref = skip;
      std::vector<std::string> warnings;
      base.on_warning = [&](const std::string& w) { warnings.push_back(w); };
      base.readers = 1;
      const JobResult sequential = run_pair(ref_path, dist_path, base);
      for (const unsigned threads : {0u, 1u, 3u})
        for (const unsigned readers : {2u, 4u}) {
          JobConfig cfg = base;
          cfg.threads = threads;
          cfg.readers = readers;
          const JobResult parallel = run_pair(ref_path, dist_path, cfg);
          expect_same_results(sequential, parallel,
                              fmt::format("vmaf {} skip {} threads {} readers {}", vmaf, skip,
                                          threads, readers));
        }
      // The same warning each time: the distorted file ends first.
      ASSERT_FALSE(warnings.empty());
      for (const std::string& w : warnings) EXPECT_EQ(w, warnings.front());
      EXPECT_NE(warnings.front().find("par_dist.y4m ended after 12 frames"), std::string::npos)
          << warnings.front();
    }
  // The reference ending first is said the same way by every reader count.
  const auto short_ref = write_temp("par_short_ref.y4m", moving_y4m(header, f, 5, 1));
  for (const unsigned readers : {1u, 3u}) {
    JobConfig cfg;
    cfg.features.push_back({"psnr", {}});
    cfg.threads = 2;
    cfg.readers = readers;
    std::string warning;
    cfg.on_warning = [&](const std::string& w) { warning = w; };
    EXPECT_EQ(run_pair(short_ref, dist_path, cfg).frames, 5u);
    EXPECT_NE(warning.find("par_short_ref.y4m ended after 5 frames"), std::string::npos)
        << "readers " << readers << ": " << warning;
  }
}

TEST(Reader, FileReadsStraightIntoPicturesEqualStreamReads) {
  // A regular file's frames are read with pread() straight into the picture
  // until a FRAME line of another length; a stream (a pipe) reads through
  // its buffer. Same frames, in the same order, with luma-only and whole
  // reads mixed, and the same refusal of a truncated last frame.
  const VideoFormat f{40, 36, 10, ChromaFormat::k420};
  std::string bytes = moving_y4m("YUV4MPEG2 W40 H36 C420p10", f, 7, 2);
  std::size_t at = 0;
  for (int n = 0; n <= 4; ++n) at = bytes.find("FRAME\n", at + 1);
  bytes.replace(at, 6, "FRAME XA=1\n");  // frame 4 (0-based) irregular
  for (const bool cut : {false, true}) {
    const std::string content = cut ? bytes.substr(0, bytes.size() - 7) : bytes;
    const auto path = write_temp(cut ? "direct_cut.y4m" : "direct.y4m", content);
    auto file = open_video(path.string(), nullptr);
    ASSERT_TRUE(file->random_access());
    auto stream = stream_reader(content);
    ASSERT_FALSE(stream->random_access());
    Picture a, b;
    for (int n = 0; n < 7; ++n) {
      const int planes = n % 2 ? 1 : 3;
      if (cut && n == 6) {
        expect_error_containing([&] { file->read_planes(a, planes); }, "frame 6 is truncated");
        expect_error_containing([&] { stream->read_planes(b, planes); }, "frame 6 is truncated");
        break;
      }
      ASSERT_TRUE(file->read_planes(a, planes)) << n;
      ASSERT_TRUE(stream->read_planes(b, planes)) << n;
      for (int p = 0; p < planes; ++p)
        for (int y = 0; y < a.plane(p).height; ++y)
          ASSERT_EQ(0, std::memcmp(a.plane(p).row<std::uint8_t>(y),
                                   b.plane(p).row<std::uint8_t>(y), a.plane(p).width * 2))
              << "frame " << n << " plane " << p << " row " << y;
    }
    if (!cut) {
      EXPECT_FALSE(file->read(a));
      EXPECT_FALSE(stream->read(b));
      EXPECT_EQ(file->frames_read(), 7u);
    } else {
      // A luma-only read of the cut frame: the same words from both.
      auto again = open_video(path.string(), nullptr);
      ASSERT_TRUE(again->skip(6));
      expect_error_containing([&] { again->read_planes(a, 1); },
                              "frame 6 is truncated (the input ends in its chroma planes)");
    }
  }
}

TEST(ParallelReading, LumaOnlyReadingStillRefusesATruncatedFrame) {
  const VideoFormat f{40, 36, 8, ChromaFormat::k420};
  const std::string good = moving_y4m("YUV4MPEG2 W40 H36 C420jpeg", f, 4, 1);
  // The last frame ends inside its chroma planes: a luma-only job (VMAF)
  // does not read them, and must refuse the frame all the same.
  const auto cut = write_temp("cut_chroma.y4m", good.substr(0, good.size() - 10));
  const auto whole = write_temp("whole.y4m", good);
  for (const unsigned readers : {1u, 3u}) {
    JobConfig cfg;
    cfg.models.push_back(Model::builtin("vmaf_v0.6.1"));
    cfg.threads = 2;
    cfg.readers = readers;
    expect_error_containing([&] { run_pair(whole, cut, cfg); }, "frame 3 is truncated");
  }
}

TEST(ParallelReading, ReadAtReportsEndAndIrregularFrames) {
  const VideoFormat f{8, 6, 8, ChromaFormat::k420};
  std::string bytes = make_y4m("YUV4MPEG2 W8 H6 C420jpeg", f, 3);
  const std::size_t third = bytes.rfind("FRAME\n");
  bytes.replace(third, 6, "FRAME Ixyz\n");
  auto path = write_temp("irregular.y4m", bytes);
  auto r = open_video(path.string(), nullptr);
  ASSERT_TRUE(r->random_access());
  Picture pic, seq;
  EXPECT_EQ(r->read_at(1, pic, 3), FrameSource::FrameAt::kRead);
  ASSERT_TRUE(r->read(seq));
  ASSERT_TRUE(r->read(seq));  // frame 1
  for (int p = 0; p < 3; ++p)
    for (int y = 0; y < pic.plane(p).height; ++y)
      EXPECT_EQ(0, std::memcmp(pic.plane(p).row<std::uint8_t>(y), seq.plane(p).row<std::uint8_t>(y),
                               pic.plane(p).width));
  EXPECT_EQ(r->read_at(2, pic, 1), FrameSource::FrameAt::kIrregular);
  // Past an irregular frame, offsets are unknown: irregular too.
  EXPECT_EQ(r->read_at(3, pic, 1), FrameSource::FrameAt::kIrregular);
  auto regular = open_video(write_temp("regular.y4m", make_y4m("YUV4MPEG2 W8 H6", f, 3)).string(),
                            nullptr);
  EXPECT_EQ(regular->read_at(2, pic, 3), FrameSource::FrameAt::kRead);
  EXPECT_EQ(regular->read_at(3, pic, 3), FrameSource::FrameAt::kEnd);
  r->seek(2);
  ASSERT_TRUE(r->read(seq));  // frame 2, read in order past its longer FRAME line
  EXPECT_FALSE(r->read(seq));
}

}  // namespace
}  // namespace vqe::test
