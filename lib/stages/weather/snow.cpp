// snow: Albumentations' RandomSnow, its bleach method (docs/stages/weather.md#snow).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/weather/snow.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace snow_impl {
namespace {

const Param<NumberParam> kSnowPoint{{.name = "snow_point",
                                     .doc = "how much is bleached: lightness below snow_point * 127.5 + 85 is "
                                            "brightened; [lo, hi] draws one per image",
                                     .default_value = {0.1, 0.3},
                                     .random = true,
                                     .min = Bound{0},
                                     .max = Bound{1}}};
const Param<NumberParam> kBrightness{{.name = "brightness_coeff",
                                      .doc = "factor of the lightness below the threshold",
                                      .default_value = 2.5,
                                      .min = Bound{0, true},
                                      .max = Bound{1000}}};
enum class Method { Bleach, Texture };
const Words<Method> kMethods{{{Method::Bleach, "bleach"}, {Method::Texture, "texture"}}};
const Choice<Method> kMethod{kMethods,
                             {},
                             Method::Bleach,
                             {.name = "method",
                              .doc = "bleach (lightness raised in HLS); texture (Albumentations 2.x's snow texture) "
                                     "is not available and is refused"}};

const StageSpec& snow_spec() {
  static const StageSpec spec{
      .name = "snow",
      .family = "weather",
      .summary = "Bleach the darker parts of the image towards white, as snow (Albumentations RandomSnow).",
      .notes = {"As Albumentations' RandomSnow, method bleach, on 8-bit RGB values: one snow_point per image, the "
                "image to HLS as cv::cvtColor converts 8-bit images, every lightness below snow_point * 127.5 + 85 "
                "multiplied by brightness_coeff in binary32, clipped and truncated, and back to RGB. 16-bit and float "
                "images go through 8 bits (Albumentations' uint8_io). The texture method is refused. Labels are not "
                "moved. Albumentations' default p is 0.5, this stage's too."},
      .params = {kSnowPoint, kBrightness, kMethod},
      .channels = {3},
      .default_p = 0.5,
      .tolerance = {.reason = "OpenCV's 8-bit HLS conversions in binary32 with its own fused multiply-adds, "
                              "exactly rounded on every backend, and a lightness table from the host"},
      .example = {{"stage", "snow"}, {"snow_point", {0.2, 0.5}}},
      .cases = {R"({})", R"({"snow_point": [0, 1], "brightness_coeff": 1.5})",
                R"({"snow_point": 0.9, "brightness_coeff": 4})"},
      .no_identity = "the 8-bit HLS round trip changes some colours even where the lightness is kept",
      .bench = {R"({})", R"({"snow_point": 0.8})"},
      .arithmetic = R"md(
Albumentations' **RandomSnow** with `method` bleach (its defaults: `snow_point_range` (0.1, 0.3),
`brightness_coeff` 2.5, `p` 0.5; the same arithmetic in 1.x and 2.x) on 8-bit RGB values.

- **Draw**: `sp = uniform(snow_point)`; the threshold `t = sp * 127.5 + 85` (double). The manifest
  records `sp`.
- **To HLS**: `cv::cvtColor(COLOR_RGB2HLS)` on 8-bit values, computed as OpenCV 4.6 computes it:
  each value times `1 / 255.f`, the float conversion (`l = (max + min) / 2`,
  `s = diff / (l < 0.5 ? max + min : 2 - max - min)`, the hue from the largest channel), then
  `H = sat(rne(h / 2))`, `L = sat(rne(l * 255))`, `S = sat(rne(s * 255))`. OpenCV's row loop takes
  its vector path for the first `W - W % 8` pixels of each row and its scalar path for the rest; the
  two round a few thousand of the 2^24 colours differently (the vector path computes `2 - sum` and
  fuses the hue's product into its sum; the scalar path `2 - max - min`, fused where the compiler
  fused it), and every backend takes the path OpenCV takes for that column.
- **Lightness**: where `(float)L < (float)t`, `L = trunc(min((float)L * (float)brightness_coeff, 255))`
  (numpy multiplies a float32 array by a Python float in float32); a host table of the 256 values.
- **Back**: `cv::cvtColor(COLOR_HLS2RGB)` on 8-bit values: `l`, `s` times `1 / 255.f`, the hue sector
  from `H * (6 / 180.f)`, each channel `sat(rne(c * 255))`.
- **Other types** (Albumentations' `uint8_io`): float `q = clamp(rint(v * 255), 0, 255)`, back as
  `q / 255.f`; 16-bit `q = (v + 128) / 257`, back as `q * 257`. RGB only (Albumentations converts RGB
  to HLS).
- **texture** (Albumentations 2.x's second method: a blurred noise texture, sparkles and a blue tint
  in HSV) is not available: a pipeline that asks for it is refused.
- Albumentations 1.x named the range `snow_point_lower` / `snow_point_upper`; the importer reads both.
)md",
      .imports = {{.name = "RandomSnow",
                   .how = "snow_point_range (or snow_point_lower/upper) is snow_point, brightness_coeff, method "
                          "(bleach only)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "snow"}};
                     if (t.has("snow_point_range")) {
                       const auto [lo, hi] = t.limit("snow_point_range", {0.1, 0.3}, false);
                       s["snow_point"] = ojson::array({lo, hi});
                     } else if (t.has("snow_point_lower") || t.has("snow_point_upper")) {
                       s["snow_point"] =
                           ojson::array({t.number("snow_point_lower", 0.1), t.number("snow_point_upper", 0.3)});
                     }
                     s["brightness_coeff"] = t.number("brightness_coeff", 2.5);
                     if (t.has("method")) {
                       const std::string m = t.saved().at("method").get<std::string>();
                       if (m != "bleach")
                         t.fail("RandomSnow method '" + m + "': only 'bleach' is available (snow's method)");
                       s["method"] = m;
                     }
                     return s;
                   },
                   .python = {
                       {"RandomSnow",
                        "snow_point_lower snow_point_upper brightness_coeff always_apply p",
                        "brightness_coeff snow_point_range method p",
                        0.5}}}},
      .counterpart = {.none = "OpenCV has no snow call (Albumentations composes two cv::cvtColor calls around a "
                              "numpy lightness scaling)"},
  };
  return spec;
}

class SnowOp final : public Op {
 public:
  SnowOp(const Shape& s, double snow_point, double coefficient) : Op(s, s), snow_point_(snow_point) {
    const float t = static_cast<float>(snow_point * 127.5 + 85.0);
    const float c = static_cast<float>(coefficient);
    lightness_.resize(256);
    for (int l = 0; l < 256; ++l) {
      float v = static_cast<float>(l);
      if (v < t) v = std::min(v * c, 255.f);
      lightness_[static_cast<std::size_t>(l)] = static_cast<std::uint8_t>(v);
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::SnowArgs a;
    a.lightness = ctx.table(lightness_);
    a.vector_end = k::hls8_vector_end(in.shape.width);
    with_views(in, out, [&](auto src, auto dst) { k::snow(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override { return {{kSnowPoint.name, snow_point_}}; }

 private:
  double snow_point_;
  std::vector<std::uint8_t> lightness_;
};

class SnowStage final : public Stage {
 public:
  explicit SnowStage(const StageConfig& c) : point_(c.get(kSnowPoint)), coefficient_(c.get(kBrightness).lo) {
    const auto& m = c.get(kMethod).options;
    if (m.size() != 1 || m[0] != Method::Bleach)
      c.fail(kMethod, "only 'bleach' is available; Albumentations' 'texture' snow is not implemented");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<SnowOp>(in, point_.sample(d), coefficient_);
  }

 private:
  NumberParam point_;
  double coefficient_;
};

}  // namespace
}  // namespace snow_impl

StageType snow_stage() { return stage_type<snow_impl::SnowStage>(&snow_impl::snow_spec); }

}  // namespace aug
