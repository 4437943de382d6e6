// flip: mirror the image horizontally or vertically.
#include <functional>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/geometry/flip.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

enum class Direction { Horizontal, Vertical };
const Words<Direction> kDirections{{{Direction::Horizontal, "horizontal"}, {Direction::Vertical, "vertical"}}};
const Choice<Direction> kDirection{kDirections,
                                   {},
                                   Direction::Horizontal,
                                   {.name = "direction", .doc = "axis to mirror; a list draws one per image", .random = true}};

const StageSpec& flip_spec() {
  static const StageSpec spec{
      .name = "flip",
      .family = "geometry",
      .summary = "Mirror the image left-right (horizontal) or top-bottom (vertical).",
      .params = {kDirection},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "flip"}, {"direction", {"horizontal", "vertical"}}, {"p", 0.5}},
      .cases = {R"({"direction": "horizontal"})",
                R"({"direction": "vertical"})"},
      .no_identity = "every direction mirrors the image",
      .bench = {R"({"direction": "horizontal"})"},
      .arithmetic = R"md(
Pixels are moved, never computed: exact for every type, float included (bit copies).

- **flip**: `out(x, y) = in(W-1-x, y)` (horizontal) or `in(x, H-1-y)` (vertical); a list draws one.
- The CPU backend calls `cv::flip`; the kernels share one body with crop
  (`kernels/geometry/move.hpp`): output `(x, y)` takes input `(x0 + dx*x, y0 + dy*y)`, `dx, dy = +-1`.
)md",
      .imports = {
          {.name = "HorizontalFlip",
           .how = "direction horizontal",
           .convert = [](const TransformReader&) {
            ojson s{{"stage", "flip"}};
            s["direction"] = "horizontal";
            return s;
          }},
          {.name = "VerticalFlip",
           .how = "direction vertical",
           .convert = [](const TransformReader&) {
            ojson s{{"stage", "flip"}};
            s["direction"] = "vertical";
            return s;
          }}},
      .counterpart = {.call = "cv::flip",
                      .how = "code 1 (horizontal) or 0 (vertical)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int code = m.at("direction").get<std::string>() == "horizontal" ? 1 : 0;
                        return [&dst, src, code] { cv::flip(src, dst, code); };
                      }},
  };
  return spec;
}

class FlipOp final : public Op {
 public:
  FlipOp(const Shape& s, bool horizontal) : Op(s, s), horizontal_(horizontal) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (ctx.cpu()) {  // pixels moved, nothing computed: OpenCV's copy loops
      cv::Mat dst = as_mat(out);
      cv::flip(as_mat(in), dst, horizontal_ ? 1 : 0);
      return;
    }
    with_views(in, out, [&](auto src, auto dst) { k::flip(src, dst, horizontal_, !horizontal_, ctx.exec()); });
  }
  nlohmann::json params() const override {
    return {{kDirection.name, kDirections.name(horizontal_ ? Direction::Horizontal : Direction::Vertical)}};
  }
  std::optional<Motion> motion() const override {
    const Shape& s = in_shape();
    Motion m{.out_width = s.width, .out_height = s.height};
    if (horizontal_) m.matrix = {-1, 0, s.width - 1.0, 0, 1, 0, 0, 0, 1};  // x' = W - 1 - x
    else m.matrix = {1, 0, 0, 0, -1, s.height - 1.0, 0, 0, 1};
    return m;
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<FlipOp>(mask, horizontal_);
  }

 private:
  bool horizontal_;
};

class Flip final : public Stage {
 public:
  explicit Flip(const StageConfig& c) : direction_(c.get(kDirection)) {}
  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<FlipOp>(in, direction_.sample(d) == Direction::Horizontal);
  }

 private:
  Drawn<Direction> direction_;
};

}  // namespace

StageType flip_stage() { return stage_type<Flip>(&flip_spec); }

}  // namespace aug
