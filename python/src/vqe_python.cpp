// SPDX-License-Identifier: BSD-2-Clause
// _vqe: the Python bindings of VQE's public C++ API (pybind11). The package
// python/vqe wraps them (vqe.score, vqe.score_ladder, vqe.Job, vqe.Result).
//
// Every call that scores releases the GIL; vqe::Error becomes vqe.VqeError
// carrying the message. Frames pushed to a Job are numpy arrays: uint8
// planes for 8-bit video, uint16 planes (native byte order) for 10, 12 and
// 16 bits, one plane (4:0:0) or three (Y, Cb, Cr; the chroma shape gives
// 4:2:0, 4:2:2 or 4:4:4); wrong types and shapes raise TypeError/ValueError.

#include <algorithm>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "vqe/vqe.h"

namespace py = pybind11;

namespace {

// Warnings said by a job (possibly on its threads), handed to Python's
// `warnings` module after the call, with the GIL held.
struct Warnings {
  std::mutex mutex;
  std::vector<std::string> messages;
  void add(const std::string& message) {
    std::lock_guard lock(mutex);
    messages.push_back(message);
  }
  void emit() {
    std::vector<std::string> taken;
    {
      std::lock_guard lock(mutex);
      taken.swap(messages);
    }
    for (const std::string& m : taken) PyErr_WarnEx(PyExc_RuntimeWarning, m.c_str(), 1);
    if (PyErr_Occurred()) throw py::error_already_set();  // warnings turned into errors
  }
};

// What the Python layer passes: a job's settings, checked here.
struct Config {
  vqe::JobConfig job;
  std::shared_ptr<Warnings> warnings = std::make_shared<Warnings>();
};

Config make_config(const std::vector<std::string>& models,
                   const std::vector<std::string>& features, bool no_prediction,
                   unsigned threads, unsigned subsample, unsigned frame_cnt,
                   unsigned frame_skip_ref, unsigned frame_skip_dist, const std::string& backend,
                   int gpu, const std::string& cpu_level) {
  Config c;
  vqe::JobConfig& j = c.job;
  for (const std::string& spec : models) {
    // "vmaf_v0.6.1" is short for "version=vmaf_v0.6.1" (the CLI's -m syntax
    // is accepted as well).
    j.models.push_back(vqe::load_model_spec(spec.find('=') == std::string::npos ? "version=" + spec
                                                                                : spec));
    for (std::size_t i = 0; i + 1 < j.models.size(); ++i)
      if (j.models[i].name() == j.models.back().name())
        throw vqe::Error(fmt::format(
            "two models are named '{}': give each a unique name with ...:name=NAME",
            j.models.back().name()));
  }
  for (const std::string& f : features) j.features.push_back(vqe::parse_feature_request(f));
  j.no_prediction = no_prediction;
  if (j.features.empty() && (j.models.empty()))
    throw vqe::Error("nothing to compute: give features or a model");
  if (subsample < 1) throw vqe::Error("subsample must be 1 or more");
  j.threads = threads;
  j.subsample = subsample;
  j.frame_cnt = frame_cnt;
  j.frame_skip_ref = frame_skip_ref;
  j.frame_skip_dist = frame_skip_dist;
  if (backend == "cpu")
    j.backend = vqe::JobConfig::Backend::kCpu;
  else if (backend == "cuda")
    j.backend = vqe::JobConfig::Backend::kCuda;
  else if (backend == "vulkan")
    j.backend = vqe::JobConfig::Backend::kVulkan;
  else if (backend == "auto")
    j.backend = vqe::JobConfig::Backend::kAuto;
  else
    throw vqe::Error(fmt::format("backend '{}': use 'cpu', 'cuda', 'vulkan' or 'auto'", backend));
  if (gpu < 0) throw vqe::Error(fmt::format("gpu {}: a device index is 0 or more", gpu));
  j.gpu = gpu;
  if (!cpu_level.empty()) {
    const auto level = vqe::simd::parse_level(cpu_level);
    if (!level) throw vqe::Error(fmt::format("cpu_level: unknown level '{}'", cpu_level));
    if (!vqe::simd::is_available(*level))
      throw vqe::Error(fmt::format("cpu_level {}: this CPU supports up to {}", cpu_level,
                                   vqe::simd::level_name(vqe::simd::max_level())));
    j.cpu_level = *level;
  }
  std::shared_ptr<Warnings> w = c.warnings;
  j.on_warning = [w](const std::string& m) { w->add(m); };
  return c;
}

// A scored pair: JobResult plus what the writers need.
struct Result {
  vqe::JobResult result;
  unsigned subsample = 1;
  double seconds = 0;  // wall time of the scoring call
  // The files scored (score(), score_ladder()): write() refuses to replace them.
  std::vector<vqe::ProtectedFile> inputs;

  std::vector<std::string> names() const { return result.features.names(); }
  // Frame values of `name`, NaN where a frame has none (off the subsample
  // grid). Raises KeyError for a name the result does not hold.
  py::array_t<double> values(const std::string& name) const {
    if (!result.features.has(name)) throw py::key_error(name);
    py::array_t<double> out(result.frames);
    double* p = out.mutable_data();
    for (unsigned i = 0; i < result.frames; ++i)
      p[i] = result.features.get(name, i).value_or(std::numeric_limits<double>::quiet_NaN());
    return out;
  }
  std::optional<double> pooled(const std::string& name, const std::string& method) const {
    if (!result.features.has(name)) throw py::key_error(name);
    vqe::PoolMethod m;
    if (method == "min")
      m = vqe::PoolMethod::kMin;
    else if (method == "max")
      m = vqe::PoolMethod::kMax;
    else if (method == "mean")
      m = vqe::PoolMethod::kMean;
    else if (method == "harmonic_mean")
      m = vqe::PoolMethod::kHarmonicMean;
    else
      throw vqe::Error(fmt::format("pooling '{}': use min, max, mean or harmonic_mean", method));
    return result.features.pooled(name, m, subsample);
  }
  vqe::OutputInfo output_info(const std::string& format, const std::string& precision) const {
    vqe::OutputInfo info;
    if (format == "xml")
      info.format = vqe::OutputFormat::kXml;
    else if (format == "json")
      info.format = vqe::OutputFormat::kJson;
    else if (format == "csv")
      info.format = vqe::OutputFormat::kCsv;
    else if (format == "sub")
      info.format = vqe::OutputFormat::kSub;
    else
      throw vqe::Error(fmt::format("format '{}': use json, xml, csv or sub", format));
    if (!precision.empty()) info.precision = vqe::parse_precision(precision);
    info.subsample = subsample;
    info.width = result.format.width;
    info.height = result.format.height;
    info.fps = seconds > 0 ? result.frames / seconds : 0;
    info.version = std::string("vqe ") + VQE_VERSION;
    return info;
  }
  // The output file `path` in libvmaf's layout (written whole or not at all).
  void write(const std::string& path, const std::string& format, const std::string& precision) const {
    const vqe::OutputInfo info = output_info(format, precision);
    vqe::OutputFile file(path, inputs);
    vqe::write_output(file.stream(), result.features, info);
    file.commit();
  }
  std::string dumps(const std::string& format, const std::string& precision) const {
    std::ostringstream out;
    vqe::write_output(out, result.features, output_info(format, precision));
    return out.str();
  }

  // pickle support: everything write() and the accessors use, as plain
  // Python values (a version first). Unwritten frame values are None. The
  // inputs go by absolute path and are identified again where the result is
  // loaded, so that write() there refuses them too.
  static constexpr int kStateVersion = 1;
  py::tuple state() const {
    py::list columns;
    for (const std::string& name : result.features.names()) {
      py::list values;
      for (const std::optional<double>& v : result.features.values(name))
        values.append(v ? py::object(py::float_(*v)) : py::object(py::none()));
      columns.append(py::make_tuple(name, values));
    }
    py::list input_paths;
    for (const vqe::ProtectedFile& f : inputs) {
      std::error_code ec;
      const std::filesystem::path absolute = std::filesystem::absolute(f.name, ec);
      input_paths.append(ec ? f.name : absolute.string());
    }
    const vqe::VideoFormat& f = result.format;
    return py::make_tuple(kStateVersion, f.width, f.height, f.bit_depth,
                          vqe::to_string(f.chroma), result.frames, subsample, seconds,
                          result.gpu_extractors, columns, result.features.aggregates(),
                          input_paths);
  }
  // The Result that state() described; vqe::Error ("state not understood")
  // for anything else: another layout or version, wrong types, or values no
  // job gives (sizes, bit depth, chroma, subsample, more values than frames).
  static Result from_state(const py::handle& state) {
    const auto refuse = [](const std::string& why) {
      return vqe::Error("vqe.Result: pickled state not understood (" + why +
                        "); was it pickled by another version of vqe?");
    };
    if (!py::isinstance<py::tuple>(state)) throw refuse("not a tuple");
    const auto t = py::reinterpret_borrow<py::tuple>(state);
    if (t.size() != 12) throw refuse(fmt::format("{} items, not 12", t.size()));
    Result r;
    try {
      if (!py::isinstance<py::int_>(t[0]) || t[0].cast<int>() != kStateVersion)
        throw refuse("another version");
      for (int i : {1, 2, 3, 5, 6})
        if (!py::isinstance<py::int_>(t[i])) throw refuse(fmt::format("item {} not an int", i));
      if (!py::isinstance<py::str>(t[4])) throw refuse("chroma not a str");
      vqe::VideoFormat& f = r.result.format;
      f = {t[1].cast<int>(), t[2].cast<int>(), t[3].cast<int>(),
           vqe::parse_chroma_format(t[4].cast<std::string>())};
      try {
        vqe::validate_format(f, "format");
      } catch (const vqe::Error& e) {
        throw refuse(e.what());
      }
      r.result.frames = t[5].cast<unsigned>();
      r.subsample = t[6].cast<unsigned>();
      if (r.subsample < 1 || r.subsample > (1u << 30)) throw refuse("subsample outside 1..2^30");
      r.seconds = t[7].cast<double>();
      r.result.gpu_extractors = t[8].cast<std::vector<std::string>>();
      for (const py::handle column : t[9].cast<py::list>()) {
        const auto pair = column.cast<py::tuple>();
        if (pair.size() != 2) throw refuse("a column is not (name, values)");
        const auto name = pair[0].cast<std::string>();
        const auto values = pair[1].cast<py::list>();
        if (values.size() > r.result.frames) throw refuse("more values than frames");
        r.result.features.declare(name);
        unsigned i = 0;
        for (const py::handle v : values) {
          if (!v.is_none()) r.result.features.set(name, i, v.cast<double>());
          ++i;
        }
      }
      for (const auto& [name, value] :
           t[10].cast<std::vector<std::pair<std::string, double>>>())
        r.result.features.set_aggregate(name, value);
      for (const auto& path : t[11].cast<std::vector<std::string>>())
        if (auto id = vqe::file_identity(path)) r.inputs.push_back({path, *id});
    } catch (const py::cast_error&) {
      throw refuse("wrong types, or numbers out of range");
    }
    return r;
  }
};

// `raw`: None, or (width, height, pixel_format, bitdepth) with None for
// those not given (vqe._raw checked the values). Width and height make the
// file raw YUV (pixel_format 420 and 8 bits unless given); a Y4M file's
// header gives its format, and any of the four given that say otherwise are
// refused, as the CLI refuses -w/-h/-p/-b.
std::unique_ptr<vqe::FrameSource> open_input(const std::string& path, const py::object& raw) {
  const auto has_suffix = [&](const char* suffix) {
    const std::size_t n = std::strlen(suffix);
    return path.size() >= n && path.compare(path.size() - n, n, suffix) == 0;
  };
  vqe::RawShapeClaim claim;
  if (!raw.is_none()) {
    const auto t = raw.cast<std::tuple<std::optional<int>, std::optional<int>,
                                       std::optional<std::string>, std::optional<int>>>();
    claim.width = std::get<0>(t);
    claim.height = std::get<1>(t);
    if (std::get<2>(t)) claim.chroma = vqe::parse_chroma_format(*std::get<2>(t));
    claim.bit_depth = std::get<3>(t);
  }
  claim.spelling[0] = "width={}";
  claim.spelling[1] = "height={}";
  claim.spelling[2] = "pixel_format={}";
  claim.spelling[3] = "bitdepth={}";
  claim.names = "width, height, pixel_format and bitdepth";
  std::unique_ptr<vqe::FrameSource> source;
  if (!claim.width || !claim.height) {
    // Y4M and compressed files (where built with FFmpeg's libraries) are
    // recognised by content; raw YUV needs its shape.
    if (has_suffix(".yuv") || has_suffix(".raw"))
      throw vqe::Error(fmt::format("{}: raw (non-.y4m) input needs width, height, pixel_format "
                                   "and bitdepth", path));
    source = vqe::open_video(path, nullptr);
  } else {
    vqe::RawVideoParams p;
    p.width = *claim.width;
    p.height = *claim.height;
    p.chroma = claim.chroma.value_or(vqe::ChromaFormat::k420);
    p.bit_depth = claim.bit_depth.value_or(8);
    vqe::validate_format({p.width, p.height, p.bit_depth, p.chroma}, path);
    source = vqe::open_video(path, &p);
  }
  vqe::check_raw_claim(*source, claim);
  return source;
}

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Result score(const std::string& reference, const std::string& distorted, const Config& config,
             const py::object& raw) {
  auto ref = open_input(reference, raw);
  auto dist = open_input(distorted, raw);
  Result r;
  r.subsample = config.job.subsample;
  {
    py::gil_scoped_release release;
    const auto t0 = Clock::now();
    r.result = vqe::run_job(*ref, *dist, config.job);
    r.seconds = since(t0);
  }
  config.warnings->emit();
  for (const vqe::FrameSource* s : {ref.get(), dist.get()})
    if (auto id = s->identity()) r.inputs.push_back({s->path(), *id});
  return r;
}

// One Result or one error message per distorted path.
std::vector<std::variant<Result, std::string>> score_ladder(const std::string& reference,
                                                            const std::vector<std::string>& distorted,
                                                            const Config& config,
                                                            const py::object& raw) {
  if (distorted.empty()) throw vqe::Error("score_ladder: no distorted video");
  auto ref = open_input(reference, raw);
  std::vector<std::unique_ptr<vqe::FrameSource>> sources;
  std::vector<std::string> open_errors(distorted.size());
  std::vector<vqe::FrameSource*> readable;
  std::vector<std::size_t> where;
  for (std::size_t i = 0; i < distorted.size(); ++i) {
    try {
      sources.push_back(open_input(distorted[i], raw));
      readable.push_back(sources.back().get());
      where.push_back(i);
    } catch (const vqe::Error& e) {
      open_errors[i] = e.what();
    }
  }
  std::vector<vqe::LadderOutcome> outcomes;
  double seconds = 0;
  if (!readable.empty()) {
    py::gil_scoped_release release;
    const auto t0 = Clock::now();
    outcomes = vqe::run_ladder(*ref, readable, config.job);
    seconds = since(t0);
  }
  config.warnings->emit();
  std::vector<std::variant<Result, std::string>> out(distorted.size());
  for (std::size_t i = 0; i < distorted.size(); ++i) out[i] = open_errors[i];
  std::vector<vqe::ProtectedFile> inputs;
  if (auto id = ref->identity()) inputs.push_back({ref->path(), *id});
  for (const vqe::FrameSource* s : readable)
    if (auto id = s->identity()) inputs.push_back({s->path(), *id});
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    if (outcomes[k].result)
      out[where[k]] = Result{std::move(*outcomes[k].result), config.job.subsample, seconds, inputs};
    else
      out[where[k]] = outcomes[k].error;
  }
  return out;
}

// --- frames pushed from numpy ---------------------------------------------

// Picture planes from Python: an array (4:0:0) or a sequence of 1 or 3
// arrays. Holds the arrays while the view is in use.
struct Planes {
  std::vector<py::array> arrays;
  vqe::PictureView view;
};

Planes to_planes(const py::handle& object, const char* side, int bit_depth) {
  Planes p;
  std::vector<py::handle> items;
  if (py::isinstance<py::array>(object)) {
    items.push_back(object);
  } else if (py::isinstance<py::sequence>(object) && !py::isinstance<py::str>(object)) {
    for (const py::handle h : object) items.push_back(h);
  } else {
    throw py::type_error(fmt::format("{}: expected a numpy array (luma only) or a sequence of 1 "
                                     "or 3 numpy arrays (Y, Cb, Cr), got {}",
                                     side, py::str(py::type::of(object)).cast<std::string>()));
  }
  if (items.size() != 1 && items.size() != 3)
    throw py::value_error(fmt::format("{}: {} planes; give 1 (4:0:0) or 3 (Y, Cb, Cr)", side,
                                      items.size()));
  const char* plane_names[3] = {"Y", "Cb", "Cr"};
  const bool wide = bit_depth > 8;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!py::isinstance<py::array>(items[i]))
      throw py::type_error(fmt::format("{} plane {}: expected a numpy array, got {}", side,
                                       plane_names[i],
                                       py::str(py::type::of(items[i])).cast<std::string>()));
    auto a = py::reinterpret_borrow<py::array>(items[i]);
    const bool is_u8 = a.dtype().is(py::dtype::of<std::uint8_t>());
    const bool is_u16 = a.dtype().is(py::dtype::of<std::uint16_t>());
    if (wide ? !is_u16 : !is_u8)
      throw py::type_error(fmt::format(
          "{} plane {}: dtype {} for {}-bit video; expected {}", side, plane_names[i],
          py::str(a.dtype()).cast<std::string>(), bit_depth,
          wide ? "uint16 (native byte order)" : "uint8 (or give bit_depth for uint16 planes)"));
    if (a.ndim() != 2)
      throw py::value_error(fmt::format("{} plane {}: {} dimensions; a plane is a 2-D array "
                                        "(height, width)",
                                        side, plane_names[i], a.ndim()));
    // Rows must be contiguous samples; any row stride is accepted.
    if (a.strides(1) != a.itemsize() || a.strides(0) < a.shape(1) * a.itemsize())
      a = py::array::ensure(a, py::array::c_style);
    p.arrays.push_back(a);
  }
  const py::array& y = p.arrays[0];
  vqe::VideoFormat f;
  f.height = static_cast<int>(y.shape(0));
  f.width = static_cast<int>(y.shape(1));
  f.bit_depth = bit_depth;
  if (f.width < 1 || f.height < 1)
    throw py::value_error(fmt::format("{} plane Y: empty ({}x{})", side, f.width, f.height));
  if (p.arrays.size() == 1) {
    f.chroma = vqe::ChromaFormat::k400;
  } else {
    const py::array& u = p.arrays[1];
    const py::array& v = p.arrays[2];
    if (u.shape(0) != v.shape(0) || u.shape(1) != v.shape(1))
      throw py::value_error(fmt::format("{}: Cb is {}x{} but Cr is {}x{} (width x height)", side,
                                        u.shape(1), u.shape(0), v.shape(1), v.shape(0)));
    const int cw = static_cast<int>(u.shape(1)), ch = static_cast<int>(u.shape(0));
    const int hw = (f.width + 1) / 2, hh = (f.height + 1) / 2;
    if (cw == f.width && ch == f.height)
      f.chroma = vqe::ChromaFormat::k444;
    else if (cw == hw && ch == f.height)
      f.chroma = vqe::ChromaFormat::k422;
    else if (cw == hw && ch == hh)
      f.chroma = vqe::ChromaFormat::k420;
    else
      throw py::value_error(fmt::format(
          "{}: chroma planes {}x{} do not fit luma {}x{} (width x height): expected {}x{} "
          "(4:2:0), {}x{} (4:2:2) or {}x{} (4:4:4)",
          side, cw, ch, f.width, f.height, hw, hh, hw, f.height, f.width, f.height));
  }
  p.view.format = f;
  for (std::size_t i = 0; i < p.arrays.size(); ++i) {
    p.view.data[i] = p.arrays[i].data();
    p.view.stride[i] = p.arrays[i].strides(0);
  }
  return p;
}

// Samples above the bit depth's maximum would index past the extractors'
// tables: refused, as the file readers refuse them.
void check_range(const Planes& p, const char* side) {
  const int bd = p.view.format.bit_depth;
  if (bd == 8 || bd == 16) return;
  const unsigned max = (1u << bd) - 1;
  for (int i = 0; i < p.view.format.num_planes(); ++i) {
    const int w = p.view.format.plane_width(i), h = p.view.format.plane_height(i);
    const auto* base = static_cast<const std::uint8_t*>(p.view.data[i]);
    for (int y = 0; y < h; ++y) {
      const auto* row = reinterpret_cast<const std::uint16_t*>(base + y * p.view.stride[i]);
      for (int x = 0; x < w; ++x)
        if (row[x] > max)
          throw vqe::Error(fmt::format("{} plane {}: sample {} at ({}, {}) is above {} ({}-bit)",
                                       side, i, row[x], x, y, max, bd));
    }
  }
}

// vqe::Job for Python: frames pushed as numpy planes, with backpressure.
class PyJob {
 public:
  PyJob(const Config& config, int bit_depth) : config_(config), bit_depth_(bit_depth) {
    if (bit_depth != 8 && bit_depth != 10 && bit_depth != 12 && bit_depth != 16)
      throw vqe::Error(fmt::format("bit_depth {}: use 8, 10, 12 or 16", bit_depth));
    job_ = std::make_unique<vqe::Job>(config_.job);
  }

  // Copies one frame pair into the job; waits (GIL released) while the job
  // is full unless `wait` is false, then returns false instead.
  bool submit(const py::object& reference, const py::object& distorted, bool wait) {
    Planes ref = to_planes(reference, "reference", bit_depth_);
    Planes dist = to_planes(distorted, "distorted", bit_depth_);
    if (!(ref.view.format == dist.view.format))
      throw py::value_error(fmt::format(
          "reference is {}x{} {}p, distorted is {}x{} {}p: the pair must have one format",
          ref.view.format.width, ref.view.format.height, vqe::to_string(ref.view.format.chroma),
          dist.view.format.width, dist.view.format.height,
          vqe::to_string(dist.view.format.chroma)));
    bool taken = false;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(producer_);
      check_range(ref, "reference");
      check_range(dist, "distorted");
      if (!job_) throw vqe::Error("submit: the job is finished");
      if (wait) {
        job_->submit(ref.view, dist.view);
        taken = true;
      } else {
        taken = job_->try_submit(ref.view, dist.view);
      }
    }
    config_.warnings->emit();
    return taken;
  }

  unsigned frames_submitted() const { return job_ ? job_->frames_submitted() : submitted_; }
  unsigned frames_final() const { return job_ ? job_->frames_final() : submitted_; }
  std::optional<double> score(const std::string& name, unsigned index) const {
    if (!job_) throw vqe::Error("score: the job is finished; read the Result");
    return job_->score(name, index);
  }
  std::vector<std::string> feature_names() const {
    return job_ ? job_->feature_names() : std::vector<std::string>{};
  }
  void flush() {
    {
      py::gil_scoped_release release;
      std::lock_guard lock(producer_);
      if (job_) job_->flush();
    }
    config_.warnings->emit();
  }
  Result finish() {
    Result r;
    r.subsample = config_.job.subsample;
    {
      py::gil_scoped_release release;
      std::lock_guard lock(producer_);
      if (!job_) throw vqe::Error("finish: the job is finished");
      std::unique_ptr<vqe::Job> job = std::move(job_);
      submitted_ = job->frames_submitted();
      r.result = job->finish();
      r.seconds = since(started_);
    }
    config_.warnings->emit();
    return r;
  }

 private:
  Config config_;
  int bit_depth_;
  std::unique_ptr<vqe::Job> job_;
  std::mutex producer_;  // one producer call at a time (vqe::Job's rule)
  unsigned submitted_ = 0;
  Clock::time_point started_ = Clock::now();
};

}  // namespace

PYBIND11_MODULE(_vqe, m) {
  m.doc() = "VQE's C++ engine (use the vqe package, not this module)";
  static py::exception<vqe::Error> error(m, "VqeError");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const vqe::Error& e) {
      error(e.what());
    }
  });
  m.attr("__version__") = VQE_VERSION;

  py::class_<Config>(m, "Config");
  m.def("make_config", &make_config, py::arg("models"), py::arg("features"),
        py::arg("no_prediction"), py::arg("threads"), py::arg("subsample"), py::arg("frame_cnt"),
        py::arg("frame_skip_ref"), py::arg("frame_skip_dist"), py::arg("backend"), py::arg("gpu"),
        py::arg("cpu_level"));

  py::class_<Result>(m, "Result")
      .def_property_readonly("frames", [](const Result& r) { return r.result.frames; })
      .def_property_readonly("width", [](const Result& r) { return r.result.format.width; })
      .def_property_readonly("height", [](const Result& r) { return r.result.format.height; })
      .def_property_readonly("bit_depth", [](const Result& r) { return r.result.format.bit_depth; })
      .def_property_readonly("chroma",
                             [](const Result& r) { return vqe::to_string(r.result.format.chroma); })
      .def_property_readonly("subsample", [](const Result& r) { return r.subsample; })
      .def_property_readonly("seconds", [](const Result& r) { return r.seconds; })
      .def_property_readonly("gpu_extractors",
                             [](const Result& r) { return r.result.gpu_extractors; })
      .def("names", &Result::names)
      .def("values", &Result::values)
      .def("pooled", &Result::pooled)
      .def("aggregates", [](const Result& r) { return r.result.features.aggregates(); })
      .def("write", &Result::write, py::call_guard<py::gil_scoped_release>())
      .def("dumps", &Result::dumps)
      // Pickled as a call of vqe._native_result, a Python function that
      // pickle saves by name (every protocol; pybind11's own pickling aborted
      // the interpreter at protocols 0 and 1, and this module's functions
      // cannot be saved by name).
      .def("__reduce__", [](const Result& r) {
        return py::make_tuple(py::module_::import("vqe").attr("_native_result"),
                              py::make_tuple(r.state()));
      });
  m.def("_result_from_state", &Result::from_state, py::arg("state"),
        "A Result from Result.__reduce__'s state (pickle's loads calls it).");
  // Results come from score(), score_ladder() and pickle only: Result.__new__
  // would give an instance with no C++ object behind it.
  m.attr("Result").attr("__new__") = py::cpp_function(
      [](const py::args&, const py::kwargs&) -> py::object {
        throw py::type_error("vqe._vqe.Result cannot be created directly: it comes from "
                             "vqe.score(), vqe.score_ladder() or pickle");
      });

  m.def("score", &score, py::arg("reference"), py::arg("distorted"), py::arg("config"),
        py::arg("raw"));
  m.def("score_ladder", &score_ladder, py::arg("reference"), py::arg("distorted"),
        py::arg("config"), py::arg("raw"));

  py::class_<PyJob>(m, "Job")
      .def(py::init<const Config&, int>(), py::arg("config"), py::arg("bit_depth"))
      .def("submit", &PyJob::submit, py::arg("reference"), py::arg("distorted"), py::arg("wait"))
      .def_property_readonly("frames_submitted", &PyJob::frames_submitted)
      .def_property_readonly("frames_final", &PyJob::frames_final)
      .def("score", &PyJob::score)
      .def("feature_names", &PyJob::feature_names)
      .def("flush", &PyJob::flush)
      .def("finish", &PyJob::finish);

  m.def("list_features", [] {
    std::vector<std::string> names;
    for (const vqe::ExtractorDescription& e : vqe::list_extractors()) names.push_back(e.name);
    return names;
  });
  m.def("builtin_models", &vqe::Model::builtin_versions);
}
