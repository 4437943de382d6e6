// What the label-aware stages' tests share: photographs with objects drawn on them (filled
// rectangles and triangles in colours no photograph has, with their boxes, polygons and a label
// map), a run of a pipeline whose draws see those labels on both backends, and the objects found
// again in the output's pixels, to hold the moved labels against.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/rng.hpp"
#include "lib/datasets/apply.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/labels/labels.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::testing::labelled {

using Colour = std::array<std::uint8_t, 3>;

// Saturated colours far apart from each other (and from the greys and browns of the photographs).
inline const std::vector<Colour> kColours{{255, 0, 0},   {0, 255, 0},   {0, 0, 255},   {255, 0, 255},
                                          {0, 255, 255}, {255, 255, 0}, {128, 0, 255}, {255, 128, 0}};

struct Drawn {
  Image image;                  // 8-bit RGB
  labels::ImageLabels labels;   // object i has colour kColours[i]
  Image mask;                   // 8-bit label map: object i's pixels are i + 1, the rest 0
  std::vector<Colour> colours;  // per object
};

// Draws `count` (<= 8) objects on a copy of an 8-bit RGB photograph, placed and sized by `seed`, none
// overlapping: even ones filled rectangles (box and a 4-point polygon), odd ones filled triangles
// (polygon; the box encloses it). Sides are `min_side` to `max_side` fractions of the image's.
inline Drawn draw_objects(const Image& photo, int count, std::uint64_t seed, double min_side = 0.06,
                          double max_side = 0.2) {
  Drawn d{photo.clone(), {photo.width(), photo.height(), {}, false, nlohmann::json::object()}, Image({photo.width(), photo.height(), 1, DType::U8}), {}};
  cv::Mat img = as_mat(d.image.ref());
  cv::Mat mask = as_mat(d.mask.ref());
  mask.setTo(0);
  Draws draws(keyed_stream(seed, "drawn", 0, 0));
  const int W = photo.width(), H = photo.height();
  std::vector<cv::Rect> taken;
  for (int i = 0; i < count && i < static_cast<int>(kColours.size()); ++i) {
    for (int attempt = 0; attempt < 200; ++attempt) {
      const int w = std::max(4, static_cast<int>(W * (min_side + draws.uniform() * (max_side - min_side))));
      const int h = std::max(4, static_cast<int>(H * (min_side + draws.uniform() * (max_side - min_side))));
      const int x = static_cast<int>(draws.uniform() * (W - w)), y = static_cast<int>(draws.uniform() * (H - h));
      const cv::Rect r(x, y, w, h);
      bool clear = true;
      for (const cv::Rect& t : taken) clear = clear && (r & cv::Rect(t.x - 3, t.y - 3, t.width + 6, t.height + 6)).empty();
      if (!clear) continue;
      taken.push_back(r);
      const Colour c = kColours[static_cast<std::size_t>(i)];
      const cv::Scalar colour(c[0], c[1], c[2]);
      labels::Object o;
      o.category = i;
      if (i % 2 == 0) {
        cv::rectangle(img, r, colour, cv::FILLED);
        cv::rectangle(mask, r, cv::Scalar(i + 1), cv::FILLED);
        o.box = labels::Box{double(x), double(y), double(x + w), double(y + h)};
        o.polygons.push_back({{double(x), double(y)}, {double(x + w), double(y)}, {double(x + w), double(y + h)}, {double(x), double(y + h)}});
      } else {
        // A triangle with its vertices on the cell's edges; its box is the cell.
        const std::vector<cv::Point> tri{{x + w / 2, y}, {x + w - 1, y + h - 1}, {x, y + h - 1}};
        cv::fillPoly(img, std::vector<std::vector<cv::Point>>{tri}, colour);
        cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{tri}, cv::Scalar(i + 1));
        o.box = labels::Box{double(x), double(y), double(x + w), double(y + h)};
        o.polygons.push_back({{x + w / 2 + 0.5, double(y)}, {double(x + w), double(y + h)}, {double(x), double(y + h)}});
      }
      d.labels.objects.push_back(o);
      d.colours.push_back(c);
      break;
    }
  }
  return d;
}

// The box of the pixels within `tolerance` (per channel) of `c`; nothing when fewer than
// `min_pixels` are.
inline std::optional<labels::Box> find_colour(const Image& img, const Colour& c, int tolerance = 40,
                                              int min_pixels = 4) {
  const k::View<const std::uint8_t> v = img.ref().view<const std::uint8_t>();
  int x0 = img.width(), y0 = img.height(), x1 = -1, y1 = -1, n = 0;
  for (int y = 0; y < img.height(); ++y) {
    const std::uint8_t* row = v.row(y);
    for (int x = 0; x < img.width(); ++x) {
      const std::uint8_t* p = row + 3 * x;
      if (std::abs(p[0] - c[0]) <= tolerance && std::abs(p[1] - c[1]) <= tolerance && std::abs(p[2] - c[2]) <= tolerance) {
        x0 = std::min(x0, x), y0 = std::min(y0, y), x1 = std::max(x1, x), y1 = std::max(y1, y);
        ++n;
      }
    }
  }
  if (n < min_pixels) return std::nullopt;
  return labels::Box{double(x0), double(y0), double(x1 + 1), double(y1 + 1)};
}

inline double iou(const labels::Box& a, const labels::Box& b) {
  const double w = std::min(a.x1, b.x1) - std::max(a.x0, b.x0), h = std::min(a.y1, b.y1) - std::max(a.y0, b.y0);
  if (w <= 0 || h <= 0) return 0;
  const double inter = w * h;
  return inter / (a.area() + b.area() - inter);
}

// One output of a pipeline whose draws see the drawn labels and label map: the image on the CPU
// and on the emulated device (held equal), the labels and mask moved through the plan.
struct Labelled {
  Plan plan;
  Image image;
  labels::ImageLabels labels;
  labels::LabelCounts counts;
  Image mask;
};

inline Labelled run_labelled(const Pipeline& p, const Drawn& d, const std::string& key, std::uint32_t copy,
                             std::uint64_t seed = 11) {
  static auto cpu = make_cpu_backend(1);
  static auto emu = make_emulated_backend(1);
  Labelled r{p.plan(seed, key, copy, d.image.shape(), DrawInputs{&d.labels, &d.mask}), {}, d.labels, {}, {}};
  r.image = cpu->run(r.plan, d.image, 0);
  const Image emulated = emu->run(r.plan, d.image, 0);
  EXPECT_EQ(compare(r.image, emulated).count, 0u) << key << " copy " << copy << ": cpu vs cuda-emulated";
  r.counts = labels::move_plan_labels(r.plan, r.labels, p.label_rules(), *cpu, 0);
  labels::ImageLabels emulated_labels = d.labels;
  labels::move_plan_labels(r.plan, emulated_labels, p.label_rules(), *emu, 0);
  EXPECT_EQ(emulated_labels.objects.size(), r.labels.objects.size()) << key << ": labels on cuda-emulated";
  r.mask = labels::move_mask(r.plan, d.mask, p.label_rules().mask_fill, *cpu, 0);
  EXPECT_EQ(compare(r.mask, labels::move_mask(r.plan, d.mask, p.label_rules().mask_fill, *emu, 0)).count, 0u)
      << key << ": mask on cuda-emulated";
  return r;
}

}  // namespace aug::testing::labelled
