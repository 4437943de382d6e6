#include "kernels/color/rgb_shift.hpp"

#include "kernels/engines/pointwise.hpp"

namespace aug::k {

namespace rgb_shift_impl {
namespace {

struct AddShift {
  AUG_FIELDS(AddShift, a)
  ShiftArgs a;
  AUG_HD float operator()(float v, int c) const {
    return clamp01(v + (c == 0 ? a.shift[0] : (c == 1 ? a.shift[1] : a.shift[2])));  // selects: no local memory
  }
};

}  // namespace
}  // namespace rgb_shift_impl

void rgb_shift_float(View<const float> in, View<float> out, const ShiftArgs& args, int color_channels, const Exec& exec) {
  for_values(in, out, rgb_shift_impl::AddShift{args}, color_channels, exec, "rgb_shift");
}

}  // namespace aug::k
