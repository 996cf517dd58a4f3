// SPDX-License-Identifier: BSD-2-Clause
// `vqe`: libvmaf-compatible command line for scoring a distorted video
// against its reference.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "batch.h"
#include "ladder.h"
#include "vqe/vqe.h"

namespace {

// "--feature name=opt=val:opt=val" or "--feature name" (libvmaf syntax).
vqe::FeatureRequest parse_feature(const std::string& text) {
  const std::size_t eq = text.find('=');
  vqe::FeatureRequest r;
  r.extractor = text.substr(0, eq);
  if (r.extractor.empty()) throw vqe::Error(fmt::format("--feature: no name in '{}'", text));
  if (eq != std::string::npos)
    r.options = vqe::parse_option_string(text.substr(eq + 1), "--feature " + r.extractor);
  return r;
}

std::string list_extractors() {
  std::string out;
  for (const vqe::ExtractorDescription& e : vqe::list_extractors()) {
    const std::string gpus = std::string(e.cuda ? ", cuda" : "") + (e.vulkan ? ", vulkan" : "");
    out += fmt::format("  {}{}\n", e.name, gpus.empty() ? "" : "  (cpu" + gpus + ")");
    for (const vqe::OptionSpec& o : e.options)
      out += fmt::format("      {}{}  {}\n", o.name, o.alias.empty() ? "" : " (" + o.alias + ")",
                         o.help);
  }
  return out;
}

// The level of --cpu-level and --cpumask (both may be given; the lower level wins).
vqe::simd::Level select_cpu_level(const std::string& level_name, const std::string& cpumask) {
  vqe::simd::Level level = vqe::simd::max_level();
  if (!level_name.empty()) {
    const auto parsed = vqe::simd::parse_level(level_name);
    if (!parsed) throw vqe::Error(fmt::format("--cpu-level: unknown level '{}'", level_name));
    if (!vqe::simd::is_available(*parsed))
      throw vqe::Error(fmt::format("--cpu-level {}: this CPU supports up to {}", level_name,
                                   vqe::simd::level_name(vqe::simd::max_level())));
    level = *parsed;
  }
  if (!cpumask.empty()) {
    std::size_t used = 0;
    unsigned long long mask = 0;
    try {
      mask = std::stoull(cpumask, &used, 0);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != cpumask.size() || cpumask.front() == '-')
      throw vqe::Error(fmt::format("--cpumask: '{}' is not an unsigned integer", cpumask));
    level = std::min(level, vqe::simd::level_from_cpumask(mask));
  }
  return level;
}

// --scale: "distorted" (the distorted video to the reference's size) or
// "WxH" (both videos to that size).
struct ScaleRequest {
  bool distorted_to_reference = false;
  int width = 0, height = 0;
  bool any() const { return distorted_to_reference || width > 0; }
};

ScaleRequest parse_scale(const std::string& text) {
  ScaleRequest r;
  if (text.empty()) return r;
  if (text == "distorted") {
    r.distorted_to_reference = true;
    return r;
  }
  const std::size_t x = text.find('x');
  const auto number = [&](const std::string& part) {
    if (part.empty() || part.size() > 5 || part.find_first_not_of("0123456789") != std::string::npos)
      throw vqe::Error(fmt::format("--scale: '{}' is neither 'distorted' nor WxH (e.g. 1920x1080)",
                                   text));
    const int v = std::stoi(part);
    if (v < 1 || v > 32768) throw vqe::Error(fmt::format("--scale: {} is not in 1..32768", v));
    return v;
  };
  if (x == std::string::npos) number("");
  r.width = number(text.substr(0, x));
  r.height = number(text.substr(x + 1));
  return r;
}

// "1:02:03" or "2:03": a duration for the progress line.
std::string format_duration(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

// Frames a job will score as far as the inputs' headers tell (0: unknown).
unsigned expected_frames(const vqe::FrameSource& ref, const vqe::FrameSource& dist,
                         unsigned skip_ref, unsigned skip_dist, unsigned frame_cnt) {
  const auto left = [](unsigned hint, unsigned skip) -> long long {
    return hint == 0 ? -1 : std::max(0ll, static_cast<long long>(hint) - skip);
  };
  const long long r = left(ref.frame_count_hint(), skip_ref);
  const long long d = left(dist.frame_count_hint(), skip_dist);
  long long n = r < 0 ? d : d < 0 ? r : std::min(r, d);
  if (frame_cnt && (n < 0 || n > frame_cnt)) n = frame_cnt;
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "batch") return vqe_cli::run_batch_command(argc - 2, argv + 2);
  CLI::App app{
      "VQE: full-reference video quality metrics (VMAF, PSNR, SSIM, ...) with libvmaf's numbers.\n"
      "Example: vqe -r ref.y4m -d dist.y4m --feature psnr --json -o out.json",
      "vqe"};
  app.set_help_flag("--help", "Print this help and exit (-h is the height, as in libvmaf)");
  app.get_formatter()->column_width(34);

  std::string reference, distorted, output, pixel_format = "420", precision_text, backend = "cpu";
  int width = 0, height = 0, bitdepth = 8, gpu = 0;
  unsigned threads = 0, subsample = 1, frame_cnt = 0, skip_ref = 0, skip_dist = 0;
  std::vector<std::string> features, models, distorted_all;
  bool xml = false, json = false, csv = false, sub = false, quiet = false, no_prediction = false,
       verbose = false, list_features = false;
  std::string cpumask, cpu_level, html, scale_text;

  app.add_option("-r,--reference", reference,
                 "Reference video (.y4m; raw .yuv with -w -h -p -b; or compressed: MP4, MKV, "
                 "WebM, IVF, H.264/HEVC streams... where built with FFmpeg's libraries)");
  app.add_option("-d,--distorted", distorted_all,
                 "Distorted video (as -r); repeat for a ladder "
                 "(one reference, several encodes: -o with {name})");
  app.add_option("--scale", scale_text,
                 "Scale with FFmpeg's bicubic scaler (as ffmpeg -vf scale=W:H:flags=bicubic): "
                 "'distorted' scales the distorted video to the reference's size, WxH scales "
                 "both");
  app.add_option("-w,--width", width, "Width of raw input, in pixels")->check(CLI::Range(1, 32768));
  app.add_option("-h,--height", height, "Height of raw input, in pixels")->check(CLI::Range(1, 32768));
  app.add_option("-p,--pixel_format", pixel_format, "Chroma format of raw input: 420, 422, 444 or 400")
      ->check(CLI::IsMember({"400", "420", "422", "444"}));
  app.add_option("-b,--bitdepth", bitdepth, "Bit depth of raw input: 8, 10, 12 or 16")
      ->check(CLI::IsMember({8, 10, 12, 16}));
  app.add_option("-m,--model", models,
                 "Model: version=NAME[:name=LABEL][:enable_transform][:disable_clip] or "
                 "path=FILE.json; repeatable (default: version=vmaf_v0.6.1)");
  app.add_option("-o,--output", output, "Write results to this file ('-' = stdout)");
  app.add_flag("--xml", xml, "Write XML (default)");
  app.add_flag("--json", json, "Write JSON");
  app.add_flag("--csv", csv, "Write CSV");
  app.add_flag("--sub", sub, "Write a subtitle (.sub) file");
  app.add_option("--html", html,
                 "Also write a report to look at: one self-contained HTML page with a per-frame "
                 "chart, pooled values with percentiles, the worst frames and the settings");
  app.add_option("--threads", threads, "Worker threads (0 = compute on the main thread)")
      ->check(CLI::Range(0u, 1024u));
  app.add_option("--feature", features,
                 "Extra feature extractor: NAME[=opt=val[:opt=val...]]; repeatable "
                 "(--list-features shows them)");
  app.add_option("--subsample", subsample, "Score every N-th frame")->check(CLI::Range(1u, 1u << 30));
  app.add_option("--frame_cnt", frame_cnt, "Score at most N frames");
  app.add_option("--frame_skip_ref", skip_ref, "Drop this many leading reference frames");
  app.add_option("--frame_skip_dist", skip_dist, "Drop this many leading distorted frames");
  app.add_option("--precision", precision_text,
                 "Number format: 'max' (%.17g, round-trips) or N significant digits "
                 "(default: libvmaf's %.6f)");
  app.add_option("--cpumask", cpumask,
                 "Bitmask of instruction sets to disable, as libvmaf: 4 SSE4.1, 8 AVX2, 16 AVX-512 "
                 "(x86); 1 NEON (Arm)");
  app.add_option("--cpu-level", cpu_level,
                 "Highest CPU instruction set to use: scalar, sse4, avx2 or avx512 (x86); "
                 "scalar or neon (Arm) (default: best)")
      ->check(CLI::IsMember({"scalar", "sse4", "avx2", "avx512", "neon"}));
  app.add_option("--backend", backend, "cpu, cuda, vulkan or auto (CUDA, else Vulkan, else CPU)")
      ->check(CLI::IsMember({"cpu", "cuda", "vulkan", "auto"}));
  app.add_option("--gpu", gpu, "GPU index among the backend's devices (CUDA or Vulkan)")
      ->check(CLI::Range(0, 255));
  app.add_flag("-q,--quiet", quiet, "No progress line");
  app.add_flag("-n,--no_prediction", no_prediction, "Extract features only, no VMAF model");
  app.add_flag("--verbose", verbose, "Print what is computed where");
  app.add_flag("--list-features", list_features, "List feature extractors and their options");
  app.set_version_flag("-v,--version", std::string("vqe ") + VQE_VERSION);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }

  if (!distorted_all.empty()) distorted = distorted_all.front();
  if (list_features) {
    std::cout << list_extractors();
    return 0;
  }

  try {
    if (reference.empty() || distorted.empty())
      throw vqe::Error("both -r/--reference and -d/--distorted are required (see --help)");
    if (xml + json + csv + sub > 1) throw vqe::Error("choose one of --xml, --json, --csv, --sub");
    vqe::OutputInfo out_info;
    out_info.format = json  ? vqe::OutputFormat::kJson
                      : csv ? vqe::OutputFormat::kCsv
                      : sub ? vqe::OutputFormat::kSub
                            : vqe::OutputFormat::kXml;
    if (!precision_text.empty()) out_info.precision = vqe::parse_precision(precision_text);
    if (!html.empty() && !vqe::html_report_available())
      throw vqe::Error("--html: this build has no HTML report (build with Debian's libjs-chart.js)");
    // The report's file is claimed before any work (as the output's is).
    std::optional<vqe::OutputFile> html_file;
    if (!html.empty()) html_file.emplace(html);
    const vqe::simd::Level level = select_cpu_level(cpu_level, cpumask);
    // --backend/--gpu: the pipeline checks the device and says what runs where.
    if (gpu != 0 && backend == "cpu")
      throw vqe::Error("--gpu needs --backend cuda, vulkan or auto");

    vqe::JobConfig config;
    config.backend = backend == "cuda"     ? vqe::JobConfig::Backend::kCuda
                     : backend == "vulkan" ? vqe::JobConfig::Backend::kVulkan
                     : backend == "auto"   ? vqe::JobConfig::Backend::kAuto
                                           : vqe::JobConfig::Backend::kCpu;
    config.gpu = gpu;
    config.cpu_level = level;
    // Backend fallbacks are always said; where each extractor runs only with --verbose.
    config.on_note = [verbose](const std::string& note) {
      if (verbose || note.rfind("backend auto:", 0) == 0) std::cerr << note << "\n";
    };
    std::vector<std::string> model_specs = models;
    if (model_specs.empty() && !no_prediction)
      model_specs.push_back("version=" + vqe::Model::default_version());
    for (const std::string& spec : model_specs) {
      config.models.push_back(vqe::load_model_spec(spec));
      for (std::size_t i = 0; i + 1 < config.models.size(); ++i)
        if (config.models[i].name() == config.models.back().name())
          throw vqe::Error(fmt::format(
              "two models are named '{}': give each a unique name with -m ...:name=NAME",
              config.models.back().name()));
    }
    config.no_prediction = no_prediction;
    for (const std::string& f : features) config.features.push_back(parse_feature(f));
    if (config.features.empty() && config.models.empty())
      throw vqe::Error("nothing to compute: give --feature NAME or a model (-m), or drop -n");
    if (verbose) {
      for (const vqe::Model& m : config.models)
        std::cerr << fmt::format("model {} ({}){}\n", m.name(), m.origin(),
                                 no_prediction ? ": features only (-n)" : "");
      std::cerr << fmt::format("backend: {}\n", backend);
      std::cerr << fmt::format("cpu level: {}\n",
                               vqe::simd::level_name(level));
    }

    vqe::RawVideoParams raw{width, height, bitdepth, vqe::parse_chroma_format(pixel_format)};
    // Y4M and compressed files are recognised by content; a file that is
    // neither is raw YUV of the -w -h -p -b shape.
    const vqe::RawVideoParams* raw_shape = width > 0 && height > 0 ? &raw : nullptr;
    const ScaleRequest scale = parse_scale(scale_text);
    auto ref_reader = vqe::open_video(reference, raw_shape);
    if (scale.width > 0)
      ref_reader = vqe::scale_source(std::move(ref_reader), scale.width, scale.height);
    // Every distorted input: scaled to the reference's size (--scale
    // distorted) or to WxH; different sizes without --scale are an error.
    const vqe::VideoFormat ref_format = ref_reader->format();
    const auto open_distorted = [&](const std::string& path) {
      auto source = vqe::open_video(path, raw_shape);
      if (scale.any())
        source = vqe::scale_source(std::move(source), ref_format.width, ref_format.height);
      const vqe::VideoFormat& f = source->format();
      if (f.width != ref_format.width || f.height != ref_format.height)
        throw vqe::Error(fmt::format(
            "reference and distorted differ in size: {} is {}x{}, {} is {}x{}; scale with "
            "--scale distorted (the distorted video to the reference's size) or --scale WxH "
            "(both)",
            reference, ref_format.width, ref_format.height, path, f.width, f.height));
      return source;
    };
    // A ladder opens its encodes itself (one that fails fails alone).
    const bool ladder = distorted_all.size() > 1;
    std::unique_ptr<vqe::FrameSource> dist_reader;
    if (!ladder) dist_reader = open_distorted(distorted);
    std::string scale_note;
    if (!ref_reader->transform().empty()) scale_note = "reference: " + ref_reader->transform();
    if (dist_reader && !dist_reader->transform().empty())
      scale_note += (scale_note.empty() ? "" : "; ") + ("distorted: " + dist_reader->transform());
    if (ladder && scale.any())
      scale_note += fmt::format("{}distorted: each scaled to {}x{} where of another size (bicubic, "
                                "as ffmpeg -vf scale={}:{}:flags=bicubic)",
                                scale_note.empty() ? "" : "; ", ref_format.width,
                                ref_format.height, ref_format.width, ref_format.height);
    if (verbose && !scale_note.empty()) std::cerr << "scale: " << scale_note << "\n";
    out_info.scale = scale_note;

    config.threads = threads;
    config.subsample = subsample;
    config.frame_cnt = frame_cnt;
    config.frame_skip_ref = skip_ref;
    config.frame_skip_dist = skip_dist;
    config.on_warning = [](const std::string& w) { std::cerr << "warning: " << w << "\n"; };
    const bool show_progress = !quiet && isatty(STDERR_FILENO);
    const auto t0 = std::chrono::steady_clock::now();
    // Frames to score as the headers tell (a container's frame count, a
    // file's size): the progress line shows the time left from it.
    const unsigned total =
        ladder ? 0 : expected_frames(*ref_reader, *dist_reader, skip_ref, skip_dist, frame_cnt);
    if (show_progress)
      config.on_progress = [&](unsigned n) {
        if (n % 10 && n > 1) return;
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double fps = s > 0 ? n / s : 0.0;
        std::string line = total > 0 && n <= total
                               ? fmt::format("\r{}/{} frames {:.2f} FPS", n, total, fps)
                               : fmt::format("\r{} frame{} {:.2f} FPS", n, n == 1 ? " " : "s", fps);
        if (total > 0 && n <= total && fps > 0)
          line += fmt::format(", {} left", format_duration((total - n) / fps));
        std::cerr << line << "\033[K";
      };

    if (distorted_all.size() > 1 && !html.empty())
      throw vqe::Error("--html writes the report of one pair: not with several -d");
    if (distorted_all.size() > 1)
      return vqe_cli::run_ladder_command(
          {std::move(ref_reader), distorted_all,
           open_distorted,
           config, out_info, output, verbose});
    vqe::JobResult result = vqe::run_job(*ref_reader, *dist_reader, config);
    if (show_progress) std::cerr << "\n";
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    if (verbose) {
      const vqe::JobTimes& t = result.times;
      std::cerr << fmt::format(
          "time: {:.3f} s wall for {} frames; start {:.3f} s; calling thread: reading {:.3f} s, waiting for "
          "free frames {:.3f} s (computing {:.3f} s of it), waiting for readers {:.3f} s, in submit {:.3f} s; ordered "
          "(serial) parts {:.3f} s; prediction {:.3f} s\n",
          seconds, result.frames, t.start, t.read, t.wait_for_slots, t.help, t.wait_for_reads, t.submit,
          t.ordered, t.prediction);
    }
    out_info.subsample = subsample;
    out_info.width = result.format.width;
    out_info.height = result.format.height;
    out_info.fps = seconds > 0 ? result.frames / seconds : 0;
    out_info.version = std::string("vqe ") + VQE_VERSION;
    if (html_file) {
      vqe::ReportInfo report;
      report.title = fmt::format("{} against {}", distorted, reference);
      report.subsample = subsample;
      for (const vqe::Model& m : config.models)
        if (!no_prediction) report.shown.push_back(m.name());
      report.settings = {{"reference", reference},
                         {"distorted", distorted},
                         {"frames", std::to_string(result.frames)},
                         {"size", fmt::format("{}x{} {}-bit {}", result.format.width,
                                              result.format.height, result.format.bit_depth,
                                              vqe::to_string(result.format.chroma))}};
      if (!scale_note.empty()) report.settings.emplace_back("scale", scale_note);
      for (const vqe::Model& m : config.models)
        report.settings.emplace_back("model", fmt::format("{} ({})", m.name(), m.origin()));
      for (const std::string& f : features) report.settings.emplace_back("feature", f);
      report.settings.emplace_back("backend", backend);
      report.settings.emplace_back("threads", std::to_string(threads));
      if (subsample > 1) report.settings.emplace_back("subsample", std::to_string(subsample));
      report.settings.emplace_back("version", out_info.version);
      vqe::write_html_report(html_file->stream(), result.features, report);
      html_file->commit();
    }
    if (output.empty()) {
      // No output file: print each feature's pooled mean, as a quick look.
      for (const std::string& name : result.features.names())
        if (auto v = result.features.pooled(name, vqe::PoolMethod::kMean, subsample))
          std::cout << fmt::format("{}: {}\n", name, vqe::format_value(*v, out_info.precision));
      for (const auto& [name, v] : result.features.aggregates())
        std::cout << fmt::format("{}: {}\n", name, vqe::format_value(v, out_info.precision));
    } else if (output == "-") {
      vqe::write_output(std::cout, result.features, out_info);
    } else {
      // Write to memory first: no partial file is left behind on failure.
      std::ostringstream buffer;
      vqe::write_output(buffer, result.features, out_info);
      std::ofstream file(output, std::ios::binary);
      file << buffer.str();
      file.close();
      if (!file) throw vqe::Error(fmt::format("{}: cannot write the output file", output));
    }
  } catch (const vqe::Error& e) {
    std::cerr << "\nvqe: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "\nvqe: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
