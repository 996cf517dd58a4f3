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

#include "core/options.h"
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
  // printf would write "-nan" for a NaN with its sign bit set: one spelling.
  if (std::isnan(value)) return "nan";
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
  // XML attribute names, CSV header cells and SUB fields have no escape for
  // other characters; JSON keys are escaped.
  if (info.format != OutputFormat::kJson) {
    for (const std::string& name : features.names())
      check_portable_name(name, "feature name", "write JSON instead");
    for (const auto& [name, value] : features.aggregates())
      check_portable_name(name, "aggregate name", "write JSON instead");
  }
  switch (info.format) {
    case OutputFormat::kXml: write_xml(out, features, info); break;
    case OutputFormat::kJson: write_json(out, features, info); break;
    case OutputFormat::kCsv: write_csv(out, features, info); break;
    case OutputFormat::kSub: write_sub(out, features, info); break;
  }
}

namespace {

// The descriptor an output path names directly ("-", /dev/stdout, /dev/fd/N,
// /proc/self/fd/N), or -1.
int descriptor_path(const std::string& path) {
  if (path == "-" || path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const char* prefix : {"/dev/fd/", "/proc/self/fd/"}) {
    const std::string p = prefix;
    if (path.size() > p.size() && path.compare(0, p.size(), p) == 0 &&
        path.find_first_not_of("0123456789", p.size()) == std::string::npos &&
        path.size() - p.size() <= 6)
      return std::stoi(path.substr(p.size()));
  }
  return -1;
}

[[noreturn]] void fail_output(const std::string& path, const std::string& what, int err) {
  throw Error(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

void write_all(int fd, const std::string& data, const std::string& path) {
  const char* p = data.data();
  std::size_t left = data.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail_output(path, "cannot write the output", errno);
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

OutputFile::OutputFile(std::string path, const std::vector<ProtectedFile>& inputs)
    : path_(std::move(path)), buffer_(std::make_unique<std::ostringstream>()) {
  if (path_.empty()) throw Error("the output path is empty");
  const auto refuse_inputs = [&](const struct stat& st) {
    for (const ProtectedFile& input : inputs)
      if (input.identity.device == static_cast<std::uint64_t>(st.st_dev) &&
          input.identity.inode == static_cast<std::uint64_t>(st.st_ino))
        throw Error(fmt::format("{}: is the same file as the input {}; refusing to overwrite it",
                                path_, input.name));
  };

  if (const int fd = descriptor_path(path_); fd >= 0) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail_output(path_, "cannot write the output", errno);
    refuse_inputs(st);
    fd_ = fd;
    owns_fd_ = false;
    return;
  }

  // Follow a symbolic link to the file it names: that file is replaced, and
  // the link stays.
  target_ = path_;
  struct stat lst {};
  if (::lstat(path_.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    char* resolved = ::realpath(path_.c_str(), nullptr);
    if (!resolved) {
      if (errno != ENOENT) fail_output(path_, "cannot follow the symbolic link", errno);
      // A link to a file not there yet: create the file it names.
      std::vector<char> link(4096);
      const ssize_t n = ::readlink(path_.c_str(), link.data(), link.size() - 1);
      if (n < 0) fail_output(path_, "cannot follow the symbolic link", errno);
      const std::string to(link.data(), static_cast<std::size_t>(n));
      const std::size_t slash = path_.rfind('/');
      target_ = to.front() == '/' || slash == std::string::npos ? to
                                                                : path_.substr(0, slash + 1) + to;
    } else {
      target_ = resolved;
      std::free(resolved);
    }
  }

  struct stat st {};
  if (::stat(target_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(fmt::format("{}: is a directory", path_));
    refuse_inputs(st);
    if (!S_ISREG(st.st_mode)) {
      // A FIFO, a terminal, a device: write into it; a rename would replace it.
      do {
        fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC);
      } while (fd_ < 0 && errno == EINTR);
      if (fd_ < 0) fail_output(path_, "cannot open the output", errno);
      return;
    }
    if (::access(target_.c_str(), W_OK) != 0) fail_output(path_, "cannot write the output", errno);
    mode_ = static_cast<int>(st.st_mode & 07777);
  } else if (errno != ENOENT) {
    fail_output(path_, "cannot write the output", errno);
  }

  const std::size_t slash = target_.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : target_.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? target_ : target_.substr(slash + 1);
  const std::string templ = dir + "." + base + ".vqe-XXXXXX";
  std::vector<char> name(templ.begin(), templ.end());
  name.push_back('\0');
  fd_ = ::mkstemp(name.data());
  if (fd_ < 0)
    fail_output(path_, fmt::format("cannot create the output in {}", dir.empty() ? "." : dir),
                errno);
  temp_ = name.data();
  if (mode_ < 0) {
    // mkstemp's 0600 becomes the usual mode of a new file (0666 minus umask).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    mode_ = static_cast<int>(0666 & ~mask);
  }
}

OutputFile::~OutputFile() {
  if (fd_ >= 0 && owns_fd_) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

std::ostream& OutputFile::stream() { return *buffer_; }

void OutputFile::commit() {
  if (fd_ < 0) throw Error(fmt::format("{}: output already written", path_));
  const std::string data = buffer_->str();
  write_all(fd_, data, path_);
  const int fd = fd_;
  fd_ = -1;
  if (temp_.empty()) {
    // Straight into a descriptor or a special file.
    if (owns_fd_ && ::close(fd) != 0) fail_output(path_, "cannot write the output", errno);
    return;
  }
  const auto fail_and_close = [&](const char* what) {
    const int err = errno;
    ::close(fd);
    fail_output(path_, what, err);
  };
  if (::fchmod(fd, static_cast<mode_t>(mode_)) != 0) fail_and_close("cannot write the output");
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS)
    fail_and_close("cannot write the output");
  if (::close(fd) != 0) fail_output(path_, "cannot write the output", errno);
  if (::rename(temp_.c_str(), target_.c_str()) != 0)
    fail_output(path_, "cannot replace the output", errno);
  temp_.clear();
}

void write_output_file(const std::string& path, const FeatureCollector& features,
                       const OutputInfo& info) {
  OutputFile file(path);
  write_output(file.stream(), features, info);
  file.commit();
}

}  // namespace vqe
