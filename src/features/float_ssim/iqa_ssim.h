// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Scalar SSIM building blocks shared by float_ssim and float_ms_ssim.
///
/// These reproduce libvmaf's copy of the IQA library (libvmaf/src/feature/
/// iqa/{convolve,decimate,ssim_tools}.c, ssim.c, ms_ssim.c) with the same
/// float/double mix and summation order, so results agree with libvmaf to the
/// last bit on the plain C path:
///   - an 11×11 Gaussian window applied separably (1-D taps, float products
///     accumulated in double, rounded to float per pass) over the *valid*
///     region only: a W×H image gives (W−10)×(H−10) local statistics;
///   - per-pixel luminance, contrast and structure terms with K1 = 0.01,
///     K2 = 0.03, L = 255 (so inputs are on an 8-bit scale at every depth);
///   - decimation by symmetric-boundary 2-D filtering sampled every
///     `factor` pixels, output size W/factor + (W&1) (libvmaf's formula, kept
///     as is even for factors above 2).
/// Images are dense float arrays, row-major, stride = width (in samples).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vqe/cpu.h"
#include "vqe/picture.h"
#include "core/scratch_arena.h"
#include "core/tiles.h"

namespace vqe::iqa {

/// Side of libvmaf's SSIM Gaussian window (iqa/ssim_tools.h GAUSSIAN_LEN).
inline constexpr int kGaussianLen = 11;

/// 1-D taps of the 11-point Gaussian window (sigma 1.5) as libvmaf types them
/// (iqa/ssim_tools.h g_gaussian_window_h / _v, identical).
inline constexpr float kGaussianTaps[kGaussianLen] = {
    0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f,
    0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f};

/// Means of the per-pixel SSIM terms over the valid region, each rounded to
/// float as libvmaf's _iqa_ssim returns them.
struct SsimMeans {
  float ssim = 0;       ///< mean of l·c·s
  float luminance = 0;  ///< mean of l
  float contrast = 0;   ///< mean of c
  float structure = 0;  ///< mean of s
};

/// The means of the map sums over `count` pixels, each rounded to float as
/// libvmaf's _iqa_ssim returns them (shared by the scalar and SIMD paths).
SsimMeans ssim_means(double ssim_sum, double l_sum, double c_sum, double s_sum, int count);

/// Scratch buffers for ssim_gaussian() on images up to a given size. The
/// six image-size maps come from a ScratchArena (slots kScratchWork to
/// kScratchWork + 5): an extractor's shared arena, so that they overlap the
/// other extractors' working buffers of the same thread, or the workspace's
/// own. The buffers are the kernels' working memory (read and written by the
/// scalar and SIMD entry points of IqaDsp); callers only reserve().
struct SsimWorkspace {
  /// Sizes the buffers for images of `width` × `height` samples with
  /// width, height >= kGaussianLen (throws vqe::Error otherwise), taking the
  /// maps from `arena` (null: the workspace's own). Call it in init() to
  /// size the arena and again before each ssim_gaussian(): another user of
  /// the arena may have grown (moved) the slots since. Allocates only when
  /// the slots are smaller than asked.
  void reserve(int width, int height, ScratchArena* arena = nullptr);
  int width() const { return width_; }
  int height() const { return height_; }

  int width_ = 0;
  int height_ = 0;
  float *square_ref_ = nullptr, *square_dist_ = nullptr, *cross_ = nullptr;  // width × height
  float *mu_ref_ = nullptr, *mu_dist_ = nullptr;  // (w−10) × (h−10)
  float* row_pass_ = nullptr;                     // (w−10) × h
  std::vector<double> map_rows_;  // 4 × (w−10): one row of l·c·s, l, c, s (SIMD path)
  // Tiled SIMD path: l·c·s, l, c, s of map_chunk_rows_ rows (allocated on first use).
  std::vector<double> map_chunk_;
  std::size_t map_chunk_rows_ = 64;
  ScratchArena own_;  // the maps when reserve() is given no arena
};

struct IqaDsp;

/// SSIM of two `width` × `height` float images (dense, stride = width) with
/// libvmaf's default arguments: 11×11 Gaussian window, valid region only,
/// with the kernels of `dsp`. Requires width, height >= kGaussianLen and a
/// workspace reserved for at least this size (checked; throws vqe::Error
/// otherwise). At the SIMD levels the convolutions and the per-pixel map run
/// in Highway SIMD (vectorised across pixels, same per-pixel operation
/// order, no FMA) and the four sums stay sequential in double, so the result
/// is bit-identical to the scalar path.
/// Source: libvmaf iqa/ssim_tools.c _iqa_ssim (default-argument branch) with
/// iqa/convolve.c _iqa_convolve (IQA_CONVOLVE_1D).
///
/// `tiles` (SIMD levels only; the scalar reference ignores it): with a
/// runner of width > 1, the products, the blurs' passes and the per-pixel
/// map are cut into row tiles on its threads, and the map is summed on the
/// calling thread in the scalar's order (in chunks of rows), so the result
/// is the same bits. The first tiled call allocates the chunk buffer.
SsimMeans ssim_gaussian(const IqaDsp& dsp, const float* reference, const float* distorted,
                        int width, int height, SsimWorkspace& workspace,
                        TileRunner* tiles = nullptr);

/// Size of an image after decimate(): width / factor + (width & 1), and the
/// same for height (libvmaf iqa/decimate.c).
inline int decimated_size(int size, int factor) { return size / factor + (size & 1); }

/// Filters `src` (`width` × `height`, dense) with the `kernel_size` ×
/// `kernel_size` row-major 2-D `kernel` at every `factor`-th pixel, reading
/// outside the image by single symmetric reflection (-1-x, 2w-1-x), and
/// writes the decimated_size() image to `dst` (dense; must not alias `src`).
/// Products are float, accumulated in double, rounded to float.
/// Source: libvmaf iqa/decimate.c _iqa_decimate and iqa/convolve.c
/// _iqa_filter_pixel with KBND_SYMMETRIC.
/// This overload is the scalar reference (never SIMD).
void decimate(const float* src, int width, int height, int factor, const float* kernel,
              int kernel_size, float* dst);
/// decimate() of output rows [first_row, end_row) only (end_row -1: to the
/// last row); the scalar reference.
void decimate_rows_scalar(const float* src, int width, int height, int factor,
                          const float* kernel, int kernel_size, float* dst, int first_row,
                          int end_row);

/// Floats of scratch that the SIMD decimate() needs for images `width`
/// samples wide: kernel_size rows split into `factor` phases.
std::size_t decimate_scratch_size(int width, int factor, int kernel_size);

/// decimate() with the kernels of `dsp` and a caller-provided `scratch` of
/// decimate_scratch_size() floats (allocate it once, in init()). At the SIMD
/// levels the interior pixels are filtered with Highway SIMD across output
/// pixels (same per-pixel tap order, float products, double sums), the
/// border pixels as the scalar reference; kernels above 128 taps or 16 rows
/// and the scalar level run the scalar reference. Bit-identical either way.
/// Only output rows [first_row, end_row) are written (end_row -1: to the last
/// row), so that row tiles on several threads (each with its own scratch) can
/// share one image.
void decimate(const IqaDsp& dsp, const float* src, int width, int height, int factor,
              const float* kernel, int kernel_size, float* dst, float* scratch,
              int first_row = 0, int end_row = -1);

/// decimate() of `plane` read as plane_to_float(plane, bit_depth, 0.0f)
/// would give it (8-bit samples as they are, others divided by 2^(bpc−8)),
/// without making that float image: samples are converted exactly as they
/// are read, so `dst` equals decimate() of the converted image bit for bit.
/// SIMD levels only: returns false, doing nothing, at the scalar level (or
/// when the kernel is larger than 128 taps / 16 rows); the caller then
/// converts and calls decimate(). `scratch`: decimate_scratch_size() floats
/// for the plane's width. Bit depths 8, 10, 12, 16.
bool decimate_plane(const IqaDsp& dsp, const Plane& plane, int bit_depth, int factor,
                    const float* kernel, int kernel_size, float* dst, float* scratch);

/// Valid-region separable Gaussian blur: a `width` × `height` dense image
/// into a (width−10) × (height−10) dense image; `row_pass` holds
/// (width−10) × height floats; `dst` may alias `src`. Float products summed
/// in double per pass, rounded to float (libvmaf iqa/convolve.c). This is
/// the scalar reference; IqaDsp::blur_valid is the same at each level.
void gaussian_blur_valid_scalar(const float* src, int width, int height, float* row_pass,
                                float* dst);

/// The SSIM kernels of one CPU level (core/simd.h). The entry points have
/// the contracts of the free functions above (which check arguments and call
/// them) and take their own table, whose vector kernels the SIMD levels use.
struct IqaDsp {
  SsimMeans (*ssim_gaussian)(const IqaDsp& dsp, const float* reference, const float* distorted,
                             int width, int height, SsimWorkspace& ws, TileRunner* tiles);
  void (*decimate)(const IqaDsp& dsp, const float* src, int width, int height, int factor,
                   const float* kernel, int kernel_size, float* dst, float* scratch,
                   int first_row, int end_row);
  bool (*decimate_plane)(const IqaDsp& dsp, const Plane& plane, int bit_depth, int factor,
                         const float* kernel, int kernel_size, float* dst, float* scratch);
  /// gaussian_blur_valid_scalar's contract.
  void (*blur_valid)(const float* src, int width, int height, float* row_pass, float* dst);

  // Vector kernels of the SIMD entry points (null at Level::scalar);
  // iqa_ssim_simd.cpp documents them.
  void (*blur_rows)(const float* src, int width, int row_begin, int row_end, float* row_pass);
  void (*blur_columns)(const float* row_pass, int out_w, int row_begin, int row_end,
                       float* dst);
  void (*products)(const float* reference, const float* distorted, std::size_t n,
                   float* sq_ref, float* sq_dist, float* cross);
  void (*map_row)(const float* mu_ref, const float* mu_dist, const float* sq_ref,
                  const float* sq_dist, const float* cross, int out_w, float c1, float c2,
                  float c3, double* lcs, double* l, double* c, double* s);
  void (*decimate_row_f32)(const float* src, std::ptrdiff_t stride, int width, float inv_scale,
                           int factor, const float* kernel, int kernel_size, int cy, int x_lo,
                           int x_hi, float* phases, std::ptrdiff_t phase_len, int* slot_row,
                           float* dst_row);
  void (*decimate_row_u8)(const std::uint8_t* src, std::ptrdiff_t stride, int width,
                          float inv_scale, int factor, const float* kernel, int kernel_size,
                          int cy, int x_lo, int x_hi, float* phases, std::ptrdiff_t phase_len,
                          int* slot_row, float* dst_row);
  void (*decimate_row_u16)(const std::uint16_t* src, std::ptrdiff_t stride, int width,
                           float inv_scale, int factor, const float* kernel, int kernel_size,
                           int cy, int x_lo, int x_hi, float* phases, std::ptrdiff_t phase_len,
                           int* slot_row, float* dst_row);
};

/// The table of `level` (filled once; valid for the process's lifetime).
const IqaDsp& iqa_dsp(simd::Level level);

/// IqaDsp at Level::scalar: the scalar entry points, no vector kernels.
IqaDsp iqa_scalar_dsp();
/// The scalar reference of ssim_gaussian (IqaDsp::ssim_gaussian at
/// Level::scalar; `dsp` and `tiles` are unused).
SsimMeans ssim_gaussian_scalar(const IqaDsp& dsp, const float* reference, const float* distorted,
                               int width, int height, SsimWorkspace& ws, TileRunner* tiles);

}  // namespace vqe::iqa
