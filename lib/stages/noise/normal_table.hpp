// The host side of kernels/noise/normal.hpp: the inverse-CDF table of the standard normal, in
// double (Acklam's rational approximation refined by two Newton steps on erfc, accurate to about
// 1e-15), rounded to binary32 once.
#pragma once

#include <cmath>
#include <vector>

#include "kernels/noise/normal.hpp"

namespace aug {

// Phi^-1(p) for p in (0, 1), in double.
inline double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425, hi = 1 - lo;
  double x;
  if (p < lo) {
    const double q = std::sqrt(-2 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= hi) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = std::sqrt(-2 * std::log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  for (int i = 0; i < 2; ++i) {  // Newton on Phi(x) - p, Phi(x) = erfc(-x / sqrt 2) / 2
    const double e = 0.5 * std::erfc(-x / std::sqrt(2.0)) - p;
    const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
    x -= e / pdf;
  }
  return x;
}

// t[0..4096] = Phi^-1(i / 4096) (the two infinite ends are never read), then
// T[0..4095] = Phi^-1((s + 1/2) / 2^24).
inline const std::vector<float>& normal_table() {
  static const std::vector<float> table = [] {
    std::vector<float> t(k::kNormalTableSize, 0.f);
    for (int i = 1; i < k::kNormalCells; ++i) t[i] = static_cast<float>(normal_quantile(i / 4096.0));
    for (int s = 0; s < 4096; ++s)
      t[k::kNormalCells + 1 + s] = static_cast<float>(normal_quantile((s + 0.5) / 16777216.0));
    return t;
  }();
  return table;
}

}  // namespace aug
