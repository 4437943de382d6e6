// crop_and_pad: Albumentations' CropAndPad (imgaug's): each side cropped (a negative amount) or
// padded (a positive one) by pixels or a fraction of the side, then, with keep_size, resized back
// to the input's size.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/stages/engines/opencv_words.hpp"
#include "lib/stages/engines/resample.hpp"
#include "lib/stages/geometry/padding.hpp"
#include "lib/stages/geometry/window_op.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace crop_and_pad_impl {
namespace {

const Param<std::vector<std::int64_t>> kPx{
    {.name = "px",
     .doc = "pixels added (positive) or cut (negative) at each side: n; [lo, hi] drawn per side (inclusive); "
            "[top, right, bottom, left]; or [top lo, top hi, right lo, right hi, bottom lo, bottom hi, left lo, left "
            "hi]. Give px or percent",
     .optional = true,
     .min = Bound{-65535},
     .max = Bound{65535},
     .elements = "1, 2, 4 or 8 integers (top, right, bottom, left order)"}};
const Param<std::vector<double>> kPercent{
    {.name = "percent",
     .doc = "the same as fractions of the side's axis (top and bottom of the height, left and right of the width), "
            "truncated to whole pixels: p; [lo, hi] drawn per side; [top, right, bottom, left]; or 8 values, a range "
            "per side. Give px or percent",
     .optional = true,
     .min = Bound{-1, true},
     .max = Bound{100},
     .elements = "1, 2, 4 or 8 numbers (top, right, bottom, left order)"}};
const Param<bool> kKeepSize{{.name = "keep_size",
                             .doc = "resize the result back to the input's size",
                             .default_value = true}};
const Param<bool> kIndependently{{.name = "sample_independently",
                                  .doc = "with a [lo, hi] range for every side: draw each side's amount (true) or "
                                         "one amount for all four (false)",
                                  .default_value = true}};
const Choice<Interp> kInterpolation = resample_interpolation_param();
const Choice<Border> kBorder =
    border_param({Border::Constant, Border::Replicate, Border::Reflect, Border::Reflect101, Border::Wrap},
                 Border::Constant, "what padded pixels are; a list draws one per image");
const Param<std::vector<double>> kFill = fill_param();

// cv::resize's interpolation for the counterpart (8-bit bilinear is INTER_LINEAR_EXACT, as resize).
int counterpart_interp(const std::string& word) {
  if (word == "nearest") return cv::INTER_NEAREST;
  if (word == "bilinear") return cv::INTER_LINEAR_EXACT;
  if (word == "bicubic") return cv::INTER_CUBIC;
  if (word == "area") return cv::INTER_AREA;
  return cv::INTER_LANCZOS4;
}

const StageSpec& crop_and_pad_spec() {
  static const StageSpec spec{
      .name = "crop_and_pad",
      .family = "geometry",
      .summary = "Crop (negative amounts) or pad (positive) each side by pixels or fractions of the size, then "
                 "resize back to the input's size (Albumentations CropAndPad).",
      .notes = {"As Albumentations (1.x and 2.x): the four amounts (top, right, bottom, left) are drawn, percent "
                "amounts truncated to pixels (int(p x height) for top and bottom, of the width for the sides); the "
                "negative ones crop, the positive ones pad the cropped image under border and fill; crops that "
                "would leave less than one pixel give some back by Albumentations' rule; with keep_size the result "
                "is resized to the input's size.",
                "Albumentations draws a [a, b] px range with Python's randrange, b excluded: the importer passes "
                "[a, b - 1]. A fill drawn per image (Albumentations' fill pair or list) is not available."},
      .params = {kPx, kPercent, kKeepSize, kIndependently, kInterpolation, kBorder, kFill},
      .exactly_one_of = {{"px", "percent"}},
      .tolerance = {.f32 = 0, .reason = "as resize: the same tables and sums on every backend"},
      .example = {{"stage", "crop_and_pad"}, {"percent", {-0.1, 0.1}}},
      .cases = {R"({"px": -2})",
                R"({"px": [-3, 4], "keep_size": false, "border": "reflect101"})",
                R"({"px": [2, -1, 0, 5], "fill": [7, 8, 9, 10]})",
                R"({"px": [-4, 2, 0, 0, -9, -9, 1, 3], "border": "wrap", "interpolation": "nearest"})",
                R"({"percent": [-0.25, 0.25], "sample_independently": false, "border": "replicate"})",
                R"({"percent": [0.1, -0.2, 0.0, 0.3], "keep_size": false, "border": "reflect"})",
                R"({"percent": -0.6, "interpolation": "bicubic"})",
                R"({"px": [-50, -40], "keep_size": false})"},
      .identity = R"({"px": 0})",
      .bench = {R"({"percent": [-0.1, 0.1]})", R"({"px": [-64, 64], "keep_size": false})"},
      .arithmetic = R"md(
Albumentations' CropAndPad, the same in 1.x and 2.x:

1. **Amounts** `(top, right, bottom, left)`. `px`: one integer for all sides; `[lo, hi]`: each side
   `integer(lo, hi)` (both ends included; one draw for all sides when `sample_independently` is
   false); four integers: fixed; eight: a range per side. `percent` takes the same forms with
   `uniform(lo, hi)` draws, and each amount becomes `int(p * H)` (top, bottom) or `int(p * W)` (left,
   right), truncated toward zero.
2. **Crops** are the negative amounts, **pads** the positive ones. When the crops of an axis leave
   less than one pixel, Albumentations gives pixels back: with `c1, c2` the two crops and `L` the
   axis length, `g = L + 1`, `g1 = g2 = g / 2` (integer), `g1 += 1` when `g1 + g2 < g`; if
   `g1 > c1`, `g2 += g1 - c1` and `g1 = c1`, else if `g2 > c2`, `g1 += g2 - c2` and `g2 = c2`; the
   crops become `max(c1 - g1, 0)` and `max(c2 - g2, 0)`. Where that still leaves nothing (crops of
   2 and 2 on a 1-pixel axis: Albumentations' result would be empty), the larger crop is lessened
   a pixel at a time until one pixel remains.
3. The window `[left, W - right) x [top, H - bottom)` is padded by the pads under `border` (the
   padding mirrors or repeats the cropped image, as `cv::copyMakeBorder` of the window does), then,
   with `keep_size`, resized to `W x H` as [resize](#resize) does (8-bit bilinear equals
   `cv::resize(INTER_LINEAR_EXACT)`).

The padding runs [pad](#pad)'s op on the window (no copy of it), the resize the resampling engine;
when nothing is padded, the window is resized directly, and when nothing is resized either, copied
as [crop](#crop) copies it. Boxes, points, polygons and masks move with
the window, the padding and the scale; masks are padded with the labels' mask fill and resized
nearest.
)md",
      .imports = {{.name = "CropAndPad",
                   .how = "px (ranges [a, b) as [a, b - 1]) or percent, keep_size, sample_independently, "
                          "interpolation, border_mode / pad_mode, fill / pad_cval",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "crop_and_pad"}};
                     const bool px = t.has("px"), percent = t.has("percent");
                     if (px == percent) t.fail("give exactly one of px and percent");
                     const nlohmann::json& v = t.saved().at(px ? "px" : "percent");
                     // One amount, a range for every side, four fixed amounts or four ranges.
                     const auto amount = [&](const nlohmann::json& e, bool range_end) -> double {
                       if (!e.is_number()) t.fail(std::string(px ? "px" : "percent") + " element " + e.dump() + " is not a number");
                       if (px && !e.is_number_integer()) t.fail("px " + e.dump() + " is not an integer");
                       const double x = e.get<double>();
                       return px && range_end ? x - 1 : x;  // randrange excludes its end
                     };
                     const auto range = [&](const nlohmann::json& r) {
                       if (!r.is_array() || r.size() != 2)
                         t.fail(std::string(px ? "px" : "percent") + " element " + r.dump() +
                                " is neither a number nor a (low, high) pair (a list of choices is not available)");
                       if (px && r[1].get<double>() <= r[0].get<double>())
                         t.fail("px range " + r.dump() + " is empty (Python's randrange needs low < high)");
                       return std::make_pair(amount(r[0], false), amount(r[1], true));
                     };
                     ojson out = ojson::array();
                     if (v.is_number()) {
                       out.push_back(amount(v, false));
                     } else if (v.is_array() && v.size() == 2 && v[0].is_number()) {
                       const auto [lo, hi] = range(v);
                       out = {lo, hi};
                     } else if (v.is_array() && v.size() == 4 && std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) { return e.is_number(); })) {
                       for (const nlohmann::json& e : v) out.push_back(amount(e, false));
                     } else if (v.is_array() && v.size() == 4) {
                       for (const nlohmann::json& e : v) {
                         const auto [lo, hi] = e.is_number() ? std::make_pair(amount(e, false), amount(e, false)) : range(e);
                         out.push_back(lo);
                         out.push_back(hi);
                       }
                     } else {
                       t.fail(std::string(px ? "px " : "percent ") + v.dump() +
                              " is not one amount, a (low, high) pair or four per-side entries");
                     }
                     if (px)
                       for (auto& e : out) e = static_cast<std::int64_t>(e.get<double>());
                     s[px ? "px" : "percent"] = out.size() == 1 ? out[0] : out;
                     if (t.has("keep_size")) s["keep_size"] = t.flag("keep_size", true);
                     if (t.has("sample_independently")) s["sample_independently"] = t.flag("sample_independently", true);
                     s["interpolation"] = t.interpolation();
                     s["border"] = t.border(0);
                     const char* fill_key = t.first_of({"fill", "pad_cval"});
                     if (t.has(fill_key)) {
                       const nlohmann::json& f = t.saved().at(fill_key);
                       // A list other than a pair is a choice among its values: one value when they agree.
                       if (f.is_number()) s["fill"] = f;
                       else if (f.is_array() && f.size() != 2 && !f.empty() && std::all_of(f.begin(), f.end(), [&](const nlohmann::json& e) { return e == f[0]; }))
                         s["fill"] = f[0];
                       else t.fail(std::string(fill_key) + " " + f.dump() + " is drawn per image (a range or a choice): not available");
                     }
                     const char* mask_key = t.first_of({"fill_mask", "pad_cval_mask"});
                     if (t.has(mask_key) && !t.saved().at(mask_key).is_number())
                       t.fail(std::string(mask_key) + " " + t.saved().at(mask_key).dump() + " is drawn per image: not available");
                     t.mask_fill();
                     return s;
                   },
                   .python = {{"CropAndPad",
                               "px percent pad_mode pad_cval pad_cval_mask keep_size sample_independently "
                               "interpolation always_apply p",
                               "px percent keep_size sample_independently interpolation mask_interpolation "
                               "border_mode fill fill_mask p",
                               1.0}}}},
      .counterpart = {.call = "cv::copyMakeBorder of the window, then cv::resize",
                      .how = "the resolved window, padding, border and size",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const auto c = m.at("crop").get<std::array<int, 4>>();
                        const auto p = m.at("pad").get<std::array<int, 4>>();
                        const cv::Size size(m.at("width").get<int>(), m.at("height").get<int>());
                        const int border = cv_border(m.value("border", std::string("constant")));
                        const int interp = counterpart_interp(m.value("interpolation", std::string("bilinear")));
                        return [&dst, src, c, p, size, border, interp] {
                          cv::Mat padded;
                          cv::copyMakeBorder(src(cv::Rect(c[0], c[1], c[2], c[3])), padded, p[1], p[3], p[0], p[2], border,
                                             cv::Scalar());
                          if (padded.size() == size) padded.copyTo(dst);
                          else cv::resize(padded, dst, size, 0, 0, interp);
                        };
                      }},
  };
  return spec;
}

// An image's window (x, y, w, h), the sides added to it (left, top, right, bottom) and the output size.
struct Layout {
  int x = 0, y = 0, w = 0, h = 0;
  Sides pad{0, 0, 0, 0};
  int out_w = 0, out_h = 0;
  int mid_w() const { return w + pad[0] + pad[2]; }
  int mid_h() const { return h + pad[1] + pad[3]; }
  bool padded() const { return pad != Sides{0, 0, 0, 0}; }
  bool resized() const { return out_w != mid_w() || out_h != mid_h(); }
};

class CropAndPadOp final : public Op {
 public:
  CropAndPadOp(const Shape& in, const Layout& at, Border border, std::vector<double> fill, Interp interp)
      : Op(in, Shape{at.out_w, at.out_h, in.channels, in.dtype}), at_(at), border_(border), interp_(interp) {
    const Shape window{at.w, at.h, in.channels, in.dtype};
    if (at.padded()) pad_ = pad_op(window, at.pad, border, std::move(fill));
    // Without padding the window itself is resampled (no intermediate image).
    if (at.resized())
      resize_ = at.padded() ? make_resample_op(pad_->out_shape(), Window{0, 0, at.mid_w(), at.mid_h()}, at.out_w, at.out_h, interp)
                            : make_resample_op(in, Window{at.x, at.y, at.w, at.h}, at.out_w, at.out_h, interp);
  }
  // The mask's: its own pad and resize ops (the resize nearest at pixel centres, as resize's masks).
  CropAndPadOp(const Shape& in, const Layout& at, std::unique_ptr<Op> pad, std::unique_ptr<Op> resize)
      : Op(in, Shape{at.out_w, at.out_h, in.channels, in.dtype}), at_(at), pad_(std::move(pad)), resize_(std::move(resize)) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const std::size_t px = in.shape.channels * sample_size(in.shape.dtype);
    const ImageRef window{static_cast<char*>(in.data) + at_.y * in.pitch + at_.x * px,
                          Shape{at_.w, at_.h, in.shape.channels, in.shape.dtype}, in.pitch};
    if (!pad_ && !resize_) return crop_window(ctx, in, out, at_.x, at_.y);
    if (!resize_) return pad_->run(ctx, window, out);
    if (!pad_) return resize_->run(ctx, in, out);
    const Shape mid_shape = pad_->out_shape();
    const ImageRef mid{ctx.scratch(mid_shape.bytes()), mid_shape, mid_shape.row_bytes()};
    pad_->run(ctx, window, mid);
    resize_->run(ctx, mid, out);
  }
  nlohmann::json params() const override {
    nlohmann::json j{{"crop", {at_.x, at_.y, at_.w, at_.h}},
                     {"pad", {at_.pad[0], at_.pad[1], at_.pad[2], at_.pad[3]}},
                     {"width", at_.out_w},
                     {"height", at_.out_h}};
    if (at_.resized()) j["interpolation"] = interp_words().name(interp_);
    if (at_.padded()) j["border"] = border_words().name(border_);
    return j;
  }
  std::optional<Motion> motion() const override {
    // Into the padded window: x - x0 + left; then the resize's scale about pixel centres.
    const double tx = at_.pad[0] - at_.x, ty = at_.pad[1] - at_.y;
    const double sx = static_cast<double>(at_.out_w) / at_.mid_w(), sy = static_cast<double>(at_.out_h) / at_.mid_h();
    return Motion{.matrix = {sx, 0, (tx + 0.5) * sx - 0.5, 0, sy, (ty + 0.5) * sy - 0.5, 0, 0, 1},
                  .out_width = at_.out_w,
                  .out_height = at_.out_h};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const override {
    const Shape window{at_.w, at_.h, mask.channels, mask.dtype};
    std::unique_ptr<Op> pad = at_.padded() ? pad_->for_mask(window, fill) : nullptr;
    std::unique_ptr<Op> resize;
    if (resize_) resize = resize_->for_mask(pad ? pad->out_shape() : mask, fill);
    return std::make_unique<CropAndPadOp>(mask, at_, std::move(pad), std::move(resize));
  }

 private:
  Layout at_;
  Border border_ = Border::Constant;
  Interp interp_ = Interp::Nearest;
  std::unique_ptr<Op> pad_, resize_;
};

// Albumentations' give-back when two crops leave less than one pixel of an axis of length `len`.
void give_back(int& c1, int& c2, int len) {
  const int g = std::abs(len) + 1;
  int g1 = g / 2, g2 = g / 2;
  if (g1 + g2 < g) ++g1;
  if (g1 > c1) {
    g2 += g1 - c1;
    g1 = c1;
  } else if (g2 > c2) {
    g1 += g2 - c2;
    g2 = c2;
  }
  c1 -= g1;
  c2 -= g2;
}

// Crops c1, c2 of an axis of length `len` lessened, the larger first, until one pixel remains.
void keep_one(int& c1, int& c2, int len) {
  while (len - c1 - c2 < 1) (c1 >= c2 ? c1 : c2) -= 1;
}

class CropAndPad final : public Stage {
 public:
  explicit CropAndPad(const StageConfig& c)
      : keep_size_(c.get(kKeepSize)),
        independently_(c.get(kIndependently)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(c.get(kFill)) {
    const ParamSpec& px = kPx;
    const ParamSpec& percent = kPercent;
    if (c.has(kPx) == c.has(kPercent)) c.fail(c.has(kPx) ? percent : px, "give exactly one of px and percent");
    if (c.has(kPx)) {
      for (const std::int64_t v : c.get(kPx)) amounts_.push_back(static_cast<double>(v));
    } else {
      amounts_ = c.get(kPercent);
      percent_ = true;
    }
    const std::size_t n = amounts_.size();
    if (n != 1 && n != 2 && n != 4 && n != 8)
      c.fail(percent_ ? percent : px, "takes 1, 2, 4 or 8 values, not " + std::to_string(n));
    for (std::size_t i = 0; n % 2 == 0 && n != 4 && i < n; i += 2)
      if (amounts_[i] > amounts_[i + 1]) c.fail(percent_ ? percent : px, "a range's low end is above its high end");
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    // The amounts, top, right, bottom, left.
    std::array<double, 4> a{};
    const auto draw = [&](double lo, double hi) {
      return percent_ ? d.uniform(lo, hi)
                      : static_cast<double>(d.integer(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)));
    };
    switch (amounts_.size()) {
      case 1: a.fill(amounts_[0]); break;
      case 2:
        if (independently_) {
          for (double& v : a) v = draw(amounts_[0], amounts_[1]);
        } else {
          a.fill(draw(amounts_[0], amounts_[1]));
        }
        break;
      case 4: std::copy(amounts_.begin(), amounts_.end(), a.begin()); break;
      default:
        for (int s = 0; s < 4; ++s) a[s] = draw(amounts_[2 * s], amounts_[2 * s + 1]);
    }
    std::array<int, 4> px{};  // top, right, bottom, left
    for (int s = 0; s < 4; ++s)
      px[s] = percent_ ? static_cast<int>(std::trunc(a[s] * (s % 2 == 0 ? in.height : in.width))) : static_cast<int>(a[s]);
    int top = std::max(-px[0], 0), right = std::max(-px[1], 0), bottom = std::max(-px[2], 0), left = std::max(-px[3], 0);
    if (in.height - (top + bottom) < 1) give_back(top, bottom, in.height);
    if (in.width - (left + right) < 1) give_back(left, right, in.width);
    top = std::max(top, 0), right = std::max(right, 0), bottom = std::max(bottom, 0), left = std::max(left, 0);
    // Where the rule still leaves nothing (Albumentations' result would be empty), one pixel stays.
    keep_one(top, bottom, in.height);
    keep_one(left, right, in.width);

    Layout at;
    at.x = left, at.y = top;
    at.w = in.width - left - right, at.h = in.height - top - bottom;
    at.pad = {std::max(px[3], 0), std::max(px[0], 0), std::max(px[1], 0), std::max(px[2], 0)};
    at.out_w = keep_size_ ? in.width : at.mid_w();
    at.out_h = keep_size_ ? in.height : at.mid_h();
    // The border is drawn only where it is used.
    const Border border = at.padded() ? border_.sample(d) : Border::Constant;
    const Interp interp = at.resized() ? interp_.sample(d) : Interp::Bilinear;
    return std::make_unique<CropAndPadOp>(in, at, border, fill_, interp);
  }

 private:
  std::vector<double> amounts_;
  bool percent_ = false;
  bool keep_size_, independently_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::vector<double> fill_;
};

}  // namespace
}  // namespace crop_and_pad_impl

StageType crop_and_pad_stage() { return stage_type<crop_and_pad_impl::CropAndPad>(&crop_and_pad_impl::crop_and_pad_spec); }

}  // namespace aug
