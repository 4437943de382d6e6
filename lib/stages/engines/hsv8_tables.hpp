// The host tables of OpenCV's 8-bit RGB to HSV (kernels/core/hsv8.hpp), shared by the stages that
// convert through it (hue_saturation_value, snow's texture method).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace aug {

// OpenCV's division tables of its 8-bit RGB2HSV: rne(255 * 2^12 / i) (saturation) and
// rne(180 * 2^12 / (6 i)) (hue), 0 at 0.
inline const std::vector<std::int32_t>& hsv8_division_table(bool hue) {
  static const auto make = [](bool h) {
    std::vector<std::int32_t> t(256, 0);
    for (int i = 1; i < 256; ++i)
      t[i] = static_cast<std::int32_t>(std::nearbyint(h ? (180 << 12) / (6.0 * i) : (255 << 12) / (1.0 * i)));
    return t;
  };
  static const std::vector<std::int32_t> s = make(false), h = make(true);
  return hue ? h : s;
}

}  // namespace aug
