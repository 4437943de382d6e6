// equalize: PIL's ImageOps.equalize as torchvision writes it (a histogram per colour channel, integer
// arithmetic, float images binned to 256 levels) computed here value by value against the CPU
// backend on every sample type and a photograph, and known values of a narrow histogram on both
// backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/io/cv_bridge.hpp"
#include "tests/stages/color_support.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_equalize {
namespace {

using testing::run_both;
using testing::run_cpu;
using testing::color::at;
using testing::color::put;

// PIL's ImageOps.equalize as torchvision writes it, for one channel of `bins` values.
std::vector<std::int64_t> equalize_lut(const std::vector<std::int64_t>& hist) {
  const std::int64_t bins = static_cast<std::int64_t>(hist.size()), max = bins - 1;
  std::int64_t n = 0, last = 0;
  for (std::int64_t b = 0; b < bins; ++b) {
    n += hist[b];
    if (hist[b] > 0) last = b;
  }
  const std::int64_t step = (n - hist[last]) / max;
  std::vector<std::int64_t> lut(bins);
  if (step == 0) {
    for (std::int64_t b = 0; b < bins; ++b) lut[b] = b;
    return lut;
  }
  std::int64_t cum = 0;
  for (std::int64_t b = 0; b < bins; ++b) {
    lut[b] = std::min<std::int64_t>(max, (cum + step / 2) / step);
    cum += hist[b];
  }
  return lut;
}

template <class T>
void expect_equalized(const Image& in, const Image& out) {
  const Shape s = in.shape();
  const int cc = s.channels == 4 ? 3 : s.channels;
  const std::int64_t bins = std::is_same_v<T, std::uint16_t> ? 65536 : 256;
  auto bin = [](T v) -> std::int64_t {
    if constexpr (std::is_same_v<T, float>) return static_cast<std::int64_t>(std::clamp(v, 0.f, 1.f) * 255.999f);
    else return v;
  };
  for (int c = 0; c < s.channels; ++c) {
    std::vector<std::int64_t> hist(bins, 0);
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) ++hist[bin(at<T>(in, x, y, c))];
    const std::vector<std::int64_t> lut = equalize_lut(hist);
    for (int y = 0; y < s.height; ++y)
      for (int x = 0; x < s.width; ++x) {
        const T v = at<T>(in, x, y, c);
        T want = v;
        if (c < cc) {
          if constexpr (std::is_same_v<T, float>)
            want = static_cast<float>(lut[bin(v)]) * static_cast<float>(1.0 / 255);
          else want = static_cast<T>(lut[v]);
        }
        ASSERT_EQ(at<T>(out, x, y, c), want) << x << "," << y << "," << c;
      }
  }
}

constexpr const char* kEqualize = R"({"stage": "equalize", "p": 1})";

TEST(Equalize, IsPilsSchemeOnEveryType) {
  for (int c : {1, 3, 4}) {
    const Image u8 = testing::random_image({61, 23, c, DType::U8}, 5);
    expect_equalized<std::uint8_t>(u8, run_cpu(kEqualize, u8));
    const Image u16 = testing::random_image({300, 230, c, DType::U16}, 6);  // enough pixels for a 16-bit step
    expect_equalized<std::uint16_t>(u16, run_cpu(kEqualize, u16));
    const Image f32 = testing::random_image({61, 23, c, DType::F32}, 7);
    expect_equalized<float>(f32, run_cpu(kEqualize, f32));
  }
  const Image photo = testing::sample("astronaut.jpg");
  expect_equalized<std::uint8_t>(photo, run_cpu(kEqualize, photo));
}

TEST(Equalize, SpreadsANarrowHistogramAndAgreesOnTheEmulatedDevice) {
  // Values 100..103, 64 of each: step = (256 - 64) // 255 = 0 -> unchanged; with 4096 of each the
  // channel spreads over the range.
  for (int count : {64, 4096}) {
    Image im({count, 4, 1, DType::U8});
    for (int y = 0; y < 4; ++y)
      for (int x = 0; x < count; ++x) put<std::uint8_t>(im, x, y, 0, static_cast<std::uint8_t>(100 + y));
    const auto both = run_both(testing::one_stage(kEqualize), im);
    EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u);
    if (count == 64) {
      EXPECT_EQ(testing::compare(both.cpu, im).count, 0u);
    } else {
      // step = 3 * 4096 // 255 = 48; lut[100] = 24 // 48 = 0, lut[101] = (4096 + 24) // 48 = 85, ...
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 0, 0), 0);
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 1, 0), 85);
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 2, 0), 171);
      EXPECT_EQ(at<std::uint8_t>(both.cpu, 0, 3, 0), 255);
    }
  }
}

// A device builds the tables in parallel (chunk sums, then one thread per bin) from histograms
// spread over copies; the host builds them one channel at a time: the same tables, 16-bit
// (65,536 bins, 256 chunks) included.
TEST(Equalize, DeviceTablesAndHistogramCopiesEqualTheHosts) {
  const Image u16 = testing::random_image({300, 230, 3, DType::U16}, 9);
  const Image f32 = testing::random_image({97, 41, 4, DType::F32}, 10);
  const Image photo = testing::sample("astronaut.jpg");
  for (const Image* im : {&u16, &f32, &photo}) {
    const auto both = run_both(testing::one_stage(kEqualize), *im);
    EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u) << dtype_name(im->shape().dtype);
  }
  expect_equalized<std::uint16_t>(u16, run_both(testing::one_stage(kEqualize), u16).emulated);
  expect_equalized<std::uint8_t>(photo, run_both(testing::one_stage(kEqualize), photo).emulated);
}

// Mode cv: cv::equalizeHist on each colour channel, to the bit, on photographs, on random 8-bit
// images and on narrow histograms (one value: the channel stays; two values: 0 and 255); the device
// builds the same tables on every type.
TEST(Equalize, ModeCvEqualsEqualizeHistOnEachChannel) {
  constexpr const char* kCv = R"({"stage": "equalize", "p": 1, "mode": "cv"})";
  const auto expect_cv = [&](const Image& in) {
    const auto both = run_both(testing::one_stage(kCv), in);
    EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u);
    std::vector<cv::Mat> planes;
    cv::split(as_mat(in.ref()), planes);
    const std::size_t cc = planes.size() == 4 ? 3 : planes.size();
    for (std::size_t c = 0; c < cc; ++c) cv::equalizeHist(planes[c], planes[c]);
    cv::Mat want;
    cv::merge(planes, want);
    EXPECT_EQ(cv::norm(want, as_mat(both.cpu.ref()), cv::NORM_INF), 0.0) << to_string(in.shape());
  };
  for (const char* name : {"astronaut.jpg", "coffee.png", "camera.png", "coffee_rgba.png"}) expect_cv(testing::sample(name));
  for (int c : {1, 3, 4}) expect_cv(testing::random_image({61, 23, c, DType::U8}, 15));
  Image flat({40, 30, 1, DType::U8});
  std::fill(flat.data(), flat.data() + flat.shape().bytes(), std::uint8_t{77});
  expect_cv(flat);
  for (int y = 0; y < 30; ++y) put<std::uint8_t>(flat, 3, y, 0, 200);
  expect_cv(flat);
  EXPECT_EQ(at<std::uint8_t>(run_cpu(kCv, flat), 3, 0, 0), 255);
  EXPECT_EQ(at<std::uint8_t>(run_cpu(kCv, flat), 0, 0, 0), 0);
  // The PIL scheme differs from it on a photograph.
  const Image photo = testing::sample("astronaut.jpg");
  EXPECT_GT(testing::compare(run_cpu(kCv, photo), run_cpu(kEqualize, photo)).count, 1000u);
  for (const Image& im : {testing::random_image({300, 230, 3, DType::U16}, 16), testing::random_image({97, 41, 4, DType::F32}, 17)}) {
    const auto both = run_both(testing::one_stage(kCv), im);
    EXPECT_EQ(testing::compare(both.cpu, both.emulated).count, 0u) << dtype_name(im.shape().dtype);
    EXPECT_GT(testing::compare(both.cpu, im).count, 0u);
  }
}

}  // namespace
}  // namespace aug::test_equalize
