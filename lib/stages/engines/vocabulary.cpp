#include "lib/stages/engines/vocabulary.hpp"

namespace aug {

const Words<Interp>& interp_words() {
  static const Words<Interp> w{{{Interp::Nearest, "nearest"},
                                {Interp::Bilinear, "bilinear"},
                                {Interp::Bicubic, "bicubic"},
                                {Interp::Area, "area"}}};
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

int border_index(int p, int len, Border border) {
  if (p >= 0 && p < len) return p;
  switch (border) {
    case Border::Constant: return -1;
    case Border::Replicate: return p < 0 ? 0 : len - 1;
    case Border::Reflect:
    case Border::Reflect101: {
      if (len == 1) return 0;
      const int d = border == Border::Reflect101 ? 1 : 0;  // reflect101 does not repeat the edge
      do {
        p = p < 0 ? -p - 1 + d : len - 1 - (p - len) - d;
      } while (p < 0 || p >= len);
      return p;
    }
    case Border::Wrap:
      if (p < 0) p -= ((p - len + 1) / len) * len;
      return p % len;
  }
  return -1;
}

}  // namespace aug
