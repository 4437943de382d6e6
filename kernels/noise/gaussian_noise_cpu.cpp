// gaussian_noise's host driver: the kernels' arithmetic (gaussian_noise.hpp) row by row, the row's
// Philox blocks first (computed across pixels, so that they vectorise), then each value.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/core/host_simd.hpp"
#include "kernels/noise/gaussian_noise.hpp"

namespace aug::k::cpu {

namespace gaussian_noise_cpu_impl {
namespace {

// z[i] = mean + sigma standard_normal(bits[i]): the noise of n values, in units of the range.
AUG_CLONES void noise_values(const std::uint32_t* __restrict bits, float* __restrict z, int n, const float* normal,
                             float mean, float sigma) {
  for (int i = 0; i < n; ++i) z[i] = mean + sigma * standard_normal(bits[i], normal);
}

// The same for RGB with a word per channel: z[3 x + c] from word c of block x.
AUG_CLONES void noise_rgb(const std::uint32_t* __restrict w0, const std::uint32_t* __restrict w1,
                          const std::uint32_t* __restrict w2, float* __restrict z, int width, const float* normal,
                          float mean, float sigma) {
  for (int x = 0; x < width; ++x) {
    z[3 * x] = mean + sigma * standard_normal(w0[x], normal);
    z[3 * x + 1] = mean + sigma * standard_normal(w1[x], normal);
    z[3 * x + 2] = mean + sigma * standard_normal(w2[x], normal);
  }
}

template <class T>
AUG_CLONES void add_noise(const T* s, T* d, const float* __restrict z, int n, bool clip) {
  if constexpr (std::is_same_v<T, float>) {
    for (int i = 0; i < n; ++i) d[i] = noisy_value(s[i], z[i], clip);
  } else {
    // noisy_value's sat(RNE(v + n max)) with the saturation done in binary32 (the same values for
    // every finite sum), so that the loop vectorises.
    const float max = static_cast<float>(SampleTraits<T>::max);
    for (int i = 0; i < n; ++i) {
      float y = __builtin_rintf(static_cast<float>(s[i]) + z[i] * max);
      y = y < 0.f ? 0.f : y;
      y = y > max ? max : y;
      d[i] = static_cast<T>(static_cast<std::int32_t>(y));
    }
  }
}

}  // namespace
}  // namespace gaussian_noise_cpu_impl

template <class T>
void gaussian_noise(View<const T> in, View<T> out, const NoiseArgs& a) {
  const int W = in.width, C = in.channels, cc = a.color_channels;
  const std::size_t n = static_cast<std::size_t>(W);
  std::vector<std::uint32_t> words(3 * n), bits(n * C);
  std::vector<float> z(n * C);
  for (int y = 0; y < in.height; ++y) {
    const std::uint32_t first = static_cast<std::uint32_t>(static_cast<std::size_t>(y) * n);
    philox_blocks(a.stream, first, 1, W, words.data(), words.data() + n, words.data() + 2 * n);
    // Value c of pixel x takes word c (word 0 without per_channel) of block x; alpha takes none.
    if (C == 3 && cc == 3 && a.per_channel) {
      gaussian_noise_cpu_impl::noise_rgb(words.data(), words.data() + n, words.data() + 2 * n, z.data(), W, a.normal, a.mean, a.sigma);
    } else {
      for (int x = 0; x < W; ++x)
        for (int c = 0; c < cc; ++c) bits[x * C + c] = words[(a.per_channel ? c : 0) * n + x];
      gaussian_noise_cpu_impl::noise_values(bits.data(), z.data(), W * C, a.normal, a.mean, a.sigma);
    }
    const T* s = in.row(y);
    T* d = out.row(y);
    if (cc == C) {
      gaussian_noise_cpu_impl::add_noise(s, d, z.data(), W * C, a.clip);
      continue;
    }
    for (int i = 0; i < W * C; ++i) d[i] = i % C < cc ? noisy_value(s[i], z[i], a.clip) : s[i];
  }
}

template void gaussian_noise<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const NoiseArgs&);
template void gaussian_noise<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const NoiseArgs&);
template void gaussian_noise<float>(View<const float>, View<float>, const NoiseArgs&);

}  // namespace aug::k::cpu
