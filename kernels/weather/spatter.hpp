// spatter: Albumentations 2.x's Spatter, the apply step (its float32_io). The liquid layer (one float
// per pixel) is built on the host; every backend applies it to each colour channel c in binary32 on
// x = to_unit(v) (v / max for 8/16-bit samples, the value itself for float):
//   rain  drop = (float)(layer * color_c * scale) in double; y = x + drop
//   mud   mud = (float)(layer * color_c) in double;
//         keep = (float)clip((color_c - mud) / color_c, 0, 1) in double, or (float)(1 - layer) when
//         color_c is 0; y = (float)(x * keep) + mud
// then y clamped to [0, 1] and given back with from_unit (RNE(y * max), saturated).
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct SpatterArgs {
  AUG_FIELDS(SpatterArgs, layer, c0, c1, c2, scale, mud)
  const float* layer = nullptr;   // width * height values, row by row
  double c0 = 0, c1 = 0, c2 = 0;  // the colour, as fractions of 255
  double scale = 1;               // rain: intensity * 0.9
  bool mud = false;
};

AUG_HD double spatter_color(const SpatterArgs& a, int c) { return c == 0 ? a.c0 : (c == 1 ? a.c1 : a.c2); }

// One value of channel c under the layer value l.
template <class T>
AUG_HD T spatter_value(T v, float l, double color, const SpatterArgs& a) {
  const float x = to_unit(v);
  float y;
  if (!a.mud) {
    const float drop = static_cast<float>(static_cast<double>(l) * color * a.scale);
    y = x + drop;
  } else {
    const float mud = static_cast<float>(static_cast<double>(l) * color);
    float keep;
    if (color > 0) {
      double k = (color - static_cast<double>(mud)) / color;
      k = k < 0 ? 0 : (k > 1 ? 1 : k);
      keep = static_cast<float>(k);
    } else {
      keep = 1.0f - l;
    }
    const float kept = x * keep;
    y = kept + mud;
  }
  return from_unit<T>(clamp01(y));
}

template <class T>
void spatter(View<const T> in, View<T> out, const SpatterArgs& args, const Exec& exec);

namespace cpu {  // the host driver (the CPU backend): the same formula, a row at a time
template <class T>
void spatter(View<const T> in, View<T> out, const SpatterArgs& args);
}  // namespace cpu

}  // namespace aug::k
