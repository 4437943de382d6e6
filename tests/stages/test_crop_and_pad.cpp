// crop_and_pad: Albumentations' CropAndPad steps rebuilt here with OpenCV (the window, cv::copyMakeBorder,
// cv::resize) against the stage on both backends over photographs and random images; the give-back
// rule of crops that leave nothing; the draws against Albumentations' definitions; labels and masks
// found again in the output pixels; the import of CropAndPad (1.x and 2.x names, Python).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_import.hpp"
#include "tests/stages/label_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_crop_and_pad {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;

// Albumentations' steps, written out: amounts (top, right, bottom, left) in pixels -> the output.
cv::Mat reference(const cv::Mat& src, std::array<int, 4> amount, int border, bool keep_size, int interp) {
  int top = std::max(-amount[0], 0), right = std::max(-amount[1], 0), bottom = std::max(-amount[2], 0),
      left = std::max(-amount[3], 0);
  const auto regain = [](int& c1, int& c2, int len) {  // the give-back rule, as Albumentations states it
    const int g = len + 1;
    int g1 = g / 2, g2 = g / 2;
    if (g1 + g2 < g) g1 += 1;
    if (g1 > c1) {
      g2 += g1 - c1;
      g1 = c1;
    } else if (g2 > c2) {
      g1 += g2 - c2;
      g2 = c2;
    }
    c1 = std::max(c1 - g1, 0);
    c2 = std::max(c2 - g2, 0);
  };
  if (src.rows - (top + bottom) < 1) regain(top, bottom, src.rows);
  if (src.cols - (left + right) < 1) regain(left, right, src.cols);
  cv::Mat out;
  cv::copyMakeBorder(src(cv::Rect(left, top, src.cols - left - right, src.rows - top - bottom)), out,
                     std::max(amount[0], 0), std::max(amount[2], 0), std::max(amount[3], 0), std::max(amount[1], 0),
                     border, cv::Scalar::all(0));
  if (keep_size && out.size() != src.size()) {
    cv::Mat resized;
    cv::resize(out, resized, src.size(), 0, 0, interp);
    return resized;
  }
  return out;
}

std::string px_stage(std::array<int, 4> a, const std::string& extra) {
  return R"({"stage": "crop_and_pad", "px": [)" + std::to_string(a[0]) + ", " + std::to_string(a[1]) + ", " +
         std::to_string(a[2]) + ", " + std::to_string(a[3]) + "]" + extra + "}";
}

TEST(CropAndPad, EqualsTheStepsWithOpenCvOnPhotographs) {
  const std::vector<std::array<int, 4>> amounts{{-10, 0, -25, 7}, {12, -30, 3, -1}, {-100, 40, 0, -64}, {0, 0, 0, 0},
                                                 {-5, -5, -5, -5}, {30, 30, 30, 30}};
  const std::vector<std::pair<std::string, int>> borders{{"constant", cv::BORDER_CONSTANT},
                                                          {"reflect101", cv::BORDER_REFLECT_101},
                                                          {"wrap", cv::BORDER_WRAP}};
  for (const std::string& name : testing::sampled(std::vector<std::string>{"chelsea.png", "astronaut.jpg", "coffee.png", "rocket.jpg"})) {
    const Image photo = testing::sample_as(name, DType::U8, 3);
    for (const auto& a : amounts)
      for (const auto& [word, border] : borders)
        for (const bool keep : {true, false}) {
          const std::string stage =
              px_stage(a, std::string(R"(, "border": ")") + word + R"(", "keep_size": )" + (keep ? "true" : "false"));
          const testing::Both b = testing::run_both(testing::one_stage(stage), photo);
          const cv::Mat want = reference(mat(photo), a, border, keep, cv::INTER_LINEAR_EXACT);
          EXPECT_EQ(compare(b.cpu, from_mat(want)).count, 0u) << name << " " << stage;
          EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << name << " " << stage;
        }
  }
}

TEST(CropAndPad, EveryTypeAndInterpolationEqualsTheKernels) {
  for (const DType t : {DType::U8, DType::U16, DType::F32})
    for (const int ch : {1, 3, 4})
      for (const std::string interp : {"nearest", "bilinear", "bicubic", "area", "lanczos"}) {
        const Image im = testing::random_image({37, 29, ch, t}, 3 + ch);
        const std::string stage =
            R"({"stage": "crop_and_pad", "percent": [-0.3, 0.3], "border": "reflect", "interpolation": ")" + interp + "\"}";
        const testing::Both b = testing::run_both(testing::one_stage(stage), im);
        EXPECT_EQ(b.cpu.shape().width, 37);
        EXPECT_EQ(b.cpu.shape().height, 29);
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << stage << " type " << int(t) << " channels " << ch;
      }
}

TEST(CropAndPad, CropsThatLeaveNothingGiveBackAsAlbumentations) {
  const Image im = testing::random_image({20, 11, 3, DType::U8}, 9);
  for (const auto& a : std::vector<std::array<int, 4>>{{-8, -15, -8, -15}, {-20, 0, 0, 0}, {0, -3, 0, -30}, {-6, 2, -6, 2}}) {
    const Image out = testing::run_cpu(px_stage(a, R"(, "keep_size": false)"), im);
    const cv::Mat want = reference(mat(im), a, cv::BORDER_CONSTANT, false, cv::INTER_LINEAR_EXACT);
    EXPECT_EQ(compare(out, from_mat(want)).count, 0u) << a[0] << " " << a[1] << " " << a[2] << " " << a[3];
    EXPECT_GE(out.shape().width, 1);
    EXPECT_GE(out.shape().height, 1);
  }
}

// The recorded window and padding of many draws.
std::vector<nlohmann::json> draws(const std::string& stage, int n, const Shape& shape) {
  const Pipeline p = testing::one_stage(stage);
  std::vector<nlohmann::json> out;
  for (int i = 0; i < n; ++i) out.push_back(p.plan(5, "d" + std::to_string(i) + ".png", 0, shape).record[0]["params"]);
  return out;
}

TEST(CropAndPad, DrawsFollowAlbumentationsDefinitions) {
  const Shape shape{100, 80, 3, DType::U8};
  // px [-4, 3] per side, independently: each side uniform over the 8 integers (chi-square, 7 degrees
  // of freedom, 0.1% level: 24.3), and the sides not all equal.
  std::array<std::map<int, int>, 4> counts;
  int unequal = 0;
  const int n = 4000;
  for (const auto& m : draws(R"({"stage": "crop_and_pad", "px": [-4, 3], "keep_size": false})", n, shape)) {
    const auto c = m["crop"].get<std::array<int, 4>>();
    const auto p = m["pad"].get<std::array<int, 4>>();
    // Amounts: top = pad top - crop top, right = pad right - (W - x - w) ...
    const std::array<int, 4> a{p[1] - c[1], p[2] - (100 - c[0] - c[2]), p[3] - (80 - c[1] - c[3]), p[0] - c[0]};
    for (int s = 0; s < 4; ++s) ++counts[s][a[s]];
    unequal += !(a[0] == a[1] && a[1] == a[2] && a[2] == a[3]);
  }
  for (int s = 0; s < 4; ++s) {
    double chi2 = 0;
    ASSERT_EQ(counts[s].size(), 8u) << "side " << s;
    EXPECT_EQ(counts[s].begin()->first, -4);
    EXPECT_EQ(counts[s].rbegin()->first, 3);
    for (const auto& [v, k] : counts[s]) chi2 += (k - n / 8.0) * (k - n / 8.0) / (n / 8.0);
    EXPECT_LT(chi2, 24.3) << "side " << s;
  }
  EXPECT_GT(unequal, n / 2);
  // One draw for all sides.
  for (const auto& m : draws(R"({"stage": "crop_and_pad", "px": [-4, 3], "sample_independently": false, "keep_size": false})", 200, shape)) {
    const auto c = m["crop"].get<std::array<int, 4>>();
    const auto p = m["pad"].get<std::array<int, 4>>();
    const int top = p[1] - c[1], left = p[0] - c[0];
    EXPECT_EQ(top, left) << m.dump();
    EXPECT_EQ(m["width"], 100 + 2 * left) << m.dump();
  }
  // percent [-0.2, 0.2]: the top amount is int(u * 80), truncated toward zero, u uniform: each of
  // -15..15 but 0 with probability 1/32, 0 with 2/32 (u in (-1/80, 1/80)). Chi-square, 30 degrees of
  // freedom, 0.1% level: 59.7.
  std::map<int, int> tops;
  for (const auto& m : draws(R"({"stage": "crop_and_pad", "percent": [-0.2, 0.2], "keep_size": false})", n, shape)) {
    const auto c = m["crop"].get<std::array<int, 4>>();
    const auto p = m["pad"].get<std::array<int, 4>>();
    ++tops[p[1] - c[1]];
  }
  ASSERT_EQ(tops.begin()->first, -15);
  ASSERT_EQ(tops.rbegin()->first, 15);
  double chi2 = 0;
  for (int k = -15; k <= 15; ++k) {
    const double want = n * (k == 0 ? 2.0 : 1.0) / 32;
    chi2 += (tops[k] - want) * (tops[k] - want) / want;
  }
  EXPECT_LT(chi2, 59.7);
}

TEST(CropAndPad, LabelsAndMasksMoveWithThePixels) {
  namespace labelled = testing::labelled;
  const Image photo = testing::sample_as("chelsea.png", DType::U8, 3);
  double sum = 0;
  int n = 0;
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const labelled::Drawn d = labelled::draw_objects(photo, 5, seed, 0.12);
    const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "crop_and_pad", "percent": [-0.15, 0.15],
        "interpolation": "nearest"}]})", "t.json");
    for (std::uint32_t copy = 0; copy < 4; ++copy) {
      const labelled::Labelled r = labelled::run_labelled(p, d, "a" + std::to_string(seed) + ".png", copy);
      for (const labels::Object& o : r.labels.objects) {
        const auto found = labelled::find_colour(r.image, d.colours[static_cast<std::size_t>(o.category)]);
        if (!found || o.box->x0 <= 0.5 || o.box->y0 <= 0.5 || o.box->x1 >= r.image.shape().width - 0.5 ||
            o.box->y1 >= r.image.shape().height - 0.5)
          continue;  // cut by the window: its visible part is what the box says only up to the cut
        sum += labelled::iou(*found, *o.box);
        ++n;
      }
    }
  }
  ASSERT_GT(n, 20);
  EXPECT_GE(sum / n, 0.95) << n << " objects";
}

TEST(CropAndPad, ParametersAreChecked) {
  for (const char* bad : {R"({"stage": "crop_and_pad"})", R"({"stage": "crop_and_pad", "px": 1, "percent": 0.1})",
                          R"({"stage": "crop_and_pad", "px": [1, 2, 3]})", R"({"stage": "crop_and_pad", "px": [3, 1]})",
                          R"({"stage": "crop_and_pad", "percent": -1})"})
    EXPECT_THROW(testing::one_stage(bad), PipelineError) << bad;
}

TEST(CropAndPad, ImportsAlbumentations1xAnd2x) {
  const auto import_one = [](const std::string& version, const std::string& transform) {
    const std::string text = R"({"__version__": ")" + version +
                             R"(", "transform": {"__class_fullname__": "Compose", "p": 1.0, "transforms": [)" + transform +
                             "]}}";
    return import_albumentations(nlohmann::json::parse(text), "t.json").pipeline["stages"][0];
  };
  // 1.x: pad_mode, pad_cval; a px range is randrange's [a, b).
  auto s = import_one("1.3.1", R"({"__class_fullname__": "CropAndPad", "px": [-10, 20], "percent": null, "pad_mode": 4,
      "pad_cval": 0, "pad_cval_mask": 0, "keep_size": true, "sample_independently": true, "interpolation": 1, "p": 1.0})");
  EXPECT_EQ(s["stage"], "crop_and_pad");
  EXPECT_EQ(s["px"], nlohmann::json::parse("[-10, 19]"));
  EXPECT_EQ(s["border"], "reflect101");
  EXPECT_NO_THROW(testing::one_stage(s.dump()));
  // 2.x: percent per side, border_mode and fill.
  s = import_one("2.0.8", R"({"__class_fullname__": "CropAndPad", "percent": [0.1, [-0.2, 0.0], -0.05, [0.0, 0.3]],
      "keep_size": false, "sample_independently": true, "interpolation": 0, "border_mode": 0, "fill": 114, "fill_mask": 0, "p": 0.5})");
  EXPECT_EQ(s["percent"], nlohmann::json::parse("[0.1, 0.1, -0.2, 0.0, -0.05, -0.05, 0.0, 0.3]"));
  EXPECT_EQ(s["keep_size"], false);
  EXPECT_EQ(s["fill"], 114);
  EXPECT_EQ(s["interpolation"], "nearest");
  EXPECT_EQ(s["p"], 0.5);
  EXPECT_NO_THROW(testing::one_stage(s.dump()));
  // A fill drawn per image, an empty px range, a list of choices: refused with the reason.
  EXPECT_THROW(import_one("2.0.8", R"({"__class_fullname__": "CropAndPad", "px": 4, "fill": [0, 255], "p": 1.0})"), PipelineError);
  EXPECT_THROW(import_one("2.0.8", R"({"__class_fullname__": "CropAndPad", "px": [3, 3], "p": 1.0})"), PipelineError);
  EXPECT_THROW(import_one("1.3.1", R"({"__class_fullname__": "CropAndPad", "px": [[1, 2, 3], 0, 0, 0], "p": 1.0})"), PipelineError);
  // From Python source.
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "augment-test-crop-and-pad";
  std::filesystem::create_directories(dir);
  testing::write_text(dir / "t.py", "import albumentations as A\nt = A.Compose([A.CropAndPad(px=(-16, 16)), A.CropAndPad(None, -0.1, p=0.3)])\n");
  const auto imported = import_albumentations_python((dir / "t.py").string(), "");
  EXPECT_EQ(imported.pipeline["stages"][0]["px"], nlohmann::json::parse("[-16, 15]"));
  EXPECT_EQ(imported.pipeline["stages"][1]["percent"], -0.1);
  EXPECT_EQ(imported.pipeline["stages"][1]["p"], 0.3);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace aug::test_crop_and_pad
