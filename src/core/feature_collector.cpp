// SPDX-License-Identifier: BSD-2-Clause
#include "vqe/feature_collector.h"

#include <algorithm>

namespace vqe {

FeatureCollector::FeatureCollector(FeatureCollector&& other) noexcept {
  *this = std::move(other);
}

FeatureCollector& FeatureCollector::operator=(FeatureCollector&& other) noexcept {
  if (this != &other) {
    std::scoped_lock lock(mutex_, other.mutex_);
    order_ = std::move(other.order_);
    columns_ = std::move(other.columns_);
    aggregates_ = std::move(other.aggregates_);
  }
  return *this;
}

FeatureCollector::Column& FeatureCollector::column(const std::string& name) {
  auto [it, inserted] = columns_.try_emplace(name);
  if (inserted) order_.push_back(name);
  return it->second;
}

void FeatureCollector::declare(const std::string& name) {
  std::lock_guard lock(mutex_);
  column(name);
}

void FeatureCollector::reorder(const std::vector<std::string>& first) {
  std::lock_guard lock(mutex_);
  std::vector<std::string> order;
  order.reserve(order_.size());
  for (const std::string& name : first)
    if (columns_.count(name) && std::find(order.begin(), order.end(), name) == order.end())
      order.push_back(name);
  for (const std::string& name : order_)
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  order_ = std::move(order);
}

void FeatureCollector::set(const std::string& name, unsigned index, double value) {
  std::lock_guard lock(mutex_);
  Column& c = column(name);
  if (c.values.size() <= index) {
    c.values.resize(index + 1, 0.0);
    c.written.resize(index + 1, false);
  }
  c.values[index] = value;
  c.written[index] = true;
}

std::optional<double> FeatureCollector::get(const std::string& name, unsigned index) const {
  std::lock_guard lock(mutex_);
  auto it = columns_.find(name);
  if (it == columns_.end() || index >= it->second.values.size() || !it->second.written[index])
    return std::nullopt;
  return it->second.values[index];
}

std::vector<std::optional<double>> FeatureCollector::values(const std::string& name) const {
  std::lock_guard lock(mutex_);
  std::vector<std::optional<double>> out;
  auto it = columns_.find(name);
  if (it == columns_.end()) return out;
  const Column& c = it->second;
  out.resize(c.values.size());
  for (std::size_t i = 0; i < c.values.size(); ++i)
    if (c.written[i]) out[i] = c.values[i];
  return out;
}

void FeatureCollector::set_aggregate(const std::string& name, double value) {
  std::lock_guard lock(mutex_);
  for (auto& [n, v] : aggregates_)
    if (n == name) { v = value; return; }
  aggregates_.emplace_back(name, value);
}

std::vector<std::string> FeatureCollector::names() const {
  std::lock_guard lock(mutex_);
  return order_;
}

std::vector<std::pair<std::string, double>> FeatureCollector::aggregates() const {
  std::lock_guard lock(mutex_);
  return aggregates_;
}

unsigned FeatureCollector::frame_count() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [name, c] : columns_) n = std::max(n, c.values.size());
  return static_cast<unsigned>(n);
}

bool FeatureCollector::has(const std::string& name) const {
  std::lock_guard lock(mutex_);
  return columns_.count(name) != 0;
}

std::optional<double> pool(std::span<const double> values, PoolMethod method) {
  if (values.empty()) return std::nullopt;
  double min = values[0], max = values[0], sum = 0, inv_sum = 0;
  for (double s : values) {
    sum += s;
    inv_sum += 1.0 / (s + 1.0);
    if (s < min) min = s;
    if (s > max) max = s;
  }
  const double count = static_cast<double>(values.size());
  switch (method) {
    case PoolMethod::kMin: return min;
    case PoolMethod::kMax: return max;
    case PoolMethod::kMean: return sum / count;
    case PoolMethod::kHarmonicMean: return count / inv_sum - 1.0;
  }
  return std::nullopt;
}

std::optional<double> FeatureCollector::pooled(const std::string& name, PoolMethod method,
                                               unsigned subsample, unsigned first,
                                               unsigned last) const {
  const unsigned n = frame_count();
  std::vector<double> values;
  {
    std::lock_guard lock(mutex_);
    auto it = columns_.find(name);
    if (it == columns_.end() || n == 0) return std::nullopt;
    const Column& c = it->second;
    const unsigned end = last < n ? last + 1 : n;
    for (unsigned i = first; i < end; ++i) {
      if (subsample > 1 && i % subsample) continue;
      if (i >= c.values.size() || !c.written[i]) return std::nullopt;
      values.push_back(c.values[i]);
    }
  }
  return pool(values, method);
}

}  // namespace vqe
