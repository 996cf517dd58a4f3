// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Scalar kernels of the floating-point ADM metric (libvmaf's float_adm).
///
/// Definition: libvmaf 3.2.0, libvmaf/src/feature/adm.c (compute_adm),
/// adm_tools.c / adm_tools.h (Daubechies-2 DWT, decoupling, CSF weighting,
/// contrast masking, Watson's DWT quantisation thresholds),
/// barten_csf_tools.h and adm_csf_tools.h (the alternative CSFs), and
/// float_adm.c. Precision (float vs double) and operation order follow
/// libvmaf's plain C path on x86-64, including its reciprocal-based division
/// in the decoupling step (see recip_divide()).

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "core/scratch_arena.h"

namespace vqe::float_adm {

/// Smallest frame side ADM accepts: every one of the four DWT levels must
/// leave bands of at least 2 × 2 samples (the masking reads one neighbour on
/// each side), which needs 17 samples at full resolution.
inline constexpr int kMinSide = 17;

/// Options of compute() (float_adm options of the same names).
struct AdmParams {
  double enhn_gain_limit = 100.0;
  double norm_view_dist = 3.0;
  int ref_display_height = 1080;
  int csf_mode = 0;                 ///< 0 Watson (and 3..9), 1 Barten, 2 ADM native
  double csf_luminance_level = 100.0;
  double csf_scale = 1.0;
  double csf_diag_scale = 1.0;
  double noise_weight = 0.03125;
  int bypass_cm = 0;
  double p_norm = 3.0;
  std::array<double, 4> f1{-1, -1, -1, -1};  ///< per-scale factor overrides, < 0 = unset
  std::array<double, 4> f2{-1, -1, -1, -1};
  int skip_aim_scale = -1;
  bool skip_scale0 = false;
  double border_factor = 0.1;
};

/// Result of one frame: per-scale float sums widened to double.
struct AdmResult {
  std::array<double, 4> num{};
  std::array<double, 4> den{};
  double num_total = 0;  ///< after libvmaf's small-value cut to 0
  double den_total = 0;
  double score = 1.0;    ///< adm2: num_total / den_total, or 1 when den_total is 0
  double score_aim = 0;  ///< min(aim_num / aim_den, 1); 0 when den_total is 0 (see .cpp)
};

/// CSF weights (factor1 for horizontal/vertical bands, factor2 for the
/// diagonal band) of DWT level `scale` (0..3), after the f1sN / f2sN
/// overrides. Exposed for tests.
void csf_factors(const AdmParams& params, int scale, float* factor1, float* factor2);

/// x / d as libvmaf's DIVS on x86-64: x * (r + r * (1 - d * r)) with
/// r = RCPSS(d) from rcp_model() (bit-exact with the reference CPU).
float recip_divide(float x, float d);

/// Multi-scale ADM on float planes. Construct once per frame size. The 28
/// band buffers (quarter planes; those of the odd scales about an eighth)
/// come from a ScratchArena, packed into 6 slots of about a plane each from
/// kScratchWork, so that they overlap the other float extractors' working
/// buffers of the same thread; compute() allocates nothing once reserve()
/// has sized the arena.
class AdmComputer {
 public:
  AdmComputer() = default;
  /// Prepares for w × h planes; requires w, h >= kMinSide.
  AdmComputer(int w, int h, const AdmParams& params);

  /// Sizes the band buffers in `arena` (call in init()).
  void reserve(ScratchArena& arena) const;

  /// Scores `ref` against `dis`: w × h floats (pixel value − 128, 8-bit
  /// units), row stride `stride` in floats, with the band buffers of
  /// `arena` (their contents before the call do not matter: every sample
  /// read is written first). `ref` and `dis` must not lie in those slots.
  AdmResult compute(const float* ref, const float* dis, std::ptrdiff_t stride,
                    ScratchArena& arena);

 private:
  struct Bands {
    float *a = nullptr, *h = nullptr, *v = nullptr, *d = nullptr;
  };
  static constexpr int kBandBuffers = 28;
  static constexpr std::size_t kBandsPerSlot = 4;
  void bind(ScratchArena& arena);
  void dwt(const float* src, std::ptrdiff_t sstride, int scale, bool low_only, Bands& out);

  int w_ = 0, h_ = 0;
  std::ptrdiff_t bstride_ = 0;  // stride of every band buffer, in floats
  std::size_t band_size_ = 0;   // floats in each band buffer of scales 0 and 2
  std::size_t slot_size_ = 0;   // floats in each arena slot used
  unsigned slots_ = 0;          // arena slots used, from kScratchWork
  // Each buffer's slot (from kScratchWork) and offset in floats, in bind()'s order.
  std::array<std::pair<unsigned, std::size_t>, kBandBuffers> places_{};
  AdmParams params_{};
  std::array<int, 4> sw_{}, sh_{};  // input size of each scale
  std::array<std::array<std::vector<int>, 4>, 4> ind_y_, ind_x_;
  Bands ref_[2], dis_[2];
  float *r_[3] = {}, *a_[3] = {}, *csf_a_[3] = {}, *csf_f_[3] = {};
  std::vector<float> tmplo_, tmphi_;
};

}  // namespace vqe::float_adm
