// crop (no interpolation): the centre and random windows against OpenCV's submatrix, the positions a
// random window reaches, padding and pad_if_needed against torchvision RandomCrop's steps rebuilt here
// with cv::copyMakeBorder, on both backends; the CPU path's windows against the kernels run on the host;
// the whole image as the identity on every sample type and channel count; the error that names the
// parameter.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <set>
#include <string>
#include <utility>

#include <opencv2/core.hpp>

#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_import.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_crop {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::geometry::both;
using testing::geometry::kChannels;
using testing::geometry::kTypes;

TEST(Crop, CentreAndRandomWindows) {
  const Image im = testing::random_image({50, 40, 3, DType::U16}, 2);
  const Image centre = testing::run_cpu(R"({"stage": "crop", "size": [21, 10]})", im);
  EXPECT_EQ(compare(centre, from_mat(mat(im)(cv::Rect(14, 15, 21, 10)))).count, 0u);  // (50-21)/2, (40-10)/2
  const testing::Both b = testing::run_both(testing::one_stage(R"({"stage": "crop", "size": [21, 10], "position": "random"})"), im);
  const int x = b.plan.record[0]["params"]["x"], y = b.plan.record[0]["params"]["y"];
  EXPECT_LE(x, 29);
  EXPECT_LE(y, 30);
  EXPECT_EQ(compare(b.cpu, from_mat(mat(im)(cv::Rect(x, y, 21, 10)))).count, 0u);
}

TEST(Crop, RandomPositionsCoverTheImage) {
  const Pipeline p = testing::one_stage(R"({"stage": "crop", "size": [2, 2], "position": "random"})");
  std::set<std::pair<int, int>> seen;
  for (int i = 0; i < 400; ++i) {
    const Plan plan = p.plan(3, "f" + std::to_string(i), 0, {5, 4, 1, DType::U8});
    seen.insert({plan.record[0]["params"]["x"].get<int>(), plan.record[0]["params"]["y"].get<int>()});
  }
  EXPECT_EQ(seen.size(), 12u);  // 4 x 3 positions, all reached
}

// ---- torchvision RandomCrop's padding and pad_if_needed ----------------------------------------

// RandomCrop's steps, one after the other: pad by `padding` (l, t, r, b); then, with pad_if_needed,
// pad the width by (size - width) on the left and on the right, then the height likewise on the
// top and the bottom; then cut the window at (x, y).
cv::Mat torchvision_crop(const cv::Mat& in, int w, int h, const std::array<int, 4>& pad, bool pad_if_needed,
                         int border, const cv::Scalar& fill, int x, int y, int* padded_w, int* padded_h) {
  cv::Mat img = in.clone(), next;
  if (pad != std::array<int, 4>{0, 0, 0, 0}) {
    cv::copyMakeBorder(img, next, pad[1], pad[3], pad[0], pad[2], border, fill);
    img = next;
  }
  if (pad_if_needed && img.cols < w) {
    const int d = w - img.cols;
    cv::copyMakeBorder(img, next, 0, 0, d, d, border, fill);
    img = next;
  }
  if (pad_if_needed && img.rows < h) {
    const int d = h - img.rows;
    cv::copyMakeBorder(img, next, d, d, 0, 0, border, fill);
    img = next;
  }
  *padded_w = img.cols;
  *padded_h = img.rows;
  return img(cv::Rect(x, y, w, h)).clone();
}

TEST(Crop, PaddingAndPadIfNeededFollowTorchvisionRandomCrop) {
  struct Case {
    int w, h;
    std::array<int, 4> pad;
    bool pad_if_needed;
  };
  const Case cases[] = {{30, 20, {4, 2, 4, 2}, false}, {9, 9, {1, 2, 3, 4}, false}, {60, 50, {0, 0, 0, 0}, true},
                        {61, 8, {3, 3, 3, 3}, true},   {7, 70, {2, 0, 2, 0}, true},  {100, 90, {5, 1, 0, 2}, true}};
  for (DType t : kTypes)
    for (const Image& im : {testing::random_image({41, 39, 3, t}, 7), testing::random_image({5, 3, 4, t}, 8)})
      for (const auto& [name, cv_border] : testing::geometry::kCvBorders)
        for (const Case& c : cases)
          for (const char* position : {"center", "random"}) {
            const std::string stage =
                R"({"stage": "crop", "size": [)" + std::to_string(c.w) + "," + std::to_string(c.h) +
                R"(], "padding": [)" + std::to_string(c.pad[0]) + "," + std::to_string(c.pad[1]) + "," +
                std::to_string(c.pad[2]) + "," + std::to_string(c.pad[3]) + R"(], "pad_if_needed": )" +
                (c.pad_if_needed ? "true" : "false") + R"(, "border": ")" + name + R"(", "position": ")" + position +
                R"(", "fill": )" + testing::geometry::fill_json(t) + "}";
            SCOPED_TRACE(std::string(dtype_name(t)) + " " + to_string(im.shape()) + " " + stage);
            const int pw = im.shape().width + c.pad[0] + c.pad[2], ph = im.shape().height + c.pad[1] + c.pad[3];
            const bool fits = c.pad_if_needed || (c.w <= pw && c.h <= ph);
            if (!fits) {
              EXPECT_THROW(testing::run_both(testing::one_stage(stage), im), InputError);
              continue;
            }
            const testing::Both b = both(stage, im);
            const nlohmann::json& params = b.plan.record[0]["params"];
            const int x = params["x"], y = params["y"];
            int W = 0, H = 0;
            const cv::Mat theirs = torchvision_crop(mat(im), c.w, c.h, c.pad, c.pad_if_needed, cv_border,
                                                    testing::geometry::fill_scalar(t), x, y, &W, &H);
            ASSERT_LE(x, W - c.w);
            ASSERT_LE(y, H - c.h);
            if (std::string(position) == "center") {
              EXPECT_EQ(x, (W - c.w) / 2);
              EXPECT_EQ(y, (H - c.h) / 2);
            }
            EXPECT_EQ(compare(b.cpu, from_mat(theirs)).count, 0u);
            EXPECT_EQ(params["padding"], (nlohmann::json{c.pad[0], c.pad[1], c.pad[2], c.pad[3]}));
            EXPECT_EQ(params["pad_if_needed"],
                      (nlohmann::json{c.pad_if_needed ? std::max(0, c.w - pw) : 0,
                                      c.pad_if_needed ? std::max(0, c.h - ph) : 0}));
          }
}

TEST(Crop, NeverFailsOnASmallImageWithPadIfNeeded) {
  for (const auto& [w, h] : {std::pair{1, 1}, std::pair{2, 3}, std::pair{40, 1}})
    for (const char* border : {"constant", "reflect", "reflect101", "wrap", "replicate"}) {
      const Image im = testing::random_image({w, h, 3, DType::U8}, 9);
      const std::string stage = std::string(R"({"stage": "crop", "size": [17, 9], "position": "random", "pad_if_needed": true, "border": ")") + border + "\"}";
      const Image out = both(stage, im).cpu;
      EXPECT_EQ(out.shape().width, 17);
      EXPECT_EQ(out.shape().height, 9);
      EXPECT_THROW(testing::run_both(testing::one_stage(R"({"stage": "crop", "size": [17, 9]})"), im), InputError);
    }
}

// ---- the CPU path against the kernels ------------------------------------------------------------

// The window cut by the CPU path (with its padding) against the kernels run on the host, on
// photographs and random images of awkward sizes: 0 differing values.
TEST(Crop, WindowsAndPaddingEqualTheKernels) {
  for (const char* border : {"constant", "replicate", "reflect", "reflect101", "wrap"}) {
    const std::string b = std::string(R"(, "border": ")") + border + "\"";
    testing::expect_parity(
        R"({"stage": "crop", "size": [30, 20], "padding": [5, 3, 2, 7], "position": "random")" + b + "}", kTypes,
        kChannels, 3);
    testing::expect_parity(
        R"({"stage": "crop", "size": [70, 60], "padding": 4, "pad_if_needed": true, "position": "random")" + b + "}",
        kTypes, kChannels, 3);
    testing::expect_parity(R"({"stage": "crop", "size": [9, 4], "pad_if_needed": true)" + b + "}", kTypes, kChannels,
                           2);
  }
}

// ---- properties on every sample type and channel count -------------------------------------------

class CropIdentities : public testing::geometry::TypesAndChannels {};

TEST_P(CropIdentities, CropOfTheWholeImageIsTheIdentity) {
  const Image im = image();
  EXPECT_EQ(compare(testing::run_cpu(R"({"stage": "crop", "size": [41, 39], "position": "random"})", im), im).count,
            0u);
}

INSTANTIATE_TEST_SUITE_P(TypesAndChannels, CropIdentities, testing::geometry::types_and_channels(),
                         testing::geometry::type_and_channels_name);

// ---- errors ---------------------------------------------------------------------------------------

TEST(Crop, ErrorsNameTheParameter) {
  const std::string crop3 =
      testing::geometry::parse_error(R"({"stage": "crop", "size": 4, "padding": [1, 2, 3, 4, 5]})");
  EXPECT_NE(crop3.find("/stages/0/padding"), std::string::npos) << crop3;
}

TEST(Crop, OriginPlacesTheWindowAsAlbumentationsCrop) {
  const Image im = testing::random_image({37, 23, 3, DType::U8}, 5);
  // Albumentations' Crop(x_min=4, y_min=6, x_max=30, y_max=21): img[6:21, 4:30].
  const testing::Both b = testing::run_both(testing::one_stage(R"({"stage": "crop", "size": [26, 15], "origin": [4, 6]})"), im);
  EXPECT_EQ(compare(b.cpu, from_mat(mat(im)(cv::Rect(4, 6, 26, 15)))).count, 0u);
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
  // Reaching the far corner exactly is allowed; one pixel more is the file's error, naming the window.
  EXPECT_NO_THROW(testing::run_cpu(R"({"stage": "crop", "size": [26, 15], "origin": [11, 8]})", im));
  try {
    testing::run_cpu(R"({"stage": "crop", "size": [26, 15], "origin": [12, 8]})", im);
    ADD_FAILURE() << "a window past the image was cut";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("at (12, 8) reaches past the image (37x23)"), std::string::npos) << e.what();
  }
  // origin places the window: position is not drawn.
  const Image a = testing::run_cpu(R"({"stage": "crop", "size": [5, 5], "origin": [3, 2], "position": "random"})", im, "a.png");
  EXPECT_EQ(compare(a, from_mat(mat(im)(cv::Rect(3, 2, 5, 5)))).count, 0u);
}

TEST(Crop, ImportsAlbumentationsCrop) {
  const auto import_one = [](const std::string& version, const std::string& transform) {
    const std::string text = R"({"__version__": ")" + version +
                             R"(", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)" + transform +
                             "]}}";
    return import_albumentations(nlohmann::json::parse(text), "t.json").pipeline["stages"][0];
  };
  auto s = import_one("1.3.1", R"({"__class_fullname__": "Crop", "x_min": 10, "y_min": 5, "x_max": 110, "y_max": 65, "p": 1.0})");
  EXPECT_EQ(s["stage"], "crop");
  EXPECT_EQ(s["size"], nlohmann::json::parse("[100, 60]"));
  EXPECT_EQ(s["origin"], nlohmann::json::parse("[10, 5]"));
  EXPECT_NO_THROW(testing::one_stage(s.dump()));
  // 2.x's defaults: (0, 0) to (1024, 1024).
  s = import_one("2.0.8", R"({"__class_fullname__": "Crop", "pad_if_needed": false, "p": 1.0})");
  EXPECT_EQ(s["size"], nlohmann::json::parse("[1024, 1024]"));
  EXPECT_EQ(s["origin"], nlohmann::json::parse("[0, 0]"));
  EXPECT_THROW(import_one("2.0.8", R"({"__class_fullname__": "Crop", "x_max": 10, "y_max": 10, "pad_if_needed": true, "p": 1.0})"),
               PipelineError);
  EXPECT_THROW(import_one("2.0.8", R"({"__class_fullname__": "Crop", "x_min": 10, "x_max": 10, "p": 1.0})"), PipelineError);
  // From Python source, positionally as 1.x and 2.x read them.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "augment-test-crop";
  std::filesystem::create_directories(dir);
  testing::write_text(dir / "t.py", "import albumentations as A\nt = A.Compose([A.Crop(2, 3, 50, 40), A.Crop(y_max=20, x_max=30, p=0.5)])\n");
  const auto imported = import_albumentations_python((dir / "t.py").string(), "");
  EXPECT_EQ(imported.pipeline["stages"][0]["size"], nlohmann::json::parse("[48, 37]"));
  EXPECT_EQ(imported.pipeline["stages"][0]["origin"], nlohmann::json::parse("[2, 3]"));
  EXPECT_EQ(imported.pipeline["stages"][1]["size"], nlohmann::json::parse("[30, 20]"));
  EXPECT_EQ(imported.pipeline["stages"][1]["p"], 0.5);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aug::test_crop
