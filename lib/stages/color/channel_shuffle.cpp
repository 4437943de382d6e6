// channel_shuffle: Albumentations' ChannelShuffle, a random order of the colour channels per image.
#include <functional>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/color/channel_shuffle.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace channel_shuffle_impl {
namespace {

const StageSpec& channel_shuffle_spec() {
  static const StageSpec spec{
      .name = "channel_shuffle",
      .family = "color",
      .summary = "Reorder the colour channels by a random permutation drawn per image (Albumentations "
                 "ChannelShuffle); alpha stays.",
      .notes = {"As Albumentations' ChannelShuffle: output channel c is input channel order[c], order a uniformly "
                "random permutation of the colour channels (Fisher-Yates with the stage's draws), recorded in the "
                "manifest as \"order\". Alpha is left in place; a grayscale image is unchanged. Albumentations' "
                "default p is 0.5, this stage's too."},
      .default_p = 0.5,
      .tolerance = {.reason = "values are moved, never computed"},
      .example = {{"stage", "channel_shuffle"}},
      .cases = {R"({})"},
      .no_identity = "the order is drawn per image; the identity order comes up in one image of six",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' **ChannelShuffle** (default `p` 0.5): `order` is a Fisher-Yates shuffle of the colour
channels, `for i = C-1 .. 1: swap(order[i], order[integer(0, i)])` from `order = [0, 1, 2]`; output
channel `c` is input channel `order[c]`; alpha stays; gray images are unchanged (no draw).
The manifest records `order`. Values are moved, never computed: the CPU backend calls
`cv::mixChannels` with the pairs `(order[c], c)` (alpha `(3, 3)`), the kernels run their body.
)md",
      .imports = {
          {.name = "ChannelShuffle",
           .how = "a random permutation of the colour channels",
           .convert = [](const TransformReader&) { return ojson{{"stage", "channel_shuffle"}}; },
           .python = {{"ChannelShuffle", "always_apply p", "p", 0.5}}}},
      .counterpart = {.call = "cv::mixChannels",
                      .how = "the resolved order",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (!m.contains("order")) return {};
                        const auto order = m.at("order").get<std::vector<int>>();
                        const int cn = src.channels();
                        std::vector<int> pairs;
                        for (int c = 0; c < cn; ++c)
                          pairs.insert(pairs.end(), {c < static_cast<int>(order.size()) ? order[c] : c, c});
                        return [&dst, src, pairs] {
                          dst.create(src.size(), src.type());
                          cv::mixChannels(&src, 1, &dst, 1, pairs.data(), pairs.size() / 2);
                        };
                      }},
  };
  return spec;
}

class ShuffleOp final : public Op {
 public:
  ShuffleOp(const Shape& s, const k::ShuffleArgs& a) : Op(s, s), args_(a) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (ctx.cpu()) {  // values moved, nothing computed: OpenCV's channel copy loops (the tests hold them equal)
      std::vector<int> pairs;
      for (int c = 0; c < in.shape.channels; ++c)
        pairs.insert(pairs.end(), {c < args_.color_channels ? (args_.order >> (2 * c)) & 3 : c, c});
      const cv::Mat src = as_mat(in);
      cv::Mat dst = as_mat(out);
      cv::mixChannels(&src, 1, &dst, 1, pairs.data(), pairs.size() / 2);
      return;
    }
    with_views(in, out, [&](auto src, auto dst) { k::channel_shuffle(src, dst, args_, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json order = nlohmann::json::array();
    for (int c = 0; c < args_.color_channels; ++c) order.push_back((args_.order >> (2 * c)) & 3);
    return {{"order", order}};
  }

 private:
  k::ShuffleArgs args_;
};

class ChannelShuffle final : public Stage {
 public:
  explicit ChannelShuffle(const StageConfig&) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int cc = color_channels(in);
    int order[3] = {0, 1, 2};
    // Fisher-Yates: position i takes one of the positions 0..i still unplaced.
    for (int i = cc - 1; i > 0; --i) std::swap(order[i], order[d.integer(0, i)]);
    const k::ShuffleArgs a{order[0] | order[1] << 2 | order[2] << 4, cc};
    return std::make_unique<ShuffleOp>(in, a);
  }
};

}  // namespace
}  // namespace channel_shuffle_impl

StageType channel_shuffle_stage() { return stage_type<channel_shuffle_impl::ChannelShuffle>(&channel_shuffle_impl::channel_shuffle_spec); }

}  // namespace aug
