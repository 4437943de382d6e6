// resize: to a fixed size, a short or long side, or a scale factor.
#include <algorithm>
#include <cmath>

#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

const Param<IntPair> kSize{{.name = "size",
                            .doc = "exact output size",
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
const Param<IntegerParam> kShortSide{{.name = "short_side",
                                      .doc = "length of the shorter side; [lo, hi] draws one per image",
                                      .random = true,
                                      .min = Bound{1},
                                      .max = Bound{65535}}};
const Param<IntegerParam> kLongSide{{.name = "long_side",
                                     .doc = "length of the longer side; [lo, hi] draws one per image",
                                     .random = true,
                                     .min = Bound{1},
                                     .max = Bound{65535}}};
const Param<NumberParam> kScale{{.name = "scale",
                                 .doc = "factor applied to both sides; [lo, hi] draws one per image",
                                 .random = true,
                                 .min = Bound{0, true},
                                 .max = Bound{16}}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

const StageSpec& resize_spec() {
  static const StageSpec spec{
      .name = "resize",
      .summary = "Resize to a size, a short side, a long side or a scale factor (aspect kept except for size); 8-bit "
                 "bilinear equals OpenCV's INTER_LINEAR_EXACT to the bit.",
      .notes = {"Pixel centres are aligned (half-pixel convention, as OpenCV and PIL). 8-bit bilinear is OpenCV's "
                "INTER_LINEAR_EXACT to the bit; bicubic and area use fixed-point weights (11 bits for 8-bit "
                "images, 14 for 16-bit), float images binary32 weights.",
                "The computed side is rounded half to even: short_side 256 on a 500x375 image gives 341x256."},
      .params = {kSize, kShortSide, kLongSide, kScale, kInterpolation},
      .exactly_one_of = {{kSize.name, kShortSide.name, kLongSide.name, kScale.name}},
      .tolerance = {.f32 = 0,
                    .reason = "integer images: integer arithmetic over tables computed once on the host; float "
                              "images: the same binary32 sums in the same order, no FMA contraction"},
      .example = {{"stage", "resize"}, {"short_side", 256}, {"interpolation", "bilinear"}},
      .cases = {R"({"size": [5, 3], "interpolation": "bilinear"})",
                R"({"scale": 0.6, "interpolation": "bilinear"})",
                R"({"scale": 1.7, "interpolation": "bilinear"})",
                R"({"scale": 0.45, "interpolation": "nearest"})",
                R"({"scale": 1.3, "interpolation": "nearest"})",
                R"({"scale": 0.55, "interpolation": "bicubic"})",
                R"({"scale": 2.2, "interpolation": "bicubic"})",
                R"({"scale": 0.37, "interpolation": "area"})",
                R"({"scale": 0.5, "interpolation": "area"})",
                R"({"scale": 1.6, "interpolation": "area"})"},
      .identity = R"({"scale": 1, "interpolation": "bicubic"})",
      .bench = {R"({"short_side": 256, "interpolation": "bilinear"})", R"({"scale": 0.5, "interpolation": "area"})",
                R"({"scale": 0.37, "interpolation": "area"})", R"({"scale": 0.75, "interpolation": "bicubic"})",
                R"({"scale": 1.5, "interpolation": "bicubic"})", R"({"scale": 0.5, "interpolation": "nearest"})",
                R"({"scale": 1.5, "interpolation": "nearest"})"},
  };
  return spec;
}

int side(double v) { return std::max(1, static_cast<int>(std::nearbyint(v))); }

class Resize final : public Stage {
 public:
  explicit Resize(const StageConfig& c) : interp_(c.get(kInterpolation)) {
    if (c.has(kSize)) size_ = c.get(kSize);
    if (c.has(kShortSide)) short_ = c.get(kShortSide);
    if (c.has(kLongSide)) long_ = c.get(kLongSide);
    if (c.has(kScale)) scale_ = c.get(kScale);
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double w = in.width, h = in.height;
    int ow, oh;
    if (size_) {
      ow = static_cast<int>((*size_)[0]);
      oh = static_cast<int>((*size_)[1]);
    } else if (short_ || long_) {
      const bool by_short = short_.has_value();
      const double target = static_cast<double>((by_short ? *short_ : *long_).sample(d));
      const bool width_is_it = by_short ? in.width <= in.height : in.width > in.height;
      if (width_is_it) {
        ow = side(target);
        oh = side(h * target / w);
      } else {
        oh = side(target);
        ow = side(w * target / h);
      }
    } else {
      const double f = scale_->sample(d);
      ow = side(w * f);
      oh = side(h * f);
    }
    const Interp interp = interp_.sample(d);
    if (ow == in.width && oh == in.height) return copy_op(in);
    return make_resample_op(in, Window{0, 0, in.width, in.height}, ow, oh, interp);
  }

 private:
  Drawn<Interp> interp_;
  std::optional<IntPair> size_;
  std::optional<IntegerParam> short_, long_;
  std::optional<NumberParam> scale_;
};

}  // namespace

StageType resize_stage() { return stage_type<Resize>(&resize_spec); }

}  // namespace aug
