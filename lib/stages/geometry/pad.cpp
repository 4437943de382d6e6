// pad: add pixels around the image, by fixed amounts, up to a minimum size or to a multiple of a divisor.
#include <array>
#include <functional>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/geometry/window.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/geometry/padding.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace pad_impl {
namespace {

const Param<std::vector<std::int64_t>> kPadding =
    padding_param("pixels added on each side: n (every side), [left/right, top/bottom] or [left, top, right, bottom]");
const Param<IntPair> kMinSize{{.name = "min_size",
                               .doc = "pad up to at least this size; sides already as large are left alone",
                               .min = Bound{1},
                               .max = Bound{65535},
                               .elements = "[width, height]"}};
const Param<IntPair> kDivisor{{.name = "divisor",
                               .doc = "pad each side up to the next multiple of this (Albumentations' "
                                      "pad_width_divisor, pad_height_divisor)",
                               .min = Bound{1},
                               .max = Bound{65535},
                               .elements = "[width, height]"}};
enum class Position { Center, Random, TopLeft };
const Words<Position> kPositions{
    {{Position::Center, "center"}, {Position::Random, "random"}, {Position::TopLeft, "top-left"}}};
const Choice<Position> kPosition{
    kPositions,
    {},
    {.name = "position",
     .doc = "with min_size or divisor: where the image sits in the padded canvas (default center); center puts the odd "
            "pixel right and bottom, random draws the left and top padding uniformly",
     .optional = true,
     .random = true}};
const Choice<Border> kBorder =
    border_param({Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap},
                 Border::Constant, "what the added pixels are; a list draws one per image");
const Param<std::vector<double>> kFill = fill_param();

const StageSpec& pad_spec() {
  static const StageSpec spec{
      .name = "pad",
      .family = "geometry",
      .summary = "Add pixels around the image: fixed amounts per side, up to a minimum size or to a multiple of a "
                 "divisor; any border, "
                 "equal to OpenCV's copyMakeBorder.",
      .notes = {"padding takes the forms torchvision's Pad takes: one number for every side, [left/right, "
                "top/bottom] or [left, top, right, bottom]. min_size pads each side that is smaller than [width, "
                "height] up to it, as Albumentations' PadIfNeeded: with position center the left (top) side gets "
                "half the difference rounded down and the right (bottom) side the rest; top-left adds everything "
                "right and bottom; random draws the left (top) amount uniformly from 0 to the difference.",
                "Borders are OpenCV's: constant (the fill), replicate, reflect (torchvision's \"symmetric\"), "
                "reflect101 (torchvision's \"reflect\") and wrap; a padding larger than the image repeats the rule "
                "(as copyMakeBorder). fill is saturated to the sample type (rounded half to even for integers)."},
      .params = {kPadding, kMinSize, kDivisor, kPosition, kBorder, kFill},
      .exactly_one_of = {{kPadding.name, kMinSize.name, kDivisor.name}},
      .tolerance = {.reason = "pixels are moved or set to the fill, never computed"},
      .example = {{"stage", "pad"}, {"padding", {16, 8}}, {"border", "reflect101"}},
      .cases = {R"({"padding": [3, 1, 0, 2]})",
                R"({"padding": [2, 5], "border": "replicate"})",
                R"({"padding": 4, "border": "reflect"})",
                R"({"padding": [5, 0, 1, 3], "border": "reflect101"})",
                R"({"padding": [7, 2, 3, 6], "border": "wrap"})",
                R"({"padding": [1, 2, 3, 4], "fill": [10, 200, 30, 128]})",
                R"({"min_size": [45, 40], "position": "random", "border": "reflect101"})",
                R"({"min_size": [6, 5], "position": "top-left", "border": "wrap"})",
                R"({"min_size": [3, 4], "fill": 0.5})",
                R"({"divisor": [4, 8], "border": "reflect101"})",
                R"({"divisor": 5, "position": "random"})"},
      .identity = R"({"padding": 0})",
      .bench = {R"({"padding": 32, "border": "reflect101"})", R"({"min_size": [2048, 2048]})"},
      .arithmetic = R"md(
`kernels/geometry/window.{hpp,cu}`: `out(x, y) = in(ix(x), iy(y))` with, per axis, up to two nested
paddings resolved by `border_index` (`kernels/core/border.hpp`, equal to `cv::borderInterpolate`);
`-1` on either level (constant border) gives the channel's fill, passed by value, saturated on the
host (integers: rounded half to even and clamped, as `cv::saturate_cast`; float: `(float)fill`).

- **pad**: one level, `ix(x) = border_index(x - left, W)`. Equal to `cv::copyMakeBorder(top, bottom,
  left, right)` for every border and every padding, larger than the image included (held by the tests
  on photographs, all types). The CPU backend calls `cv::copyMakeBorder` itself; the kernels run the
  window body. The window's host driver (`window_cpu.cpp`, crop's padded windows) evaluates the same
  `ix`, `iy` once per column and row and copies the longest run of consecutive input columns with one
  `memcpy` per row, the border bands pixel by pixel.
- **min_size**: `dx = max(0, min_w - W)`; center: `left = dx / 2` (rounded down), `right = dx - left`
  (PadIfNeeded's and torchvision CenterCrop's split); top-left: `left = 0`; random: `left =
  integer(0, dx)`, then `top = integer(0, dy)`. The position is drawn first, then the border.
- **divisor**: as min_size with `min_w = ceil(W / div_w) * div_w` (the next multiple; none where `W`
  is one already), and the same for the height: PadIfNeeded's `pad_width_divisor` /
  `pad_height_divisor`.
)md",
      .imports = {
          {.name = "PadIfNeeded",
           .how = "min_height, min_width are min_size (pad_height_divisor, pad_width_divisor: divisor); position center / top_left / random; border_mode (default "
                  "reflect101), value / fill",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "pad"}};
            const bool wd = t.has("pad_width_divisor"), hd = t.has("pad_height_divisor");
            if (wd || hd) {
              if (!(wd && hd) || t.has("min_width") || t.has("min_height"))
                t.fail("a divisor on one side and a minimum size on the other has no stage equivalent; give both "
                       "divisors (min_height and min_width None) or both minimum sizes");
              s["divisor"] = ojson::array({t.saved().at("pad_width_divisor"), t.saved().at("pad_height_divisor")});
            } else {
              s["min_size"] = ojson::array({t.has("min_width") ? t.saved().at("min_width") : nlohmann::json(1024),
                                            t.has("min_height") ? t.saved().at("min_height") : nlohmann::json(1024)});
            }
            const std::string pos = t.has("position") ? t.saved().at("position").get<std::string>() : "center";
            if (pos == "center") s["position"] = "center";
            else if (pos == "top_left") s["position"] = "top-left";
            else if (pos == "random") s["position"] = "random";
            else t.fail("position \"" + pos + "\" has no stage equivalent (center, top_left or random)");
            s["border"] = t.border(t.release_2() ? 0 : 4);  // 2.x's default is constant, 1.x's reflect101
            t.fill(s);
            t.mask_fill();
            return s;
          },
           .python = {
               {"PadIfNeeded",
                "min_height min_width pad_height_divisor pad_width_divisor position border_mode value mask_value "
                "always_apply p",
                "min_height min_width pad_height_divisor pad_width_divisor position border_mode fill fill_mask p",
                1.0}}},
          // Albumentations 2.x's Pad: torchvision's three forms of padding.
          {.name = "Pad",
           .how = "padding (n, (x, y) or (left, top, right, bottom), as they are); border_mode (default constant), fill",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "pad"}};
            const nlohmann::json padding = t.has("padding") ? t.saved().at("padding") : nlohmann::json(0);
            if (!(padding.is_number_integer() || (padding.is_array() && (padding.size() == 2 || padding.size() == 4))))
              t.fail("padding " + padding.dump() + " has no stage equivalent (an integer, (x, y) or four sides)");
            s["padding"] = padding;
            s["border"] = t.border(0);
            t.fill(s);
            t.mask_fill();
            return s;
          },
           .python = {{"Pad", "-", "padding fill fill_mask border_mode p", 1.0}}}},
      .counterpart = {.call = "cv::copyMakeBorder",
                      .how = "the resolved padding (left, top, right, bottom) and border",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const auto s = m.at("padding").get<std::array<int, 4>>();
                        const int border = cv_border(m.at("border").get<std::string>());
                        return [&dst, src, s, border] {
                          cv::copyMakeBorder(src, dst, s[1], s[3], s[0], s[2], border, cv::Scalar());
                        };
                      }},
  };
  return spec;
}

class PadOp final : public Op {
 public:
  PadOp(const Shape& in, const Sides& s, Border border, std::vector<double> fill)
      : Op(in, Shape{in.width + s[0] + s[2], in.height + s[1] + s[3], in.channels, in.dtype}),
        sides_(s),
        border_(border),
        fill_(std::move(fill)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (ctx.cpu()) {  // pixels moved or set, nothing computed: OpenCV's copy loops (the tests hold them equal)
      cv::Scalar fill;
      for (int c = 0; c < 4; ++c) fill[c] = fill_for_channel(fill_, c);
      cv::Mat dst = as_mat(out);
      cv::copyMakeBorder(as_mat(in), dst, sides_[1], sides_[3], sides_[0], sides_[2], cv_border(border_),
                         fill);
      return;
    }
    // The outer level is the identity (its frame is the output); the inner one is the padding.
    const k::WindowAxis x{0, 0, out.shape.width, sides_[0], in.shape.width};
    const k::WindowAxis y{0, 0, out.shape.height, sides_[1], in.shape.height};
    run_window(ctx, in, out, x, y, border_, fill_);
  }
  nlohmann::json params() const override {
    return {{kPadding.name, sides_json(sides_)}, {kBorder.name, border_words().name(border_)}};
  }
  std::optional<Motion> motion() const override {
    return Motion{.matrix = {1, 0, static_cast<double>(sides_[0]), 0, 1, static_cast<double>(sides_[1]), 0, 0, 1},
                  .out_width = out_shape().width,
                  .out_height = out_shape().height};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    return std::make_unique<PadOp>(mask, sides_, border_, std::vector<double>{fill});
  }

 private:
  Sides sides_;
  Border border_;
  std::vector<double> fill_;
};

class Pad final : public Stage {
 public:
  explicit Pad(const StageConfig& c)
      : border_(c.get(kBorder)), fill_(c.get(kFill)) {
    if (c.has(kPadding) && c.has(kPosition))
      c.fail(kPosition, "places the image with min_size or divisor only; with padding the sides are given");
    if (c.has(kPosition)) position_ = c.get(kPosition);
    if (c.has(kPadding)) padding_ = padding_sides(c, kPadding);
    if (c.has(kMinSize)) min_size_ = c.get(kMinSize);
    if (c.has(kDivisor)) divisor_ = c.get(kDivisor);
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    Sides s{0, 0, 0, 0};
    if (padding_) {
      s = *padding_;
    } else {
      // The size to reach: min_size, or each side's next multiple of the divisor.
      const auto up = [](int v, std::int64_t d) { return static_cast<std::int64_t>((v + d - 1) / d * d); };
      const std::int64_t tw = min_size_ ? (*min_size_)[0] : up(in.width, (*divisor_)[0]);
      const std::int64_t th = min_size_ ? (*min_size_)[1] : up(in.height, (*divisor_)[1]);
      const int dx = static_cast<int>(std::max<std::int64_t>(0, tw - in.width));
      const int dy = static_cast<int>(std::max<std::int64_t>(0, th - in.height));
      int left = dx / 2, top = dy / 2;
      switch (position_.sample(d)) {
        case Position::Center: break;
        case Position::TopLeft: left = top = 0; break;
        case Position::Random:
          left = static_cast<int>(d.integer(0, dx));
          top = static_cast<int>(d.integer(0, dy));
          break;
      }
      s = {left, top, dx - left, dy - top};
    }
    const Border border = border_.sample(d);
    return std::make_unique<PadOp>(in, s, border, fill_);
  }

 private:
  std::optional<Sides> padding_;
  std::optional<IntPair> min_size_, divisor_;
  Drawn<Position> position_{{Position::Center}};
  Drawn<Border> border_;
  std::vector<double> fill_;
};

}  // namespace
}  // namespace pad_impl

StageType pad_stage() { return stage_type<pad_impl::Pad>(&pad_impl::pad_spec); }

std::unique_ptr<Op> pad_op(const Shape& in, const Sides& sides, Border border, std::vector<double> fill) {
  return std::make_unique<pad_impl::PadOp>(in, sides, border, std::move(fill));
}

}  // namespace aug
