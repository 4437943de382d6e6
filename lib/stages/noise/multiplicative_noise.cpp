// multiplicative_noise: Albumentations' MultiplicativeNoise (docs/stages/noise.md#multiplicative_noise).
#include <cstdint>
#include <functional>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/noise/multiplicative_noise.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace multiplicative_noise_impl {
namespace {

const Param<NumberPair> kMultiplier{{.name = "multiplier",
                                     .doc = "range the multipliers are drawn from, uniformly",
                                     .default_value = {0.9, 1.1},
                                     .min = Bound{0},
                                     .max = Bound{100},
                                     .ordered = true,
                                     .elements = "[lo, hi]"}};
const Param<bool> kPerChannel{{.name = "per_channel",
                               .doc = "a multiplier per colour channel (false: one for every channel)",
                               .default_value = false}};
const Param<bool> kElementwise{{.name = "elementwise",
                                .doc = "a multiplier per pixel (false: one per image)",
                                .default_value = false}};

const StageSpec& multiplicative_noise_spec() {
  static const StageSpec spec{
      .name = "multiplicative_noise",
      .family = "noise",
      .summary = "Multiply the colour values by random multipliers: per image or per pixel, shared or per channel "
                 "(Albumentations MultiplicativeNoise).",
      .notes = {"As Albumentations' MultiplicativeNoise (multiplier (0.9, 1.1), per_channel false, elementwise "
                "false, p 0.5), the same in 1.x and 2.x: out = v m in binary32, clipped to the range and truncated "
                "for 8/16-bit images (numpy's astype), clamped to [0, 1] for float. Multipliers per image come "
                "from the stage's parameter draws; per pixel (elementwise) from the keyed counter-based generator "
                "(24-bit uniforms), so every backend draws the same. Alpha is left alone."},
      .params = {kMultiplier, kPerChannel, kElementwise},
      .default_p = 0.5,
      .tolerance = {.reason = "one binary32 multiply, a clamp and a truncation with the same multipliers on every "
                              "backend (per image: the same table)"},
      .example = {{"stage", "multiplicative_noise"}, {"multiplier", {0.8, 1.2}}, {"per_channel", true}},
      .cases = {R"({})", R"({"multiplier": [0.5, 1.5], "per_channel": true})",
                R"({"multiplier": [0, 2], "elementwise": true})",
                R"({"multiplier": [0.7, 1.9], "elementwise": true, "per_channel": true})"},
      .identity = R"({"multiplier": 1})",
      .bench = {R"({})", R"({"elementwise": true, "per_channel": true})"},
      .arithmetic = R"md(
Albumentations' **MultiplicativeNoise** (`multiplier` [0.9, 1.1], `per_channel` false,
`elementwise` false, `p` 0.5; 1.x and 2.x compute the same): every colour value times a multiplier.

- **Per image** (`elementwise` false): `m_c = (float)uniform(lo, hi)`, one per colour channel in
  channel order with `per_channel`, else one for every channel (Albumentations' shapes `[C]` and
  `[1]`). 8/16-bit images run through a table of every value built on the host with the formula
  below (Albumentations' uint8 lookup table; the same table as `cv::LUT` in the benchmark).
- **Per pixel** (`elementwise`): `block(i = y W + x, purpose 1)`; colour channel `c` takes word `c`
  (`per_channel` false: word 0 for every channel, Albumentations' `[H, W, 1]`);
  `m = lo + uniform01f(word) * (hi - lo)` in binary32 (`uniform01f(b) = (float)(b >> 8) * 2^-24`).
  Albumentations draws float64 multipliers and multiplies in binary32.
- **8/16-bit**: `out = trunc(min(max((float)v * m, 0), max))`, binary32: clipped, then truncated
  as numpy's `astype` (not rounded). **Float**: `out = clamp01(v * m)`. Alpha is copied.
  `multiplier` 1 is the identity.
)md",
      .imports = {{.name = "MultiplicativeNoise",
                   .how = "multiplier (a number x is (x, x), as Albumentations' to_tuple(x, x)), per_channel and "
                          "elementwise as is",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "multiplicative_noise"}};
                     const auto [lo, hi] = t.value_or_range("multiplier", {0.9, 1.1});
                     s["multiplier"] = ojson::array({lo, hi});
                     s["per_channel"] = t.flag("per_channel", false);
                     s["elementwise"] = t.flag("elementwise", false);
                     return s;
                   },
                   .python = {
                       {"MultiplicativeNoise",
                        "multiplier per_channel elementwise always_apply p",
                        "multiplier per_channel elementwise p",
                        0.5}}}},
      .counterpart = {.call = "cv::LUT",
                      .how = "the table of the resolved per-image multipliers (elementwise has none)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (m.at("elementwise").get<bool>()) return {};
                        const auto mult = m.at("multiplier").get<std::vector<double>>();
                        cv::Mat lut(1, 256, CV_8UC(src.channels()));
                        for (int v = 0; v < 256; ++v)
                          for (int c = 0; c < src.channels(); ++c) {
                            const float f = c < static_cast<int>(mult.size()) ? static_cast<float>(mult[c]) : 1.0f;
                            lut.ptr<std::uint8_t>()[v * src.channels() + c] = k::multiplied<std::uint8_t>(
                                static_cast<std::uint8_t>(v), f);
                          }
                        return [&dst, src, lut] { cv::LUT(src, lut, dst); };
                      }},
  };
  return spec;
}

class MultiplyOp final : public Op {
 public:
  MultiplyOp(const Shape& s, const k::MultiplyArgs& a, std::vector<double> drawn)
      : Op(s, s), args_(a), drawn_(std::move(drawn)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (!args_.elementwise && in.shape.dtype != DType::F32) {
      const float* m = args_.m;
      return run_table(ctx, in, out, [m](std::int64_t v, std::int64_t max, int c) -> std::int64_t {
        if (max == 255) return k::multiplied(static_cast<std::uint8_t>(v), m[c]);
        return k::multiplied(static_cast<std::uint16_t>(v), m[c]);
      });
    }
    with_views(in, out, [&](auto src, auto dst) { k::multiplicative_noise(src, dst, args_, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json j{{kPerChannel.name, args_.per_channel}, {kElementwise.name, args_.elementwise}};
    if (args_.elementwise) j[kMultiplier.name] = {args_.lo, args_.hi};
    else j[kMultiplier.name] = drawn_;
    return j;
  }

 private:
  k::MultiplyArgs args_;
  std::vector<double> drawn_;  // per image: the multiplier of each colour channel
};

class MultiplicativeNoise final : public Stage {
 public:
  explicit MultiplicativeNoise(const StageConfig& c)
      : range_(c.get(kMultiplier)), per_channel_(c.get(kPerChannel)), elementwise_(c.get(kElementwise)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    k::MultiplyArgs a;
    a.stream = d.stream();  // elementwise: sub-stream 1 of this stage's stream
    a.lo = static_cast<float>(range_[0]);
    a.hi = static_cast<float>(range_[1]);
    a.elementwise = elementwise_;
    a.per_channel = per_channel_;
    a.color_channels = color_channels(in);
    std::vector<double> drawn;
    if (!elementwise_) {
      const int draws = per_channel_ ? a.color_channels : 1;
      for (int c = 0; c < draws; ++c) drawn.push_back(static_cast<float>(d.uniform(range_[0], range_[1])));
      for (int c = 0; c < a.color_channels; ++c) a.m[c] = static_cast<float>(drawn[per_channel_ ? c : 0]);
      drawn.resize(a.color_channels, drawn[0]);
    }
    return std::make_unique<MultiplyOp>(in, a, std::move(drawn));
  }

 private:
  NumberPair range_;
  bool per_channel_, elementwise_;
};

}  // namespace
}  // namespace multiplicative_noise_impl

StageType multiplicative_noise_stage() { return stage_type<multiplicative_noise_impl::MultiplicativeNoise>(&multiplicative_noise_impl::multiplicative_noise_spec); }

}  // namespace aug
