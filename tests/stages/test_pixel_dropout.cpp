// pixel_dropout: Albumentations' PixelDropout written out here (decision j, word j mod 3 of Philox
// block j / 3, below the threshold RNE(p 2^32) drops the value) against both backends on every type, with fixed
// and drawn drop values; the fraction dropped, the channels dropped together and the drawn values
// over many seeds; the import of drop_value None and of pixel values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/core/philox.hpp"
#include "lib/core/rng.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_pixel_dropout {
namespace {

using testing::compare;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;
using testing::noise::max_of;
using testing::noise::stream_of;

TEST(PixelDropout, FollowsTheReferenceOnEveryType) {
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (int C : {1, 3, 4})
      for (bool per_channel : {false, true})
        for (bool random : {false, true}) {
          const Image im = random_image({31, 13, C, t}, 3);
          const std::string stage = std::string(R"({"stage": "pixel_dropout", "p": 1, "dropout_prob": 0.3, )") +
                                    R"("drop_value": [0.2, 1], "per_channel": )" + (per_channel ? "true" : "false") +
                                    R"(, "random_drop_value": )" + (random ? "true" : "false") + "}";
          const testing::Both b = run_both(one_stage(stage), im, "drop.png");
          ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u) << stage;
          const k::KeyedStream s = stream_of("drop.png");
          Draws d(s);
          const double max = max_of(t);
          double value[3];
          for (int c = 0; c < std::min(C, 3); ++c) {
            if (!random) value[c] = t == DType::F32 ? static_cast<float>(c == 0 ? 0.2 : 1.0)
                                                    : std::nearbyint((c == 0 ? 0.2 : 1.0) * max);
            else if (t == DType::F32) value[c] = static_cast<float>(d.uniform());
            else value[c] = static_cast<double>(d.integer(0, static_cast<std::int64_t>(max) - 1));
          }
          const std::uint64_t threshold = static_cast<std::uint64_t>(std::nearbyint(0.3 * 4294967296.0));
          for (int y = 0; y < 13; ++y)
            for (int x = 0; x < 31; ++x) {
              const int cc = std::min(C, 3);
              auto word = [&](int j) {
                const auto r = k::philox4x32_10({{static_cast<std::uint32_t>(j / 3), 1, s.stage, s.copy}}, s.key0, s.key1);
                return r.v[j % 3];
              };
              for (int c = 0; c < C; ++c) {
                const int i = y * 31 + x;
                const bool drop = c < 3 && word(per_channel ? i * cc + c : i) < threshold;
                ASSERT_EQ(at(b.cpu, x, y, c), drop ? value[c] : at(im, x, y, c)) << stage << " " << x << "," << y;
              }
            }
        }
}

TEST(PixelDropout, FractionDroppedChannelsTogetherAndDrawnValues) {
  // A 256 x 256 mid-grey image, no drawn value equal to it (drop value 0).
  Image im({256, 256, 3, DType::U8});
  std::fill_n(im.data(), im.shape().values(), std::uint8_t{128});
  const double N = 256.0 * 256.0;
  for (double prob : {0.01, 0.2}) {
    const std::string p = std::to_string(prob);
    const Image shared = testing::run_cpu(R"({"stage": "pixel_dropout", "p": 1, "dropout_prob": )" + p + "}", im);
    const Image each =
        testing::run_cpu(R"({"stage": "pixel_dropout", "p": 1, "per_channel": true, "dropout_prob": )" + p + "}", im);
    double whole = 0;
    std::vector<double> k_of(4, 0);  // pixels with k channels dropped, per_channel
    for (std::size_t i = 0; i < im.shape().values(); i += 3) {
      const std::uint8_t* a = shared.data() + i;
      ASSERT_TRUE((a[0] == 0 && a[1] == 0 && a[2] == 0) || (a[0] == 128 && a[1] == 128 && a[2] == 128));
      whole += a[0] == 0;
      const std::uint8_t* b = each.data() + i;
      k_of[(b[0] == 0) + (b[1] == 0) + (b[2] == 0)] += 1;
    }
    EXPECT_NEAR(whole / N, prob, 5 * std::sqrt(prob * (1 - prob) / N)) << prob;
    // per_channel: the number of dropped channels of a pixel is Binomial(3, prob) (chi-square, 3 dof).
    double chi2 = 0;
    for (int k = 0; k <= 3; ++k) {
      const double e = N * (k == 0 ? 1 : (k == 3 ? 1 : 3)) * std::pow(prob, k) * std::pow(1 - prob, 3 - k);
      chi2 += (k_of[k] - e) * (k_of[k] - e) / e;
    }
    EXPECT_LT(chi2, 16.3) << prob;  // p = 0.001 for 3 degrees of freedom
  }
  // Drawn values: integers in [0, 254] (numpy's integers(0, 255)), every one as likely.
  const Pipeline pipe = one_stage(R"({"stage": "pixel_dropout", "p": 1, "random_drop_value": true})");
  std::vector<double> seen(256, 0);
  const int keys = 5100;
  for (int k = 0; k < keys; ++k) {
    const Plan plan = pipe.plan(3, "v" + std::to_string(k), 0, {8, 8, 3, DType::U8});
    for (const auto& v : plan.record[0]["params"]["drop_value"]) seen[static_cast<int>(std::lround(v.get<double>() * 255))] += 1;
  }
  EXPECT_EQ(seen[255], 0);
  const double e = 3.0 * keys / 255;
  double chi2 = 0;
  for (int v = 0; v < 255; ++v) chi2 += (seen[v] - e) * (seen[v] - e) / e;
  EXPECT_NEAR(chi2, 254, 5 * std::sqrt(2.0 * 254));
}

TEST(PixelDropout, ImportsDropValueInPixelsOrNone) {
  const nlohmann::json saved = nlohmann::json::parse(
      R"({"__version__": "2.0.8", "transform": {"__class_fullname__": "Compose", "transforms": [)"
      R"({"__class_fullname__": "PixelDropout", "dropout_prob": 0.1, "per_channel": true, "drop_value": 51, "p": 1},)"
      R"({"__class_fullname__": "PixelDropout", "drop_value": null, "mask_drop_value": 0},)"
      R"({"__class_fullname__": "PixelDropout", "drop_value": [255, 0, 51]}]}})");
  const Imported imp = import_albumentations(saved, "a.json");
  const auto& a = imp.pipeline["stages"][0];
  EXPECT_EQ(a["stage"], "pixel_dropout");
  EXPECT_EQ(a["dropout_prob"], 0.1);
  EXPECT_EQ(a["per_channel"], true);
  EXPECT_DOUBLE_EQ(a["drop_value"].get<double>(), 0.2);
  EXPECT_FALSE(a.contains("random_drop_value"));
  const auto& b = imp.pipeline["stages"][1];
  EXPECT_EQ(b["random_drop_value"], true);
  EXPECT_EQ(b["dropout_prob"], 0.01);
  EXPECT_EQ(b["p"], 0.5);
  ASSERT_EQ(imp.notes.size(), 1u);
  EXPECT_NE(imp.notes[0].find("mask_drop_value"), std::string::npos) << imp.notes[0];
  EXPECT_EQ(imp.pipeline["stages"][2]["drop_value"], nlohmann::ordered_json::array({1.0, 0.0, 0.2}));
  const Pipeline p = Pipeline::parse(imp.pipeline.dump(), "imported");  // the translation loads
  EXPECT_EQ(p.plan(1, "a.png", 0, {16, 16, 3, DType::U8}).steps.size(), 3u);
}

}  // namespace
}  // namespace aug::test_pixel_dropout
