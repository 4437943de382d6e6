// hue_saturation_value: Albumentations' HueSaturationValue on 8-bit RGB(A) images, through OpenCV's
// 8-bit HSV.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/color/hue_saturation_value.hpp"
#include "lib/stages/engines/hsv8_tables.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace hue_saturation_value_impl {
namespace {

Param<NumberParam> shift_param(const char* name, double def, double max, const char* doc) {
  return Param<NumberParam>(
      {.name = name, .doc = doc, .default_value = def, .random = true, .min = Bound{-max}, .max = Bound{max}});
}

const Param<NumberParam> kHue = shift_param("hue_shift", 20, 180,
                                            "hue shift in OpenCV's 8-bit hue units (2 degrees each): s means "
                                            "[-s, s]; drawn per image"),
                         kSat = shift_param("sat_shift", 30, 255,
                                            "saturation shift in 8-bit levels: s means [-s, s]; drawn per image"),
                         kVal = shift_param("val_shift", 20, 255,
                                            "value (brightness) shift in 8-bit levels: s means [-s, s]; drawn per "
                                            "image");

const StageSpec& hue_saturation_value_spec() {
  static const StageSpec spec{
      .name = "hue_saturation_value",
      .family = "color",
      .summary = "Shift hue, saturation and value in OpenCV's 8-bit HSV (Albumentations HueSaturationValue); "
                 "equal to cv::cvtColor and Albumentations' tables to the bit.",
      .notes = {"As Albumentations' HueSaturationValue on 8-bit RGB images: cv::cvtColor RGB2HSV (hue in [0, 180)), "
                "then per component a table, H' = trunc((H + dh) mod 180), S' = trunc(clamp(S + ds, 0, 255)) with "
                "S = 0 kept 0 (gray pixels stay gray), V' = trunc(clamp(V + dv, 0, 255)), then HSV2RGB. Both "
                "conversions are OpenCV 4.6's 8-bit arithmetic written out (integer tables to HSV, binary32 back); "
                "OpenCV converts the first 32 floor(W / 32) pixels of a row with its AVX2 code and the rest one by "
                "one, which round differently, and so does this stage (docs/stages/color.md). Alpha is copied.",
                "Each shift is a number s (drawn from [-s, s]) or [lo, hi], drawn per image in the order hue, "
                "saturation, value; the hue is in OpenCV's 8-bit units (20 = 40 degrees), as Albumentations applies "
                "it to 8-bit images. Albumentations' defaults (20, 30, 20) and p = 0.5 are this stage's. Zero shifts "
                "still convert to HSV and back (Albumentations returns the image untouched then)."},
      .params = {kHue, kSat, kVal},
      .dtypes = {DType::U8},
      .channels = {3, 4},
      .default_p = 0.5,
      .tolerance = {.reason = "integer tables and the same binary32 operations (fused where OpenCV fuses them, no "
                              "other contraction) on every backend"},
      .example = {{"stage", "hue_saturation_value"}, {"hue_shift", 20}, {"sat_shift", 30}, {"val_shift", 20}},
      .cases = {R"({})", R"({"hue_shift": [170, 180], "sat_shift": 0, "val_shift": 0})",
                R"({"hue_shift": -7.5, "sat_shift": [-255, -200], "val_shift": [100, 120]})",
                R"({"hue_shift": 0, "sat_shift": 0, "val_shift": 0})"},
      .no_identity = "zero shifts still convert to HSV and back, and OpenCV's 8-bit conversions do not invert each "
                     "other: about 40% of all RGB values move by a level or more",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' **HueSaturationValue** on 8-bit RGB(A) images (default `p` 0.5): `cv::cvtColor`
RGB2HSV, a table per component, `cv::cvtColor` HSV2RGB, with OpenCV 4.6's 8-bit arithmetic written out
(`kernels/color/hue_saturation_value.hpp`). 16-bit, float and gray images are refused.

- **Draws**: `hue_shift`, `sat_shift`, `val_shift` in that order, a number `s` meaning
  `uniform(-|s|, |s|)` (0: no draw), `[lo, hi]` meaning `uniform(lo, hi)`. Defaults 20, 30, 20. The hue
  is in OpenCV's 8-bit units (2 degrees), as Albumentations applies it to 8-bit images.
- **To HSV** (integers): `v = max`, `d = v - min`, `s = (d * sdiv[v] + 2^11) >> 12`, `h` from the
  max channel's difference (`g - b`, `b - r + 2d`, `r - g + 4d`) times `hdiv[d]`, same rounding, `+ 180`
  when negative; `sdiv[i] = rne(255 * 2^12 / i)`, `hdiv[i] = rne(180 * 2^12 / (6 i))`, 0 at 0, built on
  the host in double and uploaded.
- **Tables** (numpy's arithmetic, in double): `H' = trunc((H + dh) mod 180)` (mod with the divisor's
  sign), `S' = trunc(clamp(S + ds, 0, 255))` but `S' = 0` where `S = 0` (Albumentations keeps gray
  pixels gray), `V' = trunc(clamp(V + dv, 0, 255))`.
- **To RGB** (binary32): `sf = S * (1/255)`, `vf = V * (1/255)`, `t = H * (6/180)`, sector and fraction
  `f` of `t`, `p = vf (1 - sf)`, `q = vf (1 - sf f)`, `u = vf (1 - sf (1 - f))`, the usual six-sector
  choice, times 255. OpenCV converts each row's first `32 floor(W / 32)` pixels with its AVX2 code
  and the others one at a time, and the two are not the same function: the blocks compute `1 - sf f`
  and `1 - sf (1 - f)` each as one fused multiply-add and **truncate**; the others fuse only
  `1 - sf f`, take `r = g = b = vf` when `S = 0`, and **round half to even**. Both are reproduced, by
  the pixel's column. (OpenCV picks the code by CPU: with only SSE4.1 its blocks are 16 pixels and not
  fused; the values reproduced are those of every CPU with AVX2.)
- **No identity**: zero shifts still convert to HSV and back, and the 8-bit conversions are not
  inverses: about 40% of all RGB values move. Albumentations returns the image untouched when all
  three shifts are 0; this stage converts anyway.
- **Checked** (`tests/stages/test_hue_saturation_value.cpp`): `EveryColourEqualsOpenCVsRoundTrip` (all
  2^24 colours in rows of 4096, and rows of 7), `PhotographsEqualOpenCVAndAlbumentationsTables` (five
  photographs, RGBA included), `RandomImagesOfEveryWidthEqualOpenCV` (widths 1 to 129 across the
  32-pixel blocks): 0 differing values on both backends against cv::cvtColor, cv::LUT and cv::cvtColor.
)md",
      .imports = {
          {.name = "HueSaturationValue",
           .how = "hue_shift_limit, sat_shift_limit, val_shift_limit (same units)",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "hue_saturation_value"}};
            const auto h = t.limit("hue_shift_limit", {-20, 20}, true);
            const auto sa = t.limit("sat_shift_limit", {-30, 30}, true);
            const auto v = t.limit("val_shift_limit", {-20, 20}, true);
            s["hue_shift"] = ojson::array({h.first, h.second});
            s["sat_shift"] = ojson::array({sa.first, sa.second});
            s["val_shift"] = ojson::array({v.first, v.second});
            return s;
          },
           .python = {
               {"HueSaturationValue",
                "hue_shift_limit sat_shift_limit val_shift_limit always_apply p",
                "hue_shift_limit sat_shift_limit val_shift_limit p",
                0.5}}}},
      .counterpart = {.none = "OpenCV does it as several calls (cv::cvtColor to HSV, a table per channel, cv::cvtColor "
                              "back), not one"},
  };
  return spec;
}

// The three tables as Albumentations builds them (numpy: float arithmetic, mod with the divisor's
// sign, then a cast to uint8 that truncates), in double on the host.
std::vector<std::uint8_t> shift_tables(double dh, double ds, double dv) {
  std::vector<std::uint8_t> lut(3 * 256);
  for (int i = 0; i < 256; ++i) {
    double h = std::fmod(i + dh, 180.0);
    if (h < 0) h += 180.0;
    lut[i] = static_cast<std::uint8_t>(h);
    const double s = std::clamp(i + ds, 0.0, 255.0), v = std::clamp(i + dv, 0.0, 255.0);
    lut[256 + i] = i == 0 ? 0 : static_cast<std::uint8_t>(s);
    lut[512 + i] = static_cast<std::uint8_t>(v);
  }
  return lut;
}

class HsvOp final : public Op {
 public:
  HsvOp(const Shape& s, double dh, double ds, double dv)
      : Op(s, s), dh_(dh), ds_(ds), dv_(dv), lut_(shift_tables(dh, ds, dv)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const k::HsvArgs args{ctx.table(hsv8_division_table(false)), ctx.table(hsv8_division_table(true)), ctx.table(lut_)};
    k::hue_saturation_value(in.view<const std::uint8_t>(), out.view<std::uint8_t>(), args, ctx.exec());
  }

  nlohmann::json params() const override { return {{kHue.name, dh_}, {kSat.name, ds_}, {kVal.name, dv_}}; }

 private:
  double dh_, ds_, dv_;
  std::vector<std::uint8_t> lut_;
};

// A number s means [-|s|, |s|]; a range is used as it is.
NumberParam symmetric(NumberParam p) {
  if (!p.written_as_range) {
    const double s = std::fabs(p.lo);
    p = s == 0 ? NumberParam{0, 0, false} : NumberParam{-s, s, true};
  }
  return p;
}

class HueSaturationValue final : public Stage {
 public:
  explicit HueSaturationValue(const StageConfig& c)
      : h_(symmetric(c.get(kHue))), s_(symmetric(c.get(kSat))), v_(symmetric(c.get(kVal))) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double dh = h_.sample(d), ds = s_.sample(d), dv = v_.sample(d);
    return std::make_unique<HsvOp>(in, dh, ds, dv);
  }

 private:
  NumberParam h_, s_, v_;
};

}  // namespace
}  // namespace hue_saturation_value_impl

StageType hue_saturation_value_stage() { return stage_type<hue_saturation_value_impl::HueSaturationValue>(&hue_saturation_value_impl::hue_saturation_value_spec); }

}  // namespace aug
