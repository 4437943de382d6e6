// planckian_jitter: Kornia's RandomPlanckianJitter (docs/stages/color.md#planckian_jitter).
#include <array>

#include "kernels/color/planckian_jitter.hpp"
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

const StageSpec& planckian_jitter_spec() {
  static const StageSpec spec{
      .name = "planckian_jitter",
      .family = "color",
      .summary = "Recolour as if lit by a black body or a CIE D illuminant (Kornia RandomPlanckianJitter).",
      .notes = {"Per image one row of the mode's table is drawn uniformly (from select_from when given, in its "
                "order; repeating a row weights it). Red is multiplied by R/G and blue by B/G of that row (binary32, "
                "as Kornia), green is unchanged, and the result is clamped at 1 only (every channel, as Kornia); integer images are mapped to "
                "[0, 1] and back with round half to even. Needs RGB (alpha is carried through)."},
      .params = {kMode, kSelectFrom},
      .channels = {3, 4},
      .default_p = 0.5,
      .tolerance = {.reason = "the same binary32 multiply, clamp and rounding on every backend"},
      .example = {{"stage", "planckian_jitter"}, {"mode", "blackbody"}, {"select_from", {0, 6, 12, 18, 24}}, {"p", 0.5}},
      .cases = {R"({"mode": "blackbody"})",
                R"({"mode": "CIED", "select_from": [0, 22]})"},
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
)md",
      .no_import = "a Kornia transform (RandomPlanckianJitter); Albumentations' PlanckianJitter is not "
                   "translated: its tables and draws have not been checked against Kornia's",
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

class PlanckianJitter final : public Stage {
 public:
  explicit PlanckianJitter(const StageConfig& c) : mode_(c.get(kMode).options[0]) {
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
    const int row = rows_[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(rows_.size()) - 1))];
    const auto& rgb = mode_ == Mode::Blackbody ? kBlackbody[row] : kCied[row];
    return std::make_unique<PlanckianOp>(in, mode_, row, rgb[0] / rgb[1], rgb[2] / rgb[1]);  // binary32, as Kornia
  }

 private:
  Mode mode_;
  std::vector<int> rows_;
};

}  // namespace
}  // namespace planckian_jitter_impl

StageType planckian_jitter_stage() { return stage_type<planckian_jitter_impl::PlanckianJitter>(&planckian_jitter_impl::planckian_jitter_spec); }

}  // namespace aug
