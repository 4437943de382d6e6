// zoom_blur: Albumentations' ZoomBlur (2.x) on [0, 1] values, every channel alike, binary32, each
// operation rounded in the order written (no FMA):
//   x = to_unit(v)                        (v / max; float images as they are)
//   acc = +0; for each zoom factor z (1.0 first): acc = acc + Z_z(x)
//   out = from_unit(clamp01((x + acc) / (n + 1)))
// Z_z is a central crop of x resized by the separable engine with cv::resize's binary32
// INTER_LINEAR tables (lib/stages/filter/zoom_blur.cpp builds them); this file holds the passes
// around it: the conversion to [0, 1], the running sum and the final value.
#pragma once

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

// x = to_unit(in), interleaved, same size.
template <class T>
void zoom_blur_to_unit(View<const T> in, View<float> x, const Exec& exec);

// acc = (first ? +0 : acc) + z, value by value.
void zoom_blur_add(View<const float> z, View<float> acc, bool first, const Exec& exec);

// out = from_unit(zoom_blur_value(x, acc, count)).
template <class T>
void zoom_blur_finish(View<const float> x, View<const float> acc, float count, View<T> out, const Exec& exec);

namespace cpu {
template <class T>
void zoom_blur_to_unit(View<const T> in, View<float> x);
void zoom_blur_add(View<const float> z, View<float> acc, bool first);
template <class T>
void zoom_blur_finish(View<const float> x, View<const float> acc, float count, View<T> out);
}  // namespace cpu

// The mean of the image and its zooms, clipped to [0, 1] (2.x clips float images too).
AUG_HD float zoom_blur_value(float x, float acc, float count) { return clamp01((x + acc) / count); }

}  // namespace aug::k
