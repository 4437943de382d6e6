// sun_flare: Albumentations' RandomSunFlare (docs/stages/weather.md#sun_flare).
#include "kernels/weather/sun_flare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "lib/stages/stage.hpp"
#include "lib/stages/weather/circle_rows.hpp"

namespace aug {

namespace sun_flare_impl {
namespace {

constexpr int kMaxFlareCircles = 16;                 // bits of the cover word
constexpr double kFlarePi = 3.14159265358979323846;  // Python's math.pi

const Param<std::vector<double>> kRoi{{.name = "flare_roi",
                                       .doc = "where the flare's centre falls: [x_min, y_min, x_max, y_max], "
                                              "fractions of the width and height, each in [0, 1]",
                                       .default_value = {0.0, 0.0, 1.0, 0.5}}};
const Param<NumberParam> kAngle{{.name = "angle",
                                 .doc = "direction of the line the flare circles lie on, in turns (2 pi * angle "
                                        "radians); [lo, hi] draws one per image",
                                 .default_value = {0.0, 1.0},
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{1}}};
const Param<IntPair> kNumCircles{{.name = "num_flare_circles",
                                  .doc = "range of the number of flare circles per image (inclusive)",
                                  .default_value = {6, 10},
                                  .min = Bound{1},
                                  .max = Bound{kMaxFlareCircles},
                                  .ordered = true,
                                  .elements = "[lo, hi]"}};
const Param<IntegerParam> kSrcRadius{{.name = "src_radius",
                                      .doc = "radius of the sun in pixels; src_radius // 10 concentric circles",
                                      .default_value = 400,
                                      .min = Bound{1},
                                      .max = Bound{10000}}};
const Param<std::vector<std::int64_t>> kSrcColor{{.name = "src_color",
                                                  .doc = "colour of the sun [r, g, b] (one value: the same for "
                                                         "all three; gray images use r)",
                                                  .default_value = {255, 255, 255},
                                                  .min = Bound{0},
                                                  .max = Bound{255}}};
enum class Method { Overlay, PhysicsBased };
const Words<Method> kMethods{{{Method::Overlay, "overlay"}, {Method::PhysicsBased, "physics_based"}}};
const Choice<Method> kMethod{
    kMethods,
    {},
    Method::Overlay,
    {.name = "method",
     .doc = "overlay (circles blended in turn); physics_based (a blurred flare layer with rays, faded with the "
            "distance and screen-blended)"}};

const StageSpec& sun_flare_spec() {
  static const StageSpec spec{
      .name = "sun_flare",
      .family = "weather",
      .summary = "A sun and a line of flare circles blended over the image (Albumentations RandomSunFlare).",
      .notes = {"As Albumentations 2.x's RandomSunFlare with method 'overlay', on 8-bit values, with the stage's "
                "draws: a centre in flare_roi, a direction, 6 to 10 filled circles of radius rad^3 on the line "
                "through the centre, each blended in turn with its own alpha as albucore's add_weighted rounds, "
                "then src_radius // 10 concentric circles of src_color blended with a cubic alpha ramp. 16-bit "
                "and float images are quantised to 8 bits and given back (Albumentations' uint8_io). Method "
                "'physics_based' (2.x) draws the sun, four rays and the circles (radius int(rad^3 ^ 0.33)) on a "
                "float layer, blurs it (sigma 15), fades it with the distance from the centre, blurs channel 0 "
                "(sigma 3) and channel 2 (sigma 5) again and screen-blends it over the image. Labels are not "
                "moved. Albumentations' default p is 0.5, this stage's too."},
      .params = {kRoi, kAngle, kNumCircles, kSrcRadius, kSrcColor, kMethod},
      .channels = {1, 3},
      .default_p = 0.5,
      .tolerance = {.reason = "overlay: the circles and every blend are computed once on the host into per-cover "
                              "tables of the 256 8-bit values, the kernels only look values up; physics_based: the "
                              "layer is built on the host, the screen blend is exactly rounded binary32"},
      .example = {{"stage", "sun_flare"}, {"src_radius", 200}, {"num_flare_circles", {4, 8}}},
      .cases = {R"({})", R"({"flare_roi": [0, 0, 1, 1], "src_radius": 60, "src_color": [255, 200, 120]})",
                R"({"num_flare_circles": [16, 16], "angle": 0.25, "src_radius": 9})",
                R"({"method": "physics_based"})",
                R"({"method": "physics_based", "flare_roi": [0, 0, 1, 1], "src_radius": 60, "src_color": [255, 200, 120]})"},
      .no_identity = "the sun and its circles are drawn on every image",
      .bench = {R"({})", R"({"src_radius": 100, "num_flare_circles": [12, 16]})", R"({"method": "physics_based"})"},
      .arithmetic = R"md(
Albumentations 2.x's **RandomSunFlare** with `method="overlay"` (its defaults: `flare_roi`
(0, 0, 1, 0.5), `angle_range` (0, 1), `num_flare_circles_range` (6, 10), `src_radius` 400,
`src_color` (255, 255, 255), `p` 0.5) on 8-bit values, with the stage's draws in Albumentations'
order.

- **Draws**: `angle = 2 pi * uniform(angle)`; the centre `cx = int(W * uniform(x_min, x_max))`,
  `cy = int(H * uniform(y_min, y_max))`; `n = integer(num_flare_circles)`. The line's points are
  `(cx + t cos(angle), cy + t sin(angle))` for `t` in `range(-cx, W - cx, step)`,
  `step = max(1, int(0.01 * sqrt(H^2 + W^2)))`. Per circle, in this order: `alpha = uniform(0.05, 0.2)`,
  one of the points (each as likely; its coordinates truncated towards zero), `rad = integer(1,
  max(2, int(0.01 H)))`, then per channel of `src_color` a colour `integer(max(c - range, 0), c)` with
  `range = int(0.2 * max(src_color))`. The circle's radius is `rad^3`. The manifest records the centre,
  the circles and the number of distinct covers.
- **Flare circles**: Albumentations draws each circle (`cv::circle`, filled, 8-connected) onto an
  overlay that keeps the earlier circles, and after each one blends `output = add_weighted(overlay,
  alpha, output, 1 - alpha)`. albucore's 8-bit `add_weighted` (simsimd's `wsum`): with `af =
  (float)alpha`, `bf = (float)(1 - alpha)`, `s = a * af + b * bf` in binary32 (each product rounded,
  then the sum), the result `0` below 0, `255` above 255, else `(int)(s + 0.5f)` (halves away from
  zero: the serial path).
- **Sun**: `m = src_radius // 10` circles of `src_color` centred on `(cx, cy)`, radius
  `int(linspace(1, src_radius, m)[i])`, drawn in turn onto an overlay that starts as the output of the
  flare circles; after each, `output = add_weighted(overlay, a^3, output, 1 - a^3)` with
  `a = linspace(0, min(5 * sum(alpha * rad^3) / sum(rad^3), 1), m)[m - 1 - i]` (numpy's linspace:
  `i * step + start`, the last value the end itself).
- **How it runs**: a pixel's result depends only on its 8-bit value and its cover: which flare circles
  fall on it and the first sun circle that does (the overlay keeps the colour of the last circle drawn
  over a pixel; before the first, overlay and output agree and a blend leaves the value as it is). The
  host finds each row's span of every circle as `cv::circle` fills it (OpenCV's integer midpoint walk,
  symmetric about the centre, clipped to the image), cuts each row into runs of one cover at the
  spans' ends, numbers the distinct covers and tabulates the whole sequence of blends for every cover,
  channel and 8-bit value (each blend a table of 256 values, composed); the CPU backend looks the
  values of each run up (runs whose table changes nothing are copied), the kernels each pixel's.
  At most 16 flare circles (the bits of a cover word).
- **Other types** (Albumentations' `uint8_io`): float `q = clamp(rint(v * 255), 0, 255)` (NaN 0),
  given back as `q / 255.f`; 16-bit `q = (v + 128) / 257`, given back as `q * 257`. Gray images, which
  Albumentations refuses (RGB only), take the first component of each colour, as `cv::circle` does
  on one channel.
- **`method="physics_based"`** (2.x; the same draws): on the host, a binary32 layer of zeros with
  the image's channels; `cv::circle` (filled, 8-connected) of radius `src_radius` and `src_color` at
  the centre; four rays `cv::line` (thickness 2, 8-connected) from the centre to
  `(int(cx + cos(a) * max(W, H)), int(cy + sin(a) * max(W, H)))` for `a` of 0, 45, 90 and 135
  degrees; each flare circle filled at its centre with radius `int(pow(rad^3, 0.33))` and its
  colour; `cv::GaussianBlur` with sigma 15 (121 taps, BORDER_REFLECT_101); each value times
  `1 - clip(sqrt((x - cx)^2 + (y - cy)^2) / (0.7 max(W, H)), 0, 1)` in double, rounded to binary32;
  channel 0 blurred again with sigma 3 (25 taps) and channel 2 with sigma 5 (41 taps). Every backend
  then screen-blends each 8-bit value `q` under its layer value `f`:
  `trunc(clip(255 - (255 - q) * (255 - f) / 255, 0, 255))`, each step in binary32 (numpy's float32
  arithmetic on a uint8 image and a float32 layer). Gray images take the first component of each
  colour and the sigma-3 blur of channel 0.
- Albumentations 1.x's parameters (`angle_lower/upper`,
  `num_flare_circles_lower/upper`) map onto the same draws; 1.x used 1.x's rules (a step of 10 pixels,
  `rad` up to `max(H // 100 - 2, 2)`, colours down to `c - 50`, a fixed alpha ramp and
  `cv::addWeighted`), which the importer notes.
)md",
      .imports = {{.name = "RandomSunFlare",
                   .how = "flare_roi, angle_range (or angle_lower/upper), num_flare_circles_range (or "
                          "num_flare_circles_lower/upper), src_radius, src_color, method; 1.x's draws and blends "
                          "become 2.x's",
                   .convert =
                       [](const TransformReader& t) {
                         ojson s{{"stage", "sun_flare"}};
                         if (t.has("flare_roi")) s["flare_roi"] = t.saved().at("flare_roi");
                         if (t.has("angle_range")) {
                           const auto [lo, hi] = t.limit("angle_range", {0, 1}, false);
                           s["angle"] = ojson::array({lo, hi});
                         } else if (t.has("angle_lower") || t.has("angle_upper")) {
                           s["angle"] = ojson::array({t.number("angle_lower", 0), t.number("angle_upper", 1)});
                         }
                         if (t.has("num_flare_circles_range")) {
                           const auto [lo, hi] = t.limit("num_flare_circles_range", {6, 10}, false);
                           s["num_flare_circles"] = ojson::array({std::llround(lo), std::llround(hi)});
                         } else if (t.has("num_flare_circles_lower") || t.has("num_flare_circles_upper")) {
                           s["num_flare_circles"] =
                               ojson::array({std::llround(t.number("num_flare_circles_lower", 6)),
                                             std::llround(t.number("num_flare_circles_upper", 10))});
                         }
                         s["src_radius"] = std::llround(t.number("src_radius", 400));
                         if (t.has("src_color")) s["src_color"] = t.saved().at("src_color");
                         if (t.has("method")) {
                           const std::string m = t.saved().at("method").get<std::string>();
                           if (m != "overlay" && m != "physics_based")
                             t.fail("RandomSunFlare method '" + m + "': Albumentations has 'overlay' and 'physics_based'");
                           s["method"] = m;
                         }
                         if (t.has("angle_lower") || t.has("angle_upper") || t.has("num_flare_circles_lower") ||
                             t.has("num_flare_circles_upper"))
                           t.note("RandomSunFlare (1.x): its circle draws and blends become 2.x's");
                         return s;
                       },
                   .python = {
                       {"RandomSunFlare",
                        "flare_roi angle_lower angle_upper num_flare_circles_lower num_flare_circles_upper "
                        "src_radius src_color always_apply p",
                        "flare_roi src_radius src_color angle_range num_flare_circles_range method p",
                        0.5}}}},
      .counterpart = {.none = "OpenCV has no sun flare call (Albumentations draws it with cv::circle and a "
                              "weighted sum per circle)"},
  };
  return spec;
}

struct FlareCircle {
  double alpha = 0;
  int x = 0, y = 0, radius = 0;
  std::array<int, 3> color{};
};

// albucore's 8-bit add_weighted (simsimd wsum, serial path) of one value.
int flare_wsum(int a, float af, int b, float bf) {
  const float pa = static_cast<float>(a) * af;
  const float pb = static_cast<float>(b) * bf;
  const float s = pa + pb;
  if (s > 255.f) return 255;
  if (s < 0.f) return 0;
  return static_cast<int>(s + 0.5f);
}

// numpy.linspace(start, stop, num)[i].
double flare_linspace(double start, double stop, int num, int i) {
  if (num == 1) return start;
  if (i == num - 1) return stop;
  const double step = (stop - start) / static_cast<double>(num - 1);
  return static_cast<double>(i) * step + start;
}

class SunFlareOp final : public Op {
 public:
  SunFlareOp(const Shape& s, int cx, int cy, int src_radius, const std::array<int, 3>& src_color,
             std::vector<FlareCircle> circles)
      : Op(s, s), cx_(cx), cy_(cy), circles_(std::move(circles)) {
    const int W = s.width, H = s.height;
    // The flare circles (bit i: circle i) and the sun's circles (index i), as cv::circle fills them.
    std::vector<CircleRows> flare, sun;
    for (const FlareCircle& c : circles_) flare.push_back({c.x, c.y, c.radius, filled_circle_half_widths(c.radius)});
    const int m = src_radius / 10;
    sun_circles_ = m;
    for (int i = 0; i < m; ++i) {
      const int r = static_cast<int>(flare_linspace(1, src_radius, m, i));
      sun.push_back({cx, cy, r, filled_circle_half_widths(r)});
    }
    constexpr int kNone = 65535;  // no sun circle
    // The blends, as Albumentations orders them.
    double weighted = 0, total = 0;
    for (const FlareCircle& c : circles_) {
      weighted += c.alpha * c.radius;
      total += c.radius;
    }
    const double max_alpha = std::min(weighted / total * 5, 1.0);
    std::vector<float> sun_af(static_cast<std::size_t>(m)), sun_bf(static_cast<std::size_t>(m));
    for (int i = 0; i < m; ++i) {
      const double a = flare_linspace(0, max_alpha, m, m - i - 1);
      const double a3 = a * a * a;
      sun_af[static_cast<std::size_t>(i)] = static_cast<float>(a3);
      sun_bf[static_cast<std::size_t>(i)] = static_cast<float>(1 - a3);
    }
    const int C = s.channels;
    // One blend step as a table of the 8-bit value it blends: step(colour, alpha)[q] = wsum(colour, q).
    auto step_table = [](int colour, float af, float bf) {
      std::array<std::uint8_t, 256> t{};
      for (int q = 0; q < 256; ++q) t[static_cast<std::size_t>(q)] = static_cast<std::uint8_t>(flare_wsum(colour, af, q, bf));
      return t;
    };
    const std::size_t n = circles_.size();
    // flare_steps[(i * n + j) * C + ch]: flare circle i's blend with the overlay holding circle j's colour.
    std::vector<std::array<std::uint8_t, 256>> flare_steps(n * n * static_cast<std::size_t>(C));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j <= i; ++j)
        for (int ch = 0; ch < C; ++ch)
          flare_steps[(i * n + j) * static_cast<std::size_t>(C) + static_cast<std::size_t>(ch)] =
              step_table(circles_[j].color[static_cast<std::size_t>(ch)], static_cast<float>(circles_[i].alpha),
                         static_cast<float>(1 - circles_[i].alpha));
    // Per mask of flare circles: what they make of each value (the steps in turn from the first circle
    // of the mask: before it, overlay and output agree and a blend changes nothing).
    std::unordered_map<std::uint32_t, std::vector<std::uint8_t>> flare_tables;
    auto flare_table = [&](std::uint16_t b) -> const std::vector<std::uint8_t>& {
      auto it = flare_tables.find(b);
      if (it != flare_tables.end()) return it->second;
      std::vector<std::uint8_t> t(static_cast<std::size_t>(C) * 256);
      for (int ch = 0; ch < C; ++ch) {
        std::uint8_t* tc = t.data() + static_cast<std::size_t>(ch) * 256;
        for (int q = 0; q < 256; ++q) tc[q] = static_cast<std::uint8_t>(q);
        std::size_t last = n;  // the last circle of the mask so far
        for (std::size_t i = 0; i < n; ++i) {
          if ((b >> i) & 1u) last = i;
          if (last == n) continue;
          const std::array<std::uint8_t, 256>& step = flare_steps[(i * n + last) * static_cast<std::size_t>(C) + static_cast<std::size_t>(ch)];
          for (int q = 0; q < 256; ++q) tc[q] = step[tc[q]];
        }
      }
      return flare_tables.emplace(b, std::move(t)).first->second;
    };
    // Per first sun circle k: the blends of circles k .. m - 1 in turn; sun_tables[m]: none.
    std::vector<std::vector<std::uint8_t>> sun_tables(static_cast<std::size_t>(m) + 1,
                                                      std::vector<std::uint8_t>(static_cast<std::size_t>(C) * 256));
    for (int ch = 0; ch < C; ++ch)
      for (int q = 0; q < 256; ++q) sun_tables[static_cast<std::size_t>(m)][static_cast<std::size_t>(ch) * 256 + q] = static_cast<std::uint8_t>(q);
    for (int k = m - 1; k >= 0; --k)
      for (int ch = 0; ch < C; ++ch) {
        const std::array<std::uint8_t, 256> step =
            step_table(src_color[static_cast<std::size_t>(ch)], sun_af[static_cast<std::size_t>(k)], sun_bf[static_cast<std::size_t>(k)]);
        const std::uint8_t* after = sun_tables[static_cast<std::size_t>(k) + 1].data() + static_cast<std::size_t>(ch) * 256;
        std::uint8_t* t = sun_tables[static_cast<std::size_t>(k)].data() + static_cast<std::size_t>(ch) * 256;
        for (int q = 0; q < 256; ++q) t[q] = after[step[static_cast<std::size_t>(q)]];
      }
    auto sun_table = [&](int k0) -> const std::vector<std::uint8_t>& {
      return sun_tables[static_cast<std::size_t>(k0 == kNone ? m : k0)];
    };
    // Each row in runs of one cover (flare bits, first sun circle), between the circles' span ends;
    // the covers numbered in order of appearance (row by row, left to right).
    std::unordered_map<std::uint32_t, std::uint16_t> ids;
    row_start_.reserve(static_cast<std::size_t>(H) + 1);
    std::vector<int> ends;
    std::vector<std::array<int, 2>> flare_spans(flare.size()), sun_spans(sun.size());
    for (int y = 0; y < H; ++y) {
      row_start_.push_back(static_cast<std::uint32_t>(runs_.size()));
      ends.assign({0, W});
      for (std::size_t i = 0; i < flare.size(); ++i) {
        int x0 = 0, x1 = 0;
        if (!flare[i].span(y, W, x0, x1)) x0 = x1 = -1;
        flare_spans[i] = {x0, x1};
        if (x0 >= 0) ends.insert(ends.end(), {x0, x1});
      }
      for (std::size_t i = 0; i < sun.size(); ++i) {
        int x0 = 0, x1 = 0;
        if (!sun[i].span(y, W, x0, x1)) x0 = x1 = -1;
        sun_spans[i] = {x0, x1};
        if (x0 >= 0) ends.insert(ends.end(), {x0, x1});
      }
      std::sort(ends.begin(), ends.end());
      ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
      for (std::size_t e = 0; e + 1 < ends.size(); ++e) {
        const int x = ends[e];
        std::uint16_t bits = 0;
        for (std::size_t i = 0; i < flare.size(); ++i)
          if (x >= flare_spans[i][0] && x < flare_spans[i][1]) bits = static_cast<std::uint16_t>(bits | (1u << i));
        int first = kNone;
        for (std::size_t i = 0; i < sun.size(); ++i)
          if (x >= sun_spans[i][0] && x < sun_spans[i][1]) {
            first = static_cast<int>(i);
            break;
          }
        const std::uint32_t key = (static_cast<std::uint32_t>(bits) << 16) | static_cast<std::uint32_t>(first);
        auto it = ids.find(key);
        if (it == ids.end()) {
          if (ids.size() > 65535) throw std::runtime_error("sun_flare: more than 65536 distinct covers");
          const auto id = static_cast<std::uint16_t>(ids.size());
          it = ids.emplace(key, id).first;
          const std::vector<std::uint8_t>& ft = flare_table(bits);
          const std::vector<std::uint8_t>& st = sun_table(first);
          table_.resize(table_.size() + static_cast<std::size_t>(C) * 256);
          std::uint8_t* t = table_.data() + static_cast<std::size_t>(id) * C * 256;
          bool same = true;
          for (int ch = 0; ch < C; ++ch)
            for (int q = 0; q < 256; ++q) {
              t[ch * 256 + q] = st[static_cast<std::size_t>(ch) * 256 + ft[ch * 256 + q]];
              same = same && t[ch * 256 + q] == q;
            }
          identity_.push_back(same);
        }
        if (!runs_.empty() && row_start_.back() < runs_.size() && runs_.back().id == it->second) continue;
        runs_.push_back({x, it->second});
      }
    }
    row_start_.push_back(static_cast<std::uint32_t>(runs_.size()));
    covers_ = static_cast<int>(ids.size());
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const int W = in.shape.width, H = in.shape.height, C = in.shape.channels;
    if (ctx.cpu() && in.shape.dtype == DType::U8) {
      // The kernels' look-ups, a run of one cover at a time; runs that change nothing are copied.
      const k::View<const std::uint8_t> src = in.view<const std::uint8_t>();
      const k::View<std::uint8_t> dst = out.view<std::uint8_t>();
      for (int y = 0; y < H; ++y) {
        const std::uint8_t* sr = src.row(y);
        std::uint8_t* dr = dst.row(y);
        for (std::uint32_t r = row_start_[static_cast<std::size_t>(y)]; r < row_start_[static_cast<std::size_t>(y) + 1];
             ++r) {
          const int x0 = runs_[r].x;
          const int x1 = r + 1 < row_start_[static_cast<std::size_t>(y) + 1] ? runs_[r + 1].x : W;
          const std::size_t n = static_cast<std::size_t>(x1 - x0) * static_cast<std::size_t>(C);
          const std::uint8_t* sp = sr + static_cast<std::size_t>(x0) * C;
          std::uint8_t* dp = dr + static_cast<std::size_t>(x0) * C;
          if (identity_[runs_[r].id]) {
            if (sp != dp) std::memcpy(dp, sp, n);
            continue;
          }
          const std::uint8_t* t = table_.data() + static_cast<std::size_t>(runs_[r].id) * C * 256;
          if (C == 3) {
            for (std::size_t i = 0; i < n; i += 3) {
              dp[i] = t[sp[i]];
              dp[i + 1] = t[256 + sp[i + 1]];
              dp[i + 2] = t[512 + sp[i + 2]];
            }
          } else {
            for (std::size_t i = 0; i < n; ++i) dp[i] = t[static_cast<std::size_t>(i % C) * 256 + sp[i]];
          }
        }
      }
      return;
    }
    // The kernels: every pixel's cover, from the runs (tables are copied when made).
    std::vector<std::uint16_t> cover(static_cast<std::size_t>(W) * static_cast<std::size_t>(H));
    for (int y = 0; y < H; ++y) {
      std::uint16_t* o = cover.data() + static_cast<std::size_t>(y) * W;
      for (std::uint32_t r = row_start_[static_cast<std::size_t>(y)]; r < row_start_[static_cast<std::size_t>(y) + 1]; ++r) {
        const int x1 = r + 1 < row_start_[static_cast<std::size_t>(y) + 1] ? runs_[r + 1].x : W;
        std::fill(o + runs_[r].x, o + x1, runs_[r].id);
      }
    }
    k::SunFlareArgs a;
    a.cover = ctx.table(cover);
    a.table = ctx.table(table_);
    with_views(in, out, [&](auto src, auto dst) { k::sun_flare(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json list = nlohmann::json::array();
    for (const FlareCircle& c : circles_)
      list.push_back({{"alpha", c.alpha}, {"center", {c.x, c.y}}, {"radius", c.radius}, {"color", c.color}});
    return {{"flare_center", {cx_, cy_}}, {"circles", list}, {"sun_circles", sun_circles_}, {"covers", covers_}};
  }

 private:
  struct Run {
    int x;            // first column; the run ends where the row's next run starts (or at the width)
    std::uint16_t id;  // its cover
  };
  int cx_, cy_;
  int sun_circles_ = 0, covers_ = 0;
  std::vector<FlareCircle> circles_;
  std::vector<Run> runs_;                // every row's runs, left to right
  std::vector<std::uint32_t> row_start_;  // row y's runs: [row_start_[y], row_start_[y + 1])
  std::vector<std::uint8_t> table_;       // covers * channels * 256 values
  std::vector<bool> identity_;            // per cover: its table changes no value
};

// method physics_based: the flare layer built on the host, screen-blended by the kernels.
class SunFlarePhysicsOp final : public Op {
 public:
  SunFlarePhysicsOp(const Shape& s, int cx, int cy, int src_radius, const std::array<int, 3>& src_color,
                    std::vector<FlareCircle> circles)
      : Op(s, s), cx_(cx), cy_(cy), circles_(std::move(circles)) {
    const int W = s.width, H = s.height, C = s.channels;
    auto colour = [&](const std::array<int, 3>& c) {
      return C == 1 ? cv::Scalar(c[0]) : cv::Scalar(c[0], c[1], c[2]);
    };
    cv::Mat layer(H, W, CV_32FC(C), cv::Scalar::all(0));
    const cv::Point centre(cx, cy);
    cv::circle(layer, centre, src_radius, colour(src_color), cv::FILLED, cv::LINE_8);
    const double reach = std::max(W, H);
    for (int degrees : {0, 45, 90, 135}) {
      const double a = degrees * (kFlarePi / 180.0);  // numpy.radians
      const cv::Point end(static_cast<int>(cx + std::cos(a) * reach), static_cast<int>(cy + std::sin(a) * reach));
      cv::line(layer, centre, end, colour(src_color), 2, cv::LINE_8);
    }
    for (const FlareCircle& c : circles_)
      cv::circle(layer, cv::Point(c.x, c.y), static_cast<int>(std::pow(static_cast<double>(c.radius), 0.33)),
                 colour(c.color), cv::FILLED, cv::LINE_8);
    cv::GaussianBlur(layer, layer, cv::Size(0, 0), 15, 15);
    const double fade = reach * 0.7;
    for (int y = 0; y < H; ++y) {
      float* row = layer.ptr<float>(y);
      const std::int64_t dy = y - cy;
      for (int x = 0; x < W; ++x) {
        const std::int64_t dx = x - cx;
        const double m = 1 - std::clamp(std::sqrt(static_cast<double>(dx * dx + dy * dy)) / fade, 0.0, 1.0);
        for (int c = 0; c < C; ++c) row[x * C + c] = static_cast<float>(static_cast<double>(row[x * C + c]) * m);
      }
    }
    std::vector<cv::Mat> planes;
    cv::split(layer, planes);
    cv::GaussianBlur(planes[0], planes[0], cv::Size(0, 0), 3, 3);
    if (C > 2) cv::GaussianBlur(planes[2], planes[2], cv::Size(0, 0), 5, 5);
    cv::merge(planes, layer);
    layer_.assign(layer.ptr<float>(), layer.ptr<float>() + static_cast<std::size_t>(W) * H * C);
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::SunFlareScreenArgs a;
    a.layer = ctx.table(layer_);
    with_views(in, out, [&](auto src, auto dst) { k::sun_flare_screen(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json list = nlohmann::json::array();
    for (const FlareCircle& c : circles_)
      list.push_back({{"alpha", c.alpha}, {"center", {c.x, c.y}}, {"radius", c.radius}, {"color", c.color}});
    return {{"flare_center", {cx_, cy_}}, {"circles", list}, {"method", "physics_based"}};
  }

 private:
  int cx_, cy_;
  std::vector<FlareCircle> circles_;
  std::vector<float> layer_;
};

class SunFlareStage final : public Stage {
 public:
  explicit SunFlareStage(const StageConfig& c)
      : roi_(c.get(kRoi)),
        angle_(c.get(kAngle)),
        num_(c.get(kNumCircles)),
        src_radius_(static_cast<int>(c.get(kSrcRadius).lo)) {
    if (roi_.size() != 4) c.fail(kRoi, "give four numbers: [x_min, y_min, x_max, y_max]");
    for (double v : roi_)
      if (!(v >= 0 && v <= 1)) c.fail(kRoi, "each number must be in [0, 1]");
    if (roi_[0] > roi_[2] || roi_[1] > roi_[3]) c.fail(kRoi, "x_min must not exceed x_max, nor y_min y_max");
    const std::vector<std::int64_t>& color = c.get(kSrcColor);
    if (color.size() != 3 && color.size() != 1) c.fail(kSrcColor, "give three values [r, g, b] or one for all three");
    for (std::size_t i = 0; i < 3; ++i) color_[i] = static_cast<int>(color[color.size() == 1 ? 0 : i]);
    const auto& methods = c.get(kMethod).options;
    if (methods.size() != 1) c.fail(kMethod, "give one method: overlay or physics_based");
    physics_ = methods[0] == Method::PhysicsBased;
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int W = in.width, H = in.height;
    const double angle = 2 * kFlarePi * angle_.sample(d);
    const int cx = static_cast<int>(W * d.uniform(roi_[0], roi_[2]));
    const int cy = static_cast<int>(H * d.uniform(roi_[1], roi_[3]));
    const auto n = static_cast<int>(d.integer(num_[0], num_[1]));
    const double diagonal = std::sqrt(static_cast<double>(H) * H + static_cast<double>(W) * W);
    const int step = std::max(1, static_cast<int>(diagonal * 0.01));
    const int max_rad = std::max(2, static_cast<int>(H * 0.01));
    const int range = static_cast<int>(*std::max_element(color_.begin(), color_.end()) * 0.2);
    const std::int64_t points = (W + step - 1) / step;  // range(-cx, W - cx, step)
    const double cs = std::cos(angle), sn = std::sin(angle);
    std::vector<FlareCircle> circles(static_cast<std::size_t>(n));
    for (FlareCircle& c : circles) {
      c.alpha = d.uniform(0.05, 0.2);
      const double t = static_cast<double>(-cx + step * d.integer(0, points - 1));
      c.x = static_cast<int>(cx + t * cs);
      c.y = static_cast<int>(cy + t * sn);
      const auto rad = static_cast<int>(d.integer(1, max_rad));
      c.radius = rad * rad * rad;
      for (std::size_t k = 0; k < 3; ++k)
        c.color[k] = static_cast<int>(d.integer(std::max(color_[k] - range, 0), color_[k]));
    }
    if (physics_) return std::make_unique<SunFlarePhysicsOp>(in, cx, cy, src_radius_, color_, std::move(circles));
    return std::make_unique<SunFlareOp>(in, cx, cy, src_radius_, color_, std::move(circles));
  }

 private:
  std::vector<double> roi_;
  NumberParam angle_;
  IntPair num_;
  int src_radius_;
  std::array<int, 3> color_{};
  bool physics_ = false;
};

}  // namespace
}  // namespace sun_flare_impl

StageType sun_flare_stage() { return stage_type<sun_flare_impl::SunFlareStage>(&sun_flare_impl::sun_flare_spec); }

}  // namespace aug
