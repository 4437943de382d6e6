// crop: cut a window of a fixed size from the centre or from a random position.
#include <cstring>

#include "kernels/geometry/crop.hpp"
#include "lib/core/error.hpp"
#include "lib/stages/geometry/padding.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

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
      .summary = "Cut a width x height window from the centre or from a uniformly random position, after optional "
                 "padding (torchvision RandomCrop's padding and pad_if_needed).",
      .notes = {"An image smaller than the window is a per-file error naming the stage; other inputs go on, unless "
                "pad_if_needed is true.",
                "padding and pad_if_needed follow torchvision's RandomCrop: padding (same forms as pad's) is added "
                "first; then, with pad_if_needed, an axis still shorter than the window gets the whole difference "
                "added on each of its two sides (so it becomes 2 x window - length long), and the window is "
                "placed in that padded image (center: the difference halved, rounded down). The second padding "
                "reads the first one's result, so with reflect or wrap borders it mirrors the padded image, as "
                "torchvision's two successive pads do. border and fill are pad's."},
      .params = {kSize, kPosition, kPadding, kPadIfNeeded, kBorder, kFill},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "crop"}, {"size", {224, 224}}, {"position", "random"}},
      .cases = {R"({"size": [1, 1], "position": "random"})",
                R"({"size": [2, 3]})",
                R"({"size": [3, 2], "padding": [2, 1, 0, 3], "position": "random"})",
                R"({"size": [45, 5], "pad_if_needed": true, "border": "reflect"})",
                R"({"size": [6, 44], "padding": 1, "pad_if_needed": true, "border": "reflect101", "position": "random"})",
                R"({"size": [50, 7], "padding": [4, 2], "pad_if_needed": true, "border": "wrap"})",
                R"({"size": [9, 9], "pad_if_needed": true, "border": "replicate", "fill": 9})",
                R"({"size": [8, 6], "padding": [3, 0, 1, 2], "pad_if_needed": true, "fill": [1, 2, 3, 4]})"},
      .no_identity = "the window has a fixed size; a crop of the whole image is one only for images of that size",
      .bench = {R"({"size": [1280, 720]})", R"({"size": [1280, 720], "padding": 32, "position": "random"})"},
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
    if (position_.sample(d) == Position::Random) {
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
  Sides padding_;
  bool pad_if_needed_;
  Drawn<Border> border_;
  std::vector<double> fill_;
};

}  // namespace

StageType crop_stage() { return stage_type<Crop>(&crop_spec); }

}  // namespace aug
