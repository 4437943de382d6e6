// downscale: Albumentations' Downscale, cv::resize by a drawn factor and back to the original size.
// It lives with the filters, not with resize in geometry/: every pixel stays where it was (the
// output has the input's size, labels and masks are untouched); only detail is lost, as a blur loses it.
#include <algorithm>
#include <cmath>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "lib/io/cv_bridge.hpp"
#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace downscale_impl {
namespace {

const Param<NumberParam> kScale{{.name = "scale",
                                 .doc = "factor of the intermediate image's sides (cv::resize's fx and fy); [lo, hi] "
                                        "draws one per image (Albumentations' scale_range)",
                                 .default_value = 0.25,
                                 .random = true,
                                 .min = Bound{0, true},
                                 .max = Bound{1}}};

Choice<Interp> pass_interpolation(const char* name, const char* which) {
  return Choice<Interp>(interp_words(), {Interp::Nearest, Interp::Bilinear, Interp::Bicubic, Interp::Area, Interp::Lanczos},
                        Interp::Nearest,
                        ParamSpec{.name = name,
                                  .doc = std::string("interpolation of the ") + which +
                                         ": nearest, bilinear, bicubic, area or lanczos (resize's); a list draws one per image",
                                  .random = true});
}
const Choice<Interp> kDown = pass_interpolation("down_interpolation", "shrinking pass");
const Choice<Interp> kUp = pass_interpolation("up_interpolation", "enlarging pass");

// A cv2.INTER_* code as an interpolation word; INTER_LINEAR_EXACT (5) is bilinear's own arithmetic.
std::string interp_word(const TransformReader& t, const nlohmann::json& v, const std::string& where) {
  if (!v.is_number_integer()) t.fail("\"" + where + "\" must be a cv2.INTER_* code, not " + v.dump());
  switch (v.get<int>()) {
    case 0: return "nearest";
    case 1:
    case 5: return "bilinear";
    case 2: return "bicubic";
    case 3: return "area";
    case 4: return "lanczos";
    default:
      t.fail("\"" + where + "\" = " + v.dump() +
             " (cv2.INTER_NEAREST_EXACT or another) has no equivalent in downscale, whose "
             "interpolations are nearest (0), bilinear (1, 5), bicubic (2), area (3) and lanczos (4)");
  }
}

// The interpolation pair of a saved Downscale: 2.x interpolation_pair {downscale, upscale}; 1.x
// interpolation, one code for both or the same object; nearest for both when absent (both releases).
std::pair<std::string, std::string> interp_pair(const TransformReader& t) {
  const char* key = t.first_of({"interpolation_pair", "interpolation"});
  if (!t.has(key)) return {"nearest", "nearest"};
  const nlohmann::json& v = t.saved().at(key);
  if (v.is_object()) {
    const std::string k(key);
    const nlohmann::json nearest = 0;
    return {interp_word(t, v.contains("downscale") ? v.at("downscale") : nearest, k + ".downscale"),
            interp_word(t, v.contains("upscale") ? v.at("upscale") : nearest, k + ".upscale")};
  }
  const std::string w = interp_word(t, v, key);
  return {w, w};
}

// cv::resize computes the engine's arithmetic itself for these (docs/stages/geometry.md#resize):
// nearest on 8- and 16-bit images (INTER_NEAREST), bilinear on 8-bit ones (INTER_LINEAR_EXACT).
bool opencv_same(Interp i, DType t) {
  return (i == Interp::Nearest && t != DType::F32) || (i == Interp::Bilinear && t == DType::U8);
}

const StageSpec& downscale_spec() {
  static const StageSpec spec{
      .name = "downscale",
      .family = "filter",
      .summary = "Shrink by a drawn factor and enlarge back to the original size (Albumentations Downscale); 8-bit "
                 "nearest and bilinear equal the two cv::resize calls to the bit.",
      .notes = {"As Albumentations 2.x's Downscale: scale s is drawn, the image is resized by cv::resize(img, None, "
                "fx=s, fy=s) with down_interpolation, then back to its size with up_interpolation. The intermediate "
                "sides are round-half-to-even of W * s and H * s (at least 1, where OpenCV would refuse a side of "
                "0), and the shrinking pass samples at 1/s, not at W / W'. Defaults as Albumentations': s 0.25, "
                "nearest both ways, p 0.5.",
                "The resamplings are resize's (docs/stages/geometry.md#resize): 8-bit nearest is INTER_NEAREST and "
                "bilinear INTER_LINEAR_EXACT to the bit (but for ties in the last row or column at s = 0.5 on an odd "
                "side). Albumentations' INTER_LINEAR rounds otherwise in OpenCV's vector code, and area and bicubic "
                "follow OpenCV's float paths: within 1 per pass, 2 after both. Float images are resampled in float "
                "(Albumentations 2.x rounds them to 8 bits first)."},
      .params = {kScale, kDown, kUp},
      .default_p = 0.5,
      .tolerance = {.f32 = 0,
                    .reason = "the separable engine twice: integer arithmetic over tables computed once on the host; "
                              "float images: the same binary32 sums in the same order, no FMA contraction"},
      .example = {{"stage", "downscale"},
                  {"scale", {0.25, 0.5}},
                  {"down_interpolation", "area"},
                  {"up_interpolation", "bilinear"},
                  {"p", 0.5}},
      .cases = {R"({})", R"({"scale": 0.5, "down_interpolation": "bilinear", "up_interpolation": "bilinear"})",
                R"({"scale": 0.37, "down_interpolation": "area", "up_interpolation": "bicubic"})",
                R"({"scale": [0.2, 0.9], "down_interpolation": ["nearest", "bilinear"], "up_interpolation": "area"})",
                R"({"scale": 0.3, "down_interpolation": "bicubic", "up_interpolation": "nearest"})"},
      .identity = R"({"scale": 1, "down_interpolation": "bicubic", "up_interpolation": "bilinear"})",
      .bench = {R"({"scale": 0.25})", R"({"scale": 0.5, "down_interpolation": "bilinear", "up_interpolation": "bilinear"})",
                R"({"scale": 0.25, "down_interpolation": "area", "up_interpolation": "bilinear"})"},
      .arithmetic = R"md(
Albumentations' **Downscale** (default `p` 0.5): two calls of **`cv::resize`**, the first by factors,
the second back to the input's size, each by resize's separable engine (its tables, its arithmetic:
[resize](geometry.md#resize)). Here rather than with resize, because no pixel moves: the output has
the input's size and labels and masks stay as they are.

- **Draws**: `scale` (if a range, uniform), then `down_interpolation`, then `up_interpolation` (if lists).
  Defaults: 0.25, nearest, nearest, as Albumentations 2.x's `scale_range` and `interpolation_pair`.
- **Intermediate size**: `W' = max(1, rne(W * s))`, `H' = max(1, rne(H * s))`, the product in double
  and rounded half to even, which is what `cv::resize(img, None, fx=s, fy=s)` does (`saturate_cast<int>`);
  OpenCV refuses a side of 0, here it is 1. `W' = W` and `H' = H` is a copy (as OpenCV copies).
- **Shrinking pass**: resize's tables for `W -> W'` and `H -> H'` with **scale `1/s`** on both axes (OpenCV
  uses the factor it is given, not `W / W'`: `floor(d * (1/s))` for nearest, `(d + 0.5) * (1/s) - 0.5`
  for bilinear, and so on), then **enlarging pass** `W' -> W`, `H' -> H` with scale `W' / W`, `H' / H`.
- **Interpolations**: nearest, bilinear, bicubic, area, each as resize computes it. 8-bit nearest is
  `INTER_NEAREST` and 8-bit bilinear `INTER_LINEAR_EXACT`, to the bit, both passes; 16-bit nearest is
  `INTER_NEAREST` too. One exception: at `s = 0.5` OpenCV takes a shrinking bilinear pass as
  `INTER_AREA`'s 2x2 average, which on an odd side averages the partial last cell of 2 values rounding
  half to even, where the tables here round half up (ties differ by 1 in the last rows or columns).
  Albumentations names `cv2.INTER_LINEAR`, which OpenCV's vector code rounds otherwise (its products
  of `H >> 4` by 11-bit weights): on the test photographs an enlarging pass differs by 1 on about a
  tenth of the values, a shrinking one by 1 on fewer (none at `s = 0.25`). Area and bicubic follow
  OpenCV's float paths within 1 per pass. After both passes the difference from Albumentations' calls
  is at most 2. Lanczos and `INTER_NEAREST_EXACT` are refused (the importer names the parameter).
- **Types**: 8- and 16-bit images are resampled in their type, as Albumentations 2.x does for 8-bit;
  float images in binary32 (Albumentations 2.x rounds them to 8 bits first; 1.x took 8-bit images
  through float and truncated when either interpolation was not nearest).
- **CPU backend**: the passes OpenCV computes identically (above; not a shrinking bilinear pass at
  `s = 0.5` on an odd side) call `cv::resize` with the same factors; the others run the separable
  engine's host driver. The intermediate image is scratch memory.
- **Checked** (`tests/stages/test_downscale.cpp`): `EightBitEqualsTwoCvResizeCalls` (nearest and
  bilinear both ways, photographs and odd sizes, six scales, CPU path and kernels: 0 differing values;
  at `s = 0.5` on an odd side, differences of 1 in the last 3 rows or columns only),
  `SixteenBitNearestEqualsCvResize`, `ShrinkSamplesAtTheFactorNotTheSizeRatio`,
  `AlbumentationsLinearAreaAndCubicAreWithinOnePerPass`, `IntermediateSizeRoundsHalfToEven`,
  `ScaleIsUniformAndDefaultsAreAlbumentations` (chi-square), `ImportsDownscale`.
)md",
      .imports = {{.name = "Downscale",
                   .how = "scale_range (1.x: scale_min, scale_max) is scale; interpolation_pair (1.x: interpolation, "
                          "one code or {downscale, upscale}) the two interpolations",
                   .convert = [](const TransformReader& t) {
                     double lo = 0.25, hi = 0.25;
                     if (t.has("scale_range")) {
                       std::tie(lo, hi) = t.limit("scale_range", {0.25, 0.25}, false);
                     } else {
                       lo = t.number("scale_min", 0.25);
                       hi = t.number("scale_max", 0.25);
                     }
                     if (!(lo > 0 && hi <= 1 && lo <= hi))
                       t.fail("the scale range [" + std::to_string(lo) + ", " + std::to_string(hi) +
                              "] is not within (0, 1]");
                     const auto [down, up] = interp_pair(t);
                     if (!t.has("interpolation_pair") && (down != "nearest" || up != "nearest"))
                       t.note("Albumentations 1.x took 8-bit images through float and truncated when an "
                              "interpolation was not nearest; downscale resamples them in 8 bits as 2.x does");
                     ojson s{{"stage", "downscale"}, {"scale", span(lo, hi)}};
                     s["down_interpolation"] = down;
                     s["up_interpolation"] = up;
                     return s;
                   },
                   .python = {
                       {"Downscale",
                        "scale_min scale_max interpolation always_apply p",
                        "scale_range interpolation_pair p",
                        0.5}}}},
      .counterpart = {.call = "cv::resize twice",
                      .how = "cv::resize(src, mid, Size(), s, s, down) then cv::resize(mid, dst, src.size(), 0, 0, "
                             "up); bilinear as INTER_LINEAR_EXACT",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (!m.contains(kScale.name)) return {};  // a copy
                        const double s = m.at(kScale.name).get<double>();
                        const int down = cv_resize_interpolation(m.at(kDown.name).get<std::string>());
                        const int up = cv_resize_interpolation(m.at(kUp.name).get<std::string>());
                        return [&dst, src, s, down, up] {
                          cv::Mat mid;
                          cv::resize(src, mid, cv::Size(), s, s, down);
                          cv::resize(mid, dst, src.size(), 0, 0, up);
                        };
                      }},
  };
  return spec;
}

// rne(len * s), at least 1: the side cv::resize gives for factor s.
int scaled_side(int len, double s) { return std::max(1, static_cast<int>(std::nearbyint(len * s))); }

class DownscaleOp final : public Op {
 public:
  DownscaleOp(const Shape& s, double scale, Interp down, Interp up)
      : Op(s, s), scale_(scale), mid_{scaled_side(s.width, scale), scaled_side(s.height, scale), s.channels, s.dtype},
        down_(down), up_(up) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const DType t = in.shape.dtype;
    const ImageRef mid{ctx.scratch(mid_.bytes()), mid_, mid_.row_bytes()};
    // The shrinking pass by the factor; OpenCV takes it only where its own size is this one (no
    // side clamped up from 0).
    const bool cv_sized = std::nearbyint(in.shape.width * scale_) >= 1 && std::nearbyint(in.shape.height * scale_) >= 1;
    // At s = 0.5 cv::resize takes bilinear as INTER_AREA's 2x2 average, which rounds a partial last
    // cell (an odd side) half to even: the engine's tables then, on both backends.
    const bool cv_half_cells = down_ == Interp::Bilinear && scale_ == 0.5 &&
                               (in.shape.width % 2 != 0 || in.shape.height % 2 != 0);
    if (ctx.cpu() && opencv_same(down_, t) && cv_sized && !cv_half_cells) {
      cv::Mat dst = as_mat(mid);
      cv::resize(as_mat(in), dst, cv::Size(), scale_, scale_, cv_resize_interpolation(interp_words().name(down_)));
    } else {
      run_separable(ctx, in, mid, resize_axis(in.shape.width, mid_.width, 0, down_, t, false, scale_),
                    resize_axis(in.shape.height, mid_.height, 0, down_, t, false, scale_), resize_frac_bits(down_, t));
    }
    // The enlarging pass to the input's size.
    if (ctx.cpu() && opencv_same(up_, t)) {
      cv::Mat dst = as_mat(out);
      cv::resize(as_mat(mid), dst, dst.size(), 0, 0, cv_resize_interpolation(interp_words().name(up_)));
    } else {
      run_separable(ctx, mid, out, resize_axis(mid_.width, out.shape.width, 0, up_, t),
                    resize_axis(mid_.height, out.shape.height, 0, up_, t), resize_frac_bits(up_, t));
    }
  }

  nlohmann::json params() const override {
    return {{kScale.name, scale_},
            {"width", mid_.width},
            {"height", mid_.height},
            {kDown.name, interp_words().name(down_)},
            {kUp.name, interp_words().name(up_)}};
  }

 private:
  double scale_;
  Shape mid_;
  Interp down_, up_;
};

class Downscale final : public Stage {
 public:
  explicit Downscale(const StageConfig& c) : scale_(c.get(kScale)), down_(c.get(kDown)), up_(c.get(kUp)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double s = scale_.sample(d);
    const Interp down = down_.sample(d);
    const Interp up = up_.sample(d);
    if (scaled_side(in.width, s) == in.width && scaled_side(in.height, s) == in.height) return copy_op(in);
    return std::make_unique<DownscaleOp>(in, s, down, up);
  }

 private:
  NumberParam scale_;
  Drawn<Interp> down_, up_;
};

}  // namespace
}  // namespace downscale_impl

StageType downscale_stage() { return stage_type<downscale_impl::Downscale>(&downscale_impl::downscale_spec); }

}  // namespace aug
