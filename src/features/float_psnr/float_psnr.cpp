// SPDX-License-Identifier: BSD-2-Clause
// The "float_psnr" extractor: luma PSNR computed on samples converted to
// float and scaled to the 8-bit range (libvmaf 3.2.0
// libvmaf/src/feature/float_psnr.c, psnr.c, picture_copy.c).

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/float_plane.h"
#include "features/float_psnr/float_psnr_score.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

/// float_psnr: 10·log10(peak² / MSE) on the luma plane, MSE accumulated in
/// double from float squared differences in raster order (as libvmaf's
/// compute_psnr), clipped to psnr_max (60/72/84/108 dB at 8/10/12/16 bits).
/// Any size >= 1x1; an identical pair gives psnr_max.
class FloatPsnr final : public FeatureExtractor {
 public:
  explicit FloatPsnr(const ParsedOptions& opts) : opts_(opts), scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
    ref_row_.assign(format.width, 0.0f);
    dis_row_.assign(format.width, 0.0f);
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const int w = format_.width, h = format_.height;
    double noise = 0;
    for (int y = 0; y < h; ++y) {
      row_to_float(reference.plane(0), y, format_.bit_depth, 0.0f, ref_row_.data());
      row_to_float(distorted.plane(0), y, format_.bit_depth, 0.0f, dis_row_.data());
      for (int x = 0; x < w; ++x) {
        const float diff = ref_row_[x] - dis_row_[x];
        noise += diff * diff;  // float product, double sum
      }
    }
    scorer_.emit(index, noise, out);
  }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatPsnr>(opts_);
  }

 private:
  ParsedOptions opts_;
  float_psnr::Scorer scorer_;
  VideoFormat format_{};
  std::vector<float> ref_row_, dis_row_;
};

}  // namespace

const ExtractorInfo& float_psnr_extractor() {
  static const ExtractorInfo info{
      .name = "float_psnr",
      .options = {},
      .provided_features = {"float_psnr"},
      .make = [](const ParsedOptions& o, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatPsnr>(o);
      },
      .make_cuda = VQE_CUDA_TWIN(float_psnr::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(float_psnr::make_vulkan),
  };
  return info;
}

}  // namespace vqe
