// downscale: 8-bit nearest and bilinear against the two cv::resize calls Albumentations makes
// (cv::resize(img, None, fx=s, fy=s), then back to the input's size) on photographs and odd sizes,
// on the CPU path and on the kernels run on the host; Albumentations' INTER_LINEAR, INTER_AREA and
// INTER_CUBIC within 1; the intermediate size (half to even, at least 1) and the factor the
// shrinking pass samples at; the draws; the import of Downscale under 1.x and 2.x parameters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_downscale {
namespace {

using testing::compare;
using testing::from_mat;
using testing::mat;
using testing::one_stage;
using testing::random_image;
using testing::run_both;

std::string downscale_json(double s, const std::string& down, const std::string& up) {
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.17g", s);
  return std::string(R"({"stage": "downscale", "p": 1, "scale": )") + scale + R"(, "down_interpolation": ")" + down +
         R"(", "up_interpolation": ")" + up + "\"}";
}

// Albumentations' two calls.
Image cv_downscale(const Image& in, double s, int down, int up) {
  cv::Mat mid, out;
  cv::resize(mat(in), mid, cv::Size(), s, s, down);
  cv::resize(mid, out, mat(in).size(), 0, 0, up);
  return from_mat(out);
}

// cv::resize refuses a side of 0.
bool opencv_takes(const Image& in, double s) {
  return std::nearbyint(in.width() * s) >= 1 && std::nearbyint(in.height() * s) >= 1;
}

struct Pair {
  const char* down;
  const char* up;
  int cv_down, cv_up;
};

// The engine's nearest is INTER_NEAREST and its 8-bit bilinear INTER_LINEAR_EXACT.
const Pair kExact[] = {{"nearest", "nearest", cv::INTER_NEAREST, cv::INTER_NEAREST},
                       {"nearest", "bilinear", cv::INTER_NEAREST, cv::INTER_LINEAR_EXACT},
                       {"bilinear", "nearest", cv::INTER_LINEAR_EXACT, cv::INTER_NEAREST},
                       {"bilinear", "bilinear", cv::INTER_LINEAR_EXACT, cv::INTER_LINEAR_EXACT},
                       {"lanczos", "lanczos", cv::INTER_LANCZOS4, cv::INTER_LANCZOS4},
                       {"nearest", "lanczos", cv::INTER_NEAREST, cv::INTER_LANCZOS4}};
const double kScales[] = {0.25, 0.3, 0.37, 0.5, 0.61, 0.9};

std::vector<std::pair<std::string, Image>> eight_bit_inputs() {
  std::vector<std::pair<std::string, Image>> in;
  for (const char* name : testing::sampled({"astronaut.jpg", "rocket.jpg", "chelsea.png", "camera.png", "coffee_rgba.png"}))
    in.emplace_back(name, testing::sample(name));
  std::uint32_t seed = 3;
  for (const auto& [w, h] : {std::pair{1001, 7}, std::pair{41, 39}, std::pair{2, 3}, std::pair{130, 5}})
    for (int c : {1, 3, 4})
      in.emplace_back(std::to_string(w) + "x" + std::to_string(h) + "c" + std::to_string(c),
                      random_image({w, h, c, DType::U8}, seed++));
  return in;
}

// Values that differ, other than in the last `margin` rows and columns.
std::size_t differences_inside(const Image& a, const Image& b, int margin) {
  std::size_t n = 0;
  for (int y = 0; y < a.height() - margin; ++y)
    for (int x = 0; x < (a.width() - margin) * a.channels(); ++x) n += a.row(y)[x] != b.row(y)[x];
  return n;
}

TEST(Downscale, EightBitEqualsTwoCvResizeCalls) {
  int compared = 0, half_cells = 0;
  for (const auto& [name, im] : eight_bit_inputs())
    for (double s : kScales) {
      if (!opencv_takes(im, s)) continue;
      for (const Pair& p : kExact) {
        const Image want = cv_downscale(im, s, p.cv_down, p.cv_up);
        const testing::Both b = run_both(one_stage(downscale_json(s, p.down, p.up)), im);
        const std::string what = name + " s " + std::to_string(s) + " " + p.down + "/" + p.up;
        EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << what << ": CPU path vs kernels";
        if (s == 0.5 && std::string(p.down) == "bilinear" && (im.width() % 2 || im.height() % 2)) {
          // OpenCV's 2x2 average rounds the partial last cell of an odd side half to even, the engine
          // half up: ties there differ by 1, in the last rows or columns only.
          EXPECT_LE(compare(b.cpu, want).max, 1.0) << what;
          EXPECT_EQ(differences_inside(b.cpu, want, 3), 0u) << what << ": " << compare(b.cpu, want).str();
          ++half_cells;
          continue;
        }
        EXPECT_EQ(compare(b.cpu, want).count, 0u) << what << " (CPU path): " << compare(b.cpu, want).str();
        EXPECT_EQ(compare(b.emulated, want).count, 0u) << what << " (kernels): " << compare(b.emulated, want).str();
        ++compared;
      }
    }
  EXPECT_GT(compared, 300);
  EXPECT_GT(half_cells, 10);
}

TEST(Downscale, SixteenBitNearestEqualsCvResize) {
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png"})
    for (double s : kScales) {
      const Image im = testing::sample_as(name, DType::U16, 3);
      const Image want = cv_downscale(im, s, cv::INTER_NEAREST, cv::INTER_NEAREST);
      const testing::Both b = run_both(one_stage(downscale_json(s, "nearest", "nearest")), im);
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << name << " s " << s;
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << name << " s " << s << " (kernels)";
    }
}

TEST(Downscale, ShrinkSamplesAtTheFactorNotTheSizeRatio) {
  // 1001 * 0.3 = 300.3: W' = 300, and 1001 / 300 != 1 / 0.3, so the two samplings differ.
  const Image im = random_image({1001, 9, 3, DType::U8}, 8);
  cv::Mat by_factor, by_size;
  cv::resize(mat(im), by_factor, cv::Size(), 0.3, 0.3, cv::INTER_NEAREST);
  cv::resize(mat(im), by_size, by_factor.size(), 0, 0, cv::INTER_NEAREST);
  ASSERT_GT(cv::norm(by_factor, by_size, cv::NORM_INF), 0) << "the case does not tell the two apart";
  cv::Mat want;
  cv::resize(by_factor, want, mat(im).size(), 0, 0, cv::INTER_NEAREST);
  const testing::Both b = run_both(one_stage(downscale_json(0.3, "nearest", "nearest")), im);
  EXPECT_EQ(compare(b.cpu, from_mat(want)).count, 0u);
  EXPECT_EQ(compare(b.emulated, from_mat(want)).count, 0u);
}

TEST(Downscale, AlbumentationsLinearAreaAndCubicAreWithinOnePerPass) {
  // Albumentations names cv2.INTER_LINEAR (OpenCV's vector code rounds it otherwise than
  // INTER_LINEAR_EXACT), INTER_AREA and INTER_CUBIC: within 1 after one such pass, 2 after two.
  struct Near {
    const char* down;
    const char* up;
    int cv_down, cv_up;
    double most;
  };
  const Near kNear[] = {{"bilinear", "nearest", cv::INTER_LINEAR, cv::INTER_NEAREST, 1},
                        {"nearest", "bilinear", cv::INTER_NEAREST, cv::INTER_LINEAR, 1},
                        {"area", "nearest", cv::INTER_AREA, cv::INTER_NEAREST, 1},
                        {"nearest", "area", cv::INTER_NEAREST, cv::INTER_AREA, 1},
                        {"bicubic", "nearest", cv::INTER_CUBIC, cv::INTER_NEAREST, 1},
                        {"nearest", "bicubic", cv::INTER_NEAREST, cv::INTER_CUBIC, 1},
                        {"bilinear", "bilinear", cv::INTER_LINEAR, cv::INTER_LINEAR, 2},
                        {"area", "bilinear", cv::INTER_AREA, cv::INTER_LINEAR, 2},
                        {"area", "area", cv::INTER_AREA, cv::INTER_AREA, 2}};
  for (const char* name : {"astronaut.jpg", "rocket.jpg", "camera.png"}) {
    const Image im = testing::sample(name);
    for (double s : {0.25, 0.37, 0.5})
      for (const Near& p : kNear) {
        const Image want = cv_downscale(im, s, p.cv_down, p.cv_up);
        const auto d = compare(testing::run_cpu(downscale_json(s, p.down, p.up), im), want);
        EXPECT_LE(d.max, p.most) << name << " s " << s << " " << p.down << "/" << p.up << ": " << d.str();
        std::printf("%s s %.2f %s/%s vs OpenCV: %zu of %zu values differ (max %g)\n", name, s, p.down, p.up, d.count,
                    im.shape().values(), d.max);
      }
  }
}

nlohmann::json resolved(const std::string& stage, const Shape& s, const std::string& key = "img.png") {
  const Plan plan = one_stage(stage).plan(3, key, 0, s);
  return plan.steps.at(0).op->params();
}

TEST(Downscale, IntermediateSizeRoundsHalfToEven) {
  // 10 * 0.25 = 2.5 -> 2, 14 * 0.25 = 3.5 -> 4: cv::resize's saturate_cast (half to even).
  const nlohmann::json m = resolved(downscale_json(0.25, "nearest", "nearest"), {10, 14, 1, DType::U8});
  EXPECT_EQ(m.at("width"), 2);
  EXPECT_EQ(m.at("height"), 4);
  cv::Mat mid;
  cv::resize(cv::Mat(14, 10, CV_8UC1, cv::Scalar(0)), mid, cv::Size(), 0.25, 0.25, cv::INTER_NEAREST);
  EXPECT_EQ(mid.cols, 2);
  EXPECT_EQ(mid.rows, 4);
  // A side OpenCV would make 0 is 1: 2 * 0.25 = 0.5 -> 0 -> 1. Nearest samples column 0.
  Image narrow({2, 40, 1, DType::U8});
  for (int y = 0; y < 40; ++y) narrow.row(y)[0] = static_cast<std::uint8_t>(y), narrow.row(y)[1] = 200;
  const testing::Both b = run_both(one_stage(downscale_json(0.25, "nearest", "nearest")), narrow);
  EXPECT_EQ(b.plan.steps.at(0).op->params().at("width"), 1);
  for (int y = 0; y < 40; ++y) {
    const int source = (y / 4) * 4;  // row y of 40 reads row floor(y * 10 / 40) of 10, which read row 4 * that
    EXPECT_EQ(b.cpu.row(y)[0], source) << y;
    EXPECT_EQ(b.cpu.row(y)[1], source) << y;
  }
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);
  // Unchanged sides are a copy, as OpenCV copies: 3 * 0.9 = 2.7 -> 3, 2 * 0.9 = 1.8 -> 2.
  const Image small = random_image({3, 2, 3, DType::U8}, 4);
  EXPECT_EQ(compare(testing::run_cpu(downscale_json(0.9, "bicubic", "bicubic"), small), small).count, 0u);
}

TEST(Downscale, ScaleIsUniformAndDefaultsAreAlbumentations) {
  const std::string stage =
      R"({"stage": "downscale", "p": 1, "scale": [0.2, 0.6], "down_interpolation": ["nearest", "area"]})";
  const int n = 4000, bins = 10;
  std::vector<int> counts(bins, 0);
  int area = 0;
  for (int i = 0; i < n; ++i) {
    const nlohmann::json m = resolved(stage, {640, 480, 3, DType::U8}, "img" + std::to_string(i) + ".png");
    const double s = m.at("scale").get<double>();
    ASSERT_GE(s, 0.2);
    ASSERT_LE(s, 0.6);
    ++counts[std::min(bins - 1, static_cast<int>((s - 0.2) / 0.4 * bins))];
    area += m.at("down_interpolation") == "area";
    EXPECT_EQ(m.at("width"), static_cast<int>(std::nearbyint(640 * s)));
  }
  // Chi-square with 9 degrees of freedom: 27.88 is its 0.999 quantile.
  double chi2 = 0;
  for (int c : counts) chi2 += (c - n / double(bins)) * (c - n / double(bins)) / (n / double(bins));
  EXPECT_LT(chi2, 27.88);
  EXPECT_NEAR(area / double(n), 0.5, 0.04);
  // Defaults: scale 0.25, nearest both ways, p 0.5.
  const Pipeline def = one_stage(R"({"stage": "downscale"})");
  int applied = 0;
  for (int i = 0; i < 2000; ++i) {
    const Plan plan = def.plan(3, std::to_string(i), 0, {64, 48, 3, DType::U8});
    if (!plan.steps.at(0).op) continue;
    ++applied;
    const nlohmann::json m = plan.steps.at(0).op->params();
    ASSERT_EQ(m.at("scale"), 0.25);
    ASSERT_EQ(m.at("down_interpolation"), "nearest");
    ASSERT_EQ(m.at("up_interpolation"), "nearest");
  }
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

nlohmann::ordered_json import_one(const std::string& transform, std::vector<std::string>* notes = nullptr) {
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "1.3.1", "transform": {"__class_fullname__": "Compose", "transforms": [)" + transform + "]}}");
  Imported imported = import_albumentations(saved, "a.json");
  if (notes) *notes = imported.notes;
  return imported.pipeline["stages"][0];
}

std::string import_error(const std::string& transform) {
  try {
    import_one(transform);
  } catch (const PipelineError& e) {
    return e.what();
  }
  return "";
}

TEST(Downscale, ImportsDownscale) {
  using oj = nlohmann::ordered_json;
  // 2.x: scale_range and interpolation_pair.
  const auto two = import_one(R"({"__class_fullname__": "Downscale", "p": 0.4, "scale_range": [0.3, 0.6],)"
                              R"( "interpolation_pair": {"downscale": 3, "upscale": 1}})");
  EXPECT_EQ(two["stage"], "downscale");
  EXPECT_EQ(two["scale"], oj::array({0.3, 0.6}));
  EXPECT_EQ(two["down_interpolation"], "area");
  EXPECT_EQ(two["up_interpolation"], "bilinear");
  EXPECT_EQ(two["p"], 0.4);
  // 1.x: scale_min, scale_max and one code for both, with the note on 1.x's float path.
  std::vector<std::string> notes;
  const auto one = import_one(
      R"({"__class_fullname__": "albumentations.augmentations.transforms.Downscale", "scale_min": 0.2, )"
      R"("scale_max": 0.4, "interpolation": 2})",
      &notes);
  EXPECT_EQ(one["scale"], oj::array({0.2, 0.4}));
  EXPECT_EQ(one["down_interpolation"], "bicubic");
  EXPECT_EQ(one["up_interpolation"], "bicubic");
  EXPECT_EQ(one["p"], 0.5);
  ASSERT_FALSE(notes.empty());
  EXPECT_NE(notes.back().find("1.x"), std::string::npos) << notes.back();
  // 1.x's object form; INTER_LINEAR_EXACT is bilinear.
  const auto dict = import_one(R"({"__class_fullname__": "Downscale", "scale_min": 0.5, "scale_max": 0.5, )"
                               R"("interpolation": {"downscale": 0, "upscale": 5}})");
  EXPECT_EQ(dict["scale"], 0.5);
  EXPECT_EQ(dict["down_interpolation"], "nearest");
  EXPECT_EQ(dict["up_interpolation"], "bilinear");
  // Nothing given: Albumentations' defaults.
  const auto bare = import_one(R"({"__class_fullname__": "Downscale"})");
  EXPECT_EQ(bare["scale"], 0.25);
  EXPECT_EQ(bare["down_interpolation"], "nearest");
  EXPECT_EQ(bare["up_interpolation"], "nearest");
  // Lanczos-4 (cv2 code 4) is resize's lanczos.
  const auto lanczos = import_one(
      R"({"__class_fullname__": "Downscale", "interpolation_pair": {"downscale": 0, "upscale": 4}})");
  EXPECT_EQ(lanczos["up_interpolation"], "lanczos");
  // Interpolations the engine does not have are refused, naming the parameter.
  const std::string nearest_exact = import_error(
      R"({"__class_fullname__": "Downscale", "interpolation_pair": {"downscale": 6, "upscale": 1}})");
  EXPECT_NE(nearest_exact.find("interpolation_pair.downscale"), std::string::npos) << nearest_exact;
  const std::string exact = import_error(R"({"__class_fullname__": "Downscale", "interpolation": 6})");
  EXPECT_NE(exact.find("\"interpolation\""), std::string::npos) << exact;
  EXPECT_NE(import_error(R"({"__class_fullname__": "Downscale", "scale_range": [0.5, 1.5]})").find("scale"),
            std::string::npos);
  // And so are words the stage does not take, naming the parameter.
  try {
    one_stage(R"({"stage": "downscale", "down_interpolation": "sinc"})");
    ADD_FAILURE() << "sinc accepted";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("down_interpolation"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace aug::test_downscale
