// color_jitter's vectorised host driver for 8-bit images: the kernels' arithmetic (color_jitter.hpp),
// row by row on planar copies of the colour channels.
// on binary32 planes of the colour channels, eight values at a time, with the same operations in the
// same order as the scalar formulas (lane-wise IEEE binary32, never contracted).
// The contrast mean is the exact integer sum of the floored grays, as the kernels take it.
// 16-bit and float images run the kernel bodies.
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/color/color_jitter.hpp"
#include "kernels/core/host_simd.hpp"

namespace aug::k::cpu {

namespace {

using i8 = std::int32_t __attribute__((vector_size(32)));

// The helpers below pass eight-lane vectors by value; they are internal and always inlined, so the
// baseline clone's calling convention for such vectors never comes into play.
#pragma GCC diagnostic ignored "-Wpsabi"

// trunc for |x| < 2^31 (conversion to integer truncates, as truncf).
[[gnu::always_inline]] inline f8 trunc8(f8 x) { return __builtin_convertvector(__builtin_convertvector(x, i8), f8); }
[[gnu::always_inline]] inline f8 clamp8(f8 v, float hi) {
  const f8 zero = f8{} + 0.f, top = f8{} + hi;
  v = v < zero ? zero : v;
  return v > top ? top : v;
}
[[gnu::always_inline]] inline f8 load(const float* p) {
  f8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
[[gnu::always_inline]] inline void store(float* p, f8 v) { std::memcpy(p, &v, sizeof v); }
// settle<uint8_t>: clamp to [0, 255], truncate.
[[gnu::always_inline]] inline f8 settle8(f8 v) { return trunc8(clamp8(v, 255.f)); }
// jitter_gray<uint8_t>: r 0.2989 + g 0.587 + b 0.114 left to right in binary32, floored (>= 0: truncated).
[[gnu::always_inline]] inline f8 gray8(f8 r, f8 g, f8 b) {
  f8 l = r * static_cast<float>(0.2989);
  l = l + g * static_cast<float>(0.587);
  l = l + b * static_cast<float>(0.114);
  return trunc8(l);
}

// The planes are padded to a multiple of eight values, so every loop below runs whole vectors; the
// padding's values are computed and never written back.

// brightness (add 0: x * f + 0 settles as x * f) and contrast (add = (1 - f) mean): settle(x f + add).
AUG_CLONES void scale_row(float* p, int n, float f, float add) {
  for (int i = 0; i < n; i += 8) store(p + i, settle8(load(p + i) * f + add));
}

// saturation: v = settle(v f + (1 - f) gray).
AUG_CLONES void saturation_row(float* r, float* g, float* b, int n, float f, float rest) {
  for (int i = 0; i < n; i += 8) {
    const f8 R = load(r + i), G = load(g + i), B = load(b + i);
    const f8 m = rest * gray8(R, G, B);
    store(r + i, settle8(R * f + m));
    store(g + i, settle8(G * f + m));
    store(b + i, settle8(B * f + m));
  }
}

// hue: jitter_hue<uint8_t> (torchvision's _rgb_to_hsv, shift, _hsv_to_rgb) on eight pixels at a time.
// The three quotients of the scalar code are two here: each case uses two of them, and the numerators
// are selected first; (q + 0) equals q, so case r's bc - gc is (bc + 0) - gc.
AUG_CLONES void hue_row(float* r, float* g, float* b, int n, float hue) {
  const float in_scale = static_cast<float>(1.0 / 255.0);
  const float out_scale = static_cast<float>(256.0 - 1e-3);
  const f8 zero = f8{} + 0.f, one = f8{} + 1.f, two = f8{} + 2.f, four = f8{} + 4.f, top = f8{} + 255.f;
  for (int i = 0; i < n; i += 8) {
    const f8 R = load(r + i) * in_scale, G = load(g + i) * in_scale, B = load(b + i) * in_scale;
    const f8 maxc = R > G ? (R > B ? R : B) : (G > B ? G : B);
    const f8 minc = R < G ? (R < B ? R : B) : (G < B ? G : B);
    const i8 eqc = maxc == minc;
    const f8 range = maxc - minc;
    const f8 s = range / (eqc ? one : maxc);
    const f8 div = eqc ? one : range;
    const i8 is_r = maxc == R;
    const i8 is_g = (maxc == G) & ~is_r;
    const f8 n1 = is_r ? maxc - B : (is_g ? maxc - R : maxc - G);
    const f8 n2 = is_r ? maxc - G : (is_g ? maxc - B : maxc - R);
    const f8 add = is_r ? zero : (is_g ? two : four);
    f8 h = (n1 / div + add) - n2 / div;
    h = h * static_cast<float>(1.0 / 6.0);
    f8 t = h + one;
    h = t - trunc8(t);
    t = h + hue;
    h = t - trunc8(t);
    h = h < zero ? h + one : h;
    const f8 h6 = h * 6.f;
    const f8 fi = trunc8(h6);  // h >= 0: floor
    const f8 f = h6 - fi;
    i8 sector = __builtin_convertvector(fi, i8);
    sector = sector == 6 ? i8{} : sector;
    const f8 v = maxc, sxf = s * f, one_minus_s = one - s;
    const f8 q = clamp8((one - sxf) * v, 1.f);
    const f8 u = clamp8((sxf + one_minus_s) * v, 1.f);
    const f8 p = clamp8(one_minus_s * v, 1.f);
    const i8 s0 = sector == 0, s1 = sector == 1, s2 = sector == 2, s3 = sector == 3, s4 = sector == 4,
             s5 = sector == 5;
    const f8 ro = (s0 | s5) ? v : (s1 ? q : (s4 ? u : p));
    const f8 go = (s1 | s2) ? v : (s0 ? u : (s3 ? q : p));
    const f8 bo = (s3 | s4) ? v : ((s0 | s1) ? p : (s2 ? u : q));
    f8 y = trunc8(ro * out_scale);
    store(r + i, y > top ? top : y);
    y = trunc8(go * out_scale);
    store(g + i, y > top ? top : y);
    y = trunc8(bo * out_scale);
    store(b + i, y > top ? top : y);
  }
}

// The sum of the row's floored grays (n values, not the padding).
AUG_CLONES std::uint64_t gray_sum_row(const float* r, const float* g, const float* b, int n) {
  std::uint64_t sum = 0;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const i8 l = __builtin_convertvector(gray8(load(r + i), load(g + i), load(b + i)), i8);
    sum += static_cast<std::uint64_t>(l[0] + l[1] + l[2] + l[3] + l[4] + l[5] + l[6] + l[7]);
  }
  for (; i < n; ++i) sum += static_cast<std::uint64_t>(jitter_gray<std::uint8_t>(r[i], g[i], b[i]));
  return sum;
}

AUG_CLONES std::uint64_t value_sum_row(const float* v, int n) {
  std::uint64_t sum = 0;
  for (int i = 0; i < n; ++i) sum += static_cast<std::uint64_t>(v[i]);
  return sum;
}

// A row's colour channels as binary32 planes (values 0 to 255), split from and joined back into
// interleaved 8-bit pixels of C channels (alpha copied).
template <int C>
AUG_CLONES void split_row(const std::uint8_t* s, float* const* plane, int cc, int n) {
  if (cc == 3) {
    for (int x = 0; x < n; ++x) {
      plane[0][x] = s[x * C];
      plane[1][x] = s[x * C + 1];
      plane[2][x] = s[x * C + 2];
    }
  } else {
    for (int x = 0; x < n; ++x) plane[0][x] = s[x * C];
  }
}
AUG_CLONES void to_bytes(const float* __restrict p, std::uint8_t* __restrict b, int n) {
  for (int x = 0; x < n; ++x) b[x] = static_cast<std::uint8_t>(static_cast<std::int32_t>(p[x]));
}
template <int C, bool kCopyAlpha>
AUG_CLONES void join_row(const std::uint8_t* __restrict r, const std::uint8_t* __restrict g,
                         const std::uint8_t* __restrict b, int cc, const std::uint8_t* __restrict s,
                         std::uint8_t* __restrict d, int n) {
  if (cc == 3) {
    for (int x = 0; x < n; ++x) {
      d[x * C] = r[x];
      d[x * C + 1] = g[x];
      d[x * C + 2] = b[x];
      if constexpr (C == 4 && kCopyAlpha) d[x * C + 3] = s[x * C + 3];
    }
  } else {
    for (int x = 0; x < n; ++x) {
      d[x * C] = r[x];
      if constexpr (C == 2 && kCopyAlpha) d[x * C + 1] = s[x * C + 1];
    }
  }
}

struct Planes {
  int width, padded, channels, cc;
  std::vector<float> buf;
  float* plane[3];
  std::vector<std::uint8_t> bytes;

  Planes(int w, int c, int color)
      : width(w), padded((w + 7) / 8 * 8), channels(c), cc(color), buf(static_cast<std::size_t>(padded) * 3),
        bytes(static_cast<std::size_t>(padded) * 3) {
    for (int k = 0; k < 3; ++k) plane[k] = buf.data() + static_cast<std::size_t>(k) * padded;
  }
  void split(const std::uint8_t* s) {
    switch (channels) {
      case 1: return split_row<1>(s, plane, cc, width);
      case 2: return split_row<2>(s, plane, cc, width);
      case 3: return split_row<3>(s, plane, cc, width);
      default: return split_row<4>(s, plane, cc, width);
    }
  }
  void join(const std::uint8_t* s, std::uint8_t* d) {
    std::uint8_t* b[3] = {bytes.data(), bytes.data() + padded, bytes.data() + 2 * padded};
    for (int c = 0; c < cc; ++c) to_bytes(plane[c], b[c], width);
    // In place (d is s), alpha is already there.
    if (s == d) return join<false>(b, s, d);
    join<true>(b, s, d);
  }
  template <bool kCopyAlpha>
  void join(std::uint8_t* const* b, const std::uint8_t* s, std::uint8_t* d) const {
    switch (channels) {
      case 1: return join_row<1, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
      case 2: return join_row<2, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
      case 3: return join_row<3, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
      default: return join_row<4, kCopyAlpha>(b[0], b[1], b[2], cc, s, d, width);
    }
  }
};

// Adjustments op[from .. to) of `a` from `src` into `dst` (which may be `src`); `mean` for contrast.
// Returns the sum of the result's floored grays (colour) or values (gray) when `sum` is set; writes
// nothing when dst has no data.
std::uint64_t steps(View<const std::uint8_t> src, View<std::uint8_t> dst, const JitterArgs& a, int from, int to,
                    float mean, bool sum) {
  std::uint64_t total = 0;
  Planes p(src.width, src.channels, a.color_channels);
  for (int y = 0; y < src.height; ++y) {
    p.split(src.row(y));
    for (int k = from; k < to; ++k) {
      const int op = a.op[k];
      if (op == kJitterBrightness || op == kJitterContrast) {
        const float add = op == kJitterContrast ? a.rest[op] * mean : 0.f;
        for (int c = 0; c < p.cc; ++c) scale_row(p.plane[c], p.padded, a.ratio[op], add);
      } else if (op == kJitterSaturation) {
        saturation_row(p.plane[0], p.plane[1], p.plane[2], p.padded, a.ratio[op], a.rest[op]);
      } else {
        hue_row(p.plane[0], p.plane[1], p.plane[2], p.padded, a.hue);
      }
    }
    if (sum) total += p.cc == 3 ? gray_sum_row(p.plane[0], p.plane[1], p.plane[2], p.width) : value_sum_row(p.plane[0], p.width);
    if (dst.data) p.join(src.row(y), dst.row(y));
  }
  return total;
}

float mean_of(std::uint64_t total, View<const std::uint8_t> img) {
  const std::uint64_t count = static_cast<std::uint64_t>(img.width) * static_cast<std::uint64_t>(img.height);
  return static_cast<float>(total) / static_cast<float>(count);
}

}  // namespace

void color_jitter(View<const std::uint8_t> in, View<std::uint8_t> out, const JitterArgs& a) {
  int at = -1;  // where contrast runs
  for (int k = 0; k < a.count; ++k)
    if (a.op[k] == kJitterContrast) at = k;
  if (at < 0) {
    steps(in, out, a, 0, a.count, 0.f, false);
    return;
  }
  // The adjustments before contrast (summing their result's grays as they go), then the rest.
  // When contrast comes first, the first pass only sums the input's grays.
  const std::uint64_t total = steps(in, at > 0 ? out : View<std::uint8_t>{}, a, 0, at, 0.f, true);
  steps(at > 0 ? as_const(out) : in, out, a, at, a.count, mean_of(total, in), false);
}

}  // namespace aug::k::cpu
