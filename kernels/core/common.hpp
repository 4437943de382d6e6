// Shared by every kernel: the host/device qualifier, plain image views and the integer
// helpers (saturation, rounding) that both backends must use identically.
// This layer knows nothing of JSON, the CLI, logging or OpenCV.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "kernels/core/fields.hpp"

#if defined(__CUDACC__)
#define AUG_HD __host__ __device__ __forceinline__
#else
#define AUG_HD inline
#endif

// Unroll the next loop in device code: a small array indexed only by unrolled loops stays in
// registers instead of the thread's local memory. The arithmetic is unchanged.
#if defined(__CUDA_ARCH__)
#define AUG_UNROLL _Pragma("unroll")
#else
#define AUG_UNROLL
#endif

namespace aug::k {

// A 2-D interleaved image: `pitch` is in bytes, channels are interleaved (RGB[A] or gray).
template <class T>
struct View {
  AUG_FIELDS(View, data, width, height, channels, pitch)
  T* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
  std::size_t pitch = 0;

  AUG_HD T* row(int y) const {
    using Byte = std::conditional_t<std::is_const_v<T>, const unsigned char, unsigned char>;
    return reinterpret_cast<T*>(reinterpret_cast<Byte*>(data) + static_cast<std::size_t>(y) * pitch);
  }
  AUG_HD T& at(int x, int y, int c) const { return row(y)[x * channels + c]; }
};

// f.template at<C>(x, y) with the channel count C (1 to 4) a constant, so that a pixel's
// per-channel accumulators are fixed-size arrays that stay in registers (a 5th or more channel
// is the caller's to refuse).
template <class F>
AUG_HD void at_channel_count(const F& f, int channels, int x, int y) {
  switch (channels) {
    case 1: return f.template at<1>(x, y);
    case 2: return f.template at<2>(x, y);
    case 3: return f.template at<3>(x, y);
    default: return f.template at<4>(x, y);
  }
}

template <class T>
AUG_HD View<const T> as_const(const View<T>& v) {
  return View<const T>{v.data, v.width, v.height, v.channels, v.pitch};
}

// Largest value of an integer sample type, and the nominal white of a float one.
template <class T> struct SampleTraits;
template <> struct SampleTraits<std::uint8_t> { static constexpr std::int64_t max = 255; };
template <> struct SampleTraits<std::uint16_t> { static constexpr std::int64_t max = 65535; };

template <class T>
AUG_HD T saturate(std::int64_t v) {
  return static_cast<T>(v < 0 ? 0 : (v > SampleTraits<T>::max ? SampleTraits<T>::max : v));
}

// Two selects (max, then min) so that host loops vectorise; NaN passes through.
AUG_HD float clamp01(float v) {
  v = v < 0.f ? 0.f : v;
  return v > 1.f ? 1.f : v;
}

// Arithmetic shift right with rounding half up: floor((v + 2^(s-1)) / 2^s). `v` may be negative.
AUG_HD std::int64_t round_shift(std::int64_t v, int s) {
  return (v + (std::int64_t{1} << (s - 1))) >> s;
}

// Float to integer, the device's way (PTX cvt) on both sides. The device saturates a value past
// the result's range (infinities included) and turns NaN into 0, except for a 64-bit result or a
// double source, where NaN gives the smallest value; x86 gives the smallest value ("integer
// indefinite") for all of them, and C++ leaves them undefined. A kernel converts with these, or
// converts values that cannot be out of range or NaN (tests/kernels/check_ptx_arith.sh lists every
// conversion in the kernels' PTX; its allowlist says why each other one is safe).

// Round half to even, as an int64. Both sides use this (rintf under the default rounding mode on
// the host, __float2ll_rn on the device), never std::round. +inf and values from 2^63 give
// INT64_MAX; -inf, values below -2^63 and NaN give INT64_MIN (so saturate() makes NaN 0).
AUG_HD std::int64_t rne(float v) {
#if defined(__CUDA_ARCH__)
  return __float2ll_rn(v);
#else
  const float r = __builtin_rintf(v);
  if (r >= 0x1p63f) return INT64_MAX;
  if (!(r >= -0x1p63f)) return INT64_MIN;
  return static_cast<std::int64_t>(r);
#endif
}
// The same as a float (for vectorised host loops; a rounded -0 stays -0).
AUG_HD float rne_float(float v) {
#if defined(__CUDA_ARCH__)
  return rintf(v);
#else
  return __builtin_rintf(v);
#endif
}
AUG_HD std::int64_t rne(double v) {
#if defined(__CUDA_ARCH__)
  return __double2ll_rn(v);
#else
  const double r = __builtin_rint(v);
  if (r >= 0x1p63) return INT64_MAX;
  if (!(r >= -0x1p63)) return INT64_MIN;
  return static_cast<std::int64_t>(r);
#endif
}
// Toward zero, as an int32 (a cast on the device): saturating, NaN gives 0.
AUG_HD std::int32_t trunc_i32(float v) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::int32_t>(v);
#else
  if (v >= 0x1p31f) return INT32_MAX;
  if (v < -0x1p31f) return INT32_MIN;
  return v == v ? static_cast<std::int32_t>(v) : 0;
#endif
}
// Toward zero, as a uint32: saturating (negative values give 0), NaN gives 0.
AUG_HD std::uint32_t trunc_u32(float v) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint32_t>(v);
#else
  if (v >= 0x1p32f) return UINT32_MAX;
  return v > 0.f ? static_cast<std::uint32_t>(v) : 0u;
#endif
}

// Stages defined on [0, 1] (the Kornia ones) see integer samples as v / max and write back
// RNE(y * max), saturated; float samples are used as they are.
template <class T>
AUG_HD float to_unit(T v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else return static_cast<float>(v) / static_cast<float>(SampleTraits<T>::max);
}
template <class T>
AUG_HD T from_unit(float y) {
  if constexpr (std::is_same_v<T, float>) return y;
  else return saturate<T>(rne(y * static_cast<float>(SampleTraits<T>::max)));
}

}  // namespace aug::k
