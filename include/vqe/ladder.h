// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Ladders: one reference scored against several distorted versions
/// (the encodes of a bitrate ladder), the reference read once.

#include <optional>
#include <string>
#include <vector>

#include "vqe/io.h"
#include "vqe/job.h"

namespace vqe {

/// What one encode of a ladder gave: its result, or why it has none.
struct LadderOutcome {
  std::optional<JobResult> result;  ///< set when the encode was scored
  std::string error;                ///< the vqe::Error message otherwise (empty on success)
};

/// Scores every source of `distorted` against `reference`, reading the
/// reference once: each frame of the reference is read (only the planes the
/// extractors need) into one picture that every encode's Job holds
/// (JobFrame::share_reference), and the encodes' jobs share the work that
/// depends on the reference alone (a ReferenceShare: integer motion, integer
/// VIF's reference statistics and integer ADM's reference DWT are computed
/// once per frame for the whole ladder). Each
/// outcome's values are the same bits as run_job(reference, distorted[i],
/// config) gives; only JobResult::times differ.
///
/// `config` is every encode's job configuration, except that config.threads
/// is the ladder's total: it is split evenly between the encodes, each job
/// getting at least one worker (0 computes everything on the calling thread).
/// frame_skip_dist applies to every distorted source; config.on_progress is
/// called with the reference frames read; config.on_warning names the file
/// that ended first, per encode, as run_job does.
///
/// A problem of one encode (another size, bit depth or chroma format than
/// the reference, a truncated or malformed file, too few frames to skip, no
/// frame) ends that encode only: its outcome carries the message and the
/// others go on. A problem of the reference or of the configuration
/// (unreadable frames, unknown features, a frame size an extractor refuses)
/// throws vqe::Error, as run_job does. Returns one outcome per distorted
/// source, in order. `distorted` must not be empty or hold null pointers.
std::vector<LadderOutcome> run_ladder(FrameSource& reference,
                                      const std::vector<FrameSource*>& distorted,
                                      const JobConfig& config);

}  // namespace vqe
