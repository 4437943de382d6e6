// The photographs with drawn objects that the label-aware stages' tests use: the objects are found
// again in the pixels where their labels say, before and after a geometric pipeline.
#include "tests/stages/label_support.hpp"

namespace aug::testing::test_label_draws {
namespace {

using labelled::draw_objects;
using labelled::find_colour;
using labelled::iou;

TEST(LabelDraws, DrawnObjectsAreFoundAgainWhereTheirBoxesSay) {
  const Image photo = sample_as("chelsea.png", DType::U8, 3);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const labelled::Drawn d = draw_objects(photo, 6, seed);
    ASSERT_EQ(d.labels.objects.size(), 6u) << "seed " << seed;
    for (std::size_t i = 0; i < d.labels.objects.size(); ++i) {
      const auto found = find_colour(d.image, d.colours[i]);
      ASSERT_TRUE(found) << "object " << i;
      EXPECT_GE(iou(*found, *d.labels.objects[i].box), 0.95) << "seed " << seed << " object " << i;
    }
  }
}

TEST(LabelDraws, MovedBoxesMatchTheObjectsInTheOutputOnBothBackends) {
  const Image photo = sample_as("chelsea.png", DType::U8, 3);
  const labelled::Drawn d = draw_objects(photo, 5, 7);
  const Pipeline p = Pipeline::parse(R"({"version": 1, "stages": [{"stage": "flip", "direction": "horizontal"},
      {"stage": "resize", "size": [300, 200], "interpolation": "nearest"}]})", "t.json");
  const labelled::Labelled r = labelled::run_labelled(p, d, "a.png", 0);
  ASSERT_EQ(r.labels.objects.size(), d.labels.objects.size());
  for (const labels::Object& o : r.labels.objects) {
    const auto found = find_colour(r.image, d.colours[static_cast<std::size_t>(o.category)]);
    ASSERT_TRUE(found) << "object " << o.category;
    // Nearest sampling at scale 2/3 drops rows and columns of a triangle's thin tips: 0.85 there.
    EXPECT_GE(iou(*found, *o.box), o.category % 2 == 0 ? 0.9 : 0.85) << "object " << o.category;
    // The label map moved with them: the object's pixels carry its index.
    const auto v = r.mask.ref().view<const std::uint8_t>();
    const int cx = static_cast<int>((found->x0 + found->x1) / 2), cy = static_cast<int>((found->y0 + found->y1) / 2);
    if (o.category % 2 == 0) {
      EXPECT_EQ(v.row(cy)[cx], o.category + 1) << "object " << o.category;
    }
  }
}

}  // namespace
}  // namespace aug::testing::test_label_draws
