// color_jitter: torchvision's ColorJitter written out here op by op as torchvision's tensor code
// runs it (binary32, whole planes, masked hue sums), against both backends; the drawn order and
// factors; the neutral configurations.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "tests/stages/stage_runner.hpp"

namespace aug::test_color_jitter {
namespace {

using testing::compare;
using testing::one_stage;
using testing::run_both;

// An image's colour channels as binary32 planes, and its sample type's rules.
struct Planes {
  int w = 0, h = 0, cc = 0;
  bool integer = true;
  double max = 255;
  std::vector<float> v[3];
};

template <class T>
Planes planes_of(const Image& im) {
  Planes p;
  p.w = im.shape().width;
  p.h = im.shape().height;
  const int C = im.shape().channels;
  p.cc = C == 4 ? 3 : C;
  p.integer = !std::is_same_v<T, float>;
  if constexpr (std::is_same_v<T, float>) p.max = 1.0;
  else p.max = static_cast<double>(k::SampleTraits<T>::max);
  for (int c = 0; c < p.cc; ++c) p.v[c].resize(static_cast<std::size_t>(p.w) * p.h);
  for (int y = 0; y < p.h; ++y) {
    const T* s = reinterpret_cast<const T*>(im.row(y));
    for (int x = 0; x < p.w; ++x)
      for (int c = 0; c < p.cc; ++c) p.v[c][y * p.w + x] = static_cast<float>(s[x * C + c]);
  }
  return p;
}

// .clamp_(0, bound) then .to(dtype).
float settle(const Planes& p, float y) {
  y = std::min(std::max(y, 0.f), static_cast<float>(p.max));
  return p.integer ? std::trunc(y) : y;
}

// r.mul(0.2989).add_(g, alpha=0.587).add_(b, alpha=0.114), floor_() for integer images.
std::vector<float> grayscale(const Planes& p) {
  std::vector<float> g(p.v[0].size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    float l = p.v[0][i] * 0.2989f;
    l = l + 0.587f * p.v[1][i];
    l = l + 0.114f * p.v[2][i];
    g[i] = p.integer ? std::floor(l) : l;
  }
  return g;
}

void brightness(Planes& p, double f) {
  for (int c = 0; c < p.cc; ++c)
    for (float& x : p.v[c]) x = settle(p, x * static_cast<float>(f));
}

// _blend(image, other, f): image.mul(f).add_(other, alpha=1 - f).
void blend(Planes& p, const std::vector<float>* other, float constant, double f) {
  const float ratio = static_cast<float>(f), alpha = static_cast<float>(1.0 - f);
  for (int c = 0; c < p.cc; ++c)
    for (std::size_t i = 0; i < p.v[c].size(); ++i)
      p.v[c][i] = settle(p, p.v[c][i] * ratio + alpha * (other ? (*other)[i] : constant));
}

void contrast(Planes& p, double f) {
  const std::vector<float> g = p.cc == 3 ? grayscale(p) : p.v[0];
  // torch.mean sums in binary32, exactly while every partial sum is below 2^24 (checked here);
  // larger sums are taken exactly (integers) or in double (float images), as documented, where
  // torch's own binary32 sum may differ in its last bits.
  float fsum = 0;
  double dsum = 0;
  for (float x : g) {
    fsum += x;
    dsum += x;
  }
  const float n = static_cast<float>(g.size());
  float mean = p.integer ? static_cast<float>(dsum) / n : static_cast<float>(dsum / static_cast<double>(g.size()));
  if (p.integer && dsum < 16777216.0) {  // below 2^24: torch's binary32 sum is this exact sum
    EXPECT_EQ(static_cast<double>(fsum), dsum);
    mean = fsum / n;
  }
  blend(p, nullptr, mean, f);
}

void saturation(Planes& p, double f) {
  if (p.cc != 3) return;
  const std::vector<float> g = grayscale(p);
  blend(p, &g, 0, f);
}

float torch_fmod(float a, float b) { return std::fmod(a, b); }
float torch_remainder(float a, float b) {
  float m = std::fmod(a, b);
  if (m != 0 && ((b < 0) != (m < 0))) m += b;
  return m;
}

// _rgb_to_hsv, the shift, _hsv_to_rgb, term by term as torchvision writes them (masks as 0/1 factors).
void hue_pixel(float& r, float& g, float& b, float hue) {
  const float maxc = std::max({r, g, b}), minc = std::min({r, g, b});
  const bool eqc = maxc == minc;
  const float range = maxc - minc;
  const float s = range / (eqc ? 1.f : maxc);
  const float div = eqc ? 1.f : range;
  const float rc = (maxc - r) / div, gc = (maxc - g) / div, bc = (maxc - b) / div;
  const bool neq_r = maxc != r, eq_g = maxc == g;
  const float hg = ((rc + 2.f) - bc) * static_cast<float>(eq_g && neq_r);
  const float hr = (bc - gc) * static_cast<float>(!neq_r);
  const float hb = ((gc + 4.f) - rc) * static_cast<float>(neq_r && !eq_g);
  float h = (hr + hg) + hb;
  h = torch_fmod(h * static_cast<float>(1.0 / 6.0) + 1.f, 1.f);
  h = torch_remainder(h + hue, 1.f);
  const float h6 = h * 6.f;
  const float i = std::floor(h6);
  const float f = h6 - i;
  const int idx = static_cast<int>(i) % 6;
  const float sxf = s * f, one_minus_s = 1.f - s;
  auto clamp = [](float x) { return std::min(std::max(x, 0.f), 1.f); };
  const float q = clamp((1.f - sxf) * maxc), t = clamp((sxf + one_minus_s) * maxc), p = clamp(one_minus_s * maxc);
  const float vpqt[4] = {maxc, p, q, t};
  static const int select[3][6] = {{0, 2, 1, 1, 3, 0}, {3, 0, 0, 2, 1, 1}, {1, 1, 3, 0, 0, 2}};
  r = vpqt[select[0][idx]];
  g = vpqt[select[1][idx]];
  b = vpqt[select[2][idx]];
}

void hue(Planes& p, double f) {
  if (p.cc != 3) return;
  const float in_scale = static_cast<float>(1.0 / p.max), out_scale = static_cast<float>(p.max + 1.0 - 1e-3);
  for (std::size_t i = 0; i < p.v[0].size(); ++i) {
    float px[3] = {p.v[0][i], p.v[1][i], p.v[2][i]};
    if (p.integer)
      for (float& x : px) x = x * in_scale;
    hue_pixel(px[0], px[1], px[2], static_cast<float>(f));
    for (int c = 0; c < 3; ++c) {
      // image.mul(max + 1 - eps).to(dtype); a 16-bit 1.0 gives 65536, saturated here.
      p.v[c][i] = p.integer ? std::min(std::trunc(px[c] * out_scale), static_cast<float>(p.max)) : px[c];
    }
  }
}

template <class T>
Image apply_recorded(const Image& in, const nlohmann::json& params) {
  Planes p = planes_of<T>(in);
  for (const auto& name : params.at("order")) {
    const nlohmann::json& f = params.at(name.get<std::string>());
    if (f.is_null()) continue;
    const double v = f.get<double>();
    if (name == "brightness") brightness(p, v);
    else if (name == "contrast") contrast(p, v);
    else if (name == "saturation") saturation(p, v);
    else hue(p, v);
  }
  Image out = in.clone();
  const int C = in.shape().channels;
  for (int y = 0; y < p.h; ++y) {
    T* d = reinterpret_cast<T*>(out.row(y));
    for (int x = 0; x < p.w; ++x)
      for (int c = 0; c < p.cc; ++c) d[x * C + c] = static_cast<T>(p.v[c][y * p.w + x]);
  }
  return out;
}

Image reference(const Image& in, const nlohmann::json& params) {
  switch (in.dtype()) {
    case DType::U8: return apply_recorded<std::uint8_t>(in, params);
    case DType::U16: return apply_recorded<std::uint16_t>(in, params);
    case DType::F32: break;
  }
  return apply_recorded<float>(in, params);
}

const char* const kConfigs[] = {
    R"({"stage": "color_jitter", "brightness": 0.5, "contrast": 0.5, "saturation": 0.5, "hue": 0.3})",
    R"({"stage": "color_jitter", "brightness": [0.2, 1.9], "contrast": [0.1, 3.0], "saturation": [0, 3], "hue": [-0.5, 0.5]})",
    R"({"stage": "color_jitter", "contrast": 0.9})",
    R"({"stage": "color_jitter", "hue": 0.5})",
    R"({"stage": "color_jitter", "saturation": [1.5, 4]})",
};

TEST(ColorJitter, EqualsTorchvisionsFormulasOnBothBackends) {
  int checked = 0;
  for (const char* config : kConfigs) {
    const Pipeline pipe = one_stage(config);
    for (DType t : {DType::U8, DType::U16, DType::F32})
      for (int c : {1, 3, 4})
        for (std::uint32_t copy = 0; copy < 4; ++copy) {
          const Image in = testing::random_image({37, 23, c, t}, 7 + copy);
          const auto b = run_both(pipe, in, "a.png", copy);
          const nlohmann::json params = b.plan.steps.at(0).op->params();
          const Image want = reference(in, params);
          SCOPED_TRACE(std::string(config) + " " + dtype_name(t) + " c=" + std::to_string(c) + " " + params.dump());
          EXPECT_EQ(compare(b.cpu, want).count, 0u) << compare(b.cpu, want).str();
          EXPECT_EQ(compare(b.emulated, want).count, 0u) << compare(b.emulated, want).str();
          ++checked;
        }
  }
  EXPECT_EQ(checked, 5 * 3 * 3 * 4);
}

TEST(ColorJitter, PhotographsEqualTheFormulas) {
  const Pipeline pipe = one_stage(kConfigs[1]);
  for (const char* name : {"astronaut.jpg", "chelsea.png"}) {
    const Image in = testing::sample_as(name, DType::U8, 3);
    const auto b = run_both(pipe, in, name);
    const Image want = reference(in, b.plan.steps.at(0).op->params());
    EXPECT_EQ(compare(b.cpu, want).count, 0u) << name << " " << compare(b.cpu, want).str();
    EXPECT_EQ(compare(b.emulated, want).count, 0u) << name;
  }
}

// One pixel through one adjustment with a fixed factor.
Image one_pixel(const char* stage, std::array<int, 3> rgb) {
  Image im({1, 1, 3, DType::U8});
  for (int c = 0; c < 3; ++c) im.row(0)[c] = static_cast<std::uint8_t>(rgb[c]);
  return testing::run_cpu(stage, im);
}

TEST(ColorJitter, KnownValues) {
  // brightness 0.5: 255 * 0.5 = 127.5, truncated.
  Image o = one_pixel(R"({"stage": "color_jitter", "brightness": [0.5, 0.5]})", {255, 10, 3});
  EXPECT_EQ(o.row(0)[0], 127);
  EXPECT_EQ(o.row(0)[1], 5);
  EXPECT_EQ(o.row(0)[2], 1);
  // saturation 0: the floored grayscale, 255 * 0.2989 = 76.2.
  o = one_pixel(R"({"stage": "color_jitter", "saturation": [0, 0]})", {255, 0, 0});
  for (int c = 0; c < 3; ++c) EXPECT_EQ(o.row(0)[c], 76);
  // hue +-0.5: red becomes cyan.
  o = one_pixel(R"({"stage": "color_jitter", "hue": [0.5, 0.5]})", {255, 0, 0});
  EXPECT_EQ(o.row(0)[0], 0);
  EXPECT_EQ(o.row(0)[1], 255);
  EXPECT_EQ(o.row(0)[2], 255);
  // contrast 0 on one pixel: its own floored grayscale; a grey (v, v, v) has gray 0.9999 v, floored to v - 1.
  o = one_pixel(R"({"stage": "color_jitter", "contrast": [0, 0]})", {200, 200, 200});
  for (int c = 0; c < 3; ++c) EXPECT_EQ(o.row(0)[c], 199);
}

TEST(ColorJitter, GrayImagesTakeBrightnessAndContrastOnly) {
  const Image in = testing::random_image({29, 17, 1, DType::U8}, 3);
  const Image out = testing::run_cpu(R"({"stage": "color_jitter", "saturation": [0, 0], "hue": 0.5})", in);
  EXPECT_EQ(compare(out, in).count, 0u);
  EXPECT_GT(compare(testing::run_cpu(R"({"stage": "color_jitter", "contrast": [0.5, 0.5]})", in), in).count, 0u);
}

TEST(ColorJitter, AlphaIsCopied) {
  const Image in = testing::random_image({31, 9, 4, DType::U16}, 5);
  const Image out = testing::run_cpu(kConfigs[0], in);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 31; ++x)
      EXPECT_EQ(reinterpret_cast<const std::uint16_t*>(out.row(y))[x * 4 + 3],
                reinterpret_cast<const std::uint16_t*>(in.row(y))[x * 4 + 3]);
}

// Every 8-bit colour once: the CPU backend's vectorised driver (tables, eight pixels at a time) and
// the kernel bodies give the same bytes for hue and saturation, and for all four together.
TEST(ColorJitter, EveryColourTheSameOnBothBackends) {
  // Under the sanitizers the first 2^20 colours (testing::sampled).
  const int rows = testing::kSanitized ? 256 : 4096;
  Image all({4096, rows, 3, DType::U8});
  for (int y = 0; y < rows; ++y)
    for (int x = 0; x < 4096; ++x) {
      const std::uint32_t v = static_cast<std::uint32_t>(y) * 4096u + static_cast<std::uint32_t>(x);
      for (int c = 0; c < 3; ++c) all.row(y)[x * 3 + c] = static_cast<std::uint8_t>(v >> (8 * c));
    }
  for (const char* config : {R"({"stage": "color_jitter", "hue": [0.1, 0.1]})",
                             R"({"stage": "color_jitter", "hue": [-0.37, -0.37]})",
                             R"({"stage": "color_jitter", "hue": [0.5, 0.5]})",
                             R"({"stage": "color_jitter", "saturation": [1.7, 1.7]})",
                             R"({"stage": "color_jitter", "brightness": 0.4, "contrast": 0.4, "saturation": 0.4, "hue": 0.1})"}) {
    const auto b = run_both(one_stage(config), all);
    EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u) << config << " " << compare(b.cpu, b.emulated).str();
  }
}

// Many plans of one pipeline: the recorded params of each.
std::vector<nlohmann::json> draws(const char* config, int n) {
  const Pipeline pipe = one_stage(config);
  std::vector<nlohmann::json> out;
  for (int i = 0; i < n; ++i) {
    const Plan plan = pipe.plan(5, "img" + std::to_string(i) + ".png", 0, {8, 8, 3, DType::U8});
    out.push_back(plan.steps.at(0).op->params());
  }
  return out;
}

TEST(ColorJitter, EveryOrderIsEquallyLikely) {
  constexpr int kN = 9600;
  std::map<std::string, int> seen;
  for (const auto& p : draws(R"({"stage": "color_jitter", "brightness": 0.2})", kN)) {
    ASSERT_EQ(p.at("order").size(), 4u);
    std::string key;
    for (const auto& name : p.at("order")) key += name.get<std::string>() + " ";
    ++seen[key];
  }
  ASSERT_EQ(seen.size(), 24u);
  const double expected = kN / 24.0;
  double chi2 = 0;
  for (const auto& [order, count] : seen) chi2 += (count - expected) * (count - expected) / expected;
  // 23 degrees of freedom: P(chi2 > 49.7) = 0.001.
  EXPECT_LT(chi2, 49.7);
  // Each adjustment is first a quarter of the time.
  std::map<std::string, int> first;
  for (const auto& [order, count] : seen) first[order.substr(0, order.find(' '))] += count;
  for (const auto& [name, count] : first) EXPECT_NEAR(count, kN / 4.0, 4 * std::sqrt(kN * 0.25 * 0.75)) << name;
}

TEST(ColorJitter, FactorsFillTheirRanges) {
  struct Expect {
    const char* name;
    double lo, hi;
  };
  const char* config = R"({"stage": "color_jitter", "brightness": 0.4, "contrast": 1.5, "saturation": [0.5, 0.7], "hue": 0.2})";
  const Expect want[] = {{"brightness", 0.6, 1.4}, {"contrast", 0.0, 2.5}, {"saturation", 0.5, 0.7}, {"hue", -0.2, 0.2}};
  const auto all = draws(config, 4000);
  for (const Expect& e : want) {
    double lo = 1e9, hi = -1e9, sum = 0;
    int below_mid = 0;
    for (const auto& p : all) {
      const double f = p.at(e.name).get<double>();
      EXPECT_EQ(f, static_cast<double>(static_cast<float>(f))) << "drawn as binary32";
      lo = std::min(lo, f);
      hi = std::max(hi, f);
      sum += f;
      below_mid += f < (e.lo + e.hi) / 2;
    }
    const double span = e.hi - e.lo;
    EXPECT_GE(lo, e.lo) << e.name;
    EXPECT_LE(hi, e.hi) << e.name;
    EXPECT_LT(lo, e.lo + 0.01 * span) << e.name;
    EXPECT_GT(hi, e.hi - 0.01 * span) << e.name;
    EXPECT_NEAR(sum / all.size(), (e.lo + e.hi) / 2, 0.02 * span) << e.name;
    EXPECT_NEAR(below_mid, 2000, 4 * std::sqrt(1000.0)) << e.name;
  }
}

TEST(ColorJitter, NeutralRangesAreLeftOutAndRecordedAsNull) {
  for (const char* config : {R"({"stage": "color_jitter"})",
                             R"({"stage": "color_jitter", "brightness": [1, 1], "contrast": 0, "saturation": [1, 1], "hue": [0, 0]})"}) {
    for (const auto& p : draws(config, 20)) {
      for (const char* name : {"brightness", "contrast", "saturation", "hue"}) EXPECT_TRUE(p.at(name).is_null()) << config;
      EXPECT_EQ(p.at("order").size(), 4u);
    }
  }
  // A constant factor other than the neutral one is applied.
  for (const auto& p : draws(R"({"stage": "color_jitter", "brightness": [0.5, 0.5]})", 5))
    EXPECT_EQ(p.at("brightness").get<double>(), 0.5);
}

TEST(ColorJitter, ANegativeHueNumberIsItsMagnitudeAndBadRangesAreRefused) {
  for (const auto& p : draws(R"({"stage": "color_jitter", "hue": -0.1})", 200)) {
    EXPECT_LE(std::fabs(p.at("hue").get<double>()), 0.1 + 1e-7);
  }
  EXPECT_THROW(one_stage(R"({"stage": "color_jitter", "brightness": [1.5, 0.5]})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "color_jitter", "contrast": [0.5, 1, 2]})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "color_jitter", "hue": [-0.6, 0.1]})"), PipelineError);
  EXPECT_THROW(one_stage(R"({"stage": "color_jitter", "saturation": -1})"), PipelineError);
}

}  // namespace
}  // namespace aug::test_color_jitter
