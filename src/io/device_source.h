// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file DeviceFrameSource: what a frame source that decodes on a GPU
/// (src/io/libav.cpp with NVDEC) offers beside FrameSource, so that
/// run_job() can hand its frames to a CUDA job in device memory. Its
/// FrameSource::read() still works (the frames are copied to host memory).

#include "core/device_picture.h"

namespace vqe {

/// Implemented, beside FrameSource, by sources that may decode on a CUDA
/// device. One reader thread at a time, as FrameSource.
class DeviceFrameSource {
 public:
  virtual ~DeviceFrameSource() = default;

  /// The CUDA device this source decodes on (its frames are in that
  /// device's memory), or -1 when it decodes on the CPU (read_device() is
  /// then not available).
  virtual int frame_device() const = 0;

  /// How many planes of each frame decoded from now on are kept (1: luma
  /// only, when the consumer reads no chroma; the default is every plane).
  /// Frames decoded ahead before the call keep theirs. A later read() or
  /// read_planes() of more planes than kept throws.
  virtual void set_device_planes(int planes) = 0;

  /// Reads the next frame as a picture in device memory (its planes as
  /// set_device_planes() said, or more). Returns false at a clean end of
  /// the video; throws vqe::Error as FrameSource::read() does. Only when
  /// frame_device() >= 0.
  virtual bool read_device(DevicePicture& picture) = 0;
};

}  // namespace vqe
