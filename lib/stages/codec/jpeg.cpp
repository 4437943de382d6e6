// jpeg: JPEG compression artefacts, as libjpeg-turbo makes them or as Kornia approximates them.
#include <algorithm>
#include <cmath>
#include <functional>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/codec/jpeg.hpp"
#include "lib/core/error.hpp"
#include "lib/io/cv_codecs.hpp"
#include "lib/io/jpeg.hpp"
#include "lib/stages/codec/jpeg_tables.hpp"
#include "lib/stages/engines/gaussian_weights.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace jpeg_impl {
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
      .family = "codec",
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
      .arithmetic = R"md(
#### mode libjpeg

Reproduces **`decode(encode(image))` with libjpeg-turbo 2.1**, as `cv::imencode(".jpg")` /
`cv::imdecode` do: `jpeg_set_defaults`, `jpeg_set_quality(q, force_baseline = TRUE)`, YCbCr 4:2:0,
the `islow` integer DCT both ways, fancy upsampling (never the merged upsampler). Entropy coding is
lossless and left out. The CPU backend calls libjpeg-turbo itself (`lib/io/jpeg.cpp`); the kernels
compute the same integer pipeline:

1. **Quality**: an integer, `integer(ceil(lo), floor(hi))`. Tables (natural order):
   `s = q < 50 ? 5000/q : 200 - 2q` (integer division), `Q[k] = clamp((base[k]*s + 50)/100, 1, 255)`,
   `base` the ITU-T T.81 Annex K tables (luma row 0 `16 11 10 16 24 40 51 61`, chroma row 0
   `17 18 24 47 99 99 99 99`). q 95 gives luma row 0 `2 1 1 2 2 4 5 6`.
2. **Other types** go through 8 bits: u16 `(2v + 257) / 514` (= round(v/257); no ties occur) and back
   `b * 257`; f32 `rne(clamp01(v) * 255)` and back `b / 255`. Alpha is copied; gray takes the luma
   path only.
3. **RGB to YCbCr**: `Y = (19595 R + 38470 G + 7471 B + 32768) >> 16`,
   `Cb = (-11059 R - 21709 G + 32768 B + (128 << 16) + 32767) >> 16`,
   `Cr = (32768 R - 27439 G - 5329 B + (128 << 16) + 32767) >> 16`.
4. **Luma** padded to `8 ceil(W/8)` x `8 ceil(H/8)` by repeating the last column and row.
5. **Chroma** planes `8 ceil(W/16)` x `8 ceil(H/16)`, real size `ceil(W/2)` x `ceil(H/2)`: at full
   resolution columns padded to `16 ceil(W/16)` and rows to an even count (last pixel repeated), then
   `c[r][j] = (P[2r][2j] + P[2r][2j+1] + P[2r+1][2j] + P[2r+1][2j+1] + b_j) >> 2` with
   `b_j = 1, 2, 1, 2, ...` from `j = 0` on each row; rows past `ceil(H/2)` repeat the last downsampled row.
6. **Forward DCT, islow**, per 8x8 block of `x - 128`: `CONST_BITS = 13`, `PASS1_BITS = 2`,
   `DESCALE(x, n) = round_shift(x, n)`, constants 2446, 3196, 4433, 6270, 7373, 9633, 12299, 15137,
   16069, 16819, 20995, 25172 (`jfdctint.c`'s `FIX_0_298631336` ... `FIX_3_072711026`). Rows:
   outputs 0 and 4 `(tmp10 +- tmp11) << 2`, the others `DESCALE(., 11)`; columns: 0 and 4
   `DESCALE(., 2)`, the others `DESCALE(., 15)`.
7. **Quantisation**: `d = 8 Q[k]`, `level = sign(c) * ((|c| + (d >> 1)) / d)` (rounding division, ties
   away from zero; equal to libjpeg-turbo's reciprocal multiply for every `Q` 1..255 and `|c| < 32768`);
   dequantisation `level * Q[k]`.
8. **Inverse DCT, islow**: columns `DESCALE(., 11)` into an int workspace, rows `DESCALE(., 18)`, then
   the range limit with `k = v & 1023`: `k < 128 -> k + 128`, `k < 512 -> 255`, `k < 896 -> 0`, else
   `k - 896` (for `|v| <= 511`, `clamp(v + 128, 0, 255)`).
9. **Upsampling**: real chroma width <= 2: each sample replicated 2x2. Otherwise h2v2 fancy: output
   row `2r` uses neighbour row `r - 1`, `2r + 1` uses `r + 1` (clamped to the real rows);
   `cs[j] = 3 c[r][j] + c[nb][j]` (`j` clamped to the real columns);
   `out[2j] = (3 cs[j] + cs[j-1] + 8) >> 4`, `out[2j+1] = (3 cs[j] + cs[j+1] + 7) >> 4`.
10. **YCbCr to RGB** (`cb`, `cr` minus 128, arithmetic shifts), cropped to W x H:
    `R = clamp(Y + ((91881 cr + 32768) >> 16))`, `G = clamp(Y + ((-22554 cb + 32768 - 46802 cr) >> 16))`,
    `B = clamp(Y + ((116130 cb + 32768) >> 16))`.

#### mode kornia

Kornia's **`jpeg_codec_differentiable` / RandomJPEG**, on [0, 1] via `to_unit` / `from_unit`; RGB(A)
only; real-valued quality (`uniform(lo, hi)`, used as binary32). Sizes not multiple of 16 are padded
(current Kornia; before 0.7.3 it rejected them).

**Host tables** (binary32 except `cos`): `s = dfloor(q < 50 ? 5000/q : 200 - 2q)`;
`Q'[k] = dfloor(softclip((QT[k]*s + 50)/100, 1, 255))` with QT the Annex K tables;
`dfloor(x) = f + (x - 0.5 - f)^3`, `f = floor(x)`; `dround(x) = r + (x - r)^3`, `r = rne(x)`;
`softclip(x, lo, hi)`: `x > hi -> -0.02 (exp(hi - x) - 1) + hi`, `x < lo -> 0.02 (exp(x - lo) - 1) + lo`,
else `x`; `basis[x][u] = (float)cos((2x + 1) u pi / 16)` in double with `pi` rounded to binary32
(Kornia's `pi` is a float32 tensor); `scale[u][v] = 0.25 * a(u) * a(v)`, `a(0) = (float)(1/sqrt 2)`,
`a(u > 0) = 1`; chroma blur taps `gaussian(3, 0.5)` = `0.106507, 0.786986, 0.106507`. Kornia's quirk is
kept: where `(QT*s + 50)/100 < 1`, `Q'` is about 0.12, not 1 (q 99.5, luma row 0:
`0.121 0.120 0.120 0.121 0.121 0.123 0.124 0.899`; q 90: `3.006 2.006 2.000 3.006 4.988 8.000 10.003 12.002`).

**Steps** (binary32, every sum from `+0` in index order):

1. Pad to multiples of 16 by repeating the last column and row (bottom and right).
2. `Y = 0.299 R + 0.587 G + 0.114 B`; `y = 255 Y`, `cb = 255 ((B - Y) 0.564 + 0.5)`, `cr = 255 ((R - Y) 0.713 + 0.5)`.
3. Chroma: blur along x, then along y (reflect101 borders, `((0 + t0 a) + t1 b) + t2 c`), then the 2x2
   mean in PyTorch's order `0.5 (0.5 a + 0.5 b) + 0.5 (0.5 c + 0.5 d)`.
4. Per 8x8 block (Y with QT_y, Cb and Cr with QT_c; all three shifted by 128):
   `T[x][v] = sum_y (f[x][y] - 128) basis[y][v]`, `S[u][v] = sum_x basis[x][u] T[x][v]`,
   `F[u][v] = scale (dround((scale S) / Q') Q')`, `T'[x][v] = sum_u basis[x][u] F[u][v]`,
   `f[x][y] = sum_v basis[y][v] T'[x][v] + 128`.
5. Chroma x2, PyTorch bilinear (`align_corners=False`): `s = (d + 0.5) 0.5 - 0.5` clamped at 0,
   `i0 = (int)s`, `i1 = min(i0 + 1, n - 1)`, `l = s - i0`,
   `v = (1 - ly)((1 - lx) a00 + lx a01) + ly((1 - lx) a10 + lx a11)`.
6. `u = cb/255 - 0.5`, `v = cr/255 - 0.5`: `R = clamp01(y/255 + 1.403 v)`,
   `G = clamp01(y/255 - 0.714 v - 0.344 u)`, `B = clamp01(y/255 + 1.773 u)`; crop to W x H. Kornia's
   final `softclip(x, 0, 255)` is the identity on [0, 1] and is left out.
)md",
      .imports = {
          {.name = "ImageCompression", .aliases = {"JpegCompression"},
           .how = "quality_lower..quality_upper or quality_range is quality; JPEG only",
           .convert = [](const TransformReader& t) {
            if (t.has("compression_type")) {
              const nlohmann::json& k = t.saved().at("compression_type");
              if (!(k == "jpeg" || k == 0 || k == "ImageCompressionType.JPEG"))
                t.fail("compression_type " + k.dump() + " has no stage equivalent (jpeg only)");
            }
            ojson s{{"stage", "jpeg"}};
            double lo = 99, hi = 100;
            if (t.has("quality_range")) std::tie(lo, hi) = t.limit("quality_range", {99, 100}, false);
            else lo = t.number("quality_lower", 99), hi = t.number("quality_upper", 100);
            s["quality"] = ispan(lo, hi);
            return s;
          },
           .python = {
               {"ImageCompression",
                "quality_lower quality_upper compression_type always_apply p",
                "compression_type quality_range p",
                0.5},
               {"JpegCompression", "quality_lower quality_upper always_apply p", "-", 0.5}}}},
      .counterpart = {.call = "cv::imencode + cv::imdecode",
                      .how = "mode libjpeg: the resolved quality (mode kornia has none)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (m.at("mode").get<std::string>() != "libjpeg") return {};
                        const int q = m.at("quality").get<int>();
                        return [&dst, src, q] {
                          std::vector<std::uint8_t> buf;
                          cvcodecs::encode(".jpg", src, {cv::IMWRITE_JPEG_QUALITY, q}, buf);
                          dst = cvcodecs::decode(buf.data(), buf.size());
                        };
                      }},
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
}  // namespace jpeg_impl

k::JpegQuant libjpeg_tables(int quality) {
  using namespace jpeg_impl;  // the tables and helpers above
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

namespace jpeg_impl {
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
}  // namespace jpeg_impl

k::KorniaJpegTables kornia_tables(float quality) {
  using namespace jpeg_impl;  // the tables and helpers above
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

StageType jpeg_stage() { return stage_type<jpeg_impl::Jpeg>(&jpeg_impl::jpeg_spec); }

}  // namespace aug
