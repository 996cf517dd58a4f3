// SPDX-License-Identifier: BSD-2-Clause
// `vqe`: libvmaf-compatible command line for scoring a distorted video
// against its reference (several -d: a ladder; `vqe batch`: a manifest). Usage errors exit with status 1 and one line (as
// libvmaf's `vmaf`), so do bad inputs; the output file is prepared before
// the first frame and appears only when complete.

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <new>
#include <optional>
#include <system_error>

#include <fmt/format.h>

#include "batch.h"
#include "cli_options.h"
#include "inputs.h"
#include "job_setup.h"
#include "ladder.h"
#include "outputs.h"
#include "vqe/vqe.h"

namespace {

using namespace vqe;
using namespace vqe::cli;

// True while a progress line ("\r12 frames ...") ends without a newline:
// anything printed next starts on a line of its own.
bool g_progress_open = false;

void print_line(const std::string& line) {
  if (g_progress_open) std::cerr << "\n";
  g_progress_open = false;
  std::cerr << terminal_safe(line) << "\n";
}

// "1:02:03" or "2:03": a duration for the progress line.
std::string format_duration(double seconds) {
  const long t = std::lround(std::max(0.0, seconds));
  if (t >= 3600) return fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60);
  return fmt::format("{}:{:02}", t / 60, t % 60);
}

// Frames a job will score as far as the inputs' headers tell (0: unknown).
unsigned expected_frames(const FrameSource& ref, const FrameSource& dist, const Settings& s) {
  const auto left = [](unsigned hint, unsigned skip) -> long long {
    return hint == 0 ? -1 : std::max(0ll, static_cast<long long>(hint) - skip);
  };
  const long long r = left(ref.frame_count_hint(), s.frame_skip_ref);
  const long long d = left(dist.frame_count_hint(), s.frame_skip_dist);
  long long n = r < 0 ? d : d < 0 ? r : std::min(r, d);
  if (s.frame_cnt && (n < 0 || n > s.frame_cnt)) n = s.frame_cnt;
  return n > 0 ? static_cast<unsigned>(n) : 0;
}

int run(const Settings& s) {
  if (s.list_features) {
    std::cout << list_extractors_text();
    return 0;
  }
  JobConfig config = make_job_config(s);
  OutputInfo out_info;
  out_info.format = s.format;
  if (!s.precision.empty()) out_info.precision = parse_precision(s.precision);

  const WarningHandler warn = [](const std::string& w) { print_line("vqe: warning: " + w); };
  const WarningHandler note = [&s](const std::string& n) {
    if (s.verbose) print_line(n);
  };
  // Backend fallbacks are always said; where each extractor runs only with
  // --verbose.
  config.on_note = [&s](const std::string& n) {
    if (s.verbose || n.rfind("backend auto:", 0) == 0) print_line(n);
  };
  config.on_warning = warn;
  if (s.verbose) {
    for (const std::string& preset : s.presets) print_line("preset " + preset);
    for (const Model& m : config.models)
      print_line(fmt::format("model {} ({}){}", m.name(), m.origin(),
                             s.no_prediction ? ": features only (-n)" : ""));
    print_line(fmt::format("cpu level: {}", simd::level_name(config.cpu_level)));
  }

  const bool show_progress = !s.quiet && isatty(STDERR_FILENO);
  const auto t0 = std::chrono::steady_clock::now();
  // When the first frame pair was handed to the job (--verbose's steady
  // rate: the frames after it, without the start-up).
  std::optional<std::chrono::steady_clock::time_point> first_frame;
  // Frames to score as the headers tell (a container's frame count, a
  // file's size): the progress line shows the time left from it.
  unsigned total = 0;
  config.on_progress = [&](unsigned n) {
    if (n == 1) first_frame = std::chrono::steady_clock::now();
    if (!show_progress || (n % 10 && n > 1)) return;
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double fps = sec > 0 ? n / sec : 0.0;
    std::string line = total > 0 && n <= total
                           ? fmt::format("\r{}/{} frames {:.2f} FPS", n, total, fps)
                           : fmt::format("\r{} frame{} {:.2f} FPS", n, n == 1 ? " " : "s", fps);
    if (total > 0 && n <= total && fps > 0)
      line += fmt::format(", {} left", format_duration((total - n) / fps));
    std::cerr << line << "\033[K";
    g_progress_open = true;
  };

  if (!s.ladder.empty()) {
    // Several -d: one reference read once for every encode, one output each.
    if (!show_progress) config.on_progress = nullptr;  // (the ladder prints no steady rate)
    LadderInputs ladder = open_ladder_inputs(s, warn, note);
    if (!ladder.scale_note.empty() || !ladder.distorted_scale_note.empty())
      note("scale: " + ladder.scale_note +
           (ladder.scale_note.empty() || ladder.distorted_scale_note.empty() ? "" : "; ") +
           ladder.distorted_scale_note);
    out_info.scale = ladder.scale_note;
    const int status = run_ladder_command({std::move(ladder.reference), s.ladder,
                                           std::move(ladder.open_distorted), config, out_info,
                                           s.output, s.verbose});
    g_progress_open = false;
    return status;
  }

  Inputs inputs = open_inputs(s, warn, note);
  if (!inputs.scale_note.empty()) note("scale: " + inputs.scale_note);
  out_info.scale = inputs.scale_note;
  total = expected_frames(*inputs.reference, *inputs.distorted, s);
  ResultOutput output(s, inputs);  // before the first frame is read

  JobResult result = run_job(*inputs.reference, *inputs.distorted, config);
  if (g_progress_open) print_line("");
  g_progress_open = false;
  const auto t_end = std::chrono::steady_clock::now();
  const double seconds = std::chrono::duration<double>(t_end - t0).count();
  if (s.verbose) {
    const JobTimes& t = result.times;
    print_line(fmt::format(
        "time: {:.3f} s wall for {} frames; start {:.3f} s; calling thread: reading {:.3f} s, "
        "waiting for free frames {:.3f} s (computing {:.3f} s of it), waiting for readers "
        "{:.3f} s, in submit {:.3f} s; ordered (serial) parts {:.3f} s; prediction {:.3f} s",
        seconds, result.frames, t.start, t.read, t.wait_for_slots, t.help, t.wait_for_reads,
        t.submit, t.ordered, t.prediction));
    if (first_frame && result.frames > 1) {
      // Frames 2..N from the first frame's hand-over to the end (scores
      // ready): the rate without opening the inputs and starting the job.
      const double steady = std::chrono::duration<double>(t_end - *first_frame).count();
      print_line(fmt::format("steady: first frame after {:.3f} s; frames 2..{} in {:.3f} s "
                             "({:.1f} fps)",
                             std::chrono::duration<double>(*first_frame - t0).count(),
                             result.frames, steady, steady > 0 ? (result.frames - 1) / steady : 0));
    }
  }

  out_info.subsample = s.subsample;
  out_info.width = result.format.width;
  out_info.height = result.format.height;
  out_info.fps = seconds > 0 ? result.frames / seconds : 0;
  out_info.version = std::string("vqe ") + VQE_VERSION;
  output.write(result, out_info, config);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // `vqe batch MANIFEST ...`: the Python package's batch runner.
  if (argc > 1 && std::string(argv[1]) == "batch") return run_batch_command(argc - 2, argv + 2);
  try {
    ParseOutcome parsed = parse_command_line(argc, argv);
    if (parsed.print_and_exit) {
      std::cout << *parsed.print_and_exit;
      return 0;
    }
    Settings& s = parsed.settings;
    // One -d with {name} in -o or --html: the same pattern as a ladder's, so that one script
    // serves one encode or several.
    if (s.ladder.empty()) {
      for (std::string* path : {&s.output, &s.html})
        if (path->find("{name}") != std::string::npos)
          *path = ladder_output_path(*path, s.distorted);
    }
    return run(s);
  } catch (const UsageError& e) {
    print_line(fmt::format("vqe: error: {} (see vqe --help)", e.what()));
  } catch (const Error& e) {
    print_line(fmt::format("vqe: error: {}", e.what()));
  } catch (const std::bad_alloc&) {
    print_line("vqe: error: out of memory");
  } catch (const std::system_error& e) {
    // Threads that cannot start and the like: the system's limits. A thread
    // whose stack cannot be mapped (EAGAIN from pthread_create, e.g. under
    // `ulimit -v`) is memory running out, and is said so.
    if (e.code() == std::errc::resource_unavailable_try_again)
      print_line(fmt::format("vqe: error: out of memory (a thread could not start: {})", e.what()));
    else
      print_line(fmt::format("vqe: error: {}", e.what()));
  } catch (const std::exception& e) {
    print_line(fmt::format("vqe: internal error: {}", e.what()));
    return 3;
  }
  return 1;
}
