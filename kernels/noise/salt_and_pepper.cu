#include "kernels/noise/salt_and_pepper.hpp"

#include <cstdint>
#include <type_traits>

namespace aug::k {

namespace salt_and_pepper_impl {
namespace {

template <class T>
struct SaltPepperPixel {
  AUG_FIELDS(SaltPepperPixel, image, a)
  View<T> image;
  SaltPepperArgs a;

  AUG_HD void operator()(std::size_t i) const {
    const std::uint32_t p = a.positions[i];
    const int y = static_cast<int>(p / static_cast<std::uint32_t>(image.width));
    const int x = static_cast<int>(p - static_cast<std::uint32_t>(y) * static_cast<std::uint32_t>(image.width));
    T value;
    if constexpr (std::is_same_v<T, float>) value = i < a.salt ? 1.0f : 0.0f;
    else value = i < a.salt ? static_cast<T>(SampleTraits<T>::max) : T{0};
    T* d = image.row(y) + x * image.channels;
    for (int c = 0; c < a.color_channels; ++c) d[c] = value;
  }
};

}  // namespace
}  // namespace salt_and_pepper_impl

// The host loop for_1d runs on the CPU backend is the stage's host driver: a scatter of at most a
// few percent of the pixels after a memcpy.
template <class T>
void salt_and_pepper(View<T> image, const SaltPepperArgs& args, const Exec& exec) {
  for_1d(salt_and_pepper_impl::SaltPepperPixel<T>{image, args}, args.count, exec, "salt_and_pepper");
}

template void salt_and_pepper<std::uint8_t>(View<std::uint8_t>, const SaltPepperArgs&, const Exec&);
template void salt_and_pepper<std::uint16_t>(View<std::uint16_t>, const SaltPepperArgs&, const Exec&);
template void salt_and_pepper<float>(View<float>, const SaltPepperArgs&, const Exec&);

}  // namespace aug::k
