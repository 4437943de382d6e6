#include "lib/stages/engines/vocabulary.hpp"

#include <algorithm>

#include "kernels/core/border.hpp"

namespace aug {

static_assert(static_cast<int>(Border::Constant) == k::kBorderConstant && static_cast<int>(Border::Replicate) == k::kBorderReplicate &&
                  static_cast<int>(Border::Reflect) == k::kBorderReflect &&
                  static_cast<int>(Border::Reflect101) == k::kBorderReflect101 && static_cast<int>(Border::Wrap) == k::kBorderWrap,
              "Border and the kernels' BorderMode name the same modes in the same order");

const Words<Interp>& interp_words() {
  static const Words<Interp> w{{{Interp::Nearest, "nearest"},
                                {Interp::Bilinear, "bilinear"},
                                {Interp::Bicubic, "bicubic"},
                                {Interp::Area, "area"},
                                {Interp::Lanczos, "lanczos"}}};
  return w;
}

const Words<Border>& border_words() {
  static const Words<Border> w{{{Border::Constant, "constant"},
                                {Border::Replicate, "replicate"},
                                {Border::Reflect, "reflect"},
                                {Border::Reflect101, "reflect101"},
                                {Border::Wrap, "wrap"}}};
  return w;
}

Choice<Interp> interpolation_param(std::initializer_list<Interp> allowed, Interp def, std::string doc, bool random) {
  return Choice<Interp>(interp_words(), allowed, def,
                        ParamSpec{.name = "interpolation", .doc = std::move(doc), .random = random});
}

Choice<Border> border_param(std::initializer_list<Border> allowed, Border def, std::string doc) {
  return Choice<Border>(border_words(), allowed, def, ParamSpec{.name = "border", .doc = std::move(doc), .random = true});
}

Choice<Border> border_param(std::initializer_list<Border> allowed, std::string doc) {
  return Choice<Border>(border_words(), allowed, ParamSpec{.name = "border", .doc = std::move(doc), .optional = true});
}

Param<IntegerParam> odd_kernel_size_param(const std::string& noun, int max) {
  return Param<IntegerParam>({.name = "kernel_size",
                              .doc = "odd " + noun + " size; [lo, hi] draws one of the odd sizes in the range per image, "
                                     "each as likely (Albumentations' blur_limit)",
                              .default_value = {3, 7},
                              .random = true,
                              .min = Bound{3},
                              .max = Bound{static_cast<double>(max)},
                              .odd = true});
}

Param<std::vector<double>> fill_param() {
  return Param<std::vector<double>>({.name = "fill",
                                     .doc = "value of pixels from outside the image under border constant: one "
                                            "number, or one per channel, in sample units (255 is white in 8-bit)",
                                     .default_value = 0.0});
}

double fill_for_channel(const std::vector<double>& fill, int c) {
  return fill.empty() ? 0.0 : fill[std::min<std::size_t>(static_cast<std::size_t>(c), fill.size() - 1)];
}

int border_index(int p, int len, Border border) { return k::border_index(p, len, static_cast<int>(border)); }

}  // namespace aug
