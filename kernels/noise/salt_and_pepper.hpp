// salt_and_pepper: a list of distinct pixels drawn on the host (Albumentations' SaltAndPepper);
// the first `salt` of them get the maximum (255, 65535 or 1.0) in every colour channel, the rest
// 0. Runs in place on the output, after the input has been copied to it. Alpha is left alone.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/core/common.hpp"
#include "kernels/core/launch.hpp"

namespace aug::k {

struct SaltPepperArgs {
  AUG_FIELDS(SaltPepperArgs, positions, count, salt, color_channels)
  const std::uint32_t* positions = nullptr;  // count pixel indices y * W + x, distinct (ctx.table)
  std::size_t count = 0;
  std::size_t salt = 0;  // positions[0, salt) are salt, positions[salt, count) pepper
  int color_channels = 3;
};

// image: the output, already holding a copy of the input.
template <class T>
void salt_and_pepper(View<T> image, const SaltPepperArgs& args, const Exec& exec);

}  // namespace aug::k
