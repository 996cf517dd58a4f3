// SPDX-License-Identifier: BSD-2-Clause
#pragma once
// Internals of VQE's libvmaf compatibility layer: the opaque libvmaf types
// as VQE objects, logging in libvmaf's style, and the guard that turns C++
// exceptions into libvmaf's negative errno codes.

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "libvmaf/libvmaf.h"
#include "vqe/error.h"
#include "vqe/model.h"
#include "vqe/picture.h"

/// Option key/value pairs in the order first set (libvmaf's VmafDictionary).
struct VmafFeatureDictionary {
  std::vector<std::pair<std::string, std::string>> entries;
};

/// A loaded model. The handles of a collection's main model and of the
/// collection share one vqe::Model (a bootstrap model computes both).
struct VmafModel {
  std::shared_ptr<vqe::Model> model;
};
struct VmafModelCollection {
  std::shared_ptr<vqe::Model> model;
};

/// The reference count of a picture buffer from vmaf_picture_alloc.
struct VmafRef {
  std::atomic<long> count{1};
};

namespace vqe::libvmaf_compat {

/// The value of a C enum as the int a C caller stored in it (loading an
/// out-of-range value as the C++ enum would be undefined behaviour).
template <typename E>
int as_int(const E& value) {
  static_assert(sizeof(E) == sizeof(int));
  int v;
  std::memcpy(&v, &value, sizeof v);
  return v;
}

/// Log level of calls without a context: the last vmaf_init's, as libvmaf's
/// process-wide level (INFO until then).
extern std::atomic<int> default_log_level;

/// Prints "libvmaf LEVEL message" to stderr when `level` is at most `allowed`.
void log(int allowed, VmafLogLevel level, const std::string& message);

/// Logs `message` as an error under `allowed` and returns -EINVAL.
inline int fail(int allowed, const std::string& message) {
  log(allowed, VMAF_LOG_LEVEL_ERROR, message);
  return -EINVAL;
}

/// Runs `body` (returning 0 or a negative errno): vqe::Error and other
/// exceptions become -EINVAL, allocation failures -ENOMEM, each logged with
/// `call` under `allowed`.
template <typename F>
int guarded(int allowed, const char* call, F&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    log(allowed, VMAF_LOG_LEVEL_ERROR, fmt::format("{}: out of memory", call));
    return -ENOMEM;
  } catch (const std::exception& e) {
    return fail(allowed, fmt::format("{}: {}", call, e.what()));
  } catch (...) {
    return fail(allowed, fmt::format("{}: unknown error", call));
  }
}

/// VQE's view of `picture`, or a message saying what is wrong with it.
std::optional<PictureView> view_of_picture(const VmafPicture& picture, std::string* why);

/// vmaf_picture_alloc with the pixel format as the int a C caller stored.
int allocate(VmafPicture* picture, int pix_fmt, unsigned bpc, unsigned w, unsigned h);

/// The options of `dict` (NULL: none) as VQE takes them.
OptionValues options_of(const VmafFeatureDictionary* dict);

}  // namespace vqe::libvmaf_compat
