// SPDX-License-Identifier: BSD-2-Clause
// The `adm` extractor on the CPU: libvmaf's integer ADM
// (libvmaf/src/feature/integer_adm.c); its definition (options, names,
// outputs) is adm_score.h.

#include <memory>
#include <optional>
#include <string>

#include "core/extractor.h"
#include "core/reference_pool.h"
#include "features/adm/adm_score.h"
#include "features/adm/integer_adm.h"
#include "vqe/error.h"

namespace vqe {
namespace {

class IntegerAdmExtractor final : public FeatureExtractor {
 public:
  IntegerAdmExtractor(const ParsedOptions& opts, simd::Level level)
      : opts_(opts), level_(level), scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    adm_.emplace(format.width, format.height, format.bit_depth, scorer_.params(), level_);
    format_ = format;
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void extract(const Picture& reference, const Picture& distorted, unsigned index,
               FeatureCollector& out) override {
    if (!adm_) throw Error("adm: extract() called before init()");
    for (const Picture* p : {&reference, &distorted})
      if (p->width() != format_.width || p->height() != format_.height ||
          p->bit_depth() != format_.bit_depth)
        throw Error("adm: picture format differs from the one given to init()");
    if (!shared_ || !adm_->splits_reference()) {
      scorer_.emit(index, adm_->compute(reference.plane(0), distorted.plane(0), tiles_), out);
      return;
    }
    // In a ladder: the reference's DWT and denominator once per frame for
    // all the encodes.
    const auto frame = shared_.take(index, [&](adm::ReferenceFrame& f) {
      adm_->compute_reference(reference.plane(0), f, tiles_);
    });
    scorer_.emit(index, adm_->compute_pair(*frame, distorted.plane(0), tiles_), out);
  }

  void set_tile_runner(TileRunner* runner) override { tiles_ = runner; }

  void set_reference_cache(ReferenceCache* cache, const std::string& key) override {
    shared_.attach(cache, key);
  }

  bool flush_writes_nothing() const override { return true; }

  bool needs_chroma() const override { return false; }

  std::unique_ptr<FeatureExtractor> clone() const override {
    return std::make_unique<IntegerAdmExtractor>(opts_, level_);
  }

 private:
  ParsedOptions opts_;
  simd::Level level_;
  adm::Scorer scorer_;
  VideoFormat format_{};
  std::optional<adm::IntegerAdm> adm_;
  TileRunner* tiles_ = nullptr;  // null: one thread
  SharedReference<adm::ReferenceFrame> shared_;  // a ladder's shared reference work, or empty
};

}  // namespace

const ExtractorInfo& adm_extractor() {
  static const ExtractorInfo info{
      .name = "adm",
      .options = adm::options(),
      .provided_features = adm::provided_features(),
      .make = [](const ParsedOptions& o, simd::Level l) -> std::unique_ptr<FeatureExtractor> {
        return std::make_unique<IntegerAdmExtractor>(o, l);
      },
      .make_cuda = VQE_CUDA_TWIN(adm::make_cuda),
      .make_vulkan = VQE_VULKAN_TWIN(adm::make_vulkan),
  };
  return info;
}

}  // namespace vqe
