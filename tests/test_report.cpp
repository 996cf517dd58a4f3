// SPDX-License-Identifier: BSD-2-Clause
// The HTML report's parts that need no browser: percentiles, escaping,
// determinism, the tables. (tests/report/check_html_report.sh draws the page
// in headless Chromium and compares the chart's data with the JSON output.)

#include <cmath>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>

#include "vqe/error.h"
#include "vqe/report.h"

namespace vqe::test {
namespace {

TEST(Report, PercentilesInterpolateBetweenRanks) {
  const std::vector<double> v = {5, 1, 4, 2, 3};  // sorted 1 2 3 4 5
  EXPECT_EQ(*percentile(v, 0), 1.0);
  EXPECT_EQ(*percentile(v, 100), 5.0);
  EXPECT_EQ(*percentile(v, 50), 3.0);
  EXPECT_DOUBLE_EQ(*percentile(v, 5), 1.2);   // rank 0.2
  EXPECT_DOUBLE_EQ(*percentile(v, 1), 1.04);  // rank 0.04
  EXPECT_DOUBLE_EQ(*percentile(v, 62.5), 3.5);
  const std::vector<double> one = {7.5};
  EXPECT_EQ(*percentile(one, 1), 7.5);
  EXPECT_FALSE(percentile(std::vector<double>{}, 50));
  EXPECT_FALSE(percentile(std::vector<double>{1, std::nan(""), 2}, 50));
  EXPECT_THROW(percentile(v, 101), Error);
  EXPECT_THROW(percentile(v, -1), Error);
}

FeatureCollector sample_features() {
  FeatureCollector fc;
  for (unsigned i = 0; i < 6; ++i) {
    fc.set("vmaf", i, 90.0 - i * (i % 2 ? 10.0 : 1.0));
    fc.set("a<b&\"c\"", i, 0.5 + i);
  }
  fc.set("psnr_y", 0, std::numeric_limits<double>::infinity());
  for (unsigned i = 1; i < 6; ++i) fc.set("psnr_y", i, 40.0 + i);
  fc.set_aggregate("apsnr_y", 41.25);
  return fc;
}

TEST(Report, PageIsDeterministicEscapedAndHasTheTables) {
  if (!html_report_available()) GTEST_SKIP() << "this build has no Chart.js (libjs-chart.js)";
  ReportInfo info;
  info.title = "dist <1>.y4m against ref.y4m";
  info.settings = {{"reference", "ref.y4m"}, {"threads", "2"}};
  info.worst_frames = 2;
  info.shown = {"vmaf"};
  std::ostringstream a, b;
  const FeatureCollector fc = sample_features();
  write_html_report(a, fc, info);
  write_html_report(b, fc, info);
  const std::string page = a.str();
  EXPECT_EQ(page, b.str());
  EXPECT_NE(page.find("dist &lt;1&gt;.y4m against ref.y4m"), std::string::npos);
  EXPECT_EQ(page.find("dist <1>"), std::string::npos);
  // The odd name is escaped in the tables and in the JSON block alike.
  EXPECT_NE(page.find("<td>a&lt;b&amp;&quot;c&quot;</td>"), std::string::npos);
  EXPECT_NE(page.find("\"a\\u003cb\\u0026\\\"c\\\"\""), std::string::npos);
  // Worst frames by vmaf: frames 5 (40) and 3 (60), lowest first.
  const std::size_t worst = page.find("<table id=\"worst\">");
  ASSERT_NE(worst, std::string::npos);
  const std::size_t first = page.find("<tr><td>5</td>", worst);
  const std::size_t second = page.find("<tr><td>3</td>", worst);
  EXPECT_NE(first, std::string::npos);
  EXPECT_LT(first, second);
  EXPECT_EQ(page.find("<tr><td>1</td>", worst), std::string::npos);  // only 2 rows
  // Non-finite values: a gap in the chart data, "inf" in the tables.
  EXPECT_NE(page.find("\"psnr_y\":[null,41,"), std::string::npos);
  EXPECT_NE(page.find("<td>inf</td>"), std::string::npos);
  // vmaf is 90, 80, 88, 60, 86, 40: median (80 + 86) / 2.
  EXPECT_NE(page.find("<td>vmaf</td><td>40.000000</td><td>90.000000</td>"), std::string::npos);
  EXPECT_NE(page.find("<td>83.000000</td></tr>"), std::string::npos);
  EXPECT_NE(page.find("<td>apsnr_y</td><td>41.250000</td>"), std::string::npos);
  // The library is inlined: no address to fetch anything from.
  EXPECT_NE(page.find("Chart.js v"), std::string::npos);
  EXPECT_EQ(page.find("src=\"http"), std::string::npos);
}

TEST(Report, SubsampleKeepsTheGridFrames) {
  if (!html_report_available()) GTEST_SKIP() << "this build has no Chart.js (libjs-chart.js)";
  ReportInfo info;
  info.subsample = 2;
  std::ostringstream out;
  write_html_report(out, sample_features(), info);
  EXPECT_NE(out.str().find("{\"frames\":[0,2,4],"), std::string::npos);
  EXPECT_NE(out.str().find("Pooled over 3 frames"), std::string::npos);
}

}  // namespace
}  // namespace vqe::test
