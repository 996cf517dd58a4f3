// SPDX-License-Identifier: BSD-2-Clause
/// @file The `float_ms_ssim` extractor: 5-scale MS-SSIM (Wang et al. 2003) on
/// luma, as libvmaf's libvmaf/src/feature/float_ms_ssim.c + ms_ssim.c.
///
/// Emits `float_ms_ssim` (0–1, or dB with enable_db) and, with enable_lcs,
/// `float_ms_ssim_{l,c,s}_scale{0..4}` (per-scale mean luminance, contrast and
/// structure terms). Accepts 8, 10, 12 and 16 bits (samples scaled to 8-bit
/// range in float) and any chroma format (luma only).
///
/// Scale k+1 is scale k filtered with the 9×9 biorthogonal 9/7 low-pass kernel
/// (symmetric borders) and decimated by 2 (size W/2 + (W&1)); each scale is
/// scored by SSIM with the 11×11 Gaussian over the valid region, and
/// MS-SSIM = Π_k l_k^α_k · c_k^β_k · s_k^γ_k with libvmaf's exponents.
/// libvmaf requires floor(W / 2^k) >= 11 and floor(H / 2^k) >= 11 for
/// k = 0..4, i.e. W, H >= 176; smaller pictures are refused in init().

#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "features/float_ms_ssim/ms_ssim_score.h"
#include "features/float_ssim/iqa_ssim.h"
#include "core/float_plane.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

using ms_ssim::kLowPass;
using ms_ssim::kLpfLen;
using ms_ssim::kScales;

class FloatMsSsim final : public FeatureExtractor {
 public:
  FloatMsSsim(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), scorer_(opts), dsp_(iqa::iqa_dsp(level)) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);  // refusals and the scale sizes
    format_ = format;
    for (int k = 0; k < kScales; ++k) {
      widths_[k] = scorer_.width(k);
      heights_[k] = scorer_.height(k);
      planes(k);  // sizes the arena's slots
    }
    workspace_.reserve(format.width, format.height, &scratch());
    decimate_scratch_size_ = iqa::decimate_scratch_size(format.width, 2, kLpfLen);
    decimate_scratch_.assign(1, std::vector<float>(decimate_scratch_size_, 0.0f));
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error("float_ms_ssim: picture format differs from the format given to init()");
    std::array<std::pair<float*, float*>, kScales> scale;  // reference, distorted
    for (int k = 0; k < kScales; ++k) scale[k] = planes(k);
    plane_to_float(reference.plane(0), reference.bit_depth(), 0.0f, scale[0].first);
    plane_to_float(distorted.plane(0), distorted.bit_depth(), 0.0f, scale[0].second);
    // Each scale's low-pass decimation in row tiles (one scratch per slot).
    TileRunner& runner = tiles_ ? *tiles_ : serial_tile_runner();
    if (decimate_scratch_.size() < runner.width()) decimate_scratch_.resize(runner.width());
    for (int k = 1; k < kScales; ++k) {
      const unsigned tiles = runner.tile_count(heights_[k], 16, widths_[k]);
      runner.run(tiles, [&](unsigned tile, unsigned slot) {
        std::vector<float>& scratch = decimate_scratch_[slot];
        if (scratch.empty()) scratch.assign(decimate_scratch_size_, 0.0f);  // first use
        const TileRows rows = tile_rows(tile, tiles, heights_[k]);
        iqa::decimate(dsp_, scale[k - 1].first, widths_[k - 1], heights_[k - 1], 2, kLowPass,
                      kLpfLen, scale[k].first, scratch.data(), rows.begin, rows.end);
        iqa::decimate(dsp_, scale[k - 1].second, widths_[k - 1], heights_[k - 1], 2, kLowPass,
                      kLpfLen, scale[k].second, scratch.data(), rows.begin, rows.end);
      });
    }

    workspace_.reserve(format_.width, format_.height, &scratch());  // the slots' addresses
    std::array<iqa::SsimMeans, kScales> means;
    for (int k = 0; k < kScales; ++k)
      means[k] = iqa::ssim_gaussian(dsp_, scale[k].first, scale[k].second, widths_[k],
                                    heights_[k], workspace_, tiles_);
    scorer_.emit(index, means, out);
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatMsSsim>(opts_, level_);
  }

 private:
  // Scale k's reference and distorted planes (widths_[k] x heights_[k]
  // floats) from the arena: the planes' slots at full size, the pyramid's
  // for the smaller scales.
  std::pair<float*, float*> planes(int k) {
    const std::size_t n = static_cast<std::size_t>(widths_[k]) * heights_[k];
    return scratch().get_pair<float>(k == 0 ? kScratchPlanes : kScratchPyramid + 2 * (k - 1), n);
  }

  ParsedOptions opts_;
  simd::Level level_;
  ms_ssim::Scorer scorer_;
  const iqa::IqaDsp& dsp_;

  VideoFormat format_{};
  int widths_[kScales] = {};
  int heights_[kScales] = {};
  iqa::SsimWorkspace workspace_;
  // Phase-split rows for the SIMD decimate, one per tile slot.
  std::vector<std::vector<float>> decimate_scratch_;
  std::size_t decimate_scratch_size_ = 0;
  TileRunner* tiles_ = nullptr;  // null: one thread
};

}  // namespace

const ExtractorInfo& float_ms_ssim_extractor() {
  static const ExtractorInfo info{
      .name = "float_ms_ssim",
      .options = ms_ssim::options(),
      .provided_features = {"float_ms_ssim"},
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatMsSsim>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(ms_ssim::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(ms_ssim::make_vulkan),
  };
  return info;
}

}  // namespace vqe
