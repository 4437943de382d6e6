// channel_dropout: Albumentations' ChannelDropout, a random set of colour channels set to a fill.
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/color/channel_dropout.hpp"
#include "lib/stages/engines/pointwise.hpp"  // color_channels
#include "lib/stages/stage.hpp"

namespace aug {

namespace channel_dropout_impl {
namespace {

// Colour channels of the images the stage takes (RGB, RGBA): 3; a range may not reach them all.
constexpr int kColour = 3;

const Param<IntPair> kChannelDrop{{.name = "channel_drop",
                                   .doc = "how many colour channels are dropped per image, [lo, hi] drawn "
                                          "uniformly (inclusive), or one number; at most 2, so that one channel "
                                          "always stays (Albumentations' channel_drop_range)",
                                   .default_value = {1, 1},
                                   .min = Bound{1},
                                   .max = Bound{kColour - 1},
                                   .ordered = true,
                                   .elements = "[lo, hi]"}};
const Param<NumberParam> kFill{{.name = "fill",
                                .doc = "the value of the dropped channels, a fraction of the sample range (1 is "
                                       "the maximum); Albumentations takes it in the image's units",
                                .default_value = 0.0,
                                .min = Bound{0},
                                .max = Bound{1}}};

// The fill in the sample type T: RNE(fill * max) for 8- and 16-bit images, the fraction for float ones.
template <class T>
T fill_value(double fill) {
  if constexpr (std::is_same_v<T, float>) return static_cast<float>(fill);
  else return k::saturate<T>(static_cast<std::int64_t>(std::nearbyint(fill * static_cast<double>(k::SampleTraits<T>::max))));
}

const StageSpec& channel_dropout_spec() {
  static const StageSpec spec{
      .name = "channel_dropout",
      .family = "color",
      .summary = "Set a random set of colour channels to a fill value (Albumentations ChannelDropout).",
      .notes = {"As Albumentations' ChannelDropout: the number of channels k is drawn uniformly from channel_drop "
                "(inclusive), then k distinct colour channels, every set of k as likely (Python's random.sample "
                "with the stage's draws); those channels are set to fill and the others copied. The manifest "
                "records the channels in the order drawn.",
                "Gray images are refused, as Albumentations refuses one-channel images, and so is a range that "
                "could drop all three colour channels (Albumentations raises when its upper end is not below the "
                "channel count). Alpha is not a colour channel here: it is never dropped (Albumentations would count "
                "it as a fourth channel). fill is a fraction of the sample range (Albumentations takes the image's "
                "units: its 8-bit fill v is v / 255 here). Albumentations' default p is 0.5, this stage's too."},
      .params = {kChannelDrop, kFill},
      .channels = {3, 4},
      .default_p = 0.5,
      .tolerance = {.reason = "values are copied or set to a fill computed on the host"},
      .example = {{"stage", "channel_dropout"}, {"channel_drop", {1, 2}}, {"fill", 0}, {"p", 0.5}},
      .cases = {R"({})", R"({"channel_drop": [1, 2], "fill": 0.5})", R"({"channel_drop": 2, "fill": 1})"},
      .no_identity = "at least one colour channel is set to the fill in every image",
      .bench = {R"({})", R"({"channel_drop": 2, "fill": 0.5})"},
      .arithmetic = R"md(
Albumentations' **ChannelDropout** (default `p` 0.5, `channel_drop` [1, 1], `fill` 0), with the
stage's draws in Albumentations' order:

- **Count**: `k = integer(lo, hi)` (inclusive; no draw when lo = hi).
- **Channels**: Python's `random.sample(range(3), k)`: from the pool `[0, 1, 2]`, for `i = 0 .. k-1`,
  `j = integer(0, 2 - i)`; channel `pool[j]` is dropped and `pool[j] = pool[2 - i]`. Every ordered
  choice of k distinct channels is equally likely, so every set of k is too. The manifest records
  `channels` in that order and `fill`.
- **Values**: the dropped colour channels are set to the fill, the others and alpha copied. 8- and
  16-bit images take `RNE(fill * max)` (Albumentations assigns its fill to the array, which
  truncates a fractional 8-bit fill: 127.5 is 127 there, 128 here); float images take `fill`.
- **Refused**: gray images (Albumentations raises for one channel) and a range reaching 3 (it
  raises when the upper end is not below the channel count: every channel could go). Alpha is never
  dropped here; Albumentations counts it as a channel (it raises for RGBA only from 4 upwards).
- The CPU backend (`channel_dropout_cpu.cpp`) treats each row as bytes:
  `out = (in & keep) | fill` with a 384-byte pattern of whole pixels; the kernels choose per value.
- **Checked** (`tests/stages/test_channel_dropout.cpp`): the outputs against the recorded channels
  and fill for every sample type, the counts and channel choices against their distribution
  (chi-square over many images), the refusals, and the import of `channel_drop_range` and
  `fill` / `fill_value`.
)md",
      .imports = {
          {.name = "ChannelDropout",
           .how = "channel_drop_range is channel_drop (at most 2); fill (2.x) or fill_value (1.x) in pixels becomes "
                  "a fraction of 255",
           .convert = [](const TransformReader& t) {
            std::int64_t lo = 1, hi = 1;
            if (t.has("channel_drop_range")) {
              const nlohmann::json& v = t.saved().at("channel_drop_range");
              if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer())
                t.fail("channel_drop_range must be a pair of integers, not " + v.dump());
              lo = v[0].get<std::int64_t>(), hi = v[1].get<std::int64_t>();
            }
            if (lo < 1 || hi < lo)
              t.fail("channel_drop_range (" + std::to_string(lo) + ", " + std::to_string(hi) +
                     ") is not a range of at least one channel (Albumentations refuses it too)");
            if (hi >= kColour)
              t.fail("channel_drop_range up to " + std::to_string(hi) +
                     " could drop every colour channel; Albumentations refuses it for RGB images and channel_dropout "
                     "keeps alpha, so at most 2");
            ojson s{{"stage", "channel_dropout"}, {"channel_drop", ispan(static_cast<double>(lo), static_cast<double>(hi))}};
            const char* key = t.first_of({"fill", "fill_value"});
            if (t.has(key)) s["fill"] = t.number(key, 0) / 255.0;
            return s;
          },
           .python = {
               {"ChannelDropout", "channel_drop_range fill_value always_apply p", "channel_drop_range fill p", 0.5}}}},
      .counterpart = {.call = "cv::bitwise_and with the kept channels' mask, then cv::bitwise_or with the fill",
                      .how = "the resolved channels and fill (cv::bitwise_or only for a fill other than 0)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        cv::Scalar keep(255, 255, 255, 255), fill(0, 0, 0, 0);
                        const auto f = static_cast<double>(fill_value<std::uint8_t>(m.at("fill").get<double>()));
                        for (const int c : m.at("channels").get<std::vector<int>>()) keep[c] = 0, fill[c] = f;
                        return [&dst, src, keep, fill, f] {
                          cv::bitwise_and(src, keep, dst);
                          if (f != 0) cv::bitwise_or(dst, fill, dst);
                        };
                      }},
  };
  return spec;
}

class ChannelDropoutOp final : public Op {
 public:
  ChannelDropoutOp(const Shape& s, std::vector<int> channels, double fill)
      : Op(s, s), channels_(std::move(channels)), fill_(fill) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    int dropped = 0;
    for (const int c : channels_) dropped |= 1 << c;
    with_views(in, out, [&](auto src, auto dst) {
      using T = std::remove_pointer_t<decltype(dst.data)>;
      k::channel_dropout(src, dst, k::ChannelDropoutArgs<T>{dropped, fill_value<T>(fill_)}, ctx.exec());
    });
  }

  nlohmann::json params() const override { return {{"channels", channels_}, {kFill.name, fill_}}; }

 private:
  std::vector<int> channels_;
  double fill_;
};

class ChannelDropout final : public Stage {
 public:
  explicit ChannelDropout(const StageConfig& c) : range_(c.get(kChannelDrop)), fill_(c.get(kFill).lo) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int n = color_channels(in);  // 3: gray images never get here (the declared channel counts)
    const auto k = static_cast<int>(d.integer(range_[0], range_[1]));
    int pool[kColour] = {0, 1, 2};
    std::vector<int> channels;
    for (int i = 0; i < k; ++i) {
      const auto j = static_cast<int>(d.integer(0, n - 1 - i));
      channels.push_back(pool[j]);
      pool[j] = pool[n - 1 - i];
    }
    return std::make_unique<ChannelDropoutOp>(in, std::move(channels), fill_);
  }

 private:
  IntPair range_;
  double fill_;
};

}  // namespace
}  // namespace channel_dropout_impl

StageType channel_dropout_stage() { return stage_type<channel_dropout_impl::ChannelDropout>(&channel_dropout_impl::channel_dropout_spec); }

}  // namespace aug
