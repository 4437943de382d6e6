// morphological: against cv::dilate and cv::erode with OpenCV's own elliptical element (every type,
// 1/3/4 channels, element sizes 1 to 9 in each direction, both backends, photographs), the element
// spans against cv::getStructuringElement, label maps through the same operation, and the import.
#include <gtest/gtest.h>

#include <cstring>
#include <opencv2/imgproc.hpp>
#include <string>
#include <vector>

#include "lib/datasets/apply.hpp"
#include "lib/run/devices.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_morphological {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

std::string stage(int w, int h, bool dilate) {
  return R"({"stage": "morphological", "p": 1, "kernel_size": [)" + std::to_string(w) + ", " + std::to_string(h) +
         R"(], "operation": ")" + (dilate ? "dilation" : "erosion") + "\"}";
}

Image opencv_morph(const Image& in, int w, int h, bool dilate) {
  const cv::Mat element = cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(w, h));
  cv::Mat out;
  if (dilate) cv::dilate(testing::mat(in), out, element);
  else cv::erode(testing::mat(in), out, element);
  return testing::from_mat(out);
}

TEST(Morphological, EqualsOpenCVForEveryTypeAndSize) {
  int compared = 0;
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int c : {1, 3, 4})
      for (int w = 1; w <= 9; w += 1)
        for (int h : {1, 2, 3, 4, 7, 9}) {
          if ((w + h + c) % 3 != 0 && !(t == DType::U8)) continue;  // every size for 8-bit, a third for the others
          const bool dilate = (w + h) % 2 == 0;
          const Image in = testing::random_image({23 + w, 17 + h, c, t}, 7 * w + h + c);
          const Image want = opencv_morph(in, w, h, dilate);
          const auto b = run_both(one_stage(stage(w, h, dilate)), in);
          SCOPED_TRACE(std::to_string(w) + "x" + std::to_string(h) + " c=" + std::to_string(c) + " " +
                       to_string(in.shape()) + (dilate ? " dilate" : " erode"));
          ASSERT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
          ASSERT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
          ++compared;
        }
  EXPECT_GT(compared, 200);
}

TEST(Morphological, SmallImagesAndPhotographsEqualOpenCV) {
  for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {2, 9}, {9, 2}, {1, 5}, {3, 1}})
    for (bool dilate : {true, false}) {
      const Image in = testing::random_image({w, h, 3, DType::U8}, 3 + w);
      const auto b = run_both(one_stage(stage(5, 4, dilate)), in);
      const Image want = opencv_morph(in, 5, 4, dilate);
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << w << "x" << h;
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << w << "x" << h;
    }
  for (const char* name : {"astronaut.jpg", "coffee_rgba.png", "camera.png"})
    for (bool dilate : {true, false}) {
      const Image in = testing::sample(name);
      const auto b = run_both(one_stage(stage(2, 3, dilate)), in);
      const Image want = opencv_morph(in, 2, 3, dilate);
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << name;
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << name;
    }
}

TEST(Morphological, DefaultIsAlbumentationsDilationWithATwoByThreeEllipse) {
  const Pipeline p = one_stage(R"({"stage": "morphological", "p": 1})");
  const Plan plan = p.plan(1, "x.png", 0, {30, 20, 3, DType::U8});
  EXPECT_EQ(plan.record[0]["params"], nlohmann::json::parse(R"({"kernel_size": [2, 3], "operation": "dilation"})"));
  // A single bright pixel grows into the reflected element: rows above and below only its own column.
  Image in(Shape{7, 7, 1, DType::U8});
  for (int y = 0; y < 7; ++y) std::memset(in.row(y), 0, 7);
  in.row(3)[3] = 200;
  const auto b = run_both(p, in);
  const Image want = opencv_morph(in, 2, 3, true);
  EXPECT_EQ(compare(b.cpu, want).count, 0u);
  int lit = 0;
  for (int y = 0; y < 7; ++y)
    for (int x = 0; x < 7; ++x) lit += b.cpu.row(y)[x] == 200;
  EXPECT_EQ(lit, 4);  // OpenCV's 2 x 3 ellipse has 4 cells
}

TEST(Morphological, LabelMapsTakeTheSameOperation) {
  static auto cpu = make_cpu_backend(1);
  static auto emu = make_emulated_backend(1);
  Image mask(Shape{40, 30, 1, DType::U8});
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) mask.row(y)[x] = static_cast<std::uint8_t>((x / 7 + y / 5) % 4);
  for (bool dilate : {true, false}) {
    const Pipeline p = one_stage(stage(3, 5, dilate));
    const Plan plan = p.plan(1, "m.png", 0, {40, 30, 3, DType::U8});
    const Image moved = labels::move_mask(plan, mask, 0, *cpu, 0);
    const Image want = opencv_morph(mask, 3, 5, dilate);
    EXPECT_EQ(compare(moved, want).count, 0u);
    EXPECT_EQ(compare(labels::move_mask(plan, mask, 0, *emu, 0), want).count, 0u);
    EXPECT_GT(compare(moved, mask).count, 0u);
  }
}

TEST(Morphological, ParameterErrors) {
  EXPECT_THROW(one_stage(R"({"stage": "morphological", "kernel_size": 0})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "morphological", "kernel_size": [3, 100]})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "morphological", "operation": "opening"})"), PipelineError);
}

}  // namespace
}  // namespace aug::test_morphological
