// rgb_shift: Albumentations' RGBShift, shifts as fractions of the sample range.
#include <cmath>

#include "kernels/color/rgb_shift.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace rgb_shift_impl {
namespace {

constexpr double kTwenty = 20.0 / 255.0;  // Albumentations' default 20 levels of an 8-bit image

Param<NumberParam> shift_param(const char* name, const char* doc) {
  return Param<NumberParam>({.name = name,
                             .doc = doc,
                             .default_value = kTwenty,
                             .random = true,
                             .min = Bound{-1},
                             .max = Bound{1}});
}

const Param<NumberParam> kR = shift_param("r_shift", "red shift, a fraction of the range: s means [-s, s]"),
                         kG = shift_param("g_shift", "green shift, a fraction of the range: s means [-s, s]"),
                         kB = shift_param("b_shift", "blue shift, a fraction of the range: s means [-s, s]");

const StageSpec& rgb_shift_spec() {
  static const StageSpec spec{
      .name = "rgb_shift",
      .family = "color",
      .summary = "Add a random shift to the red, green and blue channels (Albumentations RGBShift), saturating.",
      .notes = {"As Albumentations' RGBShift: each channel's shift is drawn uniformly from [-s, s] for a number s "
                "or from [lo, hi] ([s, s]: a fixed shift), per image. Shifts are fractions of the sample range here (Albumentations gives "
                "them in 8-bit levels: its default 20 is 20/255 = 0.0784 here, the default); 8- and 16-bit images: "
                "out = sat(RNE(v + shift max)) through a table; float images: clamp(v + shift, 0, 1).",
                "A grayscale image is shifted by 0.299 r + 0.587 g + 0.114 b (BT.601 weights, as channel_gain). Alpha "
                "is left alone. Albumentations' default p is 0.5, this stage's too."},
      .params = {kR, kG, kB},
      .default_p = 0.5,
      .tolerance = {.reason = "integer images: one table built on the host; float images: one IEEE addition and a "
                              "clamp"},
      .example = {{"stage", "rgb_shift"}, {"r_shift", 0.08}, {"g_shift", 0.08}, {"b_shift", 0.08}},
      .cases = {R"({})", R"({"r_shift": [0.1, 0.3], "g_shift": -0.2, "b_shift": [-0.5, -0.4]})"},
      .identity = R"({"r_shift": 0, "g_shift": 0, "b_shift": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' **RGBShift** (default `p` 0.5): `r_shift`, `g_shift`, `b_shift` drawn in that order,
a number `s` meaning `uniform(-|s|, |s|)` (0: no draw), `[lo, hi]` meaning `uniform(lo, hi)` (`[s, s]`:
the fixed shift `s`, no draw). Shifts are
fractions of the range: Albumentations' 8-bit default 20 is the default 20/255 here. Gray images
take `0.299 r + 0.587 g + 0.114 b` (double, as channel_gain).

- **Integer**: a table per channel, `sat_T(rne(v + shift_c * max))` in double on the host
  ([Pointwise tables](../arithmetic.md#pointwise-tables)).
- **Float**: `clamp01(v + (float)shift_c)`. Alpha is copied.
)md",
      .imports = {
          {.name = "RGBShift",
           .how = "r/g/b_shift_limit; pixel units become fractions of 255",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "rgb_shift"}};
            const char* keys[3][2] = {{"r_shift_limit", "r_shift"}, {"g_shift_limit", "g_shift"}, {"b_shift_limit", "b_shift"}};
            bool fractions = false;
            for (const auto& k : keys) {
              auto [lo, hi] = t.limit(k[0], {-20, 20}, true);
              if (std::max(std::fabs(lo), std::fabs(hi)) > 1) lo /= 255, hi /= 255;
              else if (lo != 0 || hi != 0) fractions = true;
              s[k[1]] = ojson::array({lo, hi});
            }
            if (fractions)
              t.note("shift limits of at most 1 read as fractions of the range (a float image's units); on 8-bit "
                     "images Albumentations adds them as levels, which changes almost nothing: divide them by 255 "
                     "for that");
            return s;
          },
           .python = {
               {"RGBShift",
                "r_shift_limit g_shift_limit b_shift_limit always_apply p",
                "r_shift_limit g_shift_limit b_shift_limit p",
                0.5}}}},
      .counterpart = {.call = "cv::LUT", .how = "the stage's table of the 256 values of each channel", .lut = true},
  };
  return spec;
}

class ShiftOp final : public Op {
 public:
  ShiftOp(const Shape& s, double r, double g, double b) : Op(s, s), rgb_{r, g, b} {
    for (int c = 0; c < 3; ++c) shift_[c] = s.channels == 1 ? 0.299 * r + 0.587 * g + 0.114 * b : rgb_[c];
    for (int c = 0; c < 3; ++c) args_.shift[c] = static_cast<float>(shift_[c]);
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.dtype == DType::F32)
      return k::rgb_shift_float(in.view<const float>(), out.view<float>(), args_, color_channels(in.shape), ctx.exec());
    run_table(ctx, in, out, [&](std::int64_t v, std::int64_t max, int c) {
      return static_cast<std::int64_t>(std::nearbyint(static_cast<double>(v) + shift_[c] * static_cast<double>(max)));
    });
  }

  nlohmann::json params() const override { return {{kR.name, rgb_[0]}, {kG.name, rgb_[1]}, {kB.name, rgb_[2]}}; }

 private:
  double rgb_[3], shift_[3];
  k::ShiftArgs args_{};
};

// A number s means [-|s|, |s|]; a range (even [s, s]: a fixed shift) is used as it is.
NumberParam symmetric(NumberParam p) {
  if (!p.written_as_range) {
    const double s = std::fabs(p.lo);
    p = s == 0 ? NumberParam{0, 0, false} : NumberParam{-s, s, true};
  }
  return p;
}

class RgbShift final : public Stage {
 public:
  explicit RgbShift(const StageConfig& c)
      : r_(symmetric(c.get(kR))), g_(symmetric(c.get(kG))), b_(symmetric(c.get(kB))) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double r = r_.sample(d), g = g_.sample(d), b = b_.sample(d);
    return std::make_unique<ShiftOp>(in, r, g, b);
  }

 private:
  NumberParam r_, g_, b_;
};

}  // namespace
}  // namespace rgb_shift_impl

StageType rgb_shift_stage() { return stage_type<rgb_shift_impl::RgbShift>(&rgb_shift_impl::rgb_shift_spec); }

}  // namespace aug
