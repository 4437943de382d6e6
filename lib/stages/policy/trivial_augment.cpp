// trivial_augment: torchvision's TrivialAugmentWide: one operation drawn uniformly, at a magnitude
// bin drawn uniformly, made from our stages.
#include "lib/stages/policy/policy.hpp"

namespace aug {

namespace trivial_augment_impl {
namespace {

const Param<IntegerParam> kBins = policy_bins_param("number of magnitude bins, one drawn uniformly per image: bin i of "
                                                    "an operation with maximum M is M * i / (bins - 1)");
const Choice<Interp> kInterpolation = policy_interpolation_param();
const Param<std::vector<double>> kFill = policy_fill_param();

// torchvision's TrivialAugmentWide._augmentation_space (fixed maxima, the "wide" ones).
std::vector<std::pair<PolicyOp, MagnitudeSpace>> space() {
  return augmentation_space(
      {.shear = 0.99, .translate_x = 32, .translate_y = 32, .rotate = 135, .colour = 0.99, .posterize_divisor = 6});
}

const StageSpec& trivial_augment_spec() {
  static const StageSpec spec{
      .name = "trivial_augment",
      .family = "policy",
      .summary = "torchvision's TrivialAugmentWide: one operation drawn uniformly from 14, at a random magnitude.",
      .notes = {"As torchvision's TrivialAugmentWide(num_magnitude_bins, interpolation, fill): one operation drawn "
                "uniformly from Identity, ShearX, ShearY, TranslateX, TranslateY, Rotate, Brightness, Color, Contrast, "
                "Sharpness, Posterize, Solarize, AutoContrast, Equalize; for those with a range, a bin drawn "
                "uniformly (shear 0.99, translation 32 pixels, rotation 135 degrees, the four colour factors 0.99, "
                "posterize 8 - round(i / ((bins - 1) / 6)) bits, solarize threshold 255 down to 0 on the 8-bit "
                "scale); the signed ones negated with probability 1/2.",
                "The operations are the stages rand_augment uses, with the same arguments (see `augment describe "
                "rand_augment`). The manifest records the operation, its magnitude and its stage's parameters."},
      .params = {kBins, kInterpolation, kFill},
      .tolerance = {.reason = "each operation is a stage whose backends agree exactly"},
      .example = {{"stage", "trivial_augment"}},
      .cases = {R"({})", R"({"num_magnitude_bins": 11, "interpolation": "bilinear", "fill": 128})"},
      .no_identity = "every configuration may draw an operation that changes the image",
      .bench = {R"({})"},
      .arithmetic = R"md(
The operations, their arithmetic, the labels and the manifest are [rand_augment](#rand_augment)'s. one of the same 14, at a bin drawn uniformly: shear 0.99, translation 32, rotation
135, colour factors 0.99.
)md",
      .no_import = "torchvision's TrivialAugmentWide; Albumentations has no such policy",
      .counterpart = {.none = "a policy runs other stages, each with its own counterpart"},
  };
  return spec;
}

class TrivialAugment final : public Stage {
 public:
  explicit TrivialAugment(const StageConfig& c) : bins_(static_cast<int>(c.get(kBins).lo)) {
    geometry_.interp = c.get(kInterpolation).options[0];
    geometry_.fill = warp_fill(c.get(kFill));
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    static const auto ops = space();
    const auto& [op, range] = ops[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(ops.size()) - 1))];
    double m = 0;
    if (range.kind != MagnitudeSpace::Kind::None) m = range.at(static_cast<int>(d.integer(0, bins_ - 1)), bins_);
    if (range.is_signed && d.integer(0, 1) == 1) m = -m;
    std::vector<PolicyStep> steps;
    steps.push_back(policy_step(op, m, in, geometry_, d));
    return std::make_unique<PolicyChainOp>(in, std::move(steps), nullptr);
  }

 private:
  int bins_;
  PolicyGeometry geometry_;
};

}  // namespace
}  // namespace trivial_augment_impl

StageType trivial_augment_stage() { return stage_type<trivial_augment_impl::TrivialAugment>(&trivial_augment_impl::trivial_augment_spec); }

}  // namespace aug
