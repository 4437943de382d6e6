// crop: cut a window of a fixed size from the centre or from a random position.
#include <array>
#include <cstring>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/geometry/crop.hpp"
#include "lib/core/error.hpp"
#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/geometry/padding.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace crop_impl {
namespace {

const Param<IntPair> kSize{{.name = "size",
                            .doc = "window size; one integer means a square",
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
enum class Position { Center, Random };
const Words<Position> kPositions{{{Position::Center, "center"}, {Position::Random, "random"}}};
const Choice<Position> kPosition{
    kPositions,
    {},
    Position::Center,
    {.name = "position", .doc = "where the window sits; random: uniform over every position that fits", .random = true}};
const Param<IntPair> kOrigin{{.name = "origin",
                              .doc = "the window's top-left corner in the (padded) image; when given, position is "
                                     "not used (Albumentations' Crop)",
                              .optional = true,
                              .min = Bound{0},
                              .max = Bound{65535},
                              .elements = "[x, y]"}};
const Param<std::vector<std::int64_t>> kPadding = padding_param(
    "pixels added on each side before cropping: n, [left/right, top/bottom] or [left, top, right, bottom]", 0);
const Param<bool> kPadIfNeeded{{.name = "pad_if_needed",
                                .doc = "when the (padded) image is narrower or lower than the window, add the "
                                       "difference on both sides of that axis instead of failing",
                                .default_value = false}};
const Choice<Border> kBorder =
    border_param({Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap},
                 Border::Constant, "what padded pixels are; a list draws one per image");
const Param<std::vector<double>> kFill = fill_param();

const StageSpec& crop_spec() {
  static const StageSpec spec{
      .name = "crop",
      .family = "geometry",
      .summary = "Cut a width x height window from the centre, from a uniformly random position or from a given "
                 "origin, after optional padding (torchvision RandomCrop's padding and pad_if_needed).",
      .notes = {"An image smaller than the window is a per-file error naming the stage; other inputs go on, unless "
                "pad_if_needed is true. So is a window at `origin` that reaches past the image.",
                "padding and pad_if_needed follow torchvision's RandomCrop: padding (same forms as pad's) is added "
                "first; then, with pad_if_needed, an axis still shorter than the window gets the whole difference "
                "added on each of its two sides (so it becomes 2 x window - length long), and the window is "
                "placed in that padded image (center: the difference halved, rounded down). The second padding "
                "reads the first one's result, so with reflect or wrap borders it mirrors the padded image, as "
                "torchvision's two successive pads do. border and fill are pad's."},
      .params = {kSize, kPosition, kOrigin, kPadding, kPadIfNeeded, kBorder, kFill},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "crop"}, {"size", {224, 224}}, {"position", "random"}},
      .cases = {R"({"size": [1, 1], "position": "random"})",
                R"({"size": [2, 3]})",
                R"({"size": [3, 2], "padding": [2, 1, 0, 3], "position": "random"})",
                R"({"size": [45, 5], "pad_if_needed": true, "border": "reflect"})",
                R"({"size": [6, 44], "padding": 1, "pad_if_needed": true, "border": "reflect101", "position": "random"})",
                R"({"size": [50, 7], "padding": [4, 2], "pad_if_needed": true, "border": "wrap"})",
                R"({"size": [9, 9], "pad_if_needed": true, "border": "replicate", "fill": 9})",
                R"({"size": [8, 6], "padding": [3, 0, 1, 2], "pad_if_needed": true, "fill": [1, 2, 3, 4]})",
                R"({"size": [5, 3], "origin": [1, 2]})",
                R"({"size": [4, 4], "origin": [0, 3], "padding": 2, "border": "reflect"})"},
      .no_identity = "the window has a fixed size; a crop of the whole image is one only for images of that size",
      .bench = {R"({"size": [1280, 720]})", R"({"size": [1280, 720], "padding": 32, "position": "random"})"},
      .arithmetic = R"md(
Pixels are moved, never computed: exact for every type, float included (bit copies).

- **crop**: `out(x, y) = in(x + x0, y + y0)`; centre `x0 = (W - w)/2`, `y0 = (H - h)/2` (integer
  division); random `x0 = integer(0, W - w)`, then `y0 = integer(0, H - h)`; with `origin`,
  `(x0, y0) = origin` and nothing is drawn for the place. A window larger than the (padded) image is a
  per-file error unless `pad_if_needed` is true; so is a window at `origin` that reaches past it.
- The CPU backend copies one `memcpy` per row; the kernels share one body with flip
  (`kernels/geometry/move.hpp`): output `(x, y)` takes input `(x0 + dx*x, y0 + dy*y)`, `dx, dy = +-1`.
- **crop with `padding` / `pad_if_needed`** (torchvision RandomCrop's steps): the image is padded by
  `padding` (l, t, r, b) to `W1 = W + l + r`, `H1 = H + t + b`; with `pad_if_needed`, an axis still
  shorter than the window gets `e = w - W1` added on both sides (`W2 = W1 + 2e`, likewise `f` for the
  height); `x0`, `y0` are then drawn as above over `W2 x H2`. Each axis reads through both paddings in
  turn, `i = border_index(border_index(x + x0 - e, W1) - l, W)`, so the second padding mirrors (or
  wraps) the first one's result exactly as two successive pads do; either level outside under
  `constant` gives the fill. Without any padding the plain crop runs (the same bytes and draws as
  before; the border is drawn only when something is padded). These window crops run
  [pad](#pad)'s window kernel (on the CPU backend its host driver).
)md",
      .imports = {
          {.name = "CenterCrop",
           .how = "height, width; position center",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "crop"}};
            s["size"] = t.size();
            s["position"] = "center";
            if (t.has("pad_if_needed")) s["pad_if_needed"] = t.saved().at("pad_if_needed");
            return s;
          },
           .python = {
               {"CenterCrop",
                "height width always_apply p",
                "height width pad_if_needed pad_position border_mode fill fill_mask p",
                1.0}}},
          {.name = "RandomCrop",
           .how = "height, width; position random; pad_if_needed (2.x: padded up to the window, placed by "
                  "pad_position) as pad then crop",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "crop"}};
            s["size"] = t.size();
            s["position"] = "random";
            if (!t.flag("pad_if_needed", false)) return s;
            // Albumentations pads a side shorter than the window up to it (not by the whole difference
            // on each side, as torchvision's pad_if_needed and crop's), placed by pad_position.
            ojson pad{{"stage", "pad"}, {"min_size", s["size"]}};
            const std::string pos = t.has("pad_position") ? t.saved().at("pad_position").get<std::string>() : "center";
            if (pos == "center") pad["position"] = "center";
            else if (pos == "top_left") pad["position"] = "top-left";
            else if (pos == "random") pad["position"] = "random";
            else t.fail("pad_position \"" + pos + "\" has no stage equivalent (center, top_left or random)");
            pad["border"] = t.border(0);
            t.fill(pad);
            t.mask_fill();
            return ojson{{"stage", "sequence"}, {"stages", ojson::array({pad, s})}};
          },
           .python = {
               {"RandomCrop",
                "height width always_apply p",
                "height width pad_if_needed pad_position border_mode fill fill_mask p",
                1.0}}},
          {.name = "Crop",
           .how = "x_min, y_min, x_max, y_max: size [x_max - x_min, y_max - y_min] at origin [x_min, y_min]",
           .convert = [](const TransformReader& t) {
            const double x0 = t.number("x_min", 0), y0 = t.number("y_min", 0);
            const double x1 = t.number("x_max", 1024), y1 = t.number("y_max", 1024);
            if (x0 < 0 || y0 < 0 || x1 <= x0 || y1 <= y0)
              t.fail("the window x_min " + std::to_string(int(x0)) + ", y_min " + std::to_string(int(y0)) + ", x_max " +
                     std::to_string(int(x1)) + ", y_max " + std::to_string(int(y1)) +
                     " is empty or starts before the image (x_max > x_min >= 0 and y_max > y_min >= 0)");
            if (t.flag("pad_if_needed", false))
              t.fail("pad_if_needed true (padding placed by pad_position around a window that leaves the image) has "
                     "no equivalent; crop's pad_if_needed follows torchvision's RandomCrop");
            ojson s{{"stage", "crop"}};
            s["size"] = {int(x1 - x0), int(y1 - y0)};
            s["origin"] = {int(x0), int(y0)};
            return s;
          },
           .python = {
               {"Crop",
                "x_min y_min x_max y_max always_apply p",
                "x_min y_min x_max y_max pad_if_needed pad_position border_mode fill fill_mask p",
                1.0}}}},
      .counterpart = {.call = "cv::Mat::copyTo of the ROI (after cv::copyMakeBorder when the window leaves the image)",
                      .how = "the resolved window, padding and border",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const cv::Rect roi(m.at("x").get<int>(), m.at("y").get<int>(), m.at("width").get<int>(),
                                           m.at("height").get<int>());
                        const auto pad = m.at("padding").get<std::array<int, 4>>();
                        const auto extra = m.at("pad_if_needed").get<std::array<int, 2>>();
                        if (pad == std::array<int, 4>{0, 0, 0, 0} && extra == std::array<int, 2>{0, 0})
                          return [&dst, src, roi] { src(roi).copyTo(dst); };
                        const int border = cv_border(m.value("border", std::string("constant")));
                        return [&dst, src, roi, pad, extra, border] {
                          cv::Mat padded;
                          cv::copyMakeBorder(src, padded, pad[1] + extra[1], pad[3] + extra[1], pad[0] + extra[0],
                                             pad[2] + extra[0], border, cv::Scalar());
                          padded(roi).copyTo(dst);
                        };
                      }},
  };
  return spec;
}

// The window's place: (x, y) in the image after `padding` (sides) and pad_if_needed (extra, added
// on both sides of each axis).
struct Placement {
  int x = 0, y = 0;
  Sides padding{0, 0, 0, 0};
  std::array<int, 2> extra{0, 0};
  bool padded() const { return padding != Sides{0, 0, 0, 0} || extra[0] != 0 || extra[1] != 0; }
};

class CropOp final : public Op {
 public:
  CropOp(const Shape& in, const Placement& at, int w, int h, Border border, std::vector<double> fill)
      : Op(in, Shape{w, h, in.channels, in.dtype}), x_(at.x), y_(at.y), at_(at), border_(border), fill_(std::move(fill)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (at_.padded()) {
      const Sides& s = at_.padding;
      const k::WindowAxis x{x_, at_.extra[0], in.shape.width + s[0] + s[2], s[0], in.shape.width};
      const k::WindowAxis y{y_, at_.extra[1], in.shape.height + s[1] + s[3], s[1], in.shape.height};
      return run_window(ctx, in, out, x, y, border_, fill_);
    }
    if (ctx.cpu()) {  // pixels moved, nothing computed: one memcpy per row
      const std::size_t px = in.shape.channels * sample_size(in.shape.dtype);
      for (int y = 0; y < out.shape.height; ++y)
        std::memcpy(static_cast<char*>(out.data) + y * out.pitch,
                    static_cast<const char*>(in.data) + (y + y_) * in.pitch + x_ * px, out.shape.row_bytes());
      return;
    }
    with_views(in, out, [&](auto src, auto dst) { k::crop(src, dst, x_, y_, ctx.exec()); });
  }
  nlohmann::json params() const override {
    nlohmann::json j{{"x", x_}, {"y", y_}, {"width", out_shape().width}, {"height", out_shape().height},
                     {kPadding.name, sides_json(at_.padding)}, {kPadIfNeeded.name, {at_.extra[0], at_.extra[1]}}};
    if (at_.padded()) j[kBorder.name] = border_words().name(border_);
    return j;
  }
  std::optional<Motion> motion() const override {
    // Input x sits at x + padding + extra in the padded image, whose window starts at x_.
    const double dx = at_.padding[0] + at_.extra[0] - x_, dy = at_.padding[1] + at_.extra[1] - y_;
    return Motion{.matrix = {1, 0, dx, 0, 1, dy, 0, 0, 1}, .out_width = out_shape().width, .out_height = out_shape().height};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    return std::make_unique<CropOp>(mask, at_, out_shape().width, out_shape().height, border_, std::vector<double>{fill});
  }

 private:
  int x_, y_;
  Placement at_;
  Border border_;
  std::vector<double> fill_;
};

class Crop final : public Stage {
 public:
  explicit Crop(const StageConfig& c)
      : size_(c.get(kSize)),
        position_(c.get(kPosition)),
        origin_(c.has(kOrigin) ? std::optional<IntPair>(c.get(kOrigin)) : std::nullopt),
        padding_(padding_sides(c, kPadding)),
        pad_if_needed_(c.get(kPadIfNeeded)),
        border_(c.get(kBorder)),
        fill_(c.get(kFill)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int w = static_cast<int>(size_[0]), h = static_cast<int>(size_[1]);
    Placement at;
    at.padding = padding_;
    int width = in.width + padding_[0] + padding_[2], height = in.height + padding_[1] + padding_[3];
    if (pad_if_needed_) {
      at.extra = {std::max(0, w - width), std::max(0, h - height)};
      width += 2 * at.extra[0];
      height += 2 * at.extra[1];
    }
    if (w > width || h > height)
      throw InputError("crop: the window " + std::to_string(w) + "x" + std::to_string(h) +
                       " is larger than the image (" + std::to_string(width) + "x" + std::to_string(height) +
                       (width != in.width || height != in.height ? " after padding" : "") + ")");
    at.x = (width - w) / 2;
    at.y = (height - h) / 2;
    if (origin_) {
      at.x = static_cast<int>((*origin_)[0]);
      at.y = static_cast<int>((*origin_)[1]);
      if (at.x + w > width || at.y + h > height)
        throw InputError("crop: the window " + std::to_string(w) + "x" + std::to_string(h) + " at (" +
                         std::to_string(at.x) + ", " + std::to_string(at.y) + ") reaches past the image (" +
                         std::to_string(width) + "x" + std::to_string(height) +
                         (width != in.width || height != in.height ? " after padding" : "") + ")");
    } else if (position_.sample(d) == Position::Random) {
      at.x = static_cast<int>(d.integer(0, width - w));
      at.y = static_cast<int>(d.integer(0, height - h));
    }
    // The border is drawn only where it is used, so that a crop without padding draws what it did.
    const Border border = at.padded() ? border_.sample(d) : Border::Constant;
    return std::make_unique<CropOp>(in, at, w, h, border, fill_);
  }

 private:
  IntPair size_;
  Drawn<Position> position_;
  std::optional<IntPair> origin_;
  Sides padding_;
  bool pad_if_needed_;
  Drawn<Border> border_;
  std::vector<double> fill_;
};

}  // namespace
}  // namespace crop_impl

StageType crop_stage() { return stage_type<crop_impl::Crop>(&crop_impl::crop_spec); }

}  // namespace aug
