// grid_shuffle: the output's cells against the input's as the manifest maps them (every type and
// channel count, both backends), the draws' distribution (part order, cell permutation within sizes),
// and labels: keypoints with their cell, boxes cut into the pieces that a rasterised box's connected
// components give (Albumentations' per-component boxes), label maps like the image.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "lib/datasets/apply.hpp"
#include "lib/labels/transform.hpp"
#include "lib/run/devices.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_grid_shuffle {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

struct Cells {
  std::vector<int> y, x;  // edges: rows + 1 and cols + 1
  std::vector<int> mapping;
};

Cells cells_of(const Plan& plan) {
  const nlohmann::json& p = plan.record[0]["params"];
  Cells c{{0}, {0}, p["mapping"].get<std::vector<int>>()};
  for (int h : p["row_heights"].get<std::vector<int>>()) c.y.push_back(c.y.back() + h);
  for (int w : p["col_widths"].get<std::vector<int>>()) c.x.push_back(c.x.back() + w);
  return c;
}

// The output written out from the manifest: output cell mapping[t] is input cell t.
Image reference(const Image& in, const Cells& c) {
  Image out(in.shape());
  const int cols = static_cast<int>(c.x.size()) - 1;
  const std::size_t value = in.shape().channels * sample_size(in.shape().dtype);
  for (std::size_t t = 0; t < c.mapping.size(); ++t) {
    const int r = static_cast<int>(t) / cols, k = static_cast<int>(t) % cols, o = c.mapping[t];
    const int orow = o / cols, ocol = o % cols;
    EXPECT_EQ(c.y[r + 1] - c.y[r], c.y[orow + 1] - c.y[orow]);
    EXPECT_EQ(c.x[k + 1] - c.x[k], c.x[ocol + 1] - c.x[ocol]);
    for (int y = 0; y < c.y[r + 1] - c.y[r]; ++y)
      std::memcpy(out.row(c.y[orow] + y) + c.x[ocol] * value, in.row(c.y[r] + y) + c.x[k] * value,
                  (c.x[k + 1] - c.x[k]) * value);
  }
  return out;
}

TEST(GridShuffle, CellsMoveAsTheManifestSays) {
  int checked = 0;
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int ch : {1, 3, 4})
      for (const char* grid : {"[3, 3]", "[2, 5]", "[7, 4]", "[1, 1]", "[12, 9]"}) {
        const Image in = testing::random_image({37, 23, ch, t}, 5 + ch);
        const auto b = run_both(one_stage(std::string(R"({"stage": "grid_shuffle", "p": 1, "grid": )") + grid + "}"), in,
                                std::string("g") + grid + ".png");
        const Image want = reference(in, cells_of(b.plan));
        ASSERT_EQ(compare(b.cpu, want).count, 0u) << grid;
        ASSERT_EQ(compare(b.emulated, want).count, 0u) << grid;
        ++checked;
      }
  EXPECT_EQ(checked, 45);
}

TEST(GridShuffleDraws, PartsAreShuffledAndCellsPermutedWithinTheirSize) {
  // 10 rows in 3 parts: 4, 3, 3 shuffled, the 4 at each place alike; cells of the tall row and of
  // the short rows never trade places.
  const Pipeline p = one_stage(R"({"stage": "grid_shuffle", "p": 1, "grid": [3, 3]})");
  std::map<int, int> tall_at;
  const int n = 6000;
  for (int i = 0; i < n; ++i) {
    const Plan plan = p.plan(4, std::to_string(i), 0, {9, 10, 1, DType::U8});
    const auto h = plan.record[0]["params"]["row_heights"].get<std::vector<int>>();
    for (int r = 0; r < 3; ++r)
      if (h[r] == 4) ++tall_at[r];
    const auto m = plan.record[0]["params"]["mapping"].get<std::vector<int>>();
    for (int t = 0; t < 9; ++t) ASSERT_EQ(h[t / 3] == 4, h[m[t] / 3] == 4) << i;
  }
  for (int r = 0; r < 3; ++r) EXPECT_NEAR(tall_at[r] / double(n), 1.0 / 3, 0.02);
  // Equal cells (9 x 9 pixels in 3 x 3): each goes to each of the 9 places alike. Chi-square over the
  // 9 x 9 table (72 degrees of freedom; 0.1% critical value about 116).
  std::vector<std::vector<int>> dest(9, std::vector<int>(9, 0));
  for (int i = 0; i < n; ++i) {
    const auto m = p.plan(4, "e" + std::to_string(i), 0, {9, 9, 1, DType::U8}).record[0]["params"]["mapping"];
    for (int t = 0; t < 9; ++t) ++dest[t][m[t].get<int>()];
  }
  double chi = 0;
  const double e = n / 9.0;
  for (int t = 0; t < 9; ++t)
    for (int o = 0; o < 9; ++o) chi += (dest[t][o] - e) * (dest[t][o] - e) / e;
  EXPECT_LT(chi, 116);
  EXPECT_GT(chi, 30);  // below the 0.1% lower tail (about 40 for 72): draws that are too even are wrong too
}

// Boxes against Albumentations' way: the box rasterised, shuffled like the image, its 8-connected
// components' bounds.
TEST(GridShuffleLabels, BoxesSplitIntoTheComponentsOfTheirShuffledPixels) {
  const Pipeline p = one_stage(R"({"stage": "grid_shuffle", "p": 1, "grid": [4, 5]})");
  int split = 0, compared = 0;
  for (int k = 0; k < 60; ++k) {
    const int W = 101, H = 77;
    const Plan plan = p.plan(9, "b" + std::to_string(k), 0, {W, H, 1, DType::U8});
    const double x0 = (k * 17) % 60, y0 = (k * 11) % 40, x1 = x0 + 10 + (k * 7) % 40, y1 = y0 + 8 + (k * 5) % 30;
    labels::ImageLabels l{W, H, {}, false, nlohmann::json::object()};
    labels::Object o;
    o.box = labels::Box{x0, y0, x1, y1};
    l.objects.push_back(o);
    labels::move_labels(l, plan.steps[0].op->motions(), labels::LabelRules{});
    // The rasterised box through the same cells.
    Image mask(Shape{W, H, 1, DType::U8});
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) mask.row(y)[x] = x >= x0 && x < x1 && y >= y0 && y < y1 ? 255 : 0;
    const Image moved = reference(mask, cells_of(plan));
    cv::Mat components, stats, centroids;
    const int n = cv::connectedComponentsWithStats(testing::mat(moved), components, stats, centroids, 8);
    std::vector<labels::Box> want;
    for (int c = 1; c < n; ++c)
      want.push_back({double(stats.at<int>(c, cv::CC_STAT_LEFT)), double(stats.at<int>(c, cv::CC_STAT_TOP)),
                      double(stats.at<int>(c, cv::CC_STAT_LEFT) + stats.at<int>(c, cv::CC_STAT_WIDTH)),
                      double(stats.at<int>(c, cv::CC_STAT_TOP) + stats.at<int>(c, cv::CC_STAT_HEIGHT))});
    ASSERT_EQ(l.objects.size(), want.size()) << k;
    std::vector<bool> used(want.size(), false);
    for (const labels::Object& got : l.objects) {
      bool found = false;
      for (std::size_t i = 0; i < want.size() && !found; ++i)
        if (!used[i] && std::abs(got.box->x0 - want[i].x0) < 1e-9 && std::abs(got.box->y0 - want[i].y0) < 1e-9 &&
            std::abs(got.box->x1 - want[i].x1) < 1e-9 && std::abs(got.box->y1 - want[i].y1) < 1e-9)
          used[i] = found = true;
      EXPECT_TRUE(found) << k << ": box " << got.box->x0 << "," << got.box->y0 << "," << got.box->x1 << ","
                         << got.box->y1;
    }
    split += want.size() > 1;
    ++compared;
  }
  EXPECT_EQ(compared, 60);
  EXPECT_GT(split, 10);
}

TEST(GridShuffleLabels, KeypointsMoveWithTheirCellAndPiecesBelowMinVisibilityGo) {
  const Pipeline p = one_stage(R"({"stage": "grid_shuffle", "p": 1, "grid": [2, 2]})");
  const Plan plan = p.plan(3, "k.png", 0, {40, 30, 3, DType::U8});
  const Cells c = cells_of(plan);
  labels::ImageLabels l{40, 30, {}, false, nlohmann::json::object()};
  labels::Object o;
  o.box = labels::Box{1, 1, 39, 29};
  for (double x : {2.5, 25.0})
    for (double y : {3.5, 20.0}) o.keypoints.push_back({x, y, 2});
  o.keypoints.push_back({40.0, 5.0, 2});
  l.objects.push_back(o);
  labels::move_labels(l, plan.steps[0].op->motions(), labels::LabelRules{});
  ASSERT_EQ(l.objects.size(), 1u);  // with keypoints: one object around its pieces
  ASSERT_EQ(l.objects[0].keypoints.size(), 5u);
  EXPECT_EQ(l.objects[0].keypoints[4].v, 0);  // (40, 5) lies on the right edge, outside the image
  for (std::size_t i = 0; i < 4; ++i) {
    const labels::Keypoint& k = l.objects[0].keypoints[i];
    const double x = i < 2 ? 2.5 : 25.0, y = i % 2 == 0 ? 3.5 : 20.0;
    const int col = x < c.x[1] ? 0 : 1, row = y < c.y[1] ? 0 : 1, t = row * 2 + col, to = c.mapping[t];
    EXPECT_DOUBLE_EQ(k.x, x - c.x[col] + c.x[to % 2]);
    EXPECT_DOUBLE_EQ(k.y, y - c.y[row] + c.y[to / 2]);
    EXPECT_EQ(k.v, 2);
  }
  // A box over all four cells: its pieces split wherever the cells part; with min_visibility 0.3 the
  // quarter pieces (each 1/4 of it) go, and pieces that stay together survive.
  labels::ImageLabels b{40, 30, {}, false, nlohmann::json::object()};
  labels::Object whole;
  whole.box = labels::Box{0, 0, 40, 30};
  b.objects.push_back(whole);
  labels::LabelRules rules;
  rules.min_visibility = 0.3;
  const labels::LabelCounts counts = labels::move_labels(b, plan.steps[0].op->motions(), rules);
  double kept_area = 0;
  for (const labels::Object& k : b.objects) kept_area += k.box->area();
  EXPECT_EQ(counts.kept + counts.visibility, counts.kept + counts.dropped());
  EXPECT_NEAR(kept_area + 300.0 * counts.visibility, 1200.0, 1e-6);  // each dropped piece is a quarter
}

TEST(GridShuffleLabels, LabelMapsMoveLikeTheImage) {
  static auto cpu = make_cpu_backend(1);
  static auto emu = make_emulated_backend(1);
  Image mask(Shape{50, 31, 1, DType::U8});
  for (int y = 0; y < 31; ++y)
    for (int x = 0; x < 50; ++x) mask.row(y)[x] = static_cast<std::uint8_t>(x * 5 + y);
  const Pipeline p = one_stage(R"({"stage": "grid_shuffle", "p": 1, "grid": [3, 4]})");
  const Plan plan = p.plan(1, "m.png", 0, {50, 31, 3, DType::U8});
  const Image want = reference(mask, cells_of(plan));
  EXPECT_EQ(compare(labels::move_mask(plan, mask, 0, *cpu, 0), want).count, 0u);
  EXPECT_EQ(compare(labels::move_mask(plan, mask, 0, *emu, 0), want).count, 0u);
}

}  // namespace
}  // namespace aug::test_grid_shuffle
