// SPDX-License-Identifier: BSD-2-Clause
// The HTML report (vqe/report.h): one page with the data as JSON, Chart.js
// inlined, and a small script that draws the chart, zooms on a dragged
// range and shows values on hover. Tables are written here, in HTML, so the
// page reads without scripts too.

#include "vqe/report.h"

#include <algorithm>
#include <cmath>
#include <string_view>

#include <fmt/format.h>

#include "vqe/error.h"

namespace vqe {
namespace report_detail {
std::string_view chartjs();  // generated (cmake/EmbedChartJs.cmake)
}  // namespace report_detail

namespace {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

// A JSON string literal, safe inside <script> (no "</" sequence).
std::string json_string(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '<' || c == '>' || c == '&' || u < 0x20) {
      out += fmt::format("\\u{:04x}", u);
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Full precision (round-trips), null for non-finite values and gaps.
std::string json_number(const std::optional<double>& v) {
  if (!v || !std::isfinite(*v)) return "null";
  return fmt::format("{:.17g}", *v);
}

// A table cell: libvmaf's default 6 decimals.
std::string cell(const std::optional<double>& v) {
  if (!v) return "—";
  if (std::isnan(*v)) return "nan";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6f}", *v);
}

constexpr std::string_view kStyle = R"css(
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1200px; color: #1d2330; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.sub { color: #5b6475; margin: 0 0 16px; word-break: break-all; }
.box { position: relative; height: 420px; } #chart { user-select: none; }
#band { position: absolute; top: 0; bottom: 0; background: rgba(60, 110, 220, 0.15); display: none; pointer-events: none; }
.scroll { overflow-x: auto; }
.hint { color: #5b6475; font-size: 13px; margin: 4px 0; } button { font: inherit; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 10px; border-bottom: 1px solid #e2e5ec; text-align: right; }
th:first-child, td:first-child { text-align: left; } th { background: #f3f5f9; }
)css";

// Draws the chart from the data block, adds drag-to-zoom, and leaves what
// it drew in #vqe-drawn (read by the project's browser test).
constexpr std::string_view kScript = R"js(
(function () {
  const data = JSON.parse(document.getElementById('vqe-data').textContent);
  const palette = ['#2f6fde', '#d9482b', '#2a9d58', '#8e44ad', '#e08e0b', '#16a2b8',
                   '#c2185b', '#5d6d7e', '#7cb342', '#6d4c41'];
  const datasets = data.names.map((name, i) => ({
    label: name, data: data.series[name], hidden: !data.shown.includes(name),
    borderColor: palette[i % palette.length], backgroundColor: palette[i % palette.length],
    borderWidth: 1.5, pointRadius: 0, spanGaps: false, tension: 0,
  }));
  const chart = new Chart(document.getElementById('chart'), {
    type: 'line',
    data: { labels: data.frames, datasets: datasets },
    options: {
      animation: false, maintainAspectRatio: false, parsing: true, normalized: true,
      interaction: { mode: 'index', intersect: false },
      scales: { x: { type: 'linear', title: { display: true, text: 'frame' },
                     ticks: { precision: 0 } } },
      plugins: { legend: { position: 'bottom' },
                 tooltip: { callbacks: { title: (items) => 'frame ' + items[0].label } } },
    },
  });
  // Drag across the chart to zoom on those frames; the button shows all.
  const canvas = chart.canvas, band = document.getElementById('band');
  let start = null;
  const frameAt = (ev) => chart.scales.x.getValueForPixel(ev.offsetX);
  canvas.addEventListener('mousedown', (ev) => { start = ev.offsetX; });
  canvas.addEventListener('mousemove', (ev) => {
    if (start === null) return;
    band.style.display = 'block';
    band.style.left = Math.min(start, ev.offsetX) + 'px';
    band.style.width = Math.abs(ev.offsetX - start) + 'px';
  });
  window.addEventListener('mouseup', (ev) => {
    if (start === null) return;
    band.style.display = 'none';
    const a = chart.scales.x.getValueForPixel(start), b = frameAt(ev);
    start = null;
    if (Math.abs(b - a) < 1) return;
    chart.options.scales.x.min = Math.floor(Math.min(a, b));
    chart.options.scales.x.max = Math.ceil(Math.max(a, b));
    chart.update();
  });
  document.getElementById('reset').addEventListener('click', () => {
    delete chart.options.scales.x.min;
    delete chart.options.scales.x.max;
    chart.update();
  });
  document.getElementById('vqe-drawn').textContent = JSON.stringify({
    frames: chart.data.labels,
    series: Object.fromEntries(chart.data.datasets.map((d) => [d.label, d.data])),
    shown: chart.data.datasets.filter((d, i) => chart.isDatasetVisible(i)).map((d) => d.label),
  });
})();
)js";

}  // namespace

std::optional<double> percentile(std::span<const double> values, double p) {
  if (!(p >= 0 && p <= 100)) throw Error(fmt::format("percentile {} is outside 0..100", p));
  if (values.empty()) return std::nullopt;
  std::vector<double> sorted(values.begin(), values.end());
  if (std::any_of(sorted.begin(), sorted.end(), [](double v) { return std::isnan(v); }))
    return std::nullopt;
  std::sort(sorted.begin(), sorted.end());
  const double rank = p / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  if (frac == 0) return sorted[lo];
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

bool html_report_available() { return !report_detail::chartjs().empty(); }

void write_html_report(std::ostream& out, const FeatureCollector& features,
                       const ReportInfo& info) {
  if (!html_report_available())
    throw Error("this build of VQE has no HTML report (it needs Debian's libjs-chart.js at "
                "build time: install it and rebuild)");
  const std::vector<std::string> names = features.names();
  const unsigned frames = features.frame_count();
  const unsigned step = std::max(1u, info.subsample);
  std::vector<unsigned> pooled_frames;
  for (unsigned i = 0; i < frames; i += step) pooled_frames.push_back(i);
  std::vector<std::string> shown;
  for (const std::string& s : info.shown)
    if (std::find(names.begin(), names.end(), s) != names.end()) shown.push_back(s);
  if (shown.empty() && !names.empty()) shown.push_back(names.front());

  // Per name: the pooled frames' values (gaps where a frame has none).
  std::vector<std::vector<std::optional<double>>> series;
  for (const std::string& n : names) {
    auto& s = series.emplace_back();
    for (const unsigned i : pooled_frames) s.push_back(features.get(n, i));
  }

  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      << "<title>VQE report: " << escape_html(info.title) << "</title>\n<style>" << kStyle
      << "</style></head>\n<body>\n<h1>VQE report</h1>\n<p class=\"sub\">"
      << escape_html(info.title) << "</p>\n";

  out << "<h2>Per frame</h2>\n<p class=\"hint\">Drag across the chart to zoom on those "
         "frames; click a name below the chart to show or hide it. <button id=\"reset\">Show "
         "all frames</button></p>\n<div class=\"box\"><canvas id=\"chart\"></canvas>"
         "<div id=\"band\"></div></div>\n";

  // Pooled table.
  out << "<h2>Pooled over " << pooled_frames.size() << " frame"
      << (pooled_frames.size() == 1 ? "" : "s")
      << "</h2>\n<table id=\"pooled\"><tr><th>name</th><th>min</th><th>max</th><th>mean</th>"
         "<th>harmonic mean</th><th>1st percentile</th><th>5th percentile</th><th>median</th>"
         "</tr>\n";
  for (std::size_t k = 0; k < names.size(); ++k) {
    std::vector<double> v;
    bool complete = true;
    for (const auto& x : series[k]) {
      if (!x) complete = false;
      else v.push_back(*x);
    }
    const auto stat = [&](PoolMethod m) { return complete ? pool(v, m) : std::nullopt; };
    const auto pct = [&](double p) { return complete ? percentile(v, p) : std::nullopt; };
    out << "<tr><td>" << escape_html(names[k]) << "</td><td>" << cell(stat(PoolMethod::kMin))
        << "</td><td>" << cell(stat(PoolMethod::kMax)) << "</td><td>"
        << cell(stat(PoolMethod::kMean)) << "</td><td>" << cell(stat(PoolMethod::kHarmonicMean))
        << "</td><td>" << cell(pct(1)) << "</td><td>" << cell(pct(5)) << "</td><td>"
        << cell(pct(50)) << "</td></tr>\n";
  }
  out << "</table>\n";
  const auto aggregates = features.aggregates();
  if (!aggregates.empty()) {
    out << "<h2>Whole video</h2>\n<table id=\"aggregates\"><tr><th>name</th><th>value</th></tr>\n";
    for (const auto& [n, v] : aggregates)
      out << "<tr><td>" << escape_html(n) << "</td><td>" << cell(v) << "</td></tr>\n";
    out << "</table>\n";
  }

  // Worst frames: lowest values of the first shown name (ties: earlier first).
  if (!shown.empty()) {
    const std::size_t key = static_cast<std::size_t>(
        std::find(names.begin(), names.end(), shown.front()) - names.begin());
    std::vector<std::size_t> order;
    for (std::size_t j = 0; j < pooled_frames.size(); ++j)
      if (series[key][j] && !std::isnan(*series[key][j])) order.push_back(j);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return *series[key][a] < *series[key][b];
    });
    order.resize(std::min<std::size_t>(order.size(), info.worst_frames));
    out << "<h2>Worst frames by " << escape_html(shown.front())
        << "</h2>\n<div class=\"scroll\"><table id=\"worst\"><tr><th>frame</th>";
    for (const std::string& n : names) out << "<th>" << escape_html(n) << "</th>";
    out << "</tr>\n";
    for (const std::size_t j : order) {
      out << "<tr><td>" << pooled_frames[j] << "</td>";
      for (std::size_t k = 0; k < names.size(); ++k) out << "<td>" << cell(series[k][j]) << "</td>";
      out << "</tr>\n";
    }
    out << "</table></div>\n";
  }

  out << "<h2>Settings</h2>\n<table id=\"settings\">\n";
  for (const auto& [k, v] : info.settings)
    out << "<tr><td>" << escape_html(k) << "</td><td style=\"text-align:left\">"
        << escape_html(v) << "</td></tr>\n";
  out << "</table>\n";

  // The data, the library, the drawing.
  out << "<script id=\"vqe-data\" type=\"application/json\">{\"frames\":[";
  for (std::size_t j = 0; j < pooled_frames.size(); ++j)
    out << (j ? "," : "") << pooled_frames[j];
  out << "],\"names\":[";
  for (std::size_t k = 0; k < names.size(); ++k) out << (k ? "," : "") << json_string(names[k]);
  out << "],\"shown\":[";
  for (std::size_t k = 0; k < shown.size(); ++k) out << (k ? "," : "") << json_string(shown[k]);
  out << "],\"series\":{";
  for (std::size_t k = 0; k < names.size(); ++k) {
    out << (k ? "," : "") << json_string(names[k]) << ":[";
    for (std::size_t j = 0; j < series[k].size(); ++j) out << (j ? "," : "") << json_number(series[k][j]);
    out << "]";
  }
  out << "}}</script>\n<pre id=\"vqe-drawn\" hidden></pre>\n<script>\n"
      << report_detail::chartjs() << "\n</script>\n<script>" << kScript << "</script>\n"
      << "</body></html>\n";
}

}  // namespace vqe
