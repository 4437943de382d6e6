// Kornia's gaussian(n, sigma, mean) (docs/stages/color.md#gaussian_illumination): over k = 0..n-1, x = k - mean, plus
// 0.5 when n is even; exp(-x^2 / (2 sigma^2)) divided by its sum. Computed in double, rounded to
// binary32 once, on the host, for every backend.
#pragma once

#include <cmath>
#include <vector>

namespace aug {

inline std::vector<float> kornia_gaussian(int n, double sigma, double mean) {
  std::vector<double> w(static_cast<std::size_t>(n));
  double sum = 0;
  for (int k = 0; k < n; ++k) {
    const double x = k - mean + (n % 2 == 0 ? 0.5 : 0.0);
    sum += w[k] = std::exp(-(x * x) / (2 * sigma * sigma));
  }
  std::vector<float> out(w.size());
  for (std::size_t k = 0; k < w.size(); ++k) out[k] = static_cast<float>(w[k] / sum);
  return out;
}

}  // namespace aug
