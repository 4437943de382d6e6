// Region decode: a JPEG decoded only where the pipeline's first operation reads
// (Pipeline::footprint, DecodeOptions::region) gives the outputs of the whole decode, for every
// declared case of every stage as the first stage.
#include <gtest/gtest.h>

#include <set>

#include "lib/core/error.hpp"
#include "lib/io/codec.hpp"
#include "lib/run/devices.hpp"
#include "tests/stages/stage_cases.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_region_decode {
namespace {

TEST(RegionDecode, EveryDeclaredCaseGivesTheOutputsOfTheWholeDecode) {
  const Image gray = testing::sample("camera.png");
  const std::vector<std::pair<std::string, std::vector<std::uint8_t>>> files{
      {"rocket.jpg", testing::read_bytes(testing::samples_dir() / "rocket.jpg")},
      {"camera.jpg", encode_image(gray, Format::Jpeg, {85}).bytes}};
  auto cpu = make_cpu_backend(1);
  std::set<std::string> windowed;
  int compared = 0;
  for (const auto& [file, bytes] : files) {
    const Image whole = decode_image(bytes.data(), bytes.size(), {});
    for (const std::string& name : testing::stage_names()) {
      const StageSpec& spec = testing::stage_spec(name);
      for (const std::string& params : spec.cases) {
        const Pipeline p = testing::declared_pipeline(name, params);
        for (std::uint32_t copy = 0; copy < 4; ++copy) {
          const auto window = p.footprint(11, file, {copy}, whole.shape());
          if (!window) continue;
          Plan plan;
          try {
            plan = p.plan(11, file, copy, whole.shape());
          } catch (const InputError&) {
            continue;  // a case for other inputs (a channel count, a size)
          }
          DecodeOptions o;
          o.region = [&](const Shape& s) {
            EXPECT_EQ(s, whole.shape());
            return window;
          };
          const Image part = decode_image(bytes.data(), bytes.size(), o);
          const auto diff = testing::compare(cpu->run(plan, part, 0), cpu->run(plan, whole, 0));
          EXPECT_EQ(diff.count, 0u) << file << " " << name << " " << params << " copy " << copy << ": " << diff.str();
          ++compared;
          windowed.insert(name);
        }
      }
    }
  }
  // The crops read a window; stages that read the whole image (flip, resize, colour...) do not.
  EXPECT_TRUE(windowed.count("crop")) << compared;
  EXPECT_TRUE(windowed.count("random_resized_crop"));
  EXPECT_FALSE(windowed.count("flip"));
  EXPECT_FALSE(windowed.count("resize"));
  EXPECT_FALSE(windowed.count("invert"));
  EXPECT_GT(compared, 20);
}

TEST(RegionDecode, TheWindowIsWhatTheCopiesRead) {
  const Shape in{640, 480, 3, DType::U8};
  const Pipeline crop = testing::one_stage(R"({"stage": "crop", "size": [100, 50], "position": "center"})");
  // Columns 270..369, rows 215..264 (their corners at 269.5 and 369.5, 214.5 and 264.5), widened
  // by the reach of an interpolation (5, and 1 for rounding).
  EXPECT_EQ(crop.footprint(0, "a.jpg", {0}, in), (PixelRect{264, 209, 376, 271}));
  // Only the first operation counts; one that reads everything, anywhere in the copies, gives nothing.
  const Pipeline then = testing::one_stage(
      R"({"stage": "crop", "size": [100, 50], "position": "center"}, {"stage": "rotate", "angle": 30})");
  EXPECT_EQ(then.footprint(0, "a.jpg", {0}, in), (PixelRect{264, 209, 376, 271}));
  EXPECT_FALSE(testing::one_stage(R"({"stage": "flip"})").footprint(0, "a.jpg", {0}, in));
  const Pipeline sometimes = testing::one_stage(R"({"stage": "crop", "size": [100, 50], "p": 0.5})");
  std::vector<std::uint32_t> copies(16);
  for (std::uint32_t i = 0; i < copies.size(); ++i) copies[i] = i;
  EXPECT_FALSE(sometimes.footprint(0, "a.jpg", copies, in));
  // A window reaching past the image reads its border: the whole image.
  EXPECT_FALSE(testing::one_stage(R"({"stage": "crop", "size": [100, 50], "padding": 40, "position": "random",
                                      "border": "reflect101"})")
                   .footprint(0, "a.jpg", copies, in));
}

}  // namespace
}  // namespace aug::test_region_decode
