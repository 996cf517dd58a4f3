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

constexpr int kScales = 5;
// Smallest side accepted: libvmaf's check floor(side / 2^k) >= 11 for k < 5.
constexpr int kMinSide = iqa::kGaussianLen << (kScales - 1);  // 176

// 9×9 low-pass (9/7 biorthogonal wavelet) used to build the pyramid, as typed
// in libvmaf's ms_ssim.c g_lpf (applied as a 2-D kernel).
constexpr int kLpfLen = 9;
constexpr float kLowPass[kLpfLen * kLpfLen] = {
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    0.016114f,  -0.010146f, -0.047149f, 0.160885f,  0.363505f,  0.160885f,  -0.047149f, -0.010146f, 0.016114f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
};

// Per-scale exponents (Wang's MS-SSIM weights as libvmaf types them).
constexpr float kAlpha[kScales] = {0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f};
constexpr float kBeta[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
constexpr float kGamma[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

class FloatMsSsim final : public FeatureExtractor {
 public:
  // Options resolved once, at construction; no ParsedOptions is kept.
  struct Settings {
    bool enable_lcs = false;
    bool enable_db = false;
    bool clip_db = false;
    std::vector<std::string> names;  // emitted names, output order
    simd::Level level = simd::Level::scalar;  // CPU level of the kernels
  };

  explicit FloatMsSsim(Settings settings)
      : set_(std::move(settings)), dsp_(iqa::iqa_dsp(set_.level)) {}

  static Settings settings_from(const ParsedOptions& opts, simd::Level level) {
    Settings s;
    s.level = level;
    s.enable_lcs = opts.get_bool("enable_lcs");
    s.enable_db = opts.get_bool("enable_db");
    s.clip_db = opts.get_bool("clip_db");
    s.names.push_back(opts.feature_name("float_ms_ssim"));
    if (s.enable_lcs)
      for (const char* term : {"l", "c", "s"})
        for (int k = 0; k < kScales; ++k)
          s.names.push_back(opts.feature_name(fmt::format("float_ms_ssim_{}_scale{}", term, k)));
    return s;
  }

  void init(const VideoFormat& format) override {
    format_ = format;
    const int w = format.width;
    const int h = format.height;
    if (w < kMinSide || h < kMinSide)
      throw Error(fmt::format(
          "float_ms_ssim: frame {}x{} is smaller than the minimum {}x{} ({} scales, each at "
          "least {}x{} for the SSIM window)",
          w, h, kMinSide, kMinSide, kScales, iqa::kGaussianLen, iqa::kGaussianLen));

    max_db_ = std::numeric_limits<double>::infinity();
    if (set_.clip_db) {
      const unsigned peak = (1u << format.bit_depth) - 1u;
      const double mse =
          0.5 / static_cast<double>(static_cast<unsigned>(w) * static_cast<unsigned>(h));
      max_db_ = std::ceil(10. * std::log10(static_cast<double>(peak * peak) / mse));
    }

    int cw = w, ch = h;
    for (int k = 0; k < kScales; ++k) {
      widths_[k] = cw;
      heights_[k] = ch;
      ref_[k].assign(static_cast<std::size_t>(cw) * ch, 0.0f);
      dist_[k].assign(static_cast<std::size_t>(cw) * ch, 0.0f);
      cw = iqa::decimated_size(cw, 2);
      ch = iqa::decimated_size(ch, 2);
    }
    workspace_.reserve(w, h);
    decimate_scratch_size_ = iqa::decimate_scratch_size(w, 2, kLpfLen);
    decimate_scratch_.assign(1, std::vector<float>(decimate_scratch_size_, 0.0f));
  }

  std::vector<std::string> feature_names() const override { return set_.names; }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error("float_ms_ssim: picture format differs from the format given to init()");
    plane_to_float(reference.plane(0), reference.bit_depth(), 0.0f, ref_[0].data());
    plane_to_float(distorted.plane(0), distorted.bit_depth(), 0.0f, dist_[0].data());
    // Each scale's low-pass decimation in row tiles (one scratch per slot).
    TileRunner& runner = tiles_ ? *tiles_ : serial_tile_runner();
    if (decimate_scratch_.size() < runner.width()) decimate_scratch_.resize(runner.width());
    for (int k = 1; k < kScales; ++k) {
      const unsigned tiles = runner.tile_count(heights_[k], 16, widths_[k]);
      runner.run(tiles, [&](unsigned tile, unsigned slot) {
        std::vector<float>& scratch = decimate_scratch_[slot];
        if (scratch.empty()) scratch.assign(decimate_scratch_size_, 0.0f);  // first use
        const TileRows rows = tile_rows(tile, tiles, heights_[k]);
        iqa::decimate(dsp_, ref_[k - 1].data(), widths_[k - 1], heights_[k - 1], 2, kLowPass,
                      kLpfLen, ref_[k].data(), scratch.data(), rows.begin, rows.end);
        iqa::decimate(dsp_, dist_[k - 1].data(), widths_[k - 1], heights_[k - 1], 2, kLowPass,
                      kLpfLen, dist_[k].data(), scratch.data(), rows.begin, rows.end);
      });
    }

    double l[kScales], c[kScales], s[kScales];
    double ms_ssim = 1.0;
    for (int k = 0; k < kScales; ++k) {
      const iqa::SsimMeans m =
          iqa::ssim_gaussian(dsp_, ref_[k].data(), dist_[k].data(), widths_[k], heights_[k],
                             workspace_, tiles_);
      ms_ssim *= std::pow(static_cast<double>(m.luminance), static_cast<double>(kAlpha[k])) *
                 std::pow(static_cast<double>(m.contrast), static_cast<double>(kBeta[k])) *
                 std::pow(static_cast<double>(m.structure), static_cast<double>(kGamma[k]));
      l[k] = m.luminance;
      c[k] = m.contrast;
      s[k] = m.structure;
      if (ms_ssim == std::numeric_limits<double>::infinity())
        throw Error(fmt::format("float_ms_ssim: frame {}: the score is infinite", index));
    }

    double score = ms_ssim;
    if (set_.enable_db) {
      const double db = -10. * std::log10(1 - score);
      score = db < max_db_ ? db : max_db_;  // libvmaf's MIN(db, max_db)
    }
    out.set(set_.names[0], index, score);
    if (set_.enable_lcs) {
      std::size_t i = 1;
      for (const double* term : {l, c, s})
        for (int k = 0; k < kScales; ++k) out.set(set_.names[i++], index, term[k]);
    }
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<FloatMsSsim>(set_);
  }

 private:
  Settings set_;
  const iqa::IqaDsp& dsp_;

  VideoFormat format_{};
  double max_db_ = 0;
  int widths_[kScales] = {};
  int heights_[kScales] = {};
  std::vector<float> ref_[kScales], dist_[kScales];
  iqa::SsimWorkspace workspace_;
  // Phase-split rows for the SIMD decimate, one per tile slot.
  std::vector<std::vector<float>> decimate_scratch_;
  std::size_t decimate_scratch_size_ = 0;
  TileRunner* tiles_ = nullptr;  // null: one thread
};

const bool kRegistered = register_extractor({
    .name = "float_ms_ssim",
    .options = {bool_option("enable_lcs", "", false,
                            "also emit each scale's mean luminance, contrast and structure "
                            "terms"),
                bool_option("enable_db", "", false, "report -10·log10(1 - MS-SSIM) in dB instead"),
                bool_option("clip_db", "", false,
                            "with enable_db, cap the dB score at a ceiling set by "
                            "frame size and bit depth")},
    .provided_features = {"float_ms_ssim"},
    .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
      return std::make_unique<FloatMsSsim>(FloatMsSsim::settings_from(o, l));
    },
});

}  // namespace
}  // namespace vqe
