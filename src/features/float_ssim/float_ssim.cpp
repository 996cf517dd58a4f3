// SPDX-License-Identifier: BSD-2-Clause
/// @file The `float_ssim` extractor: single-scale SSIM on luma, as libvmaf's
/// libvmaf/src/feature/float_ssim.c + ssim.c.
///
/// Emits `float_ssim` (0–1, or dB with enable_db) and, with enable_lcs,
/// `float_ssim_l`, `float_ssim_c`, `float_ssim_s` (mean luminance, contrast and
/// structure terms). Accepts 8, 10, 12 and 16 bits (samples scaled to 8-bit
/// range in float) and any chroma format (luma only).
///
/// Like libvmaf (and unlike textbook SSIM) the pictures are first
/// box-filtered and decimated by `scale` = max(1, round(min(W, H) / 256))
/// unless the `scale` option overrides it, then SSIM uses only the valid
/// region of an 11×11 Gaussian window. Pictures whose decimated size is below
/// 11×11 are refused in init() (libvmaf returns meaningless values there).

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "features/float_ssim/iqa_ssim.h"
#include "features/float_ssim/ssim_score.h"
#include "core/float_plane.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

class FloatSsim final : public FeatureExtractor {
 public:
  FloatSsim(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), scorer_(opts), dsp_(iqa::iqa_dsp(level)) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);  // refusals, decimation factor, working size
    format_ = format;
    scale_ = scorer_.scale();
    work_w_ = scorer_.work_width();
    work_h_ = scorer_.work_height();
    const int w = format.width;
    const int h = format.height;
    // The full planes as float (only where not decimated straight from the
    // samples), from the arena.
    full_ = static_cast<std::size_t>(w) * h;
    scratch().get_pair<float>(kScratchPlanes, full_);
    if (scale_ > 1) {
      const std::size_t small = static_cast<std::size_t>(work_w_) * work_h_;
      ref_small_.assign(small, 0.0f);
      dist_small_.assign(small, 0.0f);
      // Box filter of scale × scale taps, each 1/scale² (in float).
      box_.assign(static_cast<std::size_t>(scale_) * scale_, 1.0f / (scale_ * scale_));
      decimate_scratch_.assign(iqa::decimate_scratch_size(w, scale_, scale_), 0.0f);
    }
    workspace_.reserve(work_w_, work_h_, &scratch());
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error("float_ssim: picture format differs from the format given to init()");
    const auto [ref, dist] = scratch().get_pair<float>(kScratchPlanes, full_);
    const float* r = ref;
    const float* d = dist;
    if (scale_ > 1) {
      // With SIMD the planes are decimated straight from their samples
      // (decimate_plane, identical floats); otherwise converted first.
      downscale(reference, ref, ref_small_);
      downscale(distorted, dist, dist_small_);
      r = ref_small_.data();
      d = dist_small_.data();
    } else {
      plane_to_float(reference.plane(0), reference.bit_depth(), 0.0f, ref);
      plane_to_float(distorted.plane(0), distorted.bit_depth(), 0.0f, dist);
    }
    workspace_.reserve(work_w_, work_h_, &scratch());  // the slots' addresses
    scorer_.emit(index, iqa::ssim_gaussian(dsp_, r, d, work_w_, work_h_, workspace_, tiles_),
                 out);
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatSsim>(opts_, level_);
  }

 private:
  // Luma of `picture` box-decimated by scale_ into `small` (via `full`, its
  // float image, on the scalar path).
  void downscale(const Picture& picture, float* full, std::vector<float>& small) {
    if (iqa::decimate_plane(dsp_, picture.plane(0), picture.bit_depth(), scale_, box_.data(),
                            scale_, small.data(), decimate_scratch_.data()))
      return;
    plane_to_float(picture.plane(0), picture.bit_depth(), 0.0f, full);
    iqa::decimate(dsp_, full, format_.width, format_.height, scale_, box_.data(), scale_,
                  small.data(), decimate_scratch_.data());
  }

  ParsedOptions opts_;
  simd::Level level_;
  ssim::Scorer scorer_;
  const iqa::IqaDsp& dsp_;

  VideoFormat format_{};
  int scale_ = 1;
  int work_w_ = 0;
  int work_h_ = 0;
  std::size_t full_ = 0;  // samples of a full plane
  std::vector<float> ref_small_, dist_small_, box_;
  std::vector<float> decimate_scratch_;  // phase-split rows for the SIMD decimate
  iqa::SsimWorkspace workspace_;
  TileRunner* tiles_ = nullptr;  // null: one thread
};

}  // namespace

const ExtractorInfo& float_ssim_extractor() {
  static const ExtractorInfo info{
      .name = "float_ssim",
      .options = ssim::options(),
      .provided_features = {"float_ssim"},
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatSsim>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(ssim::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(ssim::make_vulkan),
  };
  return info;
}

}  // namespace vqe
