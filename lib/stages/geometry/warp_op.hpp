// What rotate, affine and perspective share: the Op that runs a resolved Warp (the warp engine,
// lib/stages/engines/warp.hpp) and records it, and torchvision's affine matrix.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <cmath>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/warp.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

// torchvision's rotation-and-shear block [[a, b], [c, d]] (angle and shears in degrees), as
// _get_inverse_affine_matrix computes it.
inline std::array<double, 4> torchvision_rotation_shear(double angle, double shear_x, double shear_y) {
  constexpr double kPi = 3.14159265358979323846;
  const double rot = angle * kPi / 180.0, sx = shear_x * kPi / 180.0, sy = shear_y * kPi / 180.0;
  const double a = std::cos(rot - sy) / std::cos(sy);
  const double b = -std::cos(rot - sy) * std::tan(sx) / std::cos(sy) - std::sin(rot);
  const double c = std::sin(rot - sy) / std::cos(sy);
  const double d = -std::sin(rot - sy) * std::tan(sx) / std::cos(sy) + std::cos(rot);
  return {a, b, c, d};
}

// The forward matrix (input pixel -> output pixel, pixel centres at integers) of torchvision's
// _get_inverse_affine_matrix(center, angle, translate, scale, shear, inverted=False): translate ·
// centre · rotate · scale · shear-y · shear-x · centre⁻¹, angle and shears in degrees, the angle
// positive clockwise on screen (y down), as torchvision's affine takes it; rotate passes -angle.
// With a scale per axis (scale_x, scale_y), the scale is diag(scale_x, scale_y) applied first, before
// the shears (for one scale that is the same matrix, entry for entry).
inline std::array<double, 9> torchvision_affine_forward(double cx, double cy, double angle, double tx, double ty,
                                                        double scale_x, double scale_y, double shear_x,
                                                        double shear_y) {
  const auto [a, b, c, d] = torchvision_rotation_shear(angle, shear_x, shear_y);
  std::array<double, 9> m{a * scale_x, b * scale_y, 0.0, c * scale_x, d * scale_y, 0.0, 0.0, 0.0, 1.0};
  m[2] += m[0] * -cx + m[1] * -cy;
  m[5] += m[3] * -cx + m[4] * -cy;
  m[2] += cx + tx;
  m[5] += cy + ty;
  return m;
}
inline std::array<double, 9> torchvision_affine_forward(double cx, double cy, double angle, double tx, double ty,
                                                        double scale, double shear_x, double shear_y) {
  return torchvision_affine_forward(cx, cy, angle, tx, ty, scale, scale, shear_x, shear_y);
}

// The inverse (output -> input) matrix of the same call with inverted=True, as torchvision computes it.
inline std::array<double, 9> torchvision_affine_inverse(double cx, double cy, double angle, double tx, double ty,
                                                        double scale, double shear_x, double shear_y) {
  const auto [a, b, c, d] = torchvision_rotation_shear(angle, shear_x, shear_y);
  std::array<double, 9> m{d / scale, -b / scale, 0.0, -c / scale, a / scale, 0.0, 0.0, 0.0, 1.0};
  m[2] += m[0] * (-cx - tx) + m[1] * (-cy - ty);
  m[5] += m[3] * (-cx - tx) + m[4] * (-cy - ty);
  m[2] += cx;
  m[5] += cy;
  return m;
}

// The parameters every warp stage takes, declared here once.
inline Choice<Interp> warp_interpolation_param() {
  return interpolation_param({Interp::Nearest, Interp::Bilinear, Interp::Bicubic}, Interp::Bilinear,
                             "how output pixels sample the input");
}
inline Choice<Border> warp_border_param() {
  return border_param({Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap},
                      Border::Constant, "what output pixels mapped outside the input read");
}
// rotate's and affine's `center`, in input pixel coordinates (pixel centres at integers).
inline Param<NumberPair> warp_center_param(std::string doc) {
  return Param<NumberPair>({.name = "center",
                            .doc = std::move(doc),
                            .optional = true,
                            .min = Bound{-65536},
                            .max = Bound{65536},
                            .elements = "[x, y]"});
}

inline bool is_identity_warp(const Warp& w, const Shape& in) {
  return w.matrix == std::array<double, 9>{1, 0, 0, 0, 1, 0, 0, 0, 1} && w.out_width == in.width &&
         w.out_height == in.height;
}

// Runs a Warp; the manifest gets the forward `matrix` (row-major 3x3, what cv::warpAffine's first two
// rows / cv::warpPerspective take without WARP_INVERSE_MAP), `width`, `height`, `interpolation`,
// `border`, `fill` (per channel, as the warp used it) and, first, the stage's drawn values.
class WarpOp final : public Op {
 public:
  WarpOp(const Shape& in, const Warp& w, nlohmann::json drawn)
      : Op(in, Shape{w.out_width, w.out_height, in.channels, in.dtype}), w_(w), drawn_(std::move(drawn)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (is_identity_warp(w_, in.shape)) return copy_image(ctx, in, out);
    run_warp(ctx, in, out, w_);
  }

  nlohmann::json params() const override {
    nlohmann::json j = drawn_.is_object() ? drawn_ : nlohmann::json::object();
    j["matrix"] = w_.matrix;
    j["width"] = w_.out_width;
    j["height"] = w_.out_height;
    j["interpolation"] = interp_words().name(w_.interp);
    j["border"] = border_words().name(w_.border);
    std::vector<double> fill(w_.fill.begin(), w_.fill.begin() + in_shape().channels);
    j["fill"] = fill;
    return j;
  }

  const Warp& warp() const { return w_; }

  std::optional<Motion> motion() const override {
    return Motion{.matrix = w_.matrix, .out_width = w_.out_width, .out_height = w_.out_height};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    Warp w = w_;
    w.interp = Interp::Nearest;
    w.fill = {fill, fill, fill, fill};
    return std::make_unique<WarpOp>(mask, w, drawn_);
  }

 private:
  Warp w_;
  nlohmann::json drawn_;
};

// The Warp's fill from the `fill` parameter (the last value repeats over the channels).
inline std::array<double, 4> warp_fill(const std::vector<double>& fill) {
  std::array<double, 4> f{};
  for (int c = 0; c < 4; ++c) f[static_cast<std::size_t>(c)] = fill_for_channel(fill, c);
  return f;
}

// The benchmark counterpart of the three warps: cv::warpAffine with the recorded matrix, or
// cv::warpPerspective when it is projective, with the same size, interpolation, border and fill.
inline Counterpart warp_counterpart() {
  return {.call = "cv::warpAffine (cv::warpPerspective for a projective matrix)",
          .how = "the recorded matrix, output size, interpolation, border and fill",
          .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
            const auto a = m.at("matrix").get<std::array<double, 9>>();
            const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
            const std::vector<double> f = m.at("fill").get<std::vector<double>>();
            cv::Scalar fill;
            for (std::size_t c = 0; c < f.size() && c < 4; ++c) fill[static_cast<int>(c)] = f[c];
            const int interp = cv_warp_interpolation(interp_words().parse(m.at("interpolation").get<std::string>()));
            const int border = cv_border(m.at("border").get<std::string>());
            if (a[6] == 0 && a[7] == 0 && a[8] == 1)
              return [&dst, src, a, size, interp, border, fill] {
                cv::warpAffine(src, dst, cv::Mat(2, 3, CV_64F, const_cast<double*>(a.data())), size, interp, border,
                               fill);
              };
            return [&dst, src, a, size, interp, border, fill] {
              cv::warpPerspective(src, dst, cv::Mat(3, 3, CV_64F, const_cast<double*>(a.data())), size, interp,
                                  border, fill);
            };
          }};
}

}  // namespace aug
