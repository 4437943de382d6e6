// unsharp_mask's host driver: rows streamed through rings of k rows (x, b, and the horizontal sums
// of x and of the mask), so that each row is blurred, masked, blurred again and blended while it is
// in cache. The sums are the kernels' (horizontal, then vertical; taps in order from +0, reflect101),
// lane-wise in eight-lane vectors.
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
  for (int x = 0; x < W; ++x) {
    if (x >= r && x < W - r) continue;
    for (int c = 0; c < C; ++c) {
      float acc = 0.0f;
      for (int i = 0; i < k; ++i) acc = acc + w[i] * src[border_index(x + i - r, W, kBorderReflect101) * C + c];
      dst[x * C + c] = acc;
    }
  }
}

template <class T>
AUG_CLONES void unit_row(float* x, const T* s, int n) {
  for (int i = 0; i < n; ++i) x[i] = to_unit(s[i]);
}

AUG_CLONES void mask_row(float* m, const float* x, const float* b, int n, float threshold) {
  for (int i = 0; i < n; ++i) m[i] = unsharp_mask_value(x[i], b[i], threshold);
}

template <class T>
AUG_CLONES void blend_row(T* out, const float* x, const float* b, const float* s, int n, float alpha) {
  for (int i = 0; i < n; ++i) {
    const float o = unsharp_blend(x[i], b[i], s[i], alpha);
    if constexpr (std::is_same_v<T, float>) {
      out[i] = o;
    } else {
      // o is in [0, 1]: rne(o * max) is in [0, max], the saturation of from_unit a no-op.
      out[i] = static_cast<T>(rne_float(o * static_cast<float>(SampleTraits<T>::max)));
    }
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
  // Row t enters; row t - r gets its blur and mask; row t - 2r its soft weight and its output. The
  // rows a vertical sum reads (reflected) all lie within the k rows the rings hold then.
  for (int t = 0; t < H + 2 * r; ++t) {
    if (t < H) {
      float* x = ring(0, t);
      if constexpr (std::is_same_v<T, float>) {
        const float* s = in.row(t);
        for (int i = 0; i < n; ++i) x[i] = s[i];
      } else {
        unit_row(x, in.row(t), n);
      }
      blur_row(ring(2, t), x, W, C, w, k);
    }
    const int c1 = t - r;
    if (c1 >= 0 && c1 < H) {
      for (int i = 0; i < k; ++i) rows[static_cast<std::size_t>(i)] = ring(2, border_index(c1 + i - r, H, kBorderReflect101));
      float* b = ring(1, c1);
      sum_rows(b, rows.data(), n, w, k);
      mask_row(mrow, ring(0, c1), b, n, a.threshold);
      blur_row(ring(3, c1), mrow, W, C, w, k);
    }
    const int c2 = t - 2 * r;
    if (c2 >= 0 && c2 < H) {
      for (int i = 0; i < k; ++i) rows[static_cast<std::size_t>(i)] = ring(3, border_index(c2 + i - r, H, kBorderReflect101));
      sum_rows(srow, rows.data(), n, w, k);
      blend_row(out.row(c2), ring(0, c2), ring(1, c2), srow, n, a.alpha);
    }
  }
}

template void unsharp_mask<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const UnsharpArgs&);
template void unsharp_mask<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const UnsharpArgs&);
template void unsharp_mask<float>(View<const float>, View<float>, const UnsharpArgs&);

}  // namespace aug::k::cpu
