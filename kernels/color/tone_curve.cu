#include "kernels/color/tone_curve.hpp"

#include "kernels/core/uint8_io.hpp"
#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace tone_curve_impl {
namespace {

struct QuantisedTable {
  AUG_FIELDS(QuantisedTable, lut)
  const std::uint8_t* lut;
  AUG_HD float operator()(float v, int c) const { return from_u8_io<float>(lut[c * 256 + to_u8_io(v)]); }
};

}  // namespace
}  // namespace tone_curve_impl

void tone_curve_float(View<const float> in, View<float> out, const std::uint8_t* lut, int color_channels,
                      const Exec& exec) {
  for_values(in, out, tone_curve_impl::QuantisedTable{lut}, color_channels, exec, "tone_curve");
}

}  // namespace aug::k
