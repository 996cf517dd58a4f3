// SPDX-License-Identifier: BSD-2-Clause
// The `vif` extractor on the CPU: libvmaf's integer VIF
// (libvmaf/src/feature/integer_vif.c, vmaf_fex_integer_vif) on the luma
// plane; its definition (options, names, outputs) is vif_score.h.

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/extractor.h"
#include "core/reference_pool.h"
#include "features/vif/integer_vif.h"
#include "features/vif/vif_score.h"
#include "vqe/error.h"

namespace vqe {
namespace {

/// Integer VIF on luma. Accepts 8/10/12/16-bit pictures of at least 16x16
/// luma samples; non-temporal, cloneable.
class VifExtractor final : public FeatureExtractor {
 public:
  VifExtractor(const ParsedOptions& opts, simd::Level level)
      : opts_(opts),
        level_(level),
        scorer_(opts),
        kernel_(scorer_.gain_limit(), scorer_.skip_scale0(), level) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    kernel_.init(format.width, format.height, format.bit_depth);
    format_ = format;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (reference.format() != format_ || distorted.format() != format_)
      throw Error(fmt::format("vif: frame {} does not have the initialised format {}x{} {}-bit",
                              index, format_.width, format_.height, format_.bit_depth));
    if (!shared_) {
      scorer_.emit(index, kernel_.compute(reference.plane(0), distorted.plane(0), tiles_), out);
      return;
    }
    // In a ladder: the reference part once per frame for all the encodes.
    const auto frame = shared_.take(index, [&](vif::ReferenceFrame& f) {
      kernel_.compute_reference(reference.plane(0), f, tiles_);
    });
    scorer_.emit(index,
                 kernel_.compute_pair(*frame, reference.plane(0), distorted.plane(0), tiles_),
                 out);
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  void set_reference_cache(ReferenceCache* cache, const std::string& key) override {
    shared_.attach(cache, key);
  }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<VifExtractor>(opts_, level_);
  }

 private:
  ParsedOptions opts_;
  simd::Level level_;
  vif::Scorer scorer_;
  vif::IntegerVifKernel kernel_;  // working buffers of this instance only
  VideoFormat format_{};
  TileRunner* tiles_ = nullptr;  // null: one thread
  SharedReference<vif::ReferenceFrame> shared_;  // a ladder's shared reference work, or empty
};

}  // namespace

const ExtractorInfo& vif_extractor() {
  static const ExtractorInfo info{
      .name = "vif",
      .options = vif::options(),
      .provided_features = vif::provided_features(),
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<VifExtractor>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(vif::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(vif::make_vulkan),
  };
  return info;
}

}  // namespace vqe
