// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file VQE's C++ API in one include: the push-style job (vqe/job.h), frame
/// sources (vqe/io.h), output writers (vqe/output.h), models (vqe/model.h),
/// CPU levels (vqe/cpu.h), the extractors' descriptions (vqe/extractors.h),
/// and run_job(), which scores two frame sources.

#include "vqe/cpu.h"
#include "vqe/error.h"
#include "vqe/extractors.h"
#include "vqe/feature_collector.h"
#include "vqe/io.h"
#include "vqe/job.h"
#include "vqe/ladder.h"
#include "vqe/model.h"
#include "vqe/options.h"
#include "vqe/output.h"
#include "vqe/picture.h"
#include "vqe/report.h"

namespace vqe {

/// Throws vqe::Error unless `reference` and `distorted` have the same size,
/// bit depth and chroma format (the message names both values), and unless
/// they read separate inputs (check_separate_inputs).
void check_pairable(const FrameSource& reference, const FrameSource& distorted);

/// Scores `distorted` against `reference` frame by frame through a Job:
/// drops config.frame_skip_ref / frame_skip_dist leading frames, stops after
/// config.frame_cnt frames (0: all), and reads the distorted source on a
/// thread of its own when config.threads > 0. Throws vqe::Error on
/// mismatched formats, unreadable frames, unknown features or extractors
/// refusing the format; no partial result is returned. When the sources
/// differ in length, the common prefix is scored and config.on_warning says
/// which ended first.
JobResult run_job(FrameSource& reference, FrameSource& distorted, const JobConfig& config);

}  // namespace vqe
