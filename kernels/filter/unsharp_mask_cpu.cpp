// unsharp_mask's host driver: rows streamed through rings of k rows (x, b, and the horizontal sums
// of x and of the mask), so that each row is blurred, masked, blurred again and blended while it is
// in cache. The sums are the kernels' (horizontal, then vertical; taps in order from +0, reflect101),
// lane-wise in eight-lane vectors. With OpenCV's fixed kernels (sigma 0, k <= 7) every weight is a
// multiple of 1/64: the mask's two blurs are then exact in binary32 whatever the order, equal to
// integer sums over 4096, which the driver computes in 16-bit lanes.
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/core/border.hpp"
#include "kernels/core/host_simd.hpp"
#include "kernels/filter/unsharp_mask.hpp"

namespace aug::k::cpu {

namespace {

// dst = the horizontal blur of one row (n = W * C values).
void blur_row(float* dst, const float* src, int W, int C, const float* w, int k) {
  const int r = k / 2;
  if (W > 2 * r) conv_row(dst + r * C, src, (W - 2 * r) * C, w, k, C);
  const int left = W > 2 * r ? r : W;  // the columns whose taps reach past an edge: [0, left) and [right, W)
  const int right = W > 2 * r ? W - r : W;
  for (int x = 0; x < W; x = x + 1 == left ? right : x + 1) {
    for (int c = 0; c < C; ++c) {
      float acc = 0.0f;
      for (int i = 0; i < k; ++i) acc = acc + w[i] * src[border_index(x + i - r, W, kBorderReflect101) * C + c];
      dst[x * C + c] = acc;
    }
  }
}

// The weights times 64, when they are all whole numbers (then they sum to 64); else empty.
std::vector<std::uint16_t> weights_64(const float* w, int k) {
  std::vector<std::uint16_t> q;
  int sum = 0;
  for (int i = 0; i < k; ++i) {
    const float v = w[i] * 64.0f;  // exact: a power of two
    if (!(v >= 0.0f && v <= 64.0f) || v != std::floor(v)) return {};
    q.push_back(static_cast<std::uint16_t>(v));
    sum += q.back();
  }
  if (sum != 64) return {};
  return q;
}

// Sixteen 16-bit lanes (GCC vector extension); the sums stay below 2^13, nothing wraps.
using u16x16 = std::uint16_t __attribute__((vector_size(32)));

// out[j] = sum_i q[i] * src(i)[j], exact.
template <class Src>
[[gnu::always_inline]] inline void integer_sum(std::uint16_t* __restrict out, Src src, int n, const std::uint16_t* q,
                                               int k) {
  int j = 0;
  for (; j + 32 <= n; j += 32) {
    u16x16 a0 = {}, a1 = {};
    for (int i = 0; i < k; ++i) {
      u16x16 v0, v1;
      std::memcpy(&v0, src(i) + j, sizeof v0);
      std::memcpy(&v1, src(i) + j + 16, sizeof v1);
      a0 = a0 + q[i] * v0;
      a1 = a1 + q[i] * v1;
    }
    std::memcpy(out + j, &a0, sizeof a0);
    std::memcpy(out + j + 16, &a1, sizeof a1);
  }
  for (; j < n; ++j) {
    unsigned acc = 0;
    for (int i = 0; i < k; ++i) acc += q[i] * src(i)[j];
    out[j] = static_cast<std::uint16_t>(acc);
  }
}

AUG_CLONES void conv_row16(std::uint16_t* out, const std::uint16_t* src, int n, const std::uint16_t* q, int k,
                           int step) {
  integer_sum(out, [&](int i) { return src + i * step; }, n, q, k);
}

AUG_CLONES void sum_rows16(std::uint16_t* out, const std::uint16_t* const* rows, int n, const std::uint16_t* q, int k) {
  integer_sum(out, [&](int i) { return rows[i]; }, n, q, k);
}

// The horizontal sums of a 0/1 mask row, in 64ths (at most 64).
void blur_row16(std::uint16_t* dst, const std::uint16_t* src, int W, int C, const std::uint16_t* q, int k) {
  const int r = k / 2;
  if (W > 2 * r) conv_row16(dst + r * C, src, (W - 2 * r) * C, q, k, C);
  const int left = W > 2 * r ? r : W, right = W > 2 * r ? W - r : W;
  for (int x = 0; x < W; x = x + 1 == left ? right : x + 1) {
    for (int c = 0; c < C; ++c) {
      int acc = 0;
      for (int i = 0; i < k; ++i) acc += q[i] * src[border_index(x + i - r, W, kBorderReflect101) * C + c];
      dst[x * C + c] = static_cast<std::uint16_t>(acc);
    }
  }
}

AUG_CLONES void mask_row16(std::uint16_t* m, const float* x, const float* b, int n, float threshold) {
  for (int i = 0; i < n; ++i) m[i] = unsharp_mask_value(x[i], b[i], threshold) != 0.0f ? 1 : 0;
}

// Eight lanes of a sample type (the vector extension converts lane by lane).
using u8x8 = std::uint8_t __attribute__((vector_size(8)));
using u16x8 = std::uint16_t __attribute__((vector_size(16)));
using i32x8 = std::int32_t __attribute__((vector_size(32)));
template <class T> struct Lanes8;
template <> struct Lanes8<std::uint8_t> { using type = u8x8; };
template <> struct Lanes8<std::uint16_t> { using type = u16x8; };

template <class T>
[[gnu::always_inline]] inline void load_f8(f8& v, const T* p) {
  if constexpr (std::is_same_v<T, float>) {
    std::memcpy(&v, p, sizeof v);
  } else {
    typename Lanes8<T>::type t;
    std::memcpy(&t, p, sizeof t);
    v = __builtin_convertvector(t, f8);
  }
}

template <class T>
AUG_CLONES void unit_row(float* x, const T* s, int n) {
  int i = 0;
  const f8 max = f8{} + static_cast<float>(SampleTraits<T>::max);
  for (; i + 8 <= n; i += 8) {
    f8 v;
    load_f8(v, s + i);
    v = v / max;  // IEEE division, lane by lane
    std::memcpy(x + i, &v, sizeof v);
  }
  for (; i < n; ++i) x[i] = to_unit(s[i]);
}

AUG_CLONES void mask_row(float* m, const float* x, const float* b, int n, float threshold) {
  for (int i = 0; i < n; ++i) m[i] = unsharp_mask_value(x[i], b[i], threshold);
}

[[gnu::always_inline]] inline void clamp01_f8(f8& v) {
  const f8 zero = {}, one = zero + 1.0f;
  v = v < zero ? zero : v;  // the kernels' two selects, lane by lane
  v = v > one ? one : v;
}

// `s`: the soft weights, or (S = uint16) the exact ones in 4096ths.
template <class T, class S>
AUG_CLONES void blend_row(T* out, const float* x, const float* b, const S* s, int n, float alpha) {
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    f8 xv, bv, sv;
    load_f8(xv, x + i);
    load_f8(bv, b + i);
    if constexpr (std::is_same_v<S, float>) {
      load_f8(sv, s + i);
    } else {
      u16x8 t;
      std::memcpy(&t, s + i, sizeof t);
      sv = __builtin_convertvector(t, f8) * (1.0f / 4096.0f);
    }
    const f8 r = xv - bv;
    f8 sharp = xv + alpha * r;
    clamp01_f8(sharp);
    f8 o = sharp * sv + xv * (1.0f - sv);
    clamp01_f8(o);
    if constexpr (std::is_same_v<T, float>) {
      std::memcpy(out + i, &o, sizeof o);
    } else {
      // o * max is in [0, max], below 2^23: adding and taking away 2^23 rounds it half to even.
      const f8 big = f8{} + 8388608.0f;
      const f8 q = (o * static_cast<float>(SampleTraits<T>::max) + big) - big;
      const typename Lanes8<T>::type v = __builtin_convertvector(__builtin_convertvector(q, i32x8), typename Lanes8<T>::type);
      std::memcpy(out + i, &v, sizeof v);
    }
  }
  for (; i < n; ++i) {
    float sv;
    if constexpr (std::is_same_v<S, float>) sv = s[i];
    else sv = static_cast<float>(s[i]) * (1.0f / 4096.0f);
    out[i] = from_unit<T>(unsharp_blend(x[i], b[i], sv, alpha));
  }
}

}  // namespace

template <class T>
void unsharp_mask(View<const T> in, View<T> out, const UnsharpArgs& a) {
  const int W = in.width, H = in.height, C = in.channels, n = W * C, k = a.taps, r = k / 2;
  const float* w = a.weights;
  // Rings of k rows: 0 x, 1 b, 2 horizontal sums of x, 3 horizontal sums of the mask; then a mask
  // row and a soft row.
  std::vector<float> buf((4 * static_cast<std::size_t>(k) + 2) * n);
  auto ring = [&](int which, int row) {
    return buf.data() + (static_cast<std::size_t>(which) * k + static_cast<std::size_t>(row % k)) * n;
  };
  float* mrow = buf.data() + 4 * static_cast<std::size_t>(k) * n;
  float* srow = mrow + n;
  std::vector<const float*> rows(static_cast<std::size_t>(k));
  // The exact integer path for the mask: a ring of its horizontal sums in 64ths, a mask row, a soft row.
  const std::vector<std::uint16_t> q = weights_64(w, k);
  const bool exact = !q.empty();
  std::vector<std::uint16_t> ibuf(exact ? (static_cast<std::size_t>(k) + 2) * n : 0);
  auto iring = [&](int row) { return ibuf.data() + static_cast<std::size_t>(row % k) * n; };
  std::uint16_t* m16 = exact ? ibuf.data() + static_cast<std::size_t>(k) * n : nullptr;
  std::uint16_t* s16 = exact ? m16 + n : nullptr;
  std::vector<const std::uint16_t*> irows(static_cast<std::size_t>(k));
  // Row t enters; row t - r gets its blur and mask; row t - 2r its soft weight and its output. The
  // rows a vertical sum reads (reflected) all lie within the k rows the rings hold then.
  for (int t = 0; t < H + 2 * r; ++t) {
    if (t < H) {
      float* x = ring(0, t);
      if constexpr (std::is_same_v<T, float>) std::memcpy(x, in.row(t), static_cast<std::size_t>(n) * sizeof(float));
      else unit_row(x, in.row(t), n);
      blur_row(ring(2, t), x, W, C, w, k);
    }
    const int c1 = t - r;
    if (c1 >= 0 && c1 < H) {
      for (int i = 0; i < k; ++i) rows[static_cast<std::size_t>(i)] = ring(2, border_index(c1 + i - r, H, kBorderReflect101));
      float* b = ring(1, c1);
      sum_rows(b, rows.data(), n, w, k);
      if (exact) {
        mask_row16(m16, ring(0, c1), b, n, a.threshold);
        blur_row16(iring(c1), m16, W, C, q.data(), k);
      } else {
        mask_row(mrow, ring(0, c1), b, n, a.threshold);
        blur_row(ring(3, c1), mrow, W, C, w, k);
      }
    }
    const int c2 = t - 2 * r;
    if (c2 >= 0 && c2 < H) {
      if (exact) {
        for (int i = 0; i < k; ++i)
          irows[static_cast<std::size_t>(i)] = iring(border_index(c2 + i - r, H, kBorderReflect101));
        sum_rows16(s16, irows.data(), n, q.data(), k);
        blend_row(out.row(c2), ring(0, c2), ring(1, c2), s16, n, a.alpha);
      } else {
        for (int i = 0; i < k; ++i)
          rows[static_cast<std::size_t>(i)] = ring(3, border_index(c2 + i - r, H, kBorderReflect101));
        sum_rows(srow, rows.data(), n, w, k);
        blend_row(out.row(c2), ring(0, c2), ring(1, c2), srow, n, a.alpha);
      }
    }
  }
}

template void unsharp_mask<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const UnsharpArgs&);
template void unsharp_mask<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const UnsharpArgs&);
template void unsharp_mask<float>(View<const float>, View<float>, const UnsharpArgs&);

}  // namespace aug::k::cpu
