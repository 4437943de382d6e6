// The words every stage that samples uses, declared once: interpolations, and the edge vocabulary
// of every stage that reads outside the image (`border`, with `fill` where a stage supports a
// constant other than zero). Each stage allows the subset it supports.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "lib/params/param.hpp"

namespace aug {

enum class Interp { Nearest, Bilinear, Bicubic, Area, Lanczos };
// As OpenCV's borders: constant (…kk|abc|kk…), replicate (…aa|abc|cc…), reflect (…ba|abc|cb…),
// reflect101 (…cb|abc|ba…), wrap (…bc|abc|ab…).
enum class Border { Constant, Replicate, Reflect, Reflect101, Wrap };

const Words<Interp>& interp_words();
const Words<Border>& border_words();

Choice<Interp> interpolation_param(std::initializer_list<Interp> allowed, Interp def, std::string doc,
                                   bool random = true);
Choice<Border> border_param(std::initializer_list<Border> allowed, Border def, std::string doc);
// The same without a default (a stage that also takes another name for it, as elastic's `padding`).
Choice<Border> border_param(std::initializer_list<Border> allowed, std::string doc);

// `kernel_size` of a filter over a k x k window (`noun`: "window", "kernel"): odd, 3 to `max`, default
// [3, 7]; [lo, hi] draws one of the odd sizes in it per image, each as likely (IntegerParam::
// sample_odd), as Albumentations' blur_limit.
Param<IntegerParam> odd_kernel_size_param(const std::string& noun, int max);

// `fill`: the constant border's value, one number for every channel or one per channel, in sample
// units (0-255 for 8-bit, 0-65535 for 16-bit, 0-1 for float), saturated to the sample type.
Param<std::vector<double>> fill_param();
// The fill of channel c (the last value repeats; alpha included).
double fill_for_channel(const std::vector<double>& fill, int c);

// The source index OpenCV's cv::borderInterpolate returns for position p (-1 for Constant outside).
int border_index(int p, int len, Border border);

}  // namespace aug
