// SPDX-License-Identifier: BSD-2-Clause
#include "cli_options.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <map>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "presets.h"

namespace vqe::cli {

unsigned parse_libvmaf_unsigned(const std::string& text, const std::string& option) {
  // libvmaf: (unsigned) strtoul(optarg, &end, 0), refused when nothing or
  // not everything was read.
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const unsigned long value = std::strtoul(begin, &end, 0);
  if (text.empty() || end == begin || *end != '\0')
    throw UsageError(fmt::format("{}: \"{}\" is not an integer", option, text));
  return static_cast<unsigned>(value);
}

namespace {

// A decimal whole number from lo to hi; anything else is refused with a
// message that says so (CLI11's Range says "not in range" for "abc", and its
// conversion "Could not convert" without the accepted values).
CLI::Validator whole_number(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        long long n = 0;
        const char* end = value.data() + value.size();
        const auto [at, error] = std::from_chars(value.data(), end, n);
        if (value.empty() || error != std::errc() || at != end || n < lo || n > hi)
          return fmt::format("\"{}\" is not a whole number from {} to {}",
                             value.size() > 40 ? value.substr(0, 40) + "..." : value, lo, hi);
        return {};
      },
      fmt::format("INT in [{} - {}]", lo, hi));
}

// A value of a repeatable option, in command-line order.
struct Ordered {
  const CLI::Option* option;
  std::vector<std::string>* values;
};

}  // namespace

ParseOutcome parse_command_line(int argc, const char* const* argv) {
  CLI::App app{
      "VQE: full-reference video quality metrics (VMAF, PSNR, SSIM, ...) with libvmaf's numbers.\n"
      "Example: vqe -r ref.y4m -d dist.y4m --feature psnr --json -o out.json",
      "vqe"};
  app.set_help_flag("--help", "Print this help and exit (-h is the height, as in libvmaf)");
  app.footer(
      "Several -d: a ladder (the reference read once; -o with {name}, e.g. -o out_{name}.json).\n"
      "vqe batch MANIFEST [--jobs N] [--summary PATH] [--scheduler tcp://HOST:8786]: the pairs of "
      "a CSV or JSON manifest (vqe batch --help; docs/python.md).");
  app.get_formatter()->column_width(34);
  // As getopt in libvmaf: a single-valued option given twice keeps the last.
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);

  ParseOutcome outcome;
  Settings& s = outcome.settings;
  int width = 0, height = 0, bitdepth = 0;
  std::string pixel_format, cpumask, gpumask, scale;
  std::vector<std::string> models, features, aom_ctc, nflx_ctc, distorted;
  bool xml = false, json = false, csv = false, sub = false;

  app.add_option("-r,--reference", s.reference,
                 "Reference video: Y4M, or raw YUV with -w -h -p -b; a file, a pipe, or - for "
                 "standard input; or a compressed file (MP4, MKV, WebM, IVF, H.264/HEVC "
                 "streams...) where built with FFmpeg's libraries");
  auto* opt_w = app.add_option("-w,--width", width, "Width of raw input, in pixels")
                    ->check(whole_number(1, 32768));
  auto* opt_h = app.add_option("-h,--height", height, "Height of raw input, in pixels")
                    ->check(whole_number(1, 32768));
  auto* opt_p =
      app.add_option("-p,--pixel_format", pixel_format,
                     "Chroma format of raw input: 420, 422, 444 or 400")
          ->check(CLI::IsMember({"400", "420", "422", "444"}));
  auto* opt_b = app.add_option("-b,--bitdepth", bitdepth, "Bit depth of raw input: 8, 10, 12 or 16")
                    ->check(CLI::IsMember({8, 10, 12, 16}));
  // Repeatable options: every value kept, one value per occurrence.
  const auto repeatable = [&](const char* name, std::vector<std::string>& values,
                              const char* help) {
    return app.add_option(name, values, help)
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
        ->allow_extra_args(false);
  };
  repeatable("-d,--distorted", distorted,
             "Distorted video (as --reference); repeat for a ladder (one reference, several "
             "encodes: -o with {name})");
  auto* opt_scale = app.add_option(
      "--scale", scale,
      "Scale with FFmpeg's bicubic scaler (as ffmpeg -vf scale=W:H:flags=bicubic): "
      "'distorted' scales the distorted video to the reference's size, WxH scales both");
  auto* opt_m = repeatable("-m,--model", models,
                           "Model: version=NAME[:name=LABEL][:enable_transform][:disable_clip] or "
                           "path=FILE.json; repeatable (default: version=vmaf_v0.6.1)");
  auto* opt_feature = repeatable("--feature", features,
                                 "Extra feature extractor: NAME[=opt=val[:opt=val...]]; "
                                 "repeatable (--list-features shows them)");
  auto* opt_aom = repeatable("--aom_ctc", aom_ctc,
                             "AOM common test conditions, as libvmaf: v1.0 ... v7.0 (models, "
                             "features and options of that version)");
  auto* opt_nflx =
      repeatable("--nflx_ctc", nflx_ctc, "Netflix common test conditions, as libvmaf: v1.0");
  app.add_option("-o,--output", s.output,
                 "Write results to this file ('-' = stdout; {name}: the distorted file's "
                 "name without its extension)");
  app.add_flag("--xml", xml, "Write XML (default)");
  app.add_flag("--json", json, "Write JSON");
  app.add_flag("--csv", csv, "Write CSV");
  app.add_flag("--sub", sub, "Write a subtitle (.sub) file");
  app.add_option("--html", s.html,
                 "Also write a report to look at: one self-contained HTML page with a per-frame "
                 "chart, pooled values with percentiles, the worst frames and the settings");
  app.add_option("--threads", s.threads,
                 "Worker threads besides the main thread, which reads and, when every frame "
                 "slot is taken and N is below the core count, computes too (0 = compute on "
                 "the main thread only; the default, as libvmaf's)")
      ->check(whole_number(0, 1024));
  app.add_option("--subsample", s.subsample, "Score every N-th frame")
      ->check(whole_number(1, 1 << 30));
  app.add_option("--frame_cnt", s.frame_cnt, "Score at most N frames (0: every frame)")
      ->check(whole_number(0, 4294967295LL));
  app.add_option("--frame_skip_ref", s.frame_skip_ref, "Drop this many leading reference frames")
      ->check(whole_number(0, 4294967295LL));
  app.add_option("--frame_skip_dist", s.frame_skip_dist,
                 "Drop this many leading distorted frames")
      ->check(whole_number(0, 4294967295LL));
  app.add_option("--precision", s.precision,
                 "Number format: 'max' (%.17g, round-trips) or N significant digits "
                 "(default: libvmaf's %.6f)");
  auto* opt_cpumask = app.add_option(
      "--cpumask", cpumask,
      "Bitmask of instruction sets to disable, as libvmaf: 4 SSE4.1, 8 AVX2, 16 AVX-512 (x86); "
      "1 NEON (Arm)");
  auto* opt_gpumask =
      app.add_option("--gpumask", gpumask,
                     "As libvmaf: 0 computes on the GPU (CUDA, else Vulkan; the CPU when there "
                     "is none), any other value on the CPU");
  app.add_option("--cpu-level", s.cpu_level,
                 "Highest CPU instruction set to use: scalar, sse4, avx2 or avx512 (x86); "
                 "scalar or neon (Arm) (default: best)")
      ->check(CLI::IsMember({"scalar", "sse4", "avx2", "avx512", "neon"}));
  app.add_option("--backend", s.backend,
                 "cpu, cuda, vulkan or auto (CUDA, else Vulkan, else CPU) (default: cpu)")
      ->check(CLI::IsMember({"cpu", "cuda", "vulkan", "auto"}));
  app.add_option("--gpu", s.gpu, "GPU index among the backend's devices (CUDA or Vulkan)")
      ->check(whole_number(0, 255));
  app.add_option("--hwdec", s.hwdec,
                 "Decoding of compressed input: auto (NVDEC on the --gpu device with --backend "
                 "cuda where it can: H.264, HEVC, VP9, AV1 at 4:2:0; else the CPU), nvdec "
                 "(NVDEC or an error), none (the CPU) (default: auto)")
      ->check(CLI::IsMember({"auto", "nvdec", "none"}));
  app.add_flag("-q,--quiet", s.quiet, "No progress line");
  app.add_flag("-n,--no_prediction", s.no_prediction, "Extract features only, no VMAF model");
  app.add_flag("--verbose", s.verbose, "Print what is computed where");
  app.add_flag("--list-features", s.list_features, "List feature extractors and their options");
  app.set_version_flag("-v,--version", std::string("vqe ") + VQE_VERSION);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    outcome.print_and_exit = app.help();
    return outcome;
  } catch (const CLI::CallForAllHelp&) {
    outcome.print_and_exit = app.help("", CLI::AppFormatMode::All);
    return outcome;
  } catch (const CLI::CallForVersion& e) {
    outcome.print_and_exit = std::string(e.what()) + "\n";
    return outcome;
  } catch (const CLI::ParseError& e) {
    // CLI11's messages are one line; some end with a newline.
    std::string message = e.what();
    while (!message.empty() && message.back() == '\n') message.pop_back();
    throw UsageError(message);
  }

  if (opt_w->count()) s.raw.width = width;
  if (opt_h->count()) s.raw.height = height;
  if (opt_p->count()) s.raw.pixel_format = pixel_format;
  if (opt_b->count()) s.raw.bit_depth = bitdepth;
  if (opt_scale->count()) s.scale = parse_scale(scale);
  if (opt_cpumask->count()) s.cpumask = parse_libvmaf_unsigned(cpumask, "--cpumask");
  if (opt_gpumask->count()) s.gpumask = parse_libvmaf_unsigned(gpumask, "--gpumask");

  // Models, features and presets in the order given: libvmaf registers
  // them, and so orders the output's columns, as they come.
  std::map<const CLI::Option*, std::size_t> taken;
  for (const CLI::Option* o : app.parse_order()) {
    const std::size_t i = taken[o]++;
    if (o == opt_m) s.models.push_back(models.at(i));
    if (o == opt_feature) s.features.push_back(features.at(i));
    if (o == opt_aom) apply_aom_ctc(aom_ctc.at(i), s);
    if (o == opt_nflx) apply_nflx_ctc(nflx_ctc.at(i), s);
  }

  if (xml + json + csv + sub > 1) throw UsageError("choose one of --xml, --json, --csv, --sub");
  s.format = json  ? OutputFormat::kJson
             : csv ? OutputFormat::kCsv
             : sub ? OutputFormat::kSub
                   : OutputFormat::kXml;
  if (s.list_features) return outcome;
  if (s.reference.empty()) throw UsageError("the reference video (-r/--reference) is required");
  if (distorted.empty() || distorted.front().empty())
    throw UsageError("the distorted video (-d/--distorted) is required");
  s.distorted = distorted.front();
  if (distorted.size() > 1) {
    s.ladder = distorted;
    if (!s.html.empty())
      throw UsageError("--html writes the report of one pair: not with several -d");
    if (s.output == "-")
      throw UsageError("-o -: several -d write several outputs; give -o a path with {name}");
    if (!s.output.empty() && s.output.find("{name}") == std::string::npos)
      throw UsageError(fmt::format(
          "-o {}: several -d write one output each; put {{name}} in the path (the distorted "
          "file's name without its extension), e.g. -o scores_{{name}}.json",
          s.output));
  }
  if (!s.html.empty() && s.html == s.output)
    throw UsageError(fmt::format("--html {} and -o {} are one file: give each its own",
                                 s.html, s.output));
  return outcome;
}

ScaleRequest parse_scale(const std::string& text) {
  ScaleRequest r;
  if (text == "distorted") {
    r.distorted_to_reference = true;
    return r;
  }
  const auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 5 || part.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError(
          "--scale: give 'distorted' or WxH with W and H in 1..32768 (e.g. 1920x1080)");
    const int v = std::stoi(part);
    if (v < 1 || v > 32768) throw UsageError(fmt::format("--scale: {} is not in 1..32768", v));
    return v;
  };
  const std::size_t x = text.find('x');
  if (x == std::string::npos) number("");
  r.width = number(text.substr(0, x));
  r.height = number(text.substr(x + 1));
  return r;
}

}  // namespace vqe::cli
