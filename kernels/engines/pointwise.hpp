// The pointwise engine: stages whose output value depends only on the input value and its channel.
//   8- and 16-bit images: a table per colour channel, built on the host (lib/stages/engines/
//     pointwise.hpp) and applied identically everywhere: out = table[c * entries + in].
//   float images: the stage's own AUG_HD formula f(v, c), run by for_values.
// Channels at index >= `color_channels` (alpha) are copied unchanged.
#pragma once

#include <cstring>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// `table` holds color_channels * (max + 1) values of T, channel-major.
template <class T>
void apply_table(View<const T> in, View<T> out, const T* table, int color_channels, const Exec& exec);

namespace cpu {  // the vectorised host driver of apply_table (the CPU backend)
template <class T>
void apply_table(View<const T> in, View<T> out, const T* table, int color_channels);
}  // namespace cpu

template <class T, class F>
struct PerValue {
  AUG_FIELDS(PerValue, in, out, f, color_channels)
  View<const T> in;
  View<T> out;
  F f;
  int color_channels;

  AUG_HD void operator()(int x, int y) const {
    const T* s = in.row(y) + x * in.channels;
    T* d = out.row(y) + x * out.channels;
    for (int c = 0; c < out.channels; ++c) d[c] = c < color_channels ? f(s[c], c) : s[c];
  }
};

// The same over an image whose rows follow one another (pitch = width * channels values) and whose
// planes start on 16 bytes: the values as one flat array, 16 bytes (one vector load and store) per
// item, so that a GPU moves whole 128-bit words instead of a pixel's 3 or 4 values per thread.
// The last item stops at `count`.
template <class T, class F>
struct PerValueFlat {
  AUG_FIELDS(PerValueFlat, in, out, f, color_channels, channels, count)
  const T* in;
  T* out;
  F f;
  int color_channels;
  int channels;
  std::size_t count;  // values in the image
  static constexpr int kLanes = 16 / static_cast<int>(sizeof(T));
  struct alignas(16) Lanes {
    T v[kLanes];
  };

  AUG_HD void operator()(std::size_t i) const {
    const std::size_t first = i * kLanes;
    int c = static_cast<int>(first % static_cast<std::size_t>(channels));
    if (first + kLanes <= count) {
#if defined(__CUDA_ARCH__)
      Lanes w = *reinterpret_cast<const Lanes*>(in + first);  // one 128-bit load
#else
      Lanes w;
      std::memcpy(&w, in + first, sizeof w);
#endif
      for (int k = 0; k < kLanes; ++k) {
        if (c < color_channels) w.v[k] = f(w.v[k], c);
        if (++c == channels) c = 0;
      }
#if defined(__CUDA_ARCH__)
      *reinterpret_cast<Lanes*>(out + first) = w;
#else
      std::memcpy(out + first, &w, sizeof w);
#endif
    } else {
      for (std::size_t j = first; j < count; ++j) {
        out[j] = c < color_channels ? f(in[j], c) : in[j];
        if (++c == channels) c = 0;
      }
    }
  }
};

// Whether `v` is one flat array of values starting on 16 bytes (what PerValueFlat reads).
template <class T>
AUG_HD bool flat16(const View<T>& v) {
  return v.pitch == static_cast<std::size_t>(v.width) * v.channels * sizeof(T) &&
         reinterpret_cast<std::uintptr_t>(v.data) % 16 == 0;
}

// out = f(in, c) for every value of a colour channel; alpha copied. F: a trivially copyable functor.
template <class T, class F>
void for_values(View<const T> in, View<T> out, const F& f, int color_channels, const Exec& exec, const char* what) {
  if (flat16(in) && flat16(out) && in.channels == out.channels && in.width == out.width && in.height == out.height) {
    const std::size_t count = static_cast<std::size_t>(out.width) * out.height * out.channels;
    constexpr std::size_t lanes = PerValueFlat<T, F>::kLanes;
    for_1d(PerValueFlat<T, F>{in.data, out.data, f, color_channels, out.channels, count}, (count + lanes - 1) / lanes,
           exec, what);
    return;
  }
  for_2d(PerValue<T, F>{in, out, f, color_channels}, out.width, out.height, exec, what);
}

}  // namespace aug::k
