// to_rgb: Albumentations' ToRGB, a gray image made N-channel by repeating its channel.
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/color/gray_expand.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace to_rgb_impl {
namespace {

const Param<IntegerParam> kChannels{{.name = "num_output_channels",
                                     .doc = "how many channels a gray image becomes (3: RGB)",
                                     .default_value = 3,
                                     .min = Bound{1},
                                     .max = Bound{4}}};

const StageSpec& to_rgb_spec() {
  static const StageSpec spec{
      .name = "to_rgb",
      .family = "color",
      .summary = "Make gray images RGB by repeating their channel (Albumentations ToRGB); colour images pass "
                 "unchanged.",
      .notes = {"As Albumentations' ToRGB: a one-channel image becomes num_output_channels channels (default 3), "
                "each a copy of it. Images that already have colour pass unchanged (Albumentations raises for them), "
                "so that a folder of mixed gray and colour photographs comes out all colour. Albumentations' default "
                "p is 1, as here."},
      .params = {kChannels},
      .channels = {1, 3, 4},
      .tolerance = {.reason = "values are copied"},
      .example = {{"stage", "to_rgb"}},
      .cases = {R"({})", R"({"num_output_channels": 4})"},
      .identity = R"({"num_output_channels": 1})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' **ToRGB** (2.x; `num_output_channels` 3, `p` 1): a gray image's value is copied into
each of `num_output_channels` channels (`kernels/color/gray_expand.hpp`); 3- and 4-channel images
are copied as they are (Albumentations refuses them). Nothing is computed.
)md",
      .imports = {{.name = "ToRGB",
                   .how = "num_output_channels; colour images pass unchanged (Albumentations raises for them)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "to_rgb"}};
                     if (t.has("num_output_channels"))
                       s["num_output_channels"] = std::llround(t.number("num_output_channels", 3));
                     return s;
                   },
                   .python = {{"ToRGB", "always_apply p", "num_output_channels p", 1.0}}}},
      .counterpart = {.call = "cv::cvtColor(COLOR_GRAY2RGB)",
                      .how = "on the gray photograph",
                      .make = [](const nlohmann::json&, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (src.channels() != 1) return {};
                        return [&dst, src] { cv::cvtColor(src, dst, cv::COLOR_GRAY2RGB); };
                      }},
  };
  return spec;
}

class ToRgbOp final : public Op {
 public:
  ToRgbOp(const Shape& in, int channels) : Op(in, Shape{in.width, in.height, channels, in.dtype}) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (in.shape.channels == out.shape.channels) return copy_image(ctx, in, out);
    with_views(in, out, [&](auto src, auto dst) { k::gray_expand(src, dst, ctx.exec()); });
  }
  nlohmann::json params() const override { return {{kChannels.name, out_shape().channels}}; }
};

class ToRgb final : public Stage {
 public:
  explicit ToRgb(const StageConfig& c) : channels_(static_cast<int>(c.get(kChannels).lo)) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override {
    return std::make_unique<ToRgbOp>(in, in.channels == 1 ? channels_ : in.channels);
  }

 private:
  int channels_;
};

}  // namespace
}  // namespace to_rgb_impl

StageType to_rgb_stage() { return stage_type<to_rgb_impl::ToRgb>(&to_rgb_impl::to_rgb_spec); }

}  // namespace aug
