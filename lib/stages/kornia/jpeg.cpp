// jpeg: JPEG compression artefacts, as libjpeg-turbo makes them or as Kornia approximates them.
#include <algorithm>
#include <cmath>

#include "kernels/kornia/jpeg.hpp"
#include "lib/core/error.hpp"
#include "lib/io/jpeg.hpp"
#include "lib/stages/kornia/jpeg_tables.hpp"
#include "lib/stages/kornia/kornia_gaussian.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

// The JPEG standard's example tables (ITU-T T.81 Annex K), natural order.
constexpr int kLuma[64] = {16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
                           14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
                           18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
                           49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
constexpr int kChroma[64] = {17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99,
                             99, 99, 47, 66, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
                             99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99};

const Param<NumberParam> kQuality{{.name = "quality",
                                   .doc = "JPEG quality; [lo, hi] draws one per image (integers in libjpeg mode)",
                                   .default_value = {1, 100},
                                   .random = true,
                                   .min = Bound{1},
                                   .max = Bound{100}}};
enum class Mode { Libjpeg, Kornia };
const Words<Mode> kModes{{{Mode::Libjpeg, "libjpeg"}, {Mode::Kornia, "kornia"}}};
const Choice<Mode> kMode{
    kModes,
    {},
    Mode::Libjpeg,
    {.name = "mode", .doc = "libjpeg (exact codec round trip) or kornia (Kornia's differentiable approximation)"}};

const StageSpec& jpeg_spec() {
  static const StageSpec spec{
      .name = "jpeg",
      .summary = "JPEG compression artefacts at a quality: libjpeg-turbo's exactly, or Kornia's approximation.",
      .notes = {"mode libjpeg: the result is encoding with libjpeg-turbo at that quality (YCbCr 4:2:0, integer DCT, "
                "the standard tables, baseline) and decoding it (fancy upsampling), which is what OpenCV's "
                "imencode/imdecode and most tools do; the CPU path calls the codec, the GPU computes the same lossy "
                "round trip without the entropy coding. Integer qualities; 16-bit and float images go through 8 "
                "bits (RNE(v / 257), RNE(v * 255)).",
                "mode kornia: Kornia's differentiable approximation (RandomJPEG / jpeg_codec_differentiable): "
                "real-valued quality, its cubic rounding, soft clipping and scaled tables, on [0, 1]; RGB only.",
                "Alpha is carried through."},
      .params = {kQuality, kMode},
      .tolerance = {.reason = "libjpeg mode: integer arithmetic equal to libjpeg-turbo's; kornia mode: tables from the "
                              "host and the same binary32 operations in the same order on every backend"},
      .example = {{"stage", "jpeg"}, {"quality", {30, 95}}},
      .cases = {R"({"quality": 1})",
                R"({"quality": 50})",
                R"({"quality": 95})",
                R"({"quality": [20.5, 90], "mode": "kornia"})",
                R"({"quality": 99.5, "mode": "kornia"})"},
      .no_identity = "JPEG is lossy at every quality",
      .bench = {R"({"quality": 75, "mode": "libjpeg"})", R"({"quality": 75, "mode": "kornia"})"},
  };
  return spec;
}

class JpegOp final : public Op {
 public:
  JpegOp(const Shape& s, bool kornia, double quality) : Op(s, s), kornia_(kornia), quality_(quality) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (kornia_) {
      const k::KorniaJpegTables t = kornia_tables(static_cast<float>(quality_));
      const auto* tables = static_cast<const k::KorniaJpegTables*>(ctx.table(&t, sizeof t));
      return with_views(in, out, [&](auto src, auto dst) { k::jpeg_kornia(src, dst, tables, ctx, ctx.exec()); });
    }
    if (ctx.cpu()) return codec(in, out);  // libjpeg-turbo itself computes the kernels' arithmetic
    const k::JpegQuant q = libjpeg_tables(static_cast<int>(quality_));
    const auto* tables = static_cast<const k::JpegQuant*>(ctx.table(&q, sizeof q));
    with_views(in, out, [&](auto src, auto dst) { k::jpeg_libjpeg(src, dst, tables, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kMode.name, kModes.name(kornia_ ? Mode::Kornia : Mode::Libjpeg)},
            {kQuality.name, kornia_ ? nlohmann::json(quality_) : nlohmann::json(static_cast<int>(quality_))}};
  }

 private:
  // The codec round trip: 8-bit gray or RGB in, the same out; alpha and sample types around it.
  void codec(const ImageRef& in, const ImageRef& out) const {
    const Shape& s = in.shape;
    if (s.dtype == DType::U8 && s.channels != 4) return jpeg_roundtrip(in, static_cast<int>(quality_), out);
    const int color = s.channels == 1 ? 1 : 3;
    Image eight(Shape{s.width, s.height, color, DType::U8});
    with_sample_type(s.dtype, [&](auto tag) {
      using T = decltype(tag);
      const auto src = in.view<const T>();
      for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x)
          for (int c = 0; c < color; ++c) eight.row(y)[x * color + c] = k::to_u8(src.at(x, y, c));
    });
    Image decoded(eight.shape());
    jpeg_roundtrip(eight.ref(), static_cast<int>(quality_), decoded.ref());
    with_sample_type(s.dtype, [&](auto tag) {
      using T = decltype(tag);
      const auto src = in.view<const T>();
      const auto dst = out.view<T>();
      for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x) {
          for (int c = 0; c < color; ++c) dst.at(x, y, c) = k::from_u8<T>(decoded.row(y)[x * color + c]);
          if (s.channels == 4) dst.at(x, y, 3) = src.at(x, y, 3);
        }
    });
  }

  bool kornia_;
  double quality_;
};

class Jpeg final : public Stage {
 public:
  explicit Jpeg(const StageConfig& c) : quality_(c.get(kQuality)), kornia_(c.get(kMode).options[0] == Mode::Kornia) {
    if (!kornia_) {
      lo_ = static_cast<int>(std::ceil(quality_.lo));
      hi_ = static_cast<int>(std::floor(quality_.hi));
      if (!quality_.is_range && quality_.lo != std::floor(quality_.lo))
        c.fail(kQuality, "= " + std::to_string(quality_.lo) + ": libjpeg mode takes integer qualities (mode \"kornia\" takes any)");
      if (lo_ > hi_) c.fail(kQuality, "holds no integer quality for libjpeg mode");
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    if (kornia_ && in.channels < 3) throw InputError("jpeg mode kornia needs RGB; this image has 1 channel");
    const double q = kornia_ ? quality_.sample(d) : static_cast<double>(d.integer(lo_, hi_));
    return std::make_unique<JpegOp>(in, kornia_, q);
  }

 private:
  NumberParam quality_;
  bool kornia_;
  int lo_ = 0, hi_ = 0;
};

}  // namespace

k::JpegQuant libjpeg_tables(int quality) {
  const int s = quality < 50 ? 5000 / quality : 200 - quality * 2;  // jpeg_quality_scaling
  k::JpegQuant q{};
  for (int i = 0; i < 64; ++i) {
    auto scaled = [&](int base) {
      const long v = (static_cast<long>(base) * s + 50) / 100;
      return static_cast<std::uint16_t>(v < 1 ? 1 : (v > 255 ? 255 : v));  // baseline: at most 255
    };
    q.luma[i] = scaled(kLuma[i]);
    q.chroma[i] = scaled(kChroma[i]);
  }
  return q;
}

namespace {

// Kornia's differentiable floor and soft clip, in binary32 as Kornia computes them.
float dfloor(float x) {
  const float f = std::floor(x);
  const float d = x - 0.5f - f;
  return f + d * d * d;
}
float softclip(float x, float lo, float hi) {
  if (x > hi) return -0.02f * (std::exp(hi - x) - 1.f) + hi;
  if (x < lo) return 0.02f * (std::exp(x - lo) - 1.f) + lo;
  return x;
}

}  // namespace

k::KorniaJpegTables kornia_tables(float quality) {
  k::KorniaJpegTables t{};
  const double pi = static_cast<float>(M_PI);  // Kornia's pi is a float32 tensor
  for (int x = 0; x < 8; ++x)
    for (int u = 0; u < 8; ++u) t.basis[x][u] = static_cast<float>(std::cos((2 * x + 1) * u * pi / 16));
  const float a0 = static_cast<float>(1 / std::sqrt(2.0));
  for (int u = 0; u < 8; ++u)
    for (int v = 0; v < 8; ++v) t.scale[u][v] = 0.25f * (u ? 1.f : a0) * (v ? 1.f : a0);
  const float s = dfloor(quality < 50 ? 5000.f / quality : 200.f - 2.f * quality);
  for (int i = 0; i < 64; ++i) {
    t.q_luma[i] = dfloor(softclip((kLuma[i] * s + 50.f) / 100.f, 1.f, 255.f));
    t.q_chroma[i] = dfloor(softclip((kChroma[i] * s + 50.f) / 100.f, 1.f, 255.f));
  }
  const std::vector<float> blur = kornia_gaussian(3, 0.5, 1);  // the anti-aliasing of rescale(0.5)
  std::copy(blur.begin(), blur.end(), t.blur);
  return t;
}

StageType jpeg_stage() { return stage_type<Jpeg>(&jpeg_spec); }

}  // namespace aug
