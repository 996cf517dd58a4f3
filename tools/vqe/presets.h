// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// libvmaf's command-line presets: `--aom_ctc v1.0 … v7.0` (the AOM common
// test conditions) and `--nflx_ctc v1.0`, as libvmaf 3.2.0 defines them
// (Netflix/vmaf f85a8536, libvmaf/tools/cli_parse.c).

#include <string>

#include "cli_options.h"

namespace vqe::cli {

/// Adds what `--aom_ctc <version>` adds, where it appears on the command
/// line: models vmaf_v0.6.1 (as "vmaf") and vmaf_v0.6.1neg (as
/// "vmaf_neg"); features psnr (reduced_hbd_peak, enable_apsnr,
/// min_sse=0.5), ciede, float_ssim and float_ms_ssim (enable_db, clip_db)
/// and psnr_hvs; from v3.0 cambi; from v6.0 a common bit depth; in v7.0
/// float_ssim at scale=1, replacing the float_ssim request already there.
/// Throws UsageError for an unknown version (and for "proposed", which
/// libvmaf retired).
void apply_aom_ctc(const std::string& version, Settings& settings);

/// Adds what `--nflx_ctc v1.0` adds: models vmaf_4k_v0.6.1 (as "vmaf") and
/// vmaf_4k_v0.6.1neg (as "vmaf_neg"); features psnr (enable_chroma,
/// enable_apsnr), float_ssim (enable_db, clip_db) and cambi. Throws
/// UsageError for another version.
void apply_nflx_ctc(const std::string& version, Settings& settings);

}  // namespace vqe::cli
