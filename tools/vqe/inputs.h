// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Opening the two inputs: by content (Y4M or raw YUV with -w -h -p -b),
// never the same stream twice, -w/-h/-p/-b checked against Y4M headers, and
// the common bit depth of libvmaf's --aom_ctc v6.0 and later.

#include <functional>
#include <memory>
#include <string>

#include "cli_options.h"
#include "vqe/vqe.h"

namespace vqe::cli {

struct Inputs {
  std::unique_ptr<FrameSource> reference;
  std::unique_ptr<FrameSource> distorted;
  /// What --scale did (e.g. "distorted: scaled from 320x180 to 640x360
  /// (bicubic...)"), for the output and the report; empty when nothing.
  std::string scale_note;
};

/// Opens -r and -d, scaled as --scale asks. Throws vqe::Error when they are
/// one stream, when an input cannot be read, when a raw input lacks -w/-h,
/// when -w/-h/-p/-b contradict a Y4M header, when the sizes differ without
/// --scale (the message suggests it), or when the formats differ (bit depths may differ under a
/// preset's common bit depth: the shallower input is shifted up). Warnings
/// (raw options that a Y4M header made unneeded, unknown interlacing) go to
/// `warn`; `note` hears what --verbose prints.
Inputs open_inputs(const Settings& settings, const WarningHandler& warn,
                   const WarningHandler& note);

/// A ladder's inputs (several -d): the reference, opened now, and how each
/// distorted video is opened.
struct LadderInputs {
  std::unique_ptr<FrameSource> reference;
  /// What --scale does to the reference, for every output (each output
  /// adds its encode's own, as a separate run's does); empty when nothing.
  std::string scale_note;
  /// What --scale does to the encodes, in general (for the --verbose note);
  /// empty without --scale.
  std::string distorted_scale_note;
  /// Opens one -d as open_inputs() opens a distorted video (throws
  /// vqe::Error likewise, also for another size without --scale); under a
  /// preset's common bit depth a shallower encode is shifted up to the
  /// reference's bit depth.
  std::function<std::unique_ptr<FrameSource>(const std::string&)> open_distorted;
};

/// Opens the reference of a ladder (settings.ladder) and prepares the
/// opening of each distorted video. Throws vqe::Error as open_inputs().
LadderInputs open_ladder_inputs(const Settings& settings, const WarningHandler& warn,
                                const WarningHandler& note);

}  // namespace vqe::cli
