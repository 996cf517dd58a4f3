// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Luma code value -> display luminance, for CAMBI's visibility
/// thresholds. Definitions follow libvmaf 3.2.0 libvmaf/src/feature/
/// luminance_tools.c (BT.1886 with Lw = 300 cd/m², Lb = 0.01 cd/m², gamma 2.4;
/// SMPTE ST 2084 "PQ").

#include <string>

namespace vqe::cambi {

/// Code values that map to black (`foot`) and peak white (`head`).
struct LumaRange {
  int foot = 0;
  int head = 0;
};

/// Limited ("TV") range at `bit_depth` bits: [16, 235] scaled by 2^(bit_depth-8).
LumaRange limited_luma_range(int bit_depth);
/// Full range at `bit_depth` bits: [0, 2^bit_depth - 1].
LumaRange full_luma_range(int bit_depth);

/// Electro-optical transfer function: normalised signal V in [0, 1] ->
/// luminance in cd/m².
using Eotf = double (*)(double v);

/// BT.1886 EOTF (libvmaf's vmaf_luminance_bt1886_eotf).
double bt1886_eotf(double v);
/// SMPTE ST 2084 (PQ) EOTF, peak 10000 cd/m² (libvmaf's vmaf_luminance_pq_eotf).
double pq_eotf(double v);

/// The EOTF named "bt1886" or "pq"; nullptr for any other name.
Eotf eotf_by_name(const std::string& name);

/// Luminance of code value `sample`: clipped to [foot, head], normalised to
/// [0, 1], then passed through `eotf`.
double luminance(int sample, LumaRange range, Eotf eotf);

}  // namespace vqe::cambi
