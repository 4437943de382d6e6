// What the tests of the stages that read other images share (mosaic, mixup, cutmix): photographs
// with drawn objects (each image's objects in colours of their own) given as the run's inputs
// through an in-memory partner source; a run of a stage on one of them (CPU and emulated device held
// equal, labels and label map moved); and the objects found again in an output's pixels.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/stages/mix/mix.hpp"
#include "tests/stages/label_support.hpp"

namespace aug::testing::mix_inputs {

namespace lab = testing::labelled;

// Saturated colours far from each other and from the photographs' (the shared palette's orange is
// in rocket.jpg's flames).
inline const std::vector<lab::Colour> kColours{{255, 0, 0},   {0, 255, 0},   {0, 0, 255},   {255, 0, 255},
                                        {0, 255, 255}, {255, 255, 0}, {128, 0, 255}, {128, 255, 0}};

// Inputs "in0.png"..: photographs with two filled rectangles each, input k's in colours 2k and 2k + 1.
class Inputs final : public PartnerSource {
 public:
  explicit Inputs(int n) {
    const char* photos[] = {"chelsea.png", "astronaut.jpg", "coffee.png", "rocket.jpg"};
    for (int k = 0; k < n; ++k) {
      auto p = std::make_shared<Partner>();
      p->rel = "in" + std::to_string(k) + ".png";
      auto image = std::make_shared<Image>(testing::sample_as(photos[k % 4], DType::U8, 3).clone());
      p->width = image->width(), p->height = image->height();
      p->labels = labels::ImageLabels{p->width, p->height, {}, false, nlohmann::json::object()};
      Image mask(Shape{p->width, p->height, 1, DType::U8});
      cv::Mat m = testing::mat(mask);
      m.setTo(0);
      cv::Mat img = testing::mat(*image);
      const int W = p->width, H = p->height;
      for (int j = 0; j < 2; ++j) {
        const int c = 2 * k + j;
        // Placed differently in each input, so that a partner's objects fall on the image's own or not.
        const cv::Rect r(j == 0 ? W / 16 + (k % 3) * W / 10 : W / 2 + (k % 2) * W / 8,
                         H / 10 + j * H / 3 + (k % 3) * H / 20, j == 0 ? W / 5 : W / 4, H / 4);
        const lab::Colour col = kColours[static_cast<std::size_t>(c)];
        cv::rectangle(img, r, cv::Scalar(col[0], col[1], col[2]), cv::FILLED);
        cv::rectangle(m, r, cv::Scalar(c + 1), cv::FILLED);
        labels::Object o;
        o.category = c;
        o.box = labels::Box{double(r.x), double(r.y), double(r.x + r.width), double(r.y + r.height)};
        p->labels->objects.push_back(o);
      }
      p->mask = std::move(mask);
      list_.push_back(p);
      images_.push_back(image);
    }
  }
  std::size_t size() const override { return list_.size(); }
  std::optional<std::size_t> index_of(std::string_view rel) const override {
    for (std::size_t i = 0; i < list_.size(); ++i)
      if (list_[i]->rel == rel) return i;
    return std::nullopt;
  }
  std::shared_ptr<const Partner> get(std::size_t i) const override { return list_.at(i); }
  std::shared_ptr<const Image> pixels(std::size_t i) const override { return images_.at(i); }
  const Partner& at(std::size_t i) const { return *list_[i]; }
  const Image& image(std::size_t i) const { return *images_[i]; }

 private:
  std::vector<std::shared_ptr<Partner>> list_;
  std::vector<std::shared_ptr<const Image>> images_;
};

// Slivers cut off at a cell's edge or by cutmix's box are dropped, as a training set would.
inline const std::string kRules = R"(, "labels": {"min_area": 16})";

struct Output {
  Plan plan;
  Image image, mask;
  labels::ImageLabels labels;
};

inline Output run(const std::string& stage, const Inputs& inputs, std::size_t self, std::uint32_t copy,
           const std::string& rules = "") {
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [)" + stage + "]" + rules + "}", "mix.json");
  static auto cpu = make_cpu_backend(1);
  static auto emu = make_emulated_backend(1);
  const Partner& me = inputs.at(self);
  const Image& pixels = inputs.image(self);
  Output o{p.plan(3, me.rel, copy, pixels.shape(), DrawInputs{&*me.labels, &*me.mask, &inputs, me.rel}), {}, {}, *me.labels};
  o.image = cpu->run(o.plan, pixels, 0);
  EXPECT_EQ(compare(o.image, emu->run(o.plan, pixels, 0)).count, 0u) << stage << ": cpu vs cuda-emulated";
  labels::move_plan_labels(o.plan, o.labels, p.label_rules(), *cpu, 0);
  o.mask = labels::move_mask(o.plan, *me.mask, p.label_rules().mask_fill, *cpu, 0);
  EXPECT_EQ(compare(o.mask, labels::move_mask(o.plan, *me.mask, p.label_rules().mask_fill, *emu, 0)).count, 0u);
  return o;
}

// Every row's box against the pixels of its colour; every colour seen has a row. Returns the IoUs.
inline std::vector<double> check_found_again(const Output& o, int colours, int min_pixels, const std::string& what) {
  std::vector<double> ious;
  std::set<int> rows;
  for (const labels::Object& obj : o.labels.objects) {
    rows.insert(obj.category);
    const auto found = lab::find_colour(o.image, kColours[static_cast<std::size_t>(obj.category)], 40, 1);
    EXPECT_TRUE(found.has_value()) << what << ": a row for class " << obj.category << " and no such pixels";
    if (found && obj.box) ious.push_back(lab::iou(*found, *obj.box));
  }
  for (int c = 0; c < colours; ++c) {
    if (rows.count(c)) continue;
    const auto found = lab::find_colour(o.image, kColours[static_cast<std::size_t>(c)], 40, min_pixels);
    EXPECT_FALSE(found.has_value()) << what << ": class " << c << " is visible (" << found->x0 << "," << found->y0
                                    << " to " << found->x1 << "," << found->y1 << ") but has no row";
  }
  return ious;
}

}  // namespace aug::testing::mix_inputs
