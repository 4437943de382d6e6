#include "kernels/weather/snow.hpp"

namespace aug::k {

namespace snow_impl {
namespace {

template <class T>
struct SnowPixel {
  AUG_FIELDS(SnowPixel, in, out, a)
  View<const T> in;
  View<T> out;
  SnowArgs a;

  AUG_HD void operator()(int x, int y) const {
    snow_pixel(in.row(y) + x * 3, out.row(y) + x * 3, x < a.vector_end, a.lightness);
  }
};

template <class T>
struct SnowTexturePixel {
  AUG_FIELDS(SnowTexturePixel, in, out, a)
  View<const T> in;
  View<T> out;
  SnowTextureArgs a;

  AUG_HD void operator()(int x, int y) const {
    const std::size_t i = static_cast<std::size_t>(y) * static_cast<std::size_t>(out.width) + x;
    snow_texture_pixel(in.row(y) + x * 3, out.row(y) + x * 3, i, x < a.block_end, a);
  }
};

}  // namespace
}  // namespace snow_impl

template <class T>
void snow(View<const T> in, View<T> out, const SnowArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::snow(in, out, args);
  for_2d(snow_impl::SnowPixel<T>{in, out, args}, out.width, out.height, exec, "snow");
}

template <class T>
void snow_texture(View<const T> in, View<T> out, const SnowTextureArgs& args, const Exec& exec) {
  if (exec.cpu) return cpu::snow_texture(in, out, args);
  for_2d(snow_impl::SnowTexturePixel<T>{in, out, args}, out.width, out.height, exec, "snow_texture");
}

template void snow<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SnowArgs&, const Exec&);
template void snow<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SnowArgs&, const Exec&);
template void snow<float>(View<const float>, View<float>, const SnowArgs&, const Exec&);
template void snow_texture<std::uint8_t>(View<const std::uint8_t>, View<std::uint8_t>, const SnowTextureArgs&,
                                         const Exec&);
template void snow_texture<std::uint16_t>(View<const std::uint16_t>, View<std::uint16_t>, const SnowTextureArgs&,
                                          const Exec&);
template void snow_texture<float>(View<const float>, View<float>, const SnowTextureArgs&, const Exec&);

}  // namespace aug::k
