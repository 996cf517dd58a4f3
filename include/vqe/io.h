// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file Frame sources: where a job's frames come from (Y4M and raw planar
/// YUV files here; compressed files where the build has FFmpeg's
/// libraries), and the format helpers users need around them.

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "vqe/picture.h"

namespace vqe {

/// What a frame source reads from, for telling two inputs (or an input and
/// an output) apart: the device and inode of the open file.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  /// Every open() of it reads independently from its own start: a regular
  /// file, or a device such as /dev/zero, so it may be both inputs. Pipes,
  /// FIFOs and sockets are one stream that two readers would split.
  bool reopenable = false;
  /// Read through descriptor 0 ("-"): two such sources share one file
  /// position, whatever the file is.
  bool standard_input = false;
  /// Same device and inode.
  bool same_file(const FileIdentity& other) const {
    return device == other.device && inode == other.inode;
  }
};

/// How a source's bytes are laid out.
enum class VideoContainer {
  kY4m,    ///< YUV4MPEG2 stream (format from its header)
  kRaw,    ///< headerless planar YUV (format given by the caller)
  kOther,  ///< anything else (e.g. a caller's own FrameSource)
};

/// A video read frame by frame (never loaded whole). Not thread-safe: one
/// reader thread at a time.
class FrameSource {
 public:
  virtual ~FrameSource() = default;
  /// Format of every frame.
  virtual const VideoFormat& format() const = 0;
  /// The name used in messages (the path given; "standard input" for "-").
  virtual const std::string& path() const = 0;
  /// Frames returned so far (including skipped ones).
  virtual unsigned frames_read() const = 0;
  /// Reads the next frame into `picture` (re-allocated only if its format
  /// differs). Returns false at a clean end of the video. Throws vqe::Error
  /// naming the file and frame on a truncated or malformed frame, or a
  /// sample above the bit depth's maximum.
  virtual bool read(Picture& picture) = 0;
  /// Skips `count` frames. Returns false if the video ended first.
  virtual bool skip(unsigned count) = 0;
  /// The file this source reads, where it reads one (nullopt otherwise).
  virtual std::optional<FileIdentity> identity() const { return std::nullopt; }
  /// How the source's bytes are laid out.
  virtual VideoContainer container() const { return VideoContainer::kOther; }

  /// As read(), but only the first `planes` planes (1: luma only); the other
  /// planes are skipped in the file and left as they were in `picture`.
  /// The default reads every plane.
  virtual bool read_planes(Picture& picture, int planes) {
    (void)planes;
    return read(picture);
  }

  /// True when read_at() works: a regular file whose frames have one size
  /// and lie at computable offsets (raw YUV; Y4M while its FRAME lines keep
  /// the first one's length).
  virtual bool random_access() const { return false; }

  /// What read_at() found.
  enum class FrameAt {
    kRead,       ///< the frame was read
    kEnd,        ///< the file ends before that frame
    kIrregular,  ///< its FRAME line differs in length: read on with seek() + read()
  };
  /// Reads frame `index` of the file (counted from its first frame, not from
  /// frames_read()), its first `planes` planes, into `picture` (re-allocated
  /// only if its format differs). May be called from several threads at
  /// once; does not move read()'s position. Throws vqe::Error as read()
  /// does. Only when random_access(); the default throws.
  virtual FrameAt read_at(unsigned index, Picture& picture, int planes) const;
  /// Makes read() continue at frame `index` of the file, e.g. where read_at()
  /// answered kIrregular (every frame before it being regular). Only when
  /// random_access(); the default throws.
  virtual void seek(unsigned index);

  /// Frames the file holds as far as its header or size tells (a
  /// container's frame count, a raw file's size over the frame size), or 0
  /// when unknown. An estimate, for progress display only: reading decides.
  virtual unsigned frame_count_hint() const { return 0; }

  /// What this source did to the frames, for the log (e.g. "scaled from
  /// 320x180 to 640x360 (bicubic)"); empty when it hands them on as read.
  virtual std::string transform() const { return {}; }
};

/// Receives a warning meant for the user (e.g. a Y4M header that leaves the
/// interlacing unknown). Empty: warnings are dropped.
using WarningHandler = std::function<void(const std::string&)>;

/// Shape of a headerless .yuv file, given on the command line (-w -h -b -p).
struct RawVideoParams {
  int width = 0;
  int height = 0;
  int bit_depth = 8;
  ChromaFormat chroma = ChromaFormat::k420;
};

/// How compressed input is decoded (open_video(), open_compressed_video()).
struct DecodeOptions {
  /// libavcodec's threads for decoding on the CPU (0: one per core).
  int threads = 0;
  /// Decode with NVDEC (libavcodec's nvdec hardware acceleration) on this
  /// CUDA device, into that device's memory: H.264, HEVC, VP9 and AV1 at
  /// 4:2:0, 8, 10 or 12 bits, where the GPU decodes that profile and size.
  /// The frames then stay in device memory for a CUDA job on the same device
  /// (run_job()); FrameSource::read() copies them to host memory. -1 (the
  /// default): decode on the CPU. Anything NVDEC cannot decode (another
  /// codec, 4:2:2 or 4:4:4, no GPU, no libnvcuvid.so.1, a profile the GPU
  /// lacks) is decoded on the CPU, and `on_note` hears why.
  int cuda_device = -1;
  /// With cuda_device >= 0: throw vqe::Error (naming the reason) when NVDEC
  /// cannot decode the file, instead of decoding it on the CPU.
  bool require_device = false;
  /// Told how each compressed file is decoded ("...: h264 yuv420p, decoded
  /// with NVDEC on CUDA device 0", or on the CPU and why not with NVDEC).
  WarningHandler on_note;
};

/// Opens a video by its content, not its name: a file, FIFO, pipe, character
/// device (read as a stream), "/dev/stdin", or "-" for standard input.
/// Input that starts with the Y4M signature ("YUV4MPEG2 ") is read as Y4M
/// (its header gives the format, `raw` is not used). A regular file that
/// FFmpeg's libraries recognise by content as a video container or stream
/// (MP4, MKV, WebM, IVF, H.264/HEVC elementary streams...) is decoded by
/// open_compressed_video() where the build has them
/// (compressed_input_available()); so is any other regular file when `raw`
/// is nullptr and its name is not .yuv, .raw or .y4m (libavformat may know
/// it by its name). Any other input is read as raw planar YUV of the shape `raw`
/// gives (samples above 8 bits are little-endian 16-bit words), or refused
/// when `raw` is nullptr.
///
/// Nothing large is allocated here. For a regular file, the size a header
/// (or `raw`) claims for one frame is checked against the file's size
/// first, so a file shorter than one frame is refused at once.
///
/// Throws vqe::Error, naming the path and (for system errors) the system's
/// reason, when the input cannot be opened or read, is a directory, is
/// empty, is shorter than one frame, or has a malformed or interlaced Y4M
/// header or an unsupported format. `on_warning` receives what the user
/// should know but does not stop the video (a Y4M header with interlacing
/// "?" or no I tag is taken as progressive, as libvmaf does).
std::unique_ptr<FrameSource> open_video(const std::string& path, const RawVideoParams* raw,
                                        const WarningHandler& on_warning = {});
/// As open_video() above, decoding a compressed file as `decode` says.
std::unique_ptr<FrameSource> open_video(const std::string& path, const RawVideoParams* raw,
                                        const WarningHandler& on_warning,
                                        const DecodeOptions& decode);

/// The identity of the file at `path` ("-": standard input), found without
/// opening or reading it; nullopt when it cannot be found (e.g. no such file).
std::optional<FileIdentity> file_identity(const std::string& path);

/// Throws vqe::Error when inputs `a` and `b` (named `a_name`, `b_name` in the
/// message) would read one stream between them, which would give each
/// every other frame: the same pipe, FIFO or socket, or standard input
/// twice. The same regular file or device (e.g. /dev/zero) twice is fine:
/// each input opens it for itself.
void check_separate_inputs(const std::string& a_name, const FileIdentity& a,
                           const std::string& b_name, const FileIdentity& b);

/// True when this build reads compressed files through FFmpeg's libraries
/// (libavformat, libavcodec: CMake option VQE_WITH_LIBAV) and scales frames
/// through libswscale (scale_source()).
bool compressed_input_available();

/// Opens a compressed video through libavformat and libavcodec: the best
/// video stream of any container or elementary stream they read, decoded
/// with libavcodec's threads (`decoder_threads`, 0 = one per core) on a
/// thread of the source's own that stays up to 4 frames ahead of read(). Frames
/// come out in presentation order, every decoded frame once (no frame rate
/// conversion); the decoder is flushed at the end. The decoded pixel format
/// must be planar Y'CbCr 4:2:0, 4:2:2 or 4:4:4, or gray, at 8, 10, 12 or 16
/// bits (yuv420p, yuv422p10le, gray12le, ... and the full-range yuvj
/// variants), mapped onto Pictures without conversion; the format is that of
/// the first frame, and a later frame of another size or format is an error.
/// The source is sequential (random_access() is false); frame_count_hint()
/// is the container's frame count (or duration × frame rate) where known.
/// Throws vqe::Error naming the file (and the frame, once decoding started)
/// when it is not a video, has no video stream, has no decoder, has another
/// pixel format (the message names it), or is corrupt or truncated (a
/// demuxer or decoder error, a packet cut short). Throws also when the build
/// has no FFmpeg libraries.
std::unique_ptr<FrameSource> open_compressed_video(const std::string& path,
                                                   int decoder_threads = 0);
/// As open_compressed_video() above, decoding as `options` says: on the CPU
/// with options.threads, or with NVDEC on options.cuda_device (see
/// DecodeOptions). The source's pixel format is then the decoded stream's
/// (yuv420p, yuv420p10le or yuv420p12le), as CPU decoding gives it, and the
/// frames are the same samples. Throws as above, and when
/// options.require_device is set and NVDEC cannot decode the file.
std::unique_ptr<FrameSource> open_compressed_video(const std::string& path,
                                                   const DecodeOptions& options);

/// Scales every frame of `source` to `width` × `height` with libswscale as
/// FFmpeg's scale filter does by default (`-vf scale=W:H:flags=bicubic`,
/// FFmpeg 5.1): SWS_BICUBIC with default parameters, MPEG-2 chroma siting
/// for 8-bit 4:2:0 as the filter sets it; bit depth and chroma format stay
/// as they are. The result is frame for frame identical to the filter's
/// output for inputs whose colour range is unspecified or limited (the
/// range is not carried by Pictures). Returns `source` itself when it
/// already has that size. Sequential (random_access() is false). Throws
/// vqe::Error when the build has no libswscale, or the size is invalid.
std::unique_ptr<FrameSource> scale_source(std::unique_ptr<FrameSource> source, int width,
                                          int height);

/// Reads a Y4M stream from an open file (taking ownership of `file`);
/// `name` is used in messages.
std::unique_ptr<FrameSource> open_y4m_stream(std::FILE* file, const std::string& name,
                                             const WarningHandler& on_warning = {});

/// A source that reads `source` and shifts every sample left to `bit_depth`
/// bits (e.g. 8-bit samples ×4 for 10 bits), as AOM CTC v6.0's common bit
/// depth does when an 8-bit reference is compared with a 10-bit encode
/// (CWG-D088). `bit_depth` must be at least the source's; equal returns
/// `source` itself. Throws vqe::Error for a lower or unsupported bit depth.
std::unique_ptr<FrameSource> convert_bit_depth(std::unique_ptr<FrameSource> source,
                                               int bit_depth);

/// Parses a Y4M stream header line (without the trailing newline) into a
/// format. Throws vqe::Error with `path` in the message on unknown colour
/// spaces, interlacing, or bad sizes. `on_warning` is told when the
/// interlacing is unknown (tag I? or no I tag), which is read as progressive.
VideoFormat parse_y4m_header(const std::string& header, const std::string& path,
                             const WarningHandler& on_warning = {});

/// Parses a pixel format name as libvmaf's -p option: 400, 420, 422, 444.
/// Throws vqe::Error for any other text.
ChromaFormat parse_chroma_format(const std::string& text);

/// What a caller's raw-input options (libvmaf's -w, -h, -p, -b) say about
/// an input; unset: not given.
struct RawShapeClaim {
  std::optional<int> width, height, bit_depth;
  std::optional<ChromaFormat> chroma;
  /// How the caller spells each option and its value in a message: a
  /// format string taking the value, e.g. "-w {}" (the CLI) or "width={}"
  /// (Python), in the order width, height, pixel format, bit depth.
  const char* spelling[4] = {"-w {}", "-h {}", "-p {}", "-b {}"};
  /// The options' names for the advice, e.g. "-w, -h, -p and -b".
  const char* names = "-w, -h, -p and -b";
};

/// Throws vqe::Error when `source` is a Y4M file whose header contradicts
/// a given claim (the user believes the video is something else): the
/// message names the file, what its header says and the contradicting
/// options, and says to drop them or make them agree. Does nothing for
/// other containers or when every given claim agrees.
void check_raw_claim(const FrameSource& source, const RawShapeClaim& claim);

}  // namespace vqe
