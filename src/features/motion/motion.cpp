// SPDX-License-Identifier: BSD-2-Clause
// The integer motion extractor "motion" (libvmaf 3.2.0
// libvmaf/src/feature/integer_motion.c), with an option reproducing libvmaf
// 3.0/3.1 motion (motion_legacy).
//
// Per frame i it emits the SAD score m[i] (VMAF_integer_feature_motion_sad_score,
// and integer_motion with debug=true); at the end of the video it emits
// integer_motion2 (the smaller of m[i] and m[i+1]) and integer_motion3 (motion2
// blended and clipped), which need the next frame.
//
// motion_legacy=true reproduces libvmaf 3.0.0/3.1.0 (integer_motion.c at tag
// v3.0.0): each reference frame is blurred on its own (vertical pass rounded to
// bpc fractional bits, horizontal to 16, borders mirrored as -i before the
// start and 2n-1-i past the end), m[i] = (float)(SAD(blur[i-1], blur[i]) /
// 256) / (float)(w·h). motion2 then follows as in 3.2.0 (same structure as
// 3.0: 0, min(m[i], m[i+1]), last frame its own m). 3.0 printed
// integer_motion by default (its debug option defaulted to true): pass
// debug=true as well to get that column. The 3.2.0 options (fps weight,
// clipping, blending, five-frame window, moving average) apply on top; with
// their defaults the values are 3.0's. The option is not a feature
// parameter, so names stay integer_motion2 etc. and a VMAF model consumes the
// legacy values as it did under 3.0.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "features/motion/motion_kernels.h"
#include "features/motion/motion_score.h"
#include "vqe/error.h"
#include "core/extractor.h"

namespace vqe {
namespace {

constexpr const char* kExtractor = "motion";

/// libvmaf 3.2.0 integer motion (and, with motion_legacy, 3.0/3.1 motion).
/// Reads the reference luma only; distorted pictures are ignored. Accepts
/// any size >= 1x1 at 8, 10, 12 and 16 bits (below 3x3 libvmaf reads outside
/// the frame; VQE folds the mirror until it is inside, see motion_kernels.h).
class IntegerMotion final : public FeatureExtractor {
 public:
  IntegerMotion(const ParsedOptions& opts, simd::Level level)
      : opts_(opts),
        level_(level),
        dsp_(motion::motion_dsp(level)),
        scorer_(opts),
        force_zero_(scorer_.force_zero()),
        legacy_(scorer_.legacy()) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
    const std::size_t samples = static_cast<std::size_t>(format.width) * format.height;
    frame_stride_ = format.width;
    if (legacy_) {
      // Three blurred frames: current, previous and the one before.
      blur_.assign(3 * samples, 0);
      blur_row_.assign(static_cast<std::size_t>(format.width) + 2 * motion::kRadius, 0);
    } else {
      // extract() keeps three raw luma copies (current, n-1, n-2) in the
      // input's sample size, allocated on its first frame (the job's
      // pairwise path reads the earlier frame's own pictures instead).
      luma_.clear();
      diff_row_.assign(static_cast<std::size_t>(format.width) + 2 * motion::kRadius, 0);
    }
    frames_ = 0;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    (void)distorted;
    if (index != frames_)
      throw Error(fmt::format("{}: frame {} arrived out of order (expected frame {})",
                              kExtractor, index, frames_));
    const unsigned step = scorer_.step();  // distance to the frame compared with
    const bool compare = !force_zero_ && index >= step;
    double score = 0.0;

    if (legacy_) {
      // Every frame is blurred into the ring (under force_zero the 3.0
      // extractor emitted zeros without blurring).
      if (!force_zero_) {
        blur_current(reference, index);
        if (compare) {
          const std::uint64_t sad =
              dsp_.legacy_sad(blurred(index - step), blurred(index), frame_stride_,
                              format_.width, format_.height);
          score = scorer_.frame_score(sad, format_.width, format_.height);
        }
      }
    } else if (!force_zero_) {
      if (compare) {
        const std::size_t bps = format_.bytes_per_sample();
        const std::uint8_t* prev = luma_.data() + ((index - step) % 3) * plane_samples() * bps;
        score = pair_score(prev, frame_stride_, reference.plane(0));
      }
      store_current(reference, index);
    }

    scorer_.emit(index, score, out);
    ++frames_;
  }

  // 3.2.0 motion is pairwise: frame i's SAD reads the luma of frames i and
  // i - step only, so it runs on any worker; the ordered part is the
  // Scorer's (motion2 and motion3 need the next frames' scores).
  unsigned pair_distance() const override { return legacy_ ? 0 : scorer_.step(); }

  PairValues extract_pair(const Picture* earlier_reference, const Picture*,
                          const Picture& reference, const Picture&, unsigned) override {
    PairValues v;
    if (!force_zero_ && earlier_reference) {
      const Plane& prev = earlier_reference->plane(0);
      v.values[0] = pair_score(prev.data, prev.stride / format_.bytes_per_sample(),
                               reference.plane(0));
    }
    return v;
  }

  void emit_ordered(unsigned index, const PairValues& values, FeatureCollector& out) override {
    scorer_.emit(index, values.values[0], out);
  }
  // The SAD of two reference frames: the same for every encode of a ladder.
  bool pair_reference_only() const override { return true; }

  // libvmaf 3.2.0 flush(): motion2 and motion3 for every frame seen.
  void flush(FeatureCollector& out) override { scorer_.flush(out); }

  bool temporal() const override { return true; }
  unsigned lag() const override { return scorer_.lag(); }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<IntegerMotion>(opts_, level_);
  }

 private:
  std::size_t plane_samples() const {
    return static_cast<std::size_t>(format_.width) * format_.height;
  }

  void store_current(const Picture& picture, unsigned index) {
    if (luma_.empty()) luma_.assign(3 * plane_samples() * format_.bytes_per_sample(), 0);
    const Plane& y = picture.plane(0);
    const std::size_t row_bytes = static_cast<std::size_t>(format_.width) * format_.bytes_per_sample();
    std::uint8_t* dst = luma_.data() + (index % 3) * plane_samples() * format_.bytes_per_sample();
    for (int r = 0; r < format_.height; ++r)
      std::memcpy(dst + r * row_bytes, y.row<std::uint8_t>(r), row_bytes);
  }

  // The frame score of the blurred difference between `prev` (luma samples,
  // `prev_stride` samples between rows) and the current luma plane.
  double pair_score(const std::uint8_t* prev, std::ptrdiff_t prev_stride, const Plane& y) {
    const std::uint64_t sad =
        format_.bit_depth == 8
            ? dsp_.sad8(prev, prev_stride, y.row<std::uint8_t>(0), y.stride, format_.width,
                        format_.height, format_.bit_depth, diff_row_.data())
            : dsp_.sad16(reinterpret_cast<const std::uint16_t*>(prev), prev_stride,
                         y.row<std::uint16_t>(0), y.stride / 2, format_.width, format_.height,
                         format_.bit_depth, diff_row_.data());
    return scorer_.frame_score(sad, format_.width, format_.height);
  }

  const std::uint16_t* blurred(unsigned index) const {
    return blur_.data() + (index % 3) * plane_samples();
  }

  void blur_current(const Picture& picture, unsigned index) {
    const Plane& y = picture.plane(0);
    std::uint16_t* dst = blur_.data() + (index % 3) * plane_samples();
    if (format_.bit_depth == 8)
      dsp_.legacy_blur8(y.row<std::uint8_t>(0), y.stride, dst, frame_stride_, format_.width,
                        format_.height, 8, blur_row_.data());
    else
      dsp_.legacy_blur16(y.row<std::uint16_t>(0), y.stride / 2, dst, frame_stride_,
                         format_.width, format_.height, format_.bit_depth, blur_row_.data());
  }

  ParsedOptions opts_;
  simd::Level level_;
  const motion::MotionDsp& dsp_;
  motion::Scorer scorer_;  // names, per-frame scores, motion2/motion3
  bool force_zero_, legacy_;

  VideoFormat format_{};
  std::ptrdiff_t frame_stride_ = 0;       // samples between rows of our copies
  std::vector<std::uint8_t> luma_;        // 3 raw luma frames (3.2.0 mode)
  std::vector<std::int32_t> diff_row_;    // one padded row of the blurred difference
  std::vector<std::uint16_t> blur_;       // 3 blurred frames (legacy mode)
  std::vector<std::uint16_t> blur_row_;   // one padded row of the vertical pass
  unsigned frames_ = 0;
};

}  // namespace

const ExtractorInfo& motion_extractor() {
  static const ExtractorInfo info{
      .name = kExtractor,
      .options = motion::options(),
      .provided_features = motion::provided_features(),
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<IntegerMotion>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(motion::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(motion::make_vulkan),
      .first_written = motion::first_written,
  };
  return info;
}

}  // namespace vqe
