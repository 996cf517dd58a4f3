// SPDX-License-Identifier: BSD-2-Clause
#include "outputs.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>
#include <iostream>

#include <fmt/format.h>

namespace vqe::cli {
namespace {

// The temporary file a signal handler removes (async-signal-safe: a fixed
// buffer and unlink()).
char g_pending[4096];
volatile sig_atomic_t g_has_pending = 0;
constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction g_previous[std::size(kSignals)];

extern "C" void remove_pending_and_die(int sig) {
  if (g_has_pending) ::unlink(g_pending);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void watch(const std::string& temporary) {
  if (temporary.empty() || temporary.size() >= sizeof(g_pending)) return;
  std::memcpy(g_pending, temporary.c_str(), temporary.size() + 1);
  g_has_pending = 1;
  struct sigaction action {};
  action.sa_handler = remove_pending_and_die;
  sigemptyset(&action.sa_mask);
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    ::sigaction(kSignals[i], &action, &g_previous[i]);
}

void unwatch() {
  if (!g_has_pending) return;
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    ::sigaction(kSignals[i], &g_previous[i], nullptr);
  g_has_pending = 0;
}

}  // namespace

ResultOutput::ResultOutput(const Settings& settings, const Inputs& inputs) {
  if (settings.output.empty()) return;
  std::vector<ProtectedFile> protect;
  for (const FrameSource* input : {inputs.reference.get(), inputs.distorted.get()})
    if (auto id = input->identity()) protect.push_back({input->path(), *id});
  file_.emplace(settings.output, protect);
  watch(file_->temporary_path());
}

ResultOutput::~ResultOutput() {
  file_.reset();  // removes the temporary file unless committed
  unwatch();
}

void ResultOutput::write(const JobResult& result, const OutputInfo& info) {
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
  file_->commit();
  unwatch();
}

}  // namespace vqe::cli
