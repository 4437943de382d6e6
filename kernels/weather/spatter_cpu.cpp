// spatter's host driver: the kernels' arithmetic (spatter.hpp) row by row: planar binary32 copies of
// the row's channels, each channel's rain drops (or mud and keep) for the whole row, then the sum (or
// the blend), in loops over one colour that vectorise (AVX2 where the machine has it).
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/weather/spatter.hpp"

namespace aug::k::cpu {

namespace spatter_cpu_impl {
namespace {

// spatter_value's mud and keep for one colour over n layer values.
AUG_CLONES void mud_coefficients(const float* __restrict l, int n, double color, float* __restrict mud,
                                 float* __restrict keep) {
  if (color > 0) {
    for (int i = 0; i < n; ++i) {
      const float m = static_cast<float>(static_cast<double>(l[i]) * color);
      // Clamped after the rounding to binary32 rather than before: rounding is monotonic and 0 and 1
      // are floats, so the value is the same, and float selects vectorise.
      float k = static_cast<float>((color - static_cast<double>(m)) / color);
      k = k < 0.f ? 0.f : k;
      k = k > 1.f ? 1.f : k;
      mud[i] = m;
      keep[i] = k;
    }
  } else {
    for (int i = 0; i < n; ++i) {
      mud[i] = static_cast<float>(static_cast<double>(l[i]) * color);
      keep[i] = 1.0f - l[i];
    }
  }
}

// spatter_value's rain drop for one colour over n layer values: (float)(l * color * scale) in double.
AUG_CLONES void rain_drops(const float* __restrict l, int n, double color, double scale, float* __restrict drop) {
  for (int i = 0; i < n; ++i) drop[i] = static_cast<float>(static_cast<double>(l[i]) * color * scale);
}

// One channel of a row of rain on planar binary32 values: y = x + drop, clamped to [0, 1], then
// scaled by max and rounded half to even (the rounding only for 8/16-bit samples). Where the layer
// is 0 the drop is +0: an 8/16-bit value survives the round trip v / max * max exactly.
AUG_CLONES void rain_plane(float* __restrict x, int n, const float* __restrict drop, float max, bool round) {
  for (int i = 0; i < n; ++i) {
    float v = x[i] + drop[i];
    v = v < 0.f ? 0.f : v;
    v = v > 1.f ? 1.f : v;
    x[i] = v;
  }
  if (round)
    for (int i = 0; i < n; ++i) x[i] = __builtin_rintf(x[i] * max);
}

// One channel of a row of mud on planar binary32 values: y = (float)(x * keep) + mud, clamped to
// [0, 1], then scaled by max and rounded half to even (the rounding only for 8/16-bit samples).
AUG_CLONES void mud_plane(float* __restrict x, int n, const float* __restrict keep, const float* __restrict mud,
                          float max, bool round) {
  for (int i = 0; i < n; ++i) {
    const float kept = x[i] * keep[i];
    float v = kept + mud[i];
    v = v < 0.f ? 0.f : v;
    v = v > 1.f ? 1.f : v;
    x[i] = v;
  }
  if (round)
    for (int i = 0; i < n; ++i) x[i] = __builtin_rintf(x[i] * max);
}

}  // namespace
}  // namespace spatter_cpu_impl

template <class T>
void spatter(View<const T> in, View<T> out, const SpatterArgs& a) {
  using namespace spatter_cpu_impl;
  const int C = in.channels, W = in.width;
  const double color[3] = {a.c0, a.c1, a.c2};
  std::vector<float> mud, keep, plane;
  float max = 1.f;
  if constexpr (!std::is_same_v<T, float>) max = static_cast<float>(SampleTraits<T>::max);
  float unit[256];  // to_unit of every 8-bit value (the same binary32 divisions)
  for (int v = 0; v < 256; ++v) unit[v] = static_cast<float>(v) / 255.f;
  mud.resize(static_cast<std::size_t>(W));
  keep.resize(static_cast<std::size_t>(W));
  plane.resize(static_cast<std::size_t>(C) * W);
  for (int y = 0; y < in.height; ++y) {
    const T* s = in.row(y);
    T* d = out.row(y);
    const float* layer = a.layer + static_cast<std::size_t>(y) * W;
    // Planar values of the row, blended channel by channel, written back: in [0, max] after the
    // clamp, so from_unit's saturation never acts and the cast is exact.
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) {
        if constexpr (std::is_same_v<T, std::uint8_t>) plane[c * W + x] = unit[s[x * C + c]];
        else plane[c * W + x] = to_unit(s[x * C + c]);
      }
    for (int c = 0; c < C; ++c) {
      float* p = plane.data() + c * W;
      if (!a.mud) {
        rain_drops(layer, W, color[c], a.scale, mud.data());
        rain_plane(p, W, mud.data(), max, !std::is_same_v<T, float>);
      } else {
        mud_coefficients(layer, W, color[c], mud.data(), keep.data());
        mud_plane(p, W, keep.data(), mud.data(), max, !std::is_same_v<T, float>);
      }
    }
    for (int x = 0; x < W; ++x)
      for (int c = 0; c < C; ++c) d[x * C + c] = static_cast<T>(plane[c * W + x]);
  }
}

template void spatter<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SpatterArgs&);
template void spatter<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SpatterArgs&);
template void spatter<float>(View<const float>, View<float>, const SpatterArgs&);

}  // namespace aug::k::cpu
