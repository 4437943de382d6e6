#include "kernels/color/sharpness.hpp"

namespace aug::k {

namespace sharpness_impl {
namespace {

template <class T>
struct SharpnessPixel {
  AUG_FIELDS(SharpnessPixel, in, out, a)
  View<const T> in;
  View<T> out;
  SharpnessArgs a;

  AUG_HD void operator()(int x, int y) const {
    const int C = in.channels;
    const T* s = in.row(y) + x * C;
    T* d = out.row(y) + x * C;
    const bool border = x == 0 || y == 0 || x == in.width - 1 || y == in.height - 1;
    for (int c = 0; c < C; ++c) {
      if (c >= a.color_channels) {
        d[c] = s[c];
        continue;
      }
      if constexpr (std::is_same_v<T, float>) {
        if (border) {
          d[c] = clamp01(s[c]);
          continue;
        }
        const float w = static_cast<float>(1.0 / 13.0), wc = static_cast<float>(5.0 / 13.0);
        float acc = 0.f;
        for (int dy = -1; dy <= 1; ++dy) {
          const T* r = in.row(y + dy) + x * C + c;
          for (int dx = -1; dx <= 1; ++dx) acc = acc + (dx == 0 && dy == 0 ? wc : w) * r[dx * C];
        }
        d[c] = clamp01(s[c] + a.rest * (acc - s[c]));
      } else {
        if (border) {
          d[c] = s[c];
          continue;
        }
        std::int64_t n = 0;
        for (int dy = -1; dy <= 1; ++dy) {
          const T* r = in.row(y + dy) + x * C + c;
          for (int dx = -1; dx <= 1; ++dx)
            if (dx != 0 || dy != 0) n += r[dx * C];
        }
        const float v = static_cast<float>(s[c]);
        const float deg = static_cast<float>(sharpness_degenerate(n, s[c]));
        float o = v + a.rest * (deg - v);
        o = o > 0.f ? o : 0.f;  // NaN (rest -inf times deg - v = 0) to 0, as the device casts it
        const float max = static_cast<float>(SampleTraits<T>::max);
        o = o > max ? max : o;
        d[c] = static_cast<T>(static_cast<std::int32_t>(o));
      }
    }
  }
};

template <class T>
struct SharpnessCopy {
  AUG_FIELDS(SharpnessCopy, in, out)
  View<const T> in;
  View<T> out;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = s[c];
  }
};

}  // namespace
}  // namespace sharpness_impl

template <class T>
void sharpness(View<const T> in, View<T> out, const SharpnessArgs& a, const Exec& exec) {
  if (in.width <= 2 || in.height <= 2) {
    for_2d(sharpness_impl::SharpnessCopy<T>{in, out}, out.width, out.height, exec, "sharpness");
    return;
  }
  if constexpr (std::is_same_v<T, std::uint8_t>)
    if (exec.cpu) return cpu::sharpness(in, out, a);
  for_2d(sharpness_impl::SharpnessPixel<T>{in, out, a}, out.width, out.height, exec, "sharpness");
}

template void sharpness<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SharpnessArgs&, const Exec&);
template void sharpness<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SharpnessArgs&,
                                       const Exec&);
template void sharpness<float>(View<const float>, View<float>, const SharpnessArgs&, const Exec&);

}  // namespace aug::k
