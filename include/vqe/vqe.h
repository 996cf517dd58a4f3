// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file VQE's C++ entry point: score a reference/distorted video pair.

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vqe/cpu.h"
#include "vqe/feature_collector.h"
#include "vqe/model.h"
#include "vqe/options.h"
#include "vqe/picture.h"

namespace vqe {

class VideoReader;

/// One extractor to run, by libvmaf extractor name ("psnr", "vif", ...) and
/// options ("enable_mse" -> "true").
struct FeatureRequest {
  std::string extractor;
  OptionValues options;
};

/// What to compute and how. Defaults match libvmaf's `vmaf` CLI.
struct JobConfig {
  /// VMAF models to predict per frame. Their features are extracted first
  /// (with the options the model asks for), then `features`.
  std::vector<Model> models;
  /// Features computed but not predicted (libvmaf -n with -m).
  bool no_prediction = false;
  std::vector<FeatureRequest> features;
  /// Worker threads. 0 computes everything on the calling thread; N >= 1
  /// runs the non-temporal extractors on N workers while the calling thread
  /// reads frames and runs the temporal ones (libvmaf's --threads: its pool
  /// also exists from 1 thread). At most 2N+2 frame pairs are in memory.
  /// Results are bit-identical for every value.
  unsigned threads = 0;
  /// Score every N-th frame (libvmaf --subsample). Temporal extractors
  /// (motion, psnr) still see every frame.
  unsigned subsample = 1;
  /// Stop after this many frames (0 = all).
  unsigned frame_cnt = 0;
  unsigned frame_skip_ref = 0;   ///< frames dropped from the reference's start
  unsigned frame_skip_dist = 0;  ///< frames dropped from the distorted's start
  /// Called on the calling thread after each frame is read (frames so far).
  std::function<void(unsigned)> on_progress;
  /// Called with warnings (e.g. one file ended first).
  std::function<void(const std::string&)> on_warning;

  /// Where extractors run. kCpu: all on the CPU. kCuda: every requested
  /// extractor with a CUDA implementation runs on GPU `gpu`, the others on
  /// the CPU in the same job (results identical either way; throws
  /// vqe::Error when the build has no CUDA backend or the device does not
  /// exist). kAuto: kCuda when a CUDA device is present, else kCpu (said
  /// through on_note).
  enum class Backend { kCpu, kCuda, kAuto };
  Backend backend = Backend::kCpu;
  /// CUDA device index for kCuda/kAuto (0-based, as --gpu).
  int gpu = 0;
  /// Highest CPU instruction-set level this job's kernels use (--cpu-level,
  /// --cpumask); the best this CPU has by default. The level belongs to
  /// this job only: jobs with other levels may run at the same time. Must
  /// be an available level (simd::is_available), else the job throws
  /// vqe::Error. Results are identical at every level.
  simd::Level cpu_level = simd::max_level();
  /// Called with informational notes (which backend runs which extractor);
  /// the CLI prints them with --verbose.
  std::function<void(const std::string&)> on_note;
};

/// Everything a job produced.
struct JobResult {
  VideoFormat format;          ///< shared format of both inputs
  unsigned frames = 0;         ///< frames scored (the common prefix)
  FeatureCollector features;   ///< per-frame values and aggregates
  /// Extractors that ran on the GPU (empty when none did).
  std::vector<std::string> gpu_extractors;
};

/// Throws vqe::Error unless `reference` and `distorted` have the same size,
/// bit depth and chroma format; the message names both values.
void check_pairable(const VideoReader& reference, const VideoReader& distorted);

/// Scores `distorted` against `reference` frame by frame. Frames stream
/// through a bounded pool (a few frames in flight, whatever the length).
/// Throws vqe::Error on mismatched formats, unreadable frames, unknown
/// features or extractors refusing the format; no partial result is returned.
/// When the files differ in length, the common prefix is scored and
/// `on_warning` says which ended first.
JobResult run_job(VideoReader& reference, VideoReader& distorted, const JobConfig& config);

}  // namespace vqe
