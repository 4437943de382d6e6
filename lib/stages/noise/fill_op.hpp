// The Op random_erasing and coarse_dropout share: rectangles filled with a constant (a fraction of
// the range, one value or one per colour channel) or with per-pixel normal noise.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "kernels/noise/fill_rects.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

struct Rect {
  int x0, y0, x1, y1;  // half-open
};

class FillRectsOp final : public Op {
 public:
  // `fill`: one value or one per colour channel (fractions of the range); `random`: normal noise instead.
  FillRectsOp(const Shape& s, std::vector<Rect> rects, std::vector<double> fill, bool random,
              const k::KeyedStream& stream)
      : Op(s, s), rects_(std::move(rects)), fill_(std::move(fill)), random_(random), stream_(stream) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (rects_.empty()) return copy_image(ctx, in, out);
    k::FillArgs a;
    std::vector<int> flat;
    for (const Rect& r : rects_) flat.insert(flat.end(), {r.x0, r.y0, r.x1, r.y1});
    a.rects = ctx.table(flat);
    a.count = static_cast<int>(rects_.size());
    a.color_channels = color_channels(in.shape);
    a.random = random_;
    a.stream = stream_;
    if (random_) a.normal = ctx.table(normal_table());
    for (int c = 0; c < a.color_channels; ++c) {
      const double f = fill_[std::min(fill_.size() - 1, static_cast<std::size_t>(c))];  // the last repeats
      a.fill[c] = in.shape.dtype == DType::F32
                      ? static_cast<float>(f)
                      : static_cast<float>(std::nearbyint(f * (in.shape.dtype == DType::U8 ? 255.0 : 65535.0)));
    }
    with_views(in, out, [&](auto src, auto dst) { k::fill_rects(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json rects = nlohmann::json::array();
    for (const Rect& r : rects_) rects.push_back({r.x0, r.y0, r.x1 - r.x0, r.y1 - r.y0});
    nlohmann::json j{{"rects", rects}};
    if (random_) j["value"] = "random";
    else j["value"] = fill_;
    return j;
  }

  const std::vector<Rect>& rects() const { return rects_; }

 private:
  std::vector<Rect> rects_;
  std::vector<double> fill_;
  bool random_;
  k::KeyedStream stream_;
};

}  // namespace aug
