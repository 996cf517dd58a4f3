// SPDX-License-Identifier: BSD-2-Clause
// Scores a distorted video against its reference with VQE's C++ API: frames
// from VQE's frame sources, pushed into a vqe::Job, per-frame scores read as
// soon as they are final, pooled scores and libvmaf's JSON log at the end.
//
//   score_cpp REFERENCE DISTORTED OUTPUT.json

#include <cstdio>
#include <exception>

#include <vqe/vqe.h>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s REFERENCE.y4m DISTORTED.y4m OUTPUT.json\n", argv[0]);
    return 1;
  }
  try {
    auto ref = vqe::open_video(argv[1], nullptr);
    auto dist = vqe::open_video(argv[2], nullptr);
    vqe::check_pairable(*ref, *dist);

    vqe::JobConfig config;
    config.models.push_back(vqe::Model::builtin("vmaf_v0.6.1"));
    config.threads = 2;
    vqe::Job job(config);
    job.start(ref->format());
    unsigned printed = 0;
    for (;;) {
      vqe::JobFrame frame = job.acquire();
      if (!ref->read(frame.reference()) || !dist->read(frame.distorted())) break;
      job.submit(std::move(frame));
      for (; printed < job.frames_final(); ++printed)
        std::printf("frame %u: vmaf %.6f\n", printed, *job.score("vmaf", printed));
    }
    vqe::JobResult result = job.finish();
    for (; printed < result.frames; ++printed)
      std::printf("frame %u: vmaf %.6f\n", printed, *result.features.get("vmaf", printed));
    std::printf("vmaf mean: %.6f\n", *result.features.pooled("vmaf", vqe::PoolMethod::kMean));

    vqe::OutputInfo info;
    info.format = vqe::OutputFormat::kJson;
    info.width = result.format.width;
    info.height = result.format.height;
    info.precision.mode = vqe::Precision::Mode::kMax;  // 17 significant digits
    vqe::write_output_file(argv[3], result.features, info);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "score_cpp: %s\n", e.what());
    return 1;
  }
  return 0;
}
