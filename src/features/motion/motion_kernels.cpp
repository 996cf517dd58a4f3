// SPDX-License-Identifier: BSD-2-Clause
// Scalar integer motion kernels. Definitions: libvmaf 3.2.0
// libvmaf/src/feature/integer_motion.c (frame_difference_sad) and libvmaf
// 3.0.0 integer_motion.c / integer_motion.h (legacy_blur, legacy_sad).

#include "features/motion/motion_kernels.h"

#include <cstdlib>


namespace vqe::motion {

int mirror_reflect101(int i, int n) {
  if (n <= 1) return 0;
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * (n - 1) - i;
  }
  return i;
}

int mirror_legacy(int i, int n) {
  // Terminates: a far reflection of i >= n gives 2n-1-i < n, and when that is
  // negative its magnitude i-2n+1 is smaller than i.
  while (i < 0 || i >= n) {
    if (i < 0) i = -i;
    if (i >= n) i = 2 * n - 1 - i;
  }
  return i;
}

namespace {

// Fills the two samples on each side of row[0..width) with mirrored copies,
// so that the horizontal 5-tap pass reads row[j-2..j+2] directly.
template <typename V, typename Mirror>
void pad_row(V* row, int width, Mirror mirror) {
  row[-2] = row[mirror(-2, width)];
  row[-1] = row[mirror(-1, width)];
  row[width] = row[mirror(width, width)];
  row[width + 1] = row[mirror(width + 1, width)];
}

}  // namespace

namespace {

// frame_difference_sad with the vertical accumulator type VAcc: 32 bits hold
// 65536 · (2^12 - 1) for up to 12-bit input; 16-bit input needs 64.
template <typename T, typename VAcc>
std::uint64_t frame_difference_sad_impl(const T* prev, std::ptrdiff_t prev_stride, const T* cur,
                                        std::ptrdiff_t cur_stride, int width, int height, int bpc,
                                        std::int32_t* row) {
  const VAcc v_round = VAcc{1} << (bpc - 1);
  const std::int64_t h_round = std::int64_t{1} << 15;
  std::int32_t* y = row + kRadius;

  std::uint64_t sad = 0;
  for (int i = 0; i < height; ++i) {
    const T* p[5];
    const T* c[5];
    for (int k = 0; k < 5; ++k) {
      const int r = mirror_reflect101(i - kRadius + k, height);
      p[k] = prev + r * prev_stride;
      c[k] = cur + r * cur_stride;
    }

    // Vertical pass over the frame difference.
    std::int32_t any_nonzero = 0;
    for (int j = 0; j < width; ++j) {
      VAcc acc = 0;
      for (int k = 0; k < 5; ++k) {
        const VAcc diff = static_cast<VAcc>(p[k][j]) - static_cast<VAcc>(c[k][j]);
        acc += static_cast<VAcc>(kFilter[k]) * diff;
      }
      y[j] = static_cast<std::int32_t>((acc + v_round) >> bpc);
      any_nonzero |= y[j];
    }
    if (!any_nonzero) continue;  // an all-zero row adds nothing

    // Horizontal pass, absolute value, row sum (32-bit like libvmaf).
    pad_row(y, width, mirror_reflect101);
    std::uint32_t row_sad = 0;
    for (int j = 0; j < width; ++j) {
      std::int64_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += static_cast<std::int64_t>(kFilter[k]) * y[j - kRadius + k];
      const std::int32_t v = static_cast<std::int32_t>((acc + h_round) >> 16);
      row_sad += static_cast<std::uint32_t>(std::abs(v));
    }
    sad += row_sad;
  }
  return sad;
}

}  // namespace

template <typename T>
std::uint64_t frame_difference_sad_scalar(const T* prev, std::ptrdiff_t prev_stride, const T* cur,
                                          std::ptrdiff_t cur_stride, int width, int height,
                                          int bpc, std::int32_t* row) {
  if (bpc <= 12)
    return frame_difference_sad_impl<T, std::int32_t>(prev, prev_stride, cur, cur_stride, width,
                                                      height, bpc, row);
  return frame_difference_sad_impl<T, std::int64_t>(prev, prev_stride, cur, cur_stride, width,
                                                    height, bpc, row);
}

template <typename T>
void legacy_blur_scalar(const T* src, std::ptrdiff_t src_stride, std::uint16_t* dst,
                        std::ptrdiff_t dst_stride, int width, int height, int bpc,
                        std::uint16_t* row) {
  const std::uint32_t v_round = std::uint32_t{1} << (bpc - 1);
  const std::uint32_t h_round = std::uint32_t{1} << 15;
  std::uint16_t* t = row + kRadius;

  for (int i = 0; i < height; ++i) {
    const T* s[5];
    for (int k = 0; k < 5; ++k) s[k] = src + mirror_legacy(i - kRadius + k, height) * src_stride;

    // Vertical pass; the result fits 16 bits for every supported depth.
    for (int j = 0; j < width; ++j) {
      std::uint32_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += static_cast<std::uint32_t>(kFilter[k]) * s[k][j];
      t[j] = static_cast<std::uint16_t>((acc + v_round) >> bpc);
    }

    pad_row(t, width, mirror_legacy);
    std::uint16_t* out = dst + i * dst_stride;
    for (int j = 0; j < width; ++j) {
      std::uint32_t acc = 0;
      for (int k = 0; k < 5; ++k) acc += static_cast<std::uint32_t>(kFilter[k]) * t[j - kRadius + k];
      out[j] = static_cast<std::uint16_t>((acc + h_round) >> 16);
    }
  }
}

std::uint64_t legacy_sad_scalar(const std::uint16_t* a, const std::uint16_t* b,
                                std::ptrdiff_t stride, int width, int height) {
  std::uint64_t sad = 0;
  for (int i = 0; i < height; ++i) {
    const std::uint16_t* ra = a + i * stride;
    const std::uint16_t* rb = b + i * stride;
    std::uint32_t row_sad = 0;
    for (int j = 0; j < width; ++j)
      row_sad += static_cast<std::uint32_t>(std::abs(static_cast<int>(ra[j]) - static_cast<int>(rb[j])));
    sad += row_sad;
  }
  return sad;
}

template std::uint64_t frame_difference_sad_scalar<std::uint8_t>(
    const std::uint8_t*, std::ptrdiff_t, const std::uint8_t*, std::ptrdiff_t, int, int, int,
    std::int32_t*);
template std::uint64_t frame_difference_sad_scalar<std::uint16_t>(
    const std::uint16_t*, std::ptrdiff_t, const std::uint16_t*, std::ptrdiff_t, int, int, int,
    std::int32_t*);
template void legacy_blur_scalar<std::uint8_t>(const std::uint8_t*, std::ptrdiff_t,
                                               std::uint16_t*, std::ptrdiff_t, int, int, int,
                                               std::uint16_t*);
template void legacy_blur_scalar<std::uint16_t>(const std::uint16_t*, std::ptrdiff_t,
                                                std::uint16_t*, std::ptrdiff_t, int, int, int,
                                                std::uint16_t*);

}  // namespace vqe::motion
