// iou_crop: torchvision's RandomIoUCrop. The draw is torchvision's loop written plainly here, on the
// same keyed stream (every window, minimum IoU and round equal); its statistics match an independent
// simulation of the loop; on photographs with drawn objects every output keeps exactly the objects
// whose centre the window holds (the others counted as dropped), the largest IoU of those with the
// window reaches the drawn minimum, each kept object is found again in the output's pixels where its
// moved label says, and the mask is cut with the image; the output is the ROI of the input on every
// type; without labels the image comes back unchanged.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "lib/labels/transform.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/label_support.hpp"

namespace aug::test_iou_crop {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::sample_as;
namespace lab = testing::labelled;

const std::vector<double> kDefaultOptions{0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0};

struct Settings {
  double min_scale = 0.3, max_scale = 1.0, min_ar = 0.5, max_ar = 2.0;
  std::vector<double> options = kDefaultOptions;
  int trials = 40;
};

struct RefWindow {
  bool taken = false;
  int x = 0, y = 0, w = 0, h = 0;
  double option = 1;
  int rounds = 0;
};

// torch.rand's float32: 24 random bits.
float torch_rand(Draws& d) { return static_cast<float>(d.next_u32() >> 8) / 16777216.0f; }

double box_window_iou(const labels::Box& b, double x0, double y0, double x1, double y1) {
  return lab::iou(b, labels::Box{x0, y0, x1, y1});
}

// torchvision.transforms.v2.RandomIoUCrop's make_params, with `rand` standing for torch.rand (one
// float32) and `pick` for torch.randint(0, n); stops after 100 rounds.
template <class Rand, class Pick>
RefWindow torchvision_iou_crop(Rand rand, Pick pick, int orig_w, int orig_h, const std::vector<labels::Box>& boxes,
                               const Settings& s) {
  RefWindow r;
  for (int round = 1; round <= 100; ++round) {
    r.rounds = round;
    const double min_jaccard = s.options[pick(static_cast<int>(s.options.size()))];
    r.option = min_jaccard;
    if (min_jaccard >= 1.0) return r;
    for (int t = 0; t < s.trials; ++t) {
      float r0 = rand(), r1 = rand();
      r0 = static_cast<float>(s.min_scale) + static_cast<float>(s.max_scale - s.min_scale) * r0;
      r1 = static_cast<float>(s.min_scale) + static_cast<float>(s.max_scale - s.min_scale) * r1;
      const int new_w = static_cast<int>(static_cast<float>(orig_w) * r0);
      const int new_h = static_cast<int>(static_cast<float>(orig_h) * r1);
      if (new_w == 0 || new_h == 0) continue;  // (torchvision would divide by zero)
      const double aspect_ratio = static_cast<double>(new_w) / new_h;
      if (!(s.min_ar <= aspect_ratio && aspect_ratio <= s.max_ar)) continue;
      const float q0 = rand(), q1 = rand();
      const int left = static_cast<int>(static_cast<float>(orig_w - new_w) * q0);
      const int top = static_cast<int>(static_cast<float>(orig_h - new_h) * q1);
      const int right = left + new_w, bottom = top + new_h;
      if (left == right || top == bottom) continue;
      double best = -1;
      bool within = false;
      for (const labels::Box& b : boxes) {
        const double cx = 0.5 * (b.x0 + b.x1), cy = 0.5 * (b.y0 + b.y1);
        if (left < cx && cx < right && top < cy && cy < bottom) {
          within = true;
          best = std::max(best, box_window_iou(b, left, top, right, bottom));
        }
      }
      if (!within) continue;
      if (best < min_jaccard) continue;
      r.taken = true;
      r.x = left, r.y = top, r.w = new_w, r.h = new_h;
      return r;
    }
  }
  r.rounds = 100;
  return r;
}

// The reference on the stage's own keyed stream (the pipeline's only stage sits at position 1, p 1).
RefWindow reference_on_stream(std::uint64_t seed, const std::string& key, std::uint32_t copy, int W, int H,
                              const std::vector<labels::Box>& boxes, const Settings& s = {}) {
  Draws d(keyed_stream(seed, key, copy, 1));
  return torchvision_iou_crop([&] { return torch_rand(d); }, [&](int n) { return static_cast<int>(d.integer(0, n - 1)); },
                              W, H, boxes, s);
}

std::vector<labels::Box> boxes_of(const labels::ImageLabels& l) {
  std::vector<labels::Box> b;
  for (const labels::Object& o : l.objects) b.push_back(*o.box);
  return b;
}

void expect_same(const nlohmann::json& m, const RefWindow& want, const Shape& in, const std::string& what) {
  EXPECT_EQ(m.at("option").get<double>(), want.option) << what;
  EXPECT_EQ(m.at("rounds").get<int>(), want.rounds) << what;
  EXPECT_EQ(m.value("identity", false), !want.taken) << what;
  if (want.taken) {
    EXPECT_EQ(m.at("x").get<int>(), want.x) << what;
    EXPECT_EQ(m.at("y").get<int>(), want.y) << what;
    EXPECT_EQ(m.at("width").get<int>(), want.w) << what;
    EXPECT_EQ(m.at("height").get<int>(), want.h) << what;
  } else {
    EXPECT_EQ(m.at("width").get<int>(), in.width) << what;
    EXPECT_EQ(m.at("height").get<int>(), in.height) << what;
  }
}

// The drawn colours exactly (the crop moves pixels without computing them): a tolerance would also
// find the photographs' own saturated pixels.
constexpr int kExact = 0;

const char* kPhotos[] = {"chelsea.png", "astronaut.jpg", "coffee.png", "rocket.jpg"};

TEST(IouCrop, TheDrawIsTorchvisionsLoopOnTheSameStream) {
  const Pipeline p = testing::one_stage(R"({"stage": "iou_crop"})");
  const Pipeline q = testing::one_stage(
      R"({"stage": "iou_crop", "min_scale": 0.5, "max_scale": 0.9, "min_aspect_ratio": 0.7, "max_aspect_ratio": 1.6,
          "sampler_options": [0.2, 0.6, 0.95], "trials": 7})");
  Settings qs;
  qs.min_scale = 0.5, qs.max_scale = 0.9, qs.min_ar = 0.7, qs.max_ar = 1.6, qs.options = {0.2, 0.6, 0.95}, qs.trials = 7;
  int compared = 0, taken = 0;
  for (const char* photo : kPhotos) {
    const Image im = sample_as(photo, DType::U8, 3);
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const lab::Drawn d = lab::draw_objects(im, 6, seed);
      for (std::uint32_t copy = 0; copy < 8; ++copy) {
        const std::string key = std::string(photo) + std::to_string(seed);
        for (const auto& [pipe, settings] : {std::pair<const Pipeline*, Settings>{&p, Settings{}}, {&q, qs}}) {
          const Plan plan = pipe->plan(11, key, copy, im.shape(), DrawInputs{&d.labels, &d.mask});
          const RefWindow want = reference_on_stream(11, key, copy, im.width(), im.height(), boxes_of(d.labels), settings);
          expect_same(plan.record[0]["params"], want, im.shape(), key + " copy " + std::to_string(copy));
          ++compared;
          taken += want.taken;
        }
      }
    }
  }
  EXPECT_EQ(compared, 4 * 3 * 8 * 2);
  EXPECT_GT(taken, compared / 4);  // many outputs are crops (the loop ran far)
  // Small and thin images, without labels and with one box: equal too (windows of 0 pixels refused).
  for (const Shape s : {Shape{3, 2, 1, DType::U8}, Shape{1, 40, 1, DType::U8}, Shape{97, 13, 3, DType::U16}}) {
    labels::ImageLabels one{s.width, s.height, {}, false, nlohmann::json::object()};
    labels::Object o;
    o.box = labels::Box{0, 0, double(s.width), double(s.height)};
    one.objects.push_back(o);
    for (int k = 0; k < 20; ++k) {
      const std::string key = "small" + std::to_string(k);
      const Plan plan = p.plan(11, key, 0, s, DrawInputs{&one, nullptr});
      expect_same(plan.record[0]["params"], reference_on_stream(11, key, 0, s.width, s.height, boxes_of(one)), s, key);
      const Plan bare = p.plan(11, key, 0, s);
      expect_same(bare.record[0]["params"], reference_on_stream(11, key, 0, s.width, s.height, {}), s, key + " bare");
    }
  }
}

// A pipeline before it moves the boxes the draw sees: after a horizontal flip the reference gets
// the flipped boxes.
TEST(IouCrop, TheDrawSeesTheBoxesMovedByTheStagesBeforeIt) {
  const Image im = sample_as("coffee.png", DType::U8, 3);
  const lab::Drawn d = lab::draw_objects(im, 5, 4);
  const Pipeline p = Pipeline::parse(
      R"({"version": 1, "stages": [{"stage": "flip", "direction": "horizontal"}, {"stage": "iou_crop"}]})", "t.json");
  std::vector<labels::Box> flipped;
  for (const labels::Box& b : boxes_of(d.labels)) flipped.push_back({im.width() - b.x1, b.y0, im.width() - b.x0, b.y1});
  int taken = 0;
  for (std::uint32_t copy = 0; copy < 12; ++copy) {
    const Plan plan = p.plan(11, "f.png", copy, im.shape(), DrawInputs{&d.labels, &d.mask});
    Draws draws(keyed_stream(11, "f.png", copy, 2));  // the second stage
    const RefWindow want = torchvision_iou_crop([&] { return torch_rand(draws); },
                                                [&](int n) { return static_cast<int>(draws.integer(0, n - 1)); },
                                                im.width(), im.height(), flipped, Settings{});
    expect_same(plan.record[1]["params"], want, im.shape(), "copy " + std::to_string(copy));
    taken += want.taken;
  }
  EXPECT_GT(taken, 0);
}

// The acceptance on photographs with drawn objects, 4 copies each: which objects are kept, how they
// overlap the window, where they are found again.
TEST(IouCrop, KeepsExactlyTheObjectsWhoseCentreTheWindowHoldsAndReachesTheDrawnIoU) {
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "iou_crop"}]})", "t.json");
  int outputs = 0, crops = 0, objects = 0, kept = 0, dropped = 0, reaching = 0, kept_reaching = 0, found_checked = 0;
  double found_iou_sum = 0, found_iou_min = 1;
  for (const char* photo : kPhotos) {
    const Image im = sample_as(photo, DType::U8, 3);
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const lab::Drawn d = lab::draw_objects(im, 6, seed);
      // Each object's box from the input's pixels: what the window's centre rule is checked on.
      std::vector<labels::Box> found_in;
      for (const lab::Colour& c : d.colours) found_in.push_back(*lab::find_colour(d.image, c, kExact));
      for (std::uint32_t copy = 0; copy < 4; ++copy) {
        const std::string key = std::string(photo) + "/" + std::to_string(seed);
        SCOPED_TRACE(key + " copy " + std::to_string(copy));
        const lab::Labelled r = lab::run_labelled(p, d, key, copy);
        const nlohmann::json m = r.plan.record[0]["params"];
        ++outputs;
        objects += static_cast<int>(d.labels.objects.size());
        if (m.value("identity", false)) {
          EXPECT_GE(m.at("option").get<double>(), 1.0);
          EXPECT_EQ(compare(r.image, d.image).count, 0u);
          EXPECT_EQ(r.labels.objects.size(), d.labels.objects.size());
          kept += static_cast<int>(r.labels.objects.size());
          continue;
        }
        ++crops;
        const int x = m.at("x"), y = m.at("y"), w = m.at("width"), h = m.at("height");
        const double option = m.at("option");
        // The output and its mask are the window of the input's.
        ASSERT_EQ(compare(r.image, from_mat(mat(d.image)(cv::Rect(x, y, w, h)).clone())).count, 0u);
        ASSERT_EQ(compare(r.mask, from_mat(mat(d.mask)(cv::Rect(x, y, w, h)).clone())).count, 0u);
        std::set<int> want;
        double best = -1;
        for (std::size_t i = 0; i < found_in.size(); ++i) {
          const labels::Box& b = found_in[i];
          const double cx = (b.x0 + b.x1) / 2, cy = (b.y0 + b.y1) / 2;
          if (x < cx && cx < x + w && y < cy && cy < y + h) {
            want.insert(static_cast<int>(i));
            const double v = box_window_iou(b, x, y, x + w, y + h);
            best = std::max(best, v);
            kept_reaching += v >= option;
          }
        }
        std::set<int> got;
        for (const labels::Object& o : r.labels.objects) got.insert(o.category);
        EXPECT_EQ(got, want);
        EXPECT_EQ(r.counts.kept, want.size());
        EXPECT_EQ(r.counts.outside, d.labels.objects.size() - want.size());  // dropped, as outside
        EXPECT_EQ(r.counts.dropped(), d.labels.objects.size() - want.size());
        kept += static_cast<int>(r.counts.kept);
        dropped += static_cast<int>(r.counts.dropped());
        EXPECT_GE(best, option) << "the largest IoU of the kept objects with the window";
        reaching += best >= option;
        // Each kept object is in the output where its moved label says.
        for (const labels::Object& o : r.labels.objects) {
          const auto found = lab::find_colour(r.image, d.colours[static_cast<std::size_t>(o.category)], kExact);
          ASSERT_TRUE(found) << "object " << o.category;
          const double v = lab::iou(*found, *o.box);
          EXPECT_GE(v, 0.9) << "object " << o.category;
          found_iou_sum += v;
          found_iou_min = std::min(found_iou_min, v);
          ++found_checked;
        }
      }
    }
  }
  std::printf("iou_crop acceptance: %d outputs (%d photographs x 3 drawings x 4 copies), %d crops, %d unchanged; "
              "%d objects in: %d kept, %d dropped (centre outside the window); crops whose kept objects reach the "
              "drawn minimum IoU (largest): %d of %d; kept objects each reaching it: %d of %d in crops; kept objects "
              "found again in the pixels: %d, box IoU mean %.4f, min %.4f\n",
              outputs, 4, crops, outputs - crops, objects, kept, dropped, reaching, crops, kept_reaching,
              kept - (outputs - crops) * 6, found_checked, found_checked ? found_iou_sum / found_checked : 0.0, found_iou_min);
  EXPECT_EQ(outputs, 48);
  EXPECT_EQ(reaching, crops);
  EXPECT_GT(crops, 24);
  EXPECT_GT(dropped, 0);
}

// An independent simulation of torchvision's loop (std::mt19937) against the stage's draws over
// many keys: how often the image comes back unchanged, the mean window sides, the mean minimum IoU
// of the crops. Each within 4.5 standard errors.
TEST(IouCrop, DrawStatisticsMatchASimulationOfTorchvisionsLoop) {
  const Shape s{400, 300, 3, DType::U8};
  labels::ImageLabels l{s.width, s.height, {}, false, nlohmann::json::object()};
  for (const labels::Box b : {labels::Box{40, 30, 120, 90}, labels::Box{200, 150, 380, 290}, labels::Box{150, 20, 170, 40}}) {
    labels::Object o;
    o.box = b;
    l.objects.push_back(o);
  }
  struct Stats {
    double n = 0, identity = 0, w = 0, w2 = 0, h = 0, h2 = 0, opt = 0, opt2 = 0;
    void add(const RefWindow& r, const Shape& s) {
      ++n;
      if (!r.taken) {
        ++identity;
        return;
      }
      const double fw = double(r.w) / s.width, fh = double(r.h) / s.height;
      w += fw, w2 += fw * fw, h += fh, h2 += fh * fh, opt += r.option, opt2 += r.option * r.option;
    }
  };
  const Pipeline p = testing::one_stage(R"({"stage": "iou_crop"})");
  Stats stage;
  for (int i = 0; i < 3000; ++i) {
    const nlohmann::json m = p.plan(3, "k" + std::to_string(i), 0, s, DrawInputs{&l, nullptr}).record[0]["params"];
    RefWindow r;
    r.taken = !m.value("identity", false);
    r.w = m.at("width"), r.h = m.at("height"), r.option = m.at("option");
    stage.add(r, s);
  }
  std::mt19937 gen(12345);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  Stats sim;
  for (int i = 0; i < 100000; ++i)
    sim.add(torchvision_iou_crop([&] { return u(gen); },
                                 [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(gen); }, s.width,
                                 s.height, boxes_of(l), Settings{}),
            s);
  const double pi = sim.identity / sim.n;
  const double se_i = std::sqrt(pi * (1 - pi) / stage.n);
  EXPECT_NEAR(stage.identity / stage.n, pi, 4.5 * se_i);
  const double crops = stage.n - stage.identity, sim_crops = sim.n - sim.identity;
  auto check_mean = [&](double sum, double sum2, double sim_sum, const char* what) {
    const double mean = sum / crops, var = sum2 / crops - mean * mean;
    EXPECT_NEAR(mean, sim_sum / sim_crops, 4.5 * std::sqrt(var / crops)) << what;
  };
  check_mean(stage.w, stage.w2, sim.w, "window width / W");
  check_mean(stage.h, stage.h2, sim.h, "window height / H");
  check_mean(stage.opt, stage.opt2, sim.opt, "minimum IoU of the crops");
  // The simulation is not degenerate: most crops, some unchanged, windows of varied sizes.
  EXPECT_GT(pi, 0.1);
  EXPECT_LT(pi, 0.5);
}

TEST(IouCrop, WithoutLabelsTheImageComesBackUnchangedAfterAGeometricNumberOfRounds) {
  const Image im = sample_as("chelsea.png", DType::U8, 3);
  const Pipeline p = testing::one_stage(R"({"stage": "iou_crop"})");
  labels::ImageLabels none{im.width(), im.height(), {}, false, nlohmann::json::object()};
  double rounds = 0, first = 0;
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    const std::string key = "n" + std::to_string(i);
    const nlohmann::json m = p.plan(5, key, 0, im.shape()).record[0]["params"];
    ASSERT_TRUE(m.value("identity", false)) << key;
    ASSERT_EQ(m.at("option").get<double>(), 1.0);
    // An image without objects draws as one without labels.
    ASSERT_EQ(p.plan(5, key, 0, im.shape(), DrawInputs{&none, nullptr}).record[0]["params"], m);
    rounds += m.at("rounds").get<int>();
    first += m.at("rounds").get<int>() == 1;
  }
  // Each round ends the loop with probability 1/7 (the option 1 of seven): geometric, mean 7,
  // standard deviation sqrt(42); P(one round) = 1/7.
  EXPECT_NEAR(rounds / n, 7.0, 4.5 * std::sqrt(42.0 / n));
  EXPECT_NEAR(first / n, 1.0 / 7, 4.5 * std::sqrt((1.0 / 7) * (6.0 / 7) / n));
  const testing::Both b = testing::geometry::both(R"({"stage": "iou_crop"})", im);
  EXPECT_EQ(compare(b.cpu, im).count, 0u);
  // No option of 1 or more: the loop gives up after 100 rounds, image unchanged.
  const Pipeline q = testing::one_stage(R"({"stage": "iou_crop", "sampler_options": [0.0, 0.5], "trials": 2})");
  const Plan plan = q.plan(5, "x", 0, im.shape());
  EXPECT_EQ(plan.record[0]["params"]["rounds"], 100);
  EXPECT_EQ(plan.record[0]["params"]["identity"], true);
  EXPECT_EQ(plan.out, im.shape());
}

// The window on 8-bit, 16-bit and float photographs of 1, 3 and 4 channels: the ROI of the input on
// both backends, and labels with a centre outside dropped by the label filters, not kept.
TEST(IouCrop, OutputIsTheWindowOfTheInputOnEveryTypeAndOutsideCentresAreDropped) {
  static auto cpu = make_cpu_backend(1);
  static auto emu = make_emulated_backend(1);
  const Pipeline p = testing::one_stage(R"({"stage": "iou_crop", "sampler_options": [0.0]})");
  for (DType t : testing::geometry::kTypes)
    for (const Image& im : testing::geometry::photographs(t)) {
      labels::ImageLabels l{im.width(), im.height(), {}, false, nlohmann::json::object()};
      const double W = im.width(), H = im.height();
      for (const labels::Box b : {labels::Box{0.1 * W, 0.1 * H, 0.3 * W, 0.4 * H}, labels::Box{0.5 * W, 0.5 * H, 0.9 * W, 0.95 * H},
                                  labels::Box{0.05 * W, 0.6 * H, 0.45 * W, 0.9 * H}}) {
        labels::Object o;
        o.box = b;
        l.objects.push_back(o);
      }
      for (std::uint32_t copy = 0; copy < 4; ++copy) {
        const Plan plan = p.plan(2, "t", copy, im.shape(), DrawInputs{&l, nullptr});
        const nlohmann::json m = plan.record[0]["params"];
        ASSERT_FALSE(m.value("identity", false));  // the option 0 always finds a window here
        const cv::Rect roi(m.at("x").get<int>(), m.at("y").get<int>(), m.at("width").get<int>(), m.at("height").get<int>());
        const Image want = from_mat(mat(im)(roi).clone());
        const Image a = cpu->run(plan, im, 0), e = emu->run(plan, im, 0);
        EXPECT_EQ(compare(a, want).count, 0u) << dtype_name(t);
        EXPECT_EQ(compare(e, want).count, 0u) << dtype_name(t);
        labels::ImageLabels moved = l;
        const labels::LabelCounts n = labels::move_plan_labels(plan, moved, labels::LabelRules{}, *cpu, 0);
        std::size_t inside = 0;
        for (const labels::Object& o : l.objects) {
          const double cx = (o.box->x0 + o.box->x1) / 2, cy = (o.box->y0 + o.box->y1) / 2;
          inside += roi.x < cx && cx < roi.x + roi.width && roi.y < cy && cy < roi.y + roi.height;
        }
        EXPECT_EQ(n.kept, inside);
        EXPECT_EQ(n.outside, l.objects.size() - inside);
        for (const labels::Object& o : moved.objects) {
          EXPECT_GE(o.box->x0, 0);
          EXPECT_LE(o.box->x1, roi.width);
          EXPECT_GE(o.box->y0, 0);
          EXPECT_LE(o.box->y1, roi.height);
        }
      }
    }
}

// The centre rule in the label model: a map that drops centres outside drops an object that still
// overlaps the output (a box and a polygon), counting it as outside; the same map without the rule
// clips and keeps it; keypoint-only objects are left alone.
TEST(IouCrop, AMapThatDropsCentresOutsideCountsThemAsOutside) {
  labels::ImageLabels l{100, 80, {}, false, nlohmann::json::object()};
  labels::Object a, b, c;
  a.category = 0, a.box = labels::Box{10, 10, 30, 30};    // centre (20, 20): inside [15, 75) x [5, 65)
  b.category = 1, b.box = labels::Box{0, 40, 28, 60};     // centre (14, 50): outside, overlaps by 13 px
  c.category = 2, c.polygons = {{{60, 50}, {90, 50}, {90, 79}}};  // bounds centre (75, 64.5): x on the edge: out
  l.objects = {a, b, c};
  Motion m{.matrix = {1, 0, -15, 0, 1, -5, 0, 0, 1}, .out_width = 60, .out_height = 60, .drops_centres_outside = true};
  labels::ImageLabels dropped = l;
  const labels::LabelCounts n = labels::move_labels(dropped, {m}, labels::LabelRules{});
  ASSERT_EQ(dropped.objects.size(), 1u);
  EXPECT_EQ(dropped.objects[0].category, 0);
  EXPECT_EQ(n.kept, 1u);
  EXPECT_EQ(n.outside, 2u);
  EXPECT_EQ(n.dropped(), 2u);
  m.drops_centres_outside = false;
  labels::ImageLabels clipped = l;
  const labels::LabelCounts k = labels::move_labels(clipped, {m}, labels::LabelRules{});
  EXPECT_EQ(k.kept, 3u);
  EXPECT_EQ(k.outside, 0u);
}

TEST(IouCrop, ParametersAreValidated) {
  testing::geometry::expect_errors_name_the_parameter({
      {R"({"stage": "iou_crop", "sampler_options": []})", "sampler_options"},
      {R"({"stage": "iou_crop", "sampler_options": [-0.1]})", "sampler_options"},
      {R"({"stage": "iou_crop", "min_scale": 0})", "min_scale"},
      {R"({"stage": "iou_crop", "max_scale": 1.5})", "max_scale"},
      {R"({"stage": "iou_crop", "trials": 0})", "trials"},
      {R"({"stage": "iou_crop", "min_aspect_ratio": 0})", "min_aspect_ratio"},
  });
}

}  // namespace
}  // namespace aug::test_iou_crop
