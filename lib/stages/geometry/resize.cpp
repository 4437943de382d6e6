// resize: to a fixed size, a short or long side, or a scale factor.
#include <algorithm>
#include <cmath>
#include <functional>

#include <opencv2/imgproc.hpp>

#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace resize_impl {
namespace {

const Param<IntPair> kSize{{.name = "size",
                            .doc = "exact output size",
                            .min = Bound{1},
                            .max = Bound{65535},
                            .elements = "[width, height]"}};
const Param<IntegerParam> kShortSide{{.name = "short_side",
                                      .doc = "length of the shorter side; [lo, hi] draws one per image",
                                      .random = true,
                                      .min = Bound{1},
                                      .max = Bound{65535}}};
const Param<IntegerParam> kLongSide{{.name = "long_side",
                                     .doc = "length of the longer side; [lo, hi] draws one per image",
                                     .random = true,
                                     .min = Bound{1},
                                     .max = Bound{65535}}};
const Param<IntegerParam> kMaxSize{{.name = "max_size",
                                    .doc = "with short_side: the longer side at most this (torchvision's Resize "
                                           "max_size): where it would be longer, it is max_size and the shorter "
                                           "side follows",
                                    .optional = true,
                                    .min = Bound{1},
                                    .max = Bound{65535}}};
const Param<NumberParam> kScale{{.name = "scale",
                                 .doc = "factor applied to both sides; [lo, hi] draws one per image",
                                 .random = true,
                                 .min = Bound{0, true},
                                 .max = Bound{16}}};
const Choice<Interp> kInterpolation = resample_interpolation_param();

// LongestMaxSize / SmallestMaxSize: max_size (a number, or a list Albumentations picks one from per
// image: one_of resize stages), or 2.x's max_size_hw (H, W) where H == W (the same as max_size H).
ojson max_size_resize(const TransformReader& t, const char* side) {
  nlohmann::json m = t.has("max_size") ? t.saved().at("max_size") : nlohmann::json(1024);
  if (!t.has("max_size") && t.has("max_size_hw")) {
    const nlohmann::json& hw = t.saved().at("max_size_hw");
    if (!hw.is_array() || hw.size() != 2 || !hw[0].is_number() || !hw[1].is_number())
      t.fail("max_size_hw must be (height, width), not " + hw.dump());
    if (hw[0] != hw[1])
      t.fail("max_size_hw " + hw.dump() + " with height and width different has no stage equivalent (resize sets "
             "a long or a short side, not a box to fit); give max_size, or max_size_hw with two equal values");
    m = hw[0];
  }
  const auto one = [&](const nlohmann::json& v) {
    ojson s{{"stage", "resize"}};
    s[side] = v;
    s["interpolation"] = t.interpolation();
    return s;
  };
  if (!m.is_array()) return one(m);
  if (m.empty()) t.fail("max_size is an empty list");
  if (m.size() == 1) return one(m[0]);
  ojson choice{{"stage", "one_of"}, {"stages", ojson::array()}};
  for (const auto& v : m) choice["stages"].push_back(one(v));
  return choice;
}

const StageSpec& resize_spec() {
  static const StageSpec spec{
      .name = "resize",
      .family = "geometry",
      .summary = "Resize to a size, a short side, a long side or a scale factor (aspect kept except for size); 8-bit "
                 "bilinear equals OpenCV's INTER_LINEAR_EXACT to the bit, lanczos INTER_LANCZOS4.",
      .notes = {"Pixel centres are aligned (half-pixel convention, as OpenCV and PIL). 8-bit bilinear is OpenCV's "
                "INTER_LINEAR_EXACT to the bit and 8-bit lanczos INTER_LANCZOS4; bicubic and area use fixed-point "
                "weights (11 bits for 8-bit images, 14 for 16-bit), float images binary32 weights.",
                "The computed side is rounded half to even: short_side 256 on a 500x375 image gives 341x256."},
      .params = {kSize, kShortSide, kLongSide, kScale, kMaxSize, kInterpolation},
      .exactly_one_of = {{kSize.name, kShortSide.name, kLongSide.name, kScale.name}},
      .tolerance = {.f32 = 0,
                    .reason = "integer images: integer arithmetic over tables computed once on the host; float "
                              "images: the same binary32 sums in the same order, no FMA contraction"},
      .example = {{"stage", "resize"}, {"short_side", 256}, {"interpolation", "bilinear"}},
      .cases = {R"({"size": [5, 3], "interpolation": "bilinear"})",
                R"({"scale": 0.6, "interpolation": "bilinear"})",
                R"({"scale": 1.7, "interpolation": "bilinear"})",
                R"({"scale": 0.45, "interpolation": "nearest"})",
                R"({"scale": 1.3, "interpolation": "nearest"})",
                R"({"scale": 0.55, "interpolation": "bicubic"})",
                R"({"scale": 2.2, "interpolation": "bicubic"})",
                R"({"scale": 0.37, "interpolation": "area"})",
                R"({"scale": 0.5, "interpolation": "area"})",
                R"({"scale": 1.6, "interpolation": "area"})",
                R"({"scale": 0.45, "interpolation": "lanczos"})",
                R"({"scale": 1.8, "interpolation": "lanczos"})",
                R"({"short_side": [3, 6], "max_size": 7, "interpolation": "bilinear"})"},
      .identity = R"({"scale": 1, "interpolation": "bicubic"})",
      .bench = {R"({"short_side": 256, "interpolation": "bilinear"})", R"({"scale": 0.5, "interpolation": "area"})",
                R"({"scale": 0.37, "interpolation": "area"})", R"({"scale": 0.75, "interpolation": "bicubic"})",
                R"({"scale": 1.5, "interpolation": "bicubic"})", R"({"scale": 0.75, "interpolation": "lanczos"})",
                R"({"scale": 1.5, "interpolation": "lanczos"})", R"({"scale": 0.5, "interpolation": "nearest"})",
                R"({"scale": 1.5, "interpolation": "nearest"})"},
      .arithmetic = R"md(
Reproduces `cv::resize` with an explicit size (OpenCV 4.6): 8-bit bilinear is **INTER_LINEAR_EXACT to
the bit**, nearest is **INTER_NEAREST** (not `_EXACT`). The separable engine, one table per axis.

**Output size**: `size`; or `short_side` / `long_side` (that side = target, the other
`max(1, rne(other * target / side))`: 500x375 with short_side 256 gives 341x256; with `max_size`,
a longer side that would exceed it is `max_size` and the shorter `max(1, rne(short * max_size /
long))`, as torchvision's `max_size`, rounded the same way); or `scale`
(`max(1, rne(W*f))` x `max(1, rne(H*f))`). An unchanged size is a copy. Draws: the side or scale (if a
range), then the interpolation (if a list).

**Tables** (double; `f = scale*(d + 0.5) - 0.5`, `i = floor(f)`, `t = f - i`):

- **bilinear**: `i < 0` or `src == 1`: one tap (0, 1); `i >= src - 1`: one tap (src - 1, 1); else
  (i, 1 - t), (i + 1, t) with `c1 = rne(t * 2^F)`, `c0 = max(0, 2^F - c1)`. With `F = 8` the
  horizontal sums are at most 65280 and `out = (c0y*h0 + c1y*h1 + 2^15) >> 16`: OpenCV's
  `ufixedpoint16` arithmetic for INTER_LINEAR_EXACT, including its clamping at the edges.
- **nearest**: one tap `min(floor(d * scale), src - 1)` (no half-pixel offset, as OpenCV).
- **bicubic**: Keys' cubic, `a = -0.75`, in double with `x = t`: `w0 = ((a(x+1) - 5a)(x+1) + 8a)(x+1) - 4a`,
  `w1 = ((a+2)x - (a+3))x^2 + 1`, `w2 = ((a+2)(1-x) - (a+3))(1-x)^2 + 1`, `w3 = 1 - w0 - w1 - w2`, on
  indices `clamp(i - 1 + k, 0, src - 1)`, quantised by the general rule. Within 1 of INTER_CUBIC
  (OpenCV evaluates the weights in binary32 and runs most of its vertical pass in float).
- **lanczos**: OpenCV's INTER_LANCZOS4, **to the bit for 8-bit images**. The position is binary32:
  `f = (float)(scale*(d + 0.5) - 0.5)`, `i = floor(f)`, `x = f - i` (binary32); 8 taps on
  `clamp(i - 3 + k, 0, src - 1)`. With `y0 = -(x + 3) pi/4`, `s0 = sin y0`, `c0 = cos y0` (double),
  the distances `x + 3 - k` (binary32) give `w_k = (float)((A_k s0 + B_k c0) / (pi (x + 3 - k)/4)^2)`
  where (A_k, B_k) = (1, 0), (-r, -r), (0, 1), (r, -r), (-1, 0), (r, r), (0, -1), (-r, r), `r = sqrt(2)/2`
  (the angle-sum identities for `sin(y0 + k 3pi/4)`; `w_k = 1e30` at distance 0, normalised away);
  then `w_k *= 1/sum` in binary32. 8-bit weights are `rne(w_k * 2^11)` each on its own (their sum
  can miss 2^11 by one, as OpenCV's), the sums exact integers, `out = sat((sum + 2^21) >> 22)`.
  16-bit images use the general rule with `F = 14` (OpenCV computes them in float: within 1).
- **area**, per axis. Shrinking (`scale >= 1`), OpenCV's box-overlap table: `f1 = d*scale`,
  `f2 = f1 + scale`, `cw = min(scale, src - f1)`, `s1 = ceil(f1)`, `s2 = min(floor(f2), src - 1)`,
  `s1 = min(s1, s2)`; taps `(s1 - 1, (s1 - f1)/cw)` if `s1 - f1 > 1e-3`, `(s, 1/cw)` for
  `s1 <= s < s2`, `(s2, min(f2 - s2, 1, cw)/cw)` if `f2 - s2 > 1e-3`. Enlarging, OpenCV's "area mode"
  bilinear: `sx = floor(d*scale)`, `fx = (d + 1) - (sx + 1) * (1/scale)`,
  `fx = fx <= 0 ? 0 : fx - floor(fx)`, taps (sx, 1 - fx), (sx + 1, fx), or (src - 1, 1) when
  `sx >= src - 1`. Within 1 of INTER_AREA (OpenCV accumulates in float and picks the mode for both
  axes at once; mixed shrink/enlarge is not compared). An exact 2x shrink gives 8-bit weights 1024,
  1024, hence `(a + b + c + d + 2) >> 2`, OpenCV's fast path (16-bit: 8192, 8192, the same sum).
- **CPU backend**: where OpenCV computes these very values faster it calls `cv::resize` on the
  window: nearest on 8- and 16-bit images (`INTER_NEAREST`, a pixel copy; not the centred nearest of
  label maps), and area halving both sides of an 8- or 16-bit image with 1, 3 or 4 channels
  (`INTER_AREA`, its `(a + b + c + d + 2) >> 2` path). Everything else, 8-bit bilinear included (the
  values of `INTER_LINEAR_EXACT`, about 0.8x its time), runs the separable engine's host driver. The `*EqualsTheKernels` tests in `tests/stages/test_resize.cpp` hold each
  equal to the kernels run on the host.
- 16-bit images: the same tables with `F = 14`; float images: binary32 weights.
)md",
      .imports = {
          {.name = "Resize",
           .how = "height, width (or size); interpolation",
           .convert = [](const TransformReader& t) {
            ojson s{{"stage", "resize"}};
            s["size"] = t.size();
            s["interpolation"] = t.interpolation();
            return s;
          },
           .python = {
               {"Resize",
                "height width interpolation always_apply p",
                "height width interpolation mask_interpolation area_for_downscale p",
                1.0}}},
          {.name = "LongestMaxSize",
           .how = "max_size is long_side (a list: one_of resize stages, one per value); max_size_hw (H, H) is long_side H",
           .convert = [](const TransformReader& t) {
            return max_size_resize(t, "long_side");
          },
           .python = {
               {"LongestMaxSize",
                "max_size interpolation always_apply p",
                "max_size max_size_hw interpolation mask_interpolation area_for_downscale p",
                1.0}}},
          {.name = "SmallestMaxSize",
           .how = "max_size is short_side (a list: one_of resize stages, one per value); max_size_hw (H, H) is short_side H",
           .convert = [](const TransformReader& t) {
            return max_size_resize(t, "short_side");
          },
           .python = {
               {"SmallestMaxSize",
                "max_size interpolation always_apply p",
                "max_size max_size_hw interpolation mask_interpolation area_for_downscale p",
                1.0}}},
          {.name = "RandomScale",
           .how = "scale_limit l is scale [1 - l, 1 + l]",
           .convert = [](const TransformReader& t) {
            const auto [lo, hi] = t.limit("scale_limit", {-0.1, 0.1}, true);
            ojson s{{"stage", "resize"}};
            s["scale"] = span(1 + lo, 1 + hi);
            s["interpolation"] = t.interpolation();
            return s;
          },
           .python = {
               {"RandomScale",
                "scale_limit interpolation always_apply p",
                "scale_limit interpolation mask_interpolation area_for_downscale p",
                0.5}}}},
      .counterpart = {.call = "cv::resize",
                      .how = "the resolved size and interpolation (8-bit bilinear: INTER_LINEAR_EXACT)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (!m.contains("interpolation")) return {};  // the identity
                        const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
                        const int interp = cv_resize_interpolation(m.at("interpolation").get<std::string>());
                        return [&dst, src, size, interp] { cv::resize(src, dst, size, 0, 0, interp); };
                      }},
  };
  return spec;
}

int side(double v) { return std::max(1, static_cast<int>(std::nearbyint(v))); }

class Resize final : public Stage {
 public:
  explicit Resize(const StageConfig& c) : interp_(c.get(kInterpolation)) {
    if (c.has(kSize)) size_ = c.get(kSize);
    if (c.has(kShortSide)) short_ = c.get(kShortSide);
    if (c.has(kLongSide)) long_ = c.get(kLongSide);
    if (c.has(kScale)) scale_ = c.get(kScale);
    if (c.has(kMaxSize)) {
      if (!short_) c.fail(kMaxSize, "applies with short_side only (the longer side's cap)");
      max_size_ = static_cast<int>(c.get(kMaxSize).lo);
    }
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double w = in.width, h = in.height;
    int ow, oh;
    if (size_) {
      ow = static_cast<int>((*size_)[0]);
      oh = static_cast<int>((*size_)[1]);
    } else if (short_ || long_) {
      const bool by_short = short_.has_value();
      const double target = static_cast<double>((by_short ? *short_ : *long_).sample(d));
      const bool width_is_it = by_short ? in.width <= in.height : in.width > in.height;
      if (width_is_it) {
        ow = side(target);
        oh = side(h * target / w);
      } else {
        oh = side(target);
        ow = side(w * target / h);
      }
      if (max_size_ > 0 && std::max(ow, oh) > max_size_) {  // the longer side capped (short_side only)
        const double m = max_size_;
        if (in.width > in.height) {
          ow = max_size_;
          oh = side(h * m / w);
        } else {
          oh = max_size_;
          ow = side(w * m / h);
        }
      }
    } else {
      const double f = scale_->sample(d);
      ow = side(w * f);
      oh = side(h * f);
    }
    const Interp interp = interp_.sample(d);
    if (ow == in.width && oh == in.height) return copy_op(in);
    return make_resample_op(in, Window{0, 0, in.width, in.height}, ow, oh, interp);
  }

 private:
  Drawn<Interp> interp_;
  std::optional<IntPair> size_;
  std::optional<IntegerParam> short_, long_;
  std::optional<NumberParam> scale_;
  int max_size_ = 0;  // 0: none
};

}  // namespace
}  // namespace resize_impl

StageType resize_stage() { return stage_type<resize_impl::Resize>(&resize_impl::resize_spec); }

}  // namespace aug
