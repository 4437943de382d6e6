// What the crops that cut a window without resampling share (random_crop_from_borders and the
// label-aware crops): the copy of the window on every backend, the Op that records and moves it,
// its OpenCV counterpart, and the object boxes the label-aware draws go by.
#pragma once

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "kernels/geometry/crop.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

// out = the window of `in` at (x, y), out's size: one memcpy per row on the CPU (pixels are moved,
// nothing computed), the crop kernel elsewhere.
inline void crop_window(KernelContext& ctx, const ImageRef& in, const ImageRef& out, int x, int y) {
  if (ctx.cpu()) {
    const std::size_t px = in.shape.channels * sample_size(in.shape.dtype);
    for (int r = 0; r < out.shape.height; ++r)
      std::memcpy(static_cast<char*>(out.data) + r * out.pitch,
                  static_cast<const char*>(in.data) + (r + y) * in.pitch + x * px, out.shape.row_bytes());
    return;
  }
  with_views(in, out, [&](auto src, auto dst) { k::crop(src, dst, x, y, ctx.exec()); });
}

// A w x h window at (x, y): the manifest records x, y, width, height and `drawn` (the stage's other
// resolved values); labels and masks move by (-x, -y). `drops_centres_outside`: objects whose box
// centre the window leaves out are dropped (iou_crop).
class WindowOp final : public Op {
 public:
  WindowOp(const Shape& in, int x, int y, int w, int h, nlohmann::json drawn = nlohmann::json::object(),
           bool drops_centres_outside = false)
      : Op(in, Shape{w, h, in.channels, in.dtype}), x_(x), y_(y), drawn_(std::move(drawn)), drops_(drops_centres_outside) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override { crop_window(ctx, in, out, x_, y_); }
  nlohmann::json params() const override {
    nlohmann::json j{{"x", x_}, {"y", y_}, {"width", out_shape().width}, {"height", out_shape().height}};
    j.update(drawn_);
    return j;
  }
  std::optional<Motion> motion() const override {
    return Motion{.matrix = {1, 0, static_cast<double>(-x_), 0, 1, static_cast<double>(-y_), 0, 0, 1},
                  .out_width = out_shape().width,
                  .out_height = out_shape().height,
                  .drops_centres_outside = drops_};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<WindowOp>(mask, x_, y_, out_shape().width, out_shape().height, drawn_, drops_);
  }

 private:
  int x_, y_;
  nlohmann::json drawn_;
  bool drops_;
};

// The counterpart of a WindowOp: cv::Mat::copyTo of the recorded window.
inline std::function<void()> window_copy_counterpart(const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) {
  const cv::Rect roi(m.at("x").get<int>(), m.at("y").get<int>(), m.at("width").get<int>(), m.at("height").get<int>());
  return [&dst, src, roi] { src(roi).copyTo(dst); };
}

// The boxes a label-aware draw goes by: each object's box (its polygons' bounds where it has none),
// clipped to the W x H image; empty ones left out.
inline std::vector<labels::Box> clipped_object_boxes(const DrawInputs& seen, int W, int H) {
  std::vector<labels::Box> out;
  if (!seen.labels) return out;
  for (const labels::Object& o : seen.labels->objects) {
    std::optional<labels::Box> b = o.box;
    if (!b && !o.polygons.empty()) {
      labels::Box p{1e300, 1e300, -1e300, -1e300};
      for (const labels::Polygon& poly : o.polygons)
        for (const auto& pt : poly) {
          p.x0 = std::min(p.x0, pt.x), p.y0 = std::min(p.y0, pt.y);
          p.x1 = std::max(p.x1, pt.x), p.y1 = std::max(p.y1, pt.y);
        }
      if (p.x0 <= p.x1) b = p;
    }
    if (!b) continue;
    const labels::Box c{std::clamp(b->x0, 0.0, double(W)), std::clamp(b->y0, 0.0, double(H)),
                        std::clamp(b->x1, 0.0, double(W)), std::clamp(b->y1, 0.0, double(H))};
    if (c.x1 > c.x0 && c.y1 > c.y0) out.push_back(c);
  }
  return out;
}

}  // namespace aug
