// planckian_jitter: Kornia's RandomPlanckianJitter, or Albumentations' PlanckianJitter
// (docs/stages/color.md#planckian_jitter).
#include <algorithm>
#include <array>
#include <cmath>

#include "kernels/color/channel_gain.hpp"
#include "kernels/color/planckian_jitter.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace planckian_jitter_impl {
namespace {

// Chromaticities [R, G, B] of black-body radiators and CIE D illuminants (Zini et al. 2022, as
// tabulated by Kornia's get_planckian_coeffs). Only the ratios R/G and B/G are used.
constexpr std::array<std::array<float, 3>, 25> kBlackbody{{
    {0.6743f, 0.4029f, 0.0013f}, {0.6281f, 0.4241f, 0.1665f}, {0.5919f, 0.4372f, 0.2513f},
    {0.5623f, 0.4457f, 0.3154f}, {0.5376f, 0.4515f, 0.3672f}, {0.5163f, 0.4555f, 0.4103f},
    {0.4979f, 0.4584f, 0.4468f}, {0.4816f, 0.4604f, 0.4782f}, {0.4672f, 0.4619f, 0.5053f},
    {0.4542f, 0.4630f, 0.5289f}, {0.4426f, 0.4638f, 0.5497f}, {0.4320f, 0.4644f, 0.5681f},
    {0.4223f, 0.4648f, 0.5844f}, {0.4135f, 0.4651f, 0.5990f}, {0.4054f, 0.4653f, 0.6121f},
    {0.3980f, 0.4654f, 0.6239f}, {0.3911f, 0.4655f, 0.6346f}, {0.3847f, 0.4656f, 0.6444f},
    {0.3787f, 0.4656f, 0.6532f}, {0.3732f, 0.4656f, 0.6613f}, {0.3680f, 0.4655f, 0.6688f},
    {0.3632f, 0.4655f, 0.6756f}, {0.3586f, 0.4655f, 0.6820f}, {0.3544f, 0.4654f, 0.6878f},
    {0.3503f, 0.4653f, 0.6933f},
}};
constexpr std::array<std::array<float, 3>, 23> kCied{{
    {0.5829f, 0.4421f, 0.2288f}, {0.5510f, 0.4514f, 0.2948f}, {0.5246f, 0.4576f, 0.3488f},
    {0.5021f, 0.4618f, 0.3941f}, {0.4826f, 0.4646f, 0.4325f}, {0.4654f, 0.4667f, 0.4654f},
    {0.4502f, 0.4681f, 0.4938f}, {0.4364f, 0.4692f, 0.5186f}, {0.4240f, 0.4700f, 0.5403f},
    {0.4127f, 0.4705f, 0.5594f}, {0.4023f, 0.4709f, 0.5763f}, {0.3928f, 0.4713f, 0.5914f},
    {0.3839f, 0.4715f, 0.6049f}, {0.3757f, 0.4716f, 0.6171f}, {0.3681f, 0.4717f, 0.6281f},
    {0.3609f, 0.4718f, 0.6380f}, {0.3543f, 0.4719f, 0.6472f}, {0.3480f, 0.4719f, 0.6555f},
    {0.3421f, 0.4719f, 0.6631f}, {0.3365f, 0.4719f, 0.6702f}, {0.3313f, 0.4719f, 0.6766f},
    {0.3263f, 0.4719f, 0.6826f}, {0.3217f, 0.4719f, 0.6882f},
}};

enum class Mode { Blackbody, Cied };
const Words<Mode> kModes{{{Mode::Blackbody, "blackbody"}, {Mode::Cied, "CIED"}}};
const Choice<Mode> kMode{kModes, {}, Mode::Blackbody, {.name = "mode", .doc = "blackbody (25 rows) or CIED (23 rows)"}};
const Param<std::vector<std::int64_t>> kSelectFrom{
    {.name = "select_from",
     .doc = "row indices to draw from (blackbody 0-24, CIED 0-22); all rows when absent",
     .optional = true,
     .min = Bound{0},
     .max = Bound{24}}};

enum class Method { Kornia, Albumentations };
const Words<Method> kMethods{{{Method::Kornia, "kornia"}, {Method::Albumentations, "albumentations"}}};
const Choice<Method> kMethod{kMethods,
                             {},
                             Method::Kornia,
                             {.name = "method",
                              .doc = "kornia (a row of the table drawn) or albumentations (a temperature drawn and "
                                     "the table interpolated, Albumentations' PlanckianJitter)"}};
const Param<NumberPair> kTemperatureRange{
    {.name = "temperature_range",
     .doc = "method albumentations: the temperatures drawn from, in kelvin, containing 6000 (default: the mode's "
            "table, 3000-15000 blackbody, 4000-15000 CIED)",
     .optional = true,
     .ordered = true,
     .elements = "[lo, hi]"}};
enum class Sampling { Uniform, Gaussian };
const Words<Sampling> kSamplings{{{Sampling::Uniform, "uniform"}, {Sampling::Gaussian, "gaussian"}}};
const Choice<Sampling> kSamplingMethod{
    kSamplings,
    {},
    Sampling::Uniform,
    {.name = "sampling_method",
     .doc = "method albumentations: uniform or gaussian on each side of 6000 K (below it 40% of the time)"}};

constexpr double kWhite = 6000;   // Albumentations' white temperature
constexpr double kBelow = 0.4;    // how often it draws below it

const StageSpec& planckian_jitter_spec() {
  static const StageSpec spec{
      .name = "planckian_jitter",
      .family = "color",
      .summary = "Recolour as if lit by a black body or a CIE D illuminant (Kornia RandomPlanckianJitter, or "
                 "Albumentations PlanckianJitter with method albumentations).",
      .notes = {"Per image one row of the mode's table is drawn uniformly (from select_from when given, in its "
                "order; repeating a row weights it). Red is multiplied by R/G and blue by B/G of that row (binary32, "
                "as Kornia), green is unchanged, and the result is clamped at 1 only (every channel, as Kornia); integer images are mapped to "
                "[0, 1] and back with round half to even. Needs RGB (alpha is carried through).",
                "method albumentations draws a temperature as Albumentations' PlanckianJitter does (below 6000 K 40% "
                "of the time, uniform or half-normal on each side of it, within temperature_range, truncated to whole "
                "kelvin), interpolates the table between its rows 500 K apart, and multiplies red by R/G and blue by "
                "B/G in binary32: 8/16-bit values truncated and clamped, as albucore's table does; float values "
                "clamped to [0, 1]. The manifest records the temperature."},
      .params = {kMode, kSelectFrom, kMethod, kTemperatureRange, kSamplingMethod},
      .channels = {3, 4},
      .default_p = 0.5,
      .tolerance = {.reason = "the same binary32 multiply, clamp and rounding on every backend"},
      .example = {{"stage", "planckian_jitter"}, {"mode", "blackbody"}, {"select_from", {0, 6, 12, 18, 24}}, {"p", 0.5}},
      .cases = {R"({"mode": "blackbody"})",
                R"({"mode": "CIED", "select_from": [0, 22]})",
                R"({"method": "albumentations"})",
                R"({"method": "albumentations", "mode": "CIED", "sampling_method": "gaussian", "temperature_range": [4500, 9000]})"},
      .no_identity = "no row of either table is neutral (R/G and B/G are never both 1)",
      .bench = {R"({})"},
      .arithmetic = R"md(
Kornia's **RandomPlanckianJitter** (Zini et al. 2022); 3 or 4 channels; default `p` 0.5.

- **Tables**: Kornia's `get_planckian_coeffs` [R, G, B] rows, blackbody (25, rows 0-24) and CIED (23,
  rows 0-22), in `lib/stages/color/planckian_jitter.cpp`. Only `r_w = R / G` and `b_w = B / G` are
  used, in binary32 as Kornia computes them (blackbody row 0: 1.673616, 0.003227; row 24: 0.752848,
  1.490006; CIED row 5: 0.997215, 0.997215).
- **Draw**: `row = rows[integer(0, N - 1)]`, `rows` = `select_from` in order (repeats weigh more) or all rows.
- **Per pixel** (binary32): `R' = min(R * r_w, 1)`, `G' = min(G * 1, 1)`, `B' = min(B * b_w, 1)`: only
  an upper clamp, on every channel as in Kornia (negative float values pass through). Integer images
  via `to_unit` / `from_unit` (an integer green comes back unchanged). Alpha is copied.

**method albumentations** is Albumentations' **PlanckianJitter** (the same tables, read as the
decimals they are written with; `temperature_range` defaults to the mode's table, 3000-15000 K
blackbody, 4000-15000 K CIED, and must contain 6000 K):

- **Temperature**: with probability 0.4 below 6000 K, else above: `uniform` draws
  `T = uniform(lo, 6000)` or `uniform(6000, hi)`; `gaussian` draws `T = 6000 - |N(0, (6000 - lo) / 3)|`
  or `6000 + |N(0, (hi - 6000) / 3)|` (the normal by its quantile of a uniform draw). Then
  `T = int(clamp(T, lo, hi))` (truncated).
- **Coefficients** (double): `t0 = max(500 floor(T / 500), first)`, `t1 = min(t0' + 500, last)` with
  `t0' = 500 floor(T / 500)`; equal: the row of `t0`; else `w = (T - t0) / (t1 - t0)` and
  `c = (1 - w) row(t0) + w row(t1)`, each product rounded, then summed. `r_w = c_R / c_G`,
  `b_w = c_B / c_G`.
- **Values**: red times `r_w`, blue times `b_w`, green unchanged. 8/16-bit as albucore's table:
  `trunc(clamp((float)v * (float)w, 0, max))` (binary32; albucore's `clip` truncates); float images
  `clamp((float)v * (float)w, 0, 1)` (binary32; Albumentations clips to [0, 1] below as well). Alpha
  is copied. The manifest records `temperature`, `r_w` and `b_w`.
)md",
      .imports = {
          {.name = "PlanckianJitter",
           .how = "method albumentations; mode (cied is CIED), temperature_range (2.x) or temperature_limit (1.x), "
                  "sampling_method",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "planckian_jitter"}, {"method", "albumentations"}};
            if (t.has("mode")) {
              const std::string m = t.saved().at("mode").get<std::string>();
              if (m != "blackbody" && m != "cied") t.fail("mode \"" + m + "\" is not blackbody or cied");
              if (m == "cied") s["mode"] = "CIED";
            }
            if (const char* key = t.first_of({"temperature_range", "temperature_limit"}); t.has(key)) {
              const auto [lo, hi] = t.limit(key, {3000, 15000}, false);
              s["temperature_range"] = ojson::array({lo, hi});
            }
            if (t.has("sampling_method")) s["sampling_method"] = t.saved().at("sampling_method");
            return s;
          },
           .python = {{"PlanckianJitter", "mode temperature_limit sampling_method always_apply p",
                       "mode temperature_range sampling_method p", 0.5}}}},
      .counterpart = {.none = "OpenCV has no black-body gains; the nearest call, cv::multiply by a per-channel scalar, "
                              "rounds on the 0-255 scale, not in [0, 1]"},
  };
  return spec;
}

class PlanckianOp final : public Op {
 public:
  PlanckianOp(const Shape& s, Mode mode, int row, float r_w, float b_w)
      : Op(s, s), mode_(mode), row_(row), r_w_(r_w), b_w_(b_w) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    with_views(in, out, [&](auto src, auto dst) { k::planckian(src, dst, r_w_, b_w_, ctx.exec()); });
  }
  nlohmann::json params() const override {
    return {{kMode.name, kModes.name(mode_)}, {"row", row_}, {"r_w", r_w_}, {"b_w", b_w_}};
  }

 private:
  Mode mode_;
  int row_;
  float r_w_, b_w_;
};

// Albumentations' PlanckianJitter at a drawn temperature: red and blue times r_w and b_w (double,
// rounded to binary32 for the products).
class AlbumentationsPlanckianOp final : public Op {
 public:
  AlbumentationsPlanckianOp(const Shape& s, int temperature, double r_w, double b_w)
      : Op(s, s), temperature_(temperature), r_w_(r_w), b_w_(b_w) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const float w[3] = {static_cast<float>(r_w_), 1.0f, static_cast<float>(b_w_)};
    if (in.shape.dtype != DType::F32) {
      run_table(ctx, in, out, [&](std::int64_t v, std::int64_t max, int c) -> std::int64_t {
        if (c == 1) return v;
        const float y = static_cast<float>(v) * w[c];
        return static_cast<std::int64_t>(std::min(std::max(y, 0.0f), static_cast<float>(max)));  // truncated
      });
      return;
    }
    k::GainArgs a{};
    for (int c = 0; c < 3; ++c) a.gain[c] = w[c], a.fixed[c] = 0;
    a.gain[3] = 1, a.fixed[3] = 0;
    a.color_channels = 3;
    k::channel_gain(in.view<const float>(), out.view<float>(), a, ctx.exec());
  }
  nlohmann::json params() const override { return {{"temperature", temperature_}, {"r_w", r_w_}, {"b_w", b_w_}}; }

 private:
  int temperature_;
  double r_w_, b_w_;
};

class PlanckianJitter final : public Stage {
 public:
  explicit PlanckianJitter(const StageConfig& c)
      : mode_(c.get(kMode).options[0]),
        albumentations_(c.get(kMethod).options[0] == Method::Albumentations),
        gaussian_(c.get(kSamplingMethod).options[0] == Sampling::Gaussian) {
    const double first = mode_ == Mode::Blackbody ? 3000 : 4000;
    if (!albumentations_) {
      if (c.has(kTemperatureRange)) c.fail(kTemperatureRange, "is for method albumentations");
    } else {
      if (c.has(kSelectFrom)) c.fail(kSelectFrom, "is for method kornia (albumentations draws a temperature)");
      range_ = c.has(kTemperatureRange) ? c.get(kTemperatureRange) : NumberPair{first, 15000};
      if (range_[0] < first || range_[1] > 15000)
        c.fail(kTemperatureRange, "must lie within the " + kModes.name(mode_) + " table's temperatures (" +
                                      std::to_string(static_cast<int>(first)) + " to 15000 K)");
      if (!(range_[0] <= kWhite && kWhite <= range_[1])) c.fail(kTemperatureRange, "must contain 6000 K");
    }
    const int rows = mode_ == Mode::Blackbody ? static_cast<int>(kBlackbody.size()) : static_cast<int>(kCied.size());
    if (c.has(kSelectFrom)) {
      for (const auto r : c.get(kSelectFrom)) {
        if (r >= rows)
          c.fail(kSelectFrom, "row " + std::to_string(r) + " does not exist in the " + kModes.name(mode_) + " table (0-" +
                                    std::to_string(rows - 1) + ")");
        rows_.push_back(static_cast<int>(r));
      }
    } else {
      for (int r = 0; r < rows; ++r) rows_.push_back(r);
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    if (albumentations_) return albumentations(d, in);
    const int row = rows_[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(rows_.size()) - 1))];
    const auto& rgb = mode_ == Mode::Blackbody ? kBlackbody[row] : kCied[row];
    return std::make_unique<PlanckianOp>(in, mode_, row, rgb[0] / rgb[1], rgb[2] / rgb[1]);  // binary32, as Kornia
  }

 private:
  // A row's value as the decimal the table is written with (4 places), in double.
  static double decimal(float v) { return std::nearbyint(static_cast<double>(v) * 1e4) / 1e4; }

  std::unique_ptr<Op> albumentations(Draws& d, const Shape& in) const {
    const auto normal = [&]() {
      double u = d.uniform();
      if (u <= 0.0) u = 0x1p-54;  // Phi^-1(0) is -inf; the smallest draw above it
      return normal_quantile(u);
    };
    const bool below = d.uniform() < kBelow;
    double t;
    if (!gaussian_) t = below ? d.uniform(range_[0], kWhite) : d.uniform(kWhite, range_[1]);
    else if (below) t = kWhite - std::abs(normal() * std::abs(kWhite - range_[0]) / 3);
    else t = kWhite + std::abs(normal() * std::abs(range_[1] - kWhite) / 3);
    const int T = static_cast<int>(std::clamp(t, range_[0], range_[1]));
    // The table's rows every 500 K from `first`; linear between the two around T.
    const int first = mode_ == Mode::Blackbody ? 3000 : 4000, last = 15000;
    const int temp = std::clamp(T, first, last);
    const int t0 = std::max(temp / 500 * 500, first), t1 = std::min((temp / 500 + 1) * 500, last);
    const auto row = [&](int k) {
      const auto& r = mode_ == Mode::Blackbody ? kBlackbody[(k - first) / 500] : kCied[(k - first) / 500];
      return std::array<double, 3>{decimal(r[0]), decimal(r[1]), decimal(r[2])};
    };
    std::array<double, 3> c = row(t0);
    if (t0 != t1) {
      const double w1 = static_cast<double>(temp - t0) / (t1 - t0), w0 = 1 - w1;
      const std::array<double, 3> a = row(t0), b = row(t1);
      for (int i = 0; i < 3; ++i) {
        const double p = w0 * a[i], q = w1 * b[i];
        c[i] = p + q;
      }
    }
    return std::make_unique<AlbumentationsPlanckianOp>(in, T, c[0] / c[1], c[2] / c[1]);
  }

  Mode mode_;
  bool albumentations_, gaussian_;
  NumberPair range_{3000, 15000};
  std::vector<int> rows_;
};

}  // namespace
}  // namespace planckian_jitter_impl

StageType planckian_jitter_stage() { return stage_type<planckian_jitter_impl::PlanckianJitter>(&planckian_jitter_impl::planckian_jitter_spec); }

}  // namespace aug
