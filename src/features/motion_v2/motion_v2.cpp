// SPDX-License-Identifier: BSD-2-Clause
// The integer motion extractor "motion_v2" of lusoris/vmaf
// (libvmaf/src/feature/integer_motion_v2.c at commit
// c2a3c7e0febd98a6831b9bfebe5e298e229b1244), CPU compute and record.
//
// Per frame i >= 1 it emits the score of Σ|blur(ref[i-1] − ref[i])|
// (VMAF_integer_feature_motion_v2_sad_score; 0 at frame 0); at the end of the
// video VMAF_integer_feature_motion2_v2_score (the smaller of the scores of i
// and i+1) and VMAF_integer_feature_motion3_v2_score (motion2_v2 blended and
// clipped). The fork fuses the difference, the blur and the absolute sum
// row by row; the integers are those of libvmaf 3.2.0's integer motion, so
// this file calls `motion`'s SAD kernels (motion_kernels.h, scalar and
// Highway SIMD, equal at every level) and adds its own definition
// (motion_v2_score.h).
//
// The frame pair of frame i is frames i-1 and i, so the extractor is
// pairwise (FeatureExtractor::pair_distance() == 1): the SADs of several
// frames run on any worker, the scores are emitted in order.

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/extractor.h"
#include "features/motion/motion_kernels.h"
#include "features/motion_v2/motion_v2_score.h"
#include "vqe/error.h"

namespace vqe {
namespace {

constexpr const char* kExtractor = "motion_v2";

/// lusoris/vmaf's motion_v2 on the CPU. Reads the reference luma only; the
/// distorted pictures are ignored. Accepts luma of at least 3x3 at 8, 10, 12
/// and 16 bits (the Scorer's refusals).
class MotionV2 final : public FeatureExtractor {
 public:
  MotionV2(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), dsp_(motion::motion_dsp(level)), scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
    row_.assign(static_cast<std::size_t>(format.width) + 2 * motion::kRadius, 0);
    previous_.clear();  // allocated by extract() on its first frame
    frames_ = 0;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  // Frames in order on one instance: keeps a copy of the previous luma.
  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    (void)distorted;
    if (index != frames_)
      throw Error(fmt::format("{}: frame {} arrived out of order (expected frame {})",
                              kExtractor, index, frames_));
    double score = 0.0;
    if (!scorer_.force_zero()) {
      if (index > 0) score = pair_score(previous_.data(), format_.width, reference.plane(0));
      keep_previous(reference);
    }
    scorer_.emit(index, score, out);
    ++frames_;
  }

  unsigned pair_distance() const override { return 1; }

  PairValues extract_pair(const Picture* earlier_reference, const Picture*,
                          const Picture& reference, const Picture&, unsigned) override {
    PairValues v;
    if (!scorer_.force_zero() && earlier_reference) {
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

  // The fork's flush(): motion2_v2 and motion3_v2 of the frames left.
  void flush(FeatureCollector& out) override { scorer_.flush(out); }

  bool temporal() const override { return true; }
  unsigned lag() const override { return motion_v2::Scorer::lag(); }
  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<MotionV2>(opts_, level_);
  }

 private:
  // The score of the blurred difference between `prev` (luma, `prev_stride`
  // samples between rows) and the luma plane `cur`.
  double pair_score(const std::uint8_t* prev, std::ptrdiff_t prev_stride, const Plane& cur) {
    const int w = format_.width, h = format_.height, bpc = format_.bit_depth;
    const std::uint64_t sad =
        bpc == 8 ? dsp_.sad8(prev, prev_stride, cur.row<std::uint8_t>(0), cur.stride, w, h, bpc,
                             row_.data())
                 : dsp_.sad16(reinterpret_cast<const std::uint16_t*>(prev), prev_stride,
                              cur.row<std::uint16_t>(0), cur.stride / 2, w, h, bpc, row_.data());
    return scorer_.frame_score(sad, w, h);
  }

  // Copies the luma of `picture` (rows packed, `width` samples apart).
  void keep_previous(const Picture& picture) {
    const std::size_t row_bytes =
        static_cast<std::size_t>(format_.width) * format_.bytes_per_sample();
    if (previous_.empty()) previous_.resize(row_bytes * static_cast<std::size_t>(format_.height));
    const Plane& y = picture.plane(0);
    for (int r = 0; r < format_.height; ++r)
      std::memcpy(previous_.data() + static_cast<std::size_t>(r) * row_bytes,
                  y.row<std::uint8_t>(r), row_bytes);
  }

  ParsedOptions opts_;
  simd::Level level_;
  const motion::MotionDsp& dsp_;
  motion_v2::Scorer scorer_;
  VideoFormat format_{};
  std::vector<std::int32_t> row_;       // one padded row of the vertical pass
  std::vector<std::uint8_t> previous_;  // the previous frame's luma (extract())
  unsigned frames_ = 0;
};

}  // namespace

const ExtractorInfo& motion_v2_extractor() {
  static const ExtractorInfo info{
      .name = kExtractor,
      .options = motion_v2::options(),
      .provided_features = motion_v2::provided_features(),
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<MotionV2>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(motion_v2::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(motion_v2::make_vulkan),
      .first_written = motion_v2::first_written,
  };
  return info;
}

}  // namespace vqe
