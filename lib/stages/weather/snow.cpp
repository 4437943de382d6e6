// snow: Albumentations' RandomSnow, its bleach and texture methods (docs/stages/weather.md#snow).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <opencv2/imgproc.hpp>
#include <vector>

#include "kernels/core/philox.hpp"  // KeyedStream, uniform01f
#include "kernels/noise/normal.hpp"
#include "kernels/noise/normal_host.hpp"
#include "kernels/weather/snow.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/stages/engines/hsv8_tables.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace snow_impl {
namespace {

const Param<NumberParam> kSnowPoint{{.name = "snow_point",
                                     .doc = "how much is bleached: lightness below snow_point * 127.5 + 85 is "
                                            "brightened; [lo, hi] draws one per image",
                                     .default_value = {0.1, 0.3},
                                     .random = true,
                                     .min = Bound{0},
                                     .max = Bound{1}}};
const Param<NumberParam> kBrightness{{.name = "brightness_coeff",
                                      .doc = "factor of the lightness below the threshold",
                                      .default_value = 2.5,
                                      .min = Bound{0, true},
                                      .max = Bound{1000}}};
enum class Method { Bleach, Texture };
const Words<Method> kMethods{{{Method::Bleach, "bleach"}, {Method::Texture, "texture"}}};
const Choice<Method> kMethod{kMethods,
                             {},
                             Method::Bleach,
                             {.name = "method",
                              .doc = "bleach (lightness raised in HLS); texture (Albumentations 2.x: value raised in "
                                     "HSV, a blurred noise layer that fades down the image, a blue tint and sparkles)"}};

const StageSpec& snow_spec() {
  static const StageSpec spec{
      .name = "snow",
      .family = "weather",
      .summary = "Snow (Albumentations RandomSnow): the darker parts bleached towards white, or (method texture) "
                 "a blurred noise layer, a blue tint and sparkles in HSV.",
      .notes = {"As Albumentations' RandomSnow, method bleach, on 8-bit RGB values: one snow_point per image, the "
                "image to HLS as cv::cvtColor converts 8-bit images, every lightness below snow_point * 127.5 + 85 "
                "multiplied by brightness_coeff in binary32, clipped and truncated, and back to RGB. 16-bit and float "
                "images go through 8 bits (Albumentations' uint8_io). Method texture (Albumentations 2.x): the image to "
                "OpenCV's 8-bit HSV, V times 1 + brightness_coeff * snow_point, a normal noise layer (blurred twice "
                "with sigma 1, fading from 1 at the top to 0.2 at the bottom, times 255 * snow_point) added to H, S "
                "and V, a blue tint blended in as cv::addWeighted does (in double), cast to 8 bits as numpy casts, back to RGB, "
                "about 1% of the pixels (sparkles) white. Labels are not moved. Albumentations' default p is 0.5, "
                "this stage's too."},
      .params = {kSnowPoint, kBrightness, kMethod},
      .channels = {3},
      .default_p = 0.5,
      .tolerance = {.reason = "OpenCV's 8-bit HLS conversions in binary32 with its own fused multiply-adds, "
                              "exactly rounded on every backend, and a lightness table from the host"},
      .example = {{"stage", "snow"}, {"snow_point", {0.2, 0.5}}},
      .cases = {R"({})", R"({"snow_point": [0, 1], "brightness_coeff": 1.5})",
                R"({"snow_point": 0.9, "brightness_coeff": 4})", R"({"method": "texture"})",
                R"({"method": "texture", "snow_point": [0.5, 1], "brightness_coeff": 0.5})"},
      .no_identity = "the 8-bit HLS round trip changes some colours even where the lightness is kept",
      .bench = {R"({})", R"({"snow_point": 0.8})", R"({"method": "texture"})"},
      .arithmetic = R"md(
Albumentations' **RandomSnow** with `method` bleach (its defaults: `snow_point_range` (0.1, 0.3),
`brightness_coeff` 2.5, `p` 0.5; the same arithmetic in 1.x and 2.x) on 8-bit RGB values.

- **Draw**: `sp = uniform(snow_point)`; the threshold `t = sp * 127.5 + 85` (double). The manifest
  records `sp`.
- **To HLS**: `cv::cvtColor(COLOR_RGB2HLS)` on 8-bit values, computed as OpenCV 4.6 computes it:
  each value times `1 / 255.f`, the float conversion (`l = (max + min) / 2`,
  `s = diff / (l < 0.5 ? max + min : 2 - max - min)`, the hue from the largest channel), then
  `H = sat(rne(h / 2))`, `L = sat(rne(l * 255))`, `S = sat(rne(s * 255))`. OpenCV's row loop takes
  its vector path for the first `W - W % 8` pixels of each row and its scalar path for the rest; the
  two round a few thousand of the 2^24 colours differently (the vector path computes `2 - sum` and
  fuses the hue's product into its sum; the scalar path `2 - max - min`, fused where the compiler
  fused it), and every backend takes the path OpenCV takes for that column.
- **Lightness**: where `(float)L < (float)t`, `L = trunc(min((float)L * (float)brightness_coeff, 255))`
  (numpy multiplies a float32 array by a Python float in float32); a host table of the 256 values.
- **Back**: `cv::cvtColor(COLOR_HLS2RGB)` on 8-bit values: `l`, `s` times `1 / 255.f`, the hue sector
  from `H * (6 / 180.f)`, each channel `sat(rne(c * 255))`.
- **Other types** (Albumentations' `uint8_io`): float `q = clamp(rint(v * 255), 0, 255)`, back as
  `q / 255.f`; 16-bit `q = (v + 128) / 257`, back as `q * 257`. RGB only (Albumentations converts RGB
  to HLS).
- **texture** (Albumentations 2.x's second method, on 8-bit RGB values; other types through
  `uint8_io` as above):
  - *Draws*: `sp` as above; then per pixel `i` (row by row) a normal value `0.5 + 0.3 z` (double),
    `z` the standard normal of word `i % 4` of Philox block `i / 4` of sub-stream 1
    (kernels/noise/normal.hpp's table), and a sparkle where the uniform `u` of the same word of
    sub-stream 2 (its top 24 bits over 2^24) is above 0.99.
  - *Layer* (host, double): the field through `cv::GaussianBlur` with sigma 1 (9 taps,
    BORDER_REFLECT_101) twice (Albumentations blurs once when it draws and once when it applies),
    row `y` times `numpy.linspace(1, 0.2, H)[y]`, times 255, times `sp`, rounded to binary32: `layer`.
  - *Per pixel*: `cv::cvtColor(COLOR_RGB2HSV)` on 8-bit values (OpenCV's integer conversion, hue
    in [0, 180)); `V' = clip((float)V * (float)(1 + brightness_coeff * sp), 0, 255)`; each of `H`,
    `S`, `V'` plus `layer` (binary32); `cv::addWeighted(x, 0.85, tint, 0.15 sp, 0)` with the tint
    `(0.6, 0.75, 1)` (binary32), as OpenCV 4.6 computes binary32 images: in double,
    `x * 0.85 + tint * (0.15 sp) + 0`, rounded once to binary32; numpy's cast to uint8 (truncated towards
    zero, wrapped modulo 256: values above 255 come back small, as on x86); `cv::cvtColor(COLOR_HSV2RGB)`
    on 8-bit values (hues above 180 wrap; kernels/core/hsv8.hpp: OpenCV's block arithmetic for the
    first `32 floor(W / 32)` pixels of a row, its one-by-one arithmetic for the rest); sparkles set to
    255. The manifest records `sp` and the number of sparkles.
  - Albumentations draws the noise with numpy's generator; the stage draws its own with the same
    distribution. In its latest code the layer is `T * (255 * sp)` and added through an (H, W, 1)
    array; the stage follows the released `dstack` form, `(T * 255) * sp` added to all three
    components.
- Albumentations 1.x named the range `snow_point_lower` / `snow_point_upper`; the importer reads both.
)md",
      .imports = {{.name = "RandomSnow",
                   .how = "snow_point_range (or snow_point_lower/upper) is snow_point, brightness_coeff, method "
                          "(bleach or texture)",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "snow"}};
                     if (t.has("snow_point_range")) {
                       const auto [lo, hi] = t.limit("snow_point_range", {0.1, 0.3}, false);
                       s["snow_point"] = ojson::array({lo, hi});
                     } else if (t.has("snow_point_lower") || t.has("snow_point_upper")) {
                       s["snow_point"] =
                           ojson::array({t.number("snow_point_lower", 0.1), t.number("snow_point_upper", 0.3)});
                     }
                     s["brightness_coeff"] = t.number("brightness_coeff", 2.5);
                     if (t.has("method")) {
                       const std::string m = t.saved().at("method").get<std::string>();
                       if (m != "bleach" && m != "texture")
                         t.fail("RandomSnow method '" + m + "': Albumentations has 'bleach' and 'texture'");
                       s["method"] = m;
                     }
                     return s;
                   },
                   .python = {
                       {"RandomSnow",
                        "snow_point_lower snow_point_upper brightness_coeff always_apply p",
                        "brightness_coeff snow_point_range method p",
                        0.5}}}},
      .counterpart = {.none = "OpenCV has no snow call (Albumentations composes two cv::cvtColor calls around a "
                              "numpy lightness scaling)"},
  };
  return spec;
}

class SnowOp final : public Op {
 public:
  SnowOp(const Shape& s, double snow_point, double coefficient) : Op(s, s), snow_point_(snow_point) {
    const float t = static_cast<float>(snow_point * 127.5 + 85.0);
    const float c = static_cast<float>(coefficient);
    lightness_.resize(256);
    for (int l = 0; l < 256; ++l) {
      float v = static_cast<float>(l);
      if (v < t) v = std::min(v * c, 255.f);
      lightness_[static_cast<std::size_t>(l)] = static_cast<std::uint8_t>(v);
    }
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::SnowArgs a;
    a.lightness = ctx.table(lightness_);
    a.vector_end = k::hls8_vector_end(in.shape.width);
    with_views(in, out, [&](auto src, auto dst) { k::snow(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override { return {{kSnowPoint.name, snow_point_}}; }

 private:
  double snow_point_;
  std::vector<std::uint8_t> lightness_;
};

#if defined(AUG_AVX2_PHILOX)
// 32 pixels of the texture's draws from blocks b .. b + 7 of a chunk of nb (words k at zw + k nb, uw
// + k nb); the number of sparkles among them.
[[gnu::target("avx2")]] int snow_field32(const std::uint32_t* zw, const std::uint32_t* uw, int nb, int b,
                                         const float* table, std::uint32_t sparkle_from, double* f,
                                         std::uint8_t* sparkle) {
  __m256i zp[4], up[4];
  k::cpu::blocks_in_pixel_order(zw, zw + nb, zw + 2 * nb, zw + 3 * nb, b, zp);
  k::cpu::blocks_in_pixel_order(uw, uw + nb, uw + 2 * nb, uw + 3 * nb, b, up);
  const __m256d half = _mm256_set1_pd(0.5), sd = _mm256_set1_pd(0.3);
  // w >> 8 >= from, as a signed comparison of values below 2^24: w >> 8 > from - 1.
  const __m256i below = _mm256_set1_epi32(static_cast<int>(sparkle_from) - 1);
  int count = 0;
  for (int q = 0; q < 4; ++q) {
    const __m256 zs = k::cpu::standard_normal8(zp[q], table);
    _mm256_storeu_pd(f + 8 * q, _mm256_add_pd(half, _mm256_mul_pd(sd, _mm256_cvtps_pd(_mm256_castps256_ps128(zs)))));
    _mm256_storeu_pd(f + 8 * q + 4, _mm256_add_pd(half, _mm256_mul_pd(sd, _mm256_cvtps_pd(_mm256_extractf128_ps(zs, 1)))));
    const __m256i lit = _mm256_cmpgt_epi32(_mm256_srli_epi32(up[q], 8), below);  // all ones where it sparkles
    count += __builtin_popcount(static_cast<unsigned>(_mm256_movemask_ps(_mm256_castsi256_ps(lit))));
    const __m256i on = _mm256_srli_epi32(lit, 31);
    const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(on, on), _mm256_setzero_si256());
    const int lo = _mm_cvtsi128_si32(_mm256_castsi256_si128(bytes)), hi = _mm_cvtsi128_si32(_mm256_extracti128_si256(bytes, 1));
    std::memcpy(sparkle + 8 * q, &lo, 4);
    std::memcpy(sparkle + 8 * q + 4, &hi, 4);
  }
  return count;
}
#endif

// The texture's draws: f[i] = 0.5 + 0.3 * (double)z_i, z_i the standard normal of word i % 4 of Philox
// block i / 4 of sub-stream 1, and sparkle[i] = 1 where uniform01f of the same word of sub-stream 2
// is above 0.99; the number of sparkles. The blocks are drawn across pixels and, with AVX2, eight
// pixels go at a time (kernels/noise/normal_host.hpp); uniform01f(w) rises with w >> 8, so the
// test is w >> 8 >= the least value that passes it.
std::int64_t snow_field(double* f, std::uint8_t* sparkle, std::size_t n, const k::KeyedStream& stream,
                        const float* table) {
  static const std::uint32_t kSparkleFrom = [] {
    std::uint32_t lo = 0, hi = 1u << 24;  // the least m with uniform01f(m << 8) > 0.99 is in [lo, hi]
    while (lo < hi) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (static_cast<double>(k::uniform01f(mid << 8)) > 0.99) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }();
  constexpr int kChunk = 2048;  // blocks per step
  std::vector<std::uint32_t> z(4 * kChunk), u(4 * kChunk);
  std::int64_t count = 0;
  const std::size_t blocks = (n + 3) / 4;
  for (std::size_t b0 = 0; b0 < blocks; b0 += kChunk) {
    const int nb = static_cast<int>(std::min<std::size_t>(kChunk, blocks - b0));
    std::uint32_t* zw = z.data();
    std::uint32_t* uw = u.data();
    k::cpu::philox_blocks(stream, static_cast<std::uint32_t>(b0), 1, nb, zw, zw + nb, zw + 2 * nb, zw + 3 * nb);
    k::cpu::philox_blocks(stream, static_cast<std::uint32_t>(b0), 2, nb, uw, uw + nb, uw + 2 * nb, uw + 3 * nb);
    int b = 0;
#if defined(AUG_AVX2_PHILOX)
    // Whole groups of eight blocks inside the image: 32 pixels each.
    if (k::cpu::host_has_avx2())
      for (; b + 8 <= nb && 4 * (b0 + b + 8) <= n; b += 8) count += snow_field32(zw, uw, nb, b, table, kSparkleFrom,
                                                                                  f + 4 * (b0 + b), sparkle + 4 * (b0 + b));
#endif
    for (; b < nb; ++b)
      for (int j = 0; j < 4; ++j) {
        const std::size_t i = 4 * (b0 + b) + j;
        if (i >= n) break;
        f[i] = 0.5 + 0.3 * static_cast<double>(k::standard_normal(zw[j * nb + b], table));
        const bool on = (uw[j * nb + b] >> 8) >= kSparkleFrom;
        sparkle[i] = on ? 1 : 0;
        count += on ? 1 : 0;
      }
  }
  return count;
}

class SnowTextureOp final : public Op {
 public:
  SnowTextureOp(const Shape& s, double snow_point, double coefficient, const k::KeyedStream& stream)
      : Op(s, s), snow_point_(snow_point) {
    const int W = s.width, H = s.height;
    const std::size_t n = static_cast<std::size_t>(W) * static_cast<std::size_t>(H);
    // The field, kept by each thread from image to image (as large as the largest image seen), so that
    // a stream of images does not fault in fresh pages for it.
    thread_local std::vector<double> field_buf;
    field_buf.resize(std::max(field_buf.size(), n));
    cv::Mat field(H, W, CV_64F, field_buf.data());
    sparkle_.resize(n);
    sparkles_ = snow_field(field.ptr<double>(), sparkle_.data(), n, stream, normal_table().data());
    cv::GaussianBlur(field, field, cv::Size(0, 0), 1, 1);
    cv::GaussianBlur(field, field, cv::Size(0, 0), 1, 1);
    layer_.resize(n);
    const double step = H > 1 ? (0.2 - 1.0) / static_cast<double>(H - 1) : 0;
    for (int y = 0; y < H; ++y) {
      const double depth = H > 1 && y == H - 1 ? 0.2 : static_cast<double>(y) * step + 1.0;  // numpy.linspace
      const double* row = field.ptr<double>(y);
      float* out = layer_.data() + static_cast<std::size_t>(y) * W;
      for (int x = 0; x < W; ++x) out[x] = static_cast<float>(row[x] * depth * 255.0 * snow_point);
    }
    brighten_ = static_cast<float>(1 + coefficient * snow_point);
    const double beta = 0.15 * snow_point;  // the tint (0.6, 0.75, 1) as a binary32 image times beta
    tint_[0] = static_cast<double>(0.6f) * beta;
    tint_[1] = static_cast<double>(0.75f) * beta;
    tint_[2] = 1.0 * beta;
  }

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::SnowTextureArgs a;
    a.sdiv = ctx.table(hsv8_division_table(false));
    a.hdiv = ctx.table(hsv8_division_table(true));
    a.layer = ctx.table(layer_);
    a.sparkle = ctx.table(sparkle_);
    a.brighten = brighten_;
    a.tint0 = tint_[0];
    a.tint1 = tint_[1];
    a.tint2 = tint_[2];
    a.block_end = in.shape.width / k::kHsvBlock * k::kHsvBlock;
    with_views(in, out, [&](auto src, auto dst) { k::snow_texture(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kSnowPoint.name, snow_point_}, {kMethod.name, "texture"}, {"sparkles", sparkles_}};
  }

 private:
  double snow_point_;
  float brighten_ = 1;
  double tint_[3] = {0, 0, 0};
  std::int64_t sparkles_ = 0;
  PlaneVector<float> layer_;           // written in full before it is read
  PlaneVector<std::uint8_t> sparkle_;
};

class SnowStage final : public Stage {
 public:
  explicit SnowStage(const StageConfig& c) : point_(c.get(kSnowPoint)), coefficient_(c.get(kBrightness).lo) {
    const auto& m = c.get(kMethod).options;
    if (m.size() != 1) c.fail(kMethod, "give one method: bleach or texture");
    texture_ = m[0] == Method::Texture;
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double sp = point_.sample(d);
    if (texture_) return std::make_unique<SnowTextureOp>(in, sp, coefficient_, d.stream());
    return std::make_unique<SnowOp>(in, sp, coefficient_);
  }

 private:
  NumberParam point_;
  double coefficient_;
  bool texture_ = false;
};

}  // namespace
}  // namespace snow_impl

StageType snow_stage() { return stage_type<snow_impl::SnowStage>(&snow_impl::snow_spec); }

}  // namespace aug
