// auto_augment: torchvision's AutoAugment: one of the 25 learned sub-policies of its dataset (each
// two operations with a probability and a magnitude bin), made from our stages.
#include <array>

#include "lib/stages/policy/policy.hpp"

namespace aug {

namespace auto_augment_impl {
namespace {

enum class Policy { ImageNet, Cifar10, Svhn };
const Words<Policy> kPolicies{{{Policy::ImageNet, "imagenet"}, {Policy::Cifar10, "cifar10"}, {Policy::Svhn, "svhn"}}};
const Choice<Policy> kPolicy{kPolicies,
                             {},
                             Policy::ImageNet,
                             {.name = "policy", .doc = "the dataset whose learned sub-policies are drawn from"}};
const Choice<Interp> kInterpolation = policy_interpolation_param();
const Param<std::vector<double>> kFill = policy_fill_param();

// One operation of a sub-policy: applied with probability p, at magnitude bin `bin` of 10 (-1:
// the operation takes no magnitude).
struct Entry {
  PolicyOp op;
  double p;
  int bin;
};
using SubPolicy = std::array<Entry, 2>;

// The sub-policies torchvision's AutoAugment lists for each dataset (AutoAugmentPolicy).
const std::vector<SubPolicy>& sub_policies(Policy policy) {
  using enum PolicyOp;
  static const std::vector<SubPolicy> imagenet{
      {{{Posterize, 0.4, 8}, {Rotate, 0.6, 9}}},        {{{Solarize, 0.6, 5}, {AutoContrast, 0.6, -1}}},
      {{{Equalize, 0.8, -1}, {Equalize, 0.6, -1}}},     {{{Posterize, 0.6, 7}, {Posterize, 0.6, 6}}},
      {{{Equalize, 0.4, -1}, {Solarize, 0.2, 4}}},      {{{Equalize, 0.4, -1}, {Rotate, 0.8, 8}}},
      {{{Solarize, 0.6, 3}, {Equalize, 0.6, -1}}},      {{{Posterize, 0.8, 5}, {Equalize, 1.0, -1}}},
      {{{Rotate, 0.2, 3}, {Solarize, 0.6, 8}}},         {{{Equalize, 0.6, -1}, {Posterize, 0.4, 6}}},
      {{{Rotate, 0.8, 8}, {Color, 0.4, 0}}},            {{{Rotate, 0.4, 9}, {Equalize, 0.6, -1}}},
      {{{Equalize, 0.0, -1}, {Equalize, 0.8, -1}}},     {{{Invert, 0.6, -1}, {Equalize, 1.0, -1}}},
      {{{Color, 0.6, 4}, {Contrast, 1.0, 8}}},          {{{Rotate, 0.8, 8}, {Color, 1.0, 2}}},
      {{{Color, 0.8, 8}, {Solarize, 0.8, 7}}},          {{{Sharpness, 0.4, 7}, {Invert, 0.6, -1}}},
      {{{ShearX, 0.6, 5}, {Equalize, 1.0, -1}}},        {{{Color, 0.4, 0}, {Equalize, 0.6, -1}}},
      {{{Equalize, 0.4, -1}, {Solarize, 0.2, 4}}},      {{{Solarize, 0.6, 5}, {AutoContrast, 0.6, -1}}},
      {{{Invert, 0.6, -1}, {Equalize, 1.0, -1}}},       {{{Color, 0.6, 4}, {Contrast, 1.0, 8}}},
      {{{Equalize, 0.8, -1}, {Equalize, 0.6, -1}}},
  };
  static const std::vector<SubPolicy> cifar10{
      {{{Invert, 0.1, -1}, {Contrast, 0.2, 6}}},        {{{Rotate, 0.7, 2}, {TranslateX, 0.3, 9}}},
      {{{Sharpness, 0.8, 1}, {Sharpness, 0.9, 3}}},     {{{ShearY, 0.5, 8}, {TranslateY, 0.7, 9}}},
      {{{AutoContrast, 0.5, -1}, {Equalize, 0.9, -1}}}, {{{ShearY, 0.2, 7}, {Posterize, 0.3, 7}}},
      {{{Color, 0.4, 3}, {Brightness, 0.6, 7}}},        {{{Sharpness, 0.3, 9}, {Brightness, 0.7, 9}}},
      {{{Equalize, 0.6, -1}, {Equalize, 0.5, -1}}},     {{{Contrast, 0.6, 7}, {Sharpness, 0.6, 5}}},
      {{{Color, 0.7, 7}, {TranslateX, 0.5, 8}}},        {{{Equalize, 0.3, -1}, {AutoContrast, 0.4, -1}}},
      {{{TranslateY, 0.4, 3}, {Sharpness, 0.2, 6}}},    {{{Brightness, 0.9, 6}, {Color, 0.2, 8}}},
      {{{Solarize, 0.5, 2}, {Invert, 0.0, -1}}},        {{{Equalize, 0.2, -1}, {AutoContrast, 0.6, -1}}},
      {{{Equalize, 0.2, -1}, {Equalize, 0.6, -1}}},     {{{Color, 0.9, 9}, {Equalize, 0.6, -1}}},
      {{{AutoContrast, 0.8, -1}, {Solarize, 0.2, 8}}},  {{{Brightness, 0.1, 3}, {Color, 0.7, 0}}},
      {{{Solarize, 0.4, 5}, {AutoContrast, 0.9, -1}}},  {{{TranslateY, 0.9, 9}, {TranslateY, 0.7, 9}}},
      {{{AutoContrast, 0.9, -1}, {Solarize, 0.8, 3}}},  {{{Equalize, 0.8, -1}, {Invert, 0.1, -1}}},
      {{{TranslateY, 0.7, 9}, {AutoContrast, 0.9, -1}}},
  };
  static const std::vector<SubPolicy> svhn{
      {{{ShearX, 0.9, 4}, {Invert, 0.2, -1}}},          {{{ShearY, 0.9, 8}, {Invert, 0.7, -1}}},
      {{{Equalize, 0.6, -1}, {Solarize, 0.6, 6}}},      {{{Invert, 0.9, -1}, {Equalize, 0.6, -1}}},
      {{{Equalize, 0.6, -1}, {Rotate, 0.9, 3}}},        {{{ShearX, 0.9, 4}, {AutoContrast, 0.8, -1}}},
      {{{ShearY, 0.9, 8}, {Invert, 0.4, -1}}},          {{{ShearY, 0.9, 5}, {Solarize, 0.2, 6}}},
      {{{Invert, 0.9, -1}, {AutoContrast, 0.8, -1}}},   {{{Equalize, 0.6, -1}, {Rotate, 0.9, 3}}},
      {{{ShearX, 0.9, 4}, {Solarize, 0.3, 3}}},         {{{ShearY, 0.8, 8}, {Invert, 0.7, -1}}},
      {{{Equalize, 0.9, -1}, {TranslateY, 0.6, 6}}},    {{{Invert, 0.9, -1}, {Equalize, 0.6, -1}}},
      {{{Contrast, 0.3, 3}, {Rotate, 0.8, 4}}},         {{{Invert, 0.8, -1}, {TranslateY, 0.0, 2}}},
      {{{ShearY, 0.7, 6}, {Solarize, 0.4, 8}}},         {{{Invert, 0.6, -1}, {Rotate, 0.8, 4}}},
      {{{ShearY, 0.3, 7}, {TranslateX, 0.9, 3}}},       {{{ShearX, 0.1, 6}, {Invert, 0.6, -1}}},
      {{{Solarize, 0.7, 2}, {TranslateY, 0.6, 7}}},     {{{ShearY, 0.8, 4}, {Invert, 0.8, -1}}},
      {{{ShearX, 0.7, 9}, {TranslateY, 0.8, 3}}},       {{{ShearY, 0.8, 5}, {AutoContrast, 0.7, -1}}},
      {{{ShearX, 0.7, 2}, {Invert, 0.1, -1}}},
  };
  switch (policy) {
    case Policy::ImageNet: return imagenet;
    case Policy::Cifar10: return cifar10;
    case Policy::Svhn: return svhn;
  }
  return imagenet;
}

// torchvision's AutoAugment._augmentation_space over 10 bins: RandAugment's ranges (Invert takes
// no magnitude).
MagnitudeSpace range_of(PolicyOp op, const Shape& in) {
  for (const auto& [o, range] : augmentation_space(rand_augment_maxima(in)))
    if (o == op) return range;
  return {};
}

const StageSpec& auto_augment_spec() {
  static const StageSpec spec{
      .name = "auto_augment",
      .family = "policy",
      .summary = "torchvision's AutoAugment: one of 25 learned sub-policies (ImageNet, CIFAR-10 or SVHN) per image.",
      .notes = {"As torchvision's AutoAugment(policy, interpolation, fill): per image one of the policy's 25 "
                "sub-policies drawn uniformly, then two uniform draws and two signs; each of its two operations "
                "runs when its draw is at most its probability, at its magnitude bin of 10 (the ranges of "
                "rand_augment: shear 0.3, translation 150/331 of the width or height, rotation 30 degrees, colour "
                "factors 0.9, posterize 8 - round(i / 2.25) bits, solarize 255 down to 0), negated when its sign "
                "draw is 0 for the signed ones.",
                "The operations (AutoAugment adds Invert and has no Identity) are the stages rand_augment uses, with "
                "the same arguments (see `augment describe rand_augment`). The manifest records the sub-policy's "
                "index and the operations that ran, with their magnitudes and their stages' parameters."},
      .params = {kPolicy, kInterpolation, kFill},
      .tolerance = {.reason = "each operation is a stage whose backends agree exactly"},
      .example = {{"stage", "auto_augment"}, {"policy", "imagenet"}},
      .cases = {R"({"policy": "imagenet"})", R"({"policy": "cifar10"})",
                R"({"policy": "svhn", "interpolation": "bilinear", "fill": [255, 0, 128]})"},
      .no_identity = "every policy may draw operations that change the image",
      .bench = {R"({"policy": "imagenet"})"},
      .arithmetic = R"md(
The operations, their arithmetic, the labels and the manifest are [rand_augment](#rand_augment)'s. one of the 25 sub-policies of torchvision's AutoAugmentPolicy (ImageNet, CIFAR10,
SVHN) drawn uniformly, then two uniform draws and two signs; operation i runs when its draw is at
most its probability, at its bin of 10 over rand_augment's ranges (AutoAugment has Invert and no
Identity).
)md",
      .no_import = "torchvision's AutoAugment; Albumentations has no learned policies",
      .counterpart = {.none = "a policy runs other stages, each with its own counterpart"},
  };
  return spec;
}

class AutoAugment final : public Stage {
 public:
  explicit AutoAugment(const StageConfig& c) : policy_(c.get(kPolicy).options[0]) {
    geometry_.interp = c.get(kInterpolation).options[0];
    geometry_.fill = warp_fill(c.get(kFill));
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    // torchvision's get_params: the sub-policy, two probabilities, two signs, drawn first.
    const std::vector<SubPolicy>& all = sub_policies(policy_);
    const auto index = d.integer(0, static_cast<std::int64_t>(all.size()) - 1);
    const double u[2] = {d.uniform(), d.uniform()};
    const std::int64_t sign[2] = {d.integer(0, 1), d.integer(0, 1)};
    std::vector<PolicyStep> steps;
    for (int i = 0; i < 2; ++i) {
      const Entry& e = all[static_cast<std::size_t>(index)][static_cast<std::size_t>(i)];
      if (!(u[i] <= e.p)) continue;
      const MagnitudeSpace range = range_of(e.op, in);
      double m = e.bin >= 0 ? range.at(e.bin, 10) : 0.0;
      if (range.is_signed && sign[i] == 0) m = -m;
      steps.push_back(policy_step(e.op, m, in, geometry_, d));
    }
    return std::make_unique<PolicyChainOp>(in, std::move(steps), nlohmann::json{{"sub_policy", index}});
  }

 private:
  Policy policy_;
  PolicyGeometry geometry_;
};

}  // namespace
}  // namespace auto_augment_impl

StageType auto_augment_stage() { return stage_type<auto_augment_impl::AutoAugment>(&auto_augment_impl::auto_augment_spec); }

}  // namespace aug
