// flip: mirror the image horizontally, vertically or both.
#include <functional>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/geometry/flip.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace flip_impl {
namespace {

enum class Direction { Horizontal, Vertical, Both };
const Words<Direction> kDirections{
    {{Direction::Horizontal, "horizontal"}, {Direction::Vertical, "vertical"}, {Direction::Both, "both"}}};
const Choice<Direction> kDirection{kDirections,
                                   {},
                                   Direction::Horizontal,
                                   {.name = "direction",
                                    .doc = "axis to mirror (both: the two, a half turn); a list draws one per image",
                                    .random = true}};

const StageSpec& flip_spec() {
  static const StageSpec spec{
      .name = "flip",
      .family = "geometry",
      .summary = "Mirror the image left-right (horizontal), top-bottom (vertical) or both.",
      .params = {kDirection},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "flip"}, {"direction", {"horizontal", "vertical"}}, {"p", 0.5}},
      .cases = {R"({"direction": "horizontal"})",
                R"({"direction": "vertical"})",
                R"({"direction": "both"})"},
      .no_identity = "every direction mirrors the image",
      .bench = {R"({"direction": "horizontal"})"},
      .arithmetic = R"md(
Pixels are moved, never computed: exact for every type, float included (bit copies).

- **flip**: `out(x, y) = in(W-1-x, y)` (horizontal), `in(x, H-1-y)` (vertical) or `in(W-1-x, H-1-y)`
  (both); a list draws one, each equally likely. Albumentations' `Flip` is the list of all three.
- Labels: boxes and keypoints move by the same map. `both` is a half turn, not a mirror image, so
  it does not swap keypoints by `flip_index`.
- The CPU backend calls `cv::flip`; the kernels share one body with crop
  (`kernels/geometry/move.hpp`): output `(x, y)` takes input `(x0 + dx*x, y0 + dy*y)`, `dx, dy = +-1`.
)md",
      .imports = {
          {.name = "HorizontalFlip",
           .aliases = {"IAAFliplr"},
           .how = "direction horizontal",
           .convert = [](const TransformReader&) {
            ojson s{{"stage", "flip"}};
            s["direction"] = "horizontal";
            return s;
          },
           .python = {{"HorizontalFlip", "always_apply p", "p", 0.5}, {"IAAFliplr", "always_apply p", "-", 0.5}}},
          {.name = "VerticalFlip",
           .aliases = {"IAAFlipud"},
           .how = "direction vertical",
           .convert = [](const TransformReader&) {
            ojson s{{"stage", "flip"}};
            s["direction"] = "vertical";
            return s;
          },
           .python = {{"VerticalFlip", "always_apply p", "p", 0.5}, {"IAAFlipud", "always_apply p", "-", 0.5}}},
          // Albumentations 1.x (removed in 1.4): cv2.flip with a code drawn from {-1, 0, 1}.
          {.name = "Flip",
           .how = "direction drawn from horizontal, vertical and both, equally (its randint(-1, 1))",
           .convert = [](const TransformReader&) {
            ojson s{{"stage", "flip"}};
            s["direction"] = ojson::array({"horizontal", "vertical", "both"});
            return s;
          },
           .python = {{"Flip", "always_apply p", "-", 0.5}}}},
      .counterpart = {.call = "cv::flip",
                      .how = "code 1 (horizontal), 0 (vertical) or -1 (both)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const std::string d = m.at("direction").get<std::string>();
                        const int code = d == "horizontal" ? 1 : d == "vertical" ? 0 : -1;
                        return [&dst, src, code] { cv::flip(src, dst, code); };
                      }},
  };
  return spec;
}

class FlipOp final : public Op {
 public:
  FlipOp(const Shape& s, Direction d) : Op(s, s), direction_(d) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (ctx.cpu()) {  // pixels moved, nothing computed: OpenCV's copy loops
      cv::Mat dst = as_mat(out);
      cv::flip(as_mat(in), dst, horizontal() && vertical() ? -1 : horizontal() ? 1 : 0);
      return;
    }
    with_views(in, out, [&](auto src, auto dst) { k::flip(src, dst, horizontal(), vertical(), ctx.exec()); });
  }
  nlohmann::json params() const override { return {{kDirection.name, kDirections.name(direction_)}}; }
  std::optional<Motion> motion() const override {
    const Shape& s = in_shape();
    Motion m{.out_width = s.width, .out_height = s.height};
    // x' = W - 1 - x and / or y' = H - 1 - y
    const double sx = horizontal() ? -1 : 1, sy = vertical() ? -1 : 1;
    m.matrix = {sx, 0, horizontal() ? s.width - 1.0 : 0, 0, sy, vertical() ? s.height - 1.0 : 0, 0, 0, 1};
    return m;
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<FlipOp>(mask, direction_);
  }

 private:
  bool horizontal() const { return direction_ != Direction::Vertical; }
  bool vertical() const { return direction_ != Direction::Horizontal; }
  Direction direction_;
};

class Flip final : public Stage {
 public:
  explicit Flip(const StageConfig& c) : direction_(c.get(kDirection)) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<FlipOp>(in, direction_.sample(d));
  }

 private:
  Drawn<Direction> direction_;
};

}  // namespace
}  // namespace flip_impl

StageType flip_stage() { return stage_type<flip_impl::Flip>(&flip_impl::flip_spec); }

}  // namespace aug
