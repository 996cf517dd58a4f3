// SPDX-License-Identifier: BSD-2-Clause
// The "cambi" feature extractor: libvmaf 3.2.0's CAMBI banding index
// (libvmaf/src/feature/cambi.c), no-reference on the distorted picture, or
// full-reference (full_ref=true) comparing it with the reference's banding.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "features/cambi/cambi_core.h"
#include "features/cambi/luminance.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

constexpr double kDefaultTopk = 0.6;
constexpr const char* kDefaultEotf = "bt1886";
constexpr int kContrastWeights[32] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7, 8,
                                      8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

std::vector<OptionSpec> cambi_options() {
  using T = OptionSpec::Type;
  // name, alias, type, default, min, max, default_string, feature_param, help
  return {
      {"cambi_max_val", "cmxv", T::kDouble, 1000.0, 0.0, 1000.0, "", true,
       "ceiling of the reported CAMBI scores; higher scores are clamped to it"},
      {"enc_width", "encw", T::kInt, 0, 180, 7680, "", true, "encoded width in pixels; frames are resampled down to it (0 = input width)"},
      {"enc_height", "ench", T::kInt, 0, 150, 7680, "", true, "encoded height in pixels; frames are resampled down to it (0 = input height)"},
      {"enc_bitdepth", "encbd", T::kInt, 0, 6, 16, "", true, "bit depth of the encode; below 10 adds anti-dither smoothing (0 = input depth)"},
      {"src_width", "srcw", T::kInt, 0, 320, 7680, "", true,
       "full_ref only: width at which the reference is scored (0 = input width)"},
      {"src_height", "srch", T::kInt, 0, 200, 4320, "", true,
       "full_ref only: height at which the reference is scored (0 = input height)"},
      {"window_size", "ws", T::kInt, 65, 15, 127, "", true,
       "side of the sliding window in pixels at 3840x2160, scaled with width + height; "
       "the default 65 subtends about one degree of view"},
      {"topk", "", T::kDouble, kDefaultTopk, 0.0001, 1.0, "", true,
       "fraction in (0, 1] of the highest per-pixel banding values averaged per scale"},
      {"cambi_topk", "ctpk", T::kDouble, kDefaultTopk, 0.0001, 1.0, "", true,
       "same as topk, in (0, 1]; used when topk is left at its default"},
      {"tvi_threshold", "tvit", T::kDouble, 0.019, 0.0001, 1.0, "", true,
       "Weber fraction: a luma step is deemed invisible when its luminance change is "
       "below this share of the mean luminance"},
      {"cambi_vis_lum_threshold", "vlt", T::kDouble, 0.0, 0.0, 300.0, "", true,
       "luminance in cd/m² under which banding is ignored as too dark to see"},
      {"max_log_contrast", "mlc", T::kInt, 2, 0, 5, "", true,
       "largest luma step tested, as log2 of 10-bit code values (2: steps of 1 to 4 codes)"},
      {"heatmaps_path", "", T::kString, 0, -1e300, 1e300, "", false,
       "directory that receives per-scale 16-bit banding heatmaps (empty: none)"},
      {"full_ref", "", T::kBool, 0, -1e300, 1e300, "", false,
       "also score the reference, emitting cambi_source and cambi_full_reference "
       "(distorted minus reference, floored at 0)"},
      {"eotf", "", T::kString, 0, -1e300, 1e300, kDefaultEotf, true,
       "transfer function (bt1886 or pq) mapping luma codes to cd/m² for the banding "
       "visibility tests"},
      {"cambi_eotf", "ceot", T::kString, 0, -1e300, 1e300, kDefaultEotf, true,
       "same as eotf (bt1886 or pq); wins over eotf when set to a non-default value"},
      {"cambi_high_res_speedup", "hrs", T::kInt, 0, 0, 2160, "", true,
       "from this frame size up (1080, 1440 or 2160; 0 = never), work at half resolution "
       "after the spatial mask: faster, slightly less exact"},
  };
}

/// Option values of one CAMBI instance, read once from ParsedOptions.
struct CambiOptions {
  double max_val = 1000.0;
  int enc_width = 0, enc_height = 0, enc_bit_depth = 0;
  int src_width = 0, src_height = 0;
  int window_size = 65;
  double topk = kDefaultTopk, cambi_topk = kDefaultTopk;
  double tvi_threshold = 0.019;
  double vis_lum_threshold = 0.0;
  int max_log_contrast = 2;
  std::string heatmaps_path;
  bool full_ref = false;
  std::string eotf, cambi_eotf;
  int high_res_speedup = 0;
  std::string feature_name;  ///< emitted name of Cambi_feature_cambi_score

  explicit CambiOptions(const ParsedOptions& o)
      : max_val(o.get_double("cambi_max_val")),
        enc_width(o.get_int("enc_width")),
        enc_height(o.get_int("enc_height")),
        enc_bit_depth(o.get_int("enc_bitdepth")),
        src_width(o.get_int("src_width")),
        src_height(o.get_int("src_height")),
        window_size(o.get_int("window_size")),
        topk(o.get_double("topk")),
        cambi_topk(o.get_double("cambi_topk")),
        tvi_threshold(o.get_double("tvi_threshold")),
        vis_lum_threshold(o.get_double("cambi_vis_lum_threshold")),
        max_log_contrast(o.get_int("max_log_contrast")),
        heatmaps_path(o.get_string("heatmaps_path")),
        full_ref(o.get_bool("full_ref")),
        eotf(o.get_string("eotf")),
        cambi_eotf(o.get_string("cambi_eotf")),
        high_res_speedup(o.get_int("cambi_high_res_speedup")),
        feature_name(o.feature_name("Cambi_feature_cambi_score")) {}
};

/// CAMBI extractor. Emits "cambi" (plus option suffix) for the distorted
/// picture; with full_ref also "cambi_source" and "cambi_full_reference"
/// (libvmaf emits those two without suffix). Accepts 8/10/12/16-bit input;
/// refuses pictures whose encoding resolution has both sides below 216.
class CambiExtractor final : public FeatureExtractor {
 public:
  explicit CambiExtractor(const CambiOptions& opts) : opts_(opts) {}

  void init(const VideoFormat& format) override {
    enc_width_ = opts_.enc_width;
    enc_height_ = opts_.enc_height;
    enc_bit_depth_ = opts_.enc_bit_depth;
    src_width_ = opts_.src_width;
    src_height_ = opts_.src_height;
    full_ref_ = opts_.full_ref;
    max_val_ = opts_.max_val;
    const int w = format.width;
    const int h = format.height;

    if (enc_bit_depth_ == 0) enc_bit_depth_ = format.bit_depth;
    if (enc_width_ == 0 || enc_height_ == 0) {
      enc_width_ = w;
      enc_height_ = h;
    }
    if (src_width_ == 0 || src_height_ == 0) {
      src_width_ = w;
      src_height_ = h;
    }
    // A downscaled encode is not scaled back up to its encoding resolution.
    if (enc_height_ > h || enc_width_ > w) {
      enc_width_ = w;
      enc_height_ = h;
    }

    if (enc_width_ < cambi::kMinWidthOrHeight && enc_height_ < cambi::kMinWidthOrHeight)
      throw Error(fmt::format(
          "cambi: frame {}x{} is too small: libvmaf's CAMBI needs a width or a height of at "
          "least {} pixels (processed at {}x{})",
          w, h, cambi::kMinWidthOrHeight, enc_width_, enc_height_));
    if (src_width_ < cambi::kMinWidthOrHeight && src_height_ < cambi::kMinWidthOrHeight)
      throw Error(fmt::format(
          "cambi: source resolution {}x{} is too small: CAMBI needs a width or a height of at "
          "least {} pixels",
          src_width_, src_height_, cambi::kMinWidthOrHeight));
    if ((src_width_ > enc_width_ && src_height_ < enc_height_) ||
        (src_width_ < enc_width_ && src_height_ > enc_height_))
      throw Error(fmt::format(
          "cambi: source resolution {}x{} and encoding resolution {}x{} must not be larger "
          "in one direction and smaller in the other",
          src_width_, src_height_, enc_width_, enc_height_));

    // High-res speed-up only applies from the given resolution upwards.
    speedup_ = opts_.high_res_speedup;
    const long enc_pixels = static_cast<long>(enc_width_) * enc_height_;
    switch (speedup_) {
      case 1080: if (enc_pixels < 1920L * 1080) speedup_ = 0; break;
      case 1440: if (enc_pixels < 2560L * 1440) speedup_ = 0; break;
      case 2160: if (enc_pixels < 3840L * 2160) speedup_ = 0; break;
      default: speedup_ = 0;
    }

    const int alloc_w = full_ref_ ? std::max(src_width_, enc_width_) : enc_width_;
    const int alloc_h = full_ref_ ? std::max(src_height_, enc_height_) : enc_height_;

    cambi::Settings settings;
    settings.num_diffs = 1 << opts_.max_log_contrast;
    settings.diff_weights.assign(kContrastWeights, kContrastWeights + settings.num_diffs);

    const cambi::LumaRange range = cambi::limited_luma_range(10);
    // cambi_eotf wins when it is not the default, else eotf.
    const std::string& cambi_eotf = opts_.cambi_eotf;
    const std::string& eotf_name =
        cambi_eotf != kDefaultEotf ? cambi_eotf : opts_.eotf;
    const cambi::Eotf eotf = cambi::eotf_by_name(eotf_name);
    if (!eotf)
      throw Error(fmt::format("cambi: unknown EOTF '{}' (expected bt1886 or pq)", eotf_name));

    const double tvi_threshold = opts_.tvi_threshold;
    for (int d = 0; d < settings.num_diffs; ++d)
      settings.tvi_adjusted.push_back(
          static_cast<std::uint16_t>(cambi::tvi_for_diff(d + 1, tvi_threshold, range, eotf) +
                                     settings.num_diffs));
    const double vlt = opts_.vis_lum_threshold;
    settings.vlt_luma = cambi::visibility_luma_threshold(vlt, range, eotf);
    if (settings.vlt_luma < 0)
      throw Error(fmt::format(
          "cambi: cambi_vis_lum_threshold={:g} is above the peak luminance of the {} EOTF",
          vlt, eotf_name));

    const bool hrs = speedup_ != 0;
    window_ = cambi::adjusted_window_size(opts_.window_size, enc_width_,
                                          enc_height_, hrs);
    src_window_ = cambi::adjusted_window_size(opts_.window_size, src_width_,
                                              src_height_, hrs);
    const int max_window = std::max(window_, src_window_);
    if (max_window * max_window >= cambi::kReciprocalTableSize)
      throw Error(fmt::format(
          "cambi: window_size {} scales to a {}-pixel window at {}x{}, above libvmaf's limit "
          "of 65 (window^2 must be below {}); choose a smaller window_size",
          opts_.window_size, max_window, std::max(enc_width_, src_width_),
          std::max(enc_height_, src_height_), cambi::kReciprocalTableSize));

    // Shapes where libvmaf's window reads outside the picture.
    std::string why = cambi::degenerate_shape_reason(enc_width_, enc_height_, window_, hrs);
    if (why.empty() && full_ref_)
      why = cambi::degenerate_shape_reason(src_width_, src_height_, src_window_, hrs);
    if (!why.empty())
      throw Error(fmt::format("cambi: frame {}x{} is too thin to score: {}", w, h, why));

    // topk wins when it is not the default, else cambi_topk.
    topk_ = opts_.topk != kDefaultTopk ? opts_.topk : opts_.cambi_topk;

    bit_depth_ = format.bit_depth;
    scorer_.init(alloc_w, alloc_h, settings);

    if (!opts_.heatmaps_path.empty()) heatmaps_.open(opts_.heatmaps_path, enc_width_, enc_height_);
  }

  std::vector<std::string> feature_names() const override {
    std::vector<std::string> names{opts_.feature_name};
    if (opts_.full_ref) {
      names.emplace_back("cambi_source");
      names.emplace_back("cambi_full_reference");
    }
    return names;
  }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    const bool hrs = speedup_ != 0;
    const double dist_score = scorer_.score(
        distorted.plane(0), bit_depth_, enc_width_, enc_height_, enc_bit_depth_, window_, topk_,
        hrs, heatmaps_.is_open() ? &heatmaps_ : nullptr, index);
    out.set(opts_.feature_name, index, clip(dist_score));
    if (!full_ref_) return;
    const double src_score =
        scorer_.score(reference.plane(0), bit_depth_, src_width_, src_height_, enc_bit_depth_,
                      src_window_, topk_, hrs, nullptr, index);
    out.set("cambi_source", index, clip(src_score));
    const double diff = dist_score - src_score;
    out.set("cambi_full_reference", index, clip(0 > diff ? 0 : diff));
  }

  // Heatmap files are written at per-frame offsets by one instance.
  bool temporal() const override { return !opts_.heatmaps_path.empty(); }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<CambiExtractor>(opts_);
  }

 private:
  // libvmaf's MIN(score, cambi_max_val).
  double clip(double score) const { return score < max_val_ ? score : max_val_; }

  CambiOptions opts_;
  int enc_width_ = 0, enc_height_ = 0, enc_bit_depth_ = 0;
  int src_width_ = 0, src_height_ = 0;
  int window_ = 0, src_window_ = 0;
  int speedup_ = 0;
  int bit_depth_ = 8;
  bool full_ref_ = false;
  double max_val_ = 1000.0;
  double topk_ = kDefaultTopk;
  cambi::Scorer scorer_;
  cambi::HeatmapWriter heatmaps_;
};

}  // namespace

const ExtractorInfo& cambi_extractor() {
  static const ExtractorInfo info{
      "cambi",
      cambi_options(),
      {"Cambi_feature_cambi_score"},
      [](const ParsedOptions& opts, simd::Level) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<CambiExtractor>(CambiOptions(opts));
      },
  };
  return info;
}

}  // namespace vqe
