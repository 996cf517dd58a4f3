// SPDX-License-Identifier: BSD-2-Clause
// run_ladder (vqe/ladder.h): one reference read once and handed to one job
// per encode; the jobs share the reference-only work through a
// ReferenceShare. The calling thread reads the files in frame order; the
// jobs' workers compute.

#include "vqe/ladder.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "vqe/error.h"
#include "vqe/vqe.h"

namespace vqe {
namespace {

// The ladder's reference pictures: each frame is read once into one of them
// and shared by every encode's job (JobFrame::share_reference), which holds
// it until it is done with the frame. A picture no job holds any more is
// read into again, so the pool holds about as many pictures as frames are
// in flight, and their pages are touched once.
class ReferencePictures {
 public:
  // A picture that no job holds.
  std::shared_ptr<Picture> free_picture() {
    for (const std::shared_ptr<Picture>& p : pictures_)
      if (p.use_count() == 1) {
        // The jobs' last reads of it happen before their release of it
        // (the count's decrement); this fence orders them before our
        // writes.
        std::atomic_thread_fence(std::memory_order_acquire);
        return p;
      }
    pictures_.push_back(std::make_shared<Picture>());
    return pictures_.back();
  }

 private:
  std::vector<std::shared_ptr<Picture>> pictures_;
};

// One encode in progress.
struct Encode {
  FrameSource* source = nullptr;
  std::unique_ptr<Job> job;  // null once ended (scored up to there) or failed
  bool ended = false;        // its file (or the reference) ended: finish the job
  std::string error;
};

}  // namespace

std::vector<LadderOutcome> run_ladder(FrameSource& reference,
                                      const std::vector<FrameSource*>& distorted,
                                      const JobConfig& config) {
  if (distorted.empty()) throw Error("ladder: no distorted video");
  const auto count = static_cast<unsigned>(distorted.size());
  std::vector<Encode> encodes(count);
  unsigned pairable = 0;
  for (unsigned i = 0; i < count; ++i) {
    encodes[i].source = distorted[i];
    try {
      check_pairable(reference, *distorted[i]);
      ++pairable;
    } catch (const Error& error) {
      encodes[i].error = error.what();
    }
  }
  auto share = std::make_shared<ReferenceShare>(pairable);
  for (unsigned i = 0; i < count; ++i) {
    Encode& e = encodes[i];
    if (!e.error.empty()) continue;
    JobConfig c = config;
    c.reference_share = share;
    c.on_progress = nullptr;
    if (config.threads > 0)
      c.threads = std::max(1u, config.threads / count + (i < config.threads % count ? 1 : 0));
    // The job's own refusals (configuration, frame size) are the same for
    // every encode: they throw, as run_job's do.
    e.job = std::make_unique<Job>(std::move(c));
    e.job->start(reference.format());
  }
  const auto fail = [&](Encode& e, const std::string& message) {
    e.error = message;
    e.job.reset();
  };

  if (config.frame_skip_ref && !reference.skip(config.frame_skip_ref))
    throw Error(fmt::format("{}: has fewer than {} frames to skip (--frame_skip_ref)",
                            reference.path(), config.frame_skip_ref));
  for (Encode& e : encodes)
    if (e.job && config.frame_skip_dist && !e.source->skip(config.frame_skip_dist))
      fail(e, fmt::format("{}: has fewer than {} frames to skip (--frame_skip_dist)",
                          e.source->path(), config.frame_skip_dist));

  const auto warn = [&](const FrameSource& ended, unsigned ended_frames, const FrameSource& other,
                        unsigned scored) {
    if (config.on_warning)
      config.on_warning(fmt::format("{} ended after {} frames, before {}; scored the first {} "
                                    "frames",
                                    ended.path(), ended_frames, other.path(), scored));
  };
  // An encode's job ends: its result (or error) goes to `outcome` and the
  // job, which leaves the share, is released.
  std::vector<LadderOutcome> outcomes(count);
  const auto close = [&](Encode& e, LadderOutcome& outcome) {
    if (!e.job) return;
    if (e.job->frames_submitted() == 0) {
      e.error = fmt::format("no frames to score: {} or {} holds no frame after skipping",
                            reference.path(), e.source->path());
    } else {
      try {
        outcome.result = e.job->finish();
      } catch (const Error& error) {
        e.error = error.what();
      }
    }
    e.job.reset();
  };
  const auto live = [&] {
    return std::any_of(encodes.begin(), encodes.end(),
                       [](const Encode& e) { return e.job && !e.ended; });
  };

  ReferencePictures pictures;
  Picture scratch;
  int planes = 0;
  for (const Encode& e : encodes)
    if (e.job) planes = std::max(planes, e.job->planes_needed());
  for (unsigned index = 0; live(); ++index) {
    if (config.frame_cnt && index >= config.frame_cnt) break;
    std::shared_ptr<Picture> frame_ref = pictures.free_picture();
    if (!reference.read_planes(*frame_ref, planes)) {
      // The reference ended: say so for every encode that has more frames.
      for (Encode& e : encodes) {
        if (!e.job || e.ended) continue;
        e.ended = true;
        try {
          if (e.source->read_planes(scratch, 1))
            warn(reference, reference.frames_read(), *e.source, index);
        } catch (const Error&) {
          // A defect past the scored frames is not read by a separate run either.
        }
      }
      break;
    }
    for (unsigned i = 0; i < count; ++i) {
      Encode& e = encodes[i];
      if (!e.job || e.ended) continue;
      try {
        JobFrame frame = e.job->acquire();
        frame.share_reference(frame_ref);
        if (!e.source->read_planes(frame.distorted(), planes)) {
          e.ended = true;
          warn(*e.source, e.source->frames_read(), reference, index);
          // Finished now, so that it leaves the share: the others' shared
          // reference work of later frames is not kept for it.
          frame = JobFrame();
          close(e, outcomes[i]);
          continue;
        }
        e.job->submit(std::move(frame));
      } catch (const Error& error) {
        fail(e, error.what());
      }
    }
    if (config.on_progress) config.on_progress(index + 1);
  }

  for (unsigned i = 0; i < count; ++i) {
    close(encodes[i], outcomes[i]);
    outcomes[i].error = encodes[i].error;
  }
  return outcomes;
}

}  // namespace vqe
