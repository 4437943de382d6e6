// Edges: what a sample outside the image reads. The modes are OpenCV's BORDER_CONSTANT, REPLICATE,
// REFLECT, REFLECT_101 and WRAP, in that order; the index rule is the one every engine uses, on the
// host (tables) and on the device (warps).
#pragma once

#include <cstdint>

#include "kernels/core/common.hpp"

namespace aug::k {

enum BorderMode : std::int32_t {
  kBorderConstant = 0,    // ...kk|abc|kk... (a fill value)
  kBorderReplicate = 1,   // ...aa|abc|cc...
  kBorderReflect = 2,     // ...ba|abc|cb...
  kBorderReflect101 = 3,  // ...cb|abc|ba...
  kBorderWrap = 4,        // ...bc|abc|ab...
};

// cv::borderInterpolate for the non-constant modes (Constant: -1 outside), in closed form
// (equal to OpenCV's loop for every p, checked by the tests).
AUG_HD int border_index(int p, int len, int border) {
  if (static_cast<unsigned>(p) < static_cast<unsigned>(len)) return p;
  switch (border) {
    case kBorderReplicate: return p < 0 ? 0 : len - 1;
    case kBorderReflect:
    case kBorderReflect101: {
      if (len == 1) return 0;
      const int d = border == kBorderReflect101 ? 1 : 0;
      const int period = 2 * len - 2 * d;
      int q = p % period;
      if (q < 0) q += period;
      return q < len ? q : period - q - (1 - d);
    }
    case kBorderWrap:
      if (p < 0) p -= ((p - len + 1) / len) * len;
      if (p >= len) p %= len;
      return p;
    default: return -1;
  }
}

}  // namespace aug::k
