// SPDX-License-Identifier: BSD-2-Clause
// Integer ADM on Vulkan, bit-identical to the CPU reference
// (integer_adm.cpp): per chunk of frames, adm_level.comp for levels 0..3
// (DWT, decoupling, masker terms; the frames of the chunk in grid z) and
// adm_rows.comp for the raw 64-bit row sums of every level; the host applies
// the reference's per-row rounding and shifts (adm_internal.h's constants),
// adds the rows into LevelSums and scores them with the CPU's AdmScorer.
// Scratch holds one set of bands per frame of a chunk; a chunk is as many
// frames of the run as fit the device's storage-buffer range.

#include <math.h>  // cos: the reference's call

#include <algorithm>
#include <bit>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "backend/vulkan/group_sums.h"
#include "backend/vulkan/vulkan_extractor.h"
#include "features/adm/adm_internal.h"
#include "features/adm/adm_score.h"
#include "features/adm/integer_adm.h"
#include "vqe/error.h"

namespace vqe::vulkan {
namespace {

using namespace adm::detail;

constexpr std::uint32_t kLevelWords = 24, kLevelBase = 65537;  // adm_common.glsl
constexpr std::uint32_t kArrays = 15;                           // band arrays per level

class VulkanAdm final : public VulkanExtractor {
 public:
  explicit VulkanAdm(const ParsedOptions& opts) : scorer_(opts) {}

  void init(const VideoFormat& format) override {
    scorer_.init(format);
    format_ = format;
  }

  void create(Context& ctx) override {
    ctx_ = &ctx;
    const adm::AdmParams& params = scorer_.params();
    adm_scorer_.emplace(format_.width, format_.height, params);
    const adm::FixedWeights fw = adm::fixed_weights(params.csf);
    std::vector<std::uint32_t> table(kLevelBase + adm::kNumScales * kLevelWords, 0);
    std::uint32_t* t = table.data();
    const auto& recip = reciprocal_table();
    for (std::uint32_t i = 0; i < kLevelBase; ++i) t[i] = static_cast<std::uint32_t>(recip[i]);
    // Level geometry, row blocks and rounding constants.
    int w = format_.width, h = format_.height;
    std::uint32_t words0 = 0, words123 = 0, rows = 0;
    for (int s = 0; s < adm::kNumScales; ++s) {
      Level& L = levels_[s];
      std::uint32_t* e = t + kLevelBase + s * kLevelWords;
      e[0] = static_cast<std::uint32_t>(w);
      e[1] = static_cast<std::uint32_t>(h);
      w = (w + 1) / 2;
      h = (h + 1) / 2;
      L.w = w;
      L.h = h;
      e[2] = static_cast<std::uint32_t>(w);
      e[3] = static_cast<std::uint32_t>(h);
      // Level 0's arrays in one scratch buffer, levels 1..3's in another.
      std::uint32_t& words = s == 0 ? words0 : words123;
      e[4] = words;
      words += kArrays * static_cast<std::uint32_t>(w) * static_cast<std::uint32_t>(h);
      const Region work = work_region(w, h), score = score_region(w, h);
      const std::uint32_t wr[4] = {static_cast<std::uint32_t>(work.top),
                                   static_cast<std::uint32_t>(work.bottom),
                                   static_cast<std::uint32_t>(work.left),
                                   static_cast<std::uint32_t>(work.right)};
      const std::uint32_t sr[4] = {static_cast<std::uint32_t>(score.top),
                                   static_cast<std::uint32_t>(score.bottom),
                                   static_cast<std::uint32_t>(score.left),
                                   static_cast<std::uint32_t>(score.right)};
      std::memcpy(e + 5, wr, sizeof wr);
      std::memcpy(e + 9, sr, sizeof sr);
      for (int k = 0; k < 3; ++k) e[13 + k] = s == 0 ? fw.level0[k] : fw.level123[s][k];
      const bool decouple = !(s == 0 && params.skip_scale0);
      e[16] = rows;
      L.first_row = rows;
      L.rows = decouple ? static_cast<std::uint32_t>(score.bottom - score.top) : 0;
      rows += L.rows;
      std::uint32_t cub_shift[3];
      if (s == 0) {
        masked_level0_shifts(w, h, cub_shift, &L.row_shift);
        const std::int32_t shift = den_level0_shift((score.bottom - score.top) *
                                                    (score.right - score.left));
        L.den_shift = static_cast<std::uint32_t>(shift);
        e[20] = e[21] = 0;
      } else {
        const Den123Shifts d = den_level123_shifts(score, s);
        for (std::uint32_t& c : cub_shift) c = ceil_log2(w);
        L.row_shift = ceil_log2(h);
        L.den_shift = d.accum;
        e[20] = d.sq;
        e[21] = d.cub;
      }
      for (int k = 0; k < 3; ++k) e[17 + k] = cub_shift[k];
      L.den_add = L.den_shift == 0 ? 0 : std::uint64_t{1} << (L.den_shift - 1);
      L.row_add = half_of_pow2(L.row_shift);
    }
    row_blocks_ = rows;
    tables_ = ctx.device_table(table.data(), table.size() * 4);
    // Frames per chunk: the batch, or as many as fit one storage buffer.
    const std::size_t bytes0 = static_cast<std::size_t>(words0) * 4;
    const std::size_t bytes123 = static_cast<std::size_t>(words123) * 4;
    const std::size_t fit = ctx.properties().limits.maxStorageBufferRange / bytes0;
    if (fit < 1)
      throw Error(fmt::format(
          "adm (Vulkan): a {}x{} frame's level-0 bands ({} MiB) exceed this device's "
          "storage-buffer range ({} MiB)",
          format_.width, format_.height, bytes0 >> 20,
          ctx.properties().limits.maxStorageBufferRange >> 20));
    chunk_ = static_cast<unsigned>(std::min<std::size_t>(ctx.batch_frames(), fit));
    scratch0_ = ctx.device_buffer(chunk_ * bytes0);
    scratch123_ = ctx.device_buffer(chunk_ * bytes123);
    sums_.create(ctx, 1, std::max(rows, 1u), 9);

    const double cos_1deg = cos(1.0 * 3.14159265358979323846 / 180.0);
    const auto cos_bits = std::bit_cast<std::uint64_t>(
        static_cast<double>(static_cast<float>(cos_1deg * cos_1deg)));
    const auto gain_bits = std::bit_cast<std::uint64_t>(params.enhn_gain_limit);
    // Specialization constants 24..30 (adm_common.glsl, adm_level.comp).
    const std::uint32_t spec[] = {words0,
                                  kLevelBase,
                                  static_cast<std::uint32_t>(cos_bits),
                                  static_cast<std::uint32_t>(cos_bits >> 32),
                                  static_cast<std::uint32_t>(gain_bits),
                                  static_cast<std::uint32_t>(gain_bits >> 32),
                                  words123};
    level_ = &ctx.pipeline("adm_level", 4, spec);
    rows_ = &ctx.pipeline("adm_rows", 4, spec);
    level_set_ = ctx.descriptor_set(*level_, {&ctx.frames(), &tables_, &scratch0_, &scratch123_});
    rows_set_ = ctx.descriptor_set(*rows_, {&scratch0_, &scratch123_, &tables_, &sums_.buffer});
  }

  std::vector<std::string> feature_names() const override { return scorer_.feature_names(); }

  void record(const Run& run) override {
    const adm::AdmParams& params = scorer_.params();
    for (unsigned done = 0; done < run.count; done += chunk_) {
      Run part = run;
      part.first_seq = run.first_seq + done;
      part.first_index = run.first_index + done;
      part.count = std::min(chunk_, run.count - done);
      if (done > 0) ctx_->barrier();  // the previous chunk's rows read the scratch
      for (int s = 0; s < adm::kNumScales; ++s) {
        Push push = ctx_->push_for(part);
        push.arg[0] = static_cast<std::uint32_t>(s);
        push.arg[1] = s == 0 && params.skip_scale0 ? 0 : 1;
        push.arg[2] = params.skip_aim ? 0 : 1;
        if (s > 0) ctx_->barrier();  // level s reads level s − 1's LL bands
        ctx_->dispatch(*level_, level_set_, push, (levels_[s].w + 31) / 32,
                       (levels_[s].h + 7) / 8, part.count);
      }
      ctx_->barrier();
      Push push = ctx_->push_for(part);
      push.arg[2] = params.skip_aim ? 0 : 1;
      push.arg[3] = std::max(row_blocks_, 1u);
      ctx_->dispatch(*rows_, rows_set_, push, row_blocks_, 1, part.count);
    }
  }

  void collect(std::uint64_t seq, unsigned index, FeatureCollector& out) override {
    const std::uint32_t slot = ctx_->result_of(seq);
    adm::LevelSums sums;
    for (int s = 0; s < adm::kNumScales; ++s) {
      const Level& L = levels_[s];
      for (std::uint32_t r = 0; r < L.rows; ++r)
        for (int t = 0; t < 3; ++t) {
          const std::uint32_t g = L.first_row + r;
          const std::uint64_t den = sums_.sum(slot, 0, static_cast<std::uint32_t>(t), g, 1);
          sums.den[s][t] += (den + L.den_add) >> L.den_shift;
          const auto num = static_cast<std::int64_t>(sums_.sum(slot, 0, 3 + t, g, 1));
          sums.num[s][t] += (num + L.row_add) >> L.row_shift;
          const auto aim = static_cast<std::int64_t>(sums_.sum(slot, 0, 6 + t, g, 1));
          sums.aim[s][t] += (aim + L.row_add) >> L.row_shift;
        }
    }
    scorer_.emit(index, adm_scorer_->score(sums), out);
  }

 private:
  struct Level {
    int w = 0, h = 0;
    std::uint32_t first_row = 0, rows = 0;
    std::uint32_t den_shift = 0, row_shift = 0;
    std::uint64_t den_add = 0;
    std::int64_t row_add = 0;
  };

  adm::Scorer scorer_;
  std::optional<adm::AdmScorer> adm_scorer_;
  VideoFormat format_{};
  Context* ctx_ = nullptr;
  Level levels_[adm::kNumScales];
  std::uint32_t row_blocks_ = 0;
  unsigned chunk_ = 1;
  GroupSums sums_;
  Buffer scratch0_, scratch123_, tables_;
  const Pipeline *level_ = nullptr, *rows_ = nullptr;
  VkDescriptorSet level_set_ = VK_NULL_HANDLE, rows_set_ = VK_NULL_HANDLE;
};

}  // namespace
}  // namespace vqe::vulkan

std::unique_ptr<vqe::vulkan::VulkanExtractor> vqe::adm::make_vulkan(const ParsedOptions& options) {
  return std::make_unique<vulkan::VulkanAdm>(options);
}
