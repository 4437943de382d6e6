#include "lib/pipeline/albumentations.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <tuple>
#include <cmath>
#include <functional>
#include <optional>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/pipeline/yaml.hpp"

namespace aug {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

// A transform as saved: its parameters, where it sits, and what the translation learnt.
struct Ctx {
  std::string source, where;  // "transform/transforms/2"
  std::vector<std::string>* notes;
  std::optional<double> mask_fill;

  void note(const std::string& what) const { notes->push_back(where + ": " + what); }
  [[noreturn]] void fail(const std::string& what) const { throw PipelineError(source + ": " + where + ": " + what); }
};

bool has(const json& t, const char* key) { return t.contains(key) && !t.at(key).is_null(); }

double number(const json& t, const char* key, double fallback, const Ctx& c) {
  if (!has(t, key)) return fallback;
  if (!t.at(key).is_number()) c.fail(std::string("\"") + key + "\" must be a number, not " + t.at(key).dump());
  return t.at(key).get<double>();
}

// A number or a pair, as Albumentations' to_tuple reads its "limit" parameters: a number x is
// (-x, x) when `symmetric`, (low, x) otherwise; a pair is itself (ordered).
std::pair<double, double> limit(const json& t, const char* key, std::pair<double, double> fallback, bool symmetric,
                                double low, const Ctx& c) {
  if (!has(t, key)) return fallback;
  const json& v = t.at(key);
  if (v.is_number()) {
    const double x = v.get<double>();
    return symmetric ? std::pair{-std::fabs(x), std::fabs(x)} : std::pair{std::min(low, x), std::max(low, x)};
  }
  if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number()) {
    const double a = v[0].get<double>(), b = v[1].get<double>();
    return {std::min(a, b), std::max(a, b)};
  }
  c.fail(std::string("\"") + key + "\" must be a number or a pair of numbers, not " + v.dump());
}

// The first of several names a parameter had across Albumentations versions.
const char* first_of(const json& t, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (has(t, k)) return k;
  return *keys.begin();
}

// [lo, hi] as a stage takes it: a single number when both ends are equal.
ojson span(double lo, double hi) { return lo == hi ? ojson(lo) : ojson::array({lo, hi}); }
ojson ispan(double lo, double hi) {
  const auto a = static_cast<std::int64_t>(std::llround(lo)), b = static_cast<std::int64_t>(std::llround(hi));
  return a == b ? ojson(a) : ojson::array({a, b});
}

std::string interpolation(const json& t, const char* key, const Ctx& c) {
  const int v = static_cast<int>(number(t, key, 1, c));
  switch (v) {
    case 0: return "nearest";
    case 1: return "bilinear";
    case 2: return "bicubic";
    case 3: return "area";
    default: c.fail(std::string("\"") + key + "\" = " + std::to_string(v) + " (cv2.INTER_LANCZOS4 or another) has no stage equivalent; use 0 to 3");
  }
}

std::string border(const json& t, int fallback, const Ctx& c) {
  const char* key = first_of(t, {"border_mode", "mode"});
  int v = fallback;
  if (has(t, key)) {
    if (!t.at(key).is_number_integer()) c.fail(std::string("\"") + key + "\" must be a cv2.BORDER_* code, not " + t.at(key).dump());
    v = t.at(key).get<int>();
  }
  switch (v) {
    case 0: return "constant";
    case 1: return "replicate";
    case 2: return "reflect";
    case 3: return "wrap";
    case 4: return "reflect101";
    default: c.fail("border mode " + std::to_string(v) + " has no stage equivalent");
  }
}

// The constant border's fill: value (1.x), fill (2.x) or cval (Affine), a number or one per channel.
void fill(const json& t, ojson& s, const Ctx& c) {
  const char* key = first_of(t, {"fill", "value", "cval"});
  if (!has(t, key)) return;
  const json& v = t.at(key);
  if (v.is_number() || (v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_number(); })))
    s["fill"] = v;
  else c.fail(std::string("\"") + key + "\" must be a number or a list of numbers, not " + v.dump());
}

// The mask's fill (mask_value 1.x, fill_mask 2.x), one for the whole pipeline.
void mask_fill(const json& t, Ctx& c) {
  const char* key = first_of(t, {"fill_mask", "mask_value"});
  if (!has(t, key) || !t.at(key).is_number()) return;
  const double v = t.at(key).get<double>();
  if (c.mask_fill && *c.mask_fill != v)
    c.note("mask fill " + std::to_string(v) + " differs from an earlier transform's; the pipeline keeps the first");
  if (!c.mask_fill) c.mask_fill = v;
}

// [width, height] from height/width (1.x) or size = (height, width) (2.x).
ojson size_of(const json& t, const Ctx& c) {
  if (has(t, "size")) {
    const json& v = t.at("size");
    if (v.is_array() && v.size() == 2) return ojson::array({v[1], v[0]});
    if (v.is_number_integer()) return ojson::array({v, v});
    c.fail("\"size\" must be (height, width), not " + v.dump());
  }
  if (!has(t, "height") || !has(t, "width")) c.fail("needs \"height\" and \"width\" (or \"size\")");
  return ojson::array({t.at("width"), t.at("height")});
}

ojson stage(const char* name) { return ojson{{"stage", name}}; }

using Convert = std::function<ojson(const json&, Ctx&)>;

struct Rule {
  const char* name;   // Albumentations class
  const char* stage;  // the stage it becomes, or the closest one when `convert` is empty
  const char* note;   // how it maps, or why it cannot
  Convert convert;
};

const std::vector<Rule>& rules() {
  static const std::vector<Rule> r = {
      {"HorizontalFlip", "flip", "direction horizontal", [](const json&, Ctx&) {
         ojson s = stage("flip");
         s["direction"] = "horizontal";
         return s;
       }},
      {"VerticalFlip", "flip", "direction vertical", [](const json&, Ctx&) {
         ojson s = stage("flip");
         s["direction"] = "vertical";
         return s;
       }},
      {"Transpose", "rotate90", "k 0 with transpose", [](const json&, Ctx&) {
         ojson s = stage("rotate90");
         s["k"] = 0;
         s["transpose"] = true;
         return s;
       }},
      {"RandomRotate90", "rotate90", "k drawn from 0..3 (np.rot90's quarter turns, counter-clockwise)",
       [](const json&, Ctx&) {
         ojson s = stage("rotate90");
         s["k"] = ojson::array({0, 1, 2, 3});
         return s;
       }},
      {"Rotate", "rotate", "limit l is angle [-l, l] (counter-clockwise); interpolation, border_mode, value / fill",
       [](const json& t, Ctx& c) {
         if (has(t, "crop_border") && t.at("crop_border").get<bool>()) c.fail("crop_border true has no stage equivalent");
         const auto [lo, hi] = limit(t, "limit", {-90, 90}, true, 0, c);
         ojson s = stage("rotate");
         s["angle"] = span(lo, hi);
         s["interpolation"] = interpolation(t, "interpolation", c);
         s["border"] = border(t, 4, c);
         fill(t, s, c);
         mask_fill(t, c);
         return s;
       }},
      {"ShiftScaleRotate", "affine",
       "rotate_limit r is angle [-r, r]; scale_limit l is scale [1 - l, 1 + l]; shift_limit f is translate f "
       "(the shift rounded to whole pixels); border_mode (default reflect101), value",
       [](const json& t, Ctx& c) {
         const auto [rlo, rhi] = limit(t, "rotate_limit", {-45, 45}, true, 0, c);
         const auto [slo, shi] = limit(t, "scale_limit", {-0.1, 0.1}, true, 0, c);
         const auto [tlo, thi] = limit(t, "shift_limit", {-0.0625, 0.0625}, true, 0, c);
         double fx = std::max(std::fabs(tlo), std::fabs(thi)), fy = fx;
         if (has(t, "shift_limit_x")) fx = std::fabs(limit(t, "shift_limit_x", {0, 0}, true, 0, c).second);
         if (has(t, "shift_limit_y")) fy = std::fabs(limit(t, "shift_limit_y", {0, 0}, true, 0, c).second);
         if (tlo != -thi) c.note("shift range made symmetric: translate " + std::to_string(fx));
         ojson s = stage("affine");
         s["angle"] = span(-rhi, -rlo);  // counter-clockwise there, clockwise here
         s["translate"] = ojson::array({fx, fy});
         s["scale"] = ojson::array({1 + slo, 1 + shi});
         s["interpolation"] = interpolation(t, "interpolation", c);
         s["border"] = border(t, 4, c);
         fill(t, s, c);
         mask_fill(t, c);
         c.note("ShiftScaleRotate shifts by fractions of a pixel; affine rounds the shift to whole pixels");
         return s;
       }},
      {"Affine", "affine",
       "scale, translate_percent (symmetric), rotate, shear, interpolation, mode / border_mode, cval / fill; "
       "per-axis scale, translate_px and fit_output are refused",
       [](const json& t, Ctx& c) {
         if (has(t, "translate_px")) c.fail("translate_px has no stage equivalent (affine translates by fractions)");
         if (has(t, "fit_output") && t.at("fit_output").get<bool>()) c.fail("fit_output true has no stage equivalent");
         auto axis_pair = [&](const char* key, std::pair<double, double> fallback, bool symmetric) {
           if (has(t, key) && t.at(key).is_object()) {
             const json& d = t.at(key);
             const auto x = limit(d, "x", fallback, symmetric, 0, c), y = limit(d, "y", fallback, symmetric, 0, c);
             return std::pair{x, y};
           }
           const auto v = limit(t, key, fallback, symmetric, 0, c);
           return std::pair{v, v};
         };
         ojson s = stage("affine");
         const auto [sx, sy] = axis_pair("scale", {1, 1}, false);
         if (sx != sy) c.fail("a different scale for x and y has no stage equivalent");
         s["scale"] = ojson::array({sx.first, sx.second});
         const auto [tx, ty] = axis_pair("translate_percent", {0, 0}, true);
         if (tx.first != -tx.second || ty.first != -ty.second) c.fail("translate_percent must be symmetric (-f, f)");
         s["translate"] = ojson::array({tx.second, ty.second});
         const auto [rlo, rhi] = limit(t, "rotate", {0, 0}, true, 0, c);
         s["angle"] = span(rlo, rhi);
         if (rlo != -rhi) c.note("rotate range used as is: affine's angle is clockwise; check the direction");
         const auto [shx, shy] = axis_pair("shear", {0, 0}, true);
         s["shear"] = ojson::array({shx.first, shx.second, shy.first, shy.second});
         s["interpolation"] = interpolation(t, "interpolation", c);
         s["border"] = border(t, 0, c);
         fill(t, s, c);
         mask_fill(t, c);
         return s;
       }},
      {"Resize", "resize", "height, width (or size); interpolation", [](const json& t, Ctx& c) {
         ojson s = stage("resize");
         s["size"] = size_of(t, c);
         s["interpolation"] = interpolation(t, "interpolation", c);
         return s;
       }},
      {"LongestMaxSize", "resize", "max_size is long_side", [](const json& t, Ctx& c) {
         ojson s = stage("resize");
         const json& m = has(t, "max_size") ? t.at("max_size") : json(1024);
         if (m.is_array()) c.fail("a list of max_size values has no stage equivalent (resize draws a range)");
         s["long_side"] = m;
         s["interpolation"] = interpolation(t, "interpolation", c);
         return s;
       }},
      {"SmallestMaxSize", "resize", "max_size is short_side", [](const json& t, Ctx& c) {
         ojson s = stage("resize");
         const json& m = has(t, "max_size") ? t.at("max_size") : json(1024);
         if (m.is_array()) c.fail("a list of max_size values has no stage equivalent (resize draws a range)");
         s["short_side"] = m;
         s["interpolation"] = interpolation(t, "interpolation", c);
         return s;
       }},
      {"RandomScale", "resize", "scale_limit l is scale [1 - l, 1 + l]", [](const json& t, Ctx& c) {
         const auto [lo, hi] = limit(t, "scale_limit", {-0.1, 0.1}, true, 0, c);
         ojson s = stage("resize");
         s["scale"] = span(1 + lo, 1 + hi);
         s["interpolation"] = interpolation(t, "interpolation", c);
         return s;
       }},
      {"CenterCrop", "crop", "height, width; position center", [](const json& t, Ctx& c) {
         ojson s = stage("crop");
         s["size"] = size_of(t, c);
         s["position"] = "center";
         if (has(t, "pad_if_needed")) s["pad_if_needed"] = t.at("pad_if_needed");
         return s;
       }},
      {"RandomCrop", "crop", "height, width; position random", [](const json& t, Ctx& c) {
         ojson s = stage("crop");
         s["size"] = size_of(t, c);
         s["position"] = "random";
         if (has(t, "pad_if_needed")) s["pad_if_needed"] = t.at("pad_if_needed");
         return s;
       }},
      {"RandomResizedCrop", "random_resized_crop", "height, width (or size), scale, ratio, interpolation",
       [](const json& t, Ctx& c) {
         ojson s = stage("random_resized_crop");
         s["size"] = size_of(t, c);
         const auto [slo, shi] = limit(t, "scale", {0.08, 1.0}, false, 0, c);
         const auto [rlo, rhi] = limit(t, "ratio", {0.75, 4.0 / 3.0}, false, 0, c);
         s["scale"] = ojson::array({slo, shi});
         s["ratio"] = ojson::array({rlo, rhi});
         s["interpolation"] = interpolation(t, "interpolation", c);
         return s;
       }},
      {"PadIfNeeded", "pad", "min_height, min_width are min_size; position center / top_left / random; border_mode "
                             "(default reflect101), value / fill",
       [](const json& t, Ctx& c) {
         if (has(t, "pad_height_divisor") || has(t, "pad_width_divisor"))
           c.fail("padding to a divisor has no stage equivalent");
         ojson s = stage("pad");
         s["min_size"] = ojson::array({has(t, "min_width") ? t.at("min_width") : json(1024),
                                       has(t, "min_height") ? t.at("min_height") : json(1024)});
         const std::string pos = has(t, "position") ? t.at("position").get<std::string>() : "center";
         if (pos == "center") s["position"] = "center";
         else if (pos == "top_left") s["position"] = "top-left";
         else if (pos == "random") s["position"] = "random";
         else c.fail("position \"" + pos + "\" has no stage equivalent (center, top_left or random)");
         s["border"] = border(t, 4, c);
         fill(t, s, c);
         mask_fill(t, c);
         return s;
       }},
      {"GaussianBlur", "gaussian_blur",
       "sigma_limit is sigma; with sigma_limit 0 (Albumentations' default) the sigmas OpenCV derives from "
       "blur_limit's odd sizes, 0.3 ((k - 1) / 2 - 1) + 0.8",
       [](const json& t, Ctx& c) {
         const auto [slo, shi] = limit(t, "sigma_limit", {0, 0}, false, 0, c);
         ojson s = stage("gaussian_blur");
         if (shi > 0) {
           s["sigma"] = span(std::max(slo, 0.1), shi);
           if (has(t, "blur_limit")) c.note("blur_limit left out: the kernel size follows from sigma");
           return s;
         }
         const auto [klo, khi] = limit(t, "blur_limit", {3, 7}, false, 3, c);
         auto sigma_of = [](double k) { return 0.3 * ((k - 1) * 0.5 - 1) + 0.8; };
         s["sigma"] = span(sigma_of(std::max(3.0, klo)), sigma_of(std::max(3.0, khi)));
         c.note("kernel sizes " + std::to_string(static_cast<int>(klo)) + ".." + std::to_string(static_cast<int>(khi)) +
                " become a continuous sigma range");
         return s;
       }},
      {"MedianBlur", "median_blur", "blur_limit is kernel_size", [](const json& t, Ctx& c) {
         const auto [lo, hi] = limit(t, "blur_limit", {3, 7}, false, 3, c);
         ojson s = stage("median_blur");
         s["kernel_size"] = ispan(lo, hi);
         return s;
       }},
      {"MotionBlur", "motion_blur", "blur_limit is kernel_size; angle_range, direction_range, allow_shifted",
       [](const json& t, Ctx& c) {
         const auto [lo, hi] = limit(t, "blur_limit", {3, 7}, false, 3, c);
         ojson s = stage("motion_blur");
         s["kernel_size"] = ispan(lo, hi);
         if (has(t, "angle_range")) {
           const auto [a, b] = limit(t, "angle_range", {0, 360}, false, 0, c);
           s["angle"] = span(a, b);
         }
         if (has(t, "direction_range")) {
           const auto [a, b] = limit(t, "direction_range", {-1, 1}, false, 0, c);
           s["direction"] = span(a, b);
         }
         if (has(t, "allow_shifted")) s["allow_shifted"] = t.at("allow_shifted");
         return s;
       }},
      {"ColorJitter", "color_jitter",
       "brightness, contrast, saturation, hue as ranges; torchvision's arithmetic, not Albumentations' OpenCV one",
       [](const json& t, Ctx& c) {
         ojson s = stage("color_jitter");
         for (const char* k : {"brightness", "contrast", "saturation"}) {
           const double fallback_b = 0.2;
           if (!has(t, k)) {
             s[k] = ojson::array({1 - fallback_b, 1 + fallback_b});
             continue;
           }
           const json& v = t.at(k);
           if (v.is_number()) s[k] = ojson::array({std::max(0.0, 1 - v.get<double>()), 1 + v.get<double>()});
           else s[k] = ojson::array({v.at(0), v.at(1)});
         }
         const auto [hlo, hhi] = limit(t, "hue", {-0.2, 0.2}, true, 0, c);
         s["hue"] = ojson::array({hlo, hhi});
         c.note("ColorJitter follows torchvision's formulas here; Albumentations' OpenCV-based ones differ slightly");
         return s;
       }},
      {"HueSaturationValue", "hue_saturation_value", "hue_shift_limit, sat_shift_limit, val_shift_limit (same units)",
       [](const json& t, Ctx& c) {
         ojson s = stage("hue_saturation_value");
         const auto h = limit(t, "hue_shift_limit", {-20, 20}, true, 0, c);
         const auto sa = limit(t, "sat_shift_limit", {-30, 30}, true, 0, c);
         const auto v = limit(t, "val_shift_limit", {-20, 20}, true, 0, c);
         s["hue_shift"] = ojson::array({h.first, h.second});
         s["sat_shift"] = ojson::array({sa.first, sa.second});
         s["val_shift"] = ojson::array({v.first, v.second});
         return s;
       }},
      {"RGBShift", "rgb_shift", "r/g/b_shift_limit; pixel units become fractions of 255", [](const json& t, Ctx& c) {
         ojson s = stage("rgb_shift");
         const char* keys[3][2] = {{"r_shift_limit", "r_shift"}, {"g_shift_limit", "g_shift"}, {"b_shift_limit", "b_shift"}};
         for (const auto& k : keys) {
           auto [lo, hi] = limit(t, k[0], {-20, 20}, true, 0, c);
           if (std::max(std::fabs(lo), std::fabs(hi)) > 1) lo /= 255, hi /= 255;
           s[k[1]] = ojson::array({lo, hi});
         }
         return s;
       }},
      {"ChannelShuffle", "channel_shuffle", "", [](const json&, Ctx&) { return stage("channel_shuffle"); }},
      {"ToGray", "grayscale", "torchvision's luma weights (OpenCV's differ by at most 1)", [](const json& t, Ctx& c) {
         if (has(t, "num_output_channels") && t.at("num_output_channels") != 3)
           c.fail("num_output_channels other than 3 has no stage equivalent (grayscale keeps the channel count)");
         c.note("ToGray: torchvision's luma weights; OpenCV's give values at most 1 apart");
         return stage("grayscale");
       }},
      {"Equalize", "equalize", "per channel, torchvision / PIL scheme (mode \"cv\" differs slightly)",
       [](const json& t, Ctx& c) {
         if (has(t, "by_channels") && !t.at("by_channels").get<bool>())
           c.fail("by_channels false (equalising luma) has no stage equivalent");
         if (!has(t, "mode") || t.at("mode") != "pil")
           c.note("Equalize: the PIL scheme; cv2.equalizeHist (mode \"cv\") rounds its table differently");
         return stage("equalize");
       }},
      {"Posterize", "posterize", "num_bits is bits", [](const json& t, Ctx& c) {
         const auto [lo, hi] = limit(t, "num_bits", {4, 4}, false, 0, c);
         ojson s = stage("posterize");
         s["bits"] = ispan(lo, hi);
         return s;
       }},
      {"Solarize", "solarize", "threshold in pixels becomes a fraction of 255; threshold_range as is",
       [](const json& t, Ctx& c) {
         ojson s = stage("solarize");
         if (has(t, "threshold_range")) {
           const auto [lo, hi] = limit(t, "threshold_range", {0.5, 0.5}, false, 0, c);
           s["threshold"] = span(lo, hi);
         } else {
           const auto [lo, hi] = limit(t, "threshold", {128, 128}, false, 0, c);
           s["threshold"] = span(lo / 255.0, hi / 255.0);
         }
         return s;
       }},
      {"InvertImg", "invert", "", [](const json&, Ctx&) { return stage("invert"); }},
      {"RandomGamma", "gamma", "gamma_limit (percent) is gamma / 100", [](const json& t, Ctx& c) {
         const auto [lo, hi] = limit(t, "gamma_limit", {80, 120}, false, 0, c);
         ojson s = stage("gamma");
         s["gamma"] = span(lo / 100.0, hi / 100.0);
         c.note("RandomGamma: torchvision's rounding (255.999); Albumentations' table truncates at 255");
         return s;
       }},
      {"GaussNoise", "gaussian_noise",
       "var_limit (pixels^2) becomes sigma [sqrt(lo), sqrt(hi)] / 255, mean / 255; std_range and mean_range as is",
       [](const json& t, Ctx& c) {
         ojson s = stage("gaussian_noise");
         if (has(t, "std_range")) {
           const auto [lo, hi] = limit(t, "std_range", {0.2, 0.44}, false, 0, c);
           s["sigma"] = span(lo, hi);
           if (has(t, "mean_range")) {
             const auto [a, b] = limit(t, "mean_range", {0, 0}, false, 0, c);
             s["mean"] = span(a, b);
           }
         } else {
           const auto [lo, hi] = limit(t, "var_limit", {10, 50}, false, 0, c);
           s["sigma"] = span(std::sqrt(std::max(lo, 0.0)) / 255.0, std::sqrt(std::max(hi, 0.0)) / 255.0);
           s["mean"] = number(t, "mean", 0, c) / 255.0;
           c.note("GaussNoise draws the variance uniformly; gaussian_noise draws sigma uniformly in the same range");
         }
         if (has(t, "per_channel")) s["per_channel"] = t.at("per_channel");
         return s;
       }},
      {"CoarseDropout", "coarse_dropout",
       "max/min_holes or num_holes_range; max/min_height, max/min_width or hole_*_range (pixels or fractions); "
       "fill_value / fill in pixels becomes a fraction of 255",
       [](const json& t, Ctx& c) {
         ojson s = stage("coarse_dropout");
         auto pair_of = [&](const char* range, const char* max_key, const char* min_key, double fallback) {
           if (has(t, range)) return limit(t, range, {fallback, fallback}, false, 0, c);
           const double hi = number(t, max_key, fallback, c);
           return std::pair{number(t, min_key, hi, c), hi};
         };
         const auto holes = pair_of("num_holes_range", "max_holes", "min_holes", 8);
         s["num_holes"] = ojson::array({std::llround(holes.first), std::llround(holes.second)});
         const auto h = pair_of("hole_height_range", "max_height", "min_height", 8);
         const auto w = pair_of("hole_width_range", "max_width", "min_width", 8);
         s["hole_height"] = ojson::array({h.first, h.second});
         s["hole_width"] = ojson::array({w.first, w.second});
         const char* key = first_of(t, {"fill", "fill_value"});
         if (has(t, key)) {
           const json& v = t.at(key);
           if (v.is_number()) s["fill"] = v.get<double>() / 255.0;
           else if (v.is_array()) {
             ojson f = ojson::array();
             for (const json& e : v) f.push_back(e.get<double>() / 255.0);
             s["fill"] = f;
           } else {
             c.fail("fill \"" + v.dump() + "\" has no stage equivalent (a number or one per channel)");
           }
         }
         mask_fill(t, c);
         return s;
       }},
      {"ImageCompression", "jpeg", "quality_lower..quality_upper or quality_range is quality; JPEG only",
       [](const json& t, Ctx& c) {
         if (has(t, "compression_type")) {
           const json& k = t.at("compression_type");
           if (!(k == "jpeg" || k == 0 || k == "ImageCompressionType.JPEG"))
             c.fail("compression_type " + k.dump() + " has no stage equivalent (jpeg only)");
         }
         ojson s = stage("jpeg");
         double lo = 99, hi = 100;
         if (has(t, "quality_range")) std::tie(lo, hi) = limit(t, "quality_range", {99, 100}, false, 0, c);
         else lo = number(t, "quality_lower", 99, c), hi = number(t, "quality_upper", 100, c);
         s["quality"] = ispan(lo, hi);
         return s;
       }},
      {"JpegCompression", "jpeg", "as ImageCompression", [](const json& t, Ctx& c) {
         ojson s = stage("jpeg");
         s["quality"] = ispan(number(t, "quality_lower", 99, c), number(t, "quality_upper", 100, c));
         return s;
       }},
      // Not available: the closest stage, and why it is not the same.
      {"RandomBrightnessContrast", "color_jitter", "adds brightness and scales contrast about the mean; color_jitter "
                                                   "multiplies (torchvision's ColorJitter)", {}},
      {"Sharpen", "sharpness", "a different 3x3 kernel with alpha and lightness", {}},
      {"Blur", "gaussian_blur", "a box filter, no stage has one", {}},
      {"CLAHE", "equalize", "tiled, clipped equalisation of luma", {}},
      {"Perspective", "perspective", "moves the corners by normal draws; perspective draws torchvision's way", {}},
      {"ElasticTransform", "elastic", "alpha and sigma in other units (Kornia's parametrisation here)", {}},
      {"RandomSizedCrop", "random_resized_crop", "draws the crop height from min_max_height", {}},
      {"SafeRotate", "rotate", "rotates inside the frame without cropping", {}},
      {"Downscale", "resize", "down and up again", {}},
      {"ToSepia", "grayscale", "", {}},
      {"Emboss", "sharpness", "", {}},
      {"GridDistortion", "elastic", "", {}},
      {"OpticalDistortion", "elastic", "", {}},
      {"ISONoise", "gaussian_noise", "", {}},
      {"MultiplicativeNoise", "gaussian_noise", "", {}},
      {"RandomFog", "gaussian_illumination", "", {}},
      {"RandomShadow", "gaussian_illumination", "", {}},
      {"RandomSunFlare", "gaussian_illumination", "", {}},
      {"GridDropout", "coarse_dropout", "holes on a grid", {}},
      {"PixelDropout", "coarse_dropout", "single pixels", {}},
      {"FancyPCA", "color_jitter", "", {}},
      {"ChannelDropout", "coarse_dropout", "", {}},
      {"D4", "rotate90", "rotate90 takes k and a fixed transpose", {}},
      {"SquareSymmetry", "rotate90", "rotate90 takes k and a fixed transpose", {}},
  };
  return r;
}

// Transforms that only change the type or layout a training loader receives.
bool left_out(const std::string& name) {
  return name == "Normalize" || name == "ToTensorV2" || name == "ToTensor" || name == "ToFloat" ||
         name == "FromFloat" || name == "NoOp";
}

std::string short_name(const json& t) {
  const std::string full = t.value("__class_fullname__", std::string());
  const auto dot = full.rfind('.');
  return dot == std::string::npos ? full : full.substr(dot + 1);
}

const Rule* find_rule(const std::string& name) {
  for (const Rule& r : rules())
    if (name == r.name) return &r;
  return nullptr;
}

class Importer {
 public:
  Importer(std::string source, std::vector<std::string>& notes) : source_(std::move(source)), notes_(notes) {}

  // The children of a composition, translated (or collected into missing_).
  ojson list(const json& transforms, const std::string& where, ojson* weights) {
    ojson out = ojson::array();
    if (!transforms.is_array()) throw PipelineError(source_ + ": " + where + ": \"transforms\" must be a list");
    for (std::size_t i = 0; i < transforms.size(); ++i) {
      std::optional<double> p;
      ojson s = node(transforms[i], where + "/" + std::to_string(i), p);
      if (s.is_null()) continue;
      if (weights) {
        // OneOf draws its child by the children's p (normalised) and applies it surely.
        weights->push_back(p.value_or(0.5));
        s.erase("p");
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  // One transform; null when it is left out. `p` receives its probability.
  ojson node(const json& t, const std::string& where, std::optional<double>& p) {
    Ctx c{source_, where, &notes_, mask_fill_};
    if (!t.is_object()) c.fail("a transform is an object with \"__class_fullname__\"");
    const std::string name = short_name(t);
    if (name.empty()) c.fail("missing \"__class_fullname__\"");
    if (has(t, "p")) p = number(t, "p", 0.5, c);
    if (has(t, "always_apply") && t.at("always_apply").is_boolean() && t.at("always_apply").get<bool>()) p = 1.0;
    ojson s;
    if (name == "Compose" || name == "Sequential" || name == "OneOf" || name == "SomeOf") {
      s = stage(name == "OneOf" ? "one_of" : name == "SomeOf" ? "some_of" : "sequence");
      ojson weights = ojson::array();
      s["stages"] = list(has(t, "transforms") ? t.at("transforms") : json::array(), where + "/transforms",
                         name == "OneOf" ? &weights : nullptr);
      if (name == "OneOf" && !weights.empty() &&
          !std::all_of(weights.begin(), weights.end(), [&](const ojson& w) { return w == weights[0]; }))
        s["weights"] = weights;
      if (name == "SomeOf") {
        s["n"] = has(t, "n") ? t.at("n") : json(1);
        if (has(t, "replace") && t.at("replace").get<bool>())
          c.note("SomeOf with replace: some_of draws its stages without repetition");
      }
      if (s["stages"].empty()) {
        c.note(name + " left out: none of its transforms remains");
        return nullptr;
      }
    } else if (left_out(name)) {
      c.note(name + " left out: augment writes image files; do it in the training loader");
      return nullptr;
    } else {
      const Rule* r = find_rule(name);
      if (!r || !r->convert) {
        missing_.push_back(where + ": " + name + (r ? std::string(" (closest stage: ") + r->stage +
                                                          (*r->note ? std::string("; ") + r->note : "") + ")"
                                                    : " (no close stage)"));
        return nullptr;
      }
      s = r->convert(t, c);
      mask_fill_ = c.mask_fill;
    }
    // Albumentations' transforms default to p 0.5, compositions to 1.
    const double prob = p.value_or(s.contains("stages") ? 1.0 : 0.5);
    p = prob;
    if (prob != 1.0) s["p"] = prob;
    return s;
  }

  const std::vector<std::string>& missing() const { return missing_; }
  std::optional<double> mask_fill() const { return mask_fill_; }

 private:
  std::string source_;
  std::vector<std::string>& notes_;
  std::vector<std::string> missing_;
  std::optional<double> mask_fill_;
};

}  // namespace

Imported import_albumentations(const json& saved, const std::string& source) {
  if (!saved.is_object() || !saved.contains("transform"))
    throw PipelineError(source + ": not a pipeline saved by Albumentations (A.save / to_dict): no \"transform\"");
  const json& top = saved.at("transform");
  if (!top.is_object() || short_name(top) != "Compose")
    throw PipelineError(source + ": transform: the saved pipeline's top is a Compose, not " +
                        (top.is_object() ? short_name(top) : top.dump()));
  Imported out;
  Importer imp(source, out.notes);
  const ojson stages = imp.list(top.value("transforms", json::array()), "transform/transforms", nullptr);
  if (!imp.missing().empty()) {
    std::string msg = source + ": " + std::to_string(imp.missing().size()) +
                      " transform(s) augment does not have; replace or remove them and import again:";
    for (const std::string& m : imp.missing()) msg += "\n  " + m;
    throw PipelineError(msg);
  }
  if (has(top, "p") && top.at("p").get<double>() != 1.0)
    out.notes.push_back("transform: the Compose's p " + top.at("p").dump() + " left out (the pipeline always runs)");
  const std::string version = saved.value("__version__", std::string("unknown"));
  ojson& p = out.pipeline;
  p["version"] = 1;
  p["description"] = "Imported from " + source + " (Albumentations " + version + ") by augment import albumentations.";
  p["stages"] = stages;
  ojson labels = ojson::object();
  if (has(top, "bbox_params") && top.at("bbox_params").is_object()) {
    const json& b = top.at("bbox_params");
    if (has(b, "min_area")) labels["min_area"] = b.at("min_area");
    if (has(b, "min_visibility")) labels["min_visibility"] = b.at("min_visibility");
    if (has(b, "min_width") || has(b, "min_height"))
      labels["min_size"] = ojson::array({b.value("min_width", 0.0), b.value("min_height", 0.0)});
    if (has(b, "format")) {
      const std::string f = b.at("format").get<std::string>();
      const std::string flag = f == "pascal_voc" ? "voc" : f == "coco" ? "coco=FILE" : f == "yolo" ? "yolo" : "";
      out.notes.push_back("bbox_params format \"" + f + "\": " +
                          (flag.empty() ? std::string("no label format of that name; see docs/labels.md")
                                        : "pass --labels " + flag + " to augment run"));
    }
  }
  if (imp.mask_fill()) labels["mask_fill"] = *imp.mask_fill() == 255 ? ojson("ignore") : ojson(*imp.mask_fill());
  if (!labels.empty()) p["labels"] = labels;
  return out;
}

Imported import_albumentations_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << f.rdbuf();
  json saved;
  if (is_yaml_path(path)) {
    std::map<std::string, std::pair<int, int>> marks;
    saved = yaml_to_json(text.str(), path, marks);
  } else {
    try {
      saved = json::parse(text.str());
    } catch (const json::exception& e) {
      throw PipelineError(path + ": invalid JSON: " + e.what());
    }
  }
  Imported out = import_albumentations(saved, path);
  // What it wrote must load as it is: a parameter out of a stage's range (a rotate limit of 400
  // degrees) is reported here, against the imported pipeline.
  Pipeline::parse(out.pipeline.dump(), path + " (imported)");
  return out;
}

namespace {

void stage_lines(std::ostringstream& o, const ojson& s, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (!s.contains("stages")) {
    o << pad << s.dump();
    return;
  }
  ojson head = s;
  head.erase("stages");
  std::string h = head.dump();
  h.pop_back();  // the closing brace
  o << pad << h << (head.size() ? ", " : "") << "\"stages\": [\n";
  for (std::size_t i = 0; i < s["stages"].size(); ++i) {
    stage_lines(o, s["stages"][i], indent + 2);
    o << (i + 1 < s["stages"].size() ? ",\n" : "]}");
  }
}

}  // namespace

std::string pipeline_text(const ojson& pipeline) {
  std::ostringstream o;
  o << "{\n";
  std::size_t k = 0;
  for (auto it = pipeline.begin(); it != pipeline.end(); ++it, ++k) {
    o << "  " << ojson(it.key()).dump() << ": ";
    if (it.key() == "stages") {
      o << "[\n";
      for (std::size_t i = 0; i < it.value().size(); ++i) {
        stage_lines(o, it.value()[i], 4);
        o << (i + 1 < it.value().size() ? ",\n" : "\n");
      }
      o << "  ]";
    } else {
      o << it.value().dump();
    }
    o << (k + 1 < pipeline.size() ? ",\n" : "\n");
  }
  o << "}\n";
  return o.str();
}

std::string albumentations_table_markdown() {
  std::ostringstream o;
  o << "| Albumentations | augment | how |\n|---|---|---|\n";
  std::vector<const Rule*> sorted;
  for (const Rule& r : rules()) sorted.push_back(&r);
  std::sort(sorted.begin(), sorted.end(), [](const Rule* a, const Rule* b) { return std::string(a->name) < b->name; });
  for (const Rule* r : sorted) {
    if (r->convert) o << "| " << r->name << " | `" << r->stage << "` | " << r->note << " |\n";
    else o << "| " << r->name << " | not available (closest: `" << r->stage << "`) | " << r->note << " |\n";
  }
  o << "| Compose, Sequential | `sequence` (the top Compose: the pipeline) | bbox_params become the `labels` block |\n"
    << "| OneOf | `one_of` | the children's p become `weights`, and each runs surely once chosen |\n"
    << "| SomeOf | `some_of` | n; drawn without repetition |\n"
    << "| Normalize, ToTensorV2, ToFloat, FromFloat, NoOp | left out, with a note | they change what a training "
       "loader receives, not the image file |\n";
  return o.str();
}

}  // namespace aug
