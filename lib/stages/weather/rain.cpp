// rain: Albumentations' RandomRain (docs/stages/weather.md#rain).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/weather/rain.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace rain_impl {
namespace {

const Param<NumberParam> kSlant{{.name = "slant",
                                 .doc = "horizontal shift of a drop's end over its start, pixels; [lo, hi] draws one "
                                        "per image",
                                 .default_value = {-10, 10},
                                 .random = true,
                                 .min = Bound{-20},
                                 .max = Bound{20}}};
const Param<IntegerParam> kDropLength{{.name = "drop_length",
                                       .doc = "length of a drop, pixels; without it max(1, H // 8)",
                                       .optional = true,
                                       .min = Bound{1},
                                       .max = Bound{100000}}};
const Param<IntegerParam> kDropWidth{
    {.name = "drop_width", .doc = "line thickness of a drop, pixels", .default_value = 1, .min = Bound{1}, .max = Bound{64}}};
const Param<std::vector<double>> kDropColor{{.name = "drop_color",
                                             .doc = "colour of the drops, [r, g, b] on the 8-bit scale (0 to 255)",
                                             .default_value = {200.0, 200.0, 200.0}}};
const Param<IntegerParam> kBlur{{.name = "blur_value",
                                 .doc = "side of the box blur of the drops' layer (1: none)",
                                 .default_value = 7,
                                 .min = Bound{1},
                                 .max = Bound{255}}};
const Param<NumberParam> kBrightness{{.name = "brightness_coefficient",
                                      .doc = "every value is multiplied by it after the drops are added",
                                      .default_value = 0.7,
                                      .min = Bound{0, true},
                                      .max = Bound{1}}};
enum class RainType { Default, Drizzle, Heavy, Torrential };
const Words<RainType> kRainTypes{{{RainType::Default, "default"},
                                  {RainType::Drizzle, "drizzle"},
                                  {RainType::Heavy, "heavy"},
                                  {RainType::Torrential, "torrential"}}};
const Choice<RainType> kRainType{
    kRainTypes,
    {},
    RainType::Default,
    {.name = "rain_type", .doc = "how many drops: default H // 3, drizzle H // 4, heavy H, torrential 2 H"}};

const StageSpec& rain_spec() {
  static const StageSpec spec{
      .name = "rain",
      .family = "weather",
      .summary = "Rain streaks drawn over the image, which is then darkened (Albumentations RandomRain).",
      .notes = {"As Albumentations 2.x's RandomRain on 8-bit RGB values, with the stage's draws: a slant, then "
                "a start point per drop; the drops drawn as 4-connected lines (cv::polylines) on a zero layer, "
                "the layer box-blurred (cv::blur), added to the image with saturation, and every value "
                "multiplied by brightness_coefficient as cv::multiply rounds it. All three channels are scaled "
                "(what Albumentations means; some OpenCV versions scale only the first channel of a bare Python "
                "number). 16-bit images add the layer times 257; float images go through 8 bits. Labels are not "
                "moved. Albumentations' default p is 0.5, this stage's too."},
      .params = {kSlant, kDropLength, kDropWidth, kDropColor, kBlur, kBrightness, kRainType},
      .channels = {3},
      .default_p = 0.5,
      .tolerance = {.reason = "the layer is drawn and blurred once on the host; every backend adds it with "
                              "saturation and rounds the same double product"},
      .example = {{"stage", "rain"}, {"rain_type", "drizzle"}},
      .cases = {R"({})", R"({"slant": [-20, -5], "drop_length": 15, "drop_width": 2, "drop_color": [120, 140, 255], )"
                         R"("blur_value": 3, "brightness_coefficient": 0.9, "rain_type": "heavy"})",
                R"({"slant": 4, "blur_value": 1, "brightness_coefficient": 1, "rain_type": "torrential"})"},
      .no_identity = "every image gets its drops and is darkened by the coefficient (float images also go "
                     "through 8 bits)",
      .bench = {R"({})", R"({"rain_type": "torrential", "drop_width": 2})"},
      .arithmetic = R"md(
Albumentations 2.x's **RandomRain** (its defaults: `slant_range` (-10, 10), `drop_length` None,
`drop_width` 1, `drop_color` (200, 200, 200), `blur_value` 7, `brightness_coefficient` 0.7,
`rain_type` default, `p` 0.5) on 8-bit RGB values, with the stage's draws in Albumentations' order.

- **Draws**: the drop length `len = drop_length`, or `max(1, H // 8)` without it; the drop count
  `H // 3` (default), `H // 4` (drizzle), `H` (heavy), `2 H` (torrential); the slant
  `uniform(slant)` (a float); then per drop `x = integer in [0, W)` and `y = integer in [0, H - len)`
  (numpy's exclusive `integers`; where `H - len <= 0`, numpy would refuse, `y = 0`). The manifest
  records the slant, the length and the drop count.
- **Layer**: a zero image of the input's size; each drop the 4-connected line (`cv::polylines`,
  `LINE_4`, thickness `drop_width`) from `(x, y)` to `(trunc(x + slant), y + len)` in `drop_color`;
  if `blur_value > 1`, `cv::blur` of the layer with a `blur_value` square (REFLECT_101). Drawn and
  blurred once on the host with OpenCV, then given to the kernels.
- **Values**: `s = min(v + layer, 255)`, then `sat(rne((double)s * brightness_coefficient))`, which is
  what `cv::multiply(image, coefficient, dtype=CV_8U)` computes; the 256 products are a host table.
  **Every channel is scaled.** That is what RandomRain means; a bare Python number given to
  `cv2.multiply` is `Scalar(c, 0, 0, 0)`, and on some OpenCV versions only the first channel is scaled
  and the others are zeroed, which augment does not reproduce.
- **16-bit** (augment's choice; Albumentations quantises every type to 8 bits): the layer is scaled by
  257, `s = min(v + 257 layer, 65535)`, then `sat(rne((double)s * brightness_coefficient))` as
  `cv::multiply` on 16-bit values. **Float**: Albumentations' `uint8_io`, `q = clamp(rint(v * 255))`,
  the 8-bit arithmetic, back as `q / 255.f`. RGB only, as Albumentations (it refuses other channel
  counts). Without drops (`H < 3`) the image is given back as it is.
- Albumentations 1.x (`slant_lower` / `slant_upper`, `drop_length` 20, `rain_type` None) drew other
  counts and lengths per rain type, drew 8-connected lines **on the image**, box-blurred the whole
  image and darkened V in HSV; the importer maps its parameters onto the 2.x arithmetic and says so.
)md",
      .imports = {{.name = "RandomRain",
                   .how = "slant_range (or slant_lower/upper) is slant; drop_length, drop_width, drop_color, "
                          "blur_value, brightness_coefficient, rain_type (1.x None: default); 1.x's drawing on the "
                          "image, whole-image blur and HSV darkening become 2.x's layer",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "rain"}};
                     const bool one = !t.has("slant_range") && (t.has("slant_lower") || t.has("slant_upper"));
                     if (t.has("slant_range")) {
                       const auto [lo, hi] = t.limit("slant_range", {-10, 10}, false);
                       s["slant"] = ojson::array({lo, hi});
                     } else if (one) {
                       s["slant"] = ojson::array({t.number("slant_lower", -10), t.number("slant_upper", 10)});
                     }
                     if (t.has("drop_length")) s["drop_length"] = std::llround(t.number("drop_length", 20));
                     else if (one) s["drop_length"] = 20;
                     s["drop_width"] = std::llround(t.number("drop_width", 1));
                     if (t.has("drop_color")) {
                       ojson c = ojson::array();
                       for (const auto& v : t.saved().at("drop_color")) c.push_back(v.get<double>());
                       s["drop_color"] = c;
                     }
                     s["blur_value"] = std::llround(t.number("blur_value", 7));
                     s["brightness_coefficient"] = t.number("brightness_coefficient", 0.7);
                     if (t.has("rain_type")) s["rain_type"] = t.saved().at("rain_type").get<std::string>();
                     if (one || (t.has("drop_length") && !t.has("slant_range")))
                       t.note("RandomRain (1.x): its drops drawn on the image, whole-image blur and HSV darkening "
                              "become 2.x's blurred drop layer and brightness multiply");
                     return s;
                   },
                   .python = {
                       {"RandomRain",
                        "slant_lower slant_upper drop_length drop_width drop_color blur_value brightness_coefficient "
                        "rain_type always_apply p",
                        "slant_range drop_length drop_width drop_color blur_value brightness_coefficient rain_type p",
                        0.5}}}},
      .counterpart = {.none = "OpenCV has no rain call (Albumentations composes cv::polylines, cv::blur, cv::add and "
                              "cv::multiply)"},
  };
  return spec;
}

class RainOp final : public Op {
 public:
  RainOp(const Shape& s, double slant, int length, int width, const std::vector<double>& color, int blur,
         double coefficient, const std::vector<cv::Point>& starts)
      : Op(s, s), slant_(slant), length_(length), drops_(static_cast<int>(starts.size())),
        coefficient_(starts.empty() ? 1.0 : coefficient) {
    const std::size_t n = static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height) * 3;
    layer_.assign(n, 0);
    if (!starts.empty()) {
      cv::Mat layer(s.height, s.width, CV_8UC3, layer_.data());
      std::vector<std::vector<cv::Point>> lines;
      lines.reserve(starts.size());
      for (const cv::Point& p : starts) {
        const auto end_x = static_cast<int>(static_cast<double>(p.x) + slant);  // numpy's astype(int32)
        lines.push_back({p, cv::Point(end_x, p.y + length)});
      }
      cv::polylines(layer, lines, false, cv::Scalar(color[0], color[1], color[2]), width, cv::LINE_4);
      if (blur > 1) cv::blur(layer, layer, cv::Size(blur, blur));
    }
    scaled_.resize(256);
    for (int q = 0; q < 256; ++q) {
      const double p = std::rint(static_cast<double>(q) * coefficient_);
      scaled_[static_cast<std::size_t>(q)] = static_cast<std::uint8_t>(std::clamp(p, 0.0, 255.0));
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::RainArgs a;
    a.layer = ctx.table(layer_);
    a.scaled = ctx.table(scaled_);
    a.coefficient = coefficient_;
    with_views(in, out, [&](auto src, auto dst) { k::rain(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kSlant.name, slant_}, {"drop_length", length_}, {"drops", drops_}};
  }

 private:
  double slant_;
  int length_;
  int drops_;
  double coefficient_;
  std::vector<std::uint8_t> layer_;
  std::vector<std::uint8_t> scaled_;
};

class RainStage final : public Stage {
 public:
  explicit RainStage(const StageConfig& c)
      : slant_(c.get(kSlant)), has_length_(c.has(kDropLength)), width_(static_cast<int>(c.get(kDropWidth).lo)),
        color_(c.get(kDropColor)), blur_(static_cast<int>(c.get(kBlur).lo)), coefficient_(c.get(kBrightness).lo),
        type_(c.get(kRainType).options[0]) {
    if (has_length_) length_ = static_cast<int>(c.get(kDropLength).lo);
    if (c.get(kRainType).options.size() != 1) c.fail(kRainType, "give one rain type");
    if (color_.size() != 3) c.fail(kDropColor, "give three numbers: [r, g, b]");
    for (double v : color_)
      if (!(v >= 0 && v <= 255)) c.fail(kDropColor, "each number must be in [0, 255]");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int W = in.width, H = in.height;
    const int count = type_ == RainType::Drizzle ? H / 4
                      : type_ == RainType::Heavy ? H
                      : type_ == RainType::Torrential ? 2 * H
                                                      : H / 3;
    const int length = has_length_ ? length_ : std::max(1, H / 8);
    const double slant = slant_.sample(d);
    std::vector<cv::Point> starts(static_cast<std::size_t>(count));
    const std::int64_t y_hi = std::max<std::int64_t>(0, static_cast<std::int64_t>(H) - length - 1);
    for (cv::Point& p : starts) {
      p.x = static_cast<int>(d.integer(0, W - 1));
      p.y = static_cast<int>(d.integer(0, y_hi));
    }
    return std::make_unique<RainOp>(in, slant, length, width_, color_, blur_, coefficient_, starts);
  }

 private:
  NumberParam slant_;
  bool has_length_;
  int length_ = 0;
  int width_;
  std::vector<double> color_;
  int blur_;
  double coefficient_;
  RainType type_;
};

}  // namespace
}  // namespace rain_impl

StageType rain_stage() { return stage_type<rain_impl::RainStage>(&rain_impl::rain_spec); }

}  // namespace aug
