// The tables of the 8-bit sRGB <-> L*a*b* conversions (kernels/color/lab8.hpp), built once on the host.
#pragma once

#include "kernels/color/lab8.hpp"

namespace aug {

// OpenCV 4.6's tables for cv::cvtColor's 8-bit COLOR_RGB2Lab / COLOR_Lab2RGB (D65, sRGB companding),
// computed in binary32 and binary64 as OpenCV computes them.
const k::Lab8Tables& lab8_tables();

}  // namespace aug
