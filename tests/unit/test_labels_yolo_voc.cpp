// YOLO and Pascal VOC label files: reading into the model, label paths, malformed files, and
// writing back (byte for byte while nothing moved, edited values once something did).
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "lib/core/error.hpp"
#include "lib/datasets/format.hpp"

namespace aug::test_labels_yolo_voc {
namespace {

namespace fs = std::filesystem;
using labels::Box;
using labels::Format;
using labels::FormatOptions;
using labels::ImageLabels;
using labels::Object;

// A fresh folder under the system's temporary folder, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = fs::temp_directory_path() /
            ("augment-labels-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary);
  f << text;
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  EXPECT_TRUE(f.good()) << path;
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The message of the InputError `f` throws, or "" (and a failure) when it throws none.
template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

std::unique_ptr<Format> yolo(int keypoints = 0, int dims = 3) {
  FormatOptions o;
  o.keypoints = keypoints;
  o.keypoint_dims = dims;
  return labels::make_yolo_format(o);
}

std::unique_ptr<Format> voc() { return labels::make_voc_format(FormatOptions{}); }

// ---------------------------------------------------------------------------------------------
// YOLO

TEST(YoloLabels, Name) { EXPECT_EQ(yolo()->name(), "yolo"); }

TEST(YoloLabels, LabelPathReplacesTheLastImagesFolder) {
  auto f = yolo();
  EXPECT_EQ(f->output_path("/out", "images/train/a.jpg"), fs::path("/out/labels/train/a.txt"));
  EXPECT_EQ(f->output_path("/out", "images/train/images/b.png"), fs::path("/out/images/train/labels/b.txt"));
  EXPECT_EQ(f->output_path("/out", "train/c.jpeg"), fs::path("/out/train/c.txt"));
  EXPECT_EQ(f->output_path("/out", "d.jpg"), fs::path("/out/d.txt"));
  // Only folders count, and only a component named exactly `images`.
  EXPECT_EQ(f->output_path("/out", "myimages/images"), fs::path("/out/myimages/images.txt"));
  // The output folder's own name counts (-o aug/images writes aug/labels), folders above it never.
  EXPECT_EQ(f->output_path("/data/images", "x/e.jpg"), fs::path("/data/labels/x/e.txt"));
  EXPECT_EQ(f->output_path("/data/images/", "x/e.jpg"), fs::path("/data/labels/x/e.txt"));
  EXPECT_EQ(f->output_path("/home/images/aug", "x/e.jpg"), fs::path("/home/images/aug/x/e.txt"));
}

TEST(YoloLabels, ReadsFromTheLabelsFolderOfTheImagesPath) {
  TempDir dir;
  write_text(dir.path() / "ds/labels/val/nested/a.txt", "3 0.5 0.5 0.25 0.5\n");
  write_text(dir.path() / "ds/b.txt", "1 0.5 0.5 1 1\n");
  auto f = yolo();
  const ImageLabels a = f->read(dir.path() / "ds/images/val/nested/a.jpg", "val/nested/a.jpg", 200, 100);
  ASSERT_EQ(a.objects.size(), 1u);
  EXPECT_EQ(a.objects[0].category, 3);
  const ImageLabels b = f->read(dir.path() / "ds/b.png", "b.png", 10, 10);
  ASSERT_EQ(b.objects.size(), 1u);
  EXPECT_EQ(b.objects[0].category, 1);
}

TEST(YoloLabels, DetectionRowsBecomePixelBoxes) {
  TempDir dir;
  write_text(dir.path() / "labels/a.txt", "0 0.5 0.5 0.25 0.5\n\n  \n2 0.1 0.2 0.2 0.4\n");
  const ImageLabels l = yolo()->read(dir.path() / "images/a.jpg", "a.jpg", 200, 100);
  EXPECT_EQ(l.width, 200);
  EXPECT_EQ(l.height, 100);
  ASSERT_EQ(l.objects.size(), 2u);
  const Box& b = *l.objects[0].box;
  EXPECT_DOUBLE_EQ(b.x0, 75);
  EXPECT_DOUBLE_EQ(b.y0, 25);
  EXPECT_DOUBLE_EQ(b.x1, 125);
  EXPECT_DOUBLE_EQ(b.y1, 75);
  EXPECT_EQ(l.objects[1].category, 2);
  EXPECT_NEAR(l.objects[1].box->x0, 0, 1e-9);
  EXPECT_NEAR(l.objects[1].box->y0, 0, 1e-9);
  EXPECT_NEAR(l.objects[1].box->x1, 40, 1e-9);
  EXPECT_NEAR(l.objects[1].box->y1, 40, 1e-9);
  EXPECT_TRUE(l.objects[0].polygons.empty());
  EXPECT_TRUE(l.objects[0].keypoints.empty());
}

TEST(YoloLabels, SegmentRowsBecomeAPolygonAndItsBounds) {
  TempDir dir;
  write_text(dir.path() / "labels/a.txt", "5 0.1 0.2 0.5 0.1 0.4 0.9 0.2 0.6\n");
  const ImageLabels l = yolo()->read(dir.path() / "images/a.jpg", "a.jpg", 100, 50);
  ASSERT_EQ(l.objects.size(), 1u);
  const Object& o = l.objects[0];
  EXPECT_EQ(o.category, 5);
  ASSERT_EQ(o.polygons.size(), 1u);
  ASSERT_EQ(o.polygons[0].size(), 4u);
  EXPECT_NEAR(o.polygons[0][2].x, 40, 1e-9);
  EXPECT_NEAR(o.polygons[0][2].y, 45, 1e-9);
  EXPECT_NEAR(o.box->x0, 10, 1e-9);
  EXPECT_NEAR(o.box->y0, 5, 1e-9);
  EXPECT_NEAR(o.box->x1, 50, 1e-9);
  EXPECT_NEAR(o.box->y1, 45, 1e-9);
}

TEST(YoloLabels, PoseRowsWithThreeValuesPerKeypoint) {
  TempDir dir;
  write_text(dir.path() / "labels/a.txt", "0 0.5 0.5 0.5 0.5 0.25 0.5 2 0 0 0 0.75 0.25 1\n");
  const ImageLabels l = yolo(3, 3)->read(dir.path() / "images/a.jpg", "a.jpg", 100, 200);
  ASSERT_EQ(l.objects.size(), 1u);
  const auto& k = l.objects[0].keypoints;
  ASSERT_EQ(k.size(), 3u);
  EXPECT_NEAR(k[0].x, 25, 1e-9);
  EXPECT_NEAR(k[0].y, 100, 1e-9);
  EXPECT_EQ(k[0].v, 2);
  EXPECT_EQ(k[1].v, 0);
  EXPECT_NEAR(k[2].x, 75, 1e-9);
  EXPECT_NEAR(k[2].y, 50, 1e-9);
  EXPECT_EQ(k[2].v, 1);
  EXPECT_NEAR(l.objects[0].box->x0, 25, 1e-9);
  EXPECT_NEAR(l.objects[0].box->y1, 150, 1e-9);
}

TEST(YoloLabels, PoseRowsWithTwoValuesPerKeypoint) {
  TempDir dir;
  write_text(dir.path() / "labels/a.txt", "1 0.5 0.5 0.5 0.5 0.25 0.5 0 0\n");
  const ImageLabels l = yolo(2, 2)->read(dir.path() / "images/a.jpg", "a.jpg", 100, 200);
  ASSERT_EQ(l.objects.size(), 1u);
  const auto& k = l.objects[0].keypoints;
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].v, 2);
  EXPECT_NEAR(k[0].x, 25, 1e-9);
  EXPECT_NEAR(k[0].y, 100, 1e-9);
  EXPECT_EQ(k[1].v, 0);  // (0, 0): missing
}

TEST(YoloLabels, MalformedRowsNameTheFileAndLine) {
  TempDir dir;
  const fs::path image = dir.path() / "images/a.jpg";
  const std::string file = (dir.path() / "labels/a.txt").string();
  auto f = yolo();
  auto read = [&] { f->read(image, "a.jpg", 10, 10); };

  write_text(file, "0 0.5 0.5 0.1 0.1\n\n0 0.5 0.5 0.1\n");
  EXPECT_EQ(input_error(read), file + ":3: expected 5 values (class cx cy w h) or a segment "
                                      "(class x1 y1 x2 y2 x3 y3 ...), found 4");
  write_text(file, "0 0.1 0.1 0.2 0.2 0.3 0.3 0.4\n");  // even count
  EXPECT_EQ(input_error(read).rfind(file + ":1: expected 5 values", 0), 0u);
  write_text(file, "0 0.5 0.5 0.1 0.1\n-1 0.5 0.5 0.1 0.1\n");
  EXPECT_EQ(input_error(read).rfind(file + ":2: the class must be a non-negative integer", 0), 0u);
  write_text(file, "1.5 0.5 0.5 0.1 0.1\n");
  EXPECT_EQ(input_error(read).rfind(file + ":1: the class", 0), 0u);
  write_text(file, "a 0.5 0.5 0.1 0.1\n");
  EXPECT_EQ(input_error(read).rfind(file + ":1: the class", 0), 0u);
  write_text(file, "0 0.5 nan 0.1 0.1\n");
  EXPECT_EQ(input_error(read).rfind(file + ":1: value 3 is not a finite number", 0), 0u);
  write_text(file, "0 0.5 0.5 inf 0.1\n");
  EXPECT_EQ(input_error(read).rfind(file + ":1: value 4 is not a finite number", 0), 0u);
  write_text(file, "0 0.5 0.5x 0.1 0.1\n");
  EXPECT_EQ(input_error(read).rfind(file + ":1: value 3", 0), 0u);

  auto pose = yolo(2, 3);
  write_text(file, "0 0.5 0.5 0.1 0.1 0.1 0.1 2\n");
  EXPECT_EQ(input_error([&] { pose->read(image, "a.jpg", 10, 10); }).rfind(file + ":1: expected 11 values", 0), 0u);
  write_text(file, "0 0.5 0.5 0.1 0.1 0.1 0.1 2 0.2 0.2 3\n");
  EXPECT_EQ(input_error([&] { pose->read(image, "a.jpg", 10, 10); }).rfind(file + ":1: keypoint 2", 0), 0u);
}

TEST(YoloLabels, MissingOrEmptyFileIsAnImageWithoutObjects) {
  TempDir dir;
  auto f = yolo();
  const ImageLabels missing = f->read(dir.path() / "images/a.jpg", "a.jpg", 30, 20);
  EXPECT_TRUE(missing.objects.empty());
  EXPECT_EQ(missing.width, 30);
  EXPECT_EQ(missing.height, 20);
  write_text(dir.path() / "labels/b.txt", "");
  const ImageLabels empty = f->read(dir.path() / "images/b.jpg", "b.jpg", 30, 20);
  EXPECT_TRUE(empty.objects.empty());
  EXPECT_EQ(empty.width, 30);
}

// An identity pipeline: read, write unchanged, compare bytes.
void expect_identity(Format& f, const std::string& text, int w = 640, int h = 480) {
  TempDir dir;
  write_text(dir.path() / "in/labels/s/a.txt", text);
  const ImageLabels l = f.read(dir.path() / "in/images/s/a.jpg", "images/s/a.jpg", w, h);
  f.write(dir.path() / "out", "images/s/a.jpg", l);
  EXPECT_EQ(read_text(dir.path() / "out/labels/s/a.txt"), text);
}

TEST(YoloLabels, IdentityRoundTripIsByteIdentical) {
  auto f = yolo();
  expect_identity(*f, "0 0.5 0.5 0.25 0.5\n12 0.123 0.4567891 0.1 0.33333333333\n"
                      "3 0.1 0.2 0.5 0.1 0.4 0.9\n7 1 0 0.5 1\n");
  expect_identity(*f, "0 0.5 0.5 0.25 0.5\n1 0.25 0.25 0.5 0.5");  // no final newline
  expect_identity(*f, "0 0.5 0.5 0.25 0.5\r\n1 0.25 0.25 0.5 0.5\r\n");
  expect_identity(*f, "");
  auto pose = yolo(2, 3);
  expect_identity(*pose, "0 0.5 0.5 0.5 0.5 0.25 0.5 2 0 0 0\n0 0.4 0.4 0.2 0.2 0.3 0.3 1.0 0.35 0.35 2.0\n");
}

TEST(YoloLabels, WritesMovedLabelsNormalisedAndClamped) {
  TempDir dir;
  write_text(dir.path() / "labels/a.txt", "0 0.5 0.5 0.25 0.5\n4 0.5 0.5 0.1 0.1\n2 0.1 0.1 0.5 0.1 0.5 0.5\n");
  auto f = yolo();
  ImageLabels l = f->read(dir.path() / "images/a.jpg", "a.jpg", 200, 100);
  ASSERT_EQ(l.objects.size(), 3u);
  l.moved = true;
  l.objects[0].box = Box{-10, 10, 40, 60};  // shifted partly out: clipped to (0, 10, 40, 60)
  l.objects.erase(l.objects.begin() + 1);    // dropped
  // The segment: one point slightly outside on each side.
  l.objects[1].polygons[0] = {{-0.02, 10}, {200.5, 10}, {100, 100.25}};
  f->write(dir.path() / "out", "images/b.jpg", l);
  EXPECT_EQ(read_text(dir.path() / "out/labels/b.txt"),
            "0 0.100000 0.350000 0.200000 0.500000\n"
            "2 0.000000 0.100000 1.000000 0.100000 0.500000 1.000000\n");
}

TEST(YoloLabels, ClampsValuesJustOutsideTheImage) {
  TempDir dir;
  auto f = yolo();
  ImageLabels l;
  l.width = 1000;
  l.height = 1000;
  l.moved = true;
  Object o;
  o.category = 1;
  o.polygons = {{{-0.1, 1002.5}, {500, 500}, {1002.5, -0.1}}};  // -0.0001 and 1.0025
  o.extra["yolo_kind"] = "segment";
  l.objects.push_back(o);
  Object p;
  p.box = Box{-0.1, -0.0004, 1002.5, 1000};
  l.objects.push_back(p);
  f->write(dir.path(), "a.jpg", l);
  const std::string text = read_text(dir.path() / "a.txt");
  EXPECT_EQ(text,
            "1 0.000000 1.000000 0.500000 0.500000 1.000000 0.000000\n"
            "0 0.500000 0.500000 1.000000 1.000000\n");
  EXPECT_EQ(text.find("-0"), std::string::npos);
}

TEST(YoloLabels, WritesMovedPoseRows) {
  TempDir dir;
  write_text(dir.path() / "labels/a.txt", "0 0.5 0.5 0.5 0.5 0.25 0.5 2 0.5 0.5 1\n");
  auto f = yolo(2, 3);
  ImageLabels l = f->read(dir.path() / "images/a.jpg", "a.jpg", 100, 100);
  l.moved = true;
  l.objects[0].box = Box{0, 0, 50, 50};
  l.objects[0].keypoints[0] = {10, 20, 2};
  l.objects[0].keypoints[1] = {0, 0, 0};  // left the image
  f->write(dir.path() / "out", "a.jpg", l);
  EXPECT_EQ(read_text(dir.path() / "out/a.txt"),
            "0 0.250000 0.250000 0.500000 0.500000 0.100000 0.200000 2.000000 0.000000 0.000000 0.000000\n");

  auto f2 = yolo(1, 2);
  ImageLabels l2;
  l2.width = l2.height = 100;
  l2.moved = true;
  Object o;
  o.box = Box{0, 0, 100, 100};
  o.keypoints = {{30, 40, 1}};
  l2.objects.push_back(o);
  f2->write(dir.path() / "out", "b.jpg", l2);
  EXPECT_EQ(read_text(dir.path() / "out/b.txt"), "0 0.500000 0.500000 1.000000 1.000000 0.300000 0.400000\n");
}

TEST(YoloLabels, NoObjectsWritesAnEmptyFile) {
  TempDir dir;
  auto f = yolo();
  ImageLabels l;
  l.width = l.height = 10;
  f->write(dir.path() / "out", "images/deep/er/a.jpg", l);
  const fs::path p = dir.path() / "out/labels/deep/er/a.txt";
  ASSERT_TRUE(fs::exists(p));
  EXPECT_EQ(fs::file_size(p), 0u);
}

// ---------------------------------------------------------------------------------------------
// Pascal VOC

const char* kVoc =
    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
    "<!-- exported by hand -->\n"
    "<annotation verified=\"yes\">\n"
    "\t<folder>VOC2012</folder>\n"
    "\t<filename>2007_000032.jpg</filename>\n"
    "\t<source>\n"
    "\t\t<database>The VOC2007 Database &amp; more</database>\n"
    "\t</source>\n"
    "\t<size>\n"
    "\t\t<width>500</width>\n"
    "\t\t<height>281</height>\n"
    "\t\t<depth>3</depth>\n"
    "\t</size>\n"
    "\t<segmented>1</segmented>\n"
    "\t<object>\n"
    "\t\t<name>aeroplane</name>\n"
    "\t\t<pose>Frontal</pose>\n"
    "\t\t<truncated>0</truncated>\n"
    "\t\t<difficult>0</difficult>\n"
    "\t\t<bndbox>\n"
    "\t\t\t<xmin>104</xmin>\n"
    "\t\t\t<ymin>78</ymin>\n"
    "\t\t\t<xmax>375</xmax>\n"
    "\t\t\t<ymax>183</ymax>\n"
    "\t\t</bndbox>\n"
    "\t</object>\n"
    "\t<object>\n"
    "\t\t<name>person</name>\n"
    "\t\t<pose>Left</pose>\n"
    "\t\t<truncated>1</truncated>\n"
    "\t\t<difficult>1</difficult>\n"
    "\t\t<bndbox>\n"
    "\t\t\t<xmin>195.5</xmin>\n"
    "\t\t\t<ymin>180</ymin>\n"
    "\t\t\t<xmax>213</xmax>\n"
    "\t\t\t<ymax>229</ymax>\n"
    "\t\t</bndbox>\n"
    "\t\t<part>\n"
    "\t\t\t<name>head</name>\n"
    "\t\t\t<bndbox><xmin>200</xmin><ymin>181</ymin><xmax>210</xmax><ymax>190</ymax></bndbox>\n"
    "\t\t</part>\n"
    "\t</object>\n"
    "\t<object>\n"
    "\t\t<name>person</name>\n"
    "\t\t<bndbox>\n"
    "\t\t\t<xmin> 26 </xmin>\n"
    "\t\t\t<ymin>189</ymin>\n"
    "\t\t\t<xmax>44</xmax>\n"
    "\t\t\t<ymax>238</ymax>\n"
    "\t\t</bndbox>\n"
    "\t</object>\n"
    "</annotation>\n";

TEST(VocLabels, Name) { EXPECT_EQ(voc()->name(), "voc"); }

TEST(VocLabels, AnnotationPathRules) {
  auto f = voc();
  EXPECT_EQ(f->output_path("/out", "VOC2012/JPEGImages/a.jpg"), fs::path("/out/VOC2012/Annotations/a.xml"));
  EXPECT_EQ(f->output_path("/out", "images/JPEGImages/x/a.jpg"), fs::path("/out/images/Annotations/x/a.xml"));
  EXPECT_EQ(f->output_path("/out", "images/train/images/b.png"), fs::path("/out/images/train/Annotations/b.xml"));
  EXPECT_EQ(f->output_path("/out", "train/c.jpg"), fs::path("/out/train/c.xml"));
  EXPECT_EQ(f->output_path("/out", "c.jpg"), fs::path("/out/c.xml"));
}

TEST(VocLabels, ReadsObjectsAsModelBoxes) {
  TempDir dir;
  write_text(dir.path() / "VOC/Annotations/2007_000032.xml", kVoc);
  const ImageLabels l = voc()->read(dir.path() / "VOC/JPEGImages/2007_000032.jpg", "2007_000032.jpg", 500, 281);
  EXPECT_EQ(l.width, 500);
  EXPECT_EQ(l.height, 281);
  ASSERT_EQ(l.objects.size(), 3u);
  const Object& a = l.objects[0];
  EXPECT_EQ(a.name, "aeroplane");
  EXPECT_DOUBLE_EQ(a.box->x0, 103);
  EXPECT_DOUBLE_EQ(a.box->y0, 77);
  EXPECT_DOUBLE_EQ(a.box->x1, 375);
  EXPECT_DOUBLE_EQ(a.box->y1, 183);
  EXPECT_EQ(a.extra["pose"], "Frontal");
  EXPECT_EQ(a.extra["difficult"], "0");
  EXPECT_EQ(l.objects[1].name, "person");
  EXPECT_DOUBLE_EQ(l.objects[1].box->x0, 194.5);
  EXPECT_EQ(l.objects[1].extra["truncated"], "1");
  ASSERT_TRUE(l.objects[1].extra.contains("voc_parts"));
  EXPECT_EQ(l.objects[1].extra["voc_parts"][0]["name"], "head");
  EXPECT_DOUBLE_EQ(l.objects[2].box->x0, 25);
}

TEST(VocLabels, SizeInTheFileNeedNotMatchTheImage) {
  TempDir dir;
  write_text(dir.path() / "Annotations/a.xml", kVoc);
  auto f = voc();
  ImageLabels l = f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 640, 360);
  EXPECT_EQ(l.width, 640);
  EXPECT_EQ(l.height, 360);
  f->write(dir.path() / "out", "JPEGImages/2007_000032.jpg", l);
  std::string want = kVoc;
  want.replace(want.find("500"), 3, "640");
  want.replace(want.find("281"), 3, "360");
  EXPECT_EQ(read_text(dir.path() / "out/Annotations/2007_000032.xml"), want);
}

TEST(VocLabels, IdentityRoundTripIsByteIdentical) {
  TempDir dir;
  write_text(dir.path() / "in/JPEGImages/2007_000032.xml", "not this one");
  write_text(dir.path() / "in/Annotations/2007_000032.xml", kVoc);
  auto f = voc();
  const ImageLabels l = f->read(dir.path() / "in/JPEGImages/2007_000032.jpg", "JPEGImages/2007_000032.jpg", 500, 281);
  f->write(dir.path() / "out", "JPEGImages/2007_000032.jpg", l);
  EXPECT_EQ(read_text(dir.path() / "out/Annotations/2007_000032.xml"), kVoc);

  // Also without a final newline, with CRLF, a BOM and a DOCTYPE.
  std::string crlf;
  for (char c : std::string(kVoc)) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  crlf = "\xEF\xBB\xBF" + crlf.substr(0, crlf.find("<!--")) + "<!DOCTYPE annotation [ <!ELEMENT a (b)> ]>" +
         crlf.substr(crlf.find("<!--"));
  crlf.resize(crlf.size() - 2);
  write_text(dir.path() / "in/Annotations/b.xml", crlf);
  const ImageLabels l2 = f->read(dir.path() / "in/JPEGImages/b.jpg", "b.jpg", 500, 281);
  ASSERT_EQ(l2.objects.size(), 3u);
  f->write(dir.path() / "out", "JPEGImages/2007_000032.jpg", l2);
  EXPECT_EQ(read_text(dir.path() / "out/Annotations/2007_000032.xml"), crlf);
}

TEST(VocLabels, MovedBoxesAndDroppedObjects) {
  TempDir dir;
  write_text(dir.path() / "Annotations/a.xml", kVoc);
  auto f = voc();
  ImageLabels l = f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 500, 281);
  l.moved = true;
  l.width = 250;
  l.height = 140;
  l.objects[0].box = Box{51.6, 38.2, 260.4, 91.5};  // xmax past the width: clamped to 250
  l.objects[1].box = Box{97.2, 90, 106.4, 114.4};  // xmin had a decimal point: 98.2
  l.objects.erase(l.objects.begin() + 2);
  l.objects[1].extra["voc_object"] = 1;  // a signed number (as after a JSON round trip) maps too
  f->write(dir.path() / "out", "JPEGImages/a.png", l);

  std::string want = kVoc;
  auto replace = [&](const std::string& from, const std::string& to) {
    const auto at = want.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    want.replace(at, from.size(), to);
  };
  replace("<filename>2007_000032.jpg</filename>", "<filename>a.png</filename>");
  replace("<width>500</width>", "<width>250</width>");
  replace("<height>281</height>", "<height>140</height>");
  replace("<xmin>104</xmin>\n\t\t\t<ymin>78</ymin>\n\t\t\t<xmax>375</xmax>\n\t\t\t<ymax>183</ymax>",
          "<xmin>53</xmin>\n\t\t\t<ymin>39</ymin>\n\t\t\t<xmax>250</xmax>\n\t\t\t<ymax>92</ymax>");
  replace("<xmin>195.5</xmin>\n\t\t\t<ymin>180</ymin>\n\t\t\t<xmax>213</xmax>\n\t\t\t<ymax>229</ymax>",
          "<xmin>98.2</xmin>\n\t\t\t<ymin>91</ymin>\n\t\t\t<xmax>106</xmax>\n\t\t\t<ymax>114</ymax>");
  const auto third = want.find("\n\t<object>\n\t\t<name>person</name>\n\t\t<bndbox>");
  ASSERT_NE(third, std::string::npos);
  want.erase(third, want.find("</annotation>") - 1 - third);
  EXPECT_EQ(read_text(dir.path() / "out/Annotations/a.xml"), want);
  // The <part> stays as it was; the document still reads.
  const ImageLabels back = f->read(dir.path() / "out/JPEGImages/a.png", "a.png", 250, 140);
  ASSERT_EQ(back.objects.size(), 2u);
  EXPECT_DOUBLE_EQ(back.objects[0].box->x1, 250);
}

TEST(VocLabels, DroppingEveryObjectKeepsTheRestTidy) {
  TempDir dir;
  write_text(dir.path() / "Annotations/a.xml", kVoc);
  auto f = voc();
  ImageLabels l = f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 500, 281);
  l.objects.clear();
  f->write(dir.path() / "out", "2007_000032.jpg", l);
  const std::string text = read_text(dir.path() / "out/2007_000032.xml");
  EXPECT_EQ(text.find("<object>"), std::string::npos);
  EXPECT_NE(text.find("\t<segmented>1</segmented>\n</annotation>\n"), std::string::npos) << text;
}

TEST(VocLabels, MissingAnnotationGivesNoObjectsAndAMinimalDocument) {
  TempDir dir;
  auto f = voc();
  ImageLabels l = f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 64, 48);
  EXPECT_TRUE(l.objects.empty());
  EXPECT_EQ(l.width, 64);
  l.moved = true;
  Object o;
  o.name = "dog & cat";
  o.box = Box{0, 0, 10.4, 20.6};
  l.objects.push_back(o);
  f->write(dir.path() / "out", "JPEGImages/a.jpg", l);
  const std::string text = read_text(dir.path() / "out/Annotations/a.xml");
  EXPECT_EQ(text,
            "<annotation>\n\t<folder></folder>\n\t<filename>a.jpg</filename>\n\t<size>\n\t\t<width>64</width>\n"
            "\t\t<height>48</height>\n\t\t<depth>3</depth>\n\t</size>\n\t<segmented>0</segmented>\n"
            "\t<object>\n\t\t<name>dog &amp; cat</name>\n\t\t<pose>Unspecified</pose>\n\t\t<truncated>0</truncated>\n"
            "\t\t<difficult>0</difficult>\n\t\t<bndbox>\n\t\t\t<xmin>1</xmin>\n\t\t\t<ymin>1</ymin>\n"
            "\t\t\t<xmax>10</xmax>\n\t\t\t<ymax>21</ymax>\n\t\t</bndbox>\n\t</object>\n</annotation>\n");
  const ImageLabels back = f->read(dir.path() / "out/JPEGImages/a.jpg", "a.jpg", 64, 48);
  ASSERT_EQ(back.objects.size(), 1u);
  EXPECT_EQ(back.objects[0].name, "dog & cat");
}

TEST(VocLabels, CopiedObjectsAreAppended) {
  TempDir dir;
  write_text(dir.path() / "Annotations/a.xml", kVoc);
  auto f = voc();
  ImageLabels l = f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 500, 281);
  l.moved = true;
  Object copy = l.objects[0];
  copy.box = Box{0, 0, 10, 10};
  l.objects.push_back(copy);
  f->write(dir.path() / "out", "2007_000032.jpg", l);
  const ImageLabels back = f->read(dir.path() / "out/2007_000032.jpg", "a.jpg", 500, 281);
  ASSERT_EQ(back.objects.size(), 4u);
  EXPECT_EQ(back.objects[3].name, "aeroplane");
  EXPECT_EQ(back.objects[3].extra["pose"], "Frontal");
  EXPECT_DOUBLE_EQ(back.objects[3].box->x1, 10);
  EXPECT_DOUBLE_EQ(back.objects[0].box->x0, 103);
}

TEST(VocLabels, MalformedDocumentsNameTheFileAndLine) {
  TempDir dir;
  const std::string file = (dir.path() / "Annotations/a.xml").string();
  auto f = voc();
  auto read = [&] { f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 10, 10); };
  auto starts = [](const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; };

  write_text(file, "<annotation>\n  <object>\n    <name>x</nam>\n  </object>\n</annotation>\n");
  EXPECT_PRED2(starts, input_error(read), file + ":3: expected </name>, found </nam>");
  write_text(file, "<annotation>\n  <object>\n");
  EXPECT_PRED2(starts, input_error(read), file + ":3: end of file inside <object>");
  write_text(file, "<annotation>\n<object><bndbox>\n<xmin>1</xmin><ymin>a</ymin><xmax>2</xmax><ymax>3</ymax>"
                   "</bndbox></object></annotation>");
  EXPECT_PRED2(starts, input_error(read), file + ":3: <ymin> is not a number");
  write_text(file, "<annotation>\n<object><bndbox>\n<xmin>1</xmin><ymin>1</ymin><xmax>2</xmax>\n</bndbox>"
                   "</object></annotation>");
  EXPECT_PRED2(starts, input_error(read), file + ":2: <bndbox> without <ymax>");
  write_text(file, "<annotation>\n<filename>a & b</filename></annotation>");
  EXPECT_PRED2(starts, input_error(read), file + ":2: ");
  write_text(file, "<annotation>\n<!-- open comment\n</annotation>");
  EXPECT_PRED2(starts, input_error(read), file + ":2: unterminated comment");
  write_text(file, "<annotation></annotation>\n<annotation/>");
  EXPECT_PRED2(starts, input_error(read), file + ":2: a second root element");
  write_text(file, "<doc></doc>");
  EXPECT_PRED2(starts, input_error(read), file + ":1: expected an <annotation> root element");
  write_text(file, "<annotation a=b></annotation>");
  EXPECT_PRED2(starts, input_error(read), file + ":1: expected a quoted value");
  write_text(file, "");
  EXPECT_PRED2(starts, input_error(read), file + ":1: no root element");
}

TEST(VocLabels, EveryTruncatedDocumentIsAnInputError) {
  TempDir dir;
  const std::string full = kVoc;
  const std::size_t complete = full.find("</annotation>") + std::string("</annotation>").size();
  auto f = voc();
  for (std::size_t n = 0; n < complete; ++n) {
    write_text(dir.path() / "Annotations/a.xml", full.substr(0, n));
    try {
      f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 10, 10);
      ADD_FAILURE() << "read a document cut after " << n << " bytes";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("a.xml:"), std::string::npos) << e.what();
    }
  }
  write_text(dir.path() / "Annotations/a.xml", full.substr(0, complete));
  EXPECT_EQ(f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 10, 10).objects.size(), 3u);
}

TEST(VocLabels, ParsesEntitiesCdataAndSelfClosingElements) {
  TempDir dir;
  write_text(dir.path() / "Annotations/a.xml",
             "<?xml version='1.0'?><annotation><size><width/><height>5</height></size>"
             "<object><name><![CDATA[a<b]]> &#x41;&#66;&lt;</name><difficult/>"
             "<bndbox><xmin>1</xmin><ymin>1</ymin><xmax>3</xmax><ymax>4</ymax></bndbox></object></annotation>");
  auto f = voc();
  ImageLabels l = f->read(dir.path() / "JPEGImages/a.jpg", "a.jpg", 7, 5);
  ASSERT_EQ(l.objects.size(), 1u);
  EXPECT_EQ(l.objects[0].name, "a<b AB<");
  EXPECT_EQ(l.objects[0].extra["difficult"], "");
  f->write(dir.path() / "out", "a.jpg", l);
  const std::string text = read_text(dir.path() / "out/a.xml");
  EXPECT_NE(text.find("<size><width>7</width><height>5</height></size>"), std::string::npos) << text;
}

}  // namespace
}  // namespace aug::test_labels_yolo_voc
