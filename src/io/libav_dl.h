// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file FFmpeg's shared libraries loaded on first use (builds against
/// Debian's shared FFmpeg: VQE_LIBAV_DLOPEN). Linking them made every process
/// load Debian's libavformat and libavcodec with about 130 libraries they
/// depend on, some 50 ms of start-up per process on the 2-core machine, even
/// for the Y4M and raw inputs that never call FFmpeg (a 200-frame 1080p PSNR
/// job took 0.24 s against libvmaf's 0.21 s). Here src/io/libav.cpp calls
/// every FFmpeg function through a table filled by dlopen()/dlsym() the
/// first time a non-Y4M input is probed. Include after FFmpeg's headers, in
/// libav.cpp only: the macros below make each FFmpeg function name there
/// read the table.

#if defined(VQE_LIBAV_DLOPEN)

#include <string>

/// Every FFmpeg function libav.cpp calls (nm -u of its object).
#define VQE_LIBAV_FUNCTIONS(X) \
  X(av_buffer_unref) \
  X(av_find_best_stream) \
  X(av_frame_alloc) \
  X(av_frame_free) \
  X(av_frame_get_buffer) \
  X(av_get_media_type_string) \
  X(av_get_pix_fmt_name) \
  X(av_hwdevice_ctx_alloc) \
  X(av_hwdevice_ctx_init) \
  X(av_log_get_level) \
  X(av_log_set_callback) \
  X(av_log_set_level) \
  X(av_opt_set_int) \
  X(av_packet_alloc) \
  X(av_packet_free) \
  X(av_packet_unref) \
  X(av_pix_fmt_desc_get) \
  X(av_probe_input_format2) \
  X(av_read_frame) \
  X(av_strerror) \
  X(avcodec_alloc_context3) \
  X(avcodec_find_decoder_by_name) \
  X(avcodec_free_context) \
  X(avcodec_get_hw_config) \
  X(avcodec_get_name) \
  X(avcodec_open2) \
  X(avcodec_parameters_to_context) \
  X(avcodec_receive_frame) \
  X(avcodec_send_packet) \
  X(avformat_close_input) \
  X(avformat_find_stream_info) \
  X(avformat_open_input) \
  X(sws_alloc_context) \
  X(sws_freeContext) \
  X(sws_init_context) \
  X(sws_scale_frame)

namespace vqe::libav_dl {

/// The loaded functions; each member has its FFmpeg function's type.
struct Functions {
#define VQE_LIBAV_MEMBER(name) decltype(&::name) name = nullptr;
  VQE_LIBAV_FUNCTIONS(VQE_LIBAV_MEMBER)
#undef VQE_LIBAV_MEMBER
};

/// Loads libavutil, libswscale, libavcodec and libavformat (the sonames of
/// the headers built against) once, thread-safe. Returns the table, or null
/// with the reason in `*why` (the dlopen/dlsym error) when they cannot be
/// loaded.
const Functions* load(std::string* why = nullptr);

/// The table; throws vqe::Error with load()'s reason when there is none.
const Functions& require();

}  // namespace vqe::libav_dl

#if !defined(VQE_LIBAV_DL_IMPL)
#define av_buffer_unref (::vqe::libav_dl::require().av_buffer_unref)
#define av_find_best_stream (::vqe::libav_dl::require().av_find_best_stream)
#define av_frame_alloc (::vqe::libav_dl::require().av_frame_alloc)
#define av_frame_free (::vqe::libav_dl::require().av_frame_free)
#define av_frame_get_buffer (::vqe::libav_dl::require().av_frame_get_buffer)
#define av_get_media_type_string (::vqe::libav_dl::require().av_get_media_type_string)
#define av_get_pix_fmt_name (::vqe::libav_dl::require().av_get_pix_fmt_name)
#define av_hwdevice_ctx_alloc (::vqe::libav_dl::require().av_hwdevice_ctx_alloc)
#define av_hwdevice_ctx_init (::vqe::libav_dl::require().av_hwdevice_ctx_init)
#define av_log_get_level (::vqe::libav_dl::require().av_log_get_level)
#define av_log_set_callback (::vqe::libav_dl::require().av_log_set_callback)
#define av_log_set_level (::vqe::libav_dl::require().av_log_set_level)
#define av_opt_set_int (::vqe::libav_dl::require().av_opt_set_int)
#define av_packet_alloc (::vqe::libav_dl::require().av_packet_alloc)
#define av_packet_free (::vqe::libav_dl::require().av_packet_free)
#define av_packet_unref (::vqe::libav_dl::require().av_packet_unref)
#define av_pix_fmt_desc_get (::vqe::libav_dl::require().av_pix_fmt_desc_get)
#define av_probe_input_format2 (::vqe::libav_dl::require().av_probe_input_format2)
#define av_read_frame (::vqe::libav_dl::require().av_read_frame)
#define av_strerror (::vqe::libav_dl::require().av_strerror)
#define avcodec_alloc_context3 (::vqe::libav_dl::require().avcodec_alloc_context3)
#define avcodec_find_decoder_by_name (::vqe::libav_dl::require().avcodec_find_decoder_by_name)
#define avcodec_free_context (::vqe::libav_dl::require().avcodec_free_context)
#define avcodec_get_hw_config (::vqe::libav_dl::require().avcodec_get_hw_config)
#define avcodec_get_name (::vqe::libav_dl::require().avcodec_get_name)
#define avcodec_open2 (::vqe::libav_dl::require().avcodec_open2)
#define avcodec_parameters_to_context (::vqe::libav_dl::require().avcodec_parameters_to_context)
#define avcodec_receive_frame (::vqe::libav_dl::require().avcodec_receive_frame)
#define avcodec_send_packet (::vqe::libav_dl::require().avcodec_send_packet)
#define avformat_close_input (::vqe::libav_dl::require().avformat_close_input)
#define avformat_find_stream_info (::vqe::libav_dl::require().avformat_find_stream_info)
#define avformat_open_input (::vqe::libav_dl::require().avformat_open_input)
#define sws_alloc_context (::vqe::libav_dl::require().sws_alloc_context)
#define sws_freeContext (::vqe::libav_dl::require().sws_freeContext)
#define sws_init_context (::vqe::libav_dl::require().sws_init_context)
#define sws_scale_frame (::vqe::libav_dl::require().sws_scale_frame)
#endif  // !VQE_LIBAV_DL_IMPL

#endif  // VQE_LIBAV_DLOPEN
