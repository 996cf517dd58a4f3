// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Per-frame feature values, pooled statistics and aggregate metrics.

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace vqe {

/// Pooling methods over frames, as libvmaf's VmafPoolingMethod.
enum class PoolMethod { kMin, kMax, kMean, kHarmonicMean };

/// Pools `values` by `method` (libvmaf's definitions: min, max, arithmetic
/// mean, and harmonic mean n / Σ 1/(x+1) − 1, summed in order in double).
/// Returns nullopt for an empty span.
std::optional<double> pool(std::span<const double> values, PoolMethod method);

/// Thread-safe store of feature values by emitted name and frame index.
/// Features keep the order in which they were first declared or set, which
/// is the column order of every output format; declare names before
/// scoring to make that order independent of thread timing.
class FeatureCollector {
 public:
  FeatureCollector() = default;
  /// Moves the contents; `other` must not be in use by other threads.
  FeatureCollector(FeatureCollector&& other) noexcept;
  FeatureCollector& operator=(FeatureCollector&& other) noexcept;
  FeatureCollector(const FeatureCollector&) = delete;
  FeatureCollector& operator=(const FeatureCollector&) = delete;

  /// Reserves a column for `name` (no-op if it exists).
  void declare(const std::string& name);
  /// Puts the names in `first` (those declared) at the front of the column
  /// order, in that order; the others follow in their current order.
  void reorder(const std::vector<std::string>& first);
  /// Stores `value` for frame `index`. Overwrites any earlier value.
  void set(const std::string& name, unsigned index, double value);
  /// The value of `name` at `index`, if one was set.
  std::optional<double> get(const std::string& name, unsigned index) const;
  /// Every frame's value of `name` (index = frame; nullopt where none was
  /// set; empty for an unknown name), copied under one lock: for writers
  /// that visit every frame of every feature.
  std::vector<std::optional<double>> values(const std::string& name) const;
  /// Stores an aggregate (whole-video) metric such as apsnr_y.
  void set_aggregate(const std::string& name, double value);

  /// Feature names in column order.
  std::vector<std::string> names() const;
  /// Aggregate metrics in insertion order.
  std::vector<std::pair<std::string, double>> aggregates() const;
  /// One past the highest frame index holding any value.
  unsigned frame_count() const;
  bool has(const std::string& name) const;

  /// Pools `name` over frames [first, last] (last clamped to
  /// frame_count() − 1) taking every `subsample`-th frame counted from 0
  /// (libvmaf's vmaf_feature_score_pooled with index_low/index_high).
  /// Returns nullopt if a pooled frame has no value or no frame is pooled.
  std::optional<double> pooled(const std::string& name, PoolMethod method,
                               unsigned subsample = 1, unsigned first = 0,
                               unsigned last = ~0u) const;

 private:
  struct Column {
    std::vector<double> values;
    std::vector<bool> written;
  };
  Column& column(const std::string& name);  // requires lock held
  mutable std::mutex mutex_;
  std::vector<std::string> order_;
  std::map<std::string, Column> columns_;
  std::vector<std::pair<std::string, double>> aggregates_;
};

}  // namespace vqe
