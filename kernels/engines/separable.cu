#include "kernels/engines/separable.hpp"

namespace aug::k {

namespace separable_impl {
namespace {

// Intermediate sample of the horizontal pass: exact int32 for integer images, float otherwise.
template <class T> struct Mid { using type = std::int32_t; };
template <> struct Mid<float> { using type = float; };

template <class T>
struct HorizontalPass {
  AUG_FIELDS(HorizontalPass, in, mid, h, row0)
  View<const T> in;
  View<typename Mid<T>::type> mid;  // out width x rows
  AxisTaps h;
  int row0;

  // Each tap's index and weight are loaded once; the channels (at most 4) accumulate together,
  // each in tap order.
  AUG_HD void operator()(int x, int r) const {
    using M = typename Mid<T>::type;
    const int C = in.channels;
    const T* src = in.row(row0 + r);
    const std::int32_t* idx = h.index + x * h.taps;
    M acc[4] = {0, 0, 0, 0};
    for (int t = 0; t < h.taps; ++t) {
      const T* p = src + idx[t] * C;
      if constexpr (std::is_same_v<T, float>) {
        const float w = h.fweight[x * h.taps + t];
        for (int c = 0; c < C; ++c) acc[c] = acc[c] + w * p[c];
      } else {
        const std::int32_t w = h.iweight[x * h.taps + t];
        for (int c = 0; c < C; ++c) acc[c] += w * static_cast<std::int32_t>(p[c]);
      }
    }
    M* dst = mid.row(r) + x * C;
    for (int c = 0; c < C; ++c) dst[c] = acc[c];
  }
};

template <class T>
struct VerticalPass {
  AUG_FIELDS(VerticalPass, mid, out, v, row0, shift)
  View<const typename Mid<T>::type> mid;
  View<T> out;
  AxisTaps v;
  int row0;
  int shift;

  AUG_HD void operator()(int x, int y) const { at_channel_count(*this, out.channels, x, y); }

  template <int C>
  AUG_HD void at(int x, int y) const {
    const std::int32_t* idx = v.index + y * v.taps;
    T* dst = out.row(y) + x * C;
    if constexpr (std::is_same_v<T, float>) {
      float acc[4] = {0.f, 0.f, 0.f, 0.f};
      for (int t = 0; t < v.taps; ++t) {
        const float w = v.fweight[y * v.taps + t];
        const float* m = mid.row(idx[t] - row0) + x * C;
        for (int c = 0; c < C; ++c) acc[c] = acc[c] + w * m[c];
      }
      for (int c = 0; c < C; ++c) dst[c] = acc[c];
    } else if (std::is_same_v<T, std::uint8_t> && shift == 16) {
      // 8-bit images with 8-bit weights (non-negative, summing to 256): every sum <= 256 * 65280.
      std::int32_t acc[4] = {0, 0, 0, 0};
      for (int t = 0; t < v.taps; ++t) {
        const std::int32_t w = v.iweight[y * v.taps + t];
        const std::int32_t* m = mid.row(idx[t] - row0) + x * C;
        for (int c = 0; c < C; ++c) acc[c] += w * m[c];
      }
      for (int c = 0; c < C; ++c) dst[c] = saturate<T>((acc[c] + (1 << 15)) >> 16);
    } else {
      std::int64_t acc[4] = {0, 0, 0, 0};
      for (int t = 0; t < v.taps; ++t) {
        const std::int64_t w = v.iweight[y * v.taps + t];
        const std::int32_t* m = mid.row(idx[t] - row0) + x * C;
        for (int c = 0; c < C; ++c) acc[c] += w * m[c];
      }
      for (int c = 0; c < C; ++c) dst[c] = saturate<T>(round_shift(acc[c], shift));
    }
  }
};

}  // namespace
}  // namespace separable_impl

std::size_t separable_scratch_bytes(int out_width, int rows, int channels) {
  return static_cast<std::size_t>(out_width) * channels * rows * 4;
}

template <class T>
void separable(View<const T> in, View<T> out, AxisTaps h, AxisTaps v, int frac_bits, int row0, int rows,
               Scratch& scratch, const Exec& exec) {
  if (exec.cpu) return cpu::separable(in, out, h, v, frac_bits);
  using M = typename separable_impl::Mid<T>::type;
  const std::size_t mid_pitch = static_cast<std::size_t>(out.width) * in.channels * sizeof(M);
  const View<M> mid{static_cast<M*>(scratch.scratch(separable_scratch_bytes(out.width, rows, in.channels))), out.width, rows, in.channels, mid_pitch};
  for_2d(separable_impl::HorizontalPass<T>{in, mid, h, row0}, out.width, rows, exec, "separable (horizontal pass)");
  for_2d(separable_impl::VerticalPass<T>{as_const(mid), out, v, row0, 2 * frac_bits}, out.width, out.height, exec,
         "separable (vertical pass)");
}

template void separable<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, AxisTaps, AxisTaps, int, int, int,
                                      Scratch&, const Exec&);
template void separable<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, AxisTaps, AxisTaps, int, int,
                                       int, Scratch&, const Exec&);
template void separable<float>(View<const float>, View<float>, AxisTaps, AxisTaps, int, int, int, Scratch&, const Exec&);

}  // namespace aug::k
