#include "cpu.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <vector>

// Hot loops get an AVX2 clone next to the baseline one; the loader picks per machine.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define AUG_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define AUG_CLONES
#endif

namespace aug::k::cpu {

namespace {

// acc[i] += w * s[i]
AUG_CLONES void mac_row(std::int32_t* acc, const std::uint8_t* s, int n, std::int32_t w) {
  for (int i = 0; i < n; ++i) acc[i] += w * static_cast<std::int32_t>(s[i]);
}
AUG_CLONES void mac_row(std::int32_t* acc, const std::uint16_t* s, int n, std::int32_t w) {
  for (int i = 0; i < n; ++i) acc[i] += w * static_cast<std::int32_t>(s[i]);
}
// 8-bit images with non-negative 8-bit weights summing to 256: every partial sum is <= 65280.
AUG_CLONES void mac_row(std::uint16_t* acc, const std::uint8_t* s, int n, std::int32_t w) {
  const auto w16 = static_cast<std::uint16_t>(w);
  for (int i = 0; i < n; ++i) acc[i] = static_cast<std::uint16_t>(acc[i] + w16 * s[i]);
}
// Symmetric kernels, one weight for two taps: w <= 128 and a + b <= 510, so still <= 65280.
AUG_CLONES void mac_pair_row(std::uint16_t* acc, const std::uint8_t* a, const std::uint8_t* b, int n, std::int32_t w) {
  const auto w16 = static_cast<std::uint16_t>(w);
  for (int i = 0; i < n; ++i) acc[i] = static_cast<std::uint16_t>(acc[i] + w16 * (a[i] + b[i]));
}

// out[i] = sum_k w[k] * m[i + k * step]; 8-bit images with 8-bit weights (<= 256 * 65280: fits)
AUG_CLONES void conv_row(std::uint32_t* out, const std::uint16_t* m, int n, const std::int32_t* w, int taps, int step) {
  for (int i = 0; i < n; ++i) out[i] = 0;
  for (int k = 0; k < taps; ++k) {
    const auto wk = static_cast<std::uint32_t>(w[k]);
    const std::uint16_t* mk = m + k * step;
    for (int i = 0; i < n; ++i) out[i] += wk * mk[i];
  }
}
// Eight binary32 lanes (GCC/Clang vector extension): lane-wise IEEE operations, never contracted.
using f8 = float __attribute__((vector_size(32)));

void load8(f8& v, const float* p) { std::memcpy(&v, p, sizeof v); }

// out[i] = sum_k w[k] * src(k)[i] in binary32, terms added in k order from 0: per lane, as the
// kernels' loops. Four vectors at a time keep four independent sums in flight.
template <class Src>
[[gnu::always_inline]] inline void weighted_sum(float* out, Src src, int n, const float* w, int taps) {
  int i = 0;
  for (; i + 32 <= n; i += 32) {
    f8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
    for (int k = 0; k < taps; ++k) {
      const float* p = src(k) + i;
      f8 v0, v1, v2, v3;
      load8(v0, p);
      load8(v1, p + 8);
      load8(v2, p + 16);
      load8(v3, p + 24);
      a0 = a0 + w[k] * v0;
      a1 = a1 + w[k] * v1;
      a2 = a2 + w[k] * v2;
      a3 = a3 + w[k] * v3;
    }
    std::memcpy(out + i, &a0, sizeof a0);
    std::memcpy(out + i + 8, &a1, sizeof a1);
    std::memcpy(out + i + 16, &a2, sizeof a2);
    std::memcpy(out + i + 24, &a3, sizeof a3);
  }
  for (; i < n; ++i) {
    float acc = 0.f;
    for (int k = 0; k < taps; ++k) acc = acc + w[k] * src(k)[i];
    out[i] = acc;
  }
}
// A convolution along a row: src(k) = m + k * step.
AUG_CLONES void conv_row(float* out, const float* m, int n, const float* w, int taps, int step) {
  weighted_sum(out, [&](int k) { return m + k * step; }, n, w, taps);
}
// A weighted sum of rows.
AUG_CLONES void sum_rows(float* out, const float* const* rows, int n, const float* w, int taps) {
  weighted_sum(out, [&](int k) { return rows[k]; }, n, w, taps);
}

// The same for symmetric weights (w[k] == w[taps-1-k]): one multiply per pair of taps.
AUG_CLONES void conv_row_symmetric(std::uint32_t* out, const std::uint16_t* m, int n, const std::int32_t* w, int taps,
                                   int step) {
  const int r = taps / 2;
  const auto wc = static_cast<std::uint32_t>(w[r]);
  const std::uint16_t* mc = m + r * step;
  for (int i = 0; i < n; ++i) out[i] = wc * mc[i];
  for (int k = 0; k < r; ++k) {
    const auto wk = static_cast<std::uint32_t>(w[k]);
    const std::uint16_t* a = m + k * step;
    const std::uint16_t* b = m + (taps - 1 - k) * step;
    for (int i = 0; i < n; ++i) out[i] += wk * (static_cast<std::uint32_t>(a[i]) + b[i]);
  }
}

bool symmetric(const std::int32_t* w, int taps) {
  if (taps % 2 == 0) return false;
  for (int k = 0; k < taps / 2; ++k)
    if (w[k] != w[taps - 1 - k]) return false;
  return true;
}

// The sums of non-negative weights totalling 2^16 over samples <= 255 round to <= 255: no clamp.
AUG_CLONES void finish_row(std::uint8_t* out, const std::uint32_t* acc, int n) {
  for (int i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>((acc[i] + 32768u) >> 16);
}

template <int C>
void bilinear_row(std::uint8_t* out, const std::uint16_t* mid, const std::int32_t* index, const std::int32_t* w, int x0,
                  int x1, int cmin) {
  for (int x = x0; x < x1; ++x) {
    const std::uint16_t* m0 = mid + (index[2 * x] - cmin) * C;
    const std::uint16_t* m1 = mid + (index[2 * x + 1] - cmin) * C;
    const auto a = static_cast<std::uint32_t>(w[2 * x]), b = static_cast<std::uint32_t>(w[2 * x + 1]);
    for (int c = 0; c < C; ++c) out[x * C + c] = static_cast<std::uint8_t>((a * m0[c] + b * m1[c] + 32768u) >> 16);
  }
}

// The horizontal taps of a blur are a plain convolution away from the borders: outputs [x0, x1)
// read index x - r + k with the same weights. Found from the table, so any table works.
struct ConvRange {
  int x0 = 0, x1 = 0, r = 0;
};

ConvRange conv_range(const AxisTaps& h, int out_width, bool use_float) {
  ConvRange best;
  const int T = h.taps;
  auto same_weights = [&](int a, int b) {
    for (int k = 0; k < T; ++k)
      if (use_float ? h.fweight[a * T + k] != h.fweight[b * T + k] : h.iweight[a * T + k] != h.iweight[b * T + k])
        return false;
    return true;
  };
  auto conv_at = [&](int x, int r) {
    for (int k = 0; k < T; ++k)
      if (h.index[x * T + k] != x - r + k) return false;
    return true;
  };
  for (int x = 0; x < out_width;) {
    const int r = x - h.index[x * T];
    if (!conv_at(x, r)) {
      ++x;
      continue;
    }
    int end = x + 1;
    while (end < out_width && conv_at(end, r) && same_weights(x, end)) ++end;
    if (end - x > best.x1 - best.x0) best = ConvRange{x, end, r};
    x = end;
  }
  return best;
}

// Integer images, vertical pass first. M is the intermediate: uint16 for 8-bit images with 8-bit
// weights (bilinear, nearest, blur: non-negative, summing to 256), int32 otherwise.
template <class T, class M>
void separable_integer(View<const T> in, View<T> out, const AxisTaps& h, const AxisTaps& v, int frac_bits) {
  constexpr bool narrow = std::is_same_v<M, std::uint16_t>;
  const int C = in.channels;
  const int shift = 2 * frac_bits;
  int cmin = in.width, cmax = 0;
  for (int i = 0; i < out.width * h.taps; ++i) {
    cmin = std::min(cmin, h.index[i]);
    cmax = std::max(cmax, h.index[i]);
  }
  const int n_mid = (cmax - cmin + 1) * C;
  std::vector<M> mid(static_cast<std::size_t>(n_mid));
  std::vector<std::uint32_t> acc(narrow ? static_cast<std::size_t>(out.width) * C : 0);
  const ConvRange conv = narrow ? conv_range(h, out.width, false) : ConvRange{};

  for (int y = 0; y < out.height; ++y) {
    // Vertical pass over the contiguous source columns the horizontal taps need.
    std::fill(mid.begin(), mid.end(), M{0});
    const std::int32_t* vw = v.iweight + y * v.taps;
    const std::int32_t* vi = v.index + y * v.taps;
    int t = 0;
    if constexpr (narrow) {
      if (symmetric(vw, v.taps)) {  // regrouping exact integer terms: any row indices
        for (; t < v.taps / 2; ++t)
          if (vw[t] != 0)
            mac_pair_row(mid.data(), in.row(vi[t]) + cmin * C, in.row(vi[v.taps - 1 - t]) + cmin * C, n_mid, vw[t]);
        t = v.taps / 2;  // the centre tap, then done
        mac_row(mid.data(), in.row(vi[t]) + cmin * C, n_mid, vw[t]);
        t = v.taps;
      }
    }
    for (; t < v.taps; ++t)
      if (vw[t] != 0) mac_row(mid.data(), in.row(vi[t]) + cmin * C, n_mid, vw[t]);
    // Horizontal pass.
    T* dst = out.row(y);
    int x = 0;
    auto gather_to = [&](int x_end) {
      for (; x < x_end; ++x) {
        const std::int32_t* idx = h.index + x * h.taps;
        const std::int32_t* w = h.iweight + x * h.taps;
        for (int c = 0; c < C; ++c) {
          std::int64_t s = 0;
          for (int k = 0; k < h.taps; ++k) s += static_cast<std::int64_t>(w[k]) * mid[(idx[k] - cmin) * C + c];
          dst[x * C + c] = saturate<T>(round_shift(s, shift));
        }
      }
    };
    if constexpr (narrow) {
      if (conv.x1 - conv.x0 >= 8) {
        gather_to(conv.x0);
        const int n = (conv.x1 - conv.x0) * C;
        const std::int32_t* w = h.iweight + conv.x0 * h.taps;
        const std::uint16_t* m = mid.data() + (conv.x0 - conv.r - cmin) * C;
        if (symmetric(w, h.taps)) conv_row_symmetric(acc.data(), m, n, w, h.taps, C);
        else conv_row(acc.data(), m, n, w, h.taps, C);
        finish_row(dst + conv.x0 * C, acc.data(), n);
        x = conv.x1;
      } else if (h.taps == 2) {
        switch (C) {
          case 1: bilinear_row<1>(dst, mid.data(), h.index, h.iweight, 0, out.width, cmin); break;
          case 3: bilinear_row<3>(dst, mid.data(), h.index, h.iweight, 0, out.width, cmin); break;
          case 4: bilinear_row<4>(dst, mid.data(), h.index, h.iweight, 0, out.width, cmin); break;
          default: break;
        }
        if (C == 1 || C == 3 || C == 4) x = out.width;
      }
    }
    gather_to(out.width);
  }
}

void separable_float(View<const float> in, View<float> out, const AxisTaps& h, const AxisTaps& v) {
  const int C = in.channels;
  int row0 = in.height, row1 = 0;
  for (int i = 0; i < out.height * v.taps; ++i) {
    row0 = std::min(row0, v.index[i]);
    row1 = std::max(row1, v.index[i]);
  }
  const int n = out.width * C;
  std::vector<float> mid(static_cast<std::size_t>(row1 - row0 + 1) * n);
  const ConvRange conv = conv_range(h, out.width, true);
  // Horizontal pass over every source row the vertical taps read (as the kernels do).
  for (int r = row0; r <= row1; ++r) {
    const float* src = in.row(r);
    float* m = mid.data() + static_cast<std::size_t>(r - row0) * n;
    auto gather = [&](int x0, int x1) {
      for (int x = x0; x < x1; ++x)
        for (int c = 0; c < C; ++c) {
          float acc = 0.f;
          for (int k = 0; k < h.taps; ++k) acc = acc + h.fweight[x * h.taps + k] * src[h.index[x * h.taps + k] * C + c];
          m[x * C + c] = acc;
        }
    };
    if (conv.x1 - conv.x0 >= 8) {
      gather(0, conv.x0);
      conv_row(m + conv.x0 * C, src + (conv.x0 - conv.r) * C, (conv.x1 - conv.x0) * C, h.fweight + conv.x0 * h.taps,
               h.taps, C);
      gather(conv.x1, out.width);
    } else {
      gather(0, out.width);
    }
  }
  // Vertical pass, taps in order.
  std::vector<const float*> rows(static_cast<std::size_t>(v.taps));
  for (int y = 0; y < out.height; ++y) {
    for (int t = 0; t < v.taps; ++t) rows[t] = mid.data() + static_cast<std::size_t>(v.index[y * v.taps + t] - row0) * n;
    sum_rows(out.row(y), rows.data(), n, v.fweight + y * v.taps, v.taps);
  }
}

AUG_CLONES void gain_row(std::uint8_t* d, const std::uint8_t* s, const std::int32_t* g, int n) {
  for (int i = 0; i < n; ++i) {
    const std::int32_t v = (s[i] * g[i] + 32768) >> 16;
    d[i] = static_cast<std::uint8_t>(v > 255 ? 255 : v);
  }
}

}  // namespace

template <class T>
void separable(View<const T> in, View<T> out, AxisTaps h, AxisTaps v, int frac_bits) {
  if constexpr (std::is_same_v<T, float>) {
    separable_float(in, out, h, v);
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    bool narrow = frac_bits == 8;
    for (int i = 0; narrow && i < out.width * h.taps; ++i) narrow = h.iweight[i] >= 0;
    for (int i = 0; narrow && i < out.height * v.taps; ++i) narrow = v.iweight[i] >= 0;
    if (narrow) separable_integer<T, std::uint16_t>(in, out, h, v, frac_bits);
    else separable_integer<T, std::int32_t>(in, out, h, v, frac_bits);
  } else {
    separable_integer<T, std::int32_t>(in, out, h, v, frac_bits);
  }
}

template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& a) {
  const int C = in.channels, n = in.width * C;
  if constexpr (std::is_same_v<T, std::uint8_t>) {
    std::vector<std::int32_t> g(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) g[i] = static_cast<std::int32_t>(i % C < a.color_channels ? a.fixed[i % C] : 65536);
    for (int y = 0; y < in.height; ++y) gain_row(out.row(y), in.row(y), g.data(), n);
  } else {
    for (int y = 0; y < in.height; ++y) {
      const T* s = in.row(y);
      T* d = out.row(y);
      for (int i = 0; i < n; ++i) d[i] = gain_value(s[i], i % C, a);
    }
  }
}

namespace {

// Per value of a row: the 8-bit case cloned for AVX2, the others generic. `add` and `mul` hold one
// value per sample of the row.
// The 8-bit rows spell from_unit(clamp01(...)) with min/max and a 32-bit conversion, which the
// compiler vectorises best; the values are the same (the clamped result is in [0, 255]).
AUG_CLONES void add_clamp_row(std::uint8_t* d, const std::uint8_t* s, const float* add, int n) {
  for (int i = 0; i < n; ++i) {
    const float v = std::min(std::max(to_unit(s[i]) + add[i], 0.f), 1.f);
    d[i] = static_cast<std::uint8_t>(static_cast<int>(rne_float(v * 255.f)));
  }
}
template <class T>
void add_clamp_row(T* d, const T* s, const float* add, int n) {
  for (int i = 0; i < n; ++i) d[i] = from_unit<T>(clamp01(to_unit(s[i]) + add[i]));
}
AUG_CLONES void mul_min_row(std::uint8_t* d, const std::uint8_t* s, const float* mul, int n) {
  for (int i = 0; i < n; ++i) {
    const float v = planckian_value(to_unit(s[i]), mul[i]);  // >= 0 for 8-bit input
    d[i] = static_cast<std::uint8_t>(static_cast<int>(rne_float(v * 255.f)));
  }
}
template <class T>
void mul_min_row(T* d, const T* s, const float* mul, int n) {
  for (int i = 0; i < n; ++i) d[i] = from_unit<T>(planckian_value(to_unit(s[i]), mul[i]));
}

// Restores channel 3 (alpha), which the colour stages leave alone.
template <class T>
void keep_alpha(T* d, const T* s, int width, int channels) {
  if (channels == 4)
    for (int x = 0; x < width; ++x) d[4 * x + 3] = s[4 * x + 3];
}

}  // namespace

template <class T>
void illumination(View<const T> in, View<T> out, const IlluminationArgs& a) {
  const int C = in.channels, n = in.width * C;
  std::vector<float> add(static_cast<std::size_t>(n));
  for (int y = 0; y < in.height; ++y) {
    for (int x = 0; x < in.width; ++x) {
      const float g = a.signed_gain * ((a.gy[y] * a.gx[x] - a.gmin) / a.denom);
      for (int c = 0; c < C; ++c) add[x * C + c] = g;
    }
    add_clamp_row(out.row(y), in.row(y), add.data(), n);
    keep_alpha(out.row(y), in.row(y), in.width, C);
  }
}

template <class T>
void planckian(View<const T> in, View<T> out, float r_w, float b_w) {
  const int C = in.channels, n = in.width * C;
  std::vector<float> mul(static_cast<std::size_t>(n));
  for (int x = 0; x < in.width; ++x) {
    mul[x * C] = r_w;
    mul[x * C + 1] = 1.f;
    mul[x * C + 2] = b_w;
    if (C == 4) mul[x * C + 3] = 1.f;
  }
  for (int y = 0; y < in.height; ++y) {
    mul_min_row(out.row(y), in.row(y), mul.data(), n);
    keep_alpha(out.row(y), in.row(y), in.width, C);
  }
}

namespace {

// elastic_noise over n consecutive pixels (vectorised: Philox is integer lane arithmetic).
AUG_CLONES void noise_row(const KeyedStream& s, std::size_t first, int n, float* nx, float* ny) {
  for (int i = 0; i < n; ++i) elastic_noise(s, first + static_cast<std::size_t>(i), nx[i], ny[i]);
}

// Source coordinates of a row: px[x] = elastic_source(x, alpha_x dx[x]), py[x] = elastic_source(y, alpha_y dy[x]).
AUG_CLONES void source_row(float* px, float* py, const float* dx, const float* dy, int y, const ElasticArgs& a, int W,
                           int H) {
  for (int x = 0; x < W; ++x) {
    px[x] = elastic_source(x, a.alpha_x * dx[x], W, a.padding);
    py[x] = elastic_source(y, a.alpha_y * dy[x], H, a.padding);
  }
}

// Source coordinates in 1/32 pixel, RNE(p * 32) (|p| < 2^26, so 32 bits hold them).
AUG_CLONES void fixed_coords(int* __restrict X, int* __restrict Y, const float* px, const float* py, int n) {
  for (int x = 0; x < n; ++x) {
    X[x] = static_cast<int>(rne_float(px[x] * 32.f));
    Y[x] = static_cast<int>(rne_float(py[x] * 32.f));
  }
}

// 8- and 16-bit bilinear sampling of a row: elastic_sample_at's fixed-point taps, with the
// all-inside case in 32-bit arithmetic (the weights total 2^15, so the sums fit and the rounded
// result needs no clamp) and the border cases left to elastic_sample_at itself.
template <class T, int C>
void sample_row_fixed(const View<const T>& in, T* d, const float* px, const float* py, int n, const ElasticArgs& a,
                      int* fixed) {
  const int W = in.width, H = in.height;
  fixed_coords(fixed, fixed + n, px, py, n);
  for (int x = 0; x < n; ++x) {
    const int X = fixed[x], Y = fixed[n + x];
    const int x0 = X >> 5, y0 = Y >> 5;
    if (x0 < 0 || y0 < 0 || x0 + 1 >= W || y0 + 1 >= H) {
      elastic_sample_at(in, d + x * C, px[x], py[x], a);
      continue;
    }
    const auto fx = static_cast<std::uint32_t>(X & 31), fy = static_cast<std::uint32_t>(Y & 31);
    const std::uint32_t w0 = (32 - fx) * (32 - fy) * 32, w1 = fx * (32 - fy) * 32, w2 = (32 - fx) * fy * 32, w3 = fx * fy * 32;
    const T* r0 = in.row(y0) + x0 * C;
    const T* r1 = in.row(y0 + 1) + x0 * C;
    for (int c = 0; c < C; ++c)
      d[x * C + c] = static_cast<T>((w0 * r0[c] + w1 * r0[C + c] + w2 * r1[c] + w3 * r1[C + c] + 16384u) >> 15);
  }
}

// `fixed` holds 2n ints.
template <class T>
void sample_row(const View<const T>& in, T* d, const float* px, const float* py, int n, const ElasticArgs& a,
                int* fixed) {
  if constexpr (!std::is_same_v<T, float>) {
    if (!a.nearest) {
      switch (in.channels) {
        case 1: return sample_row_fixed<T, 1>(in, d, px, py, n, a, fixed);
        case 3: return sample_row_fixed<T, 3>(in, d, px, py, n, a, fixed);
        case 4: return sample_row_fixed<T, 4>(in, d, px, py, n, a, fixed);
        default: break;
      }
    }
  }
  for (int x = 0; x < n; ++x) elastic_sample_at(in, d + x * in.channels, px[x], py[x], a);
}

}  // namespace

// Streams the rows: the x-smoothed noise rows live in a ring of ky_size rows, each made just
// before the first output row that needs it, so the scratch is O(width x kernel height).
template <class T>
void elastic(View<const T> in, View<T> out, const ElasticArgs& a) {
  const int W = in.width, H = in.height, K = a.ky_size, ry = K / 2;
  const auto w = static_cast<std::size_t>(W);
  // Noise rows with kx_size / 2 zeros on either side: the x smoothing becomes one convolution
  // whose out-of-image terms add +0, which leaves every sum as the kernels' skipping leaves it.
  const int rx = a.kx_size / 2;
  const std::size_t padded = w + 2 * static_cast<std::size_t>(rx);
  std::vector<float> ring(2 * static_cast<std::size_t>(K) * w), noise(2 * padded), acc(2 * w), src(2 * w);
  float* nx = noise.data() + rx;
  float* ny = nx + padded;
  float* ax = acc.data();
  float* ay = ax + w;
  float* px = src.data();
  float* py = px + w;
  std::vector<const float*> rows_x(static_cast<std::size_t>(K)), rows_y(rows_x.size());
  std::vector<int> fixed(2 * w);
  auto smoothed_x = [&](int row) { return ring.data() + static_cast<std::size_t>(row % K) * 2 * w; };
  auto smoothed_y = [&](int row) { return smoothed_x(row) + w; };
  int made = 0;  // rows [0, made) have been smoothed along x
  for (int y = 0; y < H; ++y) {
    for (; made < H && made <= y + K - 1 - ry; ++made) {
      noise_row(a.stream, static_cast<std::size_t>(made) * w, W, nx, ny);
      conv_row(smoothed_x(made), nx - rx, W, a.kx, a.kx_size, 1);
      conv_row(smoothed_y(made), ny - rx, W, a.kx, a.kx_size, 1);
    }
    // The rows inside the image, taps in order (zero padding skips the others).
    const int k0 = std::max(0, ry - y), k1 = std::min(K, H + ry - y);
    for (int k = k0; k < k1; ++k) {
      rows_x[k - k0] = smoothed_x(y + k - ry);
      rows_y[k - k0] = smoothed_y(y + k - ry);
    }
    sum_rows(ax, rows_x.data(), W, a.ky + k0, k1 - k0);
    sum_rows(ay, rows_y.data(), W, a.ky + k0, k1 - k0);
    source_row(px, py, ax, ay, y, a, W, H);
    sample_row(in, out.row(y), px, py, W, a, fixed.data());
  }
}

namespace {

// Row kernels: each body is written once as a template and cloned for AVX2 through the wrappers.
template <class T>
[[gnu::always_inline]] inline void ycc_body(float* __restrict y, float* __restrict cb, float* __restrict cr,
                                            const T* __restrict s, int w, int wp, int C) {
  for (int x = 0; x < w; ++x) kornia_ycc(to_unit(s[x * C]), to_unit(s[x * C + 1]), to_unit(s[x * C + 2]), y[x], cb[x], cr[x]);
  for (int x = w; x < wp; ++x) {  // the padding replicates the last column
    y[x] = y[w - 1];
    cb[x] = cb[w - 1];
    cr[x] = cr[w - 1];
  }
}
AUG_CLONES void ycc_row(float* y, float* cb, float* cr, const std::uint8_t* s, int w, int wp, int C) {
  ycc_body(y, cb, cr, s, w, wp, C);
}
template <class T>
void ycc_row(float* y, float* cb, float* cr, const T* s, int w, int wp, int C) {
  ycc_body(y, cb, cr, s, w, wp, C);
}

// d[x] = blur3(s[x - 1], s[x], s[x + 1]), reflected at both ends (n >= 2).
AUG_CLONES void blur3_row(float* __restrict d, const float* s, int n, const float* t) {
  d[0] = kornia_blur3(t, s[1], s[0], s[1]);
  for (int x = 1; x < n - 1; ++x) d[x] = kornia_blur3(t, s[x - 1], s[x], s[x + 1]);
  d[n - 1] = kornia_blur3(t, s[n - 2], s[n - 1], s[n - 2]);
}
// d[x] = blur3(a[x], b[x], c[x]): the blur across three rows.
AUG_CLONES void blur3_rows(float* __restrict d, const float* a, const float* b, const float* c, int n, const float* t) {
  for (int x = 0; x < n; ++x) d[x] = kornia_blur3(t, a[x], b[x], c[x]);
}
// d[j] = the mean of the 2x2 block at column 2j of rows a, b.
AUG_CLONES void halve_row(float* __restrict d, const float* a, const float* b, int n) {
  for (int j = 0; j < n; ++j) d[j] = kornia_mean4(a[2 * j], a[2 * j + 1], b[2 * j], b[2 * j + 1]);
}

// A row of 8x8 blocks, each as kernels/jpeg.cu's kornia_block computes it, with each pass as
// eight sums at once (one per lane) that still add their terms in index order.
AUG_CLONES void kornia_block_row(float* f, int pitch, int blocks, const float* q, const KorniaJpegTables& t) {
  f8 basis[8], basis_t[8], scale[8], quant[8];  // rows: basis[y] over v, basis_t[v] over y
  for (int i = 0; i < 8; ++i) {
    load8(basis[i], t.basis[i]);
    load8(scale[i], t.scale[i]);
    load8(quant[i], q + 8 * i);
    for (int j = 0; j < 8; ++j) basis_t[i][j] = t.basis[j][i];
  }
  for (int b = 0; b < blocks; ++b, f += 8) {
    f8 tmp[8], F[8];
    for (int x = 0; x < 8; ++x) {  // tmp[x][v] = sum_y (f[x][y] - 128) basis[y][v]
      f8 a;
      load8(a, f + x * pitch);
      a = a - 128.f;
      f8 s = {};
      for (int y = 0; y < 8; ++y) s = s + a[y] * basis[y];
      tmp[x] = s;
    }
    for (int u = 0; u < 8; ++u) {  // F[u][v] = quantise(sum_x basis[x][u] tmp[x][v])
      f8 s = {};
      for (int x = 0; x < 8; ++x) s = s + t.basis[x][u] * tmp[x];
      for (int v = 0; v < 8; ++v) F[u][v] = kornia_quantise(s[v], scale[u][v], quant[u][v]);
    }
    for (int x = 0; x < 8; ++x) {  // tmp[x][v] = sum_u basis[x][u] F[u][v]
      f8 s = {};
      for (int u = 0; u < 8; ++u) s = s + t.basis[x][u] * F[u];
      tmp[x] = s;
    }
    for (int x = 0; x < 8; ++x) {  // f[x][y] = sum_v basis[y][v] tmp[x][v] + 128
      f8 s = {};
      for (int v = 0; v < 8; ++v) s = s + basis_t[v] * tmp[x][v];
      s = s + 128.f;
      std::memcpy(f + x * pitch, &s, sizeof s);
    }
  }
}

// An output row: the chroma rows upsampled x2 (columns from precomputed taps), YCbCr -> RGB as
// planar values, then interleaved.
struct DecodeRow {
  const float *y, *cb0, *cb1, *cr0, *cr1;  // luma row; the two chroma rows of each plane
  const int *x0, *x1;
  const float* lx;
  float ly;
  float *cb, *cr, *r, *g, *b;  // w floats each
};
AUG_CLONES void upsample_row(float* __restrict d, const float* r0, const float* r1, const int* x0, const int* x1,
                             const float* lx, float ly, int w) {
  for (int x = 0; x < w; ++x) d[x] = kornia_bilinear(r0[x0[x]], r0[x1[x]], r1[x0[x]], r1[x1[x]], lx[x], ly);
}
AUG_CLONES void rgb_row(float* __restrict r, float* __restrict g, float* __restrict b, const float* __restrict y,
                        const float* __restrict cb, const float* __restrict cr, int w) {
  for (int x = 0; x < w; ++x) kornia_rgb(y[x], cb[x], cr[x], r[x], g[x], b[x]);
}
// from_unit's RNE(v * max) for v in [0, 1], kept as floats so that the loop vectorises; the
// integer conversion after it is exact.
AUG_CLONES void scale_round_row(float* v, int n, float max) {
  for (int i = 0; i < n; ++i) v[i] = rne_float(v[i] * max);
}
template <class T>
void decode_row(T* d, const T* in, const DecodeRow& a, int w, int C) {
  upsample_row(a.cb, a.cb0, a.cb1, a.x0, a.x1, a.lx, a.ly, w);
  upsample_row(a.cr, a.cr0, a.cr1, a.x0, a.x1, a.lx, a.ly, w);
  rgb_row(a.r, a.g, a.b, a.y, a.cb, a.cr, w);
  if constexpr (!std::is_same_v<T, float>)
    for (float* v : {a.r, a.g, a.b}) scale_round_row(v, w, static_cast<float>(SampleTraits<T>::max));
  for (int x = 0; x < w; ++x) {
    d[x * C] = static_cast<T>(a.r[x]);
    d[x * C + 1] = static_cast<T>(a.g[x]);
    d[x * C + 2] = static_cast<T>(a.b[x]);
    if (C == 4) d[x * C + 3] = in[x * C + 3];
  }
}

}  // namespace

template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables& t, void* scratch) {
  const KorniaPlanes p = KorniaPlanes::make(in.width, in.height, scratch);
  const int wp = p.wp, hp = p.hp, cw = wp / 2, ch = hp / 2;
  auto row = [](float* plane, int pitch, int y) { return plane + static_cast<std::size_t>(y) * pitch; };
  // Colour conversion, padding rows replicate the last row; the blur along x.
  for (int y = 0; y < hp; ++y) {
    ycc_row(row(p.y, wp, y), row(p.cb, wp, y), row(p.cr, wp, y), in.row(std::min(y, p.h - 1)), p.w, wp, in.channels);
    blur3_row(row(p.tmp_cb, wp, y), row(p.cb, wp, y), wp, t.blur);
    blur3_row(row(p.tmp_cr, wp, y), row(p.cr, wp, y), wp, t.blur);
  }
  // The blur along y and the halving; p.cb and p.cr are free again and hold the blurred rows.
  for (int i = 0; i < ch; ++i)
    for (auto [src, dst] : {std::pair{p.tmp_cb, p.cbs}, std::pair{p.tmp_cr, p.crs}}) {
      float* upper = p.cb;
      float* lower = p.cb + wp;
      for (int k = 0; k < 2; ++k) {
        const int y = 2 * i + k;
        blur3_rows(k == 0 ? upper : lower, row(src, wp, kornia_reflect(y - 1, hp)), row(src, wp, y),
                   row(src, wp, kornia_reflect(y + 1, hp)), wp, t.blur);
      }
      halve_row(row(dst, cw, i), upper, lower, cw);
    }
  // The blocks.
  for (int by = 0; by < hp / 8; ++by) kornia_block_row(row(p.y, wp, 8 * by), wp, wp / 8, t.q_luma, t);
  for (float* plane : {p.cbs, p.crs})
    for (int by = 0; by < ch / 8; ++by) kornia_block_row(row(plane, cw, 8 * by), cw, cw / 8, t.q_chroma, t);
  // Upsampling and back to RGB; the column taps once for the image.
  const auto w = static_cast<std::size_t>(in.width);
  std::vector<int> x0(w), x1(w);
  std::vector<float> lx(w), rows(5 * w);
  for (int x = 0; x < in.width; ++x) kornia_half_pixel(x, cw, x0[x], x1[x], lx[x]);
  for (int y = 0; y < in.height; ++y) {
    int y0, y1;
    float ly;
    kornia_half_pixel(y, ch, y0, y1, ly);
    const DecodeRow r{row(p.y, wp, y), row(p.cbs, cw, y0), row(p.cbs, cw, y1), row(p.crs, cw, y0), row(p.crs, cw, y1),
                      x0.data(), x1.data(), lx.data(), ly, rows.data(), rows.data() + w, rows.data() + 2 * w,
                      rows.data() + 3 * w, rows.data() + 4 * w};
    decode_row(out.row(y), in.row(y), r, in.width, out.channels);
  }
}

template void separable<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, AxisTaps, AxisTaps, int);
template void separable<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, AxisTaps, AxisTaps, int);
template void separable<float>(View<const float>, View<float>, AxisTaps, AxisTaps, int);
template void channel_gain<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const GainArgs&);
template void channel_gain<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const GainArgs&);
template void channel_gain<float>(View<const float>, View<float>, const GainArgs&);
template void illumination<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const IlluminationArgs&);
template void illumination<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const IlluminationArgs&);
template void illumination<float>(View<const float>, View<float>, const IlluminationArgs&);
template void planckian<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, float, float);
template void planckian<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, float, float);
template void planckian<float>(View<const float>, View<float>, float, float);
template void elastic<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const ElasticArgs&);
template void elastic<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const ElasticArgs&);
template void elastic<float>(View<const float>, View<float>, const ElasticArgs&);
template void jpeg_kornia<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const KorniaJpegTables&, void*);
template void jpeg_kornia<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const KorniaJpegTables&, void*);
template void jpeg_kornia<float>(View<const float>, View<float>, const KorniaJpegTables&, void*);

}  // namespace aug::k::cpu
