// spatter: Albumentations' Spatter (docs/stages/weather.md#spatter).
#include "kernels/weather/spatter.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/normal.hpp"
#include "kernels/noise/normal_host.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace spatter_impl {
namespace {

const Param<NumberParam> kMean{{.name = "mean",
                                .doc = "mean of the normal field the liquid layer starts from; [lo, hi] draws one "
                                       "per image",
                                .default_value = 0.65,
                                .random = true}};
const Param<NumberParam> kStd{{.name = "std",
                               .doc = "standard deviation of that field; [lo, hi] draws one per image",
                               .default_value = 0.3,
                               .random = true,
                               .min = Bound{0}}};
const Param<NumberParam> kSigma{{.name = "gauss_sigma",
                                 .doc = "sigma of the Gaussian blur of the field; [lo, hi] draws one per image",
                                 .default_value = 2.0,
                                 .random = true,
                                 .min = Bound{0, true},
                                 .max = Bound{50}}};
const Param<NumberParam> kThreshold{{.name = "cutout_threshold",
                                     .doc = "blurred field values below it are cut to 0; [lo, hi] draws one per image",
                                     .default_value = 0.68,
                                     .random = true}};
const Param<NumberParam> kIntensity{{.name = "intensity",
                                     .doc = "strength of the drops or mud; [lo, hi] draws one per image",
                                     .default_value = 0.6,
                                     .random = true,
                                     .min = Bound{0},
                                     .max = Bound{1}}};
enum class Mode { Rain, Mud };
const Words<Mode> kModes{{{Mode::Rain, "rain"}, {Mode::Mud, "mud"}}};
const Choice<Mode> kMode{kModes,
                         {},
                         Mode::Rain,
                         {.name = "mode",
                          .doc = "rain (bright drops added) or mud (dark patches blended in); a list "
                                 "draws one per image",
                          .random = true}};
const Param<std::vector<std::int64_t>> kColor{
    {.name = "color",
     .doc = "[r, g, b] of the liquid (one value: the same for all three); absent: "
            "(238, 238, 175) for rain, (20, 42, 63) for mud",
     .optional = true,
     .min = Bound{0},
     .max = Bound{255}}};

const StageSpec& spatter_spec() {
  static const StageSpec spec{
      .name = "spatter",
      .family = "weather",
      .summary = "Rain drops or mud spattered over the lens (Albumentations Spatter).",
      .notes = {"As Albumentations 2.x's Spatter, with the stage's draws: a normal field blurred with "
                "cv::GaussianBlur and cut below cutout_threshold; rain turns its edges (Canny, distance transform, "
                "blurs, histogram equalisation, an emboss-like filter) into drops added to the image, mud blurs "
                "the cut mask into patches blended over it. The layer is built on the host in float32 with OpenCV "
                "(Canny and the distance transform restated, with the same results); every backend applies it. RGB images only, as in Albumentations. Labels are not moved. "
                "Albumentations' default p is 0.5, this stage's too."},
      .params = {kMean, kStd, kSigma, kThreshold, kIntensity, kMode, kColor},
      .channels = {3},
      .default_p = 0.5,
      .tolerance = {.reason = "the layer is built once on the host; every backend applies it with the same binary32 "
                              "and double operations"},
      .example = {{"stage", "spatter"}, {"mode", "mud"}, {"intensity", {0.4, 0.8}}},
      .cases = {R"({})", R"({"mode": "mud"})",
                R"({"mode": ["rain", "mud"], "mean": [0.6, 0.7], "std": [0.2, 0.4], "gauss_sigma": [1, 3], )"
                R"("cutout_threshold": [0.6, 0.7], "intensity": [0.3, 0.9], "color": [0, 120, 255]})"},
      .identity = R"({"intensity": 0})",
      .bench = {R"({})", R"({"mode": "mud"})"},
      .arithmetic = R"md(
Albumentations 2.x's **Spatter** (its defaults: `mean` 0.65, `std` 0.3, `gauss_sigma` 2,
`cutout_threshold` 0.68, `intensity` 0.6, each a value or a range; `mode` 'rain'; `color` (238, 238,
175) for rain, (20, 42, 63) for mud; `p` 0.5), with the stage's draws in Albumentations' order.

- **Draws**: `mean`, `std`, `cutout_threshold`, `gauss_sigma`, the mode (when a list), `intensity`,
  each uniform in its range. Then the field `L = mean + std * z` per pixel (double, stored as float32),
  `z` the standard normal of word `i % 4` of Philox block `i / 4` of sub-stream 1 (`i` the pixel's
  index, row by row; kernels/noise/normal.hpp's table). The manifest records the drawn numbers, the
  fraction of pixels the cut keeps (`wet`) and the layer's maximum.
- **Layer** (host, float32, OpenCV): `cv::GaussianBlur(L, (k, k), sigma, sigma, REPLICATE)` with
  `k = 2 * round(3 sigma) + 1` (half to even); values below `cutout_threshold` set to 0.
  - **rain**: `L8 = trunc(clip(L * 255, 0, 255))` (8-bit); `dist = 255 - cv::Canny(L8, 50, 150)`;
    `cv::distanceTransform(dist, DIST_L2, 5)`; `cv::threshold(20, TRUNC)`; `cv::GaussianBlur(3x3,
    sigma 1, REPLICATE)`; truncated to 8 bits (clipped); `cv::equalizeHist`; `cv::filter2D` with
    `[[-2, -1, 0], [-1, 1, 1], [0, 1, 2]]` (8-bit, REFLECT_101); `cv::GaussianBlur(5x5, sigma 1.5,
    REPLICATE)` (8-bit); `m = float(L8) * dist` (binary32), then `m *= 1 / max(m)` (binary32) when the
    maximum is positive. The layer is `m`, the scale `intensity * 0.9`. `cv::Canny` and
    `cv::distanceTransform` are computed by the stage's own code (OpenCV's 8-bit Canny: 3x3 Sobel
    with replicated border, L1 magnitude, non-maximum suppression with tan 22.5 deg as 13573 / 2^15,
    hysteresis by 8-connectivity; the distance: OpenCV's 5x5 chamfer, weights 1, 1.4 and 2.1969 in
    16.16 fixed point), equal to those calls value for value (the reference test runs them).
  - **mud**: `mask = L > cutout_threshold` (1 or 0, float32); when no pixel passes, 10% of the pixels
    (`max(1, int(0.1 * H * W))`, distinct, drawn by a partial Fisher-Yates shuffle from sub-stream 2)
    are set instead; `cv::GaussianBlur(mask, (0, 0), sigma, sigma, REPLICATE)`; divided by its maximum
    (binary32) when positive, else `mask[0, 0] = 1`; times `intensity` (binary32). The layer is `mask`.
- **Apply** (every backend, Albumentations' `float32_io`): `x = v / max` in binary32 (float samples
  as they are), per colour channel `c` with `color_c = color[c] / 255` in double:
  rain `y = x + (float)(m * color_c * scale)`; mud `y = (float)(x * keep_c) + mud_c` with
  `mud_c = (float)(mask * color_c)`, `keep_c = (float)clip((color_c - mud_c) / color_c, 0, 1)` (double),
  or `(float)(1 - mask)` when `color_c` is 0; then `y` clamped to [0, 1] and written back as
  `RNE(y * max)` (8/16-bit) or `y` (float).
- Albumentations 1.x blurred the field with scipy's `gaussian_filter` (mode 'nearest', truncated at
  4 sigma), box-blurred the rain's distance map and did not normalise the mud by its maximum; the
  importer maps 1.x's parameters (a mode list, a colour per mode) onto the 2.x computation, so 1.x's
  scipy filter is approximated by the OpenCV blur above.
)md",
      .imports = {{.name = "Spatter",
                   .how = "mean, std, gauss_sigma, cutout_threshold, intensity (a value or a range; also their "
                          "*_range names), mode (1.x: a list to draw from), color (1.x: a colour per mode)",
                   .convert =
                       [](const TransformReader& t) {
                         ojson s{{"stage", "spatter"}};
                         const ojson& saved = t.saved();
                         bool one = false;
                         for (const char* name : {"mean", "std", "gauss_sigma", "cutout_threshold", "intensity"}) {
                           const std::string range = std::string(name) + "_range";
                           const char* key = t.has(name) ? name : (t.has(range.c_str()) ? range.c_str() : nullptr);
                           if (key == nullptr) continue;
                           const ojson& v = saved.at(key);
                           s[name] = v;
                           if (v.is_array() && v.size() == 2 && v[0] == v[1]) s[name] = v[0];
                         }
                         std::vector<std::string> modes;
                         if (t.has("mode")) {
                           const ojson& m = saved.at("mode");
                           if (m.is_array()) {
                             for (const auto& w : m) modes.push_back(w.get<std::string>());
                             s["mode"] = modes.size() == 1 ? ojson(modes[0]) : m;
                             one = true;
                           } else {
                             modes.push_back(m.get<std::string>());
                             s["mode"] = m;
                           }
                         }
                         if (t.has("color")) {
                           const ojson& c = saved.at("color");
                           if (c.is_object()) {  // 1.x: a colour per mode
                             const std::string mode = modes.empty() ? "rain" : modes[0];
                             if (modes.size() <= 1 && c.contains(mode))
                               s["color"] = c.at(mode);
                             else if (modes.size() > 1 && !(c.size() == 2 && c.contains("rain") && c.contains("mud") &&
                                                            c.at("rain") == ojson{238, 238, 175} &&
                                                            c.at("mud") == ojson{20, 42, 63}))
                               t.note("Spatter (1.x): a colour per mode is not available; the modes' defaults are used");
                           } else {
                             s["color"] = c;
                           }
                         }
                         if (one || t.has("always_apply"))
                           t.note("Spatter (1.x): scipy's gaussian_filter is approximated by cv::GaussianBlur (2.x)");
                         return s;
                       },
                   .python = {
                       {"Spatter",
                        "mean std gauss_sigma cutout_threshold intensity mode color always_apply p",
                        "mean std gauss_sigma cutout_threshold intensity mode color p",
                        0.5}}}},
      .counterpart = {.none = "OpenCV has no spatter call (Albumentations builds the layer with cv::GaussianBlur, "
                              "cv::Canny, cv::distanceTransform, cv::equalizeHist and cv::filter2D, then adds or "
                              "blends it)"},
  };
  return spec;
}

// The field L[i] = (float)(mean + std * (double)z_i), z_i the standard normal of word i % 4 of Philox
// block i / 4 of sub-stream 1: the blocks drawn across pixels (kernels/core/host_simd.hpp), the
// normals eight at a time where the machine has AVX2 (kernels/noise/normal_host.hpp), then the same
// double product and sum.
#if defined(AUG_AVX2_PHILOX)
// Eight values L from eight words.
[[gnu::target("avx2"), gnu::always_inline]] inline __m256 spatter_normal8(__m256i bits, const float* table, __m256d m,
                                                                         __m256d s) {
  const __m256 z = k::cpu::standard_normal8(bits, table);
  const __m256d lo = _mm256_add_pd(m, _mm256_mul_pd(s, _mm256_cvtps_pd(_mm256_castps256_ps128(z))));
  const __m256d hi = _mm256_add_pd(m, _mm256_mul_pd(s, _mm256_cvtps_pd(_mm256_extractf128_ps(z, 1))));
  return _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
}

// The values of nb blocks (words 0 to 3 in w0 .. w3) in pixel order, 4 nb of them at out.
[[gnu::target("avx2")]] void spatter_normals_avx2(const std::uint32_t* w0, const std::uint32_t* w1,
                                                  const std::uint32_t* w2, const std::uint32_t* w3, int nb,
                                                  const float* table, double mean, double sd, float* out) {
  const __m256d m = _mm256_set1_pd(mean), s = _mm256_set1_pd(sd);
  int i = 0;
  for (; i + 8 <= nb; i += 8) {
    __m256i px[4];
    k::cpu::blocks_in_pixel_order(w0, w1, w2, w3, i, px);
    float* o = out + 4 * i;
    for (int q = 0; q < 4; ++q) _mm256_storeu_ps(o + 8 * q, spatter_normal8(px[q], table, m, s));
  }
  for (; i < nb; ++i) {
    const std::uint32_t w[4] = {w0[i], w1[i], w2[i], w3[i]};
    for (int j = 0; j < 4; ++j)
      out[4 * i + j] = static_cast<float>(mean + sd * static_cast<double>(k::standard_normal(w[j], table)));
  }
}
#endif

void spatter_field(float* L, std::size_t n, double mean, double sd, const k::KeyedStream& stream, const float* table) {
  constexpr int kChunk = 2048;  // blocks per step: 8192 values
  std::vector<std::uint32_t> words(4 * kChunk);
  std::vector<float> v(4 * kChunk);
  const std::size_t blocks = (n + 3) / 4;
  for (std::size_t b0 = 0; b0 < blocks; b0 += kChunk) {
    const int nb = static_cast<int>(std::min<std::size_t>(kChunk, blocks - b0));
    std::uint32_t* w = words.data();
    k::cpu::philox_blocks(stream, static_cast<std::uint32_t>(b0), 1, nb, w, w + nb, w + 2 * nb, w + 3 * nb);
    // Pixels 4 b0 .. 4 (b0 + nb) - 1, the last chunk's beyond n left out.
    const std::size_t left = n - 4 * b0;
    float* out = left >= 4 * static_cast<std::size_t>(nb) ? L + 4 * b0 : v.data();
#if defined(AUG_AVX2_PHILOX)
    if (k::cpu::host_has_avx2()) {
      spatter_normals_avx2(w, w + nb, w + 2 * nb, w + 3 * nb, nb, table, mean, sd, out);
    } else
#endif
    {
      for (int b = 0; b < nb; ++b)
        for (int j = 0; j < 4; ++j)
          out[4 * b + j] = static_cast<float>(
              mean + sd * static_cast<double>(k::standard_normal(w[static_cast<std::size_t>(j) * nb + b], table)));
    }
    if (out == v.data()) std::copy_n(v.data(), left, L + 4 * b0);
  }
}

// cv::distanceTransform(src, DIST_L2, 5) (float output) followed by cv::threshold(trunc, trunc,
// THRESH_TRUNC), restated: Borgefors' two-pass 5x5 chamfer in 16.16 fixed point with OpenCV's weights
// for that mask (1, 1.4 and 2.1969, each rounded to a multiple of 2^-16), unsigned 32-bit sums, a
// border of two rows and columns at 0x7fffffff. The forward pass (rows top down, columns left to
// right) takes at each non-zero pixel the least of its upper neighbours' values plus their weights
// and its left neighbour's plus 1; the backward pass (bottom up, right to left) the least of that,
// its lower neighbours' and its right neighbour's. Each pass's minimum over the finished rows is
// taken for a whole row in a loop that vectorises, then the same-row term in a serial scan; min is
// exact, so the order of the terms does not matter. The distance is (float)t * 2^-16.
AUG_CLONES void spatter_upper_terms(const std::uint32_t* __restrict u2, const std::uint32_t* __restrict u1,
                                    const std::uint32_t* __restrict self, std::uint32_t* __restrict pre, int W,
                                    std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  for (int j = 0; j < W; ++j) {
    std::uint32_t t = self[j];
    t = std::min(t, u2[j - 1] + c);
    t = std::min(t, u2[j + 1] + c);
    t = std::min(t, u1[j - 2] + c);
    t = std::min(t, u1[j - 1] + b);
    t = std::min(t, u1[j] + a);
    t = std::min(t, u1[j + 1] + b);
    t = std::min(t, u1[j + 2] + c);
    pre[j] = t;
  }
}

// The chamfer's same-row term: cur[j] = min(pre[j], cur[j -+ 1] + a), left to right (forward) or
// right to left, from `edge` beyond the row. With AVX2 eight at a time by doubling steps (each lane
// takes the lane 1, 2 and 4 places back plus that many a, lanes before the block a sentinel no
// value reaches), then the carry from the previous block plus 1 to 8 a: the same minima, as long as
// no sum wraps (the caller checks that the sums stay below the sentinel).
#if defined(AUG_AVX2_PHILOX)
[[gnu::target("avx2")]] void spatter_scan_avx2(const std::uint32_t* pre, std::uint32_t* cur, int W, std::uint32_t a,
                                               std::uint32_t edge, bool forward) {
  const __m256i sentinel = _mm256_set1_epi32(static_cast<int>(0xffffffffu - 4 * a));
  const __m256i a1 = _mm256_set1_epi32(static_cast<int>(a)), a2 = _mm256_set1_epi32(static_cast<int>(2 * a)),
                a4 = _mm256_set1_epi32(static_cast<int>(4 * a));
  const __m256i up = forward ? _mm256_setr_epi32(static_cast<int>(a), static_cast<int>(2 * a), static_cast<int>(3 * a),
                                                 static_cast<int>(4 * a), static_cast<int>(5 * a), static_cast<int>(6 * a),
                                                 static_cast<int>(7 * a), static_cast<int>(8 * a))
                             : _mm256_setr_epi32(static_cast<int>(8 * a), static_cast<int>(7 * a), static_cast<int>(6 * a),
                                                 static_cast<int>(5 * a), static_cast<int>(4 * a), static_cast<int>(3 * a),
                                                 static_cast<int>(2 * a), static_cast<int>(a));
  // Lane i takes lane i - t (forward) or i + t; lanes outside the block the sentinel.
  const __m256i f1 = _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6), f2 = _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5),
                f4 = _mm256_setr_epi32(0, 0, 0, 0, 0, 1, 2, 3);
  const __m256i b1 = _mm256_setr_epi32(1, 2, 3, 4, 5, 6, 7, 7), b2 = _mm256_setr_epi32(2, 3, 4, 5, 6, 7, 7, 7),
                b4 = _mm256_setr_epi32(4, 5, 6, 7, 7, 7, 7, 7);
  std::uint32_t carry = edge;
  __m256i cv = _mm256_set1_epi32(static_cast<int>(edge));
  const int blocks = W / 8;
  if (forward) {
    int j = 0;
    for (int b = 0; b < blocks; ++b, j += 8) {
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pre + j));
      v = _mm256_min_epu32(v, _mm256_add_epi32(_mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, f1), sentinel, 0x01), a1));
      v = _mm256_min_epu32(v, _mm256_add_epi32(_mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, f2), sentinel, 0x03), a2));
      v = _mm256_min_epu32(v, _mm256_add_epi32(_mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, f4), sentinel, 0x0f), a4));
      v = _mm256_min_epu32(v, _mm256_add_epi32(cv, up));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(cur + j), v);
      cv = _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7));  // the carry kept in a register
    }
    carry = j > 0 ? cur[j - 1] : carry;
    for (; j < W; ++j) carry = cur[j] = std::min(pre[j], carry + a);
  } else {
    int j = W;
    for (int b = 0; b < blocks; ++b) {
      j -= 8;
      __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(pre + j));
      v = _mm256_min_epu32(v, _mm256_add_epi32(_mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, b1), sentinel, 0x80), a1));
      v = _mm256_min_epu32(v, _mm256_add_epi32(_mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, b2), sentinel, 0xc0), a2));
      v = _mm256_min_epu32(v, _mm256_add_epi32(_mm256_blend_epi32(_mm256_permutevar8x32_epi32(v, b4), sentinel, 0xf0), a4));
      v = _mm256_min_epu32(v, _mm256_add_epi32(cv, up));
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(cur + j), v);
      cv = _mm256_permutevar8x32_epi32(v, _mm256_setzero_si256());
    }
    carry = j < W ? cur[j] : carry;
    for (--j; j >= 0; --j) carry = cur[j] = std::min(pre[j], carry + a);
  }
}
#endif

AUG_CLONES void spatter_zeros(const std::uint8_t* __restrict s, int W, std::uint32_t* __restrict pre) {
  for (int j = 0; j < W; ++j) pre[j] = s[j] == 0 ? 0u : pre[j];
}

AUG_CLONES void spatter_distance_row(const std::uint32_t* __restrict t, int W, float scale, float trunc,
                                     float* __restrict o) {
  for (int j = 0; j < W; ++j) {
    const float d = static_cast<float>(t[j]) * scale;
    o[j] = d > trunc ? trunc : d;
  }
}

void spatter_chamfer(const std::uint8_t* src, int W, int H, float* out, float trunc) {
  const auto fix = [](float w) { return static_cast<std::uint32_t>(std::lrint(w * 65536.f)); };
  const std::uint32_t a = fix(1.f), b = fix(1.4f), c = fix(2.1969f);
  constexpr std::uint32_t kFar = 0x7fffffffu;
  const std::size_t P = static_cast<std::size_t>(W) + 4;
  thread_local std::vector<std::uint32_t> t;  // kept from image to image: no fresh pages to fault in
  t.assign((static_cast<std::size_t>(H) + 4) * P, kFar);
  std::vector<std::uint32_t> pre(static_cast<std::size_t>(W));
  std::vector<std::uint32_t> none(static_cast<std::size_t>(W), 0xffffffffu);  // the forward pass has no own term
  const auto row = [&](int i) { return t.data() + (static_cast<std::size_t>(i) + 2) * P + 2; };
  // Every value is at most 0x7fffffff plus c per row and column (a path to the border), far below the
  // vector scan's sentinel while H + W < 10000.
#if defined(AUG_AVX2_PHILOX)
  const bool vector = k::cpu::host_has_avx2() && static_cast<long>(H) + W < 10000;
#endif
  for (int i = 0; i < H; ++i) {
    std::uint32_t* cur = row(i);
    spatter_upper_terms(row(i - 2), row(i - 1), none.data(), pre.data(), W, a, b, c);
    spatter_zeros(src + static_cast<std::size_t>(i) * W, W, pre.data());
    // A zero of src stays 0: min(0, left + a).
#if defined(AUG_AVX2_PHILOX)
    if (vector) {
      spatter_scan_avx2(pre.data(), cur, W, a, kFar, true);
      continue;
    }
#endif
    std::uint32_t left = kFar;
    for (int j = 0; j < W; ++j) {
      const std::uint32_t v = std::min(pre[static_cast<std::size_t>(j)], left + a);
      cur[j] = v;
      left = v;
    }
  }
  const float scale = 1.f / 65536.f;
  for (int i = H - 1; i >= 0; --i) {
    std::uint32_t* cur = row(i);
    // The lower rows, mirrored: the same terms as the upper ones read from the other side.
    spatter_upper_terms(row(i + 2), row(i + 1), cur, pre.data(), W, a, b, c);
#if defined(AUG_AVX2_PHILOX)
    if (vector) {
      spatter_scan_avx2(pre.data(), cur, W, a, kFar, false);
    } else
#endif
    {
      std::uint32_t right = kFar;
      for (int j = W - 1; j >= 0; --j) {
        const std::uint32_t v = std::min(pre[static_cast<std::size_t>(j)], right + a);
        cur[j] = v;
        right = v;
      }
    }
    spatter_distance_row(cur, W, scale, trunc, out + static_cast<std::size_t>(i) * W);
  }
}

// Values below thr set to 0; the count of the others.
AUG_CLONES std::size_t spatter_cut(float* __restrict L, std::size_t n, float thr) {
  std::size_t wet = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const bool keep = !(L[i] < thr);
    L[i] = keep ? L[i] : 0.f;
    wet += keep ? 1 : 0;
  }
  return wet;
}

// trunc(clip(L * 255, 0, 255)) as 8 bits.
AUG_CLONES void spatter_to_u8(const float* __restrict L, std::size_t n, std::uint8_t* __restrict q) {
  for (std::size_t i = 0; i < n; ++i) {
    float v = L[i] * 255.f;
    v = v < 0.f ? 0.f : v;
    v = v > 255.f ? 255.f : v;
    q[i] = static_cast<std::uint8_t>(static_cast<int>(v));
  }
}

// layer = float(q) * float(d), and its maximum: products of two bytes, exact in binary32, so the
// maximum is taken over the integer products.
AUG_CLONES float spatter_rain_layer(const std::uint8_t* __restrict q, const std::uint8_t* __restrict d, std::size_t n,
                                    float* __restrict layer) {
  int most = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const int p = static_cast<int>(q[i]) * static_cast<int>(d[i]);
    layer[i] = static_cast<float>(p);
    most = most > p ? most : p;
  }
  return static_cast<float>(most);
}

// trunc(clip(f, 0, 255)) as 8 bits.
AUG_CLONES void spatter_clip_u8(const float* __restrict f, std::size_t n, std::uint8_t* __restrict o) {
  for (std::size_t i = 0; i < n; ++i) {
    float v = f[i] < 0.f ? 0.f : f[i];
    v = v > 255.f ? 255.f : v;
    o[i] = static_cast<std::uint8_t>(static_cast<int>(v));
  }
}

// The largest of n values that are +0 or positive (the layers: sums and products of such values, no
// NaN, no -0): their bit patterns as integers are in the same order, and an integer maximum vectorises.
AUG_CLONES float spatter_max(const float* __restrict v, std::size_t n) {
  std::int32_t most = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::int32_t b;
    std::memcpy(&b, v + i, sizeof b);
    most = most > b ? most : b;
  }
  float m;
  std::memcpy(&m, &most, sizeof m);
  return m;
}

// cv::Canny(src, 50, 150) (aperture 3, L1 gradient) restated for 8-bit images, its edges given as 0
// and every other pixel as 255 (255 - the edge map, the distance transform's input): dx and dy the
// 3x3 Sobel derivatives (border replicated), m = |dx| + |dy| (0 outside the image). A pixel is a
// candidate where m > low and m is a maximum across the edge, with t = 13573 |dx| (tan 22.5 deg in
// 2^-15) and a = |dy| 2^15: a < t, m > m(left) and m >= m(right); a > t + |dx| 2^16, m > m(up) and
// m >= m(down); otherwise, s = -1 where dx and dy differ in sign and 1 elsewhere, m > m(up, x - s)
// and m > m(down, x + s). The edges are the candidates 8-connected through candidates to one with
// m > high. Each row's derivatives and tests are computed whole and selected in loops that
// vectorise; only the candidates at most high (few) are listed and grown from.
AUG_CLONES void spatter_sobel_row(const std::uint8_t* __restrict u, const std::uint8_t* __restrict c,
                                  const std::uint8_t* __restrict d, int W, std::int16_t* __restrict dx,
                                  std::int16_t* __restrict dy, std::int32_t* __restrict mg) {
  for (int j = 1; j < W - 1; ++j) {
    const int gx = (u[j + 1] - u[j - 1]) + 2 * (c[j + 1] - c[j - 1]) + (d[j + 1] - d[j - 1]);
    const int gy = (d[j - 1] + 2 * d[j] + d[j + 1]) - (u[j - 1] + 2 * u[j] + u[j + 1]);
    dx[j] = static_cast<std::int16_t>(gx);
    dy[j] = static_cast<std::int16_t>(gy);
    mg[j] = (gx < 0 ? -gx : gx) + (gy < 0 ? -gy : gy);
  }
}

// A row of the map: 1 (not a candidate), 0 (a candidate with m <= high) or 2 (one with m > high).
AUG_CLONES void spatter_nms_row(const std::int32_t* __restrict mp, const std::int32_t* __restrict mc,
                                const std::int32_t* __restrict mn, const std::int16_t* __restrict dx,
                                const std::int16_t* __restrict dy, int W, int low, int high,
                                std::uint8_t* __restrict mrow) {
  constexpr int kTg22 = 13573;
  for (int j = 0; j < W; ++j) {
    const int m = mc[j], xs = dx[j], ys = dy[j];
    const int x = xs < 0 ? -xs : xs, y = (ys < 0 ? -ys : ys) << 15;
    const int t22 = x * kTg22, t67 = t22 + (x << 16);
    const bool neg = (xs ^ ys) < 0;  // s = -1
    const bool h = (m > mc[j - 1]) & (m >= mc[j + 1]);
    const bool v = (m > mp[j]) & (m >= mn[j]);
    const int gu = neg ? mp[j + 1] : mp[j - 1], gd = neg ? mn[j - 1] : mn[j + 1];
    const bool g = (m > gu) & (m > gd);
    const bool keep = (m > low) & (y < t22 ? h : (y > t67 ? v : g));
    mrow[j] = keep ? (m > high ? 2 : 0) : 1;
  }
}

AUG_CLONES void spatter_not_edges(const std::uint8_t* __restrict mrow, int W, std::uint8_t* __restrict o) {
  for (int j = 0; j < W; ++j) o[j] = mrow[j] == 2 ? 0 : 255;
}

void spatter_canny_inverse(const std::uint8_t* src, int W, int H, int low, int high, std::uint8_t* out) {
  const std::ptrdiff_t P = W + 2;
  thread_local std::vector<std::uint8_t> map;  // kept from image to image
  map.assign(static_cast<std::size_t>(P) * (static_cast<std::size_t>(H) + 2), 1);
  std::vector<std::int16_t> dxr(3 * static_cast<std::size_t>(W)), dyr(3 * static_cast<std::size_t>(W));
  std::vector<std::int32_t> magr(3 * (static_cast<std::size_t>(W) + 2), 0);
  std::vector<std::uint8_t*> stack, weak;
  const auto srow = [&](int i) { return src + static_cast<std::size_t>(std::clamp(i, 0, H - 1)) * W; };
  const auto slot = [](int i) { return static_cast<std::size_t>((i + 3) % 3); };
  const auto grad = [&](int i) {  // row i's derivatives and magnitude into slot i % 3
    std::int16_t* dx = dxr.data() + slot(i) * W;
    std::int16_t* dy = dyr.data() + slot(i) * W;
    std::int32_t* mg = magr.data() + slot(i) * (static_cast<std::size_t>(W) + 2) + 1;
    if (i < 0 || i >= H) {
      std::fill_n(mg - 1, W + 2, 0);
      return;
    }
    const std::uint8_t *u = srow(i - 1), *c = srow(i), *d = srow(i + 1);
    const auto edge = [&](int j) {  // a border column: its neighbours replicated
      const int l = j > 0 ? j - 1 : 0, r = j < W - 1 ? j + 1 : W - 1;
      const int gx = (u[r] - u[l]) + 2 * (c[r] - c[l]) + (d[r] - d[l]);
      const int gy = (d[l] + 2 * d[j] + d[r]) - (u[l] + 2 * u[j] + u[r]);
      dx[j] = static_cast<std::int16_t>(gx);
      dy[j] = static_cast<std::int16_t>(gy);
      mg[j] = std::abs(gx) + std::abs(gy);
    };
    edge(0);
    if (W > 1) edge(W - 1);
    spatter_sobel_row(u, c, d, W, dx, dy, mg);
    mg[-1] = mg[W] = 0;
  };
  grad(-1);
  grad(0);
  for (int i = 0; i < H; ++i) {
    grad(i + 1);
    const auto mag = [&](int r) { return magr.data() + slot(r) * (static_cast<std::size_t>(W) + 2) + 1; };
    std::uint8_t* mrow = map.data() + static_cast<std::size_t>(i + 1) * P + 1;
    spatter_nms_row(mag(i - 1), mag(i), mag(i + 1), dxr.data() + slot(i) * W, dyr.data() + slot(i) * W, W, low,
                    high, mrow);
    for (int j = 0; j < W; ++j)
      if (mrow[j] == 0) weak.push_back(mrow + j);
  }
  // A candidate next to an edge is one, and so is every candidate it reaches.
  const std::ptrdiff_t around[8] = {-P - 1, -P, -P + 1, -1, 1, P - 1, P, P + 1};
  for (std::uint8_t* w : weak) {
    if (*w != 0) continue;
    bool next = false;
    for (const std::ptrdiff_t o : around) next = next || w[o] == 2;
    if (!next) continue;
    *w = 2;
    stack.push_back(w);
    while (!stack.empty()) {
      std::uint8_t* p = stack.back();
      stack.pop_back();
      for (const std::ptrdiff_t o : around)
        if (p[o] == 0) {
          p[o] = 2;
          stack.push_back(p + o);
        }
    }
  }
  for (int i = 0; i < H; ++i)
    spatter_not_edges(map.data() + static_cast<std::size_t>(i + 1) * P + 1, W, out + static_cast<std::size_t>(i) * W);
}

const std::array<double, 3> kRainColor{238, 238, 175};
const std::array<double, 3> kMudColor{20, 42, 63};

struct SpatterDraw {
  double mean = 0, std = 0, threshold = 0, sigma = 0, intensity = 0;
  Mode mode = Mode::Rain;
};

class SpatterOp final : public Op {
 public:
  SpatterOp(const Shape& s, const SpatterDraw& dr, const std::array<double, 3>& color, const k::KeyedStream& stream)
      : Op(s, s), drawn_(dr), color_(color) {
    const int W = s.width, H = s.height;
    const std::size_t n = static_cast<std::size_t>(W) * static_cast<std::size_t>(H);
    // The normal field.
    // The layer's planes, kept by each thread from image to image (as large as the largest image seen),
    // so that a stream of images does not fault in fresh pages for each.
    thread_local std::vector<float> liquid_buf, dist_buf;
    thread_local std::vector<std::uint8_t> l8_buf, not_edges_buf, dist8_buf;
    for (auto* b : {&liquid_buf, &dist_buf}) b->resize(std::max(b->size(), n));
    for (auto* b : {&l8_buf, &not_edges_buf, &dist8_buf}) b->resize(std::max(b->size(), n));
    cv::Mat liquid(H, W, CV_32F, liquid_buf.data());
    float* L = liquid.ptr<float>();
    spatter_field(L, n, dr.mean, dr.std, stream, normal_table().data());
    const int ksize = 2 * static_cast<int>(std::nearbyint(3 * dr.sigma)) + 1;
    cv::GaussianBlur(liquid, liquid, cv::Size(ksize, ksize), dr.sigma, dr.sigma, cv::BORDER_REPLICATE);
    const auto thr = static_cast<float>(dr.threshold);
    const std::size_t wet = spatter_cut(L, n, thr);
    wet_ = static_cast<double>(wet) / static_cast<double>(n);
    layer_.resize(n);
    if (dr.mode == Mode::Rain) {
      cv::Mat l8(H, W, CV_8U, l8_buf.data());
      std::uint8_t* q = l8.ptr<std::uint8_t>();
      spatter_to_u8(L, n, q);
      cv::Mat not_edges(H, W, CV_8U, not_edges_buf.data()), dist(H, W, CV_32F, dist_buf.data()),
          dist8(H, W, CV_8U, dist8_buf.data());
      spatter_canny_inverse(q, W, H, 50, 150, not_edges.ptr<std::uint8_t>());
      spatter_chamfer(not_edges.ptr<std::uint8_t>(), W, H, dist.ptr<float>(), 20.f);
      cv::GaussianBlur(dist, dist, cv::Size(3, 3), 1, 1, cv::BORDER_REPLICATE);
      spatter_clip_u8(dist.ptr<float>(), n, dist8.ptr<std::uint8_t>());
      cv::equalizeHist(dist8, dist8);
      const cv::Mat ker = (cv::Mat_<float>(3, 3) << -2, -1, 0, -1, 1, 1, 0, 1, 2);
      cv::filter2D(dist8, dist8, -1, ker);
      cv::GaussianBlur(dist8, dist8, cv::Size(5, 5), 1.5, 1.5, cv::BORDER_REPLICATE);
      const std::uint8_t* dv = dist8.ptr<std::uint8_t>();
      const float most = spatter_rain_layer(q, dv, n, layer_.data());
      if (most > 0) {
        const float inv = 1.f / most;
        for (float& v : layer_) v *= inv;
      }
      scale_ = dr.intensity * 0.9;
    } else {
      std::size_t on = 0;
      for (std::size_t i = 0; i < n; ++i) {
        layer_[i] = L[i] > thr ? 1.f : 0.f;
        on += L[i] > thr ? 1 : 0;
      }
      if (on == 0) {  // 10% of the pixels, distinct: a partial Fisher-Yates shuffle
        const std::size_t need = std::max<std::size_t>(1, static_cast<std::size_t>(0.1 * static_cast<double>(n)));
        std::vector<std::uint32_t> idx(n);
        std::iota(idx.begin(), idx.end(), 0u);
        for (std::size_t i = 0; i < need; ++i) {
          const k::Philox4x32 b = stream.block(static_cast<std::uint32_t>(i), 2);
          const std::uint64_t r = ((static_cast<std::uint64_t>(b.v[0]) << 32) | b.v[1]) % (n - i);
          std::swap(idx[i], idx[i + r]);
          layer_[idx[i]] = 1.f;
        }
      }
      cv::Mat mask(H, W, CV_32F, layer_.data());
      if (dr.sigma > 0) cv::GaussianBlur(mask, mask, cv::Size(0, 0), dr.sigma, dr.sigma, cv::BORDER_REPLICATE);
      const float most = spatter_max(layer_.data(), n);
      if (most > 0) {
        for (float& v : layer_) v = v / most;
      } else {
        layer_[0] = 1.f;
      }
      const auto k = static_cast<float>(dr.intensity);
      for (float& v : layer_) v = v * k;
    }
    layer_max_ = spatter_max(layer_.data(), n);
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::SpatterArgs a;
    a.layer = ctx.table(layer_);
    a.c0 = color_[0] / 255.0;
    a.c1 = color_[1] / 255.0;
    a.c2 = color_[2] / 255.0;
    a.scale = scale_;
    a.mud = drawn_.mode == Mode::Mud;
    with_views(in, out, [&](auto src, auto dst) { k::spatter(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kMean.name, drawn_.mean},
            {kStd.name, drawn_.std},
            {kThreshold.name, drawn_.threshold},
            {kSigma.name, drawn_.sigma},
            {kMode.name, kModes.name(drawn_.mode)},
            {kIntensity.name, drawn_.intensity},
            {kColor.name, color_},
            {"wet", wet_},
            {"layer_max", layer_max_}};
  }

 private:
  SpatterDraw drawn_;
  std::array<double, 3> color_;
  double scale_ = 1;
  float layer_max_ = 0;
  double wet_ = 0;  // the fraction of pixels the cut keeps
  PlaneVector<float> layer_;  // written in full before it is read
};

class SpatterStage final : public Stage {
 public:
  explicit SpatterStage(const StageConfig& c)
      : mean_(c.get(kMean)),
        std_(c.get(kStd)),
        sigma_(c.get(kSigma)),
        threshold_(c.get(kThreshold)),
        intensity_(c.get(kIntensity)),
        mode_(c.get(kMode)) {
    if (c.has(kColor)) {
      const std::vector<std::int64_t>& color = c.get(kColor);
      if (color.size() != 3 && color.size() != 1) c.fail(kColor, "give three values [r, g, b] or one for all three");
      for (std::size_t i = 0; i < 3; ++i) color_[i] = static_cast<double>(color[color.size() == 1 ? 0 : i]);
      has_color_ = true;
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    SpatterDraw dr;
    dr.mean = mean_.sample(d);
    dr.std = std_.sample(d);
    dr.threshold = threshold_.sample(d);
    dr.sigma = sigma_.sample(d);
    dr.mode = mode_.sample(d);
    dr.intensity = intensity_.sample(d);
    const std::array<double, 3> color = has_color_ ? color_ : (dr.mode == Mode::Rain ? kRainColor : kMudColor);
    return std::make_unique<SpatterOp>(in, dr, color, d.stream());
  }

 private:
  NumberParam mean_, std_, sigma_, threshold_, intensity_;
  Drawn<Mode> mode_;
  bool has_color_ = false;
  std::array<double, 3> color_{};
};

}  // namespace
}  // namespace spatter_impl

StageType spatter_stage() { return stage_type<spatter_impl::SpatterStage>(&spatter_impl::spatter_spec); }

}  // namespace aug
