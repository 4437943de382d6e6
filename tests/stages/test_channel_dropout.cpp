// channel_dropout: Albumentations' ChannelDropout. The outputs against the recorded channels and
// fill (every sample type, alpha kept; 8-bit photographs against the same job done with OpenCV);
// the count and the channels against Albumentations' draw (randint, then random.sample: every
// ordered choice of distinct channels equally likely), by chi-square over many images; the
// refusals (gray images, a range that could drop every channel); the import of
// channel_drop_range and fill / fill_value; the CPU path against the kernels run on the host.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include "lib/core/error.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "tests/stages/noise_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_channel_dropout {
namespace {

using testing::compare;
using testing::expect_parity;
using testing::one_stage;
using testing::random_image;
using testing::run_both;
using testing::noise::at;

std::vector<int> recorded_channels(const testing::Both& b) {
  return b.plan.record.at(0).at("params").at("channels").get<std::vector<int>>();
}

TEST(ChannelDropout, SetsTheRecordedChannelsToTheFillAndCopiesTheRest) {
  struct Case {
    const char* json;
    double fill_u8, fill_u16, fill_f32;  // the fill in each sample type
  };
  const Case cases[] = {
      {R"({"stage": "channel_dropout", "p": 1})", 0, 0, 0},
      // 0.5 * 255 = 127.5 and 0.5 * 65535 = 32767.5 round half to even.
      {R"({"stage": "channel_dropout", "p": 1, "channel_drop": [1, 2], "fill": 0.5})", 128, 32768, 0.5},
      {R"({"stage": "channel_dropout", "p": 1, "channel_drop": 2, "fill": 1})", 255, 65535, 1},
      // 0.3 * 255 and 0.3 * 65535 are 76.5 and 19660.5 or just below in double: 76 and 19660 either way.
      {R"({"stage": "channel_dropout", "p": 1, "channel_drop": [1, 2], "fill": 0.3})", 76, 19660, 0.3f},
  };
  int images = 0;
  for (const Case& k : cases)
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int C : {3, 4})
        for (const char* key : {"a.png", "b.png", "c.png", "d.png", "e.png"}) {
          const Image im = random_image({23, 7, C, t}, 4);
          const testing::Both b = run_both(one_stage(k.json), im, key);
          ASSERT_EQ(compare(b.cpu, b.emulated).count, 0u) << k.json;
          const std::vector<int> dropped = recorded_channels(b);
          const std::set<int> set(dropped.begin(), dropped.end());
          const double fill = t == DType::U8 ? k.fill_u8 : (t == DType::U16 ? k.fill_u16 : k.fill_f32);
          for (int y = 0; y < 7; ++y)
            for (int x = 0; x < 23; ++x)
              for (int c = 0; c < C; ++c)
                ASSERT_EQ(at(b.cpu, x, y, c), set.count(c) ? fill : at(im, x, y, c))
                    << k.json << " " << to_string(im.shape()) << " " << key << " at " << x << "," << y << "," << c;
          ++images;
        }
  EXPECT_EQ(images, 4 * 3 * 2 * 5);
}

TEST(ChannelDropout, PhotographsEqualTheSameJobDoneWithOpenCV) {
  for (const char* name : {"astronaut.jpg", "chelsea.png", "coffee_rgba.png"})
    for (const char* key : {"1.png", "2.png", "3.png"}) {
      const Image in = testing::sample(name);
      const testing::Both b = run_both(one_stage(R"({"stage": "channel_dropout", "p": 1, "channel_drop": [1, 2], "fill": 0.2})"),
                                       in, key);
      // split, the dropped planes set to 51 (0.2 * 255), merge.
      std::vector<cv::Mat> planes;
      cv::split(testing::mat(in), planes);
      for (const int c : recorded_channels(b)) planes[static_cast<std::size_t>(c)].setTo(51);
      cv::Mat merged;
      cv::merge(planes, merged);
      const Image want = testing::from_mat(merged);
      EXPECT_EQ(compare(b.cpu, want).count, 0u) << name << " " << key << ": " << compare(b.cpu, want).str();
      EXPECT_EQ(compare(b.emulated, want).count, 0u) << name << " " << key << " (kernels)";
    }
}

// Chi-square of observed counts against expected probabilities.
double chi_square(const std::map<std::vector<int>, int>& seen, const std::map<std::vector<int>, double>& p, int n) {
  double chi2 = 0;
  for (const auto& [outcome, prob] : p) {
    const auto it = seen.find(outcome);
    const double o = it == seen.end() ? 0 : it->second, e = prob * n;
    chi2 += (o - e) * (o - e) / e;
  }
  return chi2;
}

TEST(ChannelDropout, CountAndChannelsFollowAlbumentationsDraw) {
  // Albumentations: k = randint(lo, hi), then random.sample(range(3), k): each ordered choice of k
  // distinct channels has probability 1 / (hi - lo + 1) / (3 * 2 ... (3 - k + 1)).
  struct Range {
    const char* json;
    int lo, hi;
    double quantile;  // the chi-square's 0.999 quantile for (outcomes - 1) degrees of freedom
  };
  const Range ranges[] = {{R"({"stage": "channel_dropout", "p": 1})", 1, 1, 13.82},
                          {R"({"stage": "channel_dropout", "p": 1, "channel_drop": 2})", 2, 2, 20.52},
                          {R"({"stage": "channel_dropout", "p": 1, "channel_drop": [1, 2]})", 1, 2, 26.12}};
  const int n = 9000;
  for (const Range& r : ranges) {
    std::map<std::vector<int>, double> p;
    for (int k = r.lo; k <= r.hi; ++k) {
      const double each = 1.0 / (r.hi - r.lo + 1) / (k == 1 ? 3 : 6);
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          if (k == 1 && b == 0) p[{a}] = each;
          else if (k == 2 && a != b) p[{a, b}] = each;
    }
    const Pipeline pipeline = one_stage(r.json);
    std::map<std::vector<int>, int> seen;
    for (int i = 0; i < n; ++i) {
      const Plan plan = pipeline.plan(5, "img" + std::to_string(i) + ".png", 0, {4, 4, 3, DType::U8});
      const auto channels = plan.record.at(0).at("params").at("channels").get<std::vector<int>>();
      ASSERT_TRUE(p.count(channels)) << r.json << ": drew " << nlohmann::json(channels).dump();
      ++seen[channels];
    }
    const double chi2 = chi_square(seen, p, n);
    EXPECT_LT(chi2, r.quantile) << r.json << ": " << seen.size() << " outcomes seen of " << p.size();
    EXPECT_EQ(seen.size(), p.size()) << r.json;
  }
  // The default p is Albumentations' 0.5.
  int applied = 0;
  const Pipeline def = one_stage(R"({"stage": "channel_dropout"})");
  for (int i = 0; i < 2000; ++i) applied += def.plan(3, std::to_string(i), 0, {8, 8, 3, DType::U8}).steps.at(0).op ? 1 : 0;
  EXPECT_NEAR(applied / 2000.0, 0.5, 0.05);
}

TEST(ChannelDropout, RefusesGrayImagesAndRangesThatCouldDropEveryChannel) {
  const Pipeline p = one_stage(R"({"stage": "channel_dropout", "p": 1})");
  for (DType t : {DType::U8, DType::F32}) {
    try {
      (void)p.plan(1, "gray.png", 0, {8, 8, 1, t});
      ADD_FAILURE() << "a gray image was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("needs 3 or 4 channels"), std::string::npos) << e.what();
    }
  }
  for (const char* range : {"[1, 3]", "3", "[0, 1]", "0", "[2, 1]"}) {
    try {
      (void)one_stage(std::string(R"({"stage": "channel_dropout", "channel_drop": )") + range + "}");
      ADD_FAILURE() << "channel_drop " << range << " was accepted";
    } catch (const PipelineError& e) {
      EXPECT_NE(std::string(e.what()).find("channel_drop"), std::string::npos) << e.what();
    }
  }
}

nlohmann::ordered_json import_one(const char* version, const std::string& transform) {
  const nlohmann::json saved = nlohmann::json::parse(std::string(R"({"__version__": ")") + version +
                                                     R"(", "transform": {"__class_fullname__": "Compose", "transforms": [)" +
                                                     transform + "]}}");
  return import_albumentations(saved, "a.json").pipeline["stages"][0];
}

TEST(ChannelDropout, ImportsChannelDropRangeAndFillOfBothReleases) {
  const auto v1 = import_one("1.3.1", R"({"__class_fullname__": "albumentations.augmentations.transforms.ChannelDropout", )"
                                      R"("always_apply": false, "p": 0.3, "channel_drop_range": [1, 2], "fill_value": 51})");
  EXPECT_EQ(v1, nlohmann::ordered_json::parse(R"({"stage": "channel_dropout", "channel_drop": [1, 2], "fill": 0.2, "p": 0.3})"))
      << v1.dump();
  const auto v2 = import_one("2.0.8", R"({"__class_fullname__": "ChannelDropout", "channel_drop_range": [2, 2], "fill": 255})");
  EXPECT_EQ(v2["stage"], "channel_dropout");
  EXPECT_EQ(v2["channel_drop"], 2);
  EXPECT_EQ(v2["fill"], 1.0);
  EXPECT_EQ(v2["p"], 0.5);  // Albumentations' default
  const auto defaults = import_one("2.0.8", R"({"__class_fullname__": "ChannelDropout"})");
  EXPECT_EQ(defaults["channel_drop"], 1);
  EXPECT_FALSE(defaults.contains("fill")) << defaults.dump();  // the stage's default 0 is Albumentations'
  // The imported stage runs: its pipeline parses.
  EXPECT_NO_THROW(one_stage(v1.dump()));
  EXPECT_NO_THROW(one_stage(v2.dump()));
  for (const char* bad : {R"("channel_drop_range": [1, 3])", R"("channel_drop_range": [0, 1])",
                          R"("channel_drop_range": [2, 1])", R"("channel_drop_range": 1)"}) {
    try {
      (void)import_one("2.0.8", std::string(R"({"__class_fullname__": "ChannelDropout", )") + bad + "}");
      ADD_FAILURE() << bad << " was imported";
    } catch (const PipelineError& e) {
      EXPECT_NE(std::string(e.what()).find("channel_drop_range"), std::string::npos) << e.what();
    }
  }
}

TEST(ChannelDropout, CpuDriverEqualsTheKernelsForManyDraws) {
  expect_parity(R"({"stage": "channel_dropout", "p": 1, "channel_drop": [1, 2], "fill": 0.7})",
                {DType::U8, DType::U16, DType::F32}, {3, 4}, 6);
}

}  // namespace
}  // namespace aug::test_channel_dropout
