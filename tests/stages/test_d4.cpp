// d4 (Albumentations' D4 / SquareSymmetry): each drawn element against OpenCV's rotate / flip /
// transpose on both backends and every sample type, the eight elements drawn uniformly (chi-square),
// and the import of D4 and SquareSymmetry. Parity and determinism come from the declaration
// (test_catalog.cpp).
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <map>
#include <string>

#include <opencv2/core.hpp>

#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_import.hpp"
#include "tests/stages/geometry_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_d4 {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::geometry::both;
using testing::geometry::kTypes;

// Albumentations' element names as OpenCV calls (written from their definitions: np.rot90 turns
// counter-clockwise; v flips rows, h columns; hvt is the transpose of the 180-degree turn).
cv::Mat opencv_element(const cv::Mat& in, const std::string& e) {
  cv::Mat out, t;
  if (e == "e") out = in.clone();
  else if (e == "r90") cv::rotate(in, out, cv::ROTATE_90_COUNTERCLOCKWISE);
  else if (e == "r180") cv::rotate(in, out, cv::ROTATE_180);
  else if (e == "r270") cv::rotate(in, out, cv::ROTATE_90_CLOCKWISE);
  else if (e == "v") cv::flip(in, out, 0);
  else if (e == "h") cv::flip(in, out, 1);
  else if (e == "t") cv::transpose(in, out);
  else if (e == "hvt") {
    cv::rotate(in, t, cv::ROTATE_180);
    cv::transpose(t, out);
  } else {
    ADD_FAILURE() << "unknown element " << e;
  }
  return out;
}

TEST(D4, EachDrawnElementEqualsOpenCVOnBothBackends) {
  std::map<std::string, int> seen;
  for (DType t : kTypes)
    for (const Image& im : testing::geometry::photographs(t))
      for (int i = 0; i < 24; ++i) {
        const std::string key = "img" + std::to_string(i) + ".png";
        const testing::Both b = both(R"({"stage": "d4"})", im, key);
        const std::string e = b.plan.record[0]["params"]["element"].get<std::string>();
        ++seen[e];
        const Image theirs = from_mat(opencv_element(mat(im), e));
        ASSERT_EQ(b.cpu.shape(), theirs.shape()) << e;
        EXPECT_EQ(compare(b.cpu, theirs).count, 0u) << dtype_name(t) << " " << e;
      }
  EXPECT_EQ(seen.size(), 8u);
}

TEST(D4, TheEightElementsAreDrawnUniformly) {
  const Pipeline p = testing::one_stage(R"({"stage": "d4"})");
  const std::array<std::string, 8> names{"e", "r90", "r180", "r270", "v", "hvt", "h", "t"};
  std::map<std::string, int> n;
  const int N = 8000;
  for (int i = 0; i < N; ++i)
    ++n[testing::geometry::plan_params(p, Shape{5, 3, 1, DType::U8}, "k" + std::to_string(i))
            .at("element")
            .get<std::string>()];
  ASSERT_EQ(n.size(), 8u);
  double chi2 = 0;
  for (const std::string& e : names) {
    const double d = n[e] - N / 8.0;
    chi2 += d * d / (N / 8.0);
  }
  EXPECT_LT(chi2, 24.32) << "7 degrees of freedom, 0.1% level";
}

nlohmann::ordered_json import_one(const std::string& transform, const char* version) {
  const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                     R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                     transform + "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(D4, ImportsD4AndSquareSymmetry) {
  const auto a = import_one(R"({"__class_fullname__": "D4", "p": 1.0})", "1.4.4");
  EXPECT_EQ(a["stage"], "d4");
  EXPECT_EQ(a.value("p", 1.0), 1.0);  // p 1 is the stage's default: left out
  const auto b = import_one(R"({"__class_fullname__": "SquareSymmetry", "p": 0.25})", "2.0.8");
  EXPECT_EQ(b["stage"], "d4");
  EXPECT_EQ(b["p"], 0.25);
  EXPECT_NO_THROW(testing::one_stage(b.dump()));
  // From Python source, A.D4() takes Albumentations' default p, 1.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "augment-test-d4";
  std::filesystem::create_directories(dir);
  testing::write_text(dir / "t.py", "import albumentations as A\nt = A.Compose([A.D4(), A.SquareSymmetry(p=0.5)])\n");
  const auto imported = import_albumentations_python((dir / "t.py").string(), "");
  EXPECT_EQ(imported.pipeline["stages"][0]["stage"], "d4");
  EXPECT_EQ(imported.pipeline["stages"][0].value("p", 1.0), 1.0);
  EXPECT_EQ(imported.pipeline["stages"][1]["p"], 0.5);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aug::test_d4
