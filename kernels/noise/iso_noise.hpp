// iso_noise: camera sensor noise through HLS (Albumentations 2.x's ISONoise), 8-bit RGB(A).
//   1. counts[vmax 256 + vmin]: the histogram of each pixel's largest and smallest colour value
//      (order-free integer counts: atomics on a GPU, a loop on the host)
//   2. one thread: the population standard deviation sigma of L = (x(vmax) + x(vmin)) * 0.5f over
//      the image from the counts (double, bins in order), lambda = sigma * intensity, and the
//      Poisson CDF of lambda at 0..kIsoCounts-1 times 2^32, rounded and capped at 2^32 - 1
//      (exp(-lambda) as 1 / sum_j lambda^j / j!, 31 terms: no libm)
//   3. per pixel, words of Philox block (pixel index, sub-stream 1): word 0 the luminance count
//      k = #{j : word >= T[j]}, word 1 the hue noise z = standard_normal (normal.hpp);
//      x = unit[v] (v / 255 rounded to binary32), (h, l, s) = rgb_to_hls(x) (OpenCV's float
//      RGB2HLS, vector path), h += hue_sigma z, l = clamp01(l + (k intensity) (1 - l)),
//      rgb = hls_to_rgb(h, l, s) (OpenCV's float HLS2RGB, vector path), out = rne(clamp01(c) 255)
// Alpha is copied. Every operation is binary32 in the order written; the two fused multiply-adds
// of each conversion are FMAs (exactly rounded) on every backend.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"
#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"

namespace aug::k {

inline constexpr int kIsoCounts = 32;

struct IsoArgs {
  AUG_FIELDS(IsoArgs, stream, unit, normal, hue_sigma, intensity, lambda_scale, color_channels)
  KeyedStream stream;
  const float* unit = nullptr;    // 256: (float)(v / 255.0) (ctx.table)
  const float* normal = nullptr;  // kNormalTableSize entries (ctx.table)
  float hue_sigma = 0;            // (float)(color_shift * intensity), degrees
  float intensity = 0;            // (float)intensity
  double lambda_scale = 0;        // intensity in double: lambda = sigma * intensity
  int color_channels = 3;
};

// Scratch: the counts (65536 unsigned), then the thresholds (kIsoCounts), then sigma (a double).
std::size_t iso_noise_scratch_bytes();

void iso_noise(View<const std::uint8_t> in, View<std::uint8_t> out, const IsoArgs& args, Scratch& scratch,
               const Exec& exec);

namespace cpu {  // the host driver (the CPU backend)
void iso_noise(View<const std::uint8_t> in, View<std::uint8_t> out, const IsoArgs& args, Scratch& scratch);
}  // namespace cpu

AUG_HD float iso_fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return __builtin_fmaf(a, b, c);
#endif
}

AUG_HD float iso_trunc(float v) {
#if defined(__CUDA_ARCH__)
  return truncf(v);
#else
  return __builtin_truncf(v);
#endif
}

// OpenCV 4.6's RGB2HLS for float images (H in degrees, L and S in [0, 1]), its vector path.
AUG_HD void rgb_to_hls(float r, float g, float b, float& h, float& l, float& s) {
  const float rg = r < g ? g : r, mx = rg < b ? b : rg;
  const float ng = r > g ? g : r, mn = ng > b ? b : ng;
  const float diff = mx - mn, sum = mx + mn;
  l = sum * 0.5f;
  s = diff / (l < 0.5f ? sum : 2.0f - sum);
  const bool r_max = mx == r, g_max = mx == g;
  const float raw = r_max ? g - b : (g_max ? b - r : r - g);
  const float base = r_max ? (g < b ? 360.0f : 0.0f) : (g_max ? 120.0f : 240.0f);
  h = iso_fma(raw, 60.0f / diff, base);
  if (!(diff > FLT_EPSILON)) h = 0.0f, s = 0.0f;
}

// OpenCV 4.6's HLS2RGB for float images, its vector path (any hue: the sector comes from the
// truncated hue, no wrapping loop).
AUG_HD void hls_to_rgb(float h, float l, float s, float& r, float& g, float& b) {
  const float ls = l * s;
  const float e0 = l <= 0.5f ? ls : s - ls;
  const float raw = h * (6.0f / 360.0f);
  const float whole = iso_trunc(raw);
  const float frac = raw - whole;
  const float sector = whole - 6.0f * iso_trunc(raw * (1.0f / 6.0f));
  const float e1 = frac + frac;
  const float t0 = l + e0, t1 = l - e0;
  const float t2 = iso_fma(-e0, e1, t0), t3 = iso_fma(e0, e1, t1);
  b = sector < 2.0f ? t1 : (sector <= 2.0f ? t3 : (sector <= 4.0f ? t0 : t2));
  g = sector < 1.0f ? t3 : (sector <= 2.0f ? t0 : (sector < 4.0f ? t2 : t1));
  r = sector < 1.0f ? t0 : (sector < 2.0f ? t2 : (sector < 4.0f ? t1 : (sector <= 4.0f ? t3 : t0)));
}

// Step 2: sigma of L from the counts, then the thresholds.
AUG_HD void iso_thresholds(const unsigned* counts, const float* unit, double total, double lambda_scale,
                           std::uint32_t* thresholds, double* sigma_out) {
  double sum = 0, squares = 0;
  for (int hi = 0; hi < 256; ++hi)
    for (int lo = 0; lo <= hi; ++lo) {
      const unsigned c = counts[hi * 256 + lo];
      if (c == 0) continue;
      const double L = static_cast<double>((unit[hi] + unit[lo]) * 0.5f);
      sum = sum + static_cast<double>(c) * L;
      squares = squares + static_cast<double>(c) * (L * L);
    }
  const double mean = sum / total, var = squares / total - mean * mean;
  const double sigma = sqrt(var > 0 ? var : 0.0);
  *sigma_out = sigma;
  const double lambda = sigma * lambda_scale;
  double term = 1, series = 1;
  for (int j = 1; j <= 30; ++j) {
    term = term * lambda / j;
    series = series + term;
  }
  double p = 1 / series, cdf = 0;
  for (int j = 0; j < kIsoCounts; ++j) {
    cdf = cdf + p;
    const double t = cdf * 4294967296.0;
    thresholds[j] = t >= 4294967295.0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(rne(t));
    p = p * lambda / (j + 1);
  }
}

// Step 3 for one pixel: rgb in, rgb out (8-bit values).
AUG_HD void iso_pixel(const std::uint8_t* s, std::uint8_t* d, std::uint32_t w_lum, std::uint32_t w_hue,
                      const std::uint32_t* thresholds, const IsoArgs& a) {
  float h, l, sat;
  rgb_to_hls(a.unit[s[0]], a.unit[s[1]], a.unit[s[2]], h, l, sat);
  h = h + a.hue_sigma * standard_normal(w_hue, a.normal);
  int k = 0;
  for (int j = 0; j < kIsoCounts; ++j) k += w_lum >= thresholds[j] ? 1 : 0;
  const float t = static_cast<float>(k) * a.intensity;
  l = clamp01(l + t * (1.0f - l));
  float r, g, b;
  hls_to_rgb(h, l, sat, r, g, b);
  d[0] = saturate<std::uint8_t>(rne(clamp01(r) * 255.0f));
  d[1] = saturate<std::uint8_t>(rne(clamp01(g) * 255.0f));
  d[2] = saturate<std::uint8_t>(rne(clamp01(b) * 255.0f));
}

}  // namespace aug::k
