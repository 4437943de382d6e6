#include "lib/stages/policy/policy.hpp"

#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "lib/params/config.hpp"

namespace aug {

const Words<PolicyOp>& policy_op_words() {
  static const Words<PolicyOp> words{{{PolicyOp::Identity, "Identity"},
                                      {PolicyOp::ShearX, "ShearX"},
                                      {PolicyOp::ShearY, "ShearY"},
                                      {PolicyOp::TranslateX, "TranslateX"},
                                      {PolicyOp::TranslateY, "TranslateY"},
                                      {PolicyOp::Rotate, "Rotate"},
                                      {PolicyOp::Brightness, "Brightness"},
                                      {PolicyOp::Color, "Color"},
                                      {PolicyOp::Contrast, "Contrast"},
                                      {PolicyOp::Sharpness, "Sharpness"},
                                      {PolicyOp::Posterize, "Posterize"},
                                      {PolicyOp::Solarize, "Solarize"},
                                      {PolicyOp::AutoContrast, "AutoContrast"},
                                      {PolicyOp::Equalize, "Equalize"},
                                      {PolicyOp::Invert, "Invert"}}};
  return words;
}

double MagnitudeSpace::at(int i, int bins) const {
  switch (kind) {
    case Kind::None: return 0.0;
    case Kind::Linear: {
      // The exact linspace value rounded to binary32, torch's storage type. torch computes it in
      // binary32 (start + step * i, or end - step * (steps - 1 - i) past the middle), which can
      // land an ulp away; no pixel of these operations depends on that ulp in practice.
      const double v = bins == 1 ? lo : lo + (hi - lo) * i / (bins - 1);
      return static_cast<double>(static_cast<float>(v));
    }
    case Kind::Posterize: {
      // torch: (arange(bins) / ((bins - 1) / divisor)).round() in binary32, half to even.
      const float q = static_cast<float>(i) / static_cast<float>((bins - 1) / divisor);
      return 8.0 - static_cast<double>(std::nearbyint(q));
    }
  }
  return 0.0;
}

std::vector<std::pair<PolicyOp, MagnitudeSpace>> augmentation_space(const SpaceMaxima& m) {
  using K = MagnitudeSpace::Kind;
  const MagnitudeSpace none{}, shear{K::Linear, 0, m.shear, 0, true}, colour{K::Linear, 0, m.colour, 0, true};
  return {{PolicyOp::Identity, none},
          {PolicyOp::ShearX, shear},
          {PolicyOp::ShearY, shear},
          {PolicyOp::TranslateX, {K::Linear, 0, m.translate_x, 0, true}},
          {PolicyOp::TranslateY, {K::Linear, 0, m.translate_y, 0, true}},
          {PolicyOp::Rotate, {K::Linear, 0, m.rotate, 0, true}},
          {PolicyOp::Brightness, colour},
          {PolicyOp::Color, colour},
          {PolicyOp::Contrast, colour},
          {PolicyOp::Sharpness, colour},
          {PolicyOp::Posterize, {K::Posterize, 0, 0, m.posterize_divisor, false}},
          {PolicyOp::Solarize, {K::Linear, 255, 0, 0, false}},
          {PolicyOp::AutoContrast, none},
          {PolicyOp::Equalize, none}};
}

SpaceMaxima rand_augment_maxima(const Shape& in) {
  return {.shear = 0.3,
          .translate_x = 150.0 / 331.0 * in.width,
          .translate_y = 150.0 / 331.0 * in.height,
          .rotate = 30,
          .colour = 0.9,
          .posterize_divisor = 4};
}

Choice<Interp> policy_interpolation_param() {
  return interpolation_param({Interp::Nearest, Interp::Bilinear}, Interp::Nearest,
                             "how the shears, translations and rotations sample (torchvision's default: nearest)",
                             /*random=*/false);
}
Param<std::vector<double>> policy_fill_param() { return fill_param(); }
Param<IntegerParam> policy_bins_param(const char* doc) {
  return Param<IntegerParam>({.name = "num_magnitude_bins",
                              .doc = doc,
                              .default_value = 31,
                              .min = Bound{2},
                              .max = Bound{1000}});
}

namespace {

// One of our stages with fixed parameters, resolved for this image.
std::unique_ptr<Op> member(const char* stage, const nlohmann::json& params, const Shape& in, Draws& d) {
  const StageType* type = find_stage_type(stage);
  if (!type) throw std::logic_error(std::string("policy member stage missing: ") + stage);
  const StageConfig config = parse_params(type->spec(), params, Location{"(policy)", ""}, {});
  return type->make(config)->resolve(d, in);
}

std::unique_ptr<Op> warp(const Shape& in, const PolicyGeometry& g, const std::array<double, 9>& matrix,
                         nlohmann::json drawn) {
  Warp w;
  w.matrix = matrix;
  w.interp = g.interp;
  w.border = Border::Constant;
  w.fill = g.fill;
  w.out_width = in.width;
  w.out_height = in.height;
  return std::make_unique<WarpOp>(in, w, std::move(drawn));
}

double degrees(double radians) { return radians * 180.0 / 3.14159265358979323846; }

}  // namespace

PolicyStep policy_step(PolicyOp op, double m, const Shape& in, const PolicyGeometry& g, Draws& d) {
  PolicyStep s{op, m, nullptr};
  // Shears turn about torchvision's centre [0, 0], the top-left corner of the first pixel: -0.5
  // in our pixel-centre coordinates. Translations and the rotation use the image centre.
  const double cx = (in.width - 1) * 0.5, cy = (in.height - 1) * 0.5;
  switch (op) {
    case PolicyOp::Identity: break;
    case PolicyOp::ShearX:
      s.run = warp(in, g, torchvision_affine_forward(-0.5, -0.5, 0, 0, 0, 1, degrees(std::atan(m)), 0), nullptr);
      break;
    case PolicyOp::ShearY:
      s.run = warp(in, g, torchvision_affine_forward(-0.5, -0.5, 0, 0, 0, 1, 0, degrees(std::atan(m))), nullptr);
      break;
    case PolicyOp::TranslateX:  // int(magnitude): truncated toward zero
      s.run = warp(in, g, torchvision_affine_forward(cx, cy, 0, std::trunc(m), 0, 1, 0, 0), nullptr);
      break;
    case PolicyOp::TranslateY:
      s.run = warp(in, g, torchvision_affine_forward(cx, cy, 0, 0, std::trunc(m), 1, 0, 0), nullptr);
      break;
    case PolicyOp::Rotate:  // torchvision's rotate: counter-clockwise, its affine of -angle
      s.run = warp(in, g, torchvision_affine_forward(cx, cy, -m, 0, 0, 1, 0, 0), nullptr);
      break;
    case PolicyOp::Brightness:
      s.run = member("color_jitter", {{"brightness", {1.0 + m, 1.0 + m}}}, in, d);
      break;
    case PolicyOp::Color:
      s.run = member("color_jitter", {{"saturation", {1.0 + m, 1.0 + m}}}, in, d);
      break;
    case PolicyOp::Contrast:
      s.run = member("color_jitter", {{"contrast", {1.0 + m, 1.0 + m}}}, in, d);
      break;
    case PolicyOp::Sharpness: s.run = member("sharpness", {{"factor", 1.0 + m}}, in, d); break;
    case PolicyOp::Posterize:
      s.run = member("posterize", {{"bits", static_cast<long long>(std::trunc(m))}}, in, d);
      break;
    case PolicyOp::Solarize:  // a threshold on the 8-bit scale, as a fraction of the range
      s.run = member("solarize", {{"threshold", m / 255.0}}, in, d);
      break;
    case PolicyOp::AutoContrast: s.run = member("autocontrast", nlohmann::json::object(), in, d); break;
    case PolicyOp::Equalize: s.run = member("equalize", nlohmann::json::object(), in, d); break;
    case PolicyOp::Invert: s.run = member("invert", nlohmann::json::object(), in, d); break;
  }
  return s;
}

PolicyChainOp::PolicyChainOp(const Shape& in, std::vector<PolicyStep> steps, nlohmann::json extra)
    : Op(in, in), steps_(std::move(steps)), extra_(std::move(extra)) {
  for (const PolicyStep& s : steps_)
    if (s.run && !(s.run->out_shape() == in)) throw std::logic_error("a policy operation changed the image size");
}

void PolicyChainOp::run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const {
  std::vector<const Op*> ops;
  for (const PolicyStep& s : steps_)
    if (s.run) ops.push_back(s.run.get());
  if (ops.empty()) return copy_image(ctx, in, out);
  // Intermediate images alternate between two scratch planes on the executing device.
  ImageRef planes[2];
  ImageRef cur = in;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    ImageRef dst = out;
    if (i + 1 < ops.size()) {
      ImageRef& p = planes[i % 2];
      if (!p.data) {
        p.shape = in.shape;
        p.pitch = in.shape.row_bytes();
        p.data = ctx.scratch(p.pitch * static_cast<std::size_t>(in.shape.height));
      }
      dst = p;
    }
    ops[i]->run(ctx, cur, dst);
    cur = dst;
  }
}

nlohmann::json PolicyChainOp::params() const {
  nlohmann::json j = extra_.is_object() ? extra_ : nlohmann::json::object();
  nlohmann::json ops = nlohmann::json::array();
  for (const PolicyStep& s : steps_) {
    nlohmann::json o{{"op", policy_op_words().name(s.op)}, {"magnitude", s.magnitude}};
    if (s.run) o["params"] = s.run->params();
    ops.push_back(std::move(o));
  }
  j["ops"] = std::move(ops);
  return j;
}

std::vector<Motion> PolicyChainOp::motions() const {
  std::vector<Motion> all;
  for (const PolicyStep& s : steps_)
    if (s.run)
      for (Motion& m : s.run->motions()) all.push_back(std::move(m));
  return all;
}

std::unique_ptr<Op> PolicyChainOp::for_mask(const Shape& mask, double fill) const {
  std::vector<PolicyStep> moved;
  for (const PolicyStep& s : steps_)
    if (s.run)
      if (auto m = s.run->for_mask(mask, fill)) moved.push_back(PolicyStep{s.op, s.magnitude, std::move(m)});
  if (moved.empty()) return nullptr;
  return std::make_unique<PolicyChainOp>(mask, std::move(moved), nullptr);
}

}  // namespace aug
