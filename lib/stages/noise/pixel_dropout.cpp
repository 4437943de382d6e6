// pixel_dropout: Albumentations' PixelDropout (docs/stages/noise.md#pixel_dropout).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/noise/pixel_dropout.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace pixel_dropout_impl {
namespace {

const Param<NumberParam> kDropoutProb{{.name = "dropout_prob",
                                       .doc = "probability that a pixel (or, per_channel, a value) is dropped",
                                       .default_value = 0.01,
                                       .min = Bound{0},
                                       .max = Bound{1}}};
const Param<bool> kPerChannel{{.name = "per_channel",
                               .doc = "drop each colour value on its own (false: a dropped pixel loses every "
                                      "colour channel)",
                               .default_value = false}};
const Param<std::vector<double>> kDropValue{{.name = "drop_value",
                                             .doc = "the value of the dropped pixels: one number or one per colour "
                                                    "channel, fractions of the sample range (1 is white)",
                                             .default_value = 0.0,
                                             .min = Bound{0},
                                             .max = Bound{1}}};
const Param<bool> kRandomDropValue{{.name = "random_drop_value",
                                    .doc = "draw the drop value per image and colour channel instead "
                                           "(Albumentations' drop_value None): an integer in [0, max - 1], or "
                                           "uniform in [0, 1) for float images",
                                    .default_value = false}};

const StageSpec& pixel_dropout_spec() {
  static const StageSpec spec{
      .name = "pixel_dropout",
      .family = "noise",
      .summary = "Drop random pixels (or single values) to a drop value (Albumentations PixelDropout).",
      .notes = {"As Albumentations' PixelDropout (dropout_prob 0.01, per_channel false, drop_value 0, p 0.5): each "
                "pixel is dropped independently with probability dropout_prob (per_channel: each colour value), "
                "decided by the keyed counter-based generator (a Philox word per decision, three per block), so "
                "every backend drops the same pixels. Dropped values become drop_value, a fraction of the sample range "
                "(Albumentations takes the image's units; 8/16-bit RNE(value max)), or with random_drop_value one "
                "value per colour channel drawn per image (Albumentations' drop_value None). Alpha is left alone. "
                "Masks are not changed (Albumentations 2.x drops the mask only when mask_drop_value is given)."},
      .params = {kDropoutProb, kPerChannel, kDropValue, kRandomDropValue},
      .default_p = 0.5,
      .tolerance = {.reason = "values are copied or set to a value computed on the host, chosen by the same "
                              "Philox words on every backend"},
      .example = {{"stage", "pixel_dropout"}, {"dropout_prob", 0.05}},
      .cases = {R"({})", R"({"dropout_prob": 0.3, "per_channel": true, "drop_value": [1, 0.5, 0.25]})",
                R"({"dropout_prob": 0.5, "random_drop_value": true})",
                R"({"dropout_prob": 0.2, "per_channel": true, "random_drop_value": true})"},
      .identity = R"({"dropout_prob": 0})",
      .bench = {R"({})", R"({"dropout_prob": 0.1, "per_channel": true})"},
      .arithmetic = R"md(
Albumentations' **PixelDropout** (`dropout_prob` 0.01, `per_channel` false, `drop_value` 0,
`p` 0.5): `where(mask, value, image)` with a Bernoulli mask over the pixels (`per_channel`: over
every colour value). Both 1.x and 2.x draw the image's mask this way.

- **Mask** (on every backend): decision `j` is `j = i * cc + c` for colour channel `c` of pixel
  `i = y W + x` with `per_channel` (`cc` colour channels), `j = i` without (one decision for the
  whole pixel); it takes word `j mod 3` of `block(j / 3, purpose 1)`. The value is dropped when
  `(uint64) word < threshold`, `threshold = rne(dropout_prob * 2^32)` (double, on the host):
  probability `dropout_prob` up to 2^-33; 0 keeps every value, 1 drops every value.
- **Value**: `drop_value` (one number or one per colour channel, the last repeating; fractions of
  the range, `sat(rne(f max))` for 8/16-bit; Albumentations takes the image's units).
  `random_drop_value` (Albumentations' `drop_value=None`) draws one value per colour channel, in
  channel order, after the `p` gate: `integer(0, max - 1)` for 8/16-bit (numpy's
  `integers(0, max)`: the maximum itself is never drawn), `uniform(0, 1)` binary32 for float.
- Alpha is copied. Masks are left alone: 2.x drops a mask only with `mask_drop_value`, with a
  second, independent draw; the import says so when it is given.
)md",
      .imports = {{.name = "PixelDropout",
                   .how = "dropout_prob and per_channel as is; drop_value in pixels becomes a fraction of 255, None "
                          "becomes random_drop_value",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "pixel_dropout"}};
                     s["dropout_prob"] = t.number("dropout_prob", 0.01);
                     s["per_channel"] = t.flag("per_channel", false);
                     const nlohmann::json& saved = t.saved();
                     if (saved.contains("drop_value") && saved.at("drop_value").is_null()) {
                       s["random_drop_value"] = true;
                     } else if (t.has("drop_value")) {
                       const nlohmann::json& v = saved.at("drop_value");
                       if (v.is_number()) s["drop_value"] = v.get<double>() / 255.0;
                       else if (v.is_array()) {
                         ojson f = ojson::array();
                         for (const nlohmann::json& e : v) f.push_back(e.get<double>() / 255.0);
                         s["drop_value"] = f;
                       } else {
                         t.fail("drop_value " + v.dump() + " has no stage equivalent (a number or one per channel)");
                       }
                     }
                     if (t.has("mask_drop_value"))
                       t.note("PixelDropout: mask_drop_value drops mask pixels too; pixel_dropout leaves masks alone");
                     return s;
                   },
                   .python = {
                       {"PixelDropout",
                        "dropout_prob per_channel drop_value mask_drop_value always_apply p",
                        "dropout_prob per_channel drop_value mask_drop_value p",
                        0.5}}}},
      .counterpart = {.none = "per-pixel Philox draws; cv::randu uses another generator and would not time the same "
                              "work"},
  };
  return spec;
}

class DropoutOp final : public Op {
 public:
  DropoutOp(const Shape& s, const k::DropoutArgs& a, double prob, std::vector<double> values)
      : Op(s, s), args_(a), prob_(prob), values_(std::move(values)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (args_.threshold == 0) return copy_image(ctx, in, out);
    with_views(in, out, [&](auto src, auto dst) { k::pixel_dropout(src, dst, args_, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kDropoutProb.name, prob_}, {kPerChannel.name, args_.per_channel}, {kDropValue.name, values_}};
  }

 private:
  k::DropoutArgs args_;
  double prob_;
  std::vector<double> values_;  // per colour channel, fractions of the range
};

class PixelDropout final : public Stage {
 public:
  explicit PixelDropout(const StageConfig& c)
      : prob_(c.get(kDropoutProb)), per_channel_(c.get(kPerChannel)), value_(c.get(kDropValue)),
        random_(c.get(kRandomDropValue)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double prob = prob_.sample(d);
    k::DropoutArgs a;
    a.stream = d.stream();  // the mask: sub-stream 1 of this stage's stream
    a.threshold = static_cast<std::uint64_t>(std::nearbyint(prob * 4294967296.0));
    a.per_channel = per_channel_;
    a.color_channels = color_channels(in);
    const double max = in.dtype == DType::U8 ? 255.0 : (in.dtype == DType::U16 ? 65535.0 : 1.0);
    std::vector<double> values;
    for (int c = 0; c < a.color_channels; ++c) {
      double v;  // sample units
      if (random_) {
        v = in.dtype == DType::F32 ? static_cast<float>(d.uniform(0, 1))
                                   : static_cast<double>(d.integer(0, static_cast<std::int64_t>(max) - 1));
      } else {
        const double f = value_[std::min(value_.size() - 1, static_cast<std::size_t>(c))];  // the last repeats
        v = in.dtype == DType::F32 ? static_cast<float>(f) : std::nearbyint(f * max);
      }
      a.value[c] = static_cast<float>(v);
      values.push_back(v / max);
    }
    return std::make_unique<DropoutOp>(in, a, prob, std::move(values));
  }

 private:
  NumberParam prob_;
  bool per_channel_;
  std::vector<double> value_;
  bool random_;
};

}  // namespace
}  // namespace pixel_dropout_impl

StageType pixel_dropout_stage() { return stage_type<pixel_dropout_impl::PixelDropout>(&pixel_dropout_impl::pixel_dropout_spec); }

}  // namespace aug
