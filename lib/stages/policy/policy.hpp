// What the auto-augment policies (rand_augment, trivial_augment, auto_augment) share: torchvision's
// operations at a magnitude, each made from one of our stages, and the Op that runs the operations
// drawn for an image one after the other. docs/stages/policy.md.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "lib/params/param.hpp"
#include "lib/stages/engines/vocabulary.hpp"
#include "lib/stages/geometry/warp_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

// torchvision's operation names, as its policy tables and the manifest spell them.
enum class PolicyOp {
  Identity, ShearX, ShearY, TranslateX, TranslateY, Rotate, Brightness, Color, Contrast, Sharpness,
  Posterize, Solarize, AutoContrast, Equalize, Invert
};
const Words<PolicyOp>& policy_op_words();

// An operation's magnitudes over `bins` bins and whether a drawn sign applies, as torchvision's
// _augmentation_space declares them for one policy.
struct MagnitudeSpace {
  enum class Kind { None, Linear, Posterize } kind = Kind::None;
  double lo = 0, hi = 0;  // Linear: torch.linspace(lo, hi, bins)
  double divisor = 0;     // Posterize: 8 - round(i / ((bins - 1) / divisor))
  bool is_signed = false;

  // The magnitude of bin i, as the binary32 value torch stores (then read back as a double).
  double at(int i, int bins) const;
};

// The maxima of torchvision's augmentation spaces: shear, translation in pixels (x, y), rotation
// in degrees, the colour factors, and posterize's divisor q (bits 8 - round(i / ((bins - 1) / q))).
struct SpaceMaxima {
  double shear, translate_x, translate_y, rotate, colour, posterize_divisor;
};
// torchvision's 14 operations with their magnitude ranges, in the order of its _augmentation_space
// (Identity, ShearX, ShearY, TranslateX, TranslateY, Rotate, Brightness, Color, Contrast, Sharpness,
// Posterize, Solarize, AutoContrast, Equalize); Solarize runs from 255 down to 0.
std::vector<std::pair<PolicyOp, MagnitudeSpace>> augmentation_space(const SpaceMaxima& m);
// RandAugment's maxima, which AutoAugment shares: shear 0.3, translations 150/331 of the image's
// width or height, rotation 30, colour factors 0.9, posterize divisor 4.
SpaceMaxima rand_augment_maxima(const Shape& in);

// The settings every policy passes to its geometric operations (torchvision's interpolation and fill).
struct PolicyGeometry {
  Interp interp = Interp::Nearest;
  std::array<double, 4> fill{0, 0, 0, 0};
};

// One operation drawn for an image: its name, its signed magnitude and the Op that runs it (null
// for Identity).
struct PolicyStep {
  PolicyOp op = PolicyOp::Identity;
  double magnitude = 0;
  std::unique_ptr<Op> run;
};

// torchvision's _apply_op(op, magnitude) on an image of shape `in`, made from our stages: the
// shears, translations and rotation as warps (torchvision's affine matrices), the rest as the
// colour stages with fixed parameters. `d` serves the member stages' own draws.
PolicyStep policy_step(PolicyOp op, double magnitude, const Shape& in, const PolicyGeometry& g, Draws& d);

// The shared parameters and their declarations.
Choice<Interp> policy_interpolation_param();
Param<std::vector<double>> policy_fill_param();
Param<IntegerParam> policy_bins_param(const char* doc);

// Runs the drawn operations one after the other (every one keeps the image's size); records them
// in the manifest as "ops": [{"op", "magnitude", "params"}], after `extra`'s keys.
class PolicyChainOp final : public Op {
 public:
  PolicyChainOp(const Shape& in, std::vector<PolicyStep> steps, nlohmann::json extra);

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override;
  nlohmann::json params() const override;
  std::vector<Motion> motions() const override;
  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override;

 private:
  std::vector<PolicyStep> steps_;
  nlohmann::json extra_;
};

}  // namespace aug
