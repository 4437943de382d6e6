// `augment preview`: the HTML sheet's tiles are the bytes `augment run` writes for the same copies;
// captions name the stages that fired; labels are drawn over the tiles; the PNG sheet; refusals.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "tests/support/testing.hpp"

namespace aug::test_preview {
namespace {

namespace fs = std::filesystem;
using testing::run_cli;

std::string unbase64(const std::string& s) {
  std::string out;
  int bits = 0;
  std::uint32_t acc = 0;
  for (char c : s) {
    int v;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    else if (c >= 'a' && c <= 'z') v = c - 'a' + 26;
    else if (c >= '0' && c <= '9') v = c - '0' + 52;
    else if (c == '+') v = 62;
    else if (c == '/') v = 63;
    else continue;  // '=' padding
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

// The embedded tiles of the sheet: (alt, bytes) in page order (the mask overlays are not tiles).
std::vector<std::pair<std::string, std::string>> tiles(const std::string& html) {
  std::vector<std::pair<std::string, std::string>> out;
  const std::string open = "<img alt=\"", data = ";base64,";
  for (std::size_t at = html.find(open); at != std::string::npos; at = html.find(open, at + 1)) {
    const std::size_t alt_end = html.find('"', at + open.size());
    const std::string alt = html.substr(at + open.size(), alt_end - at - open.size());
    if (alt == "mask") continue;
    const std::size_t b = html.find(data, alt_end) + data.size(), e = html.find('"', b);
    out.emplace_back(alt, unbase64(html.substr(b, e - b)));
  }
  return out;
}

const char* kPipeline = R"({"version": 1, "seed": 3, "stages": [
  {"stage": "random_resized_crop", "size": [96, 96]},
  {"stage": "flip", "p": 0.5},
  {"stage": "color_jitter", "brightness": 0.4, "hue": 0.1},
  {"stage": "rand_augment"}]})";

TEST(Preview, HtmlTilesAreTheBytesRunWrites) {
  testing::TempDir dir;
  fs::create_directories(dir / "in/sub");
  fs::copy_file(testing::samples_dir() / "chelsea.png", dir / "in/chelsea.png");
  fs::copy_file(testing::samples_dir() / "rocket.jpg", dir / "in/sub/rocket.jpg");
  fs::copy_file(testing::samples_dir() / "astronaut.jpg", dir / "in/zz.jpg");  // past --images 2
  std::ofstream(dir / "p.json") << kPipeline;
  auto r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(), "-o",
                    (dir / "sheet.html").string(), "--images", "2", "--variants", "3", "--device", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = run_cli({"run", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(), "-o", (dir / "out").string(),
               "--copies", "3", "--device", "cpu"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = testing::read_text(dir / "sheet.html");
  const auto t = tiles(html);
  ASSERT_EQ(t.size(), 8u);  // 2 images x (original + 3 copies)
  EXPECT_EQ(t[0].first, "original");
  EXPECT_EQ(t[0].second, testing::read_text(dir / "in/chelsea.png"));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(t[1 + k].first, "copy " + std::to_string(k));
    EXPECT_TRUE(t[1 + k].second == testing::read_text(dir / "out" / ("chelsea_" + std::to_string(k) + ".png"))) << "chelsea copy " << k;
    EXPECT_TRUE(t[5 + k].second == testing::read_text(dir / "out/sub" / ("rocket_" + std::to_string(k) + ".jpg"))) << "rocket copy " << k;
  }
  EXPECT_EQ(html.find("zz.jpg"), std::string::npos);
  // Captions: the stages that fired with their resolved parameters, as the manifest has them.
  EXPECT_NE(html.find("random_resized_crop crop=["), std::string::npos);
  EXPECT_NE(html.find("rand_augment ops=["), std::string::npos);
  EXPECT_NE(html.find("color_jitter brightness="), std::string::npos);
  // The same sheet from the emulated GPU.
  r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", (dir / "in").string(), "-o",
               (dir / "gpu.html").string(), "--images", "2", "--variants", "3", "--device", "cuda-emulated"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto g = tiles(testing::read_text(dir / "gpu.html"));
  ASSERT_EQ(g.size(), t.size());
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(g[i].second == t[i].second) << i;
}

TEST(Preview, LabelsAreDrawnOverTheTilesNotIntoThem) {
  testing::TempDir dir;
  fs::create_directories(dir / "ds/images");
  fs::create_directories(dir / "ds/labels");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/a.png");
  std::ofstream(dir / "ds/labels/a.txt") << "0 0.5 0.5 0.2 0.3\n1 0.25 0.25 0.1 0.1\n";
  std::ofstream(dir / "p.json") << R"({"version": 1, "stages": [{"stage": "flip"}]})";
  const auto r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
                          (dir / "s.html").string(), "--variants", "2", "--labels", "yolo"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string html = testing::read_text(dir / "s.html");
  std::size_t rects = 0;
  for (std::size_t at = html.find("<rect"); at != std::string::npos; at = html.find("<rect", at + 1)) ++rects;
  EXPECT_EQ(rects, 6u);  // 2 objects on the original and on each of the 2 copies
  // The flipped copy's first box: x from 0.4 W .. 0.6 W stays, the small one moves to 0.7 .. 0.8 W.
  EXPECT_NE(html.find("<rect x=\"204.8\" y=\"179.2\" width=\"102.4\""), std::string::npos);
  EXPECT_NE(html.find("<rect x=\"358.4\""), std::string::npos);
  const auto t = tiles(html);
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].second, testing::read_text(dir / "ds/images/a.png"));  // the pixels are not drawn on
}

// How often `s` occurs in `text`.
std::size_t count(const std::string& text, const std::string& s) {
  std::size_t n = 0;
  for (std::size_t at = text.find(s); at != std::string::npos; at = text.find(s, at + 1)) ++n;
  return n;
}

// Each box is tagged with its class: VOC's <name>, COCO's category name, YOLO's id.
TEST(Preview, BoxesAreTaggedWithTheirClass) {
  testing::TempDir dir;
  fs::create_directories(dir / "ds/JPEGImages");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/JPEGImages/a.png");
  testing::write_text(dir / "ds/Annotations/a.xml",
                      "<annotation><size><width>512</width><height>512</height><depth>1</depth></size>"
                      "<object><name>tripod</name><bndbox><xmin>201</xmin><ymin>201</ymin><xmax>300</xmax>"
                      "<ymax>300</ymax></bndbox></object></annotation>\n");
  testing::write_text(dir / "ds/JPEGImages/a.txt", "7 0.5 0.5 0.2 0.2\n");  // no images/ folder: beside it
  const nlohmann::json coco = {
      {"categories", {{{"id", 3}, {"name", "photographer"}}, {{"id", 4}, {"name", "coat"}}}},
      {"images", {{{"id", 1}, {"file_name", "a.png"}, {"width", 512}, {"height", 512}}}},
      {"annotations", {{{"id", 1}, {"image_id", 1}, {"category_id", 3}, {"bbox", {100, 50, 200, 300}}},
                       {{"id", 2}, {"image_id", 1}, {"category_id", 9}, {"bbox", {10, 10, 20, 20}}}}}};
  testing::write_text(dir / "ann.json", coco.dump());
  testing::write_text(dir / "p.json", R"({"version": 1, "stages": [{"stage": "flip"}]})");
  const auto sheet = [&](const std::string& labels) {
    const auto r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", (dir / "ds/JPEGImages").string(), "-o",
                            (dir / "s.html").string(), "--variants", "2", "--labels", labels});
    EXPECT_EQ(r.code, 0) << r.err;
    return testing::read_text(dir / "s.html");
  };
  EXPECT_EQ(count(sheet("voc"), ">tripod</span>"), 3u);  // the original and 2 copies
  const std::string c = sheet("coco=" + (dir / "ann.json").string());
  EXPECT_EQ(count(c, ">photographer</span>"), 3u);
  EXPECT_EQ(count(c, ">9</span>"), 3u);  // no category 9: its id
  EXPECT_EQ(count(c, ">coat</span>"), 0u);
  EXPECT_EQ(count(sheet("yolo"), ">7</span>"), 3u);
}

// Each tile's caption counts the objects its labels keep and those the label rules dropped.
TEST(Preview, CaptionsCountTheObjectsKeptAndDropped) {
  testing::TempDir dir;
  fs::create_directories(dir / "ds/images");
  fs::copy_file(testing::samples_dir() / "camera.png", dir / "ds/images/a.png");
  // Three objects in the middle, two in a corner that a centre crop cuts away.
  testing::write_text(dir / "ds/labels/a.txt",
                      "0 0.5 0.5 0.2 0.2\n1 0.45 0.45 0.1 0.1\n2 0.55 0.55 0.1 0.1\n3 0.05 0.05 0.05 0.05\n"
                      "3 0.95 0.95 0.05 0.05\n");
  testing::write_text(dir / "p.json", R"({"version": 1, "stages": [{"stage": "crop", "size": [256, 256]}]})");
  for (const char* out : {"s.html", "s.png"}) {
    const auto r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", (dir / "ds/images").string(), "-o",
                            (dir / out).string(), "--variants", "2", "--labels", "yolo"});
    ASSERT_EQ(r.code, 0) << r.err;
  }
  const std::string html = testing::read_text(dir / "s.html");
  EXPECT_EQ(count(html, ">5 objects</div>"), 1u);  // the original
  EXPECT_EQ(count(html, ">3 objects, 2 dropped</div>"), 2u);
  EXPECT_EQ(count(html, ">3</span>"), 2u);  // the dropped objects' class, on the original only
  EXPECT_FALSE(testing::imread((dir / "s.png").string()).empty());
}

TEST(Preview, PngSheetAndRefusals) {
  testing::TempDir dir;
  std::ofstream(dir / "p.json") << kPipeline;
  auto r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", (testing::samples_dir() / "coffee.png").string(),
                    "-o", (dir / "s.png").string(), "--variants", "4"});
  ASSERT_EQ(r.code, 0) << r.err;
  const cv::Mat sheet = testing::imread((dir / "s.png").string());
  ASSERT_FALSE(sheet.empty());
  EXPECT_EQ(sheet.cols, 5 * (200 + 8) + 8);  // original + 4 copies
  EXPECT_GT(sheet.rows, 200);
  r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", testing::samples_dir().string(), "-o",
               (dir / "s.txt").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("write a .html or a .png sheet"), std::string::npos) << r.err;
  fs::create_directories(dir / "empty");
  r = run_cli({"preview", "-c", (dir / "p.json").string(), "-i", (dir / "empty").string()});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no images under"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace aug::test_preview
