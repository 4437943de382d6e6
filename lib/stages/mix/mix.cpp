#include "lib/stages/mix/mix.hpp"

#include <cmath>

namespace aug::mix {

namespace {

double normal_draw(Draws& d) {
  const double u1 = d.uniform(), u2 = d.uniform();
  return std::sqrt(-2.0 * std::log1p(-u1)) * std::cos(2.0 * M_PI * u2);
}

// Gamma(a, 1): Marsaglia and Tsang (2000) for a >= 1; a < 1 through Gamma(a + 1) u^(1/a).
double gamma_draw(Draws& d, double a) {
  if (a < 1) {
    const double g = gamma_draw(d, a + 1);
    return g * std::pow(1.0 - d.uniform(), 1.0 / a);
  }
  const double dd = a - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * dd);
  for (;;) {
    const double x = normal_draw(d);
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    const double u = 1.0 - d.uniform();  // (0, 1]
    if (std::log(u) < 0.5 * x * x + dd - dd * v + dd * std::log(v)) return dd * v;
  }
}

}  // namespace

double beta_draw(Draws& d, double a) {
  const double x = gamma_draw(d, a), y = gamma_draw(d, a);
  return x + y > 0 ? x / (x + y) : 0.5;
}

}  // namespace aug::mix
