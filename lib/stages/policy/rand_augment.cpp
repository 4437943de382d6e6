// rand_augment: torchvision's RandAugment: num_ops operations drawn uniformly (with repetition),
// each at one fixed magnitude bin, made from our stages.
#include "lib/stages/policy/policy.hpp"

namespace aug {

namespace {

const Param<IntegerParam> kNumOps{{.name = "num_ops",
                                   .doc = "operations applied one after the other, each drawn uniformly from the 14",
                                   .default_value = 2,
                                   .min = Bound{0},
                                   .max = Bound{16}}};
const Param<IntegerParam> kMagnitude{{.name = "magnitude",
                                      .doc = "the magnitude bin of every operation, 0 .. num_magnitude_bins - 1",
                                      .default_value = 9,
                                      .min = Bound{0}}};
const Param<IntegerParam> kBins = policy_bins_param("number of magnitude bins: bin i of an operation with maximum M is "
                                                    "M * i / (bins - 1)");
const Choice<Interp> kInterpolation = policy_interpolation_param();
const Param<std::vector<double>> kFill = policy_fill_param();

const StageSpec& rand_augment_spec() {
  static const StageSpec spec{
      .name = "rand_augment",
      .summary = "torchvision's RandAugment: num_ops operations drawn uniformly from 14, at one magnitude.",
      .notes = {"As torchvision's RandAugment(num_ops, magnitude, num_magnitude_bins, interpolation, fill): for each "
                "of num_ops, an operation drawn uniformly (with repetition) from Identity, ShearX, ShearY, TranslateX, "
                "TranslateY, Rotate, Brightness, Color, Contrast, Sharpness, Posterize, Solarize, AutoContrast, "
                "Equalize; its magnitude is bin `magnitude` of its range (shear 0.3, translation 150/331 of the "
                "width or height in pixels, rotation 30 degrees, the four colour factors 0.9, posterize 8 - round(i / "
                "((bins - 1) / 4)) bits, solarize threshold 255 down to 0 on the 8-bit scale), negated with "
                "probability 1/2 for the signed ones.",
                "Each operation is one of our stages with torchvision's arguments: shears turn about the top-left "
                "corner by atan(m) in degrees, translations move by int(m) pixels, the rotation is counter-clockwise "
                "about the centre, all on the warp engine (8-bit equals cv::warpAffine) with `interpolation` and a "
                "constant `fill`; Brightness, Color and Contrast are color_jitter's brightness, saturation and "
                "contrast with factor 1 + m, Sharpness is sharpness with 1 + m, Posterize posterize, Solarize "
                "solarize at m / 255, AutoContrast and Equalize the stages of those names.",
                "Labels and masks follow the geometric operations. The manifest records every operation drawn, its "
                "magnitude and its stage's parameters."},
      .params = {kNumOps, kMagnitude, kBins, kInterpolation, kFill},
      .tolerance = {.reason = "each operation is a stage whose backends agree exactly"},
      // A mild magnitude (torchvision's default is 9): the example is also the base of the generated
      // bounds tests, where num_magnitude_bins goes down to 2.
      .example = {{"stage", "rand_augment"}, {"num_ops", 2}, {"magnitude", 1}},
      .cases = {R"({"num_ops": 2, "magnitude": 9})",
                R"({"num_ops": 3, "magnitude": 30, "interpolation": "bilinear", "fill": [10, 200, 30]})",
                R"({"num_ops": 4, "magnitude": 2, "num_magnitude_bins": 5})"},
      .identity = R"({"num_ops": 0})",
      .bench = {R"({"num_ops": 2, "magnitude": 9})"},
  };
  return spec;
}

class RandAugment final : public Stage {
 public:
  explicit RandAugment(const StageConfig& c)
      : num_ops_(static_cast<int>(c.get(kNumOps).lo)),
        magnitude_(static_cast<int>(c.get(kMagnitude).lo)),
        bins_(static_cast<int>(c.get(kBins).lo)) {
    if (magnitude_ >= bins_)
      c.fail(kMagnitude, "= " + std::to_string(magnitude_) + " must be below num_magnitude_bins (" +
                             std::to_string(bins_) + ")");
    geometry_.interp = c.get(kInterpolation).options[0];
    geometry_.fill = warp_fill(c.get(kFill));
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const auto ops = augmentation_space(rand_augment_maxima(in));
    std::vector<PolicyStep> steps;
    for (int i = 0; i < num_ops_; ++i) {
      const auto& [op, range] = ops[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(ops.size()) - 1))];
      double m = range.at(magnitude_, bins_);
      if (range.is_signed && d.integer(0, 1) == 1) m = -m;
      steps.push_back(policy_step(op, m, in, geometry_, d));
    }
    return std::make_unique<PolicyChainOp>(in, std::move(steps), nullptr);
  }

 private:
  int num_ops_, magnitude_, bins_;
  PolicyGeometry geometry_;
};

}  // namespace

StageType rand_augment_stage() { return stage_type<RandAugment>(&rand_augment_spec); }

}  // namespace aug
