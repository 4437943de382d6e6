// OpenCV 4.6's 8-bit RGB <-> HLS (cv::cvtColor COLOR_RGB2HLS / COLOR_HLS2RGB on CV_8UC3, its AVX2
// build), for stages that work in HLS on 8-bit values. Each value becomes q * (1 / 255.f) (H as it is
// on the way back), the float conversion runs, and the results are rounded half to even and
// saturated (H in [0, 180], L and S times 255). The forward conversion has two forms: the vector
// path, which OpenCV takes for the first W - W % 8 pixels of a row, and the scalar path of the last
// W % 8 (whose hue products are fused into the sums by the compiler). The two differ on a few
// thousand of the 2^24 colours, so a caller says which one a pixel takes. The way back is the same
// on both paths for every 8-bit input.
#pragma once

#include <cfloat>
#include <cstdint>

#include "kernels/core/common.hpp"

namespace aug::k {

// Columns [0, hls8_vector_end(W)) of a row take OpenCV's vector path.
AUG_HD int hls8_vector_end(int width) { return width - width % 8; }

// An exactly rounded a * b + c (the same on every backend).
AUG_HD float hls8_fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

// rne, saturated to [0, 255] (v is never NaN here).
AUG_HD int hls8_sat(float v) {
  float r = rne_float(v);
  r = r < 0.f ? 0.f : r;
  r = r > 255.f ? 255.f : r;
  return static_cast<int>(r);
}

// 8-bit R, G, B to 8-bit H (0..180), L, S.
AUG_HD void hls8_from_rgb(int R, int G, int B, bool vector_path, int& H, int& L, int& S) {
  const float r = static_cast<float>(R) * (1.f / 255.f), g = static_cast<float>(G) * (1.f / 255.f),
              b = static_cast<float>(B) * (1.f / 255.f);
  float h = 0.f, l, s = 0.f;
  if (vector_path) {
    const float rg = r < g ? g : r, mx = rg < b ? b : rg;
    const float ng = r > g ? g : r, mn = ng > b ? b : ng;
    const float diff = mx - mn, sum = mx + mn;
    l = sum * 0.5f;
    s = diff / (l < 0.5f ? sum : 2.0f - sum);
    const bool r_max = mx == r, g_max = mx == g;
    const float raw = r_max ? g - b : (g_max ? b - r : r - g);
    const float base = r_max ? (g < b ? 360.0f : 0.0f) : (g_max ? 120.0f : 240.0f);
    h = hls8_fma(raw, 60.0f / diff, base);
    if (!(diff > FLT_EPSILON)) h = 0.0f, s = 0.0f;
  } else {
    float mx = r, mn = r;
    if (mx < g) mx = g;
    if (mx < b) mx = b;
    if (mn > g) mn = g;
    if (mn > b) mn = b;
    float diff = mx - mn;
    l = (mx + mn) * 0.5f;
    if (diff > FLT_EPSILON) {
      s = l < 0.5f ? diff / (mx + mn) : diff / (2 - mx - mn);
      diff = 60.f / diff;
      if (mx == r) h = (g - b) * diff;
      else if (mx == g) h = hls8_fma(b - r, diff, 120.f);
      else h = hls8_fma(r - g, diff, 240.f);
      if (h < 0.f) h += 360.f;
    }
  }
  H = hls8_sat(h * 0.5f);
  L = hls8_sat(l * 255.f);
  S = hls8_sat(s * 255.f);
}

// 8-bit H (0..180), L, S to 8-bit R, G, B.
AUG_HD void rgb_from_hls8(int H, int L, int S, int& R, int& G, int& B) {
  const float h = static_cast<float>(H), l = static_cast<float>(L) * (1.f / 255.f),
              s = static_cast<float>(S) * (1.f / 255.f);
  const float ls = l * s;
  const float e0 = l <= 0.5f ? ls : s - ls;
  const float raw = h * (6.0f / 180.0f);
  const float whole = static_cast<float>(static_cast<int>(raw));  // raw >= 0: truncation
  const float frac = raw - whole;
  const float sector = whole - 6.0f * static_cast<float>(static_cast<int>(raw * (1.0f / 6.0f)));
  const float e1 = frac + frac;
  const float t0 = l + e0, t1 = l - e0;
  const float t2 = t0 - e0 * e1, t3 = t1 + e0 * e1;
  const float b = sector < 2.0f ? t1 : (sector <= 2.0f ? t3 : (sector <= 4.0f ? t0 : t2));
  const float g = sector < 1.0f ? t3 : (sector <= 2.0f ? t0 : (sector < 4.0f ? t2 : t1));
  const float r = sector < 1.0f ? t0 : (sector < 2.0f ? t2 : (sector < 4.0f ? t1 : (sector <= 4.0f ? t3 : t0)));
  R = hls8_sat(r * 255.f);
  G = hls8_sat(g * 255.f);
  B = hls8_sat(b * 255.f);
}

}  // namespace aug::k
