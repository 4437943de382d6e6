#include "kernels/color/levels.hpp"

#include <cmath>

#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace levels_impl {
namespace {

struct Posterize {
  AUG_FIELDS(Posterize, levels, inv_levels)
  float levels;      // 2^bits
  float inv_levels;  // 2^-bits, exact
  AUG_HD float operator()(float v, int) const {
    float q = floorf(v * levels);
    q = q < 0.f ? 0.f : q;
    q = q > levels - 1.f ? levels - 1.f : q;
    return q * inv_levels;
  }
};

struct Solarize {
  AUG_FIELDS(Solarize, threshold)
  float threshold;
  AUG_HD float operator()(float v, int) const { return v >= threshold ? 1.f - v : v; }
};

}  // namespace
}  // namespace levels_impl

void posterize_float(View<const float> in, View<float> out, int bits, int color_channels, const Exec& exec) {
  const float levels = static_cast<float>(1 << bits);
  for_values(in, out, levels_impl::Posterize{levels, 1.f / levels}, color_channels, exec, "posterize");
}

void solarize_float(View<const float> in, View<float> out, float threshold, int color_channels, const Exec& exec) {
  for_values(in, out, levels_impl::Solarize{threshold}, color_channels, exec, "solarize");
}

}  // namespace aug::k
