// SPDX-License-Identifier: BSD-2-Clause
#include "inputs.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "job_setup.h"

namespace vqe::cli {
namespace {

// -w/-h/-p/-b given with a Y4M input are an error when they say another
// format than its header: the user believes the video is something else.
void check_raw_options_against(const FrameSource& input, const RawInputOptions& raw) {
  RawShapeClaim claim;
  claim.width = raw.width;
  claim.height = raw.height;
  if (raw.pixel_format) claim.chroma = parse_chroma_format(*raw.pixel_format);
  claim.bit_depth = raw.bit_depth;
  check_raw_claim(input, claim);
}

// --scale distorted or WxH: `distorted` to the reference's size. Without
// --scale another size is an error that says how to scale.
std::unique_ptr<FrameSource> fit_distorted(std::unique_ptr<FrameSource> distorted,
                                           const FrameSource& reference,
                                           const ScaleRequest& scale) {
  const VideoFormat& rf = reference.format();
  if (scale.any()) distorted = scale_source(std::move(distorted), rf.width, rf.height);
  const VideoFormat& f = distorted->format();
  if (f.width != rf.width || f.height != rf.height)
    throw Error(fmt::format(
        "reference and distorted differ in size: {} is {}x{}, {} is {}x{}; scale with --scale "
        "distorted (the distorted video to the reference's size) or --scale WxH (both)",
        reference.path(), rf.width, rf.height, distorted->path(), f.width, f.height));
  return distorted;
}

RawVideoParams raw_params(const RawInputOptions& options) {
  RawVideoParams raw;
  raw.width = *options.width;
  raw.height = *options.height;
  raw.chroma = parse_chroma_format(options.pixel_format.value_or("420"));
  raw.bit_depth = options.bit_depth.value_or(8);
  return raw;
}

}  // namespace

LadderInputs open_ladder_inputs(const Settings& s, const WarningHandler& warn,
                                const WarningHandler& note) {
  const bool have_raw = s.raw.width && s.raw.height;
  const auto raw = std::make_shared<RawVideoParams>();
  if (have_raw) *raw = raw_params(s.raw);
  const DecodeOptions decode = make_decode_options(s, note);
  const auto open = [s_raw = s.raw, raw, have_raw, warn, decode](const std::string& path) {
    auto source = open_video(path, have_raw ? raw.get() : nullptr, warn, decode);
    if (s_raw.any()) check_raw_options_against(*source, s_raw);
    return source;
  };
  LadderInputs in;
  in.reference = open(s.reference);
  if (s.scale.width > 0)
    in.reference = scale_source(std::move(in.reference), s.scale.width, s.scale.height);
  if (!in.reference->transform().empty()) in.scale_note = "reference: " + in.reference->transform();
  if (s.scale.any()) {
    const VideoFormat& rf = in.reference->format();
    in.distorted_scale_note = fmt::format(
        "distorted: each scaled to {}x{} where of another size (bicubic, as ffmpeg -vf "
        "scale={}:{}:flags=bicubic)",
        rf.width, rf.height, rf.width, rf.height);
  }
  const int ref_bits = in.reference->format().bit_depth;
  in.open_distorted = [open, ref_bits, common = s.common_bit_depth, note, scale = s.scale,
                       ref = in.reference.get()](const std::string& path) {
    auto source = fit_distorted(open(path), *ref, scale);
    // libvmaf's aom_ctc v6.0 and later: a shallower encode is compared at
    // the reference's bit depth (a shallower reference is not converted:
    // the encodes share it).
    if (common && source->format().bit_depth < ref_bits) {
      if (note)
        note(fmt::format("common bit depth: {} is read as {}-bit (samples shifted left by {})",
                         path, ref_bits, ref_bits - source->format().bit_depth));
      source = convert_bit_depth(std::move(source), ref_bits);
    }
    return source;
  };
  return in;
}

Inputs open_inputs(const Settings& s, const WarningHandler& warn, const WarningHandler& note) {
  // One stream given twice would hand each side every other frame: refused
  // before either is read.
  const auto ref_id = file_identity(s.reference);
  const auto dist_id = file_identity(s.distorted);
  if (ref_id && dist_id) check_separate_inputs(s.reference, *ref_id, s.distorted, *dist_id);

  RawVideoParams raw;
  const bool have_raw = s.raw.width && s.raw.height;
  if (have_raw) raw = raw_params(s.raw);
  Inputs in;
  const DecodeOptions decode = make_decode_options(s, note);
  in.reference = open_video(s.reference, have_raw ? &raw : nullptr, warn, decode);
  in.distorted = open_video(s.distorted, have_raw ? &raw : nullptr, warn, decode);

  if (s.raw.any()) {
    int y4m = 0;
    for (const FrameSource* input : {in.reference.get(), in.distorted.get()})
      if (input->container() == VideoContainer::kY4m) {
        check_raw_options_against(*input, s.raw);
        ++y4m;
      }
    if (y4m == 2 && warn)
      warn("-w, -h, -p and -b are for raw input and were not used: both inputs are Y4M, whose "
           "headers give the format");
  }

  // libvmaf's aom_ctc v6.0 and later: inputs of different bit depths are
  // compared at the higher one (libvmaf 3.2.0 itself reads past its buffers
  // there; VQE shifts the shallower input up, see docs/numerics.md).
  const int ref_bits = in.reference->format().bit_depth;
  const int dist_bits = in.distorted->format().bit_depth;
  if (s.common_bit_depth && ref_bits != dist_bits) {
    const int bits = std::max(ref_bits, dist_bits);
    auto& shallow = ref_bits < dist_bits ? in.reference : in.distorted;
    if (note)
      note(fmt::format("common bit depth: {} is read as {}-bit (samples shifted left by {})",
                       shallow->path(), bits, bits - shallow->format().bit_depth));
    shallow = convert_bit_depth(std::move(shallow), bits);
  }
  // --scale: WxH scales both, distorted the distorted video to the
  // reference's size; other sizes without it are an error.
  if (s.scale.width > 0)
    in.reference = scale_source(std::move(in.reference), s.scale.width, s.scale.height);
  in.distorted = fit_distorted(std::move(in.distorted), *in.reference, s.scale);
  for (const auto& [side, input] : {std::pair<const char*, const FrameSource*>{"reference",
                                                                             in.reference.get()},
                                    {"distorted", in.distorted.get()}})
    if (!input->transform().empty())
      in.scale_note += fmt::format("{}{}: {}", in.scale_note.empty() ? "" : "; ", side,
                                   input->transform());
  check_pairable(*in.reference, *in.distorted);
  return in;
}

}  // namespace vqe::cli
