// Host drivers of kernel arithmetic, laid out so that the compiler vectorises them (row loops over
// contiguous values, with AVX2 clones chosen at run time). They compute exactly the functions of
// the kernel bodies they mirror, from the same tables; the parity tests hold them to 0 differences.
#pragma once

#include "channel_gain.hpp"
#include "elastic.hpp"
#include "illumination.hpp"
#include "jpeg.hpp"
#include "planckian.hpp"
#include "separable.hpp"

namespace aug::k::cpu {

// kernels/separable.hpp on the host. Integer images run the vertical pass first: both passes are
// exact integer sums before the one final rounding, so the order does not change a bit and the
// vertical pass reads whole contiguous rows. Float images keep the kernels' order (horizontal,
// then vertical; taps in table order), which float sums depend on.
template <class T>
void separable(View<const T> in, View<T> out, AxisTaps h, AxisTaps v, int frac_bits);

// kernels/channel_gain.hpp on the host.
template <class T>
void channel_gain(View<const T> in, View<T> out, const GainArgs& args);

// kernels/illumination.hpp on the host, a row at a time (the same binary32 operations).
template <class T>
void illumination(View<const T> in, View<T> out, const IlluminationArgs& args);

// kernels/planckian.hpp on the host.
template <class T>
void planckian(View<const T> in, View<T> out, float r_w, float b_w);

// kernels/elastic.hpp on the host: the same noise and sampling functions, the smoothing passes
// as row loops with the kernels' tap order.
template <class T>
void elastic(View<const T> in, View<T> out, const ElasticArgs& args);

// kernels/jpeg.hpp's kornia mode on the host: rows and rows of blocks, the same binary32
// operations in the same order; `scratch` holds jpeg_kornia_scratch_bytes.
template <class T>
void jpeg_kornia(View<const T> in, View<T> out, const KorniaJpegTables& tables, void* scratch);

}  // namespace aug::k::cpu
