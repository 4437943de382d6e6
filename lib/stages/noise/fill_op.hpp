// What random_erasing, coarse_dropout and grid_dropout share: the Op (rectangles filled with a
// constant, a fraction of the range, one value or one per colour channel, or with per-pixel normal
// noise), the benchmark's counterpart of it, and the import of Albumentations' fill in pixels.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "kernels/noise/fill_rects.hpp"
#include "lib/params/import.hpp"
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
    if (!ctx.exec().cpu) {  // the kernels look pixels up in row spans; the host driver fills the rectangles
      std::vector<int> row_start, spans;
      k::fill_row_spans(flat.data(), a.count, in.shape.width, in.shape.height, row_start, spans);
      if (spans.empty()) spans = {0, 0};  // every rectangle off the image: a table is never empty
      a.row_start = ctx.table(row_start);
      a.spans = ctx.table(spans);
    }
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

// The benchmark's counterpart (Counterpart::make) of a FillRectsOp: a copy, then cv::Mat::setTo
// per rectangle with the 8-bit fill; none for a random fill.
inline std::function<void()> fill_rects_counterpart(const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) {
  if (!m.at("value").is_array()) return {};
  std::vector<cv::Rect> rects;
  for (const auto& r : m.at("rects"))
    rects.emplace_back(r[0].get<int>(), r[1].get<int>(), r[2].get<int>(), r[3].get<int>());
  const auto v = m.at("value").get<std::vector<double>>();
  cv::Scalar fill;
  for (int c = 0; c < 4; ++c) fill[c] = std::nearbyint(v[std::min<std::size_t>(v.size() - 1, c)] * 255.0);
  return [&dst, src, rects, fill] {
    src.copyTo(dst);
    for (const cv::Rect& r : rects) dst(r).setTo(fill);
  };
}

// Albumentations' fill under `key`, when given (pixels: a number or one per channel), into the
// stage's "fill" as fractions of 255.
inline void import_fill_in_pixels(const TransformReader& t, ojson& stage, const char* key) {
  if (!t.has(key)) return;
  const nlohmann::json& v = t.saved().at(key);
  if (v.is_number()) {
    stage["fill"] = v.get<double>() / 255.0;
  } else if (v.is_array()) {
    ojson f = ojson::array();
    for (const nlohmann::json& e : v) f.push_back(e.get<double>() / 255.0);
    stage["fill"] = f;
  } else {
    t.fail(std::string(key) + " \"" + v.dump() + "\" has no stage equivalent (a number or one per channel)");
  }
}

}  // namespace aug
