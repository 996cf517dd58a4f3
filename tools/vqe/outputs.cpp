// SPDX-License-Identifier: BSD-2-Clause
#include "outputs.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/format.h>

namespace vqe::cli {
namespace {

// The temporary files a signal handler removes (-o and --html, or a
// ladder's outputs). The handler reads an immutable list through one atomic
// pointer and calls only unlink(), so it is async-signal-safe; the main
// thread replaces the whole list on every change.
struct PendingList {
  std::vector<std::string> paths;
  std::vector<const char*> c_paths;  // paths' c_str(), what the handler reads
};
std::atomic<const PendingList*> g_pending{nullptr};
static_assert(std::atomic<const PendingList*>::is_always_lock_free);
std::vector<std::string> g_watched;                     // main thread only
std::vector<std::unique_ptr<PendingList>> g_published;  // every list since the last empty one
// The signals whose default action ends the process (core dumps aside).
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGALRM,
                            SIGUSR1, SIGUSR2, SIGXCPU, SIGXFSZ};
struct sigaction g_previous[std::size(kSignals)];
bool g_handled[std::size(kSignals)];

extern "C" void remove_pending_and_die(int sig) {
  if (const PendingList* list = g_pending.load())
    for (const char* path : list->c_paths) ::unlink(path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

// Publishes g_watched as the handler's list.
void publish_watched() {
  auto list = std::make_unique<PendingList>();
  list->paths = g_watched;
  for (const std::string& path : list->paths) list->c_paths.push_back(path.c_str());
  g_pending.store(list.get());
  g_published.push_back(std::move(list));
}

}  // namespace

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out.push_back(ch);
  }
  return out;
}

void watch_temporary(const std::string& temporary) {
  if (temporary.empty()) return;
  if (g_watched.empty()) {
    struct sigaction action {};
    action.sa_handler = remove_pending_and_die;
    sigemptyset(&action.sa_mask);
    for (std::size_t i = 0; i < std::size(kSignals); ++i) {
      // A signal the caller ignores (nohup's SIGHUP, a shell's SIGPIPE)
      // stays ignored.
      g_handled[i] = ::sigaction(kSignals[i], nullptr, &g_previous[i]) == 0 &&
                     g_previous[i].sa_handler != SIG_IGN;
      if (g_handled[i]) ::sigaction(kSignals[i], &action, nullptr);
    }
  }
  g_watched.push_back(temporary);
  publish_watched();
}

void unwatch_temporary(const std::string& temporary) {
  const auto it = std::find(g_watched.begin(), g_watched.end(), temporary);
  if (it == g_watched.end()) return;
  g_watched.erase(it);
  if (!g_watched.empty()) {
    publish_watched();
    return;
  }
  g_pending.store(nullptr);
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    if (g_handled[i]) ::sigaction(kSignals[i], &g_previous[i], nullptr);
  g_published.clear();  // no handler of ours can start now
}

ResultOutput::ResultOutput(const Settings& settings, const Inputs& inputs) : settings_(settings) {
  if (settings.output.empty() && settings.html.empty()) return;
  std::vector<ProtectedFile> protect;
  for (const FrameSource* input : {inputs.reference.get(), inputs.distorted.get()})
    if (auto id = input->identity()) protect.push_back({input->path(), *id});
  if (!settings.html.empty() && !html_report_available())
    throw Error("--html: this build has no HTML report (build with Debian's libjs-chart.js)");
  if (!settings.output.empty()) {
    file_.emplace(settings.output, protect);
    watch_temporary(file_->temporary_path());
  }
  if (!settings.html.empty()) {
    html_.emplace(settings.html, protect);
    watch_temporary(html_->temporary_path());
  }
}

ResultOutput::~ResultOutput() {
  // Removes the temporary files unless committed.
  for (std::optional<OutputFile>* f : {&file_, &html_}) discard_watched(*f);
}

void ResultOutput::write(const JobResult& result, const OutputInfo& info,
                         const JobConfig& config) {
  if (html_) write_report(result, info, config);
  if (!file_) {
    // No output file: each feature's pooled mean, as a quick look.
    for (const std::string& name : result.features.names())
      if (auto v = result.features.pooled(name, PoolMethod::kMean, info.subsample))
        std::cout << fmt::format("{}: {}\n", name, format_value(*v, info.precision));
    for (const auto& [name, v] : result.features.aggregates())
      std::cout << fmt::format("{}: {}\n", name, format_value(v, info.precision));
    std::cout.flush();
    return;
  }
  std::cout.flush();  // "-" shares the descriptor with std::cout
  write_output(file_->stream(), result.features, info);
  const std::string temporary = file_->temporary_path();
  file_->commit();
  unwatch_temporary(temporary);
}

void ResultOutput::write_report(const JobResult& result, const OutputInfo& info,
                                const JobConfig& config) {
  const Settings& s = settings_;
  ReportInfo report;
  report.title = fmt::format("{} against {}", s.distorted, s.reference);
  report.subsample = info.subsample;
  if (!s.no_prediction)
    for (const Model& m : config.models) report.shown.push_back(m.name());
  report.settings = {{"reference", s.reference},
                     {"distorted", s.distorted},
                     {"frames", std::to_string(result.frames)},
                     {"size", fmt::format("{}x{} {}-bit {}", result.format.width,
                                          result.format.height, result.format.bit_depth,
                                          to_string(result.format.chroma))}};
  if (!info.scale.empty()) report.settings.emplace_back("scale", info.scale);
  for (const std::string& preset : s.presets) report.settings.emplace_back("preset", preset);
  for (const Model& m : config.models)
    report.settings.emplace_back("model", fmt::format("{} ({})", m.name(), m.origin()));
  for (const std::string& f : s.features) report.settings.emplace_back("feature", f);
  report.settings.emplace_back("backend", s.backend.empty() ? "cpu" : s.backend);
  report.settings.emplace_back("threads", std::to_string(s.threads));
  if (info.subsample > 1) report.settings.emplace_back("subsample", std::to_string(info.subsample));
  report.settings.emplace_back("version", info.version);
  write_html_report(html_->stream(), result.features, report);
  const std::string temporary = html_->temporary_path();
  html_->commit();
  unwatch_temporary(temporary);
}

}  // namespace vqe::cli
