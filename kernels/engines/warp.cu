// The warp engine's kernel body and driver; the arithmetic is described in warp.hpp.
#include "kernels/engines/warp.hpp"

#include <string>
#include <type_traits>

namespace aug::k {

namespace warp_impl {
namespace {

// int32 addition that wraps like OpenCV's (vectorised) coordinate sums.
AUG_HD std::int32_t wrap_add(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) + static_cast<std::uint32_t>(b));
}

// saturate_cast<short>: the remap maps are int16.
AUG_HD int sat_i16(std::int32_t v) { return v < -32768 ? -32768 : (v > 32767 ? 32767 : v); }

// saturate_cast<int>(std::max((double)INT_MIN, std::min((double)INT_MAX, v))): NaN gives INT_MAX,
// the clamped value is rounded half to even.
AUG_HD std::int32_t round_clamped(double v) {
  const double hi = 2147483647.0, lo = -2147483648.0;
  double t = v < hi ? v : hi;
  t = lo < t ? t : lo;
  return static_cast<std::int32_t>(rne(t));
}

// cvRound(float) on x86-64 (cvtss2si): round half to even; NaN or a result outside the int range
// gives INT_MIN.
AUG_HD std::int32_t round_float(float v) {
  if (!(v >= -2147483648.f && v < 2147483648.f)) return static_cast<std::int32_t>(-2147483647 - 1);
  return static_cast<std::int32_t>(rne(v));  // |v| < 2^31 and a float there is an integer already
}

// The border value as OpenCV's saturate_cast<T>(double) (for finite values in range).
template <class T>
AUG_HD T fill_value(double v) {
  if constexpr (std::is_same_v<T, float>) {
    return static_cast<float>(v);
  } else {
    const double hi = static_cast<double>(SampleTraits<T>::max) + 1.0;
    const double c = v > -1.0 ? (v < hi ? v : hi) : -1.0;  // NaN -> -1 -> 0
    return saturate<T>(rne(c));
  }
}

// The accumulator of interpolated sums: int32 with 15-bit weights for 8-bit images (exact),
// binary32 for 16-bit and float images.
template <class T> struct Acc { using type = float; };
template <> struct Acc<std::uint8_t> { using type = std::int32_t; };

template <class T>
AUG_HD T from_acc(typename Acc<T>::type s) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return saturate<T>((s + (1 << (kWarpCoefBits - 1))) >> kWarpCoefBits);
  else if constexpr (std::is_same_v<T, std::uint16_t>) return saturate<T>(rne(s));
  else return s;
}

// The 16 bicubic weights for fractions f (fy * 32 + fx).
template <class T>
AUG_HD const auto* bicubic_weights(const WarpArgs& a, int f) {
  if constexpr (std::is_same_v<T, std::uint8_t>) return a.itab + f * 16;
  else return a.ftab + f * 16;
}

template <class T>
struct WarpBody {
  AUG_FIELDS(WarpBody, in, out, a, cval)
  View<const T> in;
  View<T> out;
  WarpArgs a;
  T cval[4];

  // Source position of output pixel (x, y): integer part (sx, sy) and, except for nearest, the
  // 5-bit fractions packed as fy * 32 + fx.
  AUG_HD void source(int x, int y, int& sx, int& sy, int& f) const {
    const bool nearest = a.interp == kWarpNearest;
    if (a.maps != kWarpNoMaps) {
      const bool full = a.maps == kWarpFullMaps;
      const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + static_cast<std::size_t>(x);
      const float mx = a.map_x[full ? i : static_cast<std::size_t>(x)];
      const float my = a.map_y[full ? i : static_cast<std::size_t>(y)];
      if (nearest) {
        sx = sat_i16(round_float(mx));
        sy = sat_i16(round_float(my));
        f = 0;
        return;
      }
      const std::int32_t X = round_float(mx * static_cast<float>(kWarpTabSize));
      const std::int32_t Y = round_float(my * static_cast<float>(kWarpTabSize));
      sx = sat_i16(X >> kWarpInterBits);
      sy = sat_i16(Y >> kWarpInterBits);
      f = (Y & (kWarpTabSize - 1)) * kWarpTabSize + (X & (kWarpTabSize - 1));
      return;
    }
    if (!a.perspective) {
      const std::int32_t* c = a.coords;
      const int w = out.width, h = out.height;
      std::int32_t X = wrap_add(c[2 * w + y], c[x]);
      std::int32_t Y = wrap_add(c[2 * w + h + y], c[w + x]);
      if (nearest) {
        sx = sat_i16(X >> kWarpAbBits);
        sy = sat_i16(Y >> kWarpAbBits);
        f = 0;
        return;
      }
      X >>= kWarpAbBits - kWarpInterBits;
      Y >>= kWarpAbBits - kWarpInterBits;
      sx = sat_i16(X >> kWarpInterBits);
      sy = sat_i16(Y >> kWarpInterBits);
      f = (Y & (kWarpTabSize - 1)) * kWarpTabSize + (X & (kWarpTabSize - 1));
      return;
    }
    // OpenCV evaluates the numerators at the start of each column block, then steps inside it.
    const int x1 = x % a.block_width;
    const double xb = static_cast<double>(x - x1), yd = static_cast<double>(y), x1d = static_cast<double>(x1);
    const double X0 = a.m[0] * xb + a.m[1] * yd + a.m[2];
    const double Y0 = a.m[3] * xb + a.m[4] * yd + a.m[5];
    const double W0 = a.m[6] * xb + a.m[7] * yd + a.m[8];
    double W = W0 + a.m[6] * x1d;
    W = W != 0.0 ? (nearest ? 1.0 : static_cast<double>(kWarpTabSize)) / W : 0.0;
    const std::int32_t X = round_clamped((X0 + a.m[0] * x1d) * W);
    const std::int32_t Y = round_clamped((Y0 + a.m[3] * x1d) * W);
    if (nearest) {
      sx = sat_i16(X);
      sy = sat_i16(Y);
      f = 0;
      return;
    }
    sx = sat_i16(X >> kWarpInterBits);
    sy = sat_i16(Y >> kWarpInterBits);
    f = (Y & (kWarpTabSize - 1)) * kWarpTabSize + (X & (kWarpTabSize - 1));
  }

  AUG_HD const T* pixel(int x, int y) const { return in.row(y) + x * in.channels; }

  AUG_HD void write_fill(T* d) const {
    for (int c = 0; c < out.channels; ++c) d[c] = cval[c];
  }

  AUG_HD void nearest(int sx, int sy, T* d) const {
    const int W = in.width, H = in.height, C = in.channels;
    const T* p;
    if (static_cast<unsigned>(sx) < static_cast<unsigned>(W) && static_cast<unsigned>(sy) < static_cast<unsigned>(H)) {
      p = pixel(sx, sy);
    } else if (a.border == kBorderConstant) {
      p = cval;
    } else if (a.border == kBorderReplicate) {
      p = pixel(sx < 0 ? 0 : (sx < W ? sx : W - 1), sy < 0 ? 0 : (sy < H ? sy : H - 1));
    } else {
      p = pixel(border_index(sx, W, a.border), border_index(sy, H, a.border));
    }
    for (int c = 0; c < C; ++c) d[c] = p[c];
  }

  AUG_HD void bilinear(int sx, int sy, int f, T* d) const {
    using A = typename Acc<T>::type;
    const int W = in.width, H = in.height, C = in.channels;
    const int fx = f & (kWarpTabSize - 1), fy = f >> kWarpInterBits;
    const T *v0, *v1, *v2, *v3;
    const unsigned w1 = W > 1 ? W - 1 : 0, h1 = H > 1 ? H - 1 : 0;
    if (static_cast<unsigned>(sx) < w1 && static_cast<unsigned>(sy) < h1) {
      v0 = pixel(sx, sy);
      v1 = v0 + C;
      v2 = pixel(sx, sy + 1);
      v3 = v2 + C;
    } else if (a.border == kBorderConstant && (sx >= W || sx + 1 < 0 || sy >= H || sy + 1 < 0)) {
      write_fill(d);
      return;
    } else if (a.border == kBorderReplicate) {
      const int x0 = sx < 0 ? 0 : (sx < W ? sx : W - 1), x1 = sx + 1 < 0 ? 0 : (sx + 1 < W ? sx + 1 : W - 1);
      const int y0 = sy < 0 ? 0 : (sy < H ? sy : H - 1), y1 = sy + 1 < 0 ? 0 : (sy + 1 < H ? sy + 1 : H - 1);
      v0 = pixel(x0, y0);
      v1 = pixel(x1, y0);
      v2 = pixel(x0, y1);
      v3 = pixel(x1, y1);
    } else {
      const int x0 = border_index(sx, W, a.border), x1 = border_index(sx + 1, W, a.border);
      const int y0 = border_index(sy, H, a.border), y1 = border_index(sy + 1, H, a.border);
      v0 = x0 >= 0 && y0 >= 0 ? pixel(x0, y0) : cval;
      v1 = x1 >= 0 && y0 >= 0 ? pixel(x1, y0) : cval;
      v2 = x0 >= 0 && y1 >= 0 ? pixel(x0, y1) : cval;
      v3 = x1 >= 0 && y1 >= 0 ? pixel(x1, y1) : cval;
    }
    if constexpr (std::is_same_v<T, std::uint8_t>) {
      // OpenCV's INTER_REMAP_COEF_BITS table: each float weight times 2^15, exact here.
      const A w0 = (kWarpTabSize - fy) * (kWarpTabSize - fx) * 32, w1 = (kWarpTabSize - fy) * fx * 32;
      const A w2 = fy * (kWarpTabSize - fx) * 32, w3 = fy * fx * 32;
      for (int c = 0; c < C; ++c) d[c] = from_acc<T>(v0[c] * w0 + v1[c] * w1 + v2[c] * w2 + v3[c] * w3);
    } else {
      // OpenCV's float table: (1 - fy/32) (1 - fx/32) etc., all exact in binary32.
      const float s = 1.f / static_cast<float>(kWarpTabSize * kWarpTabSize);
      const float w0 = static_cast<float>((kWarpTabSize - fy) * (kWarpTabSize - fx)) * s;
      const float w1 = static_cast<float>((kWarpTabSize - fy) * fx) * s;
      const float w2 = static_cast<float>(fy * (kWarpTabSize - fx)) * s;
      const float w3 = static_cast<float>(fy * fx) * s;
      for (int c = 0; c < C; ++c) {
        float t = static_cast<float>(v0[c]) * w0;
        t = t + static_cast<float>(v1[c]) * w1;
        t = t + static_cast<float>(v2[c]) * w2;
        t = t + static_cast<float>(v3[c]) * w3;
        d[c] = from_acc<T>(t);
      }
    }
  }

  AUG_HD void bicubic(int sx, int sy, int f, T* d) const {
    using A = typename Acc<T>::type;
    const int W = in.width, H = in.height, C = in.channels;
    sx -= 1;
    sy -= 1;
    const unsigned w3 = W > 3 ? W - 3 : 0, h3 = H > 3 ? H - 3 : 0;
    const auto* wt = bicubic_weights<T>(a, f);
    if (static_cast<unsigned>(sx) < w3 && static_cast<unsigned>(sy) < h3) {
      for (int c = 0; c < C; ++c) {
        A sum = 0;
        for (int r = 0; r < 4; ++r) {
          const T* s = pixel(sx, sy + r) + c;
          A row = static_cast<A>(s[0]) * static_cast<A>(wt[r * 4]);
          row = row + static_cast<A>(s[C]) * static_cast<A>(wt[r * 4 + 1]);
          row = row + static_cast<A>(s[2 * C]) * static_cast<A>(wt[r * 4 + 2]);
          row = row + static_cast<A>(s[3 * C]) * static_cast<A>(wt[r * 4 + 3]);
          sum = r == 0 ? row : sum + row;
        }
        d[c] = from_acc<T>(sum);
      }
      return;
    }
    if (a.border == kBorderConstant && (sx >= W || sx + 4 <= 0 || sy >= H || sy + 4 <= 0)) {
      write_fill(d);
      return;
    }
    int xs[4], ys[4];
    for (int i = 0; i < 4; ++i) {
      xs[i] = border_index(sx + i, W, a.border);
      ys[i] = border_index(sy + i, H, a.border);
    }
    // The same sums as inside, with a tap outside (Constant) reading the fill. With 8-bit images
    // this is OpenCV's fill*2^15 + sum of (p - fill)*w over the taps inside, exactly (integers,
    // weights summing to 2^15); OpenCV's float formula is not used because it does not return a
    // pixel unchanged under the identity when the fill is not 0.
    for (int c = 0; c < C; ++c) {
      A sum = 0;
      for (int r = 0; r < 4; ++r) {
        A row = 0;
        for (int j = 0; j < 4; ++j) {
          const A v = xs[j] >= 0 && ys[r] >= 0 ? static_cast<A>(in.row(ys[r])[xs[j] * C + c]) : static_cast<A>(cval[c]);
          const A t = v * static_cast<A>(wt[r * 4 + j]);
          row = j == 0 ? t : row + t;
        }
        sum = r == 0 ? row : sum + row;
      }
      d[c] = from_acc<T>(sum);
    }
  }

  AUG_HD void operator()(int x, int y) const {
    int sx, sy, f;
    source(x, y, sx, sy, f);
    T* d = out.row(y) + x * out.channels;
    switch (a.interp) {
      case kWarpNearest: nearest(sx, sy, d); break;
      case kWarpBilinear: bilinear(sx, sy, f, d); break;
      default: bicubic(sx, sy, f, d); break;
    }
  }
};

}  // namespace
}  // namespace warp_impl

template <class T>
void warp(View<const T> in, View<T> out, const WarpArgs& a, const Exec& exec) {
  if (in.channels < 1 || in.channels > 4 || out.channels != in.channels)
    throw KernelError("warp: 1 to 4 channels, the same in and out (got " + std::to_string(in.channels) + " and " +
                      std::to_string(out.channels) + ")");
  if (in.width <= 0 || in.height <= 0) throw KernelError("warp: empty input image");
  if (a.interp < kWarpNearest || a.interp > kWarpBicubic) throw KernelError("warp: unknown interpolation");
  if (a.border < kBorderConstant || a.border > kBorderWrap) throw KernelError("warp: unknown border");
  if (a.maps < kWarpNoMaps || a.maps > kWarpSeparableMaps) throw KernelError("warp: unknown map mode");
  if (a.maps != kWarpNoMaps && (!a.map_x || !a.map_y)) throw KernelError("warp: a remap needs both maps");
  if (a.maps == kWarpNoMaps && !a.perspective && !a.coords) throw KernelError("warp: an affine warp needs its coordinate table");
  if (a.perspective && a.block_width < 1) throw KernelError("warp: block width must be positive");
  if (a.interp == kWarpBicubic && (std::is_same_v<T, std::uint8_t> ? !a.itab : !a.ftab))
    throw KernelError("warp: bicubic needs its weight table");
  warp_impl::WarpBody<T> body{in, out, a, {}};
  for (int c = 0; c < 4; ++c) body.cval[c] = warp_impl::fill_value<T>(a.fill[c]);
  for_2d(body, out.width, out.height, exec, "warp");
}

template void warp<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const WarpArgs&, const Exec&);
template void warp<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const WarpArgs&, const Exec&);
template void warp<float>(View<const float>, View<float>, const WarpArgs&, const Exec&);

}  // namespace aug::k
