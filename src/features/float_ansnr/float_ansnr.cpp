// SPDX-License-Identifier: BSD-2-Clause
// The "float_ansnr" extractor: anti-noise SNR and PSNR (libvmaf 3.2.0
// libvmaf/src/feature/float_ansnr.c, ansnr.c, ansnr_tools.c,
// picture_copy.c).
//
// Reference and distorted luma are converted to float on the 8-bit scale and
// shifted by -128. The reference is smoothed with a 3x3 binomial filter and
// the distorted with a 5x5 one (the distortion the eye is assumed not to
// see); signal = Σ ref_f², noise = Σ (ref_f - dis_f)², both in float.
//   float_ansnr  = 10·log10(signal / noise)  (psnr_max when noise == 0)
//   float_anpsnr = min(10·log10(peak²·N / noise), psnr_max)

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/float_plane.h"
#include "features/float_ansnr/ansnr_score.h"
#include "features/float_ansnr/float_ansnr_kernels.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

constexpr const char* kExtractor = "float_ansnr";

// ansnr's border rule: -i before the start, 2n-1-i past the end (the edge
// sample repeats), folded again until inside [0, n) so that frames smaller
// than the filter stay in bounds (libvmaf reads outside them).
using ansnr::mirror;

/// float_ansnr: emits float_ansnr and float_anpsnr per frame. Any size
/// >= 1x1, 8/10/12/16 bits. Its 4 float planes come from the arena
/// (scratch()), sized in init().
class FloatAnsnr final : public FeatureExtractor {
 public:
  FloatAnsnr(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), dsp_(ansnr::ansnr_dsp(level)), scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
    const std::size_t n = static_cast<std::size_t>(format.width) * format.height;
    scratch().get_pair<float>(kScratchPlanes, n);
    scratch().get_pair<float>(kScratchSecond, n);
    inner_.assign(format.width, 0);
    accum_.assign(format.width, 0);
    cols3_.resize(static_cast<std::size_t>(format.width) * 3);
    cols5_.resize(static_cast<std::size_t>(format.width) * 5);
    for (int x = 0; x < format.width; ++x) {
      for (int k = 0; k < 3; ++k) cols3_[x * 3 + k] = mirror(x - 1 + k, format.width);
      for (int k = 0; k < 5; ++k) cols5_[x * 5 + k] = mirror(x - 2 + k, format.width);
    }
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const int w = format_.width, h = format_.height;
    // Whole planes from the thread's shared arena (sized in init()).
    const std::size_t n = static_cast<std::size_t>(w) * h;
    const auto [ref, dis] = scratch().get_pair<float>(kScratchPlanes, n);
    const auto [ref_filtered, dis_filtered] = scratch().get_pair<float>(kScratchSecond, n);
    plane_to_float(reference.plane(0), format_.bit_depth, -128.0f, ref);
    plane_to_float(distorted.plane(0), format_.bit_depth, -128.0f, dis);
    dsp_.filter2d(ansnr::filters().ref, 3, ref, ref_filtered, w, h, cols3_.data(), inner_.data(),
                  accum_.data());
    dsp_.filter2d(ansnr::filters().dis, 5, dis, dis_filtered, w, h, cols5_.data(), inner_.data(),
                  accum_.data());

    // ansnr_mse: per-row float partial sums, added into float totals.
    float signal = 0, noise = 0;
    for (int y = 0; y < h; ++y) {
      const float* r = ref_filtered + static_cast<std::size_t>(y) * w;
      const float* d = dis_filtered + static_cast<std::size_t>(y) * w;
      float signal_row = 0, noise_row = 0;
      for (int x = 0; x < w; ++x) {
        signal_row += r[x] * r[x];
        noise_row += (r[x] - d[x]) * (r[x] - d[x]);
      }
      signal += signal_row;
      noise += noise_row;
    }

    scorer_.emit(index, signal, noise, out);
  }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatAnsnr>(opts_, level_);
  }

 private:
  ParsedOptions opts_;
  simd::Level level_;
  const ansnr::AnsnrDsp& dsp_;
  ansnr::Scorer scorer_;
  VideoFormat format_{};
  std::vector<float> inner_, accum_;
  std::vector<int> cols3_, cols5_;
};

}  // namespace

const ExtractorInfo& float_ansnr_extractor() {
  static const ExtractorInfo info{
      .name = kExtractor,
      .options = {},
      .provided_features = {"float_ansnr"},
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<FloatAnsnr>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(ansnr::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(ansnr::make_vulkan),
  };
  return info;
}

}  // namespace vqe
