// SPDX-License-Identifier: BSD-2-Clause
// VMAF model prediction, following libvmaf 3.2.0's predict.c operation by
// operation (normalise, chroma correction, SVM, denormalise, transform, clip,
// bootstrap statistics), and the Model API.
#include "vqe/model.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/printf.h>

#include "core/options.h"
#include "model/builtin/builtin.h"
#include "model/model_impl.h"
#include "model/model_readers.h"
#include "vqe/error.h"

namespace vqe {
namespace model_detail {
namespace {

// predict.c normalize(): slope·x + intercept (linear_rescale) or x.
double normalize_value(const SvmModel& m, double slope, double intercept, double x) {
  return m.norm == NormType::kLinearRescale ? slope * x + intercept : x;
}

// predict.c denormalize_feature() / denormalize(): (x − intercept) / slope.
double denormalize_value(const SvmModel& m, double slope, double intercept, double x) {
  return m.norm == NormType::kLinearRescale ? (x - intercept) / slope : x;
}

// predict.c find_linear_function_parameters(), for two knots already known to
// satisfy p1.x < p2.x and p1.y < p2.y (validate() guarantees it).
void line_through(const Knot& p1, const Knot& p2, double* alpha, double* beta) {
  if (p1.x == 0) {
    *beta = p1.y;
    *alpha = (p2.y - *beta) / p2.x;
  } else {
    *alpha = (p2.y - p1.y) / (p2.x - p1.x);
    *beta = p1.y - (p1.x * (*alpha));
  }
}

// predict.c piecewise_linear_mapping(): the segment containing x (or the
// first/last segment extended beyond the knots). Later segments win where
// two segments share a knot, as in libvmaf.
double piecewise_linear(double x, const std::vector<Knot>& knots, double y_unchanged) {
  if (knots.size() <= 1) return y_unchanged;  // libvmaf returns without touching y
  const std::size_t n_seg = knots.size() - 1;
  double y = 0.0;
  double slope = 0.0, offset = 0.0;
  for (std::size_t idx = 0; idx < n_seg; ++idx) {
    const Knot& a = knots[idx];
    const Knot& b = knots[idx + 1];
    const bool cond0 = a.x <= x;
    const bool cond1 = x <= b.x;
    if (a.y == b.y) {
      if (cond0 && cond1) y = a.y;
      if (idx == 0 && x < a.x) y = a.y;
      if (idx == n_seg - 1 && x > b.x) y = a.y;
    } else {
      line_through(a, b, &slope, &offset);
      if (cond0 && cond1) y = slope * x + offset;
      if (idx == 0 && x < a.x) y = slope * x + offset;
      if (idx == n_seg - 1 && x > b.x) y = slope * x + offset;
    }
  }
  return y;
}

// predict.c transform(): polynomial, then knots, then rectification.
double transform_score(const SvmModel& m, double y_in) {
  double y_stage = y_in;
  double y_out;
  if (m.p0 || m.p1 || m.p2) {
    y_out = 0.;
    if (m.p0) y_out += *m.p0;
    if (m.p1) y_out += *m.p1 * y_stage;
    if (m.p2) y_out += *m.p2 * y_stage * y_stage;
  } else {
    y_out = y_stage;
  }
  y_stage = y_out;
  if (m.knots_present)
    y_out = piecewise_linear(y_stage, m.knots, y_out);
  else
    y_out = y_stage;
  if (m.out_lte_in) y_out = (y_out > y_in) ? y_in : y_out;
  if (m.out_gte_in) y_out = (y_out < y_in) ? y_in : y_out;
  return y_out;
}

double clip_score(const SvmModel& m, double p) {
  p = (p < m.clip_min) ? m.clip_min : p;
  p = (p > m.clip_max) ? m.clip_max : p;
  return p;
}

struct Flags {
  bool enable_transform;
  bool disable_clip;
};

bool transform_on(const SvmModel& m, Flags f) {
  return m.transform_present && (m.transform_enabled || f.enable_transform);
}
bool clip_on(const SvmModel& m, Flags f) { return m.clip_present && !f.disable_clip; }

// Transform and clip as libvmaf applies them with flags 0.
double finish_score(const SvmModel& m, Flags f, double p) {
  if (transform_on(m, f)) p = transform_score(m, p);
  if (clip_on(m, f)) p = clip_score(m, p);
  return p;
}

// predict.c vmaf_predict_score_at_index() up to and including denormalize():
// the score before transform and clip.
double raw_score(const SvmModel& m, std::span<const double> inputs) {
  std::array<svm_node, kMaxFeatures + 1> node;
  const std::size_t n = m.features.size();
  for (std::size_t i = 0; i < n; ++i) {
    const FeatureInput& f = m.features[i];
    node[i].index = static_cast<int>(i + 1);
    node[i].value = normalize_value(m, f.slope, f.intercept, inputs[m.input_index[i]]);
  }
  // post_process_feature_from_another(): when the (denormalised) chroma
  // feature is exactly 0, replace it by p·(1 − adm3). libvmaf skips the whole
  // prediction when the parameter is 0 (no score at all); VQE skips only the
  // correction, which is what a zero parameter means.
  if (m.chroma_correction_present && m.chroma_correction != 0) {
    const FeatureInput& guided = m.features[m.guided_feature];
    const double guided_score =
        denormalize_value(m, guided.slope, guided.intercept, node[m.guided_feature].value);
    if (guided_score == 0.0) {
      const FeatureInput& guiding = m.features[m.guiding_feature];
      const double guiding_score =
          denormalize_value(m, guiding.slope, guiding.intercept, node[m.guiding_feature].value);
      const double corrected = (-m.chroma_correction * guiding_score) + m.chroma_correction;
      node[m.guided_feature].value =
          normalize_value(m, guided.slope, guided.intercept, corrected);
    }
  }
  node[n].index = -1;
  node[n].value = 0;
  const double prediction = m.svm->predict(node.data());
  return denormalize_value(m, m.slope, m.intercept, prediction);
}

bool less_nan_last(double a, double b) {
  if (std::isnan(a)) return false;
  if (std::isnan(b)) return true;
  return a < b;
}

// predict.c percentile(): linear interpolation between order statistics.
double percentile(const double* sorted, std::size_t n, double perc) {
  const double p = perc * static_cast<double>(static_cast<unsigned>(n) - 1) / 100.;
  const int idx_l = static_cast<int>(std::floor(p));
  const int idx_r = static_cast<int>(std::ceil(p));
  return (idx_l == idx_r) ? sorted[idx_l]
                          : sorted[idx_l] * (idx_r - p) + sorted[idx_r] * (p - idx_l);
}

}  // namespace

void validate(SvmModel& m, const std::string& what) {
  if (!m.svm) throw Error(fmt::format("{}: no libsvm \"model\" text", what));
  if (m.features.size() > kMaxFeatures)
    throw Error(fmt::format("{}: {} features; libvmaf accepts at most {}", what,
                            m.features.size(), kMaxFeatures));
  if (m.knots.size() > kMaxKnots)
    throw Error(fmt::format("{}: {} knots; libvmaf accepts at most {}", what, m.knots.size(),
                            kMaxKnots));
  if (m.knots_present) {
    // libvmaf's piecewise_linear_mapping() silently returns 0 for knots out
    // of order; refuse them instead.
    for (std::size_t i = 0; i + 1 < m.knots.size(); ++i)
      if (!(m.knots[i].x < m.knots[i + 1].x && m.knots[i].y <= m.knots[i + 1].y))
        throw Error(fmt::format("{}: score_transform knots must have increasing x and "
                                "non-decreasing y (knot {} -> {})",
                                what, i, i + 1));
  }
  if (m.clip_present && !(m.clip_min <= m.clip_max))
    throw Error(fmt::format("{}: score_clip minimum {} exceeds maximum {}", what, m.clip_min,
                            m.clip_max));
  if (m.chroma_correction_present && m.chroma_correction != 0) {
    std::size_t n_guiding = 0, n_guided = 0;
    for (std::size_t i = 0; i < m.features.size(); ++i) {
      if (m.features[i].name.find("adm3") != std::string::npos) {
        m.guiding_feature = i;
        ++n_guiding;
      }
      if (m.features[i].name.find("speed_chroma") != std::string::npos) {
        m.guided_feature = i;
        ++n_guided;
      }
    }
    if (n_guiding != 1 || n_guided != 1)
      throw Error(fmt::format("{}: chroma_correction_parameter needs exactly one feature "
                              "named *adm3* and one named *speed_chroma* (found {} and {})",
                              what, n_guiding, n_guided));
  }
}

}  // namespace model_detail

using model_detail::SvmModel;

void Model::Impl::finish() {
  features.clear();
  for (SvmModel& m : models) {
    m.input_index.clear();
    for (const model_detail::FeatureInput& f : m.features) {
      const ModelFeature key{f.name, f.options};
      auto it = std::find(features.begin(), features.end(), key);
      if (it == features.end()) {
        features.push_back(key);
        it = std::prev(features.end());
      }
      m.input_index.push_back(static_cast<std::size_t>(it - features.begin()));
    }
  }
}

Model::Model() : impl_(std::make_unique<Impl>()) {}
Model::Model(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Model::Model(const Model& other) : impl_(std::make_unique<Impl>(*other.impl_)) {}
Model& Model::operator=(const Model& other) {
  if (this != &other) impl_ = std::make_unique<Impl>(*other.impl_);
  return *this;
}
Model::Model(Model&&) noexcept = default;
Model& Model::operator=(Model&&) noexcept = default;
Model::~Model() = default;

Model Model::from_json_string(std::string_view text, const std::string& origin) {
  return Model(model_detail::read_json_model(text, origin));
}

Model Model::from_vqem_string(std::string_view text, const std::string& origin) {
  return Model(model_detail::read_vqem_model(text, origin));
}

namespace {

constexpr std::uintmax_t kMaxModelFileBytes = 256u << 20;

std::string read_model_file(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format("model file '{}': cannot read ({})", path.string(), ec.message()));
  if (size > kMaxModelFileBytes)
    throw Error(fmt::format("model file '{}': {} bytes is larger than the {} MiB limit",
                            path.string(), size, kMaxModelFileBytes >> 20));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("model file '{}': cannot open", path.string()));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw Error(fmt::format("model file '{}': read error", path.string()));
  return text;
}

bool looks_like_vqem(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' ||
                             text[i] == '\n'))
    ++i;
  return text.substr(i, 4) == "vqem";
}

}  // namespace

Model Model::from_json_file(const std::filesystem::path& path) {
  return from_json_string(read_model_file(path), path.string());
}

Model Model::from_file(const std::filesystem::path& path) {
  const std::string text = read_model_file(path);
  return looks_like_vqem(text) ? from_vqem_string(text, path.string())
                               : from_json_string(text, path.string());
}

Model Model::builtin(const std::string& version) {
  for (const auto& entry : model_detail::builtin_model_texts()) {
    if (version == entry.version) {
      Model m = from_vqem_string(entry.text, version);
      return m;
    }
  }
  std::string known;
  for (const auto& entry : model_detail::builtin_model_texts())
    known += (known.empty() ? "" : ", ") + std::string(entry.version);
  throw Error(fmt::format("no built-in model '{}' (built-in: {})", version, known));
}

std::vector<std::string> Model::builtin_versions() {
  std::vector<std::string> out;
  for (const auto& entry : model_detail::builtin_model_texts()) out.emplace_back(entry.version);
  return out;
}

std::string Model::default_version() { return "vmaf_v0.6.1"; }

const std::string& Model::name() const { return impl_->name; }
void Model::set_name(const std::string& name) {
  if (name.empty()) throw Error("model name must not be empty");
  check_portable_name(name, "model name", "");
  impl_->name = name;
}
const std::string& Model::origin() const { return impl_->origin; }
const std::vector<ModelFeature>& Model::features() const { return impl_->features; }
bool Model::is_bootstrap() const { return impl_->bootstrap; }
void Model::set_enable_transform(bool enable) { impl_->enable_transform = enable; }
void Model::set_disable_clip(bool disable) { impl_->disable_clip = disable; }
bool Model::enable_transform() const { return impl_->enable_transform; }
bool Model::disable_clip() const { return impl_->disable_clip; }

void Model::apply_override(const std::string& extractor, const std::string& option,
                           const std::string& value,
                           const std::function<std::string(const std::string&)>& extractor_of) {
  if (extractor.empty() || option.empty())
    throw Error(fmt::format("model '{}': feature override needs <extractor>.<option>=<value>",
                            impl_->origin));
  const std::string normalized = normalize_option_value(value);
  bool matched = false;
  for (SvmModel& m : impl_->models) {
    for (model_detail::FeatureInput& f : m.features) {
      if (extractor_of(f.name) != extractor) continue;
      f.options[option] = normalized;
      matched = true;
    }
  }
  if (!matched) {
    std::string used;
    for (const ModelFeature& f : impl_->features) {
      const std::string e = extractor_of(f.internal_name);
      const std::string label = e.empty() ? f.internal_name + " (no extractor)" : e;
      if (used.find(label) == std::string::npos) used += (used.empty() ? "" : ", ") + label;
    }
    throw Error(fmt::format("model '{}': no feature of this model comes from extractor '{}' "
                            "(override {}.{}={}); its extractors: {}",
                            impl_->origin, extractor, extractor, option, value, used));
  }
  impl_->finish();
}

std::vector<std::string> Model::output_names() const {
  std::vector<std::string> out;
  out.push_back(impl_->name);
  if (!impl_->bootstrap) return out;
  for (std::size_t i = 1; i < impl_->models.size(); ++i)
    out.push_back(fmt::format("{}_{:04d}", impl_->name, i));
  for (const char* suffix : {"_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi"})
    out.push_back(impl_->name + suffix);
  return out;
}

void Model::predict(std::span<const double> features, std::span<double> out) const {
  using namespace model_detail;
  const Impl& im = *impl_;
  if (im.models.empty()) throw Error("predict() on an empty (default-constructed) model");
  if (features.size() != im.features.size())
    throw Error(fmt::format("model '{}': predict() got {} feature values, the model uses {}",
                            im.origin, features.size(), im.features.size()));
  const std::size_t n_out = im.bootstrap ? im.models.size() + 4 : 1;
  if (out.size() != n_out)
    throw Error(fmt::format("model '{}': predict() output has {} slots, the model writes {}",
                            im.origin, out.size(), n_out));
  const Flags flags{im.enable_transform, im.disable_clip};

  out[0] = finish_score(im.models[0], flags, raw_score(im.models[0], features));
  if (!im.bootstrap) return;

  // predict.c vmaf_bootstrap_predict_score_at_index(): statistics over the
  // bootstrap models' untransformed, unclipped scores; each model's own
  // output is transformed and clipped as usual.
  const std::size_t cnt = im.models.size() - 1;
  std::array<double, kMaxBootstrapModels> scores;
  for (std::size_t i = 0; i < cnt; ++i) {
    const SvmModel& m = im.models[i + 1];
    scores[i] = raw_score(m, features);
    out[i + 1] = finish_score(m, flags, scores[i]);
  }
  double sum = 0.;
  for (std::size_t i = 0; i < cnt; ++i) sum += scores[i];
  const double mean = sum / static_cast<double>(static_cast<unsigned>(cnt));
  double bagging = mean;

  const double delta = 0.01;
  double plus_delta = mean + delta;
  double minus_delta = mean - delta;

  double ssd = 0.;
  for (std::size_t i = 0; i < cnt; ++i) {
    // libvmaf writes pow(x, 2); compilers turn that into x * x (exact).
    const double d = scores[i] - mean;
    ssd += d * d;
  }
  double stddev = std::sqrt(ssd / static_cast<double>(static_cast<unsigned>(cnt)));

  std::sort(scores.begin(), scores.begin() + static_cast<std::ptrdiff_t>(cnt), less_nan_last);
  double lo = percentile(scores.data(), cnt, 2.5);
  double hi = percentile(scores.data(), cnt, 97.5);

  // Transform and clip with the first bootstrap model's settings.
  const SvmModel& first = im.models[1];
  bagging = finish_score(first, flags, bagging);
  lo = finish_score(first, flags, lo);
  hi = finish_score(first, flags, hi);
  plus_delta = finish_score(first, flags, plus_delta);
  minus_delta = finish_score(first, flags, minus_delta);
  const double slope = (plus_delta - minus_delta) / (2.0 * delta);
  stddev *= slope;

  out[cnt + 1] = bagging;
  out[cnt + 2] = stddev;
  out[cnt + 3] = lo;
  out[cnt + 4] = hi;
}

std::vector<std::pair<std::string, double>> Model::predict(
    std::span<const double> features) const {
  std::vector<std::string> names = output_names();
  std::vector<double> values(names.size());
  predict(features, values);
  std::vector<std::pair<std::string, double>> out;
  out.reserve(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) out.emplace_back(std::move(names[i]), values[i]);
  return out;
}

std::string normalize_option_value(const std::string& value) {
  // libvmaf: isnumeric() is sscanf("%f %c") == 1 (a float, then nothing but
  // white space); the value is then strtof()'d and printed with "%g".
  auto is_space = [](char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
  };
  std::size_t begin = 0, end = value.size();
  while (begin < end && is_space(value[begin])) ++begin;
  while (end > begin && is_space(value[end - 1])) --end;
  std::string_view token(value.data() + begin, end - begin);
  if (!token.empty() && token.front() == '+') {
    token.remove_prefix(1);
    if (!token.empty() && (token.front() == '+' || token.front() == '-')) return value;
  }
  if (token.empty()) return value;
  float f = 0;
  const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), f,
                                         std::chars_format::general);
  if (ec != std::errc() || ptr != token.data() + token.size()) return value;
  return fmt::sprintf("%g", static_cast<double>(f));
}

}  // namespace vqe
