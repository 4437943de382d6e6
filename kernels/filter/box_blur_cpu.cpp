// box_blur's host driver (the CPU backend): the same function as the kernel bodies (box_blur.hpp).
// Integer images, O(1) per value whatever the window: one running sum per column of the rows in
// the window, which gains the entering row and loses the leaving one as the output row moves down,
// then the window sums along x of those column sums (directly for small windows; for larger ones
// from sums of 2, 4, 8, ... values where they fit 16 bits, else slid along the row), then the
// quotient. Integer sums are exact, so neither the order of the passes nor the sliding changes a
// bit. 8-bit images keep their column sums in 16 bits (up to 257 rows), and their window sums too
// up to 15 x 15 (255 * 225 < 2^16): twice the lanes of 32 bits.
// Float images sum each window in the bodies' order (in double: a row left to right, then the
// rows top to bottom), which is what keeps their bits equal; only the row sums are shared.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/core/border.hpp"
#include "kernels/core/host_simd.hpp"
#include "kernels/filter/box_blur.hpp"

namespace aug::k::cpu {

namespace box_blur_cpu_impl {
namespace {

// The row extended by r pixels each side (reflect101): positions -r .. W - 1 + r.
template <class T>
void pad_row(T* p, const T* src, int width, int channels, int r) {
  std::memcpy(p + r * channels, src, static_cast<std::size_t>(width) * channels * sizeof(T));
  for (int i = 1; i <= r; ++i) {
    const T* left = src + border_index(-i, width, kBorderReflect101) * channels;
    const T* right = src + border_index(width - 1 + i, width, kBorderReflect101) * channels;
    for (int c = 0; c < channels; ++c) {
      p[(r - i) * channels + c] = left[c];
      p[(r + width - 1 + i) * channels + c] = right[c];
    }
  }
}

// dst[j] = sum of p[j + t * step] for t < k, terms in t order, j < n.
template <class T, class U>
AUG_CLONES void row_sums_direct(U* __restrict dst, const T* __restrict p, int n, int k, int step) {
  for (int j = 0; j < n; ++j) dst[j] = static_cast<U>(p[j]);
  for (int t = 1; t < k; ++t) {
    const T* q = p + t * step;
    for (int j = 0; j < n; ++j) dst[j] = static_cast<U>(dst[j] + static_cast<U>(q[j]));
  }
}

// Integer images ------------------------------------------------------------------------------

// Windows at most this wide are summed along x directly (k vector adds per value); wider ones
// from sums of 2, 4, 8, ... values (16-bit sums: about 2 log2 k vector adds per value) or slid
// (32-bit sums: a serial add and subtract per value, each channel in a register).
constexpr int kDirectRowSums = 7;
// The horizontal pass runs on pieces of a row this long, so that its buffers stay in L1.
constexpr int kChunk = 1024;

template <class U>
AUG_CLONES void add_shifted(U* __restrict dst, const U* __restrict a, const U* __restrict b, int n) {
  for (int j = 0; j < n; ++j) dst[j] = static_cast<U>(a[j] + b[j]);
}
template <class U>
AUG_CLONES void add_into(U* __restrict dst, const U* __restrict b, int n) {
  for (int j = 0; j < n; ++j) dst[j] = static_cast<U>(dst[j] + b[j]);
}

// dst[j] = sum of p[j + t * step] for t < k (exact integers, so in any order) by doubling: with
// B_m[j] the sum of 2^m values from j, B_{m+1}[j] = B_m[j] + B_m[j + 2^m step], and the sum of k
// values is the B_m of k's binary digits placed end to end. `b0` and `b1` hold n + (k - 1) * step
// values; `p` is left as it was.
template <class U>
void window_sums_doubling(U* __restrict dst, const U* p, int n, int k, int step, U* b0, U* b1) {
  int len = n + (k - 1) * step;  // the valid length of B_m: n + (k - 2^m) * step
  const U* b = p;
  int offset = 0;  // values already in dst
  for (int width = 1; width <= k; width <<= 1) {
    if (k & width) {
      if (offset == 0) std::memcpy(dst, b, static_cast<std::size_t>(n) * sizeof(U));
      else add_into(dst, b + offset * step, n);
      offset += width;
    }
    if ((width << 1) > k) break;
    len -= width * step;
    add_shifted(b0, b, b + width * step, len);
    b = b0;
    std::swap(b0, b1);
  }
}

// The same sums slid along the row, the channels' running sums in registers: each channel's first
// sum directly, then s += p[j + (k - 1) * C] - p[j - C] (modular unsigned arithmetic).
template <class V, class S, int C>
void window_sums_sliding(S* __restrict dst, const V* __restrict p, int n, int k) {
  S s[C];
  for (int c = 0; c < C; ++c) {
    s[c] = 0;
    for (int t = 0; t < k; ++t) s[c] = static_cast<S>(s[c] + p[c + t * C]);
    dst[c] = s[c];
  }
  const V* enter = p + (k - 1) * C;
  for (int j = C; j < n; j += C)
    for (int c = 0; c < C; ++c) {
      s[c] = static_cast<S>(s[c] + enter[j + c] - p[j - C + c]);
      dst[j + c] = s[c];
    }
}

// out[j] = the rounded mean of the window sum s[j].
template <class T, class U>
AUG_CLONES void means(T* __restrict out, const U* __restrict s, int n, BoxDivisor b) {
  for (int j = 0; j < n; ++j)
    out[j] = static_cast<T>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(s[j]) + b.add) * b.mul) >> b.shift);
}

// The column sums of the next window: sum[j] += entering[j] - leaving[j] (modular unsigned
// arithmetic: every intermediate is exact modulo 2^bits and the result fits).
template <class T, class U>
AUG_CLONES void slide(U* __restrict sum, const T* __restrict entering, const T* __restrict leaving, int n) {
  for (int j = 0; j < n; ++j) sum[j] = static_cast<U>(sum[j] + static_cast<U>(entering[j]) - static_cast<U>(leaving[j]));
}
template <class T, class U>
AUG_CLONES void accumulate(U* __restrict sum, const T* __restrict row, int n) {
  for (int j = 0; j < n; ++j) sum[j] = static_cast<U>(sum[j] + static_cast<U>(row[j]));
}

// The vertical pass first (the sums are exact, so the order of the passes changes nothing): one
// running sum per column of the rows in the window (type V), which gains the entering row and
// loses the leaving one as the output row moves down; then, per output row, the window sums along
// x of those column sums (type S; the columns extended by r each side, reflect101) and their means.
template <class T, class V, class S>
void box_integer(View<const T> in, View<T> out, int k) {
  const int r = k / 2, C = in.channels, W = in.width, H = in.height, n = W * C, pad = r * C;
  const BoxDivisor b = box_divisor(k);
  std::vector<V> cols(static_cast<std::size_t>(n + 2 * pad), 0);
  // Chunks of whole pixels: the sliding sums step by C and write C values at a time.
  const int chunk = std::min(n, kChunk / C * C);
  std::vector<S> h(static_cast<std::size_t>(chunk)), b0, b1;
  if constexpr (std::is_same_v<V, S>) b0.resize(static_cast<std::size_t>(chunk + (k - 1) * C)), b1.resize(b0.size());
  V* sum = cols.data() + pad;
  auto source = [&](int p) { return in.row(border_index(p, H, kBorderReflect101)); };
  for (int p = -r; p <= r; ++p) accumulate(sum, source(p), n);
  for (int y = 0; y < H; ++y) {
    if (y > 0) slide(sum, source(y + r), source(y - 1 - r), n);
    for (int i = 1; i <= r; ++i) {
      const int left = border_index(-i, W, kBorderReflect101), right = border_index(W - 1 + i, W, kBorderReflect101);
      for (int c = 0; c < C; ++c) {
        sum[(-i) * C + c] = sum[left * C + c];
        sum[(W - 1 + i) * C + c] = sum[right * C + c];
      }
    }
    T* dst = out.row(y);
    for (int j0 = 0; j0 < n; j0 += chunk) {
      const int len = std::min(chunk, n - j0);
      const V* p = cols.data() + j0;  // the window of output j0 + j starts at column sum j0 + j - r
      if (k <= kDirectRowSums) {
        row_sums_direct(h.data(), p, len, k, C);
      } else if constexpr (sizeof(S) == 2) {  // 16-bit sums: doubling vectorises over twice the lanes
        window_sums_doubling(h.data(), p, len, k, C, b0.data(), b1.data());
      } else {
        switch (C) {
          case 1: window_sums_sliding<V, S, 1>(h.data(), p, len, k); break;
          case 2: window_sums_sliding<V, S, 2>(h.data(), p, len, k); break;
          case 3: window_sums_sliding<V, S, 3>(h.data(), p, len, k); break;
          default: window_sums_sliding<V, S, 4>(h.data(), p, len, k); break;
        }
      }
      means(dst + j0, h.data(), len, b);
    }
  }
}

// Float images --------------------------------------------------------------------------------

// out[j] = (float)(sum of rows[t][j] for t < k, in t order, from 0, * inv), in double.
AUG_CLONES void column_mean(float* __restrict out, const double* const* rows, int n, int k, double inv,
                            double* __restrict acc) {
  for (int j = 0; j < n; ++j) acc[j] = rows[0][j];
  for (int t = 1; t < k; ++t) {
    const double* q = rows[t];
    for (int j = 0; j < n; ++j) acc[j] = acc[j] + q[j];
  }
  for (int j = 0; j < n; ++j) out[j] = static_cast<float>(acc[j] * inv);
}

void box_float(View<const float> in, View<float> out, int k) {
  const int r = k / 2, C = in.channels, W = in.width, H = in.height, n = W * C;
  const double inv = 1.0 / (static_cast<double>(k) * k);
  std::vector<float> pad(static_cast<std::size_t>(W + 2 * r) * C);
  std::vector<double> ring(static_cast<std::size_t>(k) * n), acc(static_cast<std::size_t>(n));
  std::vector<const double*> rows(static_cast<std::size_t>(k));
  auto slot = [&](int p) { return ring.data() + static_cast<std::size_t>((p + r) % k) * n; };
  auto row_sums = [&](int p) {
    pad_row(pad.data(), in.row(border_index(p, H, kBorderReflect101)), W, C, r);
    row_sums_direct(slot(p), pad.data(), n, k, C);
  };
  for (int p = -r; p < r; ++p) row_sums(p);
  for (int y = 0; y < H; ++y) {
    row_sums(y + r);
    for (int t = 0; t < k; ++t) rows[t] = slot(y - r + t);
    column_mean(out.row(y), rows.data(), n, k, inv, acc.data());
  }
}

}  // namespace
}  // namespace box_blur_cpu_impl

template <class T>
void box_blur(View<const T> in, View<T> out, int ksize) {
  if (ksize == 1) {
    for (int y = 0; y < out.height; ++y)
      std::memcpy(out.row(y), in.row(y), static_cast<std::size_t>(in.width) * in.channels * sizeof(T));
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    box_blur_cpu_impl::box_float(in, out, ksize);
  } else if constexpr (sizeof(T) == 1) {
    // Column sums of up to 257 values fit 16 bits, window sums up to 15 x 15 too (255 * 225).
    if (ksize <= 15) box_blur_cpu_impl::box_integer<T, std::uint16_t, std::uint16_t>(in, out, ksize);
    else box_blur_cpu_impl::box_integer<T, std::uint16_t, std::uint32_t>(in, out, ksize);
  } else {
    box_blur_cpu_impl::box_integer<T, std::uint32_t, std::uint32_t>(in, out, ksize);
  }
}

template void box_blur<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, int);
template void box_blur<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, int);
template void box_blur<float>(View<const float>, View<float>, int);

}  // namespace aug::k::cpu
