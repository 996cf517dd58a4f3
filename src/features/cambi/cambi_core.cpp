// SPDX-License-Identifier: BSD-2-Clause
// CAMBI scalar reference path; see cambi_core.h and libvmaf 3.2.0
// libvmaf/src/feature/cambi.c for the definition this reproduces.
#include "features/cambi/cambi_core.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe::cambi {
namespace {

constexpr int kMaskFilterSize = 7;  // spatial mask box filter (7x7)
constexpr int kScaleWeights[kNumScales] = {16, 8, 4, 2, 1};

// Result of testing one code value against the visibility threshold.
enum class Bisect { kTooSmall, kCorrect, kTooBig };

// A step of `diff` code values at `sample` is visible if the luminance rises
// by more than tvi_threshold times the luminance at `sample`.
bool step_visible(int sample, int diff, double tvi_threshold, LumaRange range, Eotf eotf) {
  const double mean = luminance(sample, range, eotf);
  const double stepped = luminance(sample + diff, range, eotf);
  return stepped - mean > tvi_threshold * mean;
}

// kCorrect when `sample` is the last code value at which the step is
// visible; kTooBig when it is not visible there; kTooSmall when it still is
// one code value higher.
Bisect classify(int sample, int diff, double tvi_threshold, LumaRange range, Eotf eotf) {
  if (!step_visible(sample, diff, tvi_threshold, range, eotf)) return Bisect::kTooBig;
  if (step_visible(sample + 1, diff, tvi_threshold, range, eotf)) return Bisect::kTooSmall;
  return Bisect::kCorrect;
}

std::uint16_t mode_of_three(std::uint16_t a, std::uint16_t b, std::uint16_t c) {
  if (a == b || a == c) return a;
  if (b == c) return b;
  return std::min({a, b, c});
}

int ceil_log2(std::uint32_t n) {
  if (n == 0) return 0;
  std::uint32_t rest = n - 1;
  int bits = 0;
  while (rest > 0) {
    rest >>= 1;
    ++bits;
  }
  return bits;
}

// Hoare-partition selection as in libvmaf: afterwards the k largest values
// of arr[0..n) occupy arr[0..k) (in an order that the later double sum
// depends on, so the partition steps are reproduced exactly).
void select_largest(float* arr, int n, int k) {
  if (n == k) return;
  int left = 0;
  int right = n - 1;
  while (left < right) {
    const float pivot = arr[k];
    int i = left;
    int j = right;
    do {
      while (arr[i] > pivot) ++i;
      while (arr[j] < pivot) --j;
      if (i <= j) {
        std::swap(arr[i], arr[j]);
        ++i;
        --j;
      }
    } while (i <= j);
    if (j < k) left = i;
    if (k < i) right = j;
  }
}

}  // namespace

const std::array<float, kReciprocalTableSize>& reciprocal_table() {
  // libvmaf ships this table as decimal literals with 9 significant digits;
  // regenerating it the same way reproduces every entry bit for bit.
  static const std::array<float, kReciprocalTableSize> table = [] {
    std::array<float, kReciprocalTableSize> t{};
    t[0] = 0.0f;
    char text[64];
    for (int i = 1; i < kReciprocalTableSize; ++i) {
      std::snprintf(text, sizeof text, "%.9g", 1.0 / i);
      t[i] = std::strtof(text, nullptr);
    }
    return t;
  }();
  return table;
}

int tvi_for_diff(int diff, double tvi_threshold, LumaRange range, Eotf eotf) {
  const int max_value = (1 << 10) - 1;
  int foot = range.foot;
  int head = range.head - diff - 1;

  Bisect at = classify(foot, diff, tvi_threshold, range, eotf);
  if (at == Bisect::kTooBig) return 0;
  if (at == Bisect::kCorrect) return foot;

  at = classify(head, diff, tvi_threshold, range, eotf);
  if (at == Bisect::kTooSmall) return max_value;
  if (at == Bisect::kCorrect) return head;

  // Invariant: the answer lies strictly between foot and head.
  for (int guard = 0; guard < 64; ++guard) {
    const int mid = foot + (head - foot) / 2;
    at = classify(mid, diff, tvi_threshold, range, eotf);
    if (at == Bisect::kTooBig) {
      head = mid;
    } else if (at == Bisect::kTooSmall) {
      foot = mid;
    } else {
      return mid;
    }
  }
  throw Error(fmt::format("cambi: visibility threshold search did not converge (diff {})", diff));
}

int visibility_luma_threshold(double threshold, LumaRange range, Eotf eotf) {
  int sample = range.foot;
  while (luminance(sample, range, eotf) < threshold) {
    if (++sample > 0xFFFF) return -1;
  }
  return sample == range.foot ? 0 : sample;
}

int adjusted_window_size(int window_size, int width, int height, bool high_res_speedup) {
  // libvmaf keeps the window in a uint16_t throughout.
  std::uint16_t ws = static_cast<std::uint16_t>(
      ((static_cast<unsigned>(window_size) * static_cast<unsigned>(width + height)) / 375) >> 4);
  if (high_res_speedup) ws = static_cast<std::uint16_t>((ws + 1) >> 1);
  ws |= 1;
  return ws;
}

int mask_threshold(int width, int height) {
  const std::uint32_t blocks = static_cast<std::uint32_t>(width >> 6) *
                               static_cast<std::uint32_t>(height >> 6);
  const int index =
      (kMaskFilterSize * kMaskFilterSize + 3 * (ceil_log2(blocks) - 11) - 1) >> 1;
  return static_cast<std::uint16_t>(index);
}

std::string degenerate_shape_reason(int width, int height, int window_size,
                                    bool high_res_speedup) {
  const int pad = window_size >> 1;
  if (height < pad + 1 || width < pad)
    return fmt::format("the {}-pixel window needs at least {}x{} pixels", window_size, pad,
                       pad + 1);
  int w = width;
  int h = height;
  for (int scale = 0; scale < kNumScales; ++scale) {
    if (scale > 0 || high_res_speedup) {
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
    }
    if (h < pad)
      return fmt::format("at scale {} the picture is {}x{}, lower than half the {}-pixel window",
                         scale, w, h, window_size);
  }
  return {};
}

// --- heatmaps ---------------------------------------------------------------

HeatmapWriter::~HeatmapWriter() {
  for (std::FILE*& f : files_)
    if (f) std::fclose(f);
}

void HeatmapWriter::open(const std::string& dir, int width, int height) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error(fmt::format("cambi: cannot create heatmaps_path '{}': {}", dir, ec.message()));
  row_.assign(width, 0);
  int w = width;
  int h = height;
  for (int scale = 0; scale < kNumScales; ++scale) {
    const std::string path = (std::filesystem::path(dir) /
                              fmt::format("cambi_heatmap_scale_{}_{}x{}_16b.gray", scale, w, h))
                                 .string();
    files_[scale] = std::fopen(path.c_str(), "wb");
    if (!files_[scale]) throw Error(fmt::format("cambi: could not open heatmap file {}", path));
    w = (w + 1) >> 1;
    h = (h + 1) >> 1;
  }
}

void HeatmapWriter::write(int scale, const float* c_values, int width, int height,
                          int window_size, const Settings& settings, unsigned frame) {
  std::FILE* file = files_[scale];
  if (!file) return;
  const int max_weight = *std::max_element(settings.diff_weights.begin(),
                                           settings.diff_weights.end());
  const int max_c_value = max_weight * window_size * window_size / 4;
  const double scaling = static_cast<double>((1 << 16) - 1) / max_c_value;
  if (static_cast<int>(row_.size()) < width) row_.resize(width);
  std::uint16_t* row = row_.data();
  for (int i = 0; i < height; ++i) {
    for (int j = 0; j < width; ++j)
      row[j] = static_cast<std::uint16_t>(scaling * c_values[i * width + j]);
    const long offset = (static_cast<long>(frame) * height + i) * width *
                        static_cast<long>(sizeof(std::uint16_t));
    std::fseek(file, offset, SEEK_SET);
    std::fwrite(row, sizeof(std::uint16_t), width, file);
  }
}

// --- scorer -----------------------------------------------------------------

void Scorer::init(int alloc_width, int alloc_height, const Settings& settings) {
  settings_ = settings;
  stride_ = alloc_width;
  alloc_height_ = alloc_height;
  const std::size_t area = static_cast<std::size_t>(alloc_width) * alloc_height;
  image_.assign(area, 0);
  mask_.assign(area, 0);
  c_values_.assign(area, 0.0f);

  // Only 10-bit values in [band_base_, band_base_ + band_size_) can change a
  // c-value (libvmaf's v_band optimisation, which is exact).
  const int nd = settings.num_diffs;
  band_base_ = std::max(settings.vlt_luma - 3 * nd + 1, 0);
  band_size_ = std::max(settings.tvi_adjusted[nd - 1] + 1 - band_base_, 0);
  // Rows a c-value may look up above the band; zero and never written.
  int rows = band_size_;
  for (int d = 0; d < nd; ++d)
    rows = std::max(rows, settings.tvi_adjusted[d] - nd - band_base_ + d + 2);
  hist_rows_ = rows;
  histograms_.assign(static_cast<std::size_t>(hist_rows_) * alloc_width, 0);

  mode_rows_.assign(static_cast<std::size_t>(3) * alloc_width, 0);
  flat_rows_.assign(static_cast<std::size_t>(kMaskFilterSize) * alloc_width, 0);
  column_sums_.assign(alloc_width, 0);
}

void Scorer::preprocess(const Plane& luma, int bit_depth, int width, int height,
                        int enc_bit_depth) {
  const int in_w = luma.width;
  const int in_h = luma.height;

  // libvmaf refuses pictures with samples above the bit depth (10/12 bits).
  if (bit_depth == 10 || bit_depth == 12) {
    const int max_value = (1 << bit_depth) - 1;
    for (int i = 0; i < in_h; ++i) {
      const std::uint16_t* row = luma.row<std::uint16_t>(i);
      for (int j = 0; j < in_w; ++j)
        if (row[j] > max_value)
          throw Error(fmt::format(
              "cambi: invalid input: sample value {} at ({}, {}) exceeds the {}-bit maximum {}",
              row[j], j, i, bit_depth, max_value));
    }
  }

  // To 10 bits: 8-bit shifts up; deeper depths round to nearest then shift.
  const int down_shift = bit_depth > 10 ? bit_depth - 10 : 0;
  const int rounding = down_shift == 0 ? 0 : 1 << (down_shift - 1);
  auto sample = [&](int y, int x) -> std::uint16_t {
    if (bit_depth == 8) return static_cast<std::uint16_t>(luma.row<std::uint8_t>(y)[x] << 2);
    return static_cast<std::uint16_t>((luma.row<std::uint16_t>(y)[x] + rounding) >> down_shift);
  };

  if (in_w == width && in_h == height) {
    for (int i = 0; i < height; ++i) {
      std::uint16_t* out = &image_[static_cast<std::size_t>(i) * stride_];
      for (int j = 0; j < width; ++j) out[j] = sample(i, j);
    }
  } else {
    // Nearest neighbour, sampling at pixel centres, positions accumulated in
    // float as libvmaf does. Indices are clamped to the picture (libvmaf
    // could step one past the edge through float error on extreme upscales).
    const float ratio_x = static_cast<float>(in_w) / static_cast<float>(width);
    const float ratio_y = static_cast<float>(in_h) / static_cast<float>(height);
    const float start_x = static_cast<float>(ratio_x / 2 - 0.5);
    const float start_y = static_cast<float>(ratio_y / 2 - 0.5);
    float y = start_y;
    for (int i = 0; i < height; ++i) {
      const int src_y = std::min(static_cast<int>(y + 0.5), in_h - 1);
      std::uint16_t* out = &image_[static_cast<std::size_t>(i) * stride_];
      float x = start_x;
      for (int j = 0; j < width; ++j) {
        const int src_x = std::min(static_cast<int>(x + 0.5), in_w - 1);
        out[j] = sample(src_y, src_x);
        x += ratio_x;
      }
      y += ratio_y;
    }
  }

  if (enc_bit_depth < 10) {
    // Anti-dithering: each pixel becomes the mean of its 2x2 block to the
    // bottom-right (pairs on the last row/column), in place, row by row.
    std::uint16_t* d = image_.data();
    const std::size_t s = stride_;
    for (int i = 0; i < height - 1; ++i) {
      std::uint16_t* r0 = d + i * s;
      const std::uint16_t* r1 = r0 + s;
      for (int j = 0; j < width - 1; ++j)
        r0[j] = static_cast<std::uint16_t>((r0[j] + r0[j + 1] + r1[j] + r1[j + 1]) >> 2);
      r0[width - 1] = static_cast<std::uint16_t>((r0[width - 1] + r1[width - 1]) >> 1);
    }
    std::uint16_t* last = d + static_cast<std::size_t>(height - 1) * s;
    for (int j = 0; j < width - 1; ++j)
      last[j] = static_cast<std::uint16_t>((last[j] + last[j + 1]) >> 1);
  }
}

void Scorer::spatial_mask(int width, int height) {
  // "Flat" = no difference to the next sample in the row nor to the one in
  // the next row; a sample past the picture edge never counts as a
  // difference. The mask marks pixels whose 7x7 box (clipped to the picture)
  // holds more flat pixels than the threshold.
  const std::uint32_t threshold = static_cast<std::uint32_t>(mask_threshold(width, height));
  const int half = kMaskFilterSize >> 1;
  const std::size_t s = stride_;

  auto compute_flat_row = [&](int r) {
    std::uint8_t* flat = &flat_rows_[static_cast<std::size_t>(r % kMaskFilterSize) * stride_];
    const std::uint16_t* cur = &image_[r * s];
    const std::uint16_t* below = r + 1 < height ? cur + s : nullptr;
    for (int c = 0; c < width; ++c) {
      const bool right_equal = c == width - 1 || cur[c] == cur[c + 1];
      const bool below_equal = below == nullptr || cur[c] == below[c];
      flat[c] = right_equal && below_equal;
    }
  };
  auto add_row = [&](int r, int sign) {
    const std::uint8_t* flat =
        &flat_rows_[static_cast<std::size_t>(r % kMaskFilterSize) * stride_];
    for (int c = 0; c < width; ++c) column_sums_[c] += sign * flat[c];
  };

  std::fill_n(column_sums_.begin(), width, 0u);
  for (int r = 0; r < std::min(half, height); ++r) {
    compute_flat_row(r);
    add_row(r, +1);
  }
  for (int r = 0; r < height; ++r) {
    const int incoming = r + half;
    if (incoming < height) {
      compute_flat_row(incoming);
      add_row(incoming, +1);
    }
    // Horizontal running sum over columns [c - half, c + half].
    std::uint16_t* out = &mask_[r * s];
    std::uint32_t sum = 0;
    for (int c = 0; c < std::min(half, width); ++c) sum += column_sums_[c];
    for (int c = 0; c < width; ++c) {
      if (c + half < width) sum += column_sums_[c + half];
      out[c] = sum > threshold;
      if (c - half >= 0) sum -= column_sums_[c - half];
    }
    const int outgoing = r - half;
    if (outgoing >= 0) add_row(outgoing, -1);
  }
}

void Scorer::decimate(std::vector<std::uint16_t>& buf, int width, int height) {
  // In place: (i, j) <- (2i, 2j). Rows beyond the new size keep older data,
  // which libvmaf's window may still read on very small scales.
  for (int i = 0; i < height; ++i)
    for (int j = 0; j < width; ++j)
      buf[static_cast<std::size_t>(i) * stride_ + j] =
          buf[static_cast<std::size_t>(2 * i) * stride_ + 2 * j];
}

void Scorer::mode_filter(int width, int height) {
  // 3x3 separable mode (ties -> minimum): horizontal mode of each row into
  // a 3-row ring, then the vertical mode written back to the previous row.
  // The first and last rows and columns keep their values.
  const std::size_t s = stride_;
  for (int i = 0; i < height; ++i) {
    const std::uint16_t* row = &image_[i * s];
    std::uint16_t* line = &mode_rows_[static_cast<std::size_t>(i % 3) * width];
    line[0] = row[0];
    for (int j = 1; j < width - 1; ++j) line[j] = mode_of_three(row[j - 1], row[j], row[j + 1]);
    line[width - 1] = row[width - 1];
    if (i > 1) {
      std::uint16_t* out = &image_[(i - 1) * s];
      const std::uint16_t* l0 = &mode_rows_[0];
      const std::uint16_t* l1 = &mode_rows_[static_cast<std::size_t>(width)];
      const std::uint16_t* l2 = &mode_rows_[static_cast<std::size_t>(2) * width];
      for (int j = 0; j < width; ++j) out[j] = mode_of_three(l0[j], l1[j], l2[j]);
    }
  }
}

void Scorer::histogram_update_row(int row, int width, int pad, int delta) {
  // Every masked pixel of `row` with an in-band value adds `delta` to the
  // histogram of its value in the columns whose window contains it.
  // Columns up to `pad` are visited even when the scale is narrower (as
  // libvmaf's loops do); those lie inside the full-size buffer.
  const std::size_t s = stride_;
  const std::uint16_t* mask = &mask_[row * s];
  const std::uint16_t* image = &image_[row * s];
  const int columns = std::max(width, pad);
  for (int j = 0; j < columns; ++j) {
    if (!mask[j]) continue;
    const int v = image[j] - band_base_;
    if (v < 0 || v >= band_size_) continue;
    std::uint16_t* hist = &histograms_[static_cast<std::size_t>(v) * hist_width_];
    const int left = std::max(j - pad, 0);
    const int right = std::min(j + pad + 1, width);
    for (int c = left; c < right; ++c) hist[c] = static_cast<std::uint16_t>(hist[c] + delta);
  }
}

void Scorer::c_values_row(int row, int width) {
  const auto& lut = reciprocal_table();
  const int nd = settings_.num_diffs;
  const std::size_t s = stride_;
  const std::uint16_t* mask = &mask_[row * s];
  const std::uint16_t* image = &image_[row * s];
  float* out = &c_values_[static_cast<std::size_t>(row) * width];
  const std::size_t hw = hist_width_;
  for (int col = 0; col < width; ++col) {
    if (!mask[col]) continue;
    const int value = image[col] + nd;  // "adjusted" value, as the thresholds
    const int compact = image[col] - band_base_;
    float c_value = 0.0f;
    if (compact >= 0 && compact < band_size_) {
      const std::uint16_t p0 = histograms_[compact * hw + col];
      for (int d = 0; d < nd; ++d) {
        if (value <= settings_.tvi_adjusted[d] && value + d + 1 > settings_.vlt_luma) {
          const int above = compact + d + 1;
          const int below = compact - d - 1;
          const std::uint16_t p1 = histograms_[above * hw + col];
          const std::uint16_t p2 = below >= 0 ? histograms_[below * hw + col] : 0;
          const std::uint16_t p = p1 > p2 ? p1 : p2;
          const float val = static_cast<float>(settings_.diff_weights[d] * p0 * p) * lut[p + p0];
          if (val > c_value) c_value = val;
        }
      }
    }
    out[col] = c_value;
  }
}

void Scorer::compute_c_values(int width, int height, int window_size) {
  // Sliding (2·pad+1)² window histograms, one per column, moved down row by
  // row. The row ranges reproduce libvmaf's loops exactly, including rows it
  // visits twice when the picture is shorter than the window.
  const int pad = window_size >> 1;
  hist_width_ = width;
  std::fill_n(c_values_.begin(), static_cast<std::size_t>(width) * height, 0.0f);
  std::fill_n(histograms_.begin(), static_cast<std::size_t>(hist_rows_) * width, 0);

  for (int i = 0; i < pad; ++i) histogram_update_row(i, width, pad, +1);
  for (int i = 0; i < pad + 1; ++i) {
    if (i + pad < height) histogram_update_row(i + pad, width, pad, +1);
    c_values_row(i, width);
  }
  for (int i = pad + 1; i < height - pad; ++i) {
    histogram_update_row(i - pad - 1, width, pad, -1);
    histogram_update_row(i + pad, width, pad, +1);
    c_values_row(i, width);
  }
  for (int i = height - pad; i < height; ++i) {
    if (i - pad - 1 >= 0) histogram_update_row(i - pad - 1, width, pad, -1);
    c_values_row(i, width);
  }
}

double Scorer::pool(int width, int height, double topk) {
  // Mean of the top-k fraction of c-values.
  const int n = width * height;
  const int k = std::clamp(static_cast<int>(topk * n), 1, n);
  select_largest(c_values_.data(), n, k);
  double sum = 0;
  for (int i = 0; i < k; ++i) sum += c_values_[i];
  return sum / k;
}

double Scorer::score(const Plane& luma, int bit_depth, int width, int height,
                     int enc_bit_depth, int window_size, double topk, bool high_res_speedup,
                     HeatmapWriter* heatmaps, unsigned frame) {
  preprocess(luma, bit_depth, width, height, enc_bit_depth);
  spatial_mask(width, height);

  double scale_scores[kNumScales];
  int w = width;
  int h = height;
  for (int scale = 0; scale < kNumScales; ++scale) {
    if (scale > 0 || high_res_speedup) {
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
      decimate(image_, w, h);
      decimate(mask_, w, h);
    }
    mode_filter(w, h);
    compute_c_values(w, h, window_size);
    if (heatmaps) heatmaps->write(scale, c_values_.data(), w, h, window_size, settings_, frame);
    scale_scores[scale] = pool(w, h, topk);
  }

  const int odd = 2 * (window_size >> 1) + 1;
  const std::uint16_t window_pixels = static_cast<std::uint16_t>(odd * odd);
  double total = 0.0;
  for (int scale = 0; scale < kNumScales; ++scale)
    total += scale_scores[scale] * kScaleWeights[scale];
  return total / window_pixels;
}

}  // namespace vqe::cambi
