#include "kernels/color/hue_saturation_value.hpp"

namespace aug::k {

namespace hue_saturation_value_impl {
namespace {

struct HsvPixel {
  AUG_FIELDS(HsvPixel, in, out, a, block_end)
  View<const std::uint8_t> in;
  View<std::uint8_t> out;
  HsvArgs a;
  int block_end;  // pixels [0, block_end) of a row take OpenCV's block arithmetic

  AUG_HD void operator()(int x, int y) const {
    hsv_pixel(in.row(y) + x * in.channels, out.row(y) + x * out.channels, in.channels, a, x < block_end);
  }
};

}  // namespace
}  // namespace hue_saturation_value_impl

void hue_saturation_value(View<const std::uint8_t> in, View<std::uint8_t> out, const HsvArgs& args,
                          const Exec& exec) {
  if (in.channels != 3 && in.channels != 4) throw KernelError("hue_saturation_value: RGB or RGBA images only");
  if (exec.cpu) return cpu::hue_saturation_value(in, out, args);
  const int block_end = in.width / kHsvBlock * kHsvBlock;
  for_2d(hue_saturation_value_impl::HsvPixel{in, out, args, block_end}, out.width, out.height, exec, "hue_saturation_value");
}

}  // namespace aug::k
