#include "kernels/filter/median_blur.hpp"

namespace aug::k {

namespace median_blur_impl {
namespace {

template <class T>
struct MedianPixel {
  AUG_FIELDS(MedianPixel, in, out, radius)
  View<const T> in;
  View<T> out;
  int radius;

  static constexpr int kBits = std::is_same_v<T, float> ? 32 : 8 * static_cast<int>(sizeof(T));

  AUG_HD int clamp(int v, int len) const { return v < 0 ? 0 : (v >= len ? len - 1 : v); }

  // Windows of up to kSmall values are gathered once (with their edges replicated) and selected
  // from there; larger ones are read from the image on every pass. The same selection either way.
  static constexpr int kSmall = 49;

  AUG_HD void operator()(int x, int y) const {
    const int C = in.channels, k = 2 * radius + 1;
    const int rank = k * k / 2;  // the middle of k*k values, 0-based
    for (int c = 0; c < C; ++c) {
      std::uint32_t keys[kSmall];
      const bool small = k * k <= kSmall;
      if (small)
        for (int dy = -radius, i = 0; dy <= radius; ++dy) {
          const T* r = in.row(clamp(y + dy, in.height));
          for (int dx = -radius; dx <= radius; ++dx, ++i) keys[i] = median_key<T>(r[clamp(x + dx, in.width) * C + c]);
        }
      std::uint32_t prefix = 0, mask = 0;
      int below = 0;  // values known to lie below the median
      for (int b = kBits - 1; b >= 0; --b) {
        const std::uint32_t bit = std::uint32_t{1} << b;
        int zeros = 0;  // values that match the prefix and have 0 at bit b
        if (small) {
          for (int i = 0; i < k * k; ++i) zeros += (keys[i] & mask) == prefix && (keys[i] & bit) == 0;
        } else {
          for (int dy = -radius; dy <= radius; ++dy) {
            const T* r = in.row(clamp(y + dy, in.height));
            for (int dx = -radius; dx <= radius; ++dx) {
              const std::uint32_t key = median_key<T>(r[clamp(x + dx, in.width) * C + c]);
              zeros += (key & mask) == prefix && (key & bit) == 0;
            }
          }
        }
        if (rank >= below + zeros) {
          below += zeros;
          prefix |= bit;
        }
        mask |= bit;
      }
      out.row(y)[x * C + c] = median_value<T>(prefix);
    }
  }
};

}  // namespace
}  // namespace median_blur_impl

template <class T>
void median_blur(View<const T> in, View<T> out, int ksize, const Exec& exec) {
  if (ksize < 1 || ksize % 2 == 0) throw KernelError("median_blur: the kernel size must be odd and positive");
  for_2d(median_blur_impl::MedianPixel<T>{in, out, ksize / 2}, out.width, out.height, exec, "median_blur");
}

template void median_blur<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, int, const Exec&);
template void median_blur<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, int, const Exec&);
template void median_blur<float>(View<const float>, View<float>, int, const Exec&);

}  // namespace aug::k
