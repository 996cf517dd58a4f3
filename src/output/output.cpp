// SPDX-License-Identifier: BSD-2-Clause
#include "vqe/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <fmt/printf.h>
#include <nlohmann/json.hpp>

#include "vqe/error.h"

namespace vqe {
namespace {

// libvmaf counts the zeros after the decimal point of |x|'s fractional part
// and switches to 16 decimals past six, so tiny fractions stay visible.
int leading_fraction_zeros(double x) {
  x = std::fabs(x);
  double fraction = x - std::trunc(x);
  int zeros = 0;
  while (fraction < 1.0 && fraction != 0) {
    fraction *= 10;
    ++zeros;
  }
  return zeros;
}

constexpr const char* kPoolNames[] = {"min", "max", "mean", "harmonic_mean"};
constexpr PoolMethod kPoolMethods[] = {PoolMethod::kMin, PoolMethod::kMax, PoolMethod::kMean,
                                       PoolMethod::kHarmonicMean};

std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }

std::string json_value(double v, const Precision& p) {
  return std::isfinite(v) ? format_value(v, p) : "null";
}

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Frames written: those on the subsample grid that hold at least one value.
std::vector<unsigned> frames_to_write(const FeatureCollector& fc,
                                      const std::vector<std::string>& names, unsigned subsample) {
  std::vector<unsigned> frames;
  const unsigned n = fc.frame_count();
  for (unsigned i = 0; i < n; ++i) {
    if (subsample > 1 && i % subsample) continue;
    for (const std::string& name : names)
      if (fc.get(name, i)) {
        frames.push_back(i);
        break;
      }
  }
  return frames;
}

void write_xml(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const auto names = fc.names();
  const Precision& p = info.precision;
  o << fmt::format("<VMAF version=\"{}\">\n", xml_escape(info.version));
  o << fmt::format("  <params qualityWidth=\"{}\" qualityHeight=\"{}\" {}/>\n", info.width,
                   info.height,
                   info.scale.empty() ? "" : fmt::format("scale=\"{}\" ", xml_escape(info.scale)));
  o << fmt::sprintf("  <fyi fps=\"%.2f\" />\n", info.fps);
  o << "  <frames>\n";
  for (unsigned i : frames_to_write(fc, names, info.subsample)) {
    o << fmt::format("    <frame frameNum=\"{}\" ", i);
    for (const std::string& name : names)
      if (auto v = fc.get(name, i)) o << fmt::format("{}=\"{}\" ", xml_escape(name), format_value(*v, p));
    o << "/>\n";
  }
  o << "  </frames>\n  <pooled_metrics>\n";
  for (const std::string& name : names) {
    o << fmt::format("    <metric name=\"{}\" ", xml_escape(name));
    for (int m = 0; m < 4; ++m)
      if (auto v = fc.pooled(name, kPoolMethods[m], info.subsample))
        o << fmt::format("{}=\"{}\" ", kPoolNames[m], format_value(*v, p));
    o << "/>\n";
  }
  o << "  </pooled_metrics>\n  <aggregate_metrics ";
  for (const auto& [name, v] : fc.aggregates())
    o << fmt::format("{}=\"{}\" ", xml_escape(name), format_value(v, p));
  o << "/>\n</VMAF>\n";
}

void write_json(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const auto names = fc.names();
  const Precision& p = info.precision;
  o << "{\n  \"version\": " << json_string(info.version) << ",\n";
  o << "  \"fps\": " << (std::isfinite(info.fps) ? fmt::sprintf("%.2f", info.fps) : "null")
    << ",\n";
  if (!info.scale.empty()) o << "  \"scale\": " << json_string(info.scale) << ",\n";
  o << "  \"frames\": [";
  bool first_frame = true;
  for (unsigned i : frames_to_write(fc, names, info.subsample)) {
    o << (first_frame ? "\n" : ",\n");
    first_frame = false;
    o << "    {\n      \"frameNum\": " << i << ",\n      \"metrics\": {";
    bool first = true;
    for (const std::string& name : names)
      if (auto v = fc.get(name, i)) {
        o << (first ? "\n" : ",\n") << "        " << json_string(name) << ": "
          << json_value(*v, p);
        first = false;
      }
    o << "\n      }\n    }";
  }
  o << "\n  ],\n  \"pooled_metrics\": {";
  bool first_metric = true;
  for (const std::string& name : names) {
    o << (first_metric ? "\n" : ",\n") << "    " << json_string(name) << ": {";
    first_metric = false;
    bool first = true;
    for (int m = 0; m < 4; ++m)
      if (auto v = fc.pooled(name, kPoolMethods[m], info.subsample)) {
        o << (first ? "\n" : ",\n") << "      \"" << kPoolNames[m] << "\": " << json_value(*v, p);
        first = false;
      }
    o << "\n    }";
  }
  o << "\n  },\n  \"aggregate_metrics\": {";
  bool first_agg = true;
  for (const auto& [name, v] : fc.aggregates()) {
    o << (first_agg ? "\n" : ",\n") << "    " << json_string(name) << ": " << json_value(v, p);
    first_agg = false;
  }
  o << "\n  }\n}\n";
}

void write_csv(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const auto names = fc.names();
  o << "Frame,";
  for (const std::string& name : names) o << name << ",";
  o << "\n";
  for (unsigned i : frames_to_write(fc, names, info.subsample)) {
    o << i << ",";
    for (const std::string& name : names) {
      auto v = fc.get(name, i);
      // Keep columns aligned: an empty cell where a feature has no value.
      o << (v ? format_value(*v, info.precision) : "") << ",";
    }
    o << "\n";
  }
}

void write_sub(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const auto names = fc.names();
  for (unsigned i : frames_to_write(fc, names, info.subsample)) {
    o << fmt::format("{{{}}}{{{}}}frame: {}|", i, i + 1, i);
    for (const std::string& name : names)
      if (auto v = fc.get(name, i)) o << name << ": " << format_value(*v, info.precision) << "|";
    o << "\n";
  }
}

}  // namespace

Precision parse_precision(const std::string& text) {
  if (text == "max") return {Precision::Mode::kMax, 17};
  if (!text.empty() && text.size() <= 2 && text.find_first_not_of("0123456789") == std::string::npos) {
    const int d = std::stoi(text);
    if (d >= 1 && d <= 17) return {Precision::Mode::kDigits, d};
  }
  throw Error(fmt::format("--precision: expected 'max' or 1..17 significant digits, got '{}'",
                          text));
}

std::string format_value(double value, const Precision& precision) {
  switch (precision.mode) {
    case Precision::Mode::kMax: return fmt::sprintf("%.17g", value);
    case Precision::Mode::kDigits: return fmt::sprintf("%.*g", precision.digits, value);
    case Precision::Mode::kDefault:
      return leading_fraction_zeros(value) <= 6 ? fmt::sprintf("%.6f", value)
                                                : fmt::sprintf("%.16f", value);
  }
  return "";
}

void write_output(std::ostream& out, const FeatureCollector& features, const OutputInfo& info) {
  switch (info.format) {
    case OutputFormat::kXml: write_xml(out, features, info); break;
    case OutputFormat::kJson: write_json(out, features, info); break;
    case OutputFormat::kCsv: write_csv(out, features, info); break;
    case OutputFormat::kSub: write_sub(out, features, info); break;
  }
}

OutputFile::OutputFile(std::string path) : path_(std::move(path)) {
  if (path_.empty()) throw Error("output path is empty");
  const std::size_t slash = path_.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  std::string templ = (slash == std::string::npos ? std::string() : dir) + "." + base + ".vqe-XXXXXX";
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0)
    throw Error(fmt::format("{}: cannot create the output file: {}", path_, std::strerror(errno)));
  temp_ = name.data();
  // mkstemp's 0600 becomes the usual mode of a new file (0666 minus umask).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd_, 0666 & ~mask);
  buffer_ = std::make_unique<std::ostringstream>();
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

std::ostream& OutputFile::stream() { return *buffer_; }

void OutputFile::commit() {
  if (temp_.empty()) throw Error(fmt::format("{}: output already written", path_));
  const std::string data = buffer_->str();
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("{}: cannot write the output file: {}", path_, std::strerror(errno)));
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0 && errno != EINVAL && errno != EROFS)
    throw Error(fmt::format("{}: cannot write the output file: {}", path_, std::strerror(errno)));
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    throw Error(fmt::format("{}: cannot write the output file: {}", path_, std::strerror(errno)));
  if (::rename(temp_.c_str(), path_.c_str()) != 0)
    throw Error(fmt::format("{}: cannot replace the output file: {}", path_,
                            std::strerror(errno)));
  temp_.clear();
}

void write_output_file(const std::string& path, const FeatureCollector& features,
                       const OutputInfo& info) {
  OutputFile file(path);
  write_output(file.stream(), features, info);
  file.commit();
}

}  // namespace vqe
