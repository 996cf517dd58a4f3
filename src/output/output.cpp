// SPDX-License-Identifier: BSD-2-Clause
#include "vqe/output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

// The per-frame values of every feature, read from the collector once (one
// lock per feature, not one per value), and the frames written: those on the
// subsample grid that hold at least one value.
struct Table {
  Table(const FeatureCollector& fc, unsigned subsample) : names(fc.names()) {
    columns.reserve(names.size());
    for (const std::string& name : names) columns.push_back(fc.values(name));
    const unsigned n = fc.frame_count();
    for (unsigned i = 0; i < n; ++i) {
      if (subsample > 1 && i % subsample) continue;
      for (std::size_t k = 0; k < names.size(); ++k)
        if (at(k, i)) {
          frames.push_back(i);
          break;
        }
    }
  }
  // Feature k's value at frame i, if set.
  std::optional<double> at(std::size_t k, unsigned i) const {
    return i < columns[k].size() ? columns[k][i] : std::nullopt;
  }
  std::vector<std::string> names;
  std::vector<std::vector<std::optional<double>>> columns;  // per name, by frame
  std::vector<unsigned> frames;
};

// Text for an output stream, gathered in pieces of about 64 KiB so that the
// stream is called once per piece and no buffer grows with the video.
class Sink {
 public:
  explicit Sink(std::ostream& o) : o_(o) { buf_.reserve(kPiece + 4096); }
  ~Sink() { flush(); }
  Sink(const Sink&) = delete;
  Sink& operator=(const Sink&) = delete;
  Sink& operator+=(std::string_view text) {
    buf_ += text;
    if (buf_.size() >= kPiece) flush();
    return *this;
  }
  // Appends fmt's formatting (format string checked at compile time).
  template <typename... Args>
  void append(fmt::format_string<Args...> format, Args&&... args) {
    fmt::format_to(std::back_inserter(buf_), format, std::forward<Args>(args)...);
    if (buf_.size() >= kPiece) flush();
  }
  void flush() {
    o_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

 private:
  static constexpr std::size_t kPiece = 64 * 1024;
  std::ostream& o_;
  std::string buf_;
};

void write_xml(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const Table t(fc, info.subsample);
  const Precision& p = info.precision;
  Sink out(o);
  out.append("<VMAF version=\"{}\">\n", xml_escape(info.version));
  out.append("  <params qualityWidth=\"{}\" qualityHeight=\"{}\" {}/>\n", info.width,
             info.height,
             info.scale.empty() ? "" : fmt::format("scale=\"{}\" ", xml_escape(info.scale)));
  out += fmt::sprintf("  <fyi fps=\"%.2f\" />\n", info.fps);
  out += "  <frames>\n";
  std::vector<std::string> escaped;
  for (const std::string& name : t.names) escaped.push_back(xml_escape(name));
  for (unsigned i : t.frames) {
    out.append("    <frame frameNum=\"{}\" ", i);
    for (std::size_t k = 0; k < t.names.size(); ++k)
      if (auto v = t.at(k, i)) out.append("{}=\"{}\" ", escaped[k], format_value(*v, p));
    out += "/>\n";
  }
  out += "  </frames>\n  <pooled_metrics>\n";
  for (std::size_t k = 0; k < t.names.size(); ++k) {
    out.append("    <metric name=\"{}\" ", escaped[k]);
    for (int m = 0; m < 4; ++m)
      if (auto v = fc.pooled(t.names[k], kPoolMethods[m], info.subsample))
        out.append("{}=\"{}\" ", kPoolNames[m], format_value(*v, p));
    out += "/>\n";
  }
  out += "  </pooled_metrics>\n  <aggregate_metrics ";
  for (const auto& [name, v] : fc.aggregates())
    out.append("{}=\"{}\" ", xml_escape(name), format_value(v, p));
  out += "/>\n</VMAF>\n";
}

void write_json(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const Table t(fc, info.subsample);
  const Precision& p = info.precision;
  std::vector<std::string> keys;  // the names as JSON strings
  for (const std::string& name : t.names) keys.push_back(json_string(name));
  Sink out(o);
  out += "{\n  \"version\": " + json_string(info.version) + ",\n";
  out += "  \"fps\": " + (std::isfinite(info.fps) ? fmt::sprintf("%.2f", info.fps) : "null") + ",\n";
  if (!info.scale.empty()) out += "  \"scale\": " + json_string(info.scale) + ",\n";
  out += "  \"frames\": [";
  bool first_frame = true;
  for (unsigned i : t.frames) {
    out += first_frame ? "\n" : ",\n";
    first_frame = false;
    out.append("    {{\n      \"frameNum\": {},\n      \"metrics\": {{", i);
    bool first = true;
    for (std::size_t k = 0; k < t.names.size(); ++k)
      if (auto v = t.at(k, i)) {
        out += first ? "\n        " : ",\n        ";
        out += keys[k];
        out += ": ";
        out += json_value(*v, p);
        first = false;
      }
    out += "\n      }\n    }";
  }
  out += "\n  ],\n  \"pooled_metrics\": {";
  bool first_metric = true;
  for (std::size_t k = 0; k < t.names.size(); ++k) {
    out += (first_metric ? "\n    " : ",\n    ") + keys[k] + ": {";
    first_metric = false;
    bool first = true;
    for (int m = 0; m < 4; ++m)
      if (auto v = fc.pooled(t.names[k], kPoolMethods[m], info.subsample)) {
        out.append("{}      \"{}\": {}", first ? "\n" : ",\n", kPoolNames[m], json_value(*v, p));
        first = false;
      }
    out += "\n    }";
  }
  out += "\n  },\n  \"aggregate_metrics\": {";
  bool first_agg = true;
  for (const auto& [name, v] : fc.aggregates()) {
    out += (first_agg ? "\n    " : ",\n    ") + json_string(name) + ": " + json_value(v, p);
    first_agg = false;
  }
  out += "\n  }\n}\n";
}

void write_csv(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const Table t(fc, info.subsample);
  Sink out(o);
  out += "Frame,";
  for (const std::string& name : t.names) out += name + ",";
  out += "\n";
  for (unsigned i : t.frames) {
    out.append("{},", i);
    for (std::size_t k = 0; k < t.names.size(); ++k) {
      // Keep columns aligned: an empty cell where a feature has no value.
      if (auto v = t.at(k, i)) out += format_value(*v, info.precision);
      out += ",";
    }
    out += "\n";
  }
}

void write_sub(std::ostream& o, const FeatureCollector& fc, const OutputInfo& info) {
  const Table t(fc, info.subsample);
  Sink out(o);
  for (unsigned i : t.frames) {
    out.append("{{{}}}{{{}}}frame: {}|", i, i + 1, i);
    for (std::size_t k = 0; k < t.names.size(); ++k)
      if (auto v = t.at(k, i)) out += t.names[k] + ": " + format_value(*v, info.precision) + "|";
    out += "\n";
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
