// color_jitter: torchvision's ColorJitter: brightness, contrast, saturation and hue, in a random order.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "kernels/color/color_jitter.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

Param<std::vector<double>> factor_param(const char* name, const char* what) {
  return Param<std::vector<double>>(
      {.name = name,
       .doc = std::string(what) + " factor: b means [max(0, 1 - b), 1 + b], [lo, hi] is used as is; 0 (or [1, 1]) "
                                  "leaves it out",
       .default_value = 0.0,
       .min = Bound{0}});
}

const Param<std::vector<double>> kBrightness = factor_param("brightness", "brightness"),
                                 kContrast = factor_param("contrast", "contrast"),
                                 kSaturation = factor_param("saturation", "saturation");
const Param<std::vector<double>> kHue({.name = "hue",
                                       .doc = "hue shift (a fraction of the colour wheel): h means [-h, h], "
                                              "[lo, hi] is used as is; 0 leaves it out",
                                       .default_value = 0.0,
                                       .min = Bound{-0.5},
                                       .max = Bound{0.5}});

const char* const kNames[4] = {"brightness", "contrast", "saturation", "hue"};

const StageSpec& color_jitter_spec() {
  static const StageSpec spec{
      .name = "color_jitter",
      .summary = "Randomly change brightness, contrast, saturation and hue, in a random order (torchvision's "
                 "ColorJitter).",
      .notes = {"As torchvision's ColorJitter (transforms.v2 functional arithmetic): per image a random order of the "
                "four adjustments (torch.randperm(4), here a Fisher-Yates shuffle of the keyed draws), then each "
                "enabled factor uniformly in its range, in the order brightness, contrast, saturation, hue. The "
                "manifest records the order and the factors (null for those left out). Factors are drawn as binary32, "
                "as torch draws them.",
                "Each adjustment is torchvision's binary32 formula, and 8- and 16-bit images are truncated back to "
                "the sample type after each (as torchvision's .to(uint8)): brightness x*f; contrast x*f + (1-f)*mean "
                "of the grayscale image (0.2989 R + 0.587 G + 0.114 B, floored); saturation x*f + (1-f)*gray; hue "
                "through torchvision's RGB/HSV formulas. Saturation and hue leave gray images alone; alpha is "
                "copied. The products and sums are rounded separately (no FMA); torchvision's add_(alpha=...) may "
                "fuse them on some CPUs, which can move a truncated value by 1 in rare cases "
                "(docs/arithmetic.md).",
                "A single number for brightness, contrast or saturation b means [max(0, 1 - b), 1 + b]; for hue h "
                "means [-|h|, |h|] (torchvision rejects a negative h); a list of two is the range itself."},
      .params = {kBrightness, kContrast, kSaturation, kHue},
      .tolerance = {.reason = "the same binary32 operations in the same order on every backend (no FMA), the "
                              "contrast mean from an exact integer sum (a double sum in a fixed order for float)"},
      .example = {{"stage", "color_jitter"}, {"brightness", 0.4}, {"contrast", 0.4}, {"saturation", 0.4}, {"hue", 0.1}},
      .cases = {R"({"brightness": 0.5, "contrast": 0.5, "saturation": 0.5, "hue": 0.2})",
                R"({"brightness": [1.3, 1.6]})", R"({"contrast": [0.2, 0.6]})",
                R"({"saturation": [0.0, 2.5]})", R"({"hue": [-0.5, 0.5]})",
                R"({"contrast": [1.5, 2.0], "hue": 0.4})"},
      .identity = R"({"brightness": 0, "contrast": 0, "saturation": 0, "hue": 0})",
      .bench = {R"({"brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1})"},
  };
  return spec;
}

struct Range {
  double lo = 0, hi = 0;
};

class JitterOp final : public Op {
 public:
  JitterOp(const Shape& s, const int (&order)[4], const std::optional<double> (&factor)[4])
      : Op(s, s), order_{order[0], order[1], order[2], order[3]} {
    for (int i = 0; i < 4; ++i) factor_[i] = factor[i];
    args_.color_channels = color_channels(s);
    for (int k = 0; k < 4; ++k) {
      const int op = order[k];
      if (!factor[op]) continue;
      // Saturation and hue do nothing to a gray image.
      if (args_.color_channels == 1 && (op == k::kJitterSaturation || op == k::kJitterHue)) continue;
      args_.op[args_.count++] = op;
    }
    for (int op = 0; op < 4; ++op) {
      const double f = factor[op].value_or(op == k::kJitterHue ? 0.0 : 1.0);
      args_.ratio[op] = static_cast<float>(f);
      args_.rest[op] = static_cast<float>(1.0 - f);
    }
    args_.hue = args_.ratio[k::kJitterHue];
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (args_.count == 0) return copy_image(ctx, in, out);
    with_views(in, out, [&](auto src, auto dst) { k::color_jitter(src, dst, args_, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json j;
    nlohmann::json order = nlohmann::json::array();
    for (int op : order_) order.push_back(kNames[op]);
    j["order"] = order;
    for (int op = 0; op < 4; ++op) j[kNames[op]] = factor_[op] ? nlohmann::json(*factor_[op]) : nlohmann::json();
    return j;
  }

 private:
  int order_[4];
  std::optional<double> factor_[4];
  k::JitterArgs args_{};
};

class ColorJitter final : public Stage {
 public:
  explicit ColorJitter(const StageConfig& c) {
    const Param<std::vector<double>>* params[4] = {&kBrightness, &kContrast, &kSaturation, &kHue};
    for (int op = 0; op < 4; ++op) {
      const std::vector<double>& v = c.get(*params[op]);
      const double centre = op == k::kJitterHue ? 0.0 : 1.0;
      Range r;
      if (v.size() == 1) {
        const double b = std::fabs(v[0]);
        r = op == k::kJitterHue ? Range{-b, b} : Range{std::max(0.0, 1.0 - b), 1.0 + b};
      } else if (v.size() == 2) {
        if (v[0] > v[1]) c.fail(*params[op], "= [" + std::to_string(v[0]) + ", " + std::to_string(v[1]) +
                                                  "]: the range's low end exceeds its high end");
        r = Range{v[0], v[1]};
      } else {
        c.fail(*params[op], "takes a number or [lo, hi], not " + std::to_string(v.size()) + " numbers");
      }
      // torchvision leaves an adjustment out when its range is the single neutral value.
      if (!(r.lo == centre && r.hi == centre)) range_[op] = r;
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    int order[4] = {0, 1, 2, 3};  // torch.randperm(4): a uniform permutation (Fisher-Yates)
    for (int i = 3; i > 0; --i) std::swap(order[i], order[d.integer(0, i)]);
    std::optional<double> factor[4];
    for (int op = 0; op < 4; ++op)
      if (range_[op]) factor[op] = static_cast<double>(static_cast<float>(d.uniform(range_[op]->lo, range_[op]->hi)));
    return std::make_unique<JitterOp>(in, order, factor);
  }

 private:
  std::optional<Range> range_[4];
};

}  // namespace

StageType color_jitter_stage() { return stage_type<ColorJitter>(&color_jitter_spec); }

}  // namespace aug
