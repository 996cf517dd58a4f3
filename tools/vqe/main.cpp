// SPDX-License-Identifier: BSD-2-Clause
// `vqe`: libvmaf-compatible command line for scoring a distorted video
// against its reference (several -d: a ladder; `vqe batch`: a manifest). Usage errors exit with status 1 and one line (as
// libvmaf's `vmaf`), so do bad inputs; the output file is prepared before
// the first frame and appears only when complete.

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <new>
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
  std::cerr << line << "\n";
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
  if (show_progress)
    config.on_progress = [&](unsigned n) {
      if (n % 10 && n > 1) return;
      const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::cerr << fmt::format("\r{} frame{} {:.2f} FPS\033[K", n, n == 1 ? " " : "s",
                               sec > 0 ? n / sec : 0.0);
      g_progress_open = true;
    };

  if (!s.ladder.empty()) {
    // Several -d: one reference read once for every encode, one output each.
    LadderInputs ladder = open_ladder_inputs(s, warn, note);
    const int status = run_ladder_command({std::move(ladder.reference), s.ladder,
                                           std::move(ladder.open_distorted), config, out_info,
                                           s.output, s.verbose});
    g_progress_open = false;
    return status;
  }

  Inputs inputs = open_inputs(s, warn, note);
  ResultOutput output(s, inputs);  // before the first frame is read

  JobResult result = run_job(*inputs.reference, *inputs.distorted, config);
  if (g_progress_open) print_line("");
  g_progress_open = false;
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (s.verbose) {
    const JobTimes& t = result.times;
    print_line(fmt::format(
        "time: {:.3f} s wall for {} frames; start {:.3f} s; calling thread: reading {:.3f} s, "
        "waiting for free frames {:.3f} s (computing {:.3f} s of it), waiting for readers "
        "{:.3f} s, in submit {:.3f} s; ordered (serial) parts {:.3f} s; prediction {:.3f} s",
        seconds, result.frames, t.start, t.read, t.wait_for_slots, t.help, t.wait_for_reads,
        t.submit, t.ordered, t.prediction));
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
    return run(parsed.settings);
  } catch (const UsageError& e) {
    print_line(fmt::format("vqe: error: {} (see vqe --help)", e.what()));
  } catch (const Error& e) {
    print_line(fmt::format("vqe: error: {}", e.what()));
  } catch (const std::bad_alloc&) {
    print_line("vqe: error: out of memory");
  } catch (const std::system_error& e) {
    // Threads that cannot start and the like: the system's limits.
    print_line(fmt::format("vqe: error: {}", e.what()));
  } catch (const std::exception& e) {
    print_line(fmt::format("vqe: internal error: {}", e.what()));
    return 3;
  }
  return 1;
}
