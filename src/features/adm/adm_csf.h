// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Contrast-sensitivity weights of libvmaf's integer ADM, per DWT scale
/// and orientation, in libvmaf's float/double arithmetic (from
/// libvmaf/src/feature/integer_adm.c `dwt_quant_step`, integer_adm.h and
/// barten_csf_tools.h).

#include <cstdint>

namespace vqe::adm {

/// libvmaf's `adm_csf_mode` values.
enum class CsfMode : int {
  kWatson97 = 0,              ///< 1 / quantisation step of Watson et al. 1997
  kBarten = 1,                ///< Barten's CSF as simplified in HDR-VDP-2
  kBartenWatsonBlend = 2,     ///< tabulated blend (v1.0.16 models)
  kBartenWatsonBlendMae = 3,  ///< tabulated blend with the v1.0.17 fix
};

/// Viewing condition and CSF choice that fix the weights.
struct CsfParams {
  double norm_view_dist = 3.0;     ///< viewing distance / display height
  int ref_display_height = 1080;   ///< display height in pixels
  CsfMode mode = CsfMode::kWatson97;
  double csf_scale = 1.0;          ///< Barten only: scale of the h/v weight
  double csf_diag_scale = 1.0;     ///< Barten only: scale of the diagonal weight
};

/// CSF weight (libvmaf's `rfactor`) of DWT scale `scale` (0 = finest .. 3)
/// for the horizontal/vertical bands (`diagonal` false) or the diagonal band.
/// Returns libvmaf's float value. For the blend modes an unsupported viewing
/// condition returns -EINVAL (-22.0f) as libvmaf does; check
/// blend_table_available() first.
float csf_weight(const CsfParams& p, int scale, bool diagonal);

/// True when the blend modes have a table for this viewing condition
/// (display heights 480/720/1080/2160 at 3 or 5 heights, and 2160 at 1.5).
/// Always true for the Watson and Barten modes.
bool blend_table_available(const CsfParams& p);

/// libvmaf's `(uint16_t)(double)` on x86-64 (gcc): the value is truncated to
/// a 32-bit signed integer (0x80000000 when out of range or NaN) whose low 16
/// bits are kept. Used for the scale-0 fixed-point weights, which overflow
/// 16 bits in Barten mode.
std::uint16_t x86_double_to_u16(double v);

/// libvmaf's `(uint32_t)(double)` on x86-64 (gcc): truncation to a 64-bit
/// signed integer (0x8000000000000000 when out of range or NaN), low 32 bits.
std::uint32_t x86_double_to_u32(double v);

}  // namespace vqe::adm
