// SPDX-License-Identifier: BSD-2-Clause
// `vqe -r REF -d ENC1 -d ENC2 ... -o out_{name}.json`: see ladder.h.

#include "ladder.h"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "outputs.h"

namespace vqe::cli {

std::string ladder_output_path(const std::string& pattern, const std::string& distorted) {
  std::string name =
      distorted == "-" ? std::string("stdin") : distorted.substr(distorted.find_last_of('/') + 1);
  if (const std::size_t dot = name.find_last_of('.'); dot != std::string::npos && dot > 0)
    name.resize(dot);
  std::string path = pattern;
  for (std::size_t at = path.find("{name}"); at != std::string::npos;
       at = path.find("{name}", at + name.size()))
    path.replace(at, 6, name);
  return path;
}

int run_ladder_command(LadderCommand command) {
  const std::vector<std::string>& paths = command.distorted;
  const bool to_files = !command.output_pattern.empty();
  if (command.output_pattern == "-")
    throw vqe::Error("-o -: several -d write several outputs; give -o a path with {name}");
  if (to_files && command.output_pattern.find("{name}") == std::string::npos)
    throw vqe::Error(fmt::format(
        "-o {}: several -d write one output each; put {{name}} in the path (the distorted "
        "file's name without its extension), e.g. -o scores_{{name}}.json",
        command.output_pattern));
  // Every output is checked (and distinct, and none of the inputs) before
  // any frame is read.
  std::vector<std::unique_ptr<vqe::OutputFile>> outputs;
  if (to_files) {
    std::vector<vqe::ProtectedFile> protect;
    if (auto id = command.reference->identity())
      protect.push_back({command.reference->path(), *id});
    for (const std::string& d : paths)
      if (auto id = vqe::file_identity(d)) protect.push_back({d, *id});
    std::set<std::string> seen;
    for (const std::string& d : paths) {
      const std::string out = ladder_output_path(command.output_pattern, d);
      if (!seen.insert(out).second)
        throw vqe::Error(fmt::format("-o {}: two distorted files give the output {}",
                                     command.output_pattern, out));
      outputs.push_back(std::make_unique<vqe::OutputFile>(out, protect));
      watch_temporary(outputs.back()->temporary_path());
    }
  }
  // Whatever happens next (an error, the end), no temporary file is left
  // watched: each is committed or removed by its OutputFile.
  struct Unwatch {
    std::vector<std::unique_ptr<vqe::OutputFile>>& files;
    ~Unwatch() {
      for (auto& f : files) discard_watched(f);
    }
  } unwatch{outputs};
  std::vector<std::unique_ptr<vqe::FrameSource>> sources(paths.size());
  std::vector<std::string> open_errors(paths.size());
  std::vector<vqe::FrameSource*> readable;
  std::vector<std::size_t> readable_index;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    try {
      sources[i] = command.open(paths[i]);
      readable.push_back(sources[i].get());
      readable_index.push_back(i);
    } catch (const vqe::Error& e) {
      open_errors[i] = e.what();
    }
  }

  const auto t0 = std::chrono::steady_clock::now();
  std::vector<vqe::LadderOutcome> outcomes(paths.size());
  if (!readable.empty()) {
    auto scored = vqe::run_ladder(*command.reference, readable, command.config);
    for (std::size_t k = 0; k < scored.size(); ++k) outcomes[readable_index[k]] = std::move(scored[k]);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (command.config.on_progress) std::cerr << "\n";

  int status = 0;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string error = !open_errors[i].empty() ? open_errors[i] : outcomes[i].error;
    if (!outcomes[i].result) {
      // Messages about the file itself already start with its path.
      const bool named = error.rfind(paths[i] + ":", 0) == 0;
      std::cerr << terminal_safe(
          fmt::format("vqe: error: {}{}\n", named ? "" : paths[i] + ": ", error));
      status = 1;
      continue;
    }
    const vqe::JobResult& result = *outcomes[i].result;
    vqe::OutputInfo info = command.output;
    info.subsample = command.config.subsample;
    // The encode's own scaling, as a separate run states it.
    if (const std::string t = sources[i]->transform(); !t.empty())
      info.scale += fmt::format("{}distorted: {}", info.scale.empty() ? "" : "; ", t);
    info.width = result.format.width;
    info.height = result.format.height;
    info.fps = seconds > 0 ? result.frames / seconds : 0;
    info.version = std::string("vqe ") + VQE_VERSION;
    if (to_files) {
      // A write error (a full disk) fails this encode's output only: the
      // others, scored already, are still written.
      try {
        vqe::write_output(outputs[i]->stream(), result.features, info);
        outputs[i]->commit();
      } catch (const vqe::Error& e) {
        std::cerr << terminal_safe(fmt::format("vqe: error: {}\n", e.what()));
        status = 1;
        continue;
      }
      if (command.verbose)
        std::cerr << terminal_safe(fmt::format("{}: {}\n", paths[i], outputs[i]->path()));
    } else {
      std::cout << fmt::format("{}:\n", paths[i]);
      for (const std::string& name : result.features.names())
        if (auto v = result.features.pooled(name, vqe::PoolMethod::kMean, info.subsample))
          std::cout << fmt::format("  {}: {}\n", name, vqe::format_value(*v, info.precision));
      for (const auto& [name, v] : result.features.aggregates())
        std::cout << fmt::format("  {}: {}\n", name, vqe::format_value(v, info.precision));
    }
  }
  if (command.verbose)
    std::cerr << fmt::format("ladder: {} encodes in {:.3f} s\n", paths.size(), seconds);
  return status;
}

}  // namespace vqe::cli
