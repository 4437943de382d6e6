// grid_dropout: Albumentations 2.x's GridDropout written out here with the stage's draws (shuffled
// near-equal cells, a hole of ratio times each cell, random offsets or shift_xy) against the holes
// the stage records and the filled pixels on both backends; the spread of the offsets and of the
// longer cells over many seeds (chi-square); the import of 1.x and 2.x parameters.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_grid_dropout {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::Box;
using testing::noise::max_of;
using testing::noise::recorded_rects;
using testing::noise::stream_of;

// numpy's shuffle of the split sizes (Fisher-Yates from the end), then the boundaries.
std::vector<int> splits(int side, int n, Draws& d) {
  std::vector<int> size(n);
  for (int i = 0; i < n; ++i) size[i] = side / n + (i < side % n ? 1 : 0);
  for (int i = n - 1; i >= 1; --i) {
    const auto j = d.integer(0, i);
    std::swap(size[i], size[j]);
  }
  std::vector<int> b{0};
  for (int s : size) b.push_back(b.back() + s);
  return b;
}

// generate_grid_holes with the stage's draws; unit 0: the default cell, -1: rows x cols given.
std::vector<Box> reference(Draws& d, int H, int W, double ratio, int unit_lo, int unit_hi, int cols_given,
                           int rows_given, bool random_offset, int sx, int sy) {
  int rows, cols;
  if (unit_lo > 0) {
    const int u = static_cast<int>(d.integer(unit_lo, unit_hi));
    rows = H / u, cols = W / u;
  } else if (cols_given > 0) {
    rows = rows_given, cols = cols_given;
  } else {
    rows = H / std::max(2, H / 10), cols = W / std::max(2, W / 10);
  }
  rows = std::clamp(rows, 1, H), cols = std::clamp(cols, 1, W);
  const auto ys = splits(H, rows, d), xs = splits(W, cols, d);
  const int n = rows * cols;
  std::vector<int> ch(n), cw(n), h(n), w(n), oy(n, sy), ox(n, sx);
  for (int i = 0; i < n; ++i) {
    ch[i] = ys[i / cols + 1] - ys[i / cols], cw[i] = xs[i % cols + 1] - xs[i % cols];
    // np.clip(cell * ratio, 1, cell - 1).astype(int)
    h[i] = static_cast<int>(std::min(std::max(ch[i] * ratio, 1.0), ch[i] - 1.0));
    w[i] = static_cast<int>(std::min(std::max(cw[i] * ratio, 1.0), cw[i] - 1.0));
  }
  if (random_offset) {
    for (int i = 0; i < n; ++i) oy[i] = static_cast<int>(d.integer(0, ch[i] - h[i]));
    for (int i = 0; i < n; ++i) ox[i] = static_cast<int>(d.integer(0, cw[i] - w[i]));
  }
  std::vector<Box> out;
  for (int i = 0; i < n; ++i) {
    if (h[i] <= 0 || w[i] <= 0) continue;
    const int y = std::clamp(ys[i / cols] + oy[i], 0, H - h[i]), x = std::clamp(xs[i % cols] + ox[i], 0, W - w[i]);
    out.push_back({x, y, std::min(w[i], W - x), std::min(h[i], H - y)});
  }
  return out;
}

TEST(GridDropout, HolesFollowTheReference) {
  const Pipeline def = one_stage(R"({"stage": "grid_dropout", "p": 1})");
  const Pipeline unit = one_stage(R"({"stage": "grid_dropout", "p": 1, "ratio": 0.3, "unit_size_range": [3, 11]})");
  const Pipeline fixed = one_stage(
      R"({"stage": "grid_dropout", "p": 1, "ratio": 0.6, "holes_number_xy": [5, 3], "random_offset": false, "shift_xy": [2, 1]})");
  for (int i = 0; i < 300; ++i) {
    const int W = 20 + i % 53, H = 12 + i % 37;
    const std::string key = "g" + std::to_string(i);
    const Shape shape{W, H, 3, DType::U8};
    {
      Draws d(stream_of(key));
      ASSERT_EQ(recorded_rects(def.plan(11, key, 0, shape)), reference(d, H, W, 0.5, 0, 0, 0, 0, true, 0, 0)) << key;
    }
    {
      Draws d(stream_of(key));
      ASSERT_EQ(recorded_rects(unit.plan(11, key, 0, shape)), reference(d, H, W, 0.3, 3, 11, 0, 0, true, 0, 0)) << key;
    }
    Draws d(stream_of(key));
    const auto got = recorded_rects(fixed.plan(11, key, 0, shape));
    ASSERT_EQ(got, reference(d, H, W, 0.6, 0, 0, 5, 3, false, 2, 1)) << key;
    ASSERT_EQ(got.size(), 15u);
  }
}

TEST(GridDropout, FillsEveryHoleOnBothBackends) {
  for (DType t : {DType::U8, DType::U16, DType::F32}) {
    const Image im = random_image({61, 45, 4, t}, 9);
    const testing::Both b =
        run_both(one_stage(R"({"stage": "grid_dropout", "p": 1, "ratio": 0.4, "fill": [0.25, 1]})"), im, "grid.png");
    ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u);
    const auto holes = recorded_rects(b.plan);
    ASSERT_EQ(holes.size(), 11u * 10u);  // 45 / 4 rows of cells, 61 / 6 columns
    const double fill[3] = {0.25, 1, 1};  // the last value repeats
    for (int y = 0; y < 45; ++y)
      for (int x = 0; x < 61; ++x) {
        bool inside = false;
        for (const Box& h : holes) inside |= x >= h.x && x < h.x + h.w && y >= h.y && y < h.y + h.h;
        for (int c = 0; c < 4; ++c) {
          const double want =
              inside && c < 3 ? (t == DType::F32 ? fill[c] : std::nearbyint(fill[c] * max_of(t))) : at(im, x, y, c);
          ASSERT_EQ(at(b.cpu, x, y, c), want);
        }
      }
  }
}

TEST(GridDropout, OffsetsAndLongerCellsAreUniform) {
  // 23 x 23 in 3 x 3 cells (sizes 8, 8, 7 shuffled), ratio 0.5 (holes 4 or 3): over many seeds the
  // short cell sits at each of the three places as often, and each hole's offset inside its cell is
  // uniform over [0, cell - hole].
  const Pipeline p = one_stage(R"({"stage": "grid_dropout", "p": 1, "holes_number_xy": [3, 3]})");
  std::vector<double> short_at(3, 0), offset(5, 0);
  const int keys = 3000;
  for (int k = 0; k < keys; ++k) {
    const auto holes = recorded_rects(p.plan(7, "u" + std::to_string(k), 0, {23, 23, 1, DType::U8}));
    ASSERT_EQ(holes.size(), 9u);
    // The first row's holes give the column boundaries: a hole of width 3 is in the short cell.
    for (int j = 0; j < 3; ++j)
      if (holes[j].w == 3) short_at[j] += 1;
    // Offsets in the cell of the first column, first row: cell [0, 8) or [0, 7).
    const Box& h = holes[0];
    offset[h.x] += 1;
  }
  double chi2 = 0;
  for (double c : short_at) chi2 += (c - keys / 3.0) * (c - keys / 3.0) / (keys / 3.0);
  EXPECT_LT(chi2, 13.8);  // 2 degrees of freedom, p = 0.001
  // Cell 8 (2/3 of the time): offsets 0..4; cell 7 (1/3): hole 3, offsets 0..4 too.
  chi2 = 0;
  for (double c : offset) chi2 += (c - keys / 5.0) * (c - keys / 5.0) / (keys / 5.0);
  EXPECT_LT(chi2, 18.5);  // 4 degrees of freedom, p = 0.001
}

TEST(GridDropout, ImportsBothReleasesParameters) {
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)"
      R"({"__class_fullname__": "GridDropout", "ratio": 0.4, "unit_size_range": [10, 20], "fill": 255, "p": 1},)"
      R"({"__class_fullname__": "GridDropout", "holes_number_xy": [4, 7], "random_offset": false, "shift_xy": [3, 5]},)"
      R"({"__class_fullname__": "GridDropout", "ratio": 0.3, "unit_size_min": 8, "unit_size_max": 12, "fill_value": 51},)"
      R"({"__class_fullname__": "GridDropout", "holes_number_x": 6, "holes_number_y": 2, "shift_x": 1, "shift_y": 2}]}})");
  const Imported imp = import_albumentations(saved, "a.json");
  const auto& s = imp.pipeline["stages"];
  EXPECT_EQ(s[0]["stage"], "grid_dropout");
  EXPECT_EQ(s[0]["ratio"], 0.4);
  EXPECT_EQ(s[0]["unit_size_range"], nlohmann::ordered_json::array({10, 19}));
  EXPECT_DOUBLE_EQ(s[0]["fill"].get<double>(), 1.0);
  EXPECT_EQ(s[0]["random_offset"], true);
  EXPECT_EQ(s[1]["holes_number_xy"], nlohmann::ordered_json::array({7, 4}));  // 2.x: (rows, columns)
  EXPECT_EQ(s[1]["random_offset"], false);
  EXPECT_EQ(s[1]["shift_xy"], nlohmann::ordered_json::array({3, 5}));
  EXPECT_EQ(s[1]["p"], 0.5);
  EXPECT_EQ(s[2]["unit_size_range"], nlohmann::ordered_json::array({8, 13}));
  EXPECT_DOUBLE_EQ(s[2]["fill"].get<double>(), 0.2);
  EXPECT_EQ(s[2]["random_offset"], false);  // 1.x's default
  EXPECT_EQ(s[3]["holes_number_xy"], nlohmann::ordered_json::array({6, 2}));
  EXPECT_EQ(s[3]["shift_xy"], nlohmann::ordered_json::array({1, 2}));
  EXPECT_EQ(imp.notes.size(), 2u);
  const Pipeline p = Pipeline::parse(imp.pipeline.dump(), "imported");
  EXPECT_EQ(p.plan(1, "a.png", 0, {64, 64, 3, DType::U8}).steps.size(), 4u);
}

}  // namespace
}  // namespace aug::test_grid_dropout
