// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// From Settings to a vqe::JobConfig: models, features, CPU level, backend.

#include <string>

#include "cli_options.h"
#include "vqe/vqe.h"

namespace vqe::cli {

/// The job the command line asks for (models with presets and the default
/// model, features, CPU level from --cpu-level/--cpumask, backend from
/// --backend/--gpumask/--gpu, threads, frame range). Throws UsageError for
/// conflicting options and vqe::Error for a model or feature the library
/// refuses (unknown name, bad option, name collision), before any file is
/// opened.
JobConfig make_job_config(const Settings& settings);

/// How compressed input is decoded (--hwdec, --backend, --gpu): with
/// --hwdec auto, NVDEC on the --gpu device when the job computes on CUDA
/// (--backend cuda), one pair and no --scale (which scales frames in host
/// memory); `note` hears why not otherwise, and the decoders' own notes.
/// --hwdec nvdec requires NVDEC, --hwdec none decodes on the CPU.
DecodeOptions make_decode_options(const Settings& settings, const WarningHandler& note);

/// --list-features: every extractor with its options.
std::string list_extractors_text();

}  // namespace vqe::cli
