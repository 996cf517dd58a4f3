// SPDX-License-Identifier: BSD-2-Clause
// Options, feature names, pooling and output formatting.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "vqe/output.h"
#include "vqe/error.h"
#include "vqe/feature_collector.h"
#include "core/large_buffer.h"
#include "core/scratch_arena.h"
#include "core/options.h"
#include "vqe/picture.h"

namespace vqe {
namespace {

TEST(LargeBuffer, BlocksAreZeroedAlignedWritableAndOffsetFromOneAnother) {
  // Sizes around the threshold and a 1080p plane of 32-bit sums.
  for (const std::size_t n : {std::size_t{1000}, kLargeBlockBytes / 2 - 1, kLargeBlockBytes / 2,
                              std::size_t{1920} * 1080}) {
    LargeVector<std::uint16_t> a(n), b(n);
    for (const auto* v : {&a, &b}) {
      if (n * 2 >= kLargeBlockBytes) {  // small blocks: operator new's alignment
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(v->data()) % 64, 0u) << n;
      }
      EXPECT_TRUE(std::all_of(v->begin(), v->end(), [](std::uint16_t x) { return x == 0; })) << n;
    }
    std::fill(a.begin(), a.end(), std::uint16_t{0xABCD});
    std::fill(b.begin(), b.end(), std::uint16_t{0x1234});
    EXPECT_EQ(a.back(), 0xABCD);
    EXPECT_EQ(b.front(), 0x1234);
    if (maps_large(n * 2)) {
      // Successive large blocks start at different offsets into their
      // 2 MiB pages (no shared cache sets row for row).
      const auto offset = [](const void* p) {
        return reinterpret_cast<std::uintptr_t>(p) % kHugePageBytes;
      };
      EXPECT_NE(offset(a.data()), offset(b.data()));
      EXPECT_LT(offset(a.data()), kLargeBlockSlack);
    }
    a.resize(n * 3);  // reallocation: copied, and the old block returned
    EXPECT_EQ(a[n - 1], 0xABCD);
    EXPECT_EQ(a[n], 0);
  }
  // A mapping holds the block and the room before it, in whole 4 KiB pages.
  EXPECT_EQ(large_mapping_bytes(1), kLargeBlockSlack + 4096);
  EXPECT_EQ(large_mapping_bytes(kHugePageBytes), kHugePageBytes + kLargeBlockSlack);
}

TEST(LargeBuffer, AssignZerosLeavesAFreshBlockUntouched) {
  const std::size_t n = std::size_t{1920} * 1080;  // 8 MB of int32 sums
  LargeVector<std::int32_t> v;
  assign_zeros(v, n);
  ASSERT_EQ(v.size(), n);
  if (maps_large(n * sizeof(std::int32_t))) {
    // Nothing was written: no page of the block is resident yet.
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    const auto begin = (reinterpret_cast<std::uintptr_t>(v.data()) + page - 1) / page * page;
    const auto end = reinterpret_cast<std::uintptr_t>(v.data() + n) / page * page;
    std::vector<unsigned char> resident((end - begin) / page);
    ASSERT_EQ(::mincore(reinterpret_cast<void*>(begin), end - begin, resident.data()), 0);
    EXPECT_EQ(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return r & 1; }),
              0);
  }
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](std::int32_t x) { return x == 0; }));
  // A vector in use is cleared, whatever it held, at any size.
  for (const std::size_t m : {n, n / 2, n * 2, std::size_t{100}}) {
    std::fill(v.begin(), v.end(), 0x7777);
    assign_zeros(v, m);
    ASSERT_EQ(v.size(), m);
    EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](std::int32_t x) { return x == 0; })) << m;
  }
}

TEST(ScratchArena, SlotsGrowToTheLargestRequestAndKeepTheirBlockOtherwise) {
  ScratchArena arena;
  EXPECT_EQ(arena.bytes(), 0u);
  float* a = arena.get<float>(1, 1000);  // slot 0 stays empty
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 16, 0u);
  a[999] = 1.5f;
  EXPECT_EQ(arena.get<float>(1, 10), a);   // a smaller request: the same block
  EXPECT_EQ(arena.get<std::uint8_t>(1, 4000), reinterpret_cast<std::uint8_t*>(a));
  EXPECT_EQ(a[999], 1.5f);                 // contents kept while the slot does not grow
  EXPECT_EQ(arena.bytes(), 4000u);
  std::int32_t* b = arena.get<std::int32_t>(0, std::size_t{1920} * 1080);  // a large block
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b) % 64, 0u);
  b[0] = 7;
  EXPECT_EQ(arena.bytes(), 4000u + std::size_t{1920} * 1080 * 4);
  double* c = arena.get<double>(1, 2000);  // grows: a new block of the larger size
  c[1999] = 2.0;
  EXPECT_EQ(arena.bytes(), 16000u + std::size_t{1920} * 1080 * 4);
  EXPECT_EQ(arena.get<std::int32_t>(0, 1)[0], 7);
}

TEST(LargeBuffer, LargePicturesAreZeroedAlignedAndMovable) {
  for (const VideoFormat f : {VideoFormat{1920, 1080, 8, ChromaFormat::k420},
                              VideoFormat{3840, 2160, 10, ChromaFormat::k444},
                              VideoFormat{64, 48, 8, ChromaFormat::k420}}) {
    Picture pic(f);
    for (int p = 0; p < pic.num_planes(); ++p) {
      const Plane& plane = pic.plane(p);
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(plane.data) % 64, 0u);
      const std::size_t bytes = static_cast<std::size_t>(plane.stride) * plane.height;
      EXPECT_TRUE(std::all_of(plane.data, plane.data + bytes, [](std::uint8_t x) { return x == 0; }));
      std::fill(plane.data, plane.data + bytes, std::uint8_t{0x5A});
    }
    Picture moved(std::move(pic));
    const Plane& last = moved.plane(moved.num_planes() - 1);
    EXPECT_EQ(last.data[static_cast<std::size_t>(last.stride) * last.height - 1], 0x5A);
    moved = Picture(f);  // the first block returned, a fresh one zeroed
    EXPECT_EQ(moved.plane(0).data[0], 0);
  }
}

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
