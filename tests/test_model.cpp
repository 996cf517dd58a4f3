// SPDX-License-Identifier: BSD-2-Clause
// VMAF model loading and prediction: bit-exact against libvmaf 3.2.0's
// per-frame model outputs in ../shared/testdata/reference (fed with the
// reference's own feature values, so no extractor is involved), built-in
// models against their JSON originals, the libsvm arithmetic against an
// independent evaluation, option normalisation, the -m syntax, and
// malformed input.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/builtin/builtin.h"
#include "model/svm_regressor.h"
#include "test_util.h"
#include "vqe/error.h"
#include "core/extractor.h"
#include "vqe/model.h"

namespace {

namespace fs = std::filesystem;
using vqe::Model;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A model as the reference runs used it: the built-in version, the output
// name given with name=, and the reference columns of its features in
// features() order (libvmaf's emitted names, option suffixes included).
struct ReferenceModel {
  std::string version;
  std::string output;
  std::vector<std::string> internal;  // expected features()[i].internal_name
  std::vector<std::string> columns;
};

const std::vector<std::string> kIntegerV061 = {
    "VMAF_integer_feature_adm2_score",       "VMAF_integer_feature_motion2_score",
    "VMAF_integer_feature_vif_scale0_score", "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score", "VMAF_integer_feature_vif_scale3_score"};
const std::vector<std::string> kFloatV061 = {
    "VMAF_feature_adm2_score",       "VMAF_feature_motion2_score",
    "VMAF_feature_vif_scale0_score", "VMAF_feature_vif_scale1_score",
    "VMAF_feature_vif_scale2_score", "VMAF_feature_vif_scale3_score"};
const std::vector<std::string> kV1 = {
    "Cambi_feature_cambi_score", "Speed_chroma_feature_speed_chroma_uv_score",
    "VMAF_integer_feature_adm3_score", "VMAF_integer_feature_motion3_score"};

const std::vector<ReferenceModel>& reference_models() {
  static const std::vector<ReferenceModel> models = {
      {"vmaf_v0.6.1", "vmaf", kIntegerV061,
       {"integer_adm2", "integer_motion2", "integer_vif_scale0", "integer_vif_scale1",
        "integer_vif_scale2", "integer_vif_scale3"}},
      {"vmaf_v0.6.1neg", "vmaf_neg", kIntegerV061,
       {"integer_adm2_egl_1", "integer_motion2", "integer_vif_scale0_egl_1",
        "integer_vif_scale1_egl_1", "integer_vif_scale2_egl_1", "integer_vif_scale3_egl_1"}},
      {"vmaf_4k_v0.6.1", "vmaf_4k", kIntegerV061,
       {"integer_adm2", "integer_motion2", "integer_vif_scale0", "integer_vif_scale1",
        "integer_vif_scale2", "integer_vif_scale3"}},
      {"vmaf_b_v0.6.3", "vmaf_b", kIntegerV061,
       {"integer_adm2", "integer_motion2", "integer_vif_scale0", "integer_vif_scale1",
        "integer_vif_scale2", "integer_vif_scale3"}},
      {"vmaf_float_v0.6.1", "vmaf_float", kFloatV061,
       {"adm2", "motion2", "vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3"}},
      {"vmaf_float_v0.6.1neg", "vmaf_float_neg", kFloatV061,
       {"adm2_egl_1", "motion2", "vif_scale0_egl_1", "vif_scale1_egl_1", "vif_scale2_egl_1",
        "vif_scale3_egl_1"}},
      {"vmaf_float_4k_v0.6.1", "vmaf_float_4k", kFloatV061,
       {"adm2", "motion2", "vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3"}},
      {"vmaf_float_b_v0.6.3", "vmaf_float_b", kFloatV061,
       {"adm2", "motion2", "vif_scale0", "vif_scale1", "vif_scale2", "vif_scale3"}},
      {"vmaf_v1.0.16_3d0h", "vmaf_v1_3d0h", kV1,
       {"cambi_hrs_1080_cmxv_17_vlt_0.06", "speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5",
        "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02", "integer_motion3_mmxv_18"}},
      {"vmaf_v1.0.16_hfr_3d0h", "vmaf_v1_hfr_3d0h", kV1,
       {"cambi_hrs_1080_cmxv_17_vlt_0.06", "speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5",
        "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02",
        "integer_motion3_mffw_mmxv_18_mma"}},
      {"vmaf_v1.0.16_1d5h_2160", "vmaf_v1_1d5h_2160", kV1,
       {"cambi_hrs_1080_cmxv_17_vlt_0.06", "speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5",
        "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160",
        "integer_motion3_mmxv_18"}},
  };
  return models;
}

std::vector<double> frame_inputs(const nlohmann::json& metrics,
                                 const std::vector<std::string>& columns, bool* ok) {
  std::vector<double> v;
  *ok = true;
  for (const std::string& c : columns) {
    if (!metrics.contains(c)) {
      *ok = false;
      return {};
    }
    v.push_back(metrics.at(c).get<double>());
  }
  return v;
}

TEST(Model, ReproducesReferenceScoresBitExactly) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path ref_dir = shared / "testdata" / "reference";
  std::map<std::string, int> frames_checked, values_checked;
  std::map<std::string, int> files_checked;
  for (const ReferenceModel& rm : reference_models()) {
    const Model json_model = [&] {
      Model m = Model::from_json_file(shared / "models" / (rm.version + ".json"));
      m.set_name(rm.output);
      return m;
    }();
    Model builtin = Model::builtin(rm.version);
    builtin.set_name(rm.output);
    ASSERT_EQ(json_model.features().size(), rm.internal.size()) << rm.version;
    for (std::size_t i = 0; i < rm.internal.size(); ++i)
      ASSERT_EQ(json_model.features()[i].internal_name, rm.internal[i]) << rm.version;
    const std::vector<std::string> outputs = json_model.output_names();

    for (const auto& entry : fs::directory_iterator(ref_dir)) {
      if (entry.path().extension() != ".json") continue;
      const nlohmann::json ref = nlohmann::json::parse(read_text(entry.path()));
      bool any = false;
      for (const auto& frame : ref.at("frames")) {
        const auto& metrics = frame.at("metrics");
        if (!metrics.contains(rm.output)) continue;
        bool ok = false;
        const std::vector<double> inputs = frame_inputs(metrics, rm.columns, &ok);
        ASSERT_TRUE(ok) << entry.path().filename() << ": " << rm.output
                        << " present but not all of its features";
        const auto got = json_model.predict(inputs);
        const auto got_builtin = builtin.predict(inputs);
        ASSERT_EQ(got.size(), outputs.size());
        for (std::size_t k = 0; k < got.size(); ++k) {
          ASSERT_EQ(got[k].first, outputs[k]);
          ASSERT_TRUE(metrics.contains(got[k].first))
              << entry.path().filename() << " lacks " << got[k].first;
          const double expected = metrics.at(got[k].first).get<double>();
          EXPECT_EQ(got[k].second, expected)
              << entry.path().filename() << " frame " << frame.at("frameNum") << " "
              << got[k].first << ": got " << got[k].second << " expected " << expected
              << " (diff " << got[k].second - expected << ")";
          EXPECT_EQ(got_builtin[k].second, got[k].second) << "built-in " << rm.version;
          ++values_checked[rm.version];
        }
        ++frames_checked[rm.version];
        any = true;
      }
      if (any) ++files_checked[rm.version];
    }
  }
  for (const ReferenceModel& rm : reference_models()) {
    EXPECT_GT(frames_checked[rm.version], 0) << rm.version << ": no reference frames";
    std::printf("[ model    ] %-24s %3d files, %4d frames, %5d values bit-exact\n",
                rm.version.c_str(), files_checked[rm.version], frames_checked[rm.version],
                values_checked[rm.version]);
  }
}

// Random feature vectors in the ranges real features take (and a bit
// beyond), for comparisons between two loaders of the same model.
std::vector<std::vector<double>> random_inputs(const Model& m, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::vector<double>> out;
  for (int i = 0; i < count; ++i) {
    std::vector<double> v;
    for (const vqe::ModelFeature& f : m.features()) {
      const bool motion = f.internal_name.find("motion") != std::string::npos;
      const bool speed = f.internal_name.find("speed") != std::string::npos;
      const bool cambi = f.internal_name.find("cambi") != std::string::npos;
      const double hi = motion ? 30.0 : speed ? 40.0 : cambi ? 20.0 : 1.1;
      std::uniform_real_distribution<double> d(0.0, hi);
      // Exact zeros now and then (chroma correction, motion at frame 0).
      v.push_back((rng() % 8 == 0) ? 0.0 : d(rng));
    }
    out.push_back(std::move(v));
  }
  return out;
}

TEST(Model, BuiltinsEqualTheirJsonFiles) {
  VQE_REQUIRE_SHARED(shared);
  const std::vector<std::string> versions = Model::builtin_versions();
  ASSERT_EQ(versions.front(), Model::default_version());
  std::set<std::string> json_files;
  for (const auto& e : fs::directory_iterator(shared / "models"))
    if (e.path().extension() == ".json") json_files.insert(e.path().stem().string());
  EXPECT_EQ(std::set<std::string>(versions.begin(), versions.end()), json_files)
      << "every published model is built in";

  for (const std::string& v : versions) {
    SCOPED_TRACE(v);
    Model json = Model::from_json_file(shared / "models" / (v + ".json"));
    Model builtin = Model::builtin(v);
    EXPECT_EQ(builtin.origin(), v);
    EXPECT_EQ(builtin.name(), "vmaf");
    EXPECT_EQ(builtin.features(), json.features());
    EXPECT_EQ(builtin.output_names(), json.output_names());
    EXPECT_EQ(builtin.is_bootstrap(), json.is_bootstrap());
    EXPECT_EQ(builtin.is_bootstrap(), v.find("_b_") != std::string::npos);
    for (int flags = 0; flags < 4; ++flags) {
      json.set_enable_transform(flags & 1);
      builtin.set_enable_transform(flags & 1);
      json.set_disable_clip(flags & 2);
      builtin.set_disable_clip(flags & 2);
      for (const auto& in : random_inputs(json, 200, 1234 + flags)) {
        std::vector<double> a(json.output_names().size()), b(a.size());
        json.predict(in, a);
        builtin.predict(in, b);
        for (std::size_t k = 0; k < a.size(); ++k)
          ASSERT_EQ(a[k], b[k]) << json.output_names()[k] << " flags " << flags;
      }
    }
  }
}

TEST(Model, EmbeddedTextsAreTheModelsFolder) {
  const fs::path models = fs::path(VQE_SOURCE_DIR) / "models";
  ASSERT_TRUE(fs::is_directory(models));
  std::size_t n = 0;
  for (const auto& entry : vqe::model_detail::builtin_model_texts()) {
    SCOPED_TRACE(entry.version);
    const fs::path file = models / (std::string(entry.version) + ".vqem");
    ASSERT_TRUE(fs::exists(file)) << "every embedded model comes from models/ (cmake/EmbedModels.cmake)";
    EXPECT_TRUE(read_text(file) == entry.text)
        << file << " differs from the embedded copy: re-run cmake";
    // The licence travels with the numbers.
    EXPECT_NE(entry.text.find("Copyright (c) 2020 Netflix, Inc."), std::string_view::npos);
    EXPECT_NE(entry.text.find("DISCLAIMER"), std::string_view::npos);
    EXPECT_NE(entry.text.find("license BSD-2-Clause-Patent"), std::string_view::npos);
    ++n;
  }
  EXPECT_EQ(n, 17u);
  EXPECT_TRUE(fs::exists(models / "LICENSE-upstream.txt"));
  // Loading a .vqem file from disk gives the built-in model.
  const Model from_disk = Model::from_file(models / "vmaf_v0.6.1neg.vqem");
  EXPECT_EQ(from_disk.features(), Model::builtin("vmaf_v0.6.1neg").features());
}

TEST(Model, FourKNegBuiltinEqualsJsonOnNegFeatures) {
  // No reference run used vmaf_4k_v0.6.1neg: compare the built-in with the
  // published JSON on the real *_egl_1 feature values of every reference.
  VQE_REQUIRE_SHARED(shared);
  const Model json = Model::from_json_file(shared / "models" / "vmaf_4k_v0.6.1neg.json");
  const Model builtin = Model::builtin("vmaf_4k_v0.6.1neg");
  ASSERT_EQ(json.features(), builtin.features());
  const std::vector<std::string> columns = reference_models()[1].columns;  // vmaf_neg's
  int frames = 0;
  for (const auto& entry : fs::directory_iterator(shared / "testdata" / "reference")) {
    if (entry.path().extension() != ".json") continue;
    const nlohmann::json ref = nlohmann::json::parse(read_text(entry.path()));
    for (const auto& frame : ref.at("frames")) {
      bool ok = false;
      const std::vector<double> in = frame_inputs(frame.at("metrics"), columns, &ok);
      if (!ok) continue;
      EXPECT_EQ(json.predict(in)[0].second, builtin.predict(in)[0].second);
      const double s = builtin.predict(in)[0].second;
      EXPECT_GE(s, 0.0);
      EXPECT_LE(s, 100.0);
      ++frames;
    }
  }
  EXPECT_GT(frames, 100);
}

TEST(Model, FeatureOptionsAreLibvmafNormalised) {
  const Model neg = Model::builtin("vmaf_v0.6.1neg");
  ASSERT_EQ(neg.features().size(), 6u);
  EXPECT_EQ(neg.features()[0].options, (vqe::OptionValues{{"adm_enhn_gain_limit", "1"}}));
  EXPECT_TRUE(neg.features()[1].options.empty());
  for (int i = 2; i < 6; ++i)
    EXPECT_EQ(neg.features()[i].options, (vqe::OptionValues{{"vif_enhn_gain_limit", "1"}}));
  EXPECT_TRUE(Model::builtin("vmaf_v0.6.1").features()[0].options.empty());

  const Model hfr = Model::builtin("vmaf_v1.0.16_hfr_3d0h_2160");
  ASSERT_EQ(hfr.features().size(), 4u);
  EXPECT_EQ(hfr.features()[0].options,
            (vqe::OptionValues{{"cambi_high_res_speedup", "1080"},
                               {"cambi_vis_lum_threshold", "0.06"},
                               {"cambi_max_val", "17"}}));
  EXPECT_EQ(hfr.features()[1].options.at("speed_prescale_method"), "bilinear");
  EXPECT_EQ(hfr.features()[1].options.at("speed_prescale"), "0.5");
  EXPECT_EQ(hfr.features()[1].options.at("speed_weight_var_mode"), "5");
  EXPECT_EQ(hfr.features()[2].options.at("adm_norm_view_dist"), "3");
  EXPECT_EQ(hfr.features()[2].options.at("adm_ref_display_height"), "2160");
  EXPECT_EQ(hfr.features()[2].options.at("adm_noise_weight"), "0.02");
  EXPECT_EQ(hfr.features()[3].options,
            (vqe::OptionValues{{"motion_max_val", "18"},
                               {"motion_five_frame_window", "true"},
                               {"motion_moving_average", "true"}}));
}

TEST(Model, NormalizeOptionValueMatchesLibvmafDict) {
  using vqe::normalize_option_value;
  EXPECT_EQ(normalize_option_value("1.0"), "1");
  EXPECT_EQ(normalize_option_value("1"), "1");
  EXPECT_EQ(normalize_option_value("0.06"), "0.06");
  EXPECT_EQ(normalize_option_value("0.0600"), "0.06");
  EXPECT_EQ(normalize_option_value("17.0"), "17");
  EXPECT_EQ(normalize_option_value("1080"), "1080");
  EXPECT_EQ(normalize_option_value("1234567"), "1.23457e+06");
  EXPECT_EQ(normalize_option_value("1e-7"), "1e-07");
  EXPECT_EQ(normalize_option_value("-2.5"), "-2.5");
  EXPECT_EQ(normalize_option_value("+2.5"), "2.5");
  EXPECT_EQ(normalize_option_value(" 2.50 "), "2.5");
  // 0.1 as float is 0.100000001…, printed with 6 digits.
  EXPECT_EQ(normalize_option_value("0.1"), "0.1");
  EXPECT_EQ(normalize_option_value("0.123456789"), "0.123457");
  EXPECT_EQ(normalize_option_value("true"), "true");
  EXPECT_EQ(normalize_option_value("bilinear"), "bilinear");
  EXPECT_EQ(normalize_option_value("1.5x"), "1.5x");
  EXPECT_EQ(normalize_option_value(""), "");
}

// An independent evaluation of libvmaf's svm.cpp for RBF regression
// (svm_predict_values + Kernel::k_function), to check that Debian's libsvm
// does the same arithmetic.
double reference_rbf(const vqe::model_detail::SvmDescription& d, const std::vector<double>& x) {
  double sum = 0;
  for (std::size_t i = 0; i < d.vectors.size(); ++i) {
    const auto& sv = d.vectors[i];
    double s = 0;
    std::size_t a = 0, b = 0;  // a walks x (indices 1..n), b walks sv
    while (a < x.size() && b < sv.size()) {
      const int xi = static_cast<int>(a) + 1;
      if (xi == sv[b].index) {
        const double diff = x[a] - sv[b].value;
        s += diff * diff;
        ++a;
        ++b;
      } else if (xi > sv[b].index) {
        s += sv[b].value * sv[b].value;
        ++b;
      } else {
        s += x[a] * x[a];
        ++a;
      }
    }
    for (; a < x.size(); ++a) s += x[a] * x[a];
    for (; b < sv.size(); ++b) s += sv[b].value * sv[b].value;
    sum += d.coefficients[i] * std::exp(-d.gamma * s);
  }
  sum -= d.rho;
  return sum;
}

TEST(Model, LibsvmPredictionMatchesLibvmafArithmetic) {
  VQE_REQUIRE_SHARED(shared);
  for (const char* file : {"vmaf_v0.6.1.json", "vmaf_4k_v0.6.1.json", "vmaf_v1.0.16_3d0h.json"}) {
    const nlohmann::json j = nlohmann::json::parse(read_text(shared / "models" / file));
    const auto d = vqe::model_detail::parse_libsvm_text(
        j.at("model_dict").at("model").get<std::string>(), file);
    const vqe::model_detail::SvmRegressor svm(d);
    const std::size_t n = j.at("model_dict").at("feature_names").size();
    std::mt19937_64 rng(42);
    std::uniform_real_distribution<double> u(-0.2, 1.2);
    for (int t = 0; t < 2000; ++t) {
      std::vector<double> x(n);
      std::vector<svm_node> nodes(n + 1);
      for (std::size_t i = 0; i < n; ++i) {
        x[i] = u(rng);
        nodes[i] = {static_cast<int>(i + 1), x[i]};
      }
      nodes[n] = {-1, 0};
      ASSERT_EQ(svm.predict(nodes.data()), reference_rbf(d, x)) << file;
    }
  }
}

TEST(Model, LibsvmTextParsing) {
  using vqe::model_detail::parse_libsvm_text;
  const std::string good =
      "svm_type nu_svr\nkernel_type rbf\ngamma 0.04\nnr_class 2\ntotal_sv 2\nrho -1.5\nSV\n"
      "-4 1:0.5 2:0.25 \n4 1:1 3:1e-3\n";
  const auto d = parse_libsvm_text(good, "t");
  EXPECT_EQ(d.gamma, 0.04);
  EXPECT_EQ(d.rho, -1.5);
  ASSERT_EQ(d.vectors.size(), 2u);
  EXPECT_EQ(d.coefficients[1], 4.0);
  EXPECT_EQ(d.vectors[1][1].index, 3);
  EXPECT_EQ(d.vectors[1][1].value, 1e-3);
  const std::vector<std::string> bad = {
      "",
      "SV\n",
      "svm_type c_svc\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n",
      "svm_type nu_svr\nkernel_type precomputed\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 2\nrho 0\nSV\n1 1:1\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:1\n1 1:1\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 2:1 1:1\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1:nan\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 0:1\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 1=1\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 1e999\nSV\n1 1:1\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 3\ntotal_sv 0\nrho 0\nSV\n",
      "svm_type nu_svr\nkernel_type rbf\nnr_class 2\ntotal_sv 0\nSV\n",
      "svm_type nu_svr\nbogus 1\nSV\n",
  };
  for (const std::string& b : bad) EXPECT_THROW(parse_libsvm_text(b, "t"), vqe::Error) << b;
}

// A tiny model whose SVM is linear in one feature: score = 10·x − 5 (norm
// none, linear kernel with one support vector of value 1, coefficient 10).
std::string tiny_model(const std::string& extra) {
  return R"({"model_dict": {"model_type": "LIBSVMNUSVR", "norm_type": "none",
    "feature_names": ["VMAF_feature_adm2_score"],
    "model": "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 5\nSV\n10 1:1\n")" +
         extra + "}}";
}

double tiny_predict(const Model& m, double x) { return m.predict(std::vector<double>{x})[0].second; }

TEST(Model, TransformAndClipFollowLibvmaf) {
  // Polynomial + rectification, as in vmaf_v0.6.1 but enabled.
  const Model poly = Model::from_json_string(
      tiny_model(R"(, "score_clip": [0, 100], "score_transform": {"enabled": true,
        "p0": 1.70674692, "p1": 1.72643844, "p2": -0.00705305, "out_gte_in": "true"})"),
      "poly");
  for (double x : {0.0, 0.3, 0.55, 1.0, 3.0, 7.0, 12.0}) {
    const double y = 10 * x - 5;
    double t = 0.;
    t += 1.70674692;
    t += 1.72643844 * y;
    t += -0.00705305 * y * y;
    if (t < y) t = y;
    t = t < 0 ? 0 : t;
    t = t > 100 ? 100 : t;
    EXPECT_EQ(tiny_predict(poly, x), t) << x;
  }
  // Transform present but disabled: only applied with enable_transform.
  Model off = Model::from_json_string(
      tiny_model(R"(, "score_transform": {"p1": 2.0, "out_lte_in": "true"})"), "off");
  EXPECT_EQ(tiny_predict(off, 1.0), 5.0);
  off.set_enable_transform(true);
  EXPECT_EQ(tiny_predict(off, 1.0), 5.0);  // 2·5 = 10 > 5, rectified down to 5
  EXPECT_EQ(tiny_predict(off, 0.0), -10.0);  // 2·(−5) = −10 <= −5
  // enable_transform does nothing without a score_transform.
  Model none = Model::from_json_string(tiny_model(""), "none");
  none.set_enable_transform(true);
  EXPECT_EQ(tiny_predict(none, 1.0), 5.0);
  // Clip and disable_clip.
  Model clip = Model::from_json_string(tiny_model(R"(, "score_clip": [0.0, 3.0])"), "clip");
  EXPECT_EQ(tiny_predict(clip, 1.0), 3.0);
  EXPECT_EQ(tiny_predict(clip, 0.0), 0.0);
  clip.set_disable_clip(true);
  EXPECT_EQ(tiny_predict(clip, 1.0), 5.0);
  EXPECT_EQ(tiny_predict(clip, 0.0), -5.0);
  // Knots: piecewise linear, extended beyond the ends.
  const Model knots = Model::from_json_string(
      tiny_model(R"(, "score_transform": {"enabled": true,
        "knots": [[0.0, 0.0], [20.0, 40.0], [40.0, 40.0], [100.0, 100.0]]})"),
      "knots");
  EXPECT_EQ(tiny_predict(knots, 1.0), 10.0);   // y=5 -> 2·5
  EXPECT_EQ(tiny_predict(knots, 0.0), -10.0);  // y=-5, first segment extended
  EXPECT_EQ(tiny_predict(knots, 3.0), 40.0);   // y=25, flat segment
  EXPECT_EQ(tiny_predict(knots, 6.0), 55.0);   // y=55 on the last segment
  EXPECT_EQ(tiny_predict(knots, 20.0), 195.0); // y=195, last segment extended
  EXPECT_THROW(Model::from_json_string(
                   tiny_model(R"(, "score_transform": {"knots": [[1, 0], [0, 1]]})"), "k"),
               vqe::Error);
  // Null polynomial terms mean "absent".
  Model nulls = Model::from_json_string(
      tiny_model(R"(, "score_transform": {"enabled": true, "p0": null, "p1": 3, "p2": null})"),
      "nulls");
  EXPECT_EQ(tiny_predict(nulls, 1.0), 15.0);
}

TEST(Model, ChromaCorrectionReplacesAZeroChromaFeature) {
  // Features: adm3 (guiding) and speed_chroma_uv (guided), norm none, a
  // linear SVM reading only feature 2: score = 1·chroma − 0.
  const std::string text = R"({"model_dict": {"norm_type": "none",
    "feature_names": ["VMAF_integer_feature_adm3_score", "Speed_chroma_feature_speed_chroma_uv_score"],
    "chroma_correction_parameter": 120.0,
    "model": "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n1 2:1\n"}})";
  const Model m = Model::from_json_string(text, "cc");
  EXPECT_EQ(m.predict(std::vector<double>{0.9, 2.0})[0].second, 2.0);
  EXPECT_EQ(m.predict(std::vector<double>{0.9, 0.0})[0].second, (-120.0 * 0.9) + 120.0);
  EXPECT_THROW(Model::from_json_string(
                   R"({"model_dict": {"norm_type": "none", "feature_names": ["a"],
                   "chroma_correction_parameter": 1,
                   "model": "svm_type nu_svr\nkernel_type linear\nnr_class 2\ntotal_sv 0\nrho 0\nSV\n"}})",
                   "cc"),
               vqe::Error);
}

TEST(Model, BootstrapOutputNames) {
  Model b = Model::builtin("vmaf_b_v0.6.3");
  EXPECT_TRUE(b.is_bootstrap());
  EXPECT_EQ(b.features().size(), 6u);
  b.set_name("vmaf_b");
  const auto names = b.output_names();
  ASSERT_EQ(names.size(), 25u);
  EXPECT_EQ(names[0], "vmaf_b");
  EXPECT_EQ(names[1], "vmaf_b_0001");
  EXPECT_EQ(names[20], "vmaf_b_0020");
  EXPECT_EQ(names[21], "vmaf_b_bagging");
  EXPECT_EQ(names[22], "vmaf_b_stddev");
  EXPECT_EQ(names[23], "vmaf_b_ci_p95_lo");
  EXPECT_EQ(names[24], "vmaf_b_ci_p95_hi");
  EXPECT_EQ(Model::builtin("vmaf_v0.6.1").output_names(), std::vector<std::string>{"vmaf"});
}

TEST(Model, PredictChecksSizes) {
  const Model m = Model::builtin("vmaf_v0.6.1");
  EXPECT_THROW(m.predict(std::vector<double>(5)), vqe::Error);
  std::vector<double> out(2);
  EXPECT_THROW(m.predict(std::vector<double>(6), out), vqe::Error);
  EXPECT_THROW(Model::builtin("vmaf_v9"), vqe::Error);
  EXPECT_THROW(Model().predict(std::vector<double>{}), vqe::Error);
}

TEST(Model, OverridesReachEveryModelOfACollection) {
  auto extractor_of = [](const std::string& f) -> std::string {
    if (f.find("adm") != std::string::npos) return "adm";
    if (f.find("vif") != std::string::npos) return "vif";
    if (f.find("motion") != std::string::npos) return "motion";
    return "";
  };
  Model b = Model::builtin("vmaf_b_v0.6.3");
  b.apply_override("adm", "adm_enhn_gain_limit", "1.0", extractor_of);
  ASSERT_EQ(b.features().size(), 6u);  // still one shared feature list
  EXPECT_EQ(b.features()[0].options, (vqe::OptionValues{{"adm_enhn_gain_limit", "1"}}));
  EXPECT_TRUE(b.features()[1].options.empty());
  // Overriding an option the model file sets replaces its value.
  Model neg = Model::builtin("vmaf_v0.6.1neg");
  neg.apply_override("vif", "vif_enhn_gain_limit", "1.50", extractor_of);
  EXPECT_EQ(neg.features()[2].options.at("vif_enhn_gain_limit"), "1.5");
  EXPECT_THROW(neg.apply_override("float_ssim", "x", "1", extractor_of), vqe::Error);
}

TEST(Model, ModelSpecSyntax) {
  Model m = vqe::load_model_spec("version=vmaf_v0.6.1neg:name=vmaf_neg");
  EXPECT_EQ(m.name(), "vmaf_neg");
  EXPECT_EQ(m.origin(), "vmaf_v0.6.1neg");
  EXPECT_FALSE(m.enable_transform());
  EXPECT_FALSE(m.disable_clip());
  m = vqe::load_model_spec("version=vmaf_v0.6.1:enable_transform:disable_clip");
  EXPECT_EQ(m.name(), "vmaf");
  EXPECT_TRUE(m.enable_transform());
  EXPECT_TRUE(m.disable_clip());
  m = vqe::load_model_spec("version=vmaf_v0.6.1:enable_transform=false:disable_clip=0");
  EXPECT_FALSE(m.enable_transform());
  EXPECT_FALSE(m.disable_clip());
  m = vqe::load_model_spec("version=vmaf_v0.6.1:enable_transform=1:disable_clip=true");
  EXPECT_TRUE(m.enable_transform());
  EXPECT_TRUE(m.disable_clip());
  // Once on, a flag stays on (libvmaf ORs its flag bits).
  EXPECT_TRUE(vqe::load_model_spec("version=vmaf_v0.6.1:disable_clip:disable_clip=false")
                  .disable_clip());
  // Anything but a boolean is an error naming it (libvmaf ignores it silently).
  for (const char* bad : {"version=vmaf_v0.6.1:enable_transform=yes",
                          "version=vmaf_v0.6.1:disable_clip=on", "version=vmaf_v0.6.1:disable_clip="}) {
    try {
      vqe::load_model_spec(bad);
      ADD_FAILURE() << bad;
    } catch (const vqe::Error& e) {
      EXPECT_NE(std::string(e.what()).find("is not a boolean"), std::string::npos) << e.what();
    }
  }
  for (const char* bad : {"version=vmaf_v0.6.1:name=a b", "version=vmaf_v0.6.1:name=",
                          "version=vmaf_v0.6.1:name=1x", "version=vmaf_v0.6.1:name=x\"y"})
    EXPECT_THROW(vqe::load_model_spec(bad), vqe::Error) << bad;
  for (const char* bad : {"", "name=x", "version=vmaf_v0.6.1:", ":version=vmaf_v0.6.1",
                          "version=vmaf_v0.6.1::name=a", "version=nope", "version=vmaf_v0.6.1:foo",
                          "version=vmaf_v0.6.1:foo=1", "version=vmaf_v0.6.1:path=/x.json",
                          "version=vmaf_v0.6.1:.x=1", "version=vmaf_v0.6.1:adm.=1",
                          "path=/nonexistent/model.json"})
    EXPECT_THROW(vqe::load_model_spec(bad), vqe::Error) << bad;
  // Overrides go through the extractor registry; check when adm is there.
  if (vqe::find_extractor_by_feature("VMAF_integer_feature_adm2_score")) {
    m = vqe::load_model_spec("version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.0");
    EXPECT_EQ(m.features()[0].options.at("adm_enhn_gain_limit"), "1");
  }
}

TEST(Model, ModelSpecPathLoadsJsonAndVqem) {
  VQE_REQUIRE_SHARED(shared);
  const std::string json = (shared / "models" / "vmaf_float_v0.6.1.json").string();
  Model m = vqe::load_model_spec("path=" + json + ":name=vf");
  EXPECT_EQ(m.name(), "vf");
  EXPECT_EQ(m.origin(), json);
  EXPECT_EQ(m.features(), Model::builtin("vmaf_float_v0.6.1").features());
  const std::string vqem = (fs::path(VQE_SOURCE_DIR) / "models" / "vmaf_b_v0.6.3.vqem").string();
  m = vqe::load_model_spec("path=" + vqem);
  EXPECT_TRUE(m.is_bootstrap());
}

// Malformed models: vqe::Error, never a crash or another exception type.
template <typename F>
void expect_error_or_model(F&& parse, const std::string& text) {
  try {
    parse(text);
  } catch (const vqe::Error&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "non-vqe exception " << typeid(e).name() << ": " << e.what()
                  << " for input of " << text.size() << " bytes";
  }
}

TEST(Model, MalformedJsonThrowsVqeError) {
  const std::vector<std::string> garbage = {
      "", "{", "[]", "null", "42", "\"x\"", "{}", R"({"model_dict": 1})",
      R"({"model_dict": {}})", R"({"0": {}})", R"({"0": {"model_dict": {}}, "1": 2})",
      R"({"model_dict": {"norm_type": "linear_rescale", "feature_names": ["a"], "slopes": [1],
          "intercepts": [0], "model": "x"}})",
      R"({"model_dict": {"norm_type": "bogus"}})",
      R"({"model_dict": {"norm_type": "none", "feature_names": [1]}})",
      R"({"model_dict": {"norm_type": "none", "feature_names": ["a"], "feature_opts_dicts": [{"x": [1]}]}})",
      R"({"model_dict": {"norm_type": "none", "feature_names": ["a"], "score_clip": [1]}})",
      R"({"model_dict": {"norm_type": "none", "feature_names": ["a"], "score_transform": {"p0": "x"}}})",
      R"({"model_dict": {"norm_type": "none", "feature_names": ["a"], "slopes": [1e999]}})",
      std::string(100000, '[') + std::string(100000, ']'),
      std::string("{\"model_dict\": \"\xff\xfe\"}"),
  };
  for (const std::string& g : garbage) {
    EXPECT_THROW(Model::from_json_string(g, "garbage"), vqe::Error) << g.substr(0, 80);
  }
}

TEST(Model, TruncatedAndCorruptedModelsThrowVqeError) {
  VQE_REQUIRE_SHARED(shared);
  const fs::path json_path = shared / "models" / "vmaf_v1.0.16_3d0h.json";
  const std::string json = read_text(json_path);
  // (A partial copy of ../shared without models/ must fail here, not divide
  // by an empty string's size below.)
  ASSERT_FALSE(json.empty()) << json_path << " is missing or empty";
  const std::string vqem = std::string(
      [] {
        for (const auto& e : vqe::model_detail::builtin_model_texts())
          if (std::string(e.version) == "vmaf_v1.0.16_3d0h") return e.text;
        return std::string_view();
      }());
  ASSERT_FALSE(vqem.empty());
  auto from_json = [](const std::string& t) { Model::from_json_string(t, "fuzz"); };
  auto from_vqem = [](const std::string& t) { Model::from_vqem_string(t, "fuzz"); };
  for (std::size_t cut = 0; cut < json.size(); cut += 97) {
    EXPECT_THROW(Model::from_json_string(json.substr(0, cut), "cut"), vqe::Error);
  }
  for (std::size_t cut = 0; cut < vqem.size(); cut += 89) expect_error_or_model(from_vqem, vqem.substr(0, cut));
  std::mt19937_64 rng(7);
  const char alphabet[] = "{}[]\":,.-+e0123456789 \nSVnulltrue\xff";
  for (int t = 0; t < 300; ++t) {
    std::string a = json, b = vqem;
    for (int k = 0; k < 4; ++k) {
      a[rng() % a.size()] = alphabet[rng() % (sizeof alphabet - 1)];
      b[rng() % b.size()] = alphabet[rng() % (sizeof alphabet - 1)];
    }
    expect_error_or_model(from_json, a);
    expect_error_or_model(from_vqem, b);
  }
}

}  // namespace
