// `augment tile` as a user runs it: a large photograph with drawn objects cut into overlapping tiles,
// the tiles' pixels, labels and masks held against the image's, and the objects found again whole.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/run/tile.hpp"
#include "tests/support/testing.hpp"

namespace aug::test_tile {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

struct Obj {
  int cls;
  cv::Rect r;
};

// ds/images/big.png: a photograph enlarged to 1300x950 with small filled rectangles (each class a
// colour), their YOLO labels in ds/labels and a label map in ds/masks.
std::vector<Obj> big_dataset(const fs::path& root) {
  cv::Mat photo = testing::imread((testing::samples_dir() / "chelsea.png").string(), cv::IMREAD_COLOR);
  cv::Mat big;
  cv::resize(photo, big, cv::Size(1300, 950), 0, 0, cv::INTER_LINEAR);
  cv::Mat mask(big.size(), CV_8UC1, cv::Scalar(0));
  std::vector<Obj> objs;
  int i = 0;
  for (int y = 17; y + 60 < big.rows; y += 113)
    for (int x = 23 + (y % 37); x + 70 < big.cols; x += 131, ++i) {
      const int w = 20 + (i * 7) % 50, h = 15 + (i * 11) % 45;  // at most 69 x 59: smaller than the overlap
      const Obj o{i % 4, cv::Rect(x, y, w, h)};
      cv::rectangle(big, o.r, cv::Scalar(60 * o.cls, 255 - 60 * o.cls, 128), cv::FILLED);
      cv::rectangle(mask, o.r, cv::Scalar(o.cls + 1), cv::FILLED);
      objs.push_back(o);
    }
  fs::create_directories(root / "images");
  fs::create_directories(root / "masks");
  testing::imwrite((root / "images/big.png").string(), big);
  testing::imwrite((root / "masks/big.png").string(), mask);
  std::ostringstream rows;
  for (const Obj& o : objs)
    rows << o.cls << ' ' << (o.r.x + o.r.width / 2.0) / big.cols << ' ' << (o.r.y + o.r.height / 2.0) / big.rows << ' '
         << double(o.r.width) / big.cols << ' ' << double(o.r.height) / big.rows << '\n';
  testing::write_text(root / "labels/big.txt", rows.str());
  return objs;
}

double iou(const cv::Rect2d& a, const cv::Rect2d& b) {
  const double inter = (a & b).area();
  return inter / (a.area() + b.area() - inter);
}

TEST(Tile, OffsetsCoverTheSideWithTheOverlapAndEndFlush) {
  EXPECT_EQ(tile_offsets(1000, 400, 0.25), (std::vector<int>{0, 300, 600}));
  EXPECT_EQ(tile_offsets(1001, 400, 0.25), (std::vector<int>{0, 300, 600, 601}));
  EXPECT_EQ(tile_offsets(300, 400, 0.25), (std::vector<int>{0}));
  EXPECT_EQ(tile_offsets(400, 400, 0.5), (std::vector<int>{0}));
  for (int n : {401, 777, 1300, 4097})
    for (double overlap : {0.0, 0.1, 0.25, 0.5, 0.9}) {
      const std::vector<int> at = tile_offsets(n, 256, overlap);
      ASSERT_EQ(at.front(), 0);
      ASSERT_EQ(at.back(), n - 256) << n;
      for (std::size_t i = 1; i < at.size(); ++i)  // neighbours share at least the overlap
        EXPECT_GE(at[i - 1] + 256 - at[i], std::lround(overlap * 256)) << n << " " << overlap;
    }
}

TEST(Tile, EverySmallObjectIsWholeInATileAndTheTilesGiveTheLabelsBack) {
  testing::TempDir dir;
  const std::vector<Obj> objs = big_dataset(dir / "ds");
  const auto r = run_cli({"tile", "-i", (dir / "ds/images").string(), "-o", (dir / "t/images").string(), "--size",
                          "400x300", "--overlap", "0.25", "--labels", "yolo", "--masks", (dir / "ds/masks").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  // 1300 = tiles at 0 300 600 900; 950 = 0 225 450 650: 16 tiles.
  EXPECT_NE(r.out.find("augment tile: 1 input, 16 tiles written, 0 failed inputs"), std::string::npos) << r.out;
  const cv::Mat big = testing::imread((dir / "ds/images/big.png").string(), cv::IMREAD_COLOR);
  const cv::Mat mask = testing::imread((dir / "ds/masks/big.png").string(), cv::IMREAD_UNCHANGED);
  std::vector<double> best(objs.size(), 0);  // each object's best IoU over the tiles, mapped back
  std::ifstream manifest(dir / "t/images/tiles.jsonl");
  std::string line;
  int tiles = 0;
  while (std::getline(manifest, line)) {
    const nlohmann::json m = nlohmann::json::parse(line);
    ++tiles;
    const int x = m["x"], y = m["y"], w = m["width"], h = m["height"];
    EXPECT_EQ(m["output"], "big_x" + std::to_string(x) + "_y" + std::to_string(y) + ".png");
    // The tile's pixels and mask are the image's, exactly.
    const cv::Mat t = testing::imread((dir / "t/images" / m["output"].get<std::string>()).string(), cv::IMREAD_COLOR);
    ASSERT_EQ(t.size(), cv::Size(w, h));
    EXPECT_EQ(cv::norm(t, big(cv::Rect(x, y, w, h)), cv::NORM_INF), 0) << m["output"];
    const cv::Mat tm = testing::imread((dir / "t/masks" / m["output"].get<std::string>()).string(), cv::IMREAD_UNCHANGED);
    EXPECT_EQ(cv::norm(tm, mask(cv::Rect(x, y, w, h)), cv::NORM_INF), 0) << m["output"];
    // Its labels, mapped back to the image.
    const std::string stem = fs::path(m["output"].get<std::string>()).stem().string();
    std::istringstream rows(testing::read_text(dir / "t/labels" / (stem + ".txt")));
    int cls;
    double cx, cy, bw, bh;
    int count = 0;
    while (rows >> cls >> cx >> cy >> bw >> bh) {
      ++count;
      const cv::Rect2d back(x + (cx - bw / 2) * w, y + (cy - bh / 2) * h, bw * w, bh * h);
      for (std::size_t i = 0; i < objs.size(); ++i)
        if (objs[i].cls == cls) best[i] = std::max(best[i], iou(back, cv::Rect2d(objs[i].r)));
    }
    EXPECT_EQ(m["labels"]["kept"], count) << m["output"];
  }
  EXPECT_EQ(tiles, 16);
  // Every object (all smaller than the 100 x 75 pixels the tiles share) is whole in some tile.
  std::size_t whole = 0;
  for (std::size_t i = 0; i < objs.size(); ++i) {
    EXPECT_GT(best[i], 0.999) << "object " << i << " at " << objs[i].r;
    whole += best[i] > 0.999;
  }
  EXPECT_EQ(whole, objs.size());
  EXPECT_GT(objs.size(), 40u);
}

TEST(Tile, BadSizesAndOverlapsAreUsageErrors) {
  testing::TempDir dir;
  big_dataset(dir / "ds");
  for (const auto& [size, overlap, says] :
       std::vector<std::tuple<std::string, std::string, std::string>>{{"0", "0.2", "at least 1x1"},
                                                                     {"64x", "0.2", "expected W or WxH"},
                                                                     {"abc", "0.2", "expected W or WxH"},
                                                                     {"64", "1", "--overlap must be in [0, 1)"}}) {
    const auto r = run_cli({"tile", "-i", (dir / "ds/images").string(), "-o", (dir / "t").string(), "--size", size,
                            "--overlap", overlap});
    EXPECT_EQ(r.code, 1) << size << " " << overlap;
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "t/tiles.jsonl"));
}

}  // namespace
}  // namespace aug::test_tile
