// SPDX-License-Identifier: BSD-2-Clause
// Options, feature names, pooling and output formatting.

#include <cmath>
#include <limits>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "vqe/output.h"
#include "vqe/error.h"
#include "vqe/feature_collector.h"
#include "core/options.h"

namespace vqe {
namespace {

using T = OptionSpec::Type;
const std::vector<OptionSpec> kSpecs = {
    {.name = "vif_enhn_gain_limit", .alias = "egl", .type = T::kDouble, .default_value = 100,
     .min = 1, .max = 100},
    {.name = "adm_csf_mode", .alias = "csf", .type = T::kInt, .default_value = 0, .min = 0,
     .max = 9},
    {.name = "debug", .type = T::kBool, .default_value = 0, .feature_param = false},
    {.name = "flag", .type = T::kBool, .default_value = 0},
};

TEST(Options, DefaultsGiveNoSuffix) {
  ParsedOptions o("x", kSpecs, {});
  EXPECT_EQ(o.name_suffix(), "");
  EXPECT_EQ(o.get_double("vif_enhn_gain_limit"), 100);
  EXPECT_EQ(o.feature_name("VMAF_integer_feature_vif_scale0_score"), "integer_vif_scale0");
}

TEST(Options, SuffixIsAlphabeticalByNameWithAlias) {
  ParsedOptions o("x", kSpecs,
                  {{"vif_enhn_gain_limit", "1.0"}, {"adm_csf_mode", "2"}, {"debug", "true"},
                   {"flag", "true"}});
  // adm_csf_mode < flag < vif_enhn_gain_limit; debug is not a feature param.
  EXPECT_EQ(o.name_suffix(), "_csf_2_flag_egl_1");
  EXPECT_EQ(o.feature_name("VMAF_feature_adm2_score"), "adm2_csf_2_flag_egl_1");
}

TEST(Options, DoubleSuffixUsesPercentG) {
  ParsedOptions o("x", kSpecs, {{"vif_enhn_gain_limit", "1.25"}});
  EXPECT_EQ(o.name_suffix(), "_egl_1.25");
}

TEST(Options, RejectsUnknownMalformedAndOutOfRange) {
  EXPECT_THROW(ParsedOptions("x", kSpecs, {{"nope", "1"}}), Error);
  EXPECT_THROW(ParsedOptions("x", kSpecs, {{"vif_enhn_gain_limit", "abc"}}), Error);
  EXPECT_THROW(ParsedOptions("x", kSpecs, {{"vif_enhn_gain_limit", "0.5"}}), Error);
  EXPECT_THROW(ParsedOptions("x", kSpecs, {{"adm_csf_mode", "1.5"}}), Error);
  EXPECT_THROW(ParsedOptions("x", kSpecs, {{"debug", "maybe"}}), Error);
  try {
    ParsedOptions("vif", kSpecs, {{"vif_enhn_gain_limit", "1000"}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vif_enhn_gain_limit"), std::string::npos);
  }
}

TEST(Options, ParseOptionString) {
  auto v = parse_option_string("enable_mse=true:enable_apsnr=1", "test");
  EXPECT_EQ(v.at("enable_mse"), "true");
  EXPECT_EQ(v.at("enable_apsnr"), "1");
  EXPECT_THROW(parse_option_string("novalue", "test"), Error);
}

TEST(Alias, LibvmafNames) {
  EXPECT_EQ(feature_alias("VMAF_integer_feature_adm2_score"), "integer_adm2");
  EXPECT_EQ(feature_alias("VMAF_feature_vif_scale3_score"), "vif_scale3");
  EXPECT_EQ(feature_alias("Cambi_feature_cambi_score"), "cambi");
  EXPECT_EQ(feature_alias("VMAF_integer_feature_motion_sad_score"),
            "VMAF_integer_feature_motion_sad_score");
}

TEST(Pooling, MinMaxMeanHarmonic) {
  FeatureCollector fc;
  const double v[] = {1.0, 3.0, 2.0, 10.0};
  for (unsigned i = 0; i < 4; ++i) fc.set("f", i, v[i]);
  EXPECT_EQ(*fc.pooled("f", PoolMethod::kMin), 1.0);
  EXPECT_EQ(*fc.pooled("f", PoolMethod::kMax), 10.0);
  EXPECT_EQ(*fc.pooled("f", PoolMethod::kMean), 4.0);
  const double hm = 4.0 / (1 / 2.0 + 1 / 4.0 + 1 / 3.0 + 1 / 11.0) - 1.0;
  EXPECT_DOUBLE_EQ(*fc.pooled("f", PoolMethod::kHarmonicMean), hm);
  // Subsample 2 pools frames 0 and 2.
  EXPECT_EQ(*fc.pooled("f", PoolMethod::kMean, 2), 1.5);
  EXPECT_FALSE(fc.pooled("missing", PoolMethod::kMean).has_value());
}

TEST(Pooling, MissingFrameMeansNoPooledValue) {
  FeatureCollector fc;
  fc.set("a", 0, 1.0);
  fc.set("a", 1, 1.0);
  fc.set("b", 1, 1.0);
  EXPECT_FALSE(fc.pooled("b", PoolMethod::kMean).has_value());
}

TEST(Collector, KeepsDeclarationOrder) {
  FeatureCollector fc;
  fc.declare("z");
  fc.declare("a");
  fc.set("m", 0, 1);
  fc.set("a", 0, 1);
  EXPECT_EQ(fc.names(), (std::vector<std::string>{"z", "a", "m"}));
}

TEST(Format, LibvmafDefaultPrecision) {
  Precision p;
  EXPECT_EQ(format_value(30.00518566052432, p), "30.005186");
  EXPECT_EQ(format_value(0.0, p), "0.000000");
  EXPECT_EQ(format_value(1.0, p), "1.000000");
  // More than six zeros after the point: sixteen decimals.
  EXPECT_EQ(format_value(1.5e-7, p), "0.0000001500000000");
  EXPECT_EQ(format_value(3.00000001, p), "3.0000000099999999");
  EXPECT_EQ(format_value(-2.5e-8, p), "-0.0000000250000000");
}

TEST(Format, MaxAndDigits) {
  EXPECT_EQ(format_value(0.1, parse_precision("max")), "0.10000000000000001");
  EXPECT_EQ(format_value(30.00518566052432, parse_precision("4")), "30.01");
  EXPECT_THROW(parse_precision("0"), Error);
  EXPECT_THROW(parse_precision("18"), Error);
  EXPECT_THROW(parse_precision("x"), Error);
  // %.17g round-trips.
  const double v = 0.38823837041854858;
  EXPECT_EQ(std::stod(format_value(v, parse_precision("max"))), v);
}

FeatureCollector sample_collector() {
  FeatureCollector fc;
  fc.set("psnr_y", 0, 30.5);
  fc.set("psnr_y", 1, std::numeric_limits<double>::infinity());
  fc.set("odd", 0, std::nan(""));
  fc.set("odd", 1, 1.0);
  fc.set_aggregate("apsnr_y", 31.25);
  return fc;
}

TEST(Output, JsonIsValidWithNonFiniteValues) {
  FeatureCollector fc = sample_collector();
  OutputInfo info;
  info.format = OutputFormat::kJson;
  info.version = "vqe test";
  std::ostringstream s;
  write_output(s, fc, info);
  const auto j = nlohmann::json::parse(s.str());  // throws if invalid
  EXPECT_EQ(j["frames"].size(), 2u);
  EXPECT_EQ(j["frames"][0]["frameNum"], 0);
  EXPECT_EQ(j["frames"][0]["metrics"]["psnr_y"].get<double>(), 30.5);
  EXPECT_TRUE(j["frames"][1]["metrics"]["psnr_y"].is_null());
  EXPECT_TRUE(j["frames"][0]["metrics"]["odd"].is_null());
  EXPECT_EQ(j["aggregate_metrics"]["apsnr_y"].get<double>(), 31.25);
  EXPECT_TRUE(j["pooled_metrics"]["psnr_y"]["mean"].is_null());
}

TEST(Output, XmlCsvSubLayouts) {
  FeatureCollector fc;
  fc.set("psnr_y", 0, 30.5);
  fc.set("psnr_y", 1, 31.5);
  fc.set("psnr_cb", 0, 40.0);
  fc.set("psnr_cb", 1, 41.0);
  OutputInfo info;
  info.version = "vqe test";
  info.width = 16;
  info.height = 8;
  std::ostringstream xml;
  write_output(xml, fc, info);
  EXPECT_NE(xml.str().find("<frame frameNum=\"1\" psnr_y=\"31.500000\" psnr_cb=\"41.000000\" />"),
            std::string::npos)
      << xml.str();
  EXPECT_NE(xml.str().find("<metric name=\"psnr_y\" min=\"30.500000\" max=\"31.500000\" "
                           "mean=\"31.000000\" "),
            std::string::npos);
  EXPECT_NE(xml.str().find("qualityWidth=\"16\" qualityHeight=\"8\""), std::string::npos);

  info.format = OutputFormat::kCsv;
  std::ostringstream csv;
  write_output(csv, fc, info);
  EXPECT_EQ(csv.str(), "Frame,psnr_y,psnr_cb,\n0,30.500000,40.000000,\n1,31.500000,41.000000,\n");

  info.format = OutputFormat::kSub;
  std::ostringstream sub;
  write_output(sub, fc, info);
  EXPECT_EQ(sub.str(),
            "{0}{1}frame: 0|psnr_y: 30.500000|psnr_cb: 40.000000|\n"
            "{1}{2}frame: 1|psnr_y: 31.500000|psnr_cb: 41.000000|\n");

  info.subsample = 2;
  std::ostringstream sub2;
  write_output(sub2, fc, info);
  EXPECT_EQ(sub2.str(), "{0}{1}frame: 0|psnr_y: 30.500000|psnr_cb: 40.000000|\n");
}

}  // namespace
}  // namespace vqe
