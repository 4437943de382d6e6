#include "kernels/color/hue_saturation_value.hpp"

namespace aug::k {

namespace {

struct HsvPixel {
  AUG_FIELDS(HsvPixel, in, out, a, block_end)
  View<const std::uint8_t> in;
  View<std::uint8_t> out;
  HsvArgs a;
  int block_end;  // pixels [0, block_end) of a row take OpenCV's block arithmetic

  AUG_HD void operator()(int x, int y) const {
    const int C = in.channels;
    const std::uint8_t* p = in.row(y) + x * C;
    std::uint8_t* d = out.row(y) + x * C;
    const int r = p[0], g = p[1], b = p[2];
    const int v = r > g ? (r > b ? r : b) : (g > b ? g : b);
    const int lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
    const int diff = v - lo;
    const int s = (diff * a.sdiv[v] + (1 << 11)) >> 12;
    int h = v == r ? g - b : (v == g ? b - r + 2 * diff : r - g + 4 * diff);
    h = (h * a.hdiv[diff] + (1 << 11)) >> 12;
    h += h < 0 ? 180 : 0;
    std::uint8_t rgb[3];
    hsv_to_rgb(a.lut[h], a.lut[256 + s], a.lut[512 + v], x < block_end, rgb);
    d[0] = rgb[0];
    d[1] = rgb[1];
    d[2] = rgb[2];
    if (C == 4) d[3] = p[3];
  }
};

}  // namespace

void hue_saturation_value(View<const std::uint8_t> in, View<std::uint8_t> out, const HsvArgs& args,
                          const Exec& exec) {
  if (in.channels != 3 && in.channels != 4) throw KernelError("hue_saturation_value: RGB or RGBA images only");
  const int block_end = in.width / kHsvBlock * kHsvBlock;
  for_2d(HsvPixel{in, out, args, block_end}, out.width, out.height, exec, "hue_saturation_value");
}

}  // namespace aug::k
