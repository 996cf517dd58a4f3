// SPDX-License-Identifier: BSD-2-Clause
#pragma once
/// @file A report to look at: one self-contained HTML page (no network
/// needed to open it) with a per-frame chart of every model score and
/// feature (drag to zoom, hover for values), the pooled table with
/// percentiles, the worst frames and the job's settings. The chart is drawn
/// by Chart.js (MIT licence), inlined into the page from the copy this
/// build embedded (Debian's libjs-chart.js at build time).

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "vqe/feature_collector.h"

namespace vqe {

/// The `p`-th percentile (0 <= p <= 100) of `values`, interpolated linearly
/// between the two nearest ranks of the sorted values (rank p/100·(n−1),
/// the "linear" method of numpy.percentile and R's type 7). nullopt for an
/// empty span or a NaN value. Throws vqe::Error for p outside 0..100.
std::optional<double> percentile(std::span<const double> values, double p);

/// What the report says besides the scores.
struct ReportInfo {
  /// Shown as the page's title, e.g. "dist.mp4 against ref.mp4".
  std::string title;
  /// The job's settings, in order (e.g. {"reference", path}, {"threads", "8"}).
  std::vector<std::pair<std::string, std::string>> settings;
  /// Frames pooled and listed: every `subsample`-th from frame 0 (as the
  /// other writers).
  unsigned subsample = 1;
  /// Rows of the worst-frames table.
  unsigned worst_frames = 10;
  /// Names drawn at first (the others are one click away in the legend);
  /// empty: the first name.
  std::vector<std::string> shown;
};

/// True when this build embedded Chart.js, which write_html_report needs.
bool html_report_available();

/// Writes the page for `features`: per-frame values at full precision
/// (non-finite values as gaps), the pooled min, max, mean, harmonic mean
/// and the 1st, 5th and 50th percentiles of every name, the frames with the
/// lowest values of the first shown name, the settings. Deterministic: the
/// same results give the same bytes. Throws vqe::Error when
/// html_report_available() is false.
void write_html_report(std::ostream& out, const FeatureCollector& features,
                       const ReportInfo& info);

}  // namespace vqe
