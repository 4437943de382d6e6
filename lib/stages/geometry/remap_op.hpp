// What the field warps (grid_distortion, optical_distortion) share: the Op that builds a stage's
// per-pixel map from its drawn values and runs it through the warp engine's remap (8-bit: cv::remap
// with the same two float maps, bit for bit), moving labels and masks through the same map.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/warp.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

// Fills a field's map_x / map_y (and `separable`) for its output size.
using FieldMaps = std::function<void(RemapField&)>;

// The maps are built when the Op runs (and again when labels ask for them): they are part of the
// stage's cost, as they are of the OpenCV counterpart's. The manifest gets the stage's drawn values,
// `interpolation`, `border` and `fill`.
class RemapOp final : public Op {
 public:
  RemapOp(const Shape& in, RemapField settings, std::shared_ptr<const FieldMaps> maps, nlohmann::json drawn)
      : Op(in, Shape{settings.out_width, settings.out_height, in.channels, in.dtype}),
        settings_(std::move(settings)),
        maps_(std::move(maps)),
        drawn_(std::move(drawn)) {}

  RemapField field() const {
    RemapField f = settings_;
    (*maps_)(f);
    return f;
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const RemapField f = field();
    run_remap(ctx, in, out, f);
  }

  nlohmann::json params() const override {
    nlohmann::json j = drawn_.is_object() ? drawn_ : nlohmann::json::object();
    j["interpolation"] = interp_words().name(settings_.interp);
    j["border"] = border_words().name(settings_.border);
    j["fill"] = std::vector<double>(settings_.fill.begin(), settings_.fill.begin() + in_shape().channels);
    return j;
  }

  bool moves_by_field() const override { return true; }

  std::optional<Motion> motion() const override {
    const RemapField f = field();
    const int w = f.out_width, h = f.out_height;
    auto sources = std::make_shared<std::vector<float>>(2 * static_cast<std::size_t>(w) * static_cast<std::size_t>(h));
    float* s = sources->data();
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x, s += 2) {
        s[0] = f.source_x(x, y);
        s[1] = f.source_y(x, y);
      }
    return Motion{.sources = std::move(sources), .out_width = w, .out_height = h};
  }

  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    RemapField s = settings_;
    s.interp = Interp::Nearest;
    s.fill = {fill, fill, fill, fill};
    return std::make_unique<RemapOp>(mask, s, maps_, drawn_);
  }

 private:
  RemapField settings_;
  std::shared_ptr<const FieldMaps> maps_;
  nlohmann::json drawn_;
};

// A field's settings as a stage resolves them: the input's size, then interpolation and border
// drawn in that order, and the fill.
inline RemapField remap_settings(const Shape& in, Draws& d, const Drawn<Interp>& interp, const Drawn<Border>& border,
                                 const std::array<double, 4>& fill) {
  RemapField f;
  f.out_width = in.width;
  f.out_height = in.height;
  f.interp = interp.sample(d);
  f.border = border.sample(d);
  f.fill = fill;
  return f;
}

// The same settings read back from a RemapOp's recorded parameters (`interpolation`, `border`,
// `fill`), for a `w` x `h` output: what the OpenCV counterparts start from.
inline RemapField recorded_remap_settings(const nlohmann::json& m, int w, int h) {
  RemapField f;
  f.out_width = w;
  f.out_height = h;
  f.interp = interp_words().parse(m.at("interpolation").get<std::string>());
  f.border = border_words().parse(m.at("border").get<std::string>());
  const std::vector<double> fill = m.at("fill").get<std::vector<double>>();
  for (std::size_t c = 0; c < fill.size() && c < 4; ++c) f.fill[c] = fill[c];
  return f;
}

// numpy.linspace(start, stop, num) in double (i * step + start, the last value exactly `stop`),
// each value stored as float32: how Albumentations fills its grid maps.
inline void numpy_linspace(float* out, double start, double stop, int num) {
  if (num <= 0) return;
  if (num == 1) {
    out[0] = static_cast<float>(start);
    return;
  }
  const double step = (stop - start) / static_cast<double>(num - 1);
  for (int i = 0; i < num - 1; ++i) out[i] = static_cast<float>(static_cast<double>(i) * step + start);
  out[num - 1] = static_cast<float>(stop);
}

}  // namespace aug
