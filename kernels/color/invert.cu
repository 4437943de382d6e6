#include "kernels/color/invert.hpp"

#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace {

struct OneMinus {
  AUG_HD float operator()(float v, int) const { return 1.f - v; }
};

}  // namespace

void invert_float(View<const float> in, View<float> out, int color_channels, const Exec& exec) {
  for_values(in, out, OneMinus{}, color_channels, exec, "invert");
}

}  // namespace aug::k
