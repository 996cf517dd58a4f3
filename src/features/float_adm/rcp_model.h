// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Software model of the x86 SSE RCPSS reciprocal approximation.
///
/// libvmaf's adm_tools.c divides with DIVS(n, d) = n * rcp_s(d) whenever
/// __SSE2__ is defined (every x86-64 build, including its "plain C" path),
/// where rcp_s refines _mm_rcp_ss(d) with one Newton step. The refined value
/// still depends on the bits RCPSS returns, which the ISA leaves to the CPU
/// (relative error <= 1.5 * 2^-12) and which may differ between CPU
/// implementations. This model reproduces the RCPSS of the AMD EPYC hosts
/// of this project bit for bit (checked over all 2^32 inputs); with it the
/// reference values in ../shared are matched exactly (with a true division
/// they differ by up to 2e-7 relative). VQE never uses the instruction, so
/// float_adm gives the same numbers on every machine and architecture.

#include <cstdint>

namespace vqe::float_adm {

/// RCPSS(d) as the reference CPU computes it:
/// - d = ±0 or subnormal: ±infinity;
/// - |d| >= 2^126 (reciprocal below the normal range): ±0;
/// - ±infinity: ±0; NaN: the NaN, quieted;
/// - otherwise sign(d) · 2^(-e-1) · (1 + T[m] / 4096), where e is d's
///   unbiased exponent and T[m] a 12-bit table entry indexed by the top
///   12 bits m of d's mantissa (kRcpTable, measured on the reference CPU).
float rcp_model(float d);

/// Output mantissa bits 22..11 of RCPSS for an input 1 + m / 4096
/// (m = 0..4095; the lower 11 input mantissa bits are ignored).
extern const std::uint16_t kRcpTable[4096];

}  // namespace vqe::float_adm
