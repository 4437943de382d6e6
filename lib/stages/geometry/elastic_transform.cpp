// elastic_transform: Albumentations 2.x's ElasticTransform: a per-pixel noise field blurred by
// cv::GaussianBlur and scaled by alpha, added to the identity map, then the warp engine's remap
// (8-bit: cv::remap with the same maps). The Kornia-style field is the `elastic` stage.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/core/philox.hpp"
#include "kernels/noise/normal.hpp"
#include "lib/core/text.hpp"
#include "lib/stages/geometry/remap_op.hpp"
#include "lib/stages/geometry/warp_op.hpp"
#include "lib/stages/noise/normal_table.hpp"

namespace aug {

namespace elastic_transform_impl {
namespace {

const Param<NumberParam> kAlpha{{.name = "alpha",
                                 .doc = "the displacement's scale in pixels (the blurred field times alpha)",
                                 .default_value = 1.0,
                                 .min = Bound{0},
                                 .max = Bound{100000}}};
const Param<NumberParam> kSigma{{.name = "sigma",
                                 .doc = "the Gaussian blur's standard deviation in pixels",
                                 .default_value = 50.0,
                                 .min = Bound{0, true},
                                 .max = Bound{1000}}};
const Param<bool> kApproximate{{.name = "approximate",
                                .doc = "blur with a fixed 17 x 17 kernel (else cv::GaussianBlur's size for sigma)",
                                .default_value = false}};
const Param<bool> kSameDxDy{{.name = "same_dxdy",
                             .doc = "one field for both axes (dy = dx)",
                             .default_value = false}};
enum class Noise { Gaussian, Uniform };
const Words<Noise> kNoiseWords{{{Noise::Gaussian, "gaussian"}, {Noise::Uniform, "uniform"}}};
const Choice<Noise> kNoise{kNoiseWords,
                           {},
                           Noise::Gaussian,
                           {.name = "noise_distribution",
                            .doc = "the field's noise: gaussian (standard normal, divided by its largest magnitude) "
                                   "or uniform (U(-1, 1))"}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

struct FieldSettings {
  double alpha = 1, sigma = 50;
  bool approximate = false, same = false;
  Noise noise = Noise::Gaussian;
};

// The maps: noise per pixel i = y W + x from block i of sub-stream 1 (word 0 for dx, word 1 for dy),
// standard normal (the keyed generator's normal) or 2 u - 1; gaussian fields divided by max |F| over
// both when above 1e-6; stacked as one (2H or H) x W float32 image and blurred by cv::GaussianBlur
// (17 x 17 or automatic, sigma, BORDER_REPLICATE); times alpha in float32; map = (x + dx, y + dy).
void elastic_maps(RemapField& f, const FieldSettings& s, const k::KeyedStream& stream) {
  const int w = f.out_width, h = f.out_height, fields = s.same ? 1 : 2;
  const std::size_t n = static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  cv::Mat noise(fields * h, w, CV_32F);
  float* a = noise.ptr<float>(0);
  float* b = fields == 2 ? noise.ptr<float>(h) : nullptr;
  const float* table = normal_table().data();
  float peak = 0.f;
  for (std::size_t i = 0; i < n; ++i) {
    const k::Philox4x32 v = stream.block(static_cast<std::uint32_t>(i), 1);
    if (s.noise == Noise::Gaussian) {
      a[i] = k::standard_normal(v.v[0], table);
      peak = std::max(peak, std::fabs(a[i]));
      if (b) {
        b[i] = k::standard_normal(v.v[1], table);
        peak = std::max(peak, std::fabs(b[i]));
      }
    } else {
      a[i] = 2.f * k::uniform01f(v.v[0]) - 1.f;
      if (b) b[i] = 2.f * k::uniform01f(v.v[1]) - 1.f;
    }
  }
  if (s.noise == Noise::Gaussian && peak > 1e-6f)
    for (std::size_t i = 0; i < n * static_cast<std::size_t>(fields); ++i) a[i] /= peak;
  cv::Mat blurred;
  const int ks = s.approximate ? 17 : 0;
  cv::GaussianBlur(noise, blurred, cv::Size(ks, ks), s.sigma, s.sigma, cv::BORDER_REPLICATE);
  const float alpha = static_cast<float>(s.alpha);
  f.separable = false;
  f.map_x.resize(n);
  f.map_y.resize(n);
  for (int y = 0; y < h; ++y) {
    const float* dx = blurred.ptr<float>(y);
    const float* dy = blurred.ptr<float>(fields == 2 ? h + y : y);
    float* mx = f.map_x.data() + static_cast<std::size_t>(y) * w;
    float* my = f.map_y.data() + static_cast<std::size_t>(y) * w;
    const float fy = static_cast<float>(y);
    for (int x = 0; x < w; ++x) {
      mx[x] = static_cast<float>(x) + dx[x] * alpha;
      my[x] = fy + dy[x] * alpha;
    }
  }
}

ojson convert_elastic(const TransformReader& t) {
  const bool v2 = t.release_2() || t.has("fill") || t.has("fill_mask") || t.has("noise_distribution");
  ojson s{{"stage", "elastic_transform"}};
  s["alpha"] = t.number("alpha", 1);
  s["sigma"] = t.number("sigma", 50);
  s["approximate"] = t.flag("approximate", false);
  s["same_dxdy"] = t.flag("same_dxdy", false);
  if (v2) {
    s["noise_distribution"] = t.has("noise_distribution") ? t.saved().at("noise_distribution").get<std::string>()
                                                          : std::string("gaussian");
  } else {
    s["noise_distribution"] = "uniform";
    // Before 1.4, alpha_affine defaulted to 50 (a pre-warp on by default).
    const auto [major, minor] = t.release();
    const double affine = t.number("alpha_affine", major == 1 && minor >= 4 ? 0 : 50);
    if (affine != 0)
      t.note("alpha_affine " + format_number(affine) + " (1.x's random affine pre-warp, " +
             (t.has("alpha_affine") ? "" : "its default before 1.4, ") + "removed in Albumentations 1.4) is left out");
    if (!t.flag("approximate", false))
      t.note("1.x's field blurred by scipy's gaussian_filter (each axis alone) is approximated by "
             "cv2.GaussianBlur of the two fields stacked, as 2.x does");
  }
  s["interpolation"] = t.warp_interpolation();
  s["border"] = t.border(v2 ? 0 : 4);
  t.fill(s);
  t.mask_fill();
  return s;
}

const StageSpec& elastic_transform_spec() {
  static const StageSpec spec{
      .name = "elastic_transform",
      .family = "geometry",
      .summary = "Elastic deformation as Albumentations 2.x's ElasticTransform: a per-pixel noise field blurred by "
                 "cv::GaussianBlur, times alpha; 8-bit equals cv::remap with the same maps.",
      .notes = {"As Albumentations 2.x: noise of shape (2 or 1, H, W) (standard normal divided by its largest "
                "magnitude, or U(-1, 1)), stacked as one image and blurred by cv::GaussianBlur with sigma (kernel "
                "17 x 17 when approximate, else OpenCV's size for sigma) and a replicated border, so dx's last rows "
                "and dy's first rows blur into each other, as in Albumentations; times alpha; the maps are "
                "(x + dx, y + dy).",
                "The noise comes from the keyed generator (not numpy's), so the fields are Albumentations' in "
                "distribution, not in value. The maps are built on the host once per image and used by every "
                "backend.",
                "Imported 1.x pipelines: alpha_affine (a random affine pre-warp, removed in Albumentations 1.4) is "
                "left out, and 1.x's uniform noise blurred per axis by scipy's gaussian_filter becomes the "
                "uniform noise blurred by cv::GaussianBlur.",
                "The Kornia-style field (alpha in normalised units, a kernel size) is the elastic stage.",
                "Labels move through the map (points through its inverse, boxes from the moved outline), masks are "
                "sampled nearest through the same map on the run's device."},
      .params = {kAlpha, kSigma, kApproximate, kSameDxDy, kNoise, kInterpolation, kBorder, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "the maps are built once on the host; integer images: cv::remap's fixed-point "
                              "arithmetic; float images: the same binary32 operations in the same order"},
      .example = {{"stage", "elastic_transform"}, {"alpha", 120}, {"sigma", 6}, {"p", 0.5}},
      .cases = {R"({"alpha": 1, "sigma": 50})",
                R"({"alpha": 120, "sigma": 6, "interpolation": "nearest", "border": "reflect101"})",
                R"({"alpha": 40, "sigma": 4, "approximate": true, "same_dxdy": true, "border": "replicate"})",
                R"({"alpha": 60, "sigma": 5, "noise_distribution": "uniform", "interpolation": "bicubic", "fill": [255, 128, 0]})",
                R"({"alpha": 30, "sigma": 3, "border": "wrap"})"},
      .no_identity = "alpha 0 gives the identity map, but the stage still builds and samples the field",
      .bench = {R"({"alpha": 120, "sigma": 6})", R"({})"},
      .arithmetic = R"md(
Albumentations 2.x's **ElasticTransform**; `p` 0.5.

- **Noise**: for pixel `i = y*W + x`, block `i` of the stage's sub-stream 1
  ([Random draws](../arithmetic.md#random-draws)): word 0 for the x field, word 1 for the y field
  (the x field only with `same_dxdy`). `gaussian`: the generator's standard normal (the same table
  as gaussian_noise), then both fields divided by `max |F|` when that is above `1e-6`; `uniform`:
  `2 uniform01f(word) - 1`. All float32.
- **Blur**: the fields stacked as one `(2H or H) × W` float32 image, `cv::GaussianBlur` with kernel
  `(17, 17)` if `approximate` else `(0, 0)` (OpenCV's size for float images, `cvRound(8 sigma + 1) | 1`),
  sigma on both axes, `BORDER_REPLICATE`; the stacking makes the two fields meet at row `H`, as in
  Albumentations.
- **Maps**: `dx = blur_x · float32(alpha)`, `map_x = x + dx`, `map_y = y + dy` in float32.
- **Sampling**: the [warp engine](../arithmetic.md#warp-engine)'s remap, so 8-bit outputs equal
  `cv::remap` with these maps; the maps are built on the host and used by every backend.
- The manifest records `alpha`, `sigma`, `approximate`, `same_dxdy`, `noise_distribution`, and
  `interpolation`, `border`, `fill`.
)md",
      .imports = {{.name = "ElasticTransform",
                   .how = "alpha, sigma, approximate, same_dxdy, noise_distribution (1.x: uniform), interpolation, "
                          "border_mode (1.x default reflect101), value / fill; 1.x's alpha_affine is left out and its "
                          "scipy blur becomes cv2.GaussianBlur (notes)",
                   .convert = &convert_elastic,
                   .python = {
                       {"ElasticTransform",
                        "alpha sigma alpha_affine interpolation border_mode value mask_value always_apply "
                        "approximate same_dxdy p",
                        "alpha sigma interpolation approximate same_dxdy mask_interpolation noise_distribution "
                        "keypoint_remapping_method p border_mode fill fill_mask",
                        0.5}}}},
      .counterpart = {.call = "cv::GaussianBlur + cv::remap",
                      .how = "the same field built with OpenCV: cv::randn (or cv::randu) noise, divided by its "
                             "largest magnitude, cv::GaussianBlur, times alpha, plus the identity grid (a plain "
                             "loop), then cv::remap with the recorded interpolation, border and fill",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const double alpha = m.at("alpha").get<double>(), sigma = m.at("sigma").get<double>();
                        const bool approximate = m.at("approximate").get<bool>(), same = m.at("same_dxdy").get<bool>();
                        const bool gaussian = m.at("noise_distribution").get<std::string>() == "gaussian";
                        const std::vector<double> f = m.at("fill").get<std::vector<double>>();
                        cv::Scalar fill;
                        for (std::size_t c = 0; c < f.size() && c < 4; ++c) fill[static_cast<int>(c)] = f[c];
                        const int interp = cv_warp_interpolation(interp_words().parse(m.at("interpolation").get<std::string>()));
                        const int border = cv_border(m.at("border").get<std::string>());
                        return [&dst, src, alpha, sigma, approximate, same, gaussian, interp, border, fill] {
                          const int w = src.cols, h = src.rows, fields = same ? 1 : 2;
                          cv::Mat noise(fields * h, w, CV_32F), blurred;
                          if (gaussian) {
                            cv::randn(noise, 0.0, 1.0);
                            const double peak = cv::norm(noise, cv::NORM_INF);
                            if (peak > 1e-6) noise /= peak;
                          } else {
                            cv::randu(noise, -1.0, 1.0);
                          }
                          const int ks = approximate ? 17 : 0;
                          cv::GaussianBlur(noise, blurred, cv::Size(ks, ks), sigma, sigma, cv::BORDER_REPLICATE);
                          const float a = static_cast<float>(alpha);
                          cv::Mat mx(h, w, CV_32F), my(h, w, CV_32F);
                          for (int y = 0; y < h; ++y) {
                            const float* dx = blurred.ptr<float>(y);
                            const float* dy = blurred.ptr<float>(fields == 2 ? h + y : y);
                            float* px = mx.ptr<float>(y);
                            float* py = my.ptr<float>(y);
                            for (int x = 0; x < w; ++x) {
                              px[x] = static_cast<float>(x) + dx[x] * a;
                              py[x] = static_cast<float>(y) + dy[x] * a;
                            }
                          }
                          cv::remap(src, dst, mx, my, interp, border, fill);
                        };
                      }},
  };
  return spec;
}

class ElasticTransform final : public Stage {
 public:
  explicit ElasticTransform(const StageConfig& c)
      : noise_(c.get(kNoise)), interp_(c.get(kInterpolation)), border_(c.get(kBorder)), fill_(warp_fill(c.get(kFill))) {
    s_.alpha = c.get(kAlpha).lo;
    s_.sigma = c.get(kSigma).lo;
    s_.approximate = c.get(kApproximate);
    s_.same = c.get(kSameDxDy);
  }

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    FieldSettings s = s_;
    s.noise = noise_.sample(d);
    const RemapField f = remap_settings(in, d, interp_, border_, fill_);
    const k::KeyedStream stream = d.stream();
    auto maps = std::make_shared<const FieldMaps>([s, stream](RemapField& r) { elastic_maps(r, s, stream); });
    return std::make_unique<RemapOp>(in, f, std::move(maps),
                                     nlohmann::json{{"alpha", s.alpha},
                                                    {"sigma", s.sigma},
                                                    {"approximate", s.approximate},
                                                    {"same_dxdy", s.same},
                                                    {"noise_distribution", kNoiseWords.name(s.noise)}});
  }

 private:
  FieldSettings s_;
  Drawn<Noise> noise_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
};

}  // namespace
}  // namespace elastic_transform_impl

StageType elastic_transform_stage() {
  return stage_type<elastic_transform_impl::ElasticTransform>(&elastic_transform_impl::elastic_transform_spec);
}

}  // namespace aug
