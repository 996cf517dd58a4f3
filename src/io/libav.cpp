// SPDX-License-Identifier: BSD-2-Clause
// Compressed input (libavformat + libavcodec) and scaling (libswscale).
// Built only where FFmpeg's libraries are found (VQE_WITH_LIBAV);
// libav_none.cpp stands in otherwise.

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/hwcontext.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}
#if VQE_HAVE_CUDA
// Needs the CUDA toolkit's cuda.h (types only: FFmpeg loads libcuda itself).
extern "C" {
#include <libavutil/hwcontext_cuda.h>
}
#endif

#include "backend/cuda/decoded_frames.h"
#include "backend/cuda/device.h"
#include "io/device_source.h"
#include "io/libav.h"
#include "io/libav_dl.h"  // after FFmpeg's headers: calls go through the loaded table
#include "vqe/error.h"
#include "vqe/io.h"

namespace vqe {
namespace {

std::string av_error_text(int code) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, buf, sizeof buf);
  return buf;
}

// libav*'s log, less the errors of FFmpeg 5.1's native AV1 decoder where it
// has no hardware device (libavformat's probing decode, or decoding on the
// CPU): that decoder decodes through a hardware accelerator only (the
// minimal static FFmpeg has no other AV1 decoder), so without one it fails
// every packet ("Missing Sequence Header"...), and VQE says why itself.
// The lines that pass are written as one "vqe: ffmpeg: [component] text"
// line each (FFmpeg's own "[mov,mp4,... @ 0x55...] text" carries a pointer
// and no program name, next to VQE's "vqe: error: ..." lines).
void log_without_hwless_av1(void* object, int level, const char* format, va_list args) {
  if (level > av_log_get_level()) return;
  const AVClass* cls = object ? *static_cast<const AVClass* const*>(object) : nullptr;
  if (cls && level > AV_LOG_FATAL && std::strcmp(cls->class_name, "AVCodecContext") == 0) {
    const auto* c = static_cast<const AVCodecContext*>(object);
    if (c->codec && std::strcmp(c->codec->name, "av1") == 0 && !c->hw_device_ctx) return;
  }
  char text[1024];
  std::vsnprintf(text, sizeof text, format, args);
  std::size_t n = std::strlen(text);
  while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
  if (n == 0) return;
  const char* who = cls ? (cls->item_name ? cls->item_name(object) : cls->class_name) : nullptr;
  if (who && *who)
    std::fprintf(stderr, "vqe: ffmpeg: [%s] %s\n", who, text);
  else
    std::fprintf(stderr, "vqe: ffmpeg: %s\n", text);
}

// libav* log at "error" level unless the application chose a level: their
// informational and warning lines would interleave with the progress line.
void quiet_libav_logs() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (av_log_get_level() == AV_LOG_INFO) {
      av_log_set_level(AV_LOG_ERROR);
      av_log_set_callback(log_without_hwless_av1);
    }
  });
}

struct PixFmtMapping {
  AVPixelFormat pix_fmt;
  ChromaFormat chroma;
  int bit_depth;
};

// Native-endian (AV_PIX_FMT_*P10 etc. are the host's byte order) planar
// formats whose planes are VQE's planes as they are. The yuvj formats are
// the full-range spellings of the same layouts.
constexpr PixFmtMapping kPixFmts[] = {
    {AV_PIX_FMT_YUV420P, ChromaFormat::k420, 8},    {AV_PIX_FMT_YUVJ420P, ChromaFormat::k420, 8},
    {AV_PIX_FMT_YUV422P, ChromaFormat::k422, 8},    {AV_PIX_FMT_YUVJ422P, ChromaFormat::k422, 8},
    {AV_PIX_FMT_YUV444P, ChromaFormat::k444, 8},    {AV_PIX_FMT_YUVJ444P, ChromaFormat::k444, 8},
    {AV_PIX_FMT_GRAY8, ChromaFormat::k400, 8},      {AV_PIX_FMT_YUV420P10, ChromaFormat::k420, 10},
    {AV_PIX_FMT_YUV420P12, ChromaFormat::k420, 12}, {AV_PIX_FMT_YUV420P16, ChromaFormat::k420, 16},
    {AV_PIX_FMT_YUV422P10, ChromaFormat::k422, 10}, {AV_PIX_FMT_YUV422P12, ChromaFormat::k422, 12},
    {AV_PIX_FMT_YUV422P16, ChromaFormat::k422, 16}, {AV_PIX_FMT_YUV444P10, ChromaFormat::k444, 10},
    {AV_PIX_FMT_YUV444P12, ChromaFormat::k444, 12}, {AV_PIX_FMT_YUV444P16, ChromaFormat::k444, 16},
    {AV_PIX_FMT_GRAY10, ChromaFormat::k400, 10},    {AV_PIX_FMT_GRAY12, ChromaFormat::k400, 12},
    {AV_PIX_FMT_GRAY16, ChromaFormat::k400, 16},
};

const PixFmtMapping* find_mapping(int pix_fmt) {
  for (const PixFmtMapping& m : kPixFmts)
    if (m.pix_fmt == pix_fmt) return &m;
  return nullptr;
}

// The libav pixel format of a VQE format (the plain, limited-range names).
AVPixelFormat pix_fmt_of(const VideoFormat& f) {
  for (const PixFmtMapping& m : kPixFmts)
    if (m.chroma == f.chroma && m.bit_depth == f.bit_depth && m.pix_fmt != AV_PIX_FMT_YUVJ420P &&
        m.pix_fmt != AV_PIX_FMT_YUVJ422P && m.pix_fmt != AV_PIX_FMT_YUVJ444P)
      return m.pix_fmt;
  throw Error(fmt::format("no libav pixel format for {}p at {} bits", to_string(f.chroma),
                          f.bit_depth));
}

std::string pix_fmt_name(int pix_fmt) {
  const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(pix_fmt));
  return name ? name : fmt::format("#{}", pix_fmt);
}

struct FormatCloser {
  void operator()(AVFormatContext* c) const { avformat_close_input(&c); }
};
struct CodecFreer {
  void operator()(AVCodecContext* c) const { avcodec_free_context(&c); }
};
struct FrameFreer {
  void operator()(AVFrame* f) const { av_frame_free(&f); }
};
struct PacketFreer {
  void operator()(AVPacket* p) const { av_packet_free(&p); }
};
struct SwsFreer {
  void operator()(SwsContext* s) const { sws_freeContext(s); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameFreer>;

FramePtr alloc_frame() {
  FramePtr f(av_frame_alloc());
  if (!f) throw Error("out of memory (av_frame_alloc)");
  return f;
}

const char* media_type_name(AVMediaType t) {
  const char* s = av_get_media_type_string(t);
  return s ? s : "unknown";
}

#if VQE_HAVE_CUDA
// NVDEC cannot decode the file (said in the note, then decoded on the CPU).
class NvdecUnavailable : public Error {
 public:
  using Error::Error;
};

// Bit depth of a stream's software pixel format that NVDEC decodes into a
// surface VQE converts (4:2:0 at 8, 10 or 12 bits: NV12, P010, P016), else 0.
int nvdec_bit_depth(int sw_pix_fmt) {
  switch (sw_pix_fmt) {
    case AV_PIX_FMT_YUV420P:
    case AV_PIX_FMT_YUVJ420P:
      return 8;
    case AV_PIX_FMT_YUV420P10:
      return 10;
    case AV_PIX_FMT_YUV420P12:
      return 12;
    default:
      return 0;
  }
}

// The surface format NVDEC gives for that bit depth (libavcodec/nvdec.c).
AVPixelFormat nvdec_surface_format(int bit_depth) {
  return bit_depth == 8 ? AV_PIX_FMT_NV12 : bit_depth == 10 ? AV_PIX_FMT_P010 : AV_PIX_FMT_P016;
}

bool has_cuda_hwaccel(const AVCodec* codec) {
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* config = avcodec_get_hw_config(codec, i);
    if (!config) return false;
    if (config->device_type == AV_HWDEVICE_TYPE_CUDA && config->pix_fmt == AV_PIX_FMT_CUDA &&
        (config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
      return true;
  }
}

// libavcodec's decoder with NVDEC for the stream: the one av_find_best_stream
// chose, or the codec's native decoder (Debian's FFmpeg prefers libdav1d for
// AV1, which has no hardware acceleration). Throws NvdecUnavailable.
const AVCodec* nvdec_decoder(const AVStream* st, const AVCodec* found) {
  const AVCodecID id = st->codecpar->codec_id;
  const char* native = id == AV_CODEC_ID_H264   ? "h264"
                       : id == AV_CODEC_ID_HEVC ? "hevc"
                       : id == AV_CODEC_ID_VP9  ? "vp9"
                       : id == AV_CODEC_ID_AV1  ? "av1"
                                                : nullptr;
  if (!native)
    throw NvdecUnavailable(fmt::format("VQE decodes H.264, HEVC, VP9 and AV1 with NVDEC, not {}",
                                       avcodec_get_name(id)));
  const int sw = st->codecpar->format;
  if (sw != AV_PIX_FMT_NONE && nvdec_bit_depth(sw) == 0)
    throw NvdecUnavailable(fmt::format(
        "its pixel format {} is not 4:2:0 at 8, 10 or 12 bits (what NVDEC decodes)",
        pix_fmt_name(sw)));
  for (const AVCodec* codec : {found, avcodec_find_decoder_by_name(native)})
    if (codec && has_cuda_hwaccel(codec)) return codec;
  throw NvdecUnavailable(fmt::format("this FFmpeg's {} decoder has no NVDEC acceleration", native));
}

// An FFmpeg CUDA device over the CUDA runtime's primary context of `device`
// (the context VQE's CUDA job computes in, so that decoded frames' device
// pointers are valid there), its work on `stream`. The context is retained
// until FFmpeg frees the device.
AVBufferRef* make_cuda_device(int device, void* stream) {
  void* context = cuda::retain_primary_context(device);
  AVBufferRef* ref = av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA);
  if (!ref) {
    cuda::release_primary_context(device);
    throw Error("out of memory (av_hwdevice_ctx_alloc)");
  }
  auto* hw = reinterpret_cast<AVHWDeviceContext*>(ref->data);
  auto* cu = static_cast<AVCUDADeviceContext*>(hw->hwctx);
  cu->cuda_ctx = static_cast<CUcontext>(context);
  cu->stream = static_cast<CUstream>(stream);
  hw->user_opaque = reinterpret_cast<void*>(static_cast<std::intptr_t>(device));
  hw->free = [](AVHWDeviceContext* c) {
    cuda::release_primary_context(static_cast<int>(reinterpret_cast<std::intptr_t>(c->user_opaque)));
  };
  const int rc = av_hwdevice_ctx_init(ref);
  if (rc < 0) {
    av_buffer_unref(&ref);
    throw NvdecUnavailable(fmt::format("FFmpeg cannot use CUDA device {} ({})", device,
                                       av_error_text(rc)));
  }
  return ref;
}

// get_format with NVDEC: the CUDA surfaces when libavcodec offers them for a
// stream NVDEC decodes into a surface VQE converts, else the software format
// (then the reader notices the frames are not on the device).
AVPixelFormat pick_nvdec_format(AVCodecContext* c, const AVPixelFormat* formats) {
  bool cuda = false;
  for (const AVPixelFormat* p = formats; *p != AV_PIX_FMT_NONE; ++p) cuda = cuda || *p == AV_PIX_FMT_CUDA;
  if (cuda && nvdec_bit_depth(c->sw_pix_fmt) != 0) return AV_PIX_FMT_CUDA;
  for (const AVPixelFormat* p = formats; *p != AV_PIX_FMT_NONE; ++p) {
    const AVPixFmtDescriptor* desc = av_pix_fmt_desc_get(*p);
    if (desc && !(desc->flags & AV_PIX_FMT_FLAG_HWACCEL)) return *p;
  }
  return AV_PIX_FMT_NONE;
}
#endif

// A decoded frame waiting for read(): in host memory (decoded on the CPU)
// or in device memory (NVDEC, converted to VQE's planar layout).
struct Decoded {
  FramePtr frame;
  DevicePicture device;
  explicit operator bool() const { return frame != nullptr || static_cast<bool>(device); }
};

// Demuxes and decodes on a thread of its own, a few frames ahead of read();
// the libav contexts are used by that thread only once it runs. With NVDEC
// that thread also converts each surface into a DevicePicture and releases
// the surface at once (NVDEC has only a few: a frame held longer would stall
// the decoder).
class LibavReader final : public FrameSource, public DeviceFrameSource {
 public:
  LibavReader(std::string path, const DecodeOptions& options) : path_(std::move(path)) {
    quiet_libav_logs();
    std::string why_not;  // why NVDEC does not decode it (when asked to)
    if (options.cuda_device >= 0) {
#if VQE_HAVE_CUDA
      try {
        open(1, options.cuda_device);
      } catch (const Error& e) {
        why_not = e.what();
        close();
      }
#else
      why_not = "this build of VQE has no CUDA backend";
#endif
      if (device_ < 0 && options.require_device)
        fail(fmt::format("cannot be decoded with NVDEC on CUDA device {}: {}", options.cuda_device,
                         why_not));
    }
    if (device_ < 0) {
      try {
        open(options.threads, -1);
      } catch (const Error& e) {
        // Said once when both failed alike (a file that is not a video).
        if (why_not.empty() || why_not == e.what()) throw;
        throw Error(fmt::format("{} (nor with NVDEC: {})", e.what(), why_not));
      }
    }
    if (options.on_note) {
      const std::string what = fmt::format("{}: {} {} {}x{}", path_, codec_name_,
                                           pix_fmt_name(pix_fmt_of(format_)), format_.width,
                                           format_.height);
      if (device_ >= 0)
        options.on_note(fmt::format("{}, decoded with NVDEC on CUDA device {}", what, device_));
      else
        options.on_note(fmt::format("{}, decoded on the CPU{}", what,
                                    why_not.empty() ? "" : " (not with NVDEC: " + why_not + ")"));
    }
    // From here on only the decoding thread touches the libav contexts.
    thread_ = std::thread([this] { decode_ahead(); });
  }

  ~LibavReader() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    close();
  }

  const VideoFormat& format() const override { return format_; }
  const std::string& path() const override { return path_; }
  unsigned frames_read() const override { return frames_read_; }
  unsigned frame_count_hint() const override { return frame_count_hint_; }

  bool read(Picture& picture) override { return read_planes(picture, format_.num_planes()); }

  bool read_planes(Picture& picture, int planes) override {
    const Decoded d = next();
    if (!d) return false;
    if (!(picture.format() == format_)) picture = Picture(format_);
    if (d.device) {
      if (planes > d.device.planes)
        throw Error(fmt::format("{}: frame {}: internal: {} planes asked, {} kept on the device",
                                path_, frames_read_, planes, d.device.planes));
      converter_->download(d.device, picture, planes);
    } else {
      PictureView view;
      view.format = format_;
      for (int p = 0; p < format_.num_planes(); ++p) {
        view.data[p] = d.frame->data[p];
        view.stride[p] = d.frame->linesize[p];
      }
      copy_picture(view, picture, fmt::format("{}: frame {}", path_, frames_read_));
    }
    ++frames_read_;
    return true;
  }

  bool skip(unsigned count) override {
    for (unsigned i = 0; i < count; ++i) {
      if (!next()) return false;
      ++frames_read_;
    }
    return true;
  }

  int frame_device() const override { return device_; }

  void set_device_planes(int planes) override {
    planes_.store(std::clamp(planes, 1, format_.num_planes()));
  }

  bool read_device(DevicePicture& picture) override {
    if (device_ < 0) throw Error(path_ + ": internal: read_device() on frames decoded on the CPU");
    Decoded d = next();
    if (!d) return false;
    picture = std::move(d.device);
    ++frames_read_;
    return true;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(fmt::format("{}: {}", path_, what));
  }

  // Frame numbers count frames in presentation order as returned; the
  // decoder (its threads, B-frame reordering) may be a few packets ahead.
  [[noreturn]] void decode_failed(int rc) const {
    // ENOSYS from a hardware decoder: FFmpeg's hwaccel refused the stream
    // (e.g. an H200's NVDEC has no AV1: "Hardware is lacking required
    // capabilities"), which says nothing about the file.
    if (rc == AVERROR(ENOSYS) && dec_ && dec_->hw_device_ctx)
      fail(fmt::format("frame {}: this GPU's decoder (NVDEC) cannot decode this {} stream "
                       "(FFmpeg: {}); decode it on the CPU with --hwdec none",
                       decoded_, codec_name_, av_error_text(rc)));
    fail(fmt::format("frame {}: decoding failed ({} decoder: {}; {} packets of the video stream "
                     "read): the stream is corrupt or truncated",
                     decoded_, codec_name_, av_error_text(rc), packets_));
  }

  // Opens the file and decodes its first frame, which decides the format:
  // on the CPU with `threads` when `device` is -1, else with NVDEC on CUDA
  // device `device` (throws when NVDEC does not decode it; close() then
  // leaves the reader ready for another open()).
  void open(int threads, int device) {
    AVFormatContext* raw_fmt = nullptr;
    int rc = avformat_open_input(&raw_fmt, path_.c_str(), nullptr, nullptr);
    if (rc < 0)
      fail(fmt::format("not a video file that FFmpeg's libraries can read ({})", av_error_text(rc)));
    fmt_.reset(raw_fmt);
    rc = avformat_find_stream_info(fmt_.get(), nullptr);
    if (rc < 0) fail(fmt::format("cannot read the stream information ({})", av_error_text(rc)));
    const AVCodec* codec = nullptr;
    stream_ = av_find_best_stream(fmt_.get(), AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (stream_ == AVERROR_STREAM_NOT_FOUND || (stream_ < 0 && stream_ != AVERROR_DECODER_NOT_FOUND)) {
      std::string streams;
      for (unsigned i = 0; i < fmt_->nb_streams; ++i)
        streams += fmt::format("{}{}", i ? ", " : "",
                               media_type_name(fmt_->streams[i]->codecpar->codec_type));
      fail(fmt::format("has no video stream ({} format; streams: {})", fmt_->iformat->name,
                       streams.empty() ? "none" : streams));
    }
    AVStream* st = fmt_->streams[stream_ < 0 ? 0 : stream_];
#if VQE_HAVE_CUDA
    if (device >= 0 && stream_ >= 0) codec = nvdec_decoder(st, codec);
#endif
    if (stream_ < 0 || !codec)
      fail(fmt::format("no decoder for its video codec '{}' in this FFmpeg",
                       avcodec_get_name(st->codecpar->codec_id)));
    // FFmpeg 5.1's native AV1 decoder decodes through a hardware
    // accelerator only (the minimal static FFmpeg of scripts/ffmpeg-minimal
    // has no other).
    if (device < 0 && std::strcmp(codec->name, "av1") == 0)
      fail("no AV1 decoder for the CPU in this FFmpeg (its native av1 decoder needs a hardware "
           "decoder: NVDEC, with --backend cuda; FFmpeg with libdav1d decodes AV1 on the CPU)");
    for (unsigned i = 0; i < fmt_->nb_streams; ++i)
      if (static_cast<int>(i) != stream_) fmt_->streams[i]->discard = AVDISCARD_ALL;
    dec_.reset(avcodec_alloc_context3(codec));
    if (!dec_) fail("out of memory (avcodec_alloc_context3)");
    rc = avcodec_parameters_to_context(dec_.get(), st->codecpar);
    if (rc < 0) fail(fmt::format("bad codec parameters ({})", av_error_text(rc)));
    dec_->pkt_timebase = st->time_base;
    dec_->thread_count = std::max(0, threads);
    dec_->thread_type = FF_THREAD_FRAME | FF_THREAD_SLICE;
#if VQE_HAVE_CUDA
    if (device >= 0) {
      const int count = cuda::device_count();
      if (device >= count)
        throw NvdecUnavailable(fmt::format("no CUDA device {} ({} found)", device, count));
      // One decoding thread: the GPU decodes, and frame threads would hold
      // more of NVDEC's few surfaces.
      converter_ = std::make_unique<cuda::SurfaceConverter>(device);
      dec_->hw_device_ctx = make_cuda_device(device, converter_->stream());
      dec_->get_format = pick_nvdec_format;
      dec_->thread_count = 1;
    }
#endif
    // Bitstream errors stop the decoder (rather than concealed frames). The
    // decoder's other defaults stay as ffmpeg has them: e.g. H.264 frames
    // before the first recovery point are not output (as `ffmpeg -i` does).
    dec_->err_recognition |= AV_EF_EXPLODE;
    rc = avcodec_open2(dec_.get(), codec, nullptr);
    if (rc < 0)
      fail(fmt::format("cannot open the {} decoder ({})", codec->name, av_error_text(rc)));
    codec_name_ = codec->name;
    packet_.reset(av_packet_alloc());
    if (!packet_) fail("out of memory (av_packet_alloc)");
    frame_count_hint_ = count_hint(st);

    // The first frame decides the format.
    FramePtr first = alloc_frame();
    frame_ = first.get();
    if (!decode_next())
      fail(fmt::format("holds no video frame ({} stream)", avcodec_get_name(st->codecpar->codec_id)));
    frame_ = nullptr;
    Decoded d;
    if (device >= 0) {
#if VQE_HAVE_CUDA
      d.device = open_device_frames(*first, device);
#endif
    } else {
      const PixFmtMapping* m = find_mapping(first->format);
      if (!m)
        fail(fmt::format("the decoded pixel format {} ({} codec) is not planar YUV or gray at 8, "
                         "10, 12 or 16 bits; VQE does not convert it: decode to one of those first "
                         "(e.g. ffmpeg -pix_fmt yuv420p)",
                         pix_fmt_name(first->format), codec_name_));
      format_ = VideoFormat{first->width, first->height, m->bit_depth, m->chroma};
      validate_format(format_, path_);
      pix_fmt_ = first->format;
      d.frame = std::move(first);
    }
    ++decoded_;
    queue_.push_back(std::move(d));
  }

#if VQE_HAVE_CUDA
  // The format of NVDEC's first frame, checked; its picture on the device.
  DevicePicture open_device_frames(const AVFrame& first, int device) {
    if (first.format != AV_PIX_FMT_CUDA)
      throw NvdecUnavailable(fmt::format(
          "libavcodec could not set up NVDEC for this {} {} stream (the GPU may lack that "
          "profile or size, or libnvcuvid.so.1 is missing; FFmpeg's message above says which)",
          codec_name_, pix_fmt_name(dec_->sw_pix_fmt)));
    const int bits = nvdec_bit_depth(dec_->sw_pix_fmt);
    const auto* frames = first.hw_frames_ctx
                             ? reinterpret_cast<const AVHWFramesContext*>(first.hw_frames_ctx->data)
                             : nullptr;
    if (bits == 0 || !frames || frames->sw_format != nvdec_surface_format(bits))
      throw NvdecUnavailable(fmt::format("unexpected NVDEC surface ({} for {})",
                                         frames ? pix_fmt_name(frames->sw_format) : "none",
                                         pix_fmt_name(dec_->sw_pix_fmt)));
    // libavcodec crops hardware frames at the right and bottom only.
    if ((first.crop_left | first.crop_top) & 1)
      throw NvdecUnavailable("its cropping starts at an odd row or column");
    format_ = VideoFormat{visible_width(first), visible_height(first), bits, ChromaFormat::k420};
    validate_format(format_, path_);
    pix_fmt_ = AV_PIX_FMT_CUDA;
    surface_format_ = frames->sw_format;
    planes_.store(format_.num_planes());
    converter_->init(format_);
    device_ = device;
    return convert(first);
  }

  // The frame's surface as a DevicePicture (the planes asked for so far).
  DevicePicture convert(const AVFrame& frame) {
    const cuda::Surface surface{frame.data[0], static_cast<std::size_t>(frame.linesize[0]),
                                frame.data[1], static_cast<std::size_t>(frame.linesize[1])};
    return converter_->convert(surface, static_cast<int>(frame.crop_top),
                               static_cast<int>(frame.crop_left), planes_.load());
  }
#endif

  static int visible_width(const AVFrame& f) { return f.width - static_cast<int>(f.crop_left); }
  static int visible_height(const AVFrame& f) { return f.height - static_cast<int>(f.crop_top); }

  // Undoes open(): ready for another (or for the destructor).
  void close() {
    queue_.clear();
    packet_.reset();
    dec_.reset();  // before the converter: NVDEC maps surfaces on its stream
    converter_.reset();
    fmt_.reset();
    frame_ = nullptr;
    codec_name_.clear();
    stream_ = -1;
    pix_fmt_ = AV_PIX_FMT_NONE;
    surface_format_ = AV_PIX_FMT_NONE;
    device_ = -1;
    frame_count_hint_ = 0;
    packets_ = 0;
    decoded_ = 0;
    flushing_ = false;
  }

  unsigned count_hint(const AVStream* st) const {
    if (st->nb_frames > 0 && st->nb_frames < (1ll << 31)) return static_cast<unsigned>(st->nb_frames);
    const AVRational rate = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : st->r_frame_rate;
    if (rate.num <= 0 || rate.den <= 0) return 0;
    double seconds = 0;
    if (st->duration > 0 && st->time_base.den > 0)
      seconds = static_cast<double>(st->duration) * av_q2d(st->time_base);
    else if (fmt_->duration > 0)
      seconds = static_cast<double>(fmt_->duration) / AV_TIME_BASE;
    const double frames = std::round(seconds * av_q2d(rate));
    return frames > 0 && frames < 2e9 ? static_cast<unsigned>(frames) : 0;
  }

  // The decoding thread: frames decoded ahead into queue_, at most kAhead;
  // the end or an error is queued after the frames before it.
  void decode_ahead() {
    try {
      for (;;) {
        {
          std::unique_lock<std::mutex> lock(mutex_);
          cv_.wait(lock, [&] { return stop_ || queue_.size() < kAhead; });
          if (stop_) return;
        }
        FramePtr frame = alloc_frame();
        frame_ = frame.get();
        const bool got = decode_next();
        frame_ = nullptr;
        Decoded d;
        if (got) {
          const int width = device_ >= 0 ? visible_width(*frame) : frame->width;
          const int height = device_ >= 0 ? visible_height(*frame) : frame->height;
          const auto* frames =
              frame->hw_frames_ctx
                  ? reinterpret_cast<const AVHWFramesContext*>(frame->hw_frames_ctx->data)
                  : nullptr;
          if (width != format_.width || height != format_.height || frame->format != pix_fmt_ ||
              (device_ >= 0 && (!frames || frames->sw_format != surface_format_)))
            fail(fmt::format("frame {}: changes from {}x{} {} to {}x{} {} (not supported)",
                             decoded_, format_.width, format_.height, pix_fmt_name(pix_fmt_),
                             width, height, pix_fmt_name(frame->format)));
#if VQE_HAVE_CUDA
          if (device_ >= 0)
            d.device = convert(*frame);  // the surface goes back to NVDEC below
          else
#endif
            d.frame = std::move(frame);
        }
        frame.reset();
        std::lock_guard<std::mutex> lock(mutex_);
        if (got) {
          ++decoded_;
          queue_.push_back(std::move(d));
        } else {
          ended_ = true;
        }
        cv_.notify_all();
        if (!got) return;
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
      ended_ = true;
      cv_.notify_all();
    }
  }

  // The next frame in presentation order; empty at the end. Rethrows the
  // decoding thread's error once the frames before it are taken.
  Decoded next() {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return !queue_.empty() || ended_; });
    if (!queue_.empty()) {
      Decoded d = std::move(queue_.front());
      queue_.pop_front();
      cv_.notify_all();
      return d;
    }
    if (error_) std::rethrow_exception(error_);
    return {};
  }

  // Decodes the next frame in presentation order into *frame_; false at
  // the end of the stream (after the decoder is flushed). Frame numbers in
  // messages count decoded frames (decoded_: the frame that failed).
  bool decode_next() {
    for (;;) {
      int rc = avcodec_receive_frame(dec_.get(), frame_);
      if (rc == 0) {
        if ((frame_->flags & AV_FRAME_FLAG_CORRUPT) || frame_->decode_error_flags)
          fail(fmt::format("frame {} is corrupt (the {} decoder flagged it)", decoded_,
                           codec_name_));
        return true;
      }
      if (rc == AVERROR_EOF) return false;
      if (rc != AVERROR(EAGAIN)) decode_failed(rc);
      if (flushing_) fail(fmt::format("frame {}: the decoder wants input after the end", decoded_));
      // The decoder wants a packet.
      rc = av_read_frame(fmt_.get(), packet_.get());
      if (rc == AVERROR_EOF) {
        flushing_ = true;
        rc = avcodec_send_packet(dec_.get(), nullptr);
        if (rc < 0 && rc != AVERROR_EOF) decode_failed(rc);
        continue;
      }
      if (rc < 0)
        fail(fmt::format("frame {}: reading the file failed ({})", decoded_,
                         av_error_text(rc)));
      if (packet_->stream_index != stream_) {
        av_packet_unref(packet_.get());
        continue;
      }
      if (packet_->flags & AV_PKT_FLAG_CORRUPT) {
        av_packet_unref(packet_.get());
        fail(fmt::format("frame {}: the file is truncated or corrupt (packet {} of its video "
                         "stream, in decoding order, is cut short)",
                         decoded_, packets_));
      }
      rc = avcodec_send_packet(dec_.get(), packet_.get());
      av_packet_unref(packet_.get());
      ++packets_;
      if (rc < 0) decode_failed(rc);
    }
  }

  std::string path_;
  // The NVDEC surface converter outlives the decoder (its stream is the
  // decoder's); destroyed after dec_.
  std::unique_ptr<cuda::SurfaceConverter> converter_;
  std::unique_ptr<AVFormatContext, FormatCloser> fmt_;
  std::unique_ptr<AVCodecContext, CodecFreer> dec_;
  std::unique_ptr<AVPacket, PacketFreer> packet_;
  AVFrame* frame_ = nullptr;  // where decode_next() decodes to
  std::string codec_name_;
  int stream_ = -1;
  int pix_fmt_ = AV_PIX_FMT_NONE;  // AV_PIX_FMT_CUDA with NVDEC
  int surface_format_ = AV_PIX_FMT_NONE;  // NVDEC: NV12, P010 or P016
  int device_ = -1;  // the CUDA device NVDEC decodes on; -1: the CPU
  std::atomic<int> planes_{3};  // NVDEC: planes converted (set_device_planes)
  VideoFormat format_{};
  unsigned frames_read_ = 0;
  unsigned frame_count_hint_ = 0;
  unsigned packets_ = 0;  // video packets sent to the decoder
  unsigned decoded_ = 0;  // frames decoded (by the decoding thread once it runs)
  bool flushing_ = false;

  // Decoded frames waiting for read(): a few, so that decoding runs ahead
  // of the caller (and the other input's reader) without holding many.
  static constexpr std::size_t kAhead = 4;
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<Decoded> queue_;
  bool ended_ = false;  // the decoding thread is done (end or error_)
  bool stop_ = false;   // the reader is being destroyed
  std::exception_ptr error_;
  std::thread thread_;  // last: started at the end of the constructor
};

// A FrameSource whose frames are another's, scaled as FFmpeg's scale filter
// scales them (vf_scale.c of FFmpeg 5.1: the options it sets on its
// SwsContext for flags=bicubic and progressive input).
class ScaledSource final : public FrameSource {
 public:
  ScaledSource(std::unique_ptr<FrameSource> source, int width, int height)
      : source_(std::move(source)) {
    const VideoFormat& in = source_->format();
    format_ = VideoFormat{width, height, in.bit_depth, in.chroma};
    validate_format(format_, source_->path() + ": --scale");
    const AVPixelFormat pix_fmt = pix_fmt_of(in);
    SwsContext* s = sws_alloc_context();
    if (!s) throw Error("out of memory (sws_alloc_context)");
    sws_.reset(s);
    // The filter's MPEG-2 chroma siting override applies to yuv420p only.
    const int v_chr_pos = pix_fmt == AV_PIX_FMT_YUV420P ? 128 : -513;
    const std::pair<const char*, std::int64_t> options[] = {
        {"srcw", in.width},
        {"srch", in.height},
        {"src_format", pix_fmt},
        {"dstw", width},
        {"dsth", height},
        {"dst_format", pix_fmt},
        {"sws_flags", SWS_BICUBIC},
        {"param0", SWS_PARAM_DEFAULT},
        {"param1", SWS_PARAM_DEFAULT},
        {"threads", 1},
        {"src_h_chr_pos", -513},
        {"src_v_chr_pos", v_chr_pos},
        {"dst_h_chr_pos", -513},
        {"dst_v_chr_pos", v_chr_pos},
    };
    for (const auto& [name, value] : options) {
      const int rc = av_opt_set_int(s, name, value, 0);
      if (rc < 0)
        throw Error(fmt::format("libswscale: cannot set {} ({})", name, av_error_text(rc)));
    }
    const int rc = sws_init_context(s, nullptr, nullptr);
    if (rc < 0)
      throw Error(fmt::format("{}: libswscale cannot scale {}x{} {} to {}x{} ({})",
                              source_->path(), in.width, in.height, pix_fmt_name(pix_fmt), width,
                              height, av_error_text(rc)));
    // Frames with libav's padding on both sides (its SIMD code may read and
    // write a little past a row).
    src_ = make_frame(in, pix_fmt);
    dst_ = make_frame(format_, pix_fmt);
    transform_ = fmt::format("scaled from {}x{} to {}x{} (bicubic, as ffmpeg -vf scale={}:{}:flags=bicubic)",
                             in.width, in.height, width, height, width, height);
    if (!source_->transform().empty()) transform_ = source_->transform() + ", then " + transform_;
  }

  const VideoFormat& format() const override { return format_; }
  const std::string& path() const override { return source_->path(); }
  unsigned frames_read() const override { return source_->frames_read(); }
  unsigned frame_count_hint() const override { return source_->frame_count_hint(); }
  std::string transform() const override { return transform_; }
  bool skip(unsigned count) override { return source_->skip(count); }

  bool read(Picture& picture) override {
    const unsigned index = source_->frames_read();
    if (!source_->read(input_)) return false;
    const VideoFormat& in = source_->format();
    for (int p = 0; p < in.num_planes(); ++p) {
      const Plane& plane = input_.plane(p);
      const std::size_t row_bytes = static_cast<std::size_t>(plane.width) * in.bytes_per_sample();
      for (int y = 0; y < plane.height; ++y)
        std::memcpy(src_->data[p] + static_cast<std::ptrdiff_t>(y) * src_->linesize[p],
                    plane.row<std::uint8_t>(y), row_bytes);
    }
    const int rc = sws_scale_frame(sws_.get(), dst_.get(), src_.get());
    if (rc < 0)
      throw Error(fmt::format("{}: frame {}: scaling failed ({})", path(), index,
                              av_error_text(rc)));
    if (!(picture.format() == format_)) picture = Picture(format_);
    PictureView view;
    view.format = format_;
    for (int p = 0; p < format_.num_planes(); ++p) {
      view.data[p] = dst_->data[p];
      view.stride[p] = dst_->linesize[p];
    }
    copy_picture(view, picture, fmt::format("{}: frame {}", path(), index));
    return true;
  }

 private:
  static FramePtr make_frame(const VideoFormat& f, AVPixelFormat pix_fmt) {
    FramePtr frame = alloc_frame();
    frame->width = f.width;
    frame->height = f.height;
    frame->format = pix_fmt;
    const int rc = av_frame_get_buffer(frame.get(), 0);
    if (rc < 0) throw Error(fmt::format("cannot allocate a frame ({})", av_error_text(rc)));
    return frame;
  }

  std::unique_ptr<FrameSource> source_;
  VideoFormat format_{};
  std::unique_ptr<SwsContext, SwsFreer> sws_;
  FramePtr src_, dst_;
  Picture input_;
  std::string transform_;
};

}  // namespace

bool compressed_input_available() {
#if defined(VQE_LIBAV_DLOPEN)
  return libav_dl::load() != nullptr;  // loads FFmpeg's libraries on first call
#else
  return true;
#endif
}

std::string compressed_input_problem() {
#if defined(VQE_LIBAV_DLOPEN)
  std::string why;
  libav_dl::load(&why);
  return why;
#else
  return {};
#endif
}

bool probe_is_video(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return false;
  // av_probe_input_format2 wants AVPROBE_PADDING_SIZE zero bytes after the data.
  std::vector<std::uint8_t> buffer(data, data + size);
  buffer.resize(size + AVPROBE_PADDING_SIZE, 0);
  AVProbeData pd{};
  pd.filename = "";
  pd.buf = buffer.data();
  pd.buf_size = static_cast<int>(size);
  int score = AVPROBE_SCORE_MAX / 4;  // what libavformat itself trusts without more data
  const AVInputFormat* f = av_probe_input_format2(&pd, 1, &score);
  return f != nullptr;
}

std::unique_ptr<FrameSource> open_compressed_video(const std::string& path, int decoder_threads) {
  DecodeOptions options;
  options.threads = decoder_threads;
  return std::make_unique<LibavReader>(path, options);
}

std::unique_ptr<FrameSource> open_compressed_video(const std::string& path,
                                                   const DecodeOptions& options) {
  return std::make_unique<LibavReader>(path, options);
}

std::unique_ptr<FrameSource> scale_source(std::unique_ptr<FrameSource> source, int width,
                                          int height) {
  if (!source) throw Error("scale_source: no source");
  if (source->format().width == width && source->format().height == height) return source;
  return std::make_unique<ScaledSource>(std::move(source), width, height);
}

}  // namespace vqe
