// rain: Albumentations' RandomRain (docs/stages/weather.md#rain).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
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
  if `blur_value > 1`, `cv::blur` of the layer with a `blur_value` square (REFLECT_101).
- **How the host builds it**: every drop is the same line moved by whole pixels, and OpenCV
  rasterises in integer and fixed-point arithmetic that such a move carries along, so one drop is
  drawn with `cv::polylines` on a small canvas and its pixels are stamped at each drop that stays a
  margin inside the image (drops near a border are drawn by `cv::polylines` on the image). The
  blurred layer holds the drop colour or zero before the blur, so each blurred value depends only on
  how many drop pixels its window holds: the host counts them per pixel (running box sums) and takes
  each count's value from `cv::blur` itself, run once on windows of every count. Windows wider than
  15 and images not wider and taller than the window take the plain route (the layer drawn and
  blurred whole). The CPU backend adds and scales from the counts; the kernels get the layer.
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

// Where cv::polylines(layer, lines, false, colour, width, LINE_4) draws the drops: 1 there, else 0,
// one value a pixel. Every drop is the same line up to a translation (its end is its start plus
// (dx, length), dx = int(x + slant) - x, the same for nearly all drops), and OpenCV rasterises in
// integer and fixed-point arithmetic that commutes with a whole-pixel translation, so the pixels of
// one drop drawn once on a small canvas are stamped at every drop that lies inside the image with a
// margin; drops near a border (where OpenCV clips) are drawn by cv::polylines itself.
std::vector<std::uint8_t> rain_drop_mask(int W, int H, const std::vector<cv::Point>& starts, double slant, int length,
                                         int width) {
  std::vector<std::uint8_t> mask(static_cast<std::size_t>(W) * static_cast<std::size_t>(H), 0);
  cv::Mat image(H, W, CV_8U, mask.data());
  struct Span {
    int row, x0, x1;  // [x0, x1) on the canvas's row
  };
  struct Stamp {
    int dx = 0, ox = 0, oy = 0, cw = 0, ch = 0;
    bool ok = false;
    std::vector<Span> spans;
  };
  std::vector<Stamp> stamps;
  const int margin = width + 4;
  auto stamp_for = [&](int dx) -> const Stamp& {
    for (const Stamp& s : stamps)
      if (s.dx == dx) return s;
    Stamp s;
    s.dx = dx;
    s.ox = margin + std::max(0, -dx);
    s.oy = margin;
    s.cw = std::abs(dx) + 2 * margin + 1;
    s.ch = length + 2 * margin + 1;
    cv::Mat canvas(s.ch, s.cw, CV_8U, cv::Scalar(0));
    const std::vector<std::vector<cv::Point>> line{{cv::Point(s.ox, s.oy), cv::Point(s.ox + dx, s.oy + length)}};
    cv::polylines(canvas, line, false, cv::Scalar(1), width, cv::LINE_4);
    s.ok = true;  // nothing drawn on the canvas's edge: the margin holds the whole drop
    for (int y = 0; y < s.ch; ++y) {
      const std::uint8_t* r = canvas.ptr<std::uint8_t>(y);
      if (r[0] || r[s.cw - 1] || ((y == 0 || y == s.ch - 1) && cv::countNonZero(canvas.row(y)) > 0)) s.ok = false;
      for (int x = 0; x < s.cw;) {
        if (!r[x]) {
          ++x;
          continue;
        }
        int e = x;
        while (e < s.cw && r[e]) ++e;
        s.spans.push_back({y, x, e});
        x = e;
      }
    }
    stamps.push_back(std::move(s));
    return stamps.back();
  };
  std::vector<std::vector<cv::Point>> border;
  for (const cv::Point& p : starts) {
    const auto end_x = static_cast<int>(static_cast<double>(p.x) + slant);  // numpy's astype(int32)
    const Stamp& s = stamp_for(end_x - p.x);
    const int x0 = p.x - s.ox, y0 = p.y - s.oy;
    if (!s.ok || x0 < 0 || y0 < 0 || x0 + s.cw > W || y0 + s.ch > H) {
      border.push_back({p, cv::Point(end_x, p.y + length)});
      continue;
    }
    std::uint8_t* base = mask.data() + static_cast<std::size_t>(y0) * W + x0;
    for (const Span& sp : s.spans) {
      std::uint8_t* r = base + static_cast<std::size_t>(sp.row) * W;
      for (int x = sp.x0; x < sp.x1; ++x) r[x] = 1;  // spans of a few pixels: no call
    }
  }
  if (!border.empty()) cv::polylines(image, border, false, cv::Scalar(1), width, cv::LINE_4);
  return mask;
}

// How many drop pixels fall in the b x b window of each pixel (anchor b / 2, REFLECT_101 borders,
// as cv::blur's), for W, H > b and b * b <= 255.
std::vector<std::uint8_t> rain_window_counts(const std::vector<std::uint8_t>& mask, int W, int H, int b) {
  const int a = b / 2;
  auto reflect = [](int i, int n) { return i < 0 ? -i : (i >= n ? 2 * (n - 1) - i : i); };
  std::vector<std::uint8_t> rows(mask.size());  // horizontal sums
  std::vector<std::uint8_t> padded(static_cast<std::size_t>(W + b));
  for (int y = 0; y < H; ++y) {
    const std::uint8_t* m = mask.data() + static_cast<std::size_t>(y) * W;
    for (int i = 0; i < W + b - 1; ++i) padded[static_cast<std::size_t>(i)] = m[reflect(i - a, W)];
    std::uint8_t* o = rows.data() + static_cast<std::size_t>(y) * W;
    std::memcpy(o, padded.data(), static_cast<std::size_t>(W));
    for (int k = 1; k < b; ++k) {  // b shifted sums: they vectorise, a running sum would not
      const std::uint8_t* p = padded.data() + k;
      for (int x = 0; x < W; ++x) o[x] = static_cast<std::uint8_t>(o[x] + p[x]);
    }
  }
  std::vector<std::uint8_t> counts(mask.size());
  std::vector<std::uint16_t> acc(static_cast<std::size_t>(W), 0);
  auto row = [&](int i) { return rows.data() + static_cast<std::size_t>(reflect(i - a, H)) * W; };
  for (int k = 0; k < b - 1; ++k) {
    const std::uint8_t* r = row(k);
    for (int x = 0; x < W; ++x) acc[static_cast<std::size_t>(x)] = static_cast<std::uint16_t>(acc[static_cast<std::size_t>(x)] + r[x]);
  }
  for (int y = 0; y < H; ++y) {
    const std::uint8_t* in = row(y + b - 1);
    const std::uint8_t* out = row(y);
    std::uint8_t* c = counts.data() + static_cast<std::size_t>(y) * W;
    std::uint16_t* s = acc.data();
    for (int x = 0; x < W; ++x) {
      const auto t = static_cast<std::uint16_t>(s[x] + in[x]);
      c[x] = static_cast<std::uint8_t>(t);
      s[x] = static_cast<std::uint16_t>(t - out[x]);
    }
  }
  return counts;
}

// cv::blur's 8-bit value at a pixel whose b x b window holds n drop pixels of colour `colour` (and
// zeros elsewhere), for n = 0 .. b * b, one row of three channels a count: the box filter's result
// depends only on the window's sum, so cv::blur itself gives it, once per count, on windows laid
// side by side.
std::vector<std::uint8_t> rain_blur_table(const std::vector<double>& colour, int b) {
  const int n = b * b + 1, a = b / 2;
  cv::Mat blocks(3 * b, (2 * n + 1) * b, CV_8UC3, cv::Scalar(0, 0, 0));
  cv::Vec3b c;
  for (int k = 0; k < 3; ++k) c[k] = cv::saturate_cast<std::uint8_t>(colour[static_cast<std::size_t>(k)]);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < i; ++j) blocks.at<cv::Vec3b>(b + j / b, b + 2 * b * i + j % b) = c;
  cv::Mat blurred;
  cv::blur(blocks, blurred, cv::Size(b, b));
  std::vector<std::uint8_t> table(static_cast<std::size_t>(n) * 3);
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k)
      table[static_cast<std::size_t>(i) * 3 + k] = blurred.at<cv::Vec3b>(b + a, b + 2 * b * i + a)[k];
  return table;
}

class RainOp final : public Op {
 public:
  RainOp(const Shape& s, double slant, int length, int width, const std::vector<double>& color, int blur,
         double coefficient, const std::vector<cv::Point>& starts)
      : Op(s, s), slant_(slant), length_(length), drops_(static_cast<int>(starts.size())),
        coefficient_(starts.empty() ? 1.0 : coefficient) {
    if (!starts.empty()) {
      // Small images, or windows too large for 8-bit counts: the layer as Albumentations draws it.
      if (blur > 15 || (blur > 1 && (s.width <= blur || s.height <= blur))) {
        const std::size_t n = static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height) * 3;
        layer_.assign(n, 0);
        cv::Mat layer(s.height, s.width, CV_8UC3, layer_.data());
        std::vector<std::vector<cv::Point>> lines;
        lines.reserve(starts.size());
        for (const cv::Point& p : starts) {
          const auto end_x = static_cast<int>(static_cast<double>(p.x) + slant);  // numpy's astype(int32)
          lines.push_back({p, cv::Point(end_x, p.y + length)});
        }
        cv::polylines(layer, lines, false, cv::Scalar(color[0], color[1], color[2]), width, cv::LINE_4);
        if (blur > 1) cv::blur(layer, layer, cv::Size(blur, blur));
      } else {
        // The layer is the colour where a drop is, zero elsewhere, box-blurred: per channel, a function of
        // how many drop pixels each window holds.
        std::vector<std::uint8_t> mask = rain_drop_mask(s.width, s.height, starts, slant, length, width);
        if (blur > 1) {
          counts_ = rain_window_counts(mask, s.width, s.height, blur);
          count_layer_ = rain_blur_table(color, blur);
        } else {
          counts_ = std::move(mask);
          count_layer_ = {0, 0, 0};
          for (int k = 0; k < 3; ++k)
            count_layer_.push_back(cv::saturate_cast<std::uint8_t>(color[static_cast<std::size_t>(k)]));
        }
      }
    }
    scaled_.resize(256);
    for (int q = 0; q < 256; ++q) {
      const double p = std::rint(static_cast<double>(q) * coefficient_);
      scaled_[static_cast<std::size_t>(q)] = static_cast<std::uint8_t>(std::clamp(p, 0.0, 255.0));
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const Shape s = in.shape;
    if (ctx.cpu() && s.dtype == DType::U8 && layer_.empty()) return run_cpu_u8(in, out);
    k::RainArgs a;
    std::vector<std::uint8_t> layer;  // the kernels' layer, from the counts (tables are copied when made)
    if (layer_.empty()) {
      layer.resize(static_cast<std::size_t>(s.width) * static_cast<std::size_t>(s.height) * 3, 0);
      for (std::size_t i = 0; i < counts_.size(); ++i)
        for (std::size_t k = 0; k < 3; ++k) layer[i * 3 + k] = count_layer_[counts_[i] * 3u + k];
    }
    a.layer = ctx.table(layer_.empty() ? layer : layer_);
    a.scaled = ctx.table(scaled_);
    a.coefficient = coefficient_;
    with_views(in, out, [&](auto src, auto dst) { k::rain(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kSlant.name, slant_}, {"drop_length", length_}, {"drops", drops_}};
  }

 private:
  // The kernels' arithmetic on 8-bit values, the layer looked up from the counts: one table per count
  // in use, out = scaled[min(v + layer, 255)].
  void run_cpu_u8(const ImageRef& in, const ImageRef& out) const {
    const k::View<const std::uint8_t> src = in.view<const std::uint8_t>();
    const k::View<std::uint8_t> dst = out.view<std::uint8_t>();
    const int W = in.shape.width, H = in.shape.height;
    const int counts = counts_.empty() ? 1 : static_cast<int>(count_layer_.size() / 3);
    std::vector<std::uint8_t> table(static_cast<std::size_t>(counts) * 3 * 256);
    for (int n = 0; n < counts; ++n)
      for (int k = 0; k < 3; ++k) {
        const int l = counts_.empty() ? 0 : count_layer_[static_cast<std::size_t>(n) * 3 + k];
        std::uint8_t* t = table.data() + (static_cast<std::size_t>(n) * 3 + k) * 256;
        for (int q = 0; q < 256; ++q) t[q] = scaled_[static_cast<std::size_t>(std::min(q + l, 255))];
      }
    for (int y = 0; y < H; ++y) {
      const std::uint8_t* s = src.row(y);
      std::uint8_t* d = dst.row(y);
      if (counts_.empty()) {
        for (int i = 0; i < 3 * W; ++i) d[i] = table[s[i]];
        continue;
      }
      const std::uint8_t* c = counts_.data() + static_cast<std::size_t>(y) * W;
      for (int x = 0; x < W; ++x) {
        const std::uint8_t* t = table.data() + static_cast<std::size_t>(c[x]) * 768;
        d[3 * x] = t[s[3 * x]];
        d[3 * x + 1] = t[256 + s[3 * x + 1]];
        d[3 * x + 2] = t[512 + s[3 * x + 2]];
      }
    }
  }

  double slant_;
  int length_;
  int drops_;
  double coefficient_;
  std::vector<std::uint8_t> layer_;        // the layer itself (small images, large windows)
  std::vector<std::uint8_t> counts_;       // else: drop pixels in each pixel's window (empty: no drops)
  std::vector<std::uint8_t> count_layer_;  // the layer's three values for each count
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
