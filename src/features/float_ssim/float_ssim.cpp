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
#include "core/float_plane.h"
#include "vqe/error.h"
#include "vqe/feature_extractor.h"

namespace vqe {
namespace {

// libvmaf's _round (iqa/math_utils.c): round half away from zero via truncation.
int iqa_round(float a) {
  const int sign = a > 0.0f ? 1 : -1;
  const int t = static_cast<int>(a);
  return a - t >= 0.5 ? t + sign : t;
}

class FloatSsim final : public FeatureExtractor {
 public:
  // Options resolved once, at construction. No ParsedOptions is kept, so an
  // instance never depends on the lifetime of the one it was built from.
  struct Settings {
    bool enable_lcs = false;
    bool enable_db = false;
    bool clip_db = false;
    int scale = 0;  // 0 = automatic
    std::vector<std::string> names;  // emitted names, output order
    simd::Level level = simd::Level::scalar;  // CPU level of the kernels
  };

  explicit FloatSsim(Settings settings)
      : set_(std::move(settings)), dsp_(iqa::iqa_dsp(set_.level)) {}

  static Settings settings_from(const ParsedOptions& opts, simd::Level level) {
    Settings s;
    s.level = level;
    s.enable_lcs = opts.get_bool("enable_lcs");
    s.enable_db = opts.get_bool("enable_db");
    s.clip_db = opts.get_bool("clip_db");
    s.scale = opts.get_int("scale");
    s.names.push_back(opts.feature_name("float_ssim"));
    if (s.enable_lcs)
      for (const char* n : {"float_ssim_l", "float_ssim_c", "float_ssim_s"})
        s.names.push_back(opts.feature_name(n));
    return s;
  }

  void init(const VideoFormat& format) override {
    format_ = format;
    const int w = format.width;
    const int h = format.height;
    scale_ = set_.scale > 0
                 ? set_.scale
                 : std::max(1, iqa_round(static_cast<float>(std::min(w, h)) / 256.0f));
    work_w_ = scale_ > 1 ? iqa::decimated_size(w, scale_) : w;
    work_h_ = scale_ > 1 ? iqa::decimated_size(h, scale_) : h;
    if (work_w_ < iqa::kGaussianLen || work_h_ < iqa::kGaussianLen) {
      if (scale_ > 1)
        throw Error(fmt::format(
            "float_ssim: frame {}x{} downscaled by {} is {}x{}, smaller than the minimum {}x{} "
            "(the SSIM Gaussian window); use a smaller scale",
            w, h, scale_, work_w_, work_h_, iqa::kGaussianLen, iqa::kGaussianLen));
      throw Error(fmt::format(
          "float_ssim: frame {}x{} is smaller than the minimum {}x{} (the SSIM Gaussian window)",
          w, h, iqa::kGaussianLen, iqa::kGaussianLen));
    }

    // dB ceiling: 10·log10(peak² / (0.5 / (W·H))), rounded up (libvmaf init()).
    max_db_ = std::numeric_limits<double>::infinity();
    if (set_.clip_db) {
      const unsigned peak = (1u << format.bit_depth) - 1u;
      const double mse = 0.5 / static_cast<double>(static_cast<unsigned>(w) * static_cast<unsigned>(h));
      max_db_ = std::ceil(10. * std::log10(static_cast<double>(peak * peak) / mse));
    }

    const std::size_t full = static_cast<std::size_t>(w) * h;
    ref_.assign(full, 0.0f);
    dist_.assign(full, 0.0f);
    if (scale_ > 1) {
      const std::size_t small = static_cast<std::size_t>(work_w_) * work_h_;
      ref_small_.assign(small, 0.0f);
      dist_small_.assign(small, 0.0f);
      // Box filter of scale × scale taps, each 1/scale² (in float).
      box_.assign(static_cast<std::size_t>(scale_) * scale_, 1.0f / (scale_ * scale_));
      decimate_scratch_.assign(iqa::decimate_scratch_size(w, scale_, scale_), 0.0f);
    }
    workspace_.reserve(work_w_, work_h_);
  }

  std::vector<std::string> feature_names() const override { return set_.names; }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error("float_ssim: picture format differs from the format given to init()");
    const float* r = ref_.data();
    const float* d = dist_.data();
    if (scale_ > 1) {
      // With SIMD the planes are decimated straight from their samples
      // (decimate_plane, identical floats); otherwise converted first.
      downscale(reference, ref_, ref_small_);
      downscale(distorted, dist_, dist_small_);
      r = ref_small_.data();
      d = dist_small_.data();
    } else {
      plane_to_float(reference.plane(0), reference.bit_depth(), 0.0f, ref_.data());
      plane_to_float(distorted.plane(0), distorted.bit_depth(), 0.0f, dist_.data());
    }
    const iqa::SsimMeans m = iqa::ssim_gaussian(dsp_, r, d, work_w_, work_h_, workspace_, tiles_);

    double score = m.ssim;
    if (set_.enable_db) {
      const double db = -10. * std::log10(1 - score);
      score = db < max_db_ ? db : max_db_;  // libvmaf's MIN(db, max_db)
    }
    out.set(set_.names[0], index, score);
    if (set_.enable_lcs) {
      out.set(set_.names[1], index, m.luminance);
      out.set(set_.names[2], index, m.contrast);
      out.set(set_.names[3], index, m.structure);
    }
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatSsim>(set_);
  }

 private:
  // Luma of `picture` box-decimated by scale_ into `small` (via `full`, its
  // float image, on the scalar path).
  void downscale(const Picture& picture, std::vector<float>& full, std::vector<float>& small) {
    if (iqa::decimate_plane(dsp_, picture.plane(0), picture.bit_depth(), scale_, box_.data(),
                            scale_, small.data(), decimate_scratch_.data()))
      return;
    plane_to_float(picture.plane(0), picture.bit_depth(), 0.0f, full.data());
    iqa::decimate(dsp_, full.data(), format_.width, format_.height, scale_, box_.data(), scale_,
                  small.data(), decimate_scratch_.data());
  }

  Settings set_;
  const iqa::IqaDsp& dsp_;

  VideoFormat format_{};
  int scale_ = 1;
  int work_w_ = 0;
  int work_h_ = 0;
  double max_db_ = 0;
  std::vector<float> ref_, dist_, ref_small_, dist_small_, box_;
  std::vector<float> decimate_scratch_;  // phase-split rows for the SIMD decimate
  iqa::SsimWorkspace workspace_;
  TileRunner* tiles_ = nullptr;  // null: one thread
};

std::vector<OptionSpec> float_ssim_options() {
  OptionSpec scale;
  scale.name = "scale";
  scale.type = OptionSpec::Type::kInt;
  scale.default_value = 0;
  scale.min = 0;
  scale.max = 10;
  scale.feature_param = false;
  scale.help =
      "box-filter decimation factor: 0 picks max(1, round(min(W, H) / 256)), 1 keeps "
      "full size, 2..10 force that factor";
  return {bool_option("enable_lcs", "", false,
                      "also emit the mean luminance, contrast and structure terms "
                      "(float_ssim_l, _c, _s)"),
          bool_option("enable_db", "", false, "report -10·log10(1 - SSIM) in dB instead of SSIM"),
          bool_option("clip_db", "", false,
                      "with enable_db, cap the dB score at a ceiling set by frame "
                      "size and bit depth"),
          scale};
}

const bool kRegistered = register_extractor({
    .name = "float_ssim",
    .options = float_ssim_options(),
    .provided_features = {"float_ssim"},
    .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<FloatSsim>(FloatSsim::settings_from(o, l));
    },
});

}  // namespace
}  // namespace vqe
