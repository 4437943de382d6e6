// crop: cut a window of a fixed size from the centre or from a random position.
#include <cstring>

#include "kernels/geometry/crop.hpp"
#include "lib/core/error.hpp"
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

const StageSpec& crop_spec() {
  static const StageSpec spec{
      .name = "crop",
      .summary = "Cut a width x height window from the centre or from a uniformly random position.",
      .notes = {"An image smaller than the window is a per-file error naming the stage; other inputs go on."},
      .params = {kSize, kPosition},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "crop"}, {"size", {224, 224}}, {"position", "random"}},
      .cases = {R"({"size": [1, 1], "position": "random"})",
                R"({"size": [2, 3]})"},
      .no_identity = "the window has a fixed size; a crop of the whole image is one only for images of that size",
      .bench = {R"({"size": [1280, 720]})"},
  };
  return spec;
}

class CropOp final : public Op {
 public:
  CropOp(const Shape& in, int x, int y, int w, int h)
      : Op(in, Shape{w, h, in.channels, in.dtype}), x_(x), y_(y) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
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
    return {{"x", x_}, {"y", y_}, {"width", out_shape().width}, {"height", out_shape().height}};
  }

 private:
  int x_, y_;
};

class Crop final : public Stage {
 public:
  explicit Crop(const StageConfig& c) : size_(c.get(kSize)), position_(c.get(kPosition)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int w = static_cast<int>(size_[0]), h = static_cast<int>(size_[1]);
    if (w > in.width || h > in.height)
      throw InputError("crop: the window " + std::to_string(w) + "x" + std::to_string(h) +
                       " is larger than the image (" + std::to_string(in.width) + "x" + std::to_string(in.height) + ")");
    int x = (in.width - w) / 2, y = (in.height - h) / 2;
    if (position_.sample(d) == Position::Random) {
      x = static_cast<int>(d.integer(0, in.width - w));
      y = static_cast<int>(d.integer(0, in.height - h));
    }
    return std::make_unique<CropOp>(in, x, y, w, h);
  }

 private:
  IntPair size_;
  Drawn<Position> position_;
};

}  // namespace

StageType crop_stage() { return stage_type<Crop>(&crop_spec); }

}  // namespace aug
