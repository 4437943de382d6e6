// The COCO label format: the RLE codec, reading annotations into the model, lookup of images,
// errors for malformed annotations, and writing through per-output fragments gathered by finish().
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>

#include "lib/core/error.hpp"
#include "lib/datasets/format.hpp"
#include "lib/datasets/rle.hpp"
#include "lib/io/files.hpp"

namespace aug::test_labels_coco {
namespace {

using json = nlohmann::json;
using namespace aug::labels;

class Dir {
 public:
  Dir() {
    static std::atomic<int> n{0};
    path_ = fs::temp_directory_path() /
            ("augment-coco-test-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// Row-major 3x4 mask used throughout:
//   0 1 1 0
//   0 1 0 0
//   1 1 0 1
// Column-major: 0 0 1 | 1 1 1 | 1 0 0 | 0 0 1 -> runs 2 zeros, 5 ones, 4 zeros, 1 one.
BinaryMask small_mask() {
  return BinaryMask{4, 3, {0, 1, 1, 0, 0, 1, 0, 0, 1, 1, 0, 1}};
}

// A COCO file whose images are in file_name order and whose annotations follow their images, so
// that writing every image under its own name gives back an equal file.
json sample() {
  return json::parse(R"({
    "info": {"description": "test", "year": 2024},
    "licenses": [{"id": 1, "name": "CC"}],
    "categories": [{"id": 1, "name": "thing"}, {"id": 2, "name": "person", "keypoints": ["a", "b"]}],
    "custom": {"kept": true},
    "images": [
      {"id": 7, "file_name": "a.jpg", "width": 4, "height": 3, "license": 1, "coco_url": "http://x/a.jpg"},
      {"id": 8, "file_name": "dir/c.jpg", "width": 4, "height": 3},
      {"id": 9, "file_name": "sub/b.jpg", "width": 4, "height": 3, "date_captured": "2020"},
      {"id": 10, "file_name": "x/d.jpg", "width": 4, "height": 3},
      {"id": 11, "file_name": "y/d.jpg", "width": 4, "height": 3}
    ],
    "annotations": [
      {"id": 100, "image_id": 7, "category_id": 1, "bbox": [0.5, 0.25, 2.1, 1.7], "area": 2.5, "iscrowd": 0,
       "segmentation": [[0.5, 0.25, 2.6, 0.25, 2.6, 1.95], [1, 1, 2, 1, 2, 2, 1, 2]],
       "attributes": {"occluded": false}},
      {"id": 101, "image_id": 7, "category_id": 1, "bbox": [0, 0, 4, 3], "area": 6, "iscrowd": 1,
       "segmentation": {"size": [3, 4], "counts": "254L"}},
      {"id": 102, "image_id": 9, "category_id": 1, "bbox": [0, 0, 4, 3], "area": 6.0, "iscrowd": 1,
       "segmentation": {"size": [3, 4], "counts": [2, 5, 4, 1]}},
      {"id": 103, "image_id": 9, "category_id": 2, "bbox": [0.1, 0.2, 0.3, 0.4], "area": 0.12, "iscrowd": 0,
       "segmentation": [], "keypoints": [0.15, 0.25, 2, 0, 0, 0], "num_keypoints": 1},
      {"id": 104, "image_id": 10, "category_id": 1, "bbox": [1, 1, 1, 1], "area": 1, "iscrowd": 0}
    ]
  })");
}

struct Fixture {
  Dir dir;
  fs::path file;
  explicit Fixture(const json& doc = sample(), const std::string& name = "instances.json") {
    file = dir.path() / "in" / name;
    write_text(file, doc.dump(2));
  }
  std::unique_ptr<labels::Format> format(std::uint32_t copies = 1) const {
    FormatOptions o;
    o.copies = copies;
    return make_coco_format(file, o);
  }
  fs::path out() const { return dir.path() / "out"; }
};

// --- RLE ---------------------------------------------------------------------------------------

TEST(Rle, SmallMaskByHand) {
  const std::vector<std::uint32_t> counts = rle_from_mask(small_mask());
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{2, 5, 4, 1}));
  // 2, 5, 4 as single characters; the fourth is 1 - 5 = -4: 0x1c with the sign bit, + 48 = 'L'.
  EXPECT_EQ(rle_counts_to_string(counts), "254L");
  EXPECT_EQ(rle_counts_from_string("254L"), counts);
  EXPECT_EQ(rle_area(counts), 6u);
}

TEST(Rle, ColumnMajorToRowMajor) {
  const BinaryMask m = rle_to_mask({2, 5, 4, 1}, 3, 4);
  EXPECT_EQ(m.width, 4);
  EXPECT_EQ(m.height, 3);
  EXPECT_EQ(m.data, small_mask().data);
  // A single vertical run in column 1 of a 3x4 mask: pixels (1, 0), (1, 1), (1, 2).
  const BinaryMask col = rle_to_mask({3, 3, 6}, 3, 4);
  const std::vector<std::uint8_t> expected{0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0};
  EXPECT_EQ(col.data, expected);
}

TEST(Rle, MultiCharacterAndNegativeDifferences) {
  // 100 = 3 * 32 + 4: 'T' (4 | 0x20, + 48) then '3'.
  EXPECT_EQ(rle_counts_to_string({100}), "T3");
  EXPECT_EQ(rle_counts_from_string("T3"), (std::vector<std::uint32_t>{100}));
  const std::vector<std::uint32_t> counts{0, 70000, 3, 1, 123456, 2, 0xFFFFFFF0u, 5, 1};
  EXPECT_EQ(rle_counts_from_string(rle_counts_to_string(counts)), counts);
}

TEST(Rle, RandomRoundTrips) {
  std::mt19937 rng(7);
  for (int t = 0; t < 200; ++t) {
    BinaryMask m;
    m.width = 1 + static_cast<int>(rng() % 40);
    m.height = 1 + static_cast<int>(rng() % 40);
    m.data.resize(static_cast<std::size_t>(m.width * m.height));
    const unsigned density = rng() % 4;
    for (auto& v : m.data) v = (rng() % 8) < density * 2 ? 1 : 0;
    const auto counts = rle_from_mask(m);
    EXPECT_EQ(rle_to_mask(counts, m.height, m.width).data, m.data);
    EXPECT_EQ(rle_counts_from_string(rle_counts_to_string(counts)), counts);
  }
}

TEST(Rle, RejectsBadInput) {
  EXPECT_THROW(rle_to_mask({2, 5, 4}, 3, 4), std::invalid_argument);      // 11 of 12 pixels
  EXPECT_THROW(rle_to_mask({2, 5, 4, 2}, 3, 4), std::invalid_argument);   // 13 of 12
  EXPECT_THROW(rle_counts_from_string("25 4"), std::invalid_argument);    // ' ' below '0'
  EXPECT_THROW(rle_counts_from_string("2T"), std::invalid_argument);      // ends inside a count
  EXPECT_THROW(rle_counts_from_string("21O"), std::invalid_argument);     // third count: -1
}

// --- Reading -----------------------------------------------------------------------------------

TEST(CocoLabels, ReadsBoxesPolygonsMasksAndKeypoints) {
  Fixture f;
  auto format = f.format();
  EXPECT_EQ(format->name(), "coco");
  const ImageLabels a = format->read(f.dir.path() / "a.jpg", "a.jpg", 4, 3);
  ASSERT_EQ(a.objects.size(), 2u);
  const Object& poly = a.objects[0];
  EXPECT_EQ(poly.category, 1);
  ASSERT_TRUE(poly.box);
  EXPECT_DOUBLE_EQ(poly.box->x0, 0.5);
  EXPECT_DOUBLE_EQ(poly.box->y0, 0.25);
  EXPECT_DOUBLE_EQ(poly.box->x1, 0.5 + 2.1);
  EXPECT_DOUBLE_EQ(poly.box->y1, 0.25 + 1.7);
  ASSERT_EQ(poly.polygons.size(), 2u);
  ASSERT_EQ(poly.polygons[0].size(), 3u);
  EXPECT_DOUBLE_EQ(poly.polygons[0][1].x, 2.6);
  EXPECT_DOUBLE_EQ(poly.polygons[0][2].y, 1.95);
  EXPECT_EQ(poly.polygons[1].size(), 4u);
  EXPECT_FALSE(poly.mask);
  EXPECT_EQ(poly.extra["coco"]["attributes"], json::parse(R"({"occluded": false})"));
  EXPECT_EQ(poly.extra["coco"]["id"], 100);
  EXPECT_FALSE(poly.extra["coco"].contains("bbox"));
  EXPECT_EQ(poly.extra["coco_original"]["area"], 2.5);
  EXPECT_EQ(a.extra["coco_image"]["coco_url"], "http://x/a.jpg");

  const Object& crowd = a.objects[1];
  ASSERT_TRUE(crowd.mask);
  EXPECT_EQ(crowd.mask->data, small_mask().data);
  EXPECT_EQ(crowd.extra["coco_rle"], "compressed");
  EXPECT_EQ(crowd.extra["coco"]["iscrowd"], 1);

  const ImageLabels b = format->read(f.dir.path() / "sub/b.jpg", "sub/b.jpg", 4, 3);
  ASSERT_EQ(b.objects.size(), 2u);
  ASSERT_TRUE(b.objects[0].mask);
  EXPECT_EQ(b.objects[0].mask->data, small_mask().data);
  EXPECT_EQ(b.objects[0].extra["coco_rle"], "uncompressed");
  const Object& person = b.objects[1];
  EXPECT_EQ(person.category, 2);
  ASSERT_EQ(person.keypoints.size(), 2u);
  EXPECT_DOUBLE_EQ(person.keypoints[0].x, 0.15);
  EXPECT_DOUBLE_EQ(person.keypoints[0].y, 0.25);
  EXPECT_EQ(person.keypoints[0].v, 2);
  EXPECT_EQ(person.keypoints[1].v, 0);
  EXPECT_TRUE(person.polygons.empty());
}

TEST(CocoLabels, DerivesTheBoxFromPolygonOrMask) {
  json doc = sample();
  doc["annotations"][0].erase("bbox");
  doc["annotations"][1].erase("bbox");
  Fixture f(doc);
  const ImageLabels a = f.format()->read("a.jpg", "a.jpg", 4, 3);
  ASSERT_TRUE(a.objects[0].box);
  EXPECT_DOUBLE_EQ(a.objects[0].box->x0, 0.5);
  EXPECT_DOUBLE_EQ(a.objects[0].box->y0, 0.25);
  EXPECT_DOUBLE_EQ(a.objects[0].box->x1, 2.6);
  EXPECT_DOUBLE_EQ(a.objects[0].box->y1, 2);
  ASSERT_TRUE(a.objects[1].box);  // the mask's set pixels span the whole 4x3 image
  EXPECT_DOUBLE_EQ(a.objects[1].box->x0, 0);
  EXPECT_DOUBLE_EQ(a.objects[1].box->y0, 0);
  EXPECT_DOUBLE_EQ(a.objects[1].box->x1, 4);
  EXPECT_DOUBLE_EQ(a.objects[1].box->y1, 3);
}

TEST(CocoLabels, FindsImagesByRelativePathThenUniqueBasename) {
  Fixture f;
  auto format = f.format();
  EXPECT_EQ(format->read("x/d.jpg", "x/d.jpg", 4, 3).objects.size(), 1u);   // exact path
  EXPECT_EQ(format->read("y/d.jpg", "y/d.jpg", 4, 3).objects.size(), 0u);   // exact path, no objects
  EXPECT_EQ(format->read("z/d.jpg", "z/d.jpg", 4, 3).extra.size(), 0u);     // d.jpg is not unique
  const ImageLabels b = format->read("other/b.jpg", "other/b.jpg", 4, 3);   // unique basename
  EXPECT_EQ(b.objects.size(), 2u);
  EXPECT_EQ(b.extra["coco_image"]["id"], 9);
  const ImageLabels missing = format->read("nope.jpg", "nope.jpg", 4, 3);
  EXPECT_TRUE(missing.objects.empty());
  EXPECT_EQ(missing.width, 4);
  EXPECT_TRUE(format->output_path(f.out(), "a.jpg").empty());
}

TEST(CocoLabels, UnusableFilesAreUsageErrors) {
  Dir dir;
  FormatOptions o;
  EXPECT_THROW(make_coco_format(dir.path() / "missing.json", o), UsageError);
  write_text(dir.path() / "bad.json", "{\"images\": [");
  try {
    make_coco_format(dir.path() / "bad.json", o);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
  }
  write_text(dir.path() / "noann.json", R"({"images": []})");
  try {
    make_coco_format(dir.path() / "noann.json", o);
    FAIL() << "no error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("annotations"), std::string::npos) << e.what();
  }
}

TEST(CocoLabels, MalformedAnnotationsNameFileImageAndId) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("bbox": [1, 2, 3])", "bbox"},
      {R"("bbox": [1, 2, 3, "x"])", "bbox"},
      {R"("segmentation": [[1, 2, 3, 4, 5, 6, 7]])", "odd"},
      {R"("segmentation": [[1, 2, 3, 4]])", "fewer than 3"},
      {R"("keypoints": [1, 2, 2, 3])", "keypoints"},
      {R"("segmentation": {"size": [3, 4], "counts": [2, 5, 4]})", "RLE"},
      {R"("segmentation": {"size": [3, 4], "counts": "25 4"})", "RLE"},
      {R"("segmentation": {"size": [3], "counts": [12]})", "size"},
      {R"("segmentation": {"size": [2, 6], "counts": [12]})", "size"},
      {R"("segmentation": {"size": [3, 4], "counts": [2, -5, 4, 11]})", "RLE"},
  };
  for (const auto& [field, word] : cases) {
    json doc = json::parse(R"({"images": [{"id": 1, "file_name": "p/q.jpg", "width": 4, "height": 3}],
                               "annotations": [{"id": 5, "image_id": 1, "category_id": 1},
                                               {"id": 4242, "image_id": 1, "category_id": 1, )" +
                           field + "}]}");
    Fixture f(doc, "broken.json");
    auto format = f.format();
    EXPECT_TRUE(format->read("r.jpg", "r.jpg", 4, 3).objects.empty());  // other images still read
    try {
      format->read("p/q.jpg", "p/q.jpg", 4, 3);
      ADD_FAILURE() << "no error for " << field;
    } catch (const InputError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find(f.file.string()), std::string::npos) << m;
      EXPECT_NE(m.find("p/q.jpg"), std::string::npos) << m;
      EXPECT_NE(m.find("4242"), std::string::npos) << m;
      EXPECT_NE(m.find(word), std::string::npos) << field << ": " << m;
    }
  }
}

// --- Writing -----------------------------------------------------------------------------------

TEST(CocoLabels, IdentityRoundTripIsJsonEqual) {
  Fixture f;
  auto format = f.format();
  for (const char* rel : {"sub/b.jpg", "a.jpg", "y/d.jpg", "dir/c.jpg", "x/d.jpg"}) {
    ImageLabels labels = format->read(rel, rel, 4, 3);
    format->write(f.out(), rel, labels);
  }
  EXPECT_TRUE(fs::exists(f.out() / ".augment-labels" / "sub" / "b.jpg.json"));
  format->finish(f.out());
  const json written = read_json(f.out() / "instances.json");
  EXPECT_EQ(written, sample()) << written.dump(1);
}

TEST(CocoLabels, ImagesNotWrittenAreLeftOutAndCategoriesKept) {
  Fixture f;
  auto format = f.format();
  format->write(f.out(), "sub/b.jpg", format->read("sub/b.jpg", "sub/b.jpg", 4, 3));
  format->finish(f.out());
  const json written = read_json(f.out() / "instances.json");
  ASSERT_EQ(written["images"].size(), 1u);
  EXPECT_EQ(written["images"][0]["id"], 9);
  EXPECT_EQ(written["images"][0]["date_captured"], "2020");
  ASSERT_EQ(written["annotations"].size(), 2u);
  EXPECT_EQ(written["annotations"][0]["id"], 102);
  EXPECT_EQ(written["annotations"][1]["image_id"], 9);
  EXPECT_EQ(written["categories"], sample()["categories"]);
  EXPECT_EQ(written["custom"], sample()["custom"]);
}

TEST(CocoLabels, RenumbersWithSeveralCopies) {
  Fixture f;
  auto format = f.format(2);
  const ImageLabels a = format->read("a.jpg", "a.jpg", 4, 3);
  const ImageLabels b = format->read("sub/b.jpg", "sub/b.jpg", 4, 3);
  format->write(f.out(), "sub/b_1.jpg", b);
  format->write(f.out(), "a_1.jpg", a);
  format->write(f.out(), "a_0.jpg", a);
  format->write(f.out(), "sub/b_0.jpg", b);
  format->finish(f.out());
  const json w = read_json(f.out() / "instances.json");
  ASSERT_EQ(w["images"].size(), 4u);
  const std::vector<std::string> names{"a_0.jpg", "a_1.jpg", "sub/b_0.jpg", "sub/b_1.jpg"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(w["images"][i]["file_name"], names[i]);
    EXPECT_EQ(w["images"][i]["id"], i + 1);
  }
  EXPECT_EQ(w["images"][0]["coco_url"], "http://x/a.jpg");
  ASSERT_EQ(w["annotations"].size(), 8u);
  const std::vector<int> image_ids{1, 1, 2, 2, 3, 3, 4, 4};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(w["annotations"][i]["id"], i + 1);
    EXPECT_EQ(w["annotations"][i]["image_id"], image_ids[i]);
  }
  EXPECT_EQ(w["annotations"][0]["attributes"]["occluded"], false);
}

TEST(CocoLabels, MovedOutputsRecomputeAreaAndWriteTheModel) {
  Fixture f;
  auto format = f.format();
  ImageLabels a = format->read("a.jpg", "a.jpg", 4, 3);
  ImageLabels b = format->read("sub/b.jpg", "sub/b.jpg", 4, 3);
  // A horizontal flip of the 4-wide images, done by hand on the model.
  for (ImageLabels* l : {&a, &b}) {
    l->moved = true;
    for (Object& o : l->objects) {
      if (o.box) o.box = Box{4 - o.box->x1, o.box->y0, 4 - o.box->x0, o.box->y1};
      for (Polygon& p : o.polygons)
        for (Point& q : p) q.x = 4 - q.x;
      for (Keypoint& k : o.keypoints)
        if (k.v > 0) k.x = 4 - k.x;
      if (o.mask) {
        BinaryMask m = *o.mask;
        for (int y = 0; y < 3; ++y)
          for (int x = 0; x < 4; ++x) m.data[y * 4 + x] = o.mask->data[y * 4 + 3 - x];
        o.mask = m;
      }
    }
  }
  b.objects[1].keypoints[0].v = 1;
  b.objects[1].keypoints[1] = Keypoint{3, 2, 2};
  format->write(f.out(), "a.jpg", a);
  format->write(f.out(), "sub/b.jpg", b);
  format->finish(f.out());
  const json w = read_json(f.out() / "instances.json");
  ASSERT_EQ(w["annotations"].size(), 4u);
  const json& poly = w["annotations"][0];
  EXPECT_EQ(poly["bbox"], json::parse("[1.4, 0.25, 2.1, 1.7]"));
  EXPECT_EQ(poly["segmentation"], json::parse("[[3.5, 0.25, 1.4, 0.25, 1.4, 1.95], [3, 1, 2, 1, 2, 2, 3, 2]]"));
  // Shoelace: triangle 2.1 * 1.7 / 2 = 1.785, square 1: 2.785 -> 2.79 at two decimals.
  EXPECT_DOUBLE_EQ(poly["area"].get<double>(), 2.79);
  const json& crowd = w["annotations"][1];
  // Flipped mask, row-major: 0 1 1 0 / 0 0 1 0 / 1 0 1 1; column-major 0 0 1 | 1 0 0 | 1 1 1 | 0 0 1:
  // runs 2, 2, 2, 3, 2, 1; as a string "222" (the first three as they are), then each minus the
  // count two before: 3 - 2 = 1 ('1'), 2 - 2 = 0 ('0'), 1 - 3 = -2 (0x1e + 48 = 'N').
  EXPECT_EQ(crowd["segmentation"]["counts"], "22210N");
  EXPECT_EQ(rle_counts_from_string("22210N"), (std::vector<std::uint32_t>{2, 2, 2, 3, 2, 1}));
  EXPECT_EQ(crowd["segmentation"]["size"], json::parse("[3, 4]"));
  EXPECT_EQ(crowd["area"], 6);
  EXPECT_EQ(crowd["iscrowd"], 1);
  const json& list = w["annotations"][2];
  EXPECT_EQ(list["segmentation"]["counts"], json::parse("[2, 2, 2, 3, 2, 1]"));
  const json& person = w["annotations"][3];
  EXPECT_EQ(person["keypoints"], json::parse("[3.85, 0.25, 1, 3, 2, 2]"));
  EXPECT_EQ(person["num_keypoints"], 2);
  EXPECT_EQ(person["bbox"], json::parse("[3.6, 0.2, 0.3, 0.4]"));
  EXPECT_DOUBLE_EQ(person["area"].get<double>(), 0.12);  // box only: 0.3 * 0.4
  EXPECT_EQ(person["segmentation"], json::array());
  // The ids are kept with one copy.
  EXPECT_EQ(person["id"], 103);
  EXPECT_EQ(w["images"][1]["id"], 9);
}

TEST(CocoLabels, GathersFragmentsFromEarlierRuns) {
  Fixture f;
  {
    auto first = f.format();  // an interrupted run: wrote one image, never finished
    first->write(f.out(), "sub/b.jpg", first->read("sub/b.jpg", "sub/b.jpg", 4, 3));
  }
  // A temporary file left by a killed write is not a fragment.
  write_text(f.out() / ".augment-labels" / (std::string(kTempPrefix) + "1-0-zz.jpg.json"), "{ partial");
  auto second = f.format();  // the resumed run writes the rest
  for (const char* rel : {"a.jpg", "dir/c.jpg", "x/d.jpg", "y/d.jpg"})
    second->write(f.out(), rel, second->read(rel, rel, 4, 3));
  second->finish(f.out());
  EXPECT_EQ(read_json(f.out() / "instances.json"), sample());
}

TEST(CocoLabels, ImagesWithoutAnEntryGetFreshIds) {
  Fixture f;
  auto format = f.format();
  format->write(f.out(), "a.jpg", format->read("a.jpg", "a.jpg", 4, 3));
  ImageLabels extra = format->read("new.jpg", "new.jpg", 6, 5);
  extra.moved = true;
  Object o;
  o.category = 2;
  o.box = Box{1, 1, 3, 2};
  extra.objects.push_back(o);
  format->write(f.out(), "new.jpg", extra);
  format->finish(f.out());
  const json w = read_json(f.out() / "instances.json");
  ASSERT_EQ(w["images"].size(), 2u);
  EXPECT_EQ(w["images"][0]["id"], 7);
  EXPECT_EQ(w["images"][1]["id"], 8);
  EXPECT_EQ(w["images"][1]["width"], 6);
  const json& added = w["annotations"][2];
  EXPECT_EQ(added["id"], 102);
  EXPECT_EQ(added["image_id"], 8);
  EXPECT_EQ(added["bbox"], json::parse("[1, 1, 2, 1]"));
  EXPECT_EQ(added["area"], 2);
  EXPECT_EQ(added["iscrowd"], 0);
}

TEST(CocoLabels, WritesFromManyThreadsAtOnce) {
  Fixture f;
  auto format = f.format(3);
  const ImageLabels a = format->read("a.jpg", "a.jpg", 4, 3);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        const ImageLabels mine = format->read("sub/b.jpg", "sub/b.jpg", 4, 3);
        const std::string rel = "deep/" + std::to_string(i % 5) + "/img_" + std::to_string(t) + "_" + std::to_string(i) + ".jpg";
        format->write(f.out(), rel, i % 2 ? a : mine);
      }
    });
  for (auto& t : threads) t.join();
  format->finish(f.out());
  const json w = read_json(f.out() / "instances.json");
  EXPECT_EQ(w["images"].size(), 200u);
  EXPECT_EQ(w["annotations"].size(), 400u);
  EXPECT_EQ(w["annotations"][399]["id"], 400);
}

}  // namespace
}  // namespace aug::test_labels_coco
