// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Row kernels of the integer ADM (integer_adm.h):
/// - `vqe::adm::kernels::*`: the scalar reference (integer_adm.cpp), the
///   plain C path of libvmaf 3.2.0 (libvmaf/src/feature/integer_adm.c);
/// - `AdmDsp`: the same kernels for one CPU level (core/simd.h), with the
///   same signatures and the same results bit for bit: the scalar ones at
///   Level::scalar, Highway SIMD versions (adm_simd.cpp) above.
///
/// Bands are rows of samples (int16 at DWT level 0, int32 at levels 1-3);
/// widths and indices are in samples. Kernels allocate nothing and never
/// throw. Any int16/int32 input is accepted (the reference's wrap-around is
/// reproduced), except that the level 1-3 decoupling needs |band| <= 2^30
/// (beyond, the reference's int64 angle products overflow).

#include <cstdint>

#include "vqe/cpu.h"

namespace vqe::adm {

/// Everything one decoupling row kernel reads and writes: reference (o*) and
/// distorted (t*) h, v, d bands, restored (r*) and additive (a*) outputs.
template <typename T>
struct DecoupleRow {
  const T *oh, *ov, *od;
  const T *th, *tv, *td;
  T *rh, *rv, *rd;
  T *ah, *av, *ad;
};

/// The masker terms and the target of one contrast-masking row: `mask[0..2]`
/// are the mask-sum rows above/at/below (already border-mirrored), `centre`
/// the centre-sum row, `x[0..2]` the target's h, v, d rows. Every row is
/// `width` samples long.
template <typename T>
struct MaskRow {
  const std::int32_t* mask[3];
  const std::int32_t* centre;
  const T* x[3];
  int width;
};

/// libvmaf's div_lookup: Q30 reciprocals 2^30 / i at index i + 32768 for i in
/// -32768..32768 (0 at i = 0). Built once; 65537 entries.
const std::int32_t* reciprocal_table_q30();

/// libvmaf's angle test of the decoupling (see integer_adm.cpp): true when
/// (oh, ov) and (th, tv) are within 1 degree, with its int64 -> float ->
/// double arithmetic.
bool within_one_degree(std::int64_t oh, std::int64_t ov, std::int64_t th, std::int64_t tv,
                       float cos_1deg_sq);

// The kernels (scalar references in namespace kernels, AdmDsp's members):
//
// dwt0_vertical_*: DWT level 0, vertical pass of one output row: rows[0..3]
//   are the input rows at taps 2i-1..2i+2 (mirrored), w samples each, bit
//   depth 8 (u8) or 10/12/16 (u16). Writes w low-pass and w high-pass int16.
// dwt0_horizontal: DWT level 0, horizontal pass: lo/hi are readable at
//   indices -1 .. 2*half_w (the caller stores the mirrored taps lo[-1] =
//   lo[1], lo[w] = lo[w-1], lo[w+1] = lo[w-2]); writes half_w samples of the
//   a (LL), v (LH), h (HL) and d (HH) bands.
// dwt1_vertical: level 1, vertical pass (int16 LL input, exact in 32 bits).
// dwt23_vertical: levels 2-3, vertical pass: int64 sums, +2^15 >> 16,
//   truncated to int32.
// dwt123_horizontal: levels 1-3, horizontal pass (padded like
//   dwt0_horizontal): int64 sums, + 2^(shift-1) >> shift (shift 15 or 16),
//   truncated to int32.
// decouple0_row / decouple123_row: decoupling of samples begin..end-1.
// csf0_row / csf123_row: masker terms of samples begin..end-1: mask = sum
//   over h, v, d of |csf|/30 and centre = sum of |csf|/15 (libvmaf's
//   roundings), csf = fixed-point weight x band.
// masked0_row / masked123_row: contrast masking of samples begin..end-1
//   (0 <= begin < end <= width): adds the row's sums of rounded cubes per
//   orientation to inner[0..2] (not rounded per row).
// den0_row / den123_row: denominator row sums: level 0 sum of |x|^3, levels
//   1-3 sum of ((((m*m + 2^shift_sq) >> shift_sq) * m + round) >> shift_cub).
#define VQE_ADM_ROW_KERNELS                                                                     \
  void dwt0_vertical_u8(const std::uint8_t* const rows[4], int w, int bit_depth,             \
                        std::int16_t* lo, std::int16_t* hi);                                 \
  void dwt0_vertical_u16(const std::uint16_t* const rows[4], int w, int bit_depth,           \
                         std::int16_t* lo, std::int16_t* hi);                                \
  void dwt0_horizontal(const std::int16_t* lo, const std::int16_t* hi, int half_w,           \
                       std::int16_t* a, std::int16_t* v, std::int16_t* h, std::int16_t* d);   \
  void dwt1_vertical(const std::int16_t* const rows[4], int w, std::int32_t* lo,             \
                     std::int32_t* hi);                                                      \
  void dwt23_vertical(const std::int32_t* const rows[4], int w, std::int32_t* lo,            \
                      std::int32_t* hi);                                                     \
  void dwt123_horizontal(const std::int32_t* lo, const std::int32_t* hi, int half_w,         \
                         int shift, std::int32_t* a, std::int32_t* v, std::int32_t* h,       \
                         std::int32_t* d);                                                   \
  void decouple0_row(const DecoupleRow<std::int16_t>& r, int begin, int end,                 \
                     float cos_1deg_sq, double gain);                                        \
  void decouple123_row(const DecoupleRow<std::int32_t>& r, int begin, int end,               \
                       float cos_1deg_sq, double gain);                                      \
  void csf0_row(const std::int16_t* h, const std::int16_t* v, const std::int16_t* d,         \
                int begin, int end, const std::uint16_t fixed[3], std::int32_t* mask,        \
                std::int32_t* centre);                                                       \
  void csf123_row(const std::int32_t* h, const std::int32_t* v, const std::int32_t* d,       \
                  int begin, int end, const std::uint32_t fixed[3], std::int32_t* mask,      \
                  std::int32_t* centre);                                                     \
  void masked0_row(const MaskRow<std::int16_t>& r, int begin, int end,                       \
                   const std::uint16_t fixed[3], const std::uint32_t cub_shift[3],           \
                   std::int64_t inner[3]);                                                   \
  void masked123_row(const MaskRow<std::int32_t>& r, int begin, int end,                     \
                     const std::uint32_t fixed[3], std::uint32_t cub_shift,                  \
                     std::int64_t inner[3]);                                                 \
  std::uint64_t den0_row(const std::int16_t* row, int begin, int end);                       \
  std::uint64_t den123_row(const std::int32_t* row, int begin, int end,                      \
                           std::uint32_t shift_sq, std::uint32_t shift_cub);

namespace kernels {
VQE_ADM_ROW_KERNELS
}  // namespace kernels

#undef VQE_ADM_ROW_KERNELS

/// The row kernels of one CPU level (see the list above).
struct AdmDsp {
  void (*dwt0_vertical_u8)(const std::uint8_t* const rows[4], int w, int bit_depth,
                           std::int16_t* lo, std::int16_t* hi);
  void (*dwt0_vertical_u16)(const std::uint16_t* const rows[4], int w, int bit_depth,
                            std::int16_t* lo, std::int16_t* hi);
  void (*dwt0_horizontal)(const std::int16_t* lo, const std::int16_t* hi, int half_w,
                          std::int16_t* a, std::int16_t* v, std::int16_t* h, std::int16_t* d);
  void (*dwt1_vertical)(const std::int16_t* const rows[4], int w, std::int32_t* lo,
                        std::int32_t* hi);
  void (*dwt23_vertical)(const std::int32_t* const rows[4], int w, std::int32_t* lo,
                         std::int32_t* hi);
  void (*dwt123_horizontal)(const std::int32_t* lo, const std::int32_t* hi, int half_w,
                            int shift, std::int32_t* a, std::int32_t* v, std::int32_t* h,
                            std::int32_t* d);
  void (*decouple0_row)(const DecoupleRow<std::int16_t>& r, int begin, int end,
                        float cos_1deg_sq, double gain);
  void (*decouple123_row)(const DecoupleRow<std::int32_t>& r, int begin, int end,
                          float cos_1deg_sq, double gain);
  void (*csf0_row)(const std::int16_t* h, const std::int16_t* v, const std::int16_t* d,
                   int begin, int end, const std::uint16_t fixed[3], std::int32_t* mask,
                   std::int32_t* centre);
  void (*csf123_row)(const std::int32_t* h, const std::int32_t* v, const std::int32_t* d,
                     int begin, int end, const std::uint32_t fixed[3], std::int32_t* mask,
                     std::int32_t* centre);
  void (*masked0_row)(const MaskRow<std::int16_t>& r, int begin, int end,
                      const std::uint16_t fixed[3], const std::uint32_t cub_shift[3],
                      std::int64_t inner[3]);
  void (*masked123_row)(const MaskRow<std::int32_t>& r, int begin, int end,
                        const std::uint32_t fixed[3], std::uint32_t cub_shift,
                        std::int64_t inner[3]);
  std::uint64_t (*den0_row)(const std::int16_t* row, int begin, int end);
  std::uint64_t (*den123_row)(const std::int32_t* row, int begin, int end,
                              std::uint32_t shift_sq, std::uint32_t shift_cub);
};

/// How the SIMD decoupling kernels form libvmaf's reciprocals 2^30 / i: read
/// from the table with vector gathers, or by an exact double division. The
/// results are identical; which is faster depends on the CPU.
enum class ReciprocalPath {
  best,    ///< the faster on this CPU, as measured (adm_simd.cpp)
  gather,  ///< table lookups (gathers; plain loads where there are none)
  divide,  ///< double divisions
};

/// The table of `level` (filled once; valid for the process's lifetime).
/// `path` chooses the decoupling kernels' reciprocals; tests check both.
const AdmDsp& adm_dsp(simd::Level level, ReciprocalPath path = ReciprocalPath::best);

}  // namespace vqe::adm
