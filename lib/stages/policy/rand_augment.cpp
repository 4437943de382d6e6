// rand_augment: torchvision's RandAugment: num_ops operations drawn uniformly (with repetition),
// each at one fixed magnitude bin, made from our stages.
#include "lib/stages/policy/policy.hpp"

namespace aug {

namespace rand_augment_impl {
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
      .family = "policy",
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
      .arithmetic = R"md(
torchvision's `RandAugment`, `TrivialAugmentWide` and `AutoAugment` (`lib/stages/policy/`). They
compute nothing of their own: per image they draw operations on the host and run our stages with
fixed parameters, one after the other, in one Op (`PolicyChainOp`; intermediate images in two
scratch planes of the executing device), so each is exact between backends because its members are.

- **Operations** (torchvision's `_apply_op(op, m)`): ShearX / ShearY are the warp of torchvision's
  affine with shear `deg(atan(m))` about its centre [0, 0], which is (-0.5, -0.5) in our pixel-centre
  coordinates: forward `[[1, -m, -m/2], [0, 1, 0]]` and `[[1, 0, 0], [-m, 1, -m/2]]`; TranslateX /
  TranslateY move by `trunc(m)` pixels; Rotate is torchvision's rotate by m degrees counter-clockwise
  about ((W-1)/2, (H-1)/2) (`cv::getRotationMatrix2D`'s matrix); all on the warp engine with the
  policy's `interpolation` (nearest by default, as torchvision) and constant `fill`, so 8-bit results
  equal `cv::warpAffine` with the recorded matrix. Brightness, Color and Contrast are color_jitter's
  brightness, saturation and contrast with the factor `1 + m` alone (rounded to binary32 as torch
  does); Sharpness is sharpness with `1 + m`; Posterize is posterize with `int(m)` bits; Solarize is
  solarize with threshold `m / 255` (torchvision's 8-bit threshold as a fraction of the range, which
  torchvision v2 uses for every type); AutoContrast, Equalize and Invert are those stages; Identity
  copies.
- **Magnitudes.** Bin i of a range [lo, hi] over n bins is `lo + (hi - lo) i / (n - 1)` rounded to
  binary32 (torch.linspace's storage type; torch computes it in binary32 and may land one ulp away,
  which moves no pixel here in practice); Posterize's bits are `8 - round(i / ((n - 1) / q))` with the
  quotient in binary32 and rounding half to even (q = 4 for RandAugment and AutoAugment, 6 for
  TrivialAugmentWide). Signed operations are negated on a draw of 1 (RandAugment, TrivialAugment) or
  when the sign draw is 0 (AutoAugment), as torchvision.
  - rand_augment: `num_ops` draws of one of 14 operations (Identity, ShearX, ShearY, TranslateX,
    TranslateY, Rotate, Brightness, Color, Contrast, Sharpness, Posterize, Solarize, AutoContrast,
    Equalize), each at bin `magnitude` of `num_magnitude_bins`: shear 0.3, translation 150/331 of the
    width (X) or height (Y), rotation 30, colour factors 0.9, Solarize 255 down to 0.
  - trivial_augment: one of the same 14, at a bin drawn uniformly: shear 0.99, translation 32, rotation
    135, colour factors 0.99.
  - auto_augment: one of the 25 sub-policies of torchvision's AutoAugmentPolicy (ImageNet, CIFAR10,
    SVHN) drawn uniformly, then two uniform draws and two signs; operation i runs when its draw is at
    most its probability, at its bin of 10 over rand_augment's ranges (AutoAugment has Invert and no
    Identity).
- **Labels** follow each geometric operation in turn (`Op::motions()`: one map per warp, boxes clipped
  after each); masks go through the same warps with nearest sampling.
- **Manifest**: `ops`: every operation drawn (auto_augment: those that ran, and `sub_policy`), its
  signed magnitude and its stage's recorded parameters (the warps' forward matrices).
- Checked by `tests/stages/test_rand_augment.cpp`, `test_trivial_augment.cpp` and
  `test_auto_augment.cpp`: the bins and draw frequencies against torchvision's definitions written
  out in the tests; every operation of hundreds of drawn images rebuilt
  independently (cv::warpAffine with the matrix re-derived from torchvision's formula, or the member
  stage run alone), 0 differing values on both backends; the sub-policies' probabilities.
)md",
      .no_import = "torchvision's RandAugment; Albumentations has no such policy",
      .counterpart = {.none = "a policy runs other stages, each with its own counterpart"},
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
}  // namespace rand_augment_impl

StageType rand_augment_stage() { return stage_type<rand_augment_impl::RandAugment>(&rand_augment_impl::rand_augment_spec); }

}  // namespace aug
