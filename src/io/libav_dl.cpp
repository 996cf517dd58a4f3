// SPDX-License-Identifier: BSD-2-Clause
// FFmpeg's shared libraries loaded on first use (see io/libav_dl.h).
#if defined(VQE_LIBAV_DLOPEN)

#include <dlfcn.h>

#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/frame.h>
#include <libavutil/hwcontext.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
}

#define VQE_LIBAV_DL_IMPL
#include "io/libav_dl.h"
#include "vqe/error.h"

namespace vqe::libav_dl {
namespace {

#define VQE_SONAME(lib, major) ("lib" lib ".so." + std::to_string(major))

struct Loaded {
  Functions functions;
  std::string why;  // empty when loaded
};

Loaded load_once() {
  Loaded out;
  // Dependencies first; RTLD_GLOBAL so that each finds the ones before it.
  const std::string names[] = {VQE_SONAME("avutil", LIBAVUTIL_VERSION_MAJOR),
                               VQE_SONAME("swscale", LIBSWSCALE_VERSION_MAJOR),
                               VQE_SONAME("avcodec", LIBAVCODEC_VERSION_MAJOR),
                               VQE_SONAME("avformat", LIBAVFORMAT_VERSION_MAJOR)};
  void* handles[4] = {};
  for (int i = 0; i < 4; ++i) {
    handles[i] = dlopen(names[i].c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (!handles[i]) {
      const char* e = dlerror();
      // Debian's package of each library is its soname without ".so.".
      std::string packages;
      for (const std::string& so : names)
        packages += (packages.empty() ? "" : ", ") + so.substr(0, so.find(".so.")) +
                    so.substr(so.find(".so.") + 4);
      out.why = "FFmpeg's shared library " + names[i] + " could not be loaded (" +
                (e ? e : "unknown error") +
                "): compressed input needs FFmpeg's libraries (Debian: " + packages + ")";
      return out;
    }
  }
  const auto find = [&](const char* name) -> void* {
    for (void* h : handles)
      if (void* p = dlsym(h, name)) return p;
    if (out.why.empty()) out.why = std::string("FFmpeg's libraries lack ") + name;
    return nullptr;
  };
#define VQE_LIBAV_RESOLVE(name) \
  out.functions.name = reinterpret_cast<decltype(out.functions.name)>(find(#name));
  VQE_LIBAV_FUNCTIONS(VQE_LIBAV_RESOLVE)
#undef VQE_LIBAV_RESOLVE
  return out;
}

const Loaded& loaded() {
  static const Loaded l = load_once();  // thread-safe, once
  return l;
}

}  // namespace

const Functions* load(std::string* why) {
  const Loaded& l = loaded();
  if (!l.why.empty()) {
    if (why) *why = l.why;
    return nullptr;
  }
  return &l.functions;
}

const Functions& require() {
  std::string why;
  if (const Functions* f = load(&why)) return *f;
  throw Error(why);
}

}  // namespace vqe::libav_dl

#endif  // VQE_LIBAV_DLOPEN
