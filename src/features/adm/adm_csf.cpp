// SPDX-License-Identifier: BSD-2-Clause
// CSF weights of the integer ADM (see adm_csf.h). Every expression keeps
// libvmaf's mix of float and double so the weights are the same floats.

#include "features/adm/adm_csf.h"

#include <math.h>  // the C double functions exp, pow, log10, as libvmaf calls them

#include <cerrno>
#include <cstdint>

namespace vqe::adm {
namespace {

constexpr double kPi = 3.14159265358979323846264338327;  // libvmaf's M_PI fallback value

// --- Watson et al. 1997, "Visibility of wavelet quantization noise" ---------
// Luma row of Table IV (threshold model a, k, f0 and orientation gains g for
// LL, LH, HH, HL) and the basis-function amplitudes of Table V, indexed
// [level][orientation]; pure numbers as libvmaf stores them (float).
constexpr float kWatsonA = 0.495f;
constexpr float kWatsonK = 0.466f;
constexpr float kWatsonF0 = 0.401f;
constexpr float kWatsonG[4] = {1.501f, 1.0f, 0.534f, 1.0f};
constexpr float kWatsonAmplitude[6][4] = {
    {0.62171f, 0.67234f, 0.72709f, 0.67234f},
    {0.34537f, 0.41317f, 0.49428f, 0.41317f},
    {0.18004f, 0.22727f, 0.28688f, 0.22727f},
    {0.091401f, 0.11792f, 0.15214f, 0.11792f},
    {0.045943f, 0.059758f, 0.077727f, 0.059758f},
    {0.023013f, 0.030018f, 0.039156f, 0.030018f},
};

/// Display visual resolution r in pixels per degree, as a float.
float display_resolution(double norm_view_dist, int ref_display_height) {
  return static_cast<float>(norm_view_dist * ref_display_height * kPi / 180.0);
}

/// Quantisation step Q of level `lambda` and orientation `theta`
/// (1 = h/v, 2 = diagonal); libvmaf's dwt_quant_step.
float watson_quant_step(int lambda, int theta, double norm_view_dist, int ref_display_height) {
  const float r = display_resolution(norm_view_dist, ref_display_height);
  const float temp = static_cast<float>(
      log10(pow(2.0, lambda + 1) * static_cast<double>(kWatsonF0) *
            static_cast<double>(kWatsonG[theta]) / static_cast<double>(r)));
  const float exponent = kWatsonK * temp * temp;  // float products
  return static_cast<float>(2.0 * static_cast<double>(kWatsonA) *
                            pow(10.0, static_cast<double>(exponent)) /
                            static_cast<double>(kWatsonAmplitude[lambda][theta]));
}

// --- Barten's CSF as in HDR-VDP-2.2.1 ----------------------------------------
constexpr float kBartenLumAnchors[6] = {0.002f, 0.02f, 0.2f, 2.0f, 20.0f, 150.0f};
constexpr float kBartenParams[6][5] = {
    {0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f},
    {0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f},
    {0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f},
    {1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f},
    {1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f},
    {1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f},
};
constexpr float kBartenSa[4] = {30.162f, 4.0627f, 1.6596f, 0.2712f};
constexpr float kBartenMtfA[4] = {0.424838596301290f, 0.572435103936480f,
                                  0.000167576239164937f, 0.00255872352306433f};
constexpr float kBartenMtfB[4] = {0.028f, 0.37f, 37.0f, 360.0f};
constexpr double kBartenLuminance = 100.0;  // cd/m², libvmaf's DEFAULT_ADM_CSF_LUM

float lerp_float(float left_pos, float left_val, float right_pos, float right_val, float pos) {
  return left_val + ((right_val - left_val) / (right_pos - left_pos)) * (pos - left_pos);
}

float barten_rod_cone_sensitivity(float luminance) {
  const float drop = kBartenSa[1];
  const float slope = kBartenSa[2];
  const float low_slope = kBartenSa[3];
  return static_cast<float>(
      static_cast<double>(kBartenSa[0]) *
      pow(pow(static_cast<double>(drop / luminance), static_cast<double>(slope)) + 1,
          -static_cast<double>(low_slope)));
}

float barten_mtf(float frequency) {
  float mtf = 0.0f;
  for (int i = 0; i < 4; ++i) {
    const float exponent = -kBartenMtfB[i] * frequency;
    mtf = static_cast<float>(static_cast<double>(mtf) +
                             static_cast<double>(kBartenMtfA[i]) *
                                 exp(static_cast<double>(exponent)));
  }
  return mtf;
}

float barten_csf(int lambda, double norm_view_dist, int ref_display_height, double luminance,
                 double scale) {
  const float r = display_resolution(norm_view_dist, ref_display_height);
  const float frequency = static_cast<float>(static_cast<double>(r) / pow(2, lambda + 1));

  // Clamp to the measured luminance range (double, as libvmaf's CLAMP of a
  // double against float anchors).
  double lum = luminance;
  if (lum > kBartenLumAnchors[5]) lum = kBartenLumAnchors[5];
  else if (lum < kBartenLumAnchors[0]) lum = kBartenLumAnchors[0];
  int left = 0, right = 0;
  for (int i = 0; i < 5; ++i) {
    if (lum >= kBartenLumAnchors[i] && lum <= kBartenLumAnchors[i + 1]) {
      left = i;
      right = i + 1;
      break;
    }
  }
  const float left_pos = static_cast<float>(log10(static_cast<double>(kBartenLumAnchors[left])));
  const float right_pos =
      static_cast<float>(log10(static_cast<double>(kBartenLumAnchors[right])));
  const float pos = static_cast<float>(log10(lum));
  float p[4];
  for (int k = 0; k < 4; ++k)
    p[k] = lerp_float(left_pos, kBartenParams[left][k + 1], right_pos,
                      kBartenParams[right][k + 1], pos);

  const float a = static_cast<float>(
      1.0f + pow(static_cast<double>(p[0] * frequency), static_cast<double>(p[1])));
  const float f7 = frequency / 7;
  const float b = static_cast<float>(
      1.0f / pow(1 - exp(-pow(static_cast<double>(f7), 2)), static_cast<double>(p[2])));
  const float csf = static_cast<float>(static_cast<double>(p[3]) /
                                       pow(static_cast<double>(a * b), 0.5));
  const float product = csf * barten_mtf(frequency) *
                        barten_rod_cone_sensitivity(static_cast<float>(luminance));
  return static_cast<float>(static_cast<double>(product) * scale);
}

// --- Barten/Watson blend tables, [orientation: 0 h/v, 1 diagonal][scale] ----
using BlendTable = float[2][4];
constexpr BlendTable kBlend1080x3 = {{0.01183f, 0.025026f, 0.04295f, 0.058621f},
                                     {0.004302f, 0.011778f, 0.023918f, 0.035901f}};
constexpr BlendTable kBlend1080x5 = {{0.004212f, 0.014809f, 0.029642f, 0.047464f},
                                     {0.000984f, 0.005852f, 0.0146f, 0.027574f}};
constexpr BlendTable kBlend2160x3 = {{0.00226f, 0.01183f, 0.025026f, 0.04295f},
                                     {0.000479f, 0.004302f, 0.011778f, 0.023918f}};
constexpr BlendTable kBlend2160x5 = {{0.000092f, 0.004212f, 0.014809f, 0.029642f},
                                     {0.000050f, 0.000984f, 0.005852f, 0.0146f}};
constexpr BlendTable kBlend720x3 = {{0.018715f, 0.035637f, 0.052798f, 0.061509f},
                                    {0.007999f, 0.018396f, 0.031851f, 0.037718f}};
constexpr BlendTable kBlend720x5 = {{0.010144f, 0.022561f, 0.040309f, 0.05672f},
                                    {0.003463f, 0.010282f, 0.021839f, 0.034641f}};
constexpr BlendTable kBlend480x3 = {{0.027961f, 0.045875f, 0.060275f, 0.056234f},
                                    {0.013572f, 0.026277f, 0.036959f, 0.034511f}};
constexpr BlendTable kBlend480x5 = {{0.016781f, 0.032822f, 0.05032f, 0.061594f},
                                    {0.00691f, 0.016545f, 0.029917f, 0.037777f}};

constexpr BlendTable kBlendMae1080x3 = {{0.011249f, 0.022606f, 0.035930f, 0.045673f},
                                        {0.004097f, 0.010921f, 0.021430f, 0.031313f}};
constexpr BlendTable kBlendMae1080x5 = {{0.004052f, 0.013939f, 0.026298f, 0.038833f},
                                        {0.000927f, 0.005544f, 0.013415f, 0.024515f}};
constexpr BlendTable kBlendMae2160x3 = {{0.002166f, 0.011249f, 0.022606f, 0.035930f},
                                        {0.000447f, 0.004097f, 0.010921f, 0.021430f}};
constexpr BlendTable kBlendMae2160x5 = {{0.000077f, 0.004052f, 0.013939f, 0.026298f},
                                        {0.000045f, 0.000927f, 0.005544f, 0.013415f}};
constexpr BlendTable kBlendMae720x3 = {{0.017329f, 0.030870f, 0.042134f, 0.047410f},
                                       {0.007509f, 0.016707f, 0.028072f, 0.032722f}};
constexpr BlendTable kBlendMae720x5 = {{0.009689f, 0.020577f, 0.034162f, 0.044523f},
                                       {0.003302f, 0.009579f, 0.019661f, 0.030318f}};
constexpr BlendTable kBlendMae480x3 = {{0.024969f, 0.037825f, 0.046676f, 0.043974f},
                                       {0.012511f, 0.023424f, 0.032139f, 0.030166f}};
constexpr BlendTable kBlendMae480x5 = {{0.015665f, 0.028766f, 0.040612f, 0.047483f},
                                       {0.006514f, 0.015107f, 0.026476f, 0.032776f}};

/// The blend table for a viewing condition, or nullptr. 2160 lines at 1.5
/// heights has the pixels per degree of 1080 at 3 and shares its table.
const BlendTable* blend_table(const CsfParams& p) {
  const bool mae = p.mode == CsfMode::kBartenWatsonBlendMae;
  const int h = p.ref_display_height;
  const double d = p.norm_view_dist;
  if (h == 1080 && d == 3.0) return mae ? &kBlendMae1080x3 : &kBlend1080x3;
  if (h == 1080 && d == 5.0) return mae ? &kBlendMae1080x5 : &kBlend1080x5;
  if (h == 2160 && d == 1.5) return mae ? &kBlendMae1080x3 : &kBlend1080x3;
  if (h == 2160 && d == 3.0) return mae ? &kBlendMae2160x3 : &kBlend2160x3;
  if (h == 2160 && d == 5.0) return mae ? &kBlendMae2160x5 : &kBlend2160x5;
  if (h == 720 && d == 3.0) return mae ? &kBlendMae720x3 : &kBlend720x3;
  if (h == 720 && d == 5.0) return mae ? &kBlendMae720x5 : &kBlend720x5;
  if (h == 480 && d == 3.0) return mae ? &kBlendMae480x3 : &kBlend480x3;
  if (h == 480 && d == 5.0) return mae ? &kBlendMae480x5 : &kBlend480x5;
  return nullptr;
}

}  // namespace

bool blend_table_available(const CsfParams& p) {
  if (p.mode != CsfMode::kBartenWatsonBlend && p.mode != CsfMode::kBartenWatsonBlendMae)
    return true;
  return blend_table(p) != nullptr;
}

float csf_weight(const CsfParams& p, int scale, bool diagonal) {
  switch (p.mode) {
    case CsfMode::kBarten:
      return barten_csf(scale, p.norm_view_dist, p.ref_display_height, kBartenLuminance,
                        diagonal ? p.csf_diag_scale : p.csf_scale);
    case CsfMode::kBartenWatsonBlend:
    case CsfMode::kBartenWatsonBlendMae: {
      const BlendTable* t = blend_table(p);
      return t ? (*t)[diagonal ? 1 : 0][scale] : static_cast<float>(-EINVAL);
    }
    case CsfMode::kWatson97:
    default:
      return 1.0f / watson_quant_step(scale, diagonal ? 2 : 1, p.norm_view_dist,
                                      p.ref_display_height);
  }
}

std::uint16_t x86_double_to_u16(double v) {
  if (!(v > -2147483649.0 && v < 2147483648.0)) return 0;  // cvttsd2si's 0x80000000
  return static_cast<std::uint16_t>(static_cast<std::uint32_t>(static_cast<std::int32_t>(v)));
}

std::uint32_t x86_double_to_u32(double v) {
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return 0;  // 2^63 bounds
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
}

}  // namespace vqe::adm
