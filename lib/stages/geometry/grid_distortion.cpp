// grid_distortion: Albumentations' GridDistortion (2.x by default, 1.x's last cell on request): a
// separable map built from drawn cell steps, then the warp engine's remap (8-bit: cv::remap).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/stages/engines/numpy_like.hpp"
#include "lib/stages/geometry/remap_op.hpp"
#include "lib/stages/geometry/warp_op.hpp"

namespace aug {

namespace grid_distortion_impl {
namespace {

const Param<IntegerParam> kNumSteps{{.name = "num_steps",
                                     .doc = "grid cells along each side",
                                     .default_value = 5,
                                     .min = Bound{1},
                                     .max = Bound{1024}}};
const Param<NumberParam> kDistortLimit{{.name = "distort_limit",
                                        .doc = "each cell's size is scaled by 1 + U(lo, hi), drawn per cell and axis "
                                               "(Albumentations' distort_limit d is [-d, d])",
                                        .default_value = {-0.3, 0.3},
                                        .random = true,
                                        .min = Bound{-1},
                                        .max = Bound{1}}};
const Param<bool> kNormalized{{.name = "normalized",
                               .doc = "rescale the drawn steps so that the distorted grid ends at the image's edge "
                                      "(Albumentations 2.x's default; 1.x's default was false)",
                               .default_value = true}};
const Param<bool> kClampLastCell{{.name = "clamp_last_cell",
                                  .doc = "Albumentations 1.x's map: a last cell that overruns the image ends at the "
                                         "image's edge (2.x keeps its drawn step)",
                                  .default_value = false}};
const Choice<Interp> kInterpolation = warp_interpolation_param();
const Choice<Border> kBorder = warp_border_param();
const Param<std::vector<double>> kFill = fill_param();

// normalize_grid_distortion_steps for one axis of `size` pixels.
void normalize_steps(std::vector<double>& steps, int size, int num_steps) {
  const int step = size / num_steps;
  const int last = std::min(size, (num_steps + 1) * step) - num_steps * step;
  steps.back() *= static_cast<double>(last) / static_cast<double>(step);
  const double target = static_cast<double>(size) / static_cast<double>(step);
  const double k = target / numpy_sum(steps.data(), steps.size());
  for (double& s : steps) s *= k;
}

// One axis of the map: cell i covers [i*step, min(i*step + step, size)) with a linspace from the
// previous cell's end to prev + step * s_i (1.x with clamp: a cell that overruns ends at `size`,
// its end value `size`). Pixels past the last cell stay 0, as in Albumentations.
std::vector<float> axis_map(const std::vector<double>& steps, int size, bool clamp_last_cell) {
  const int num_steps = static_cast<int>(steps.size()) - 1;
  const int step = size / num_steps;
  std::vector<float> m(static_cast<std::size_t>(size), 0.f);
  double prev = 0.0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const int start = static_cast<int>(i) * step;
    int end = start + step;
    double cur;
    if (clamp_last_cell) {
      if (end > size) {
        end = size;
        cur = size;
      } else {
        cur = prev + step * steps[i];
      }
    } else {
      end = std::min(end, size);
      cur = prev + step * steps[i];
    }
    numpy_linspace(m.data() + start, prev, cur, end - start);
    prev = cur;
  }
  return m;
}

const StageSpec& grid_distortion_spec() {
  static const StageSpec spec{
      .name = "grid_distortion",
      .family = "geometry",
      .summary = "Grid distortion (Albumentations GridDistortion): each grid cell stretched or squeezed by a drawn "
                 "factor per axis; 8-bit equals cv::remap with the same maps.",
      .notes = {"As Albumentations 2.x: the image is cut into num_steps cells of W // num_steps pixels per axis (the "
                "last one what remains); per axis, num_steps + 1 factors 1 + U(distort_limit) are drawn (x first, "
                "then y), optionally normalised so the grid ends at the image's edge, and each cell maps linearly "
                "(numpy.linspace in double, stored as float32) onto its stretched source span. The maps are the "
                "meshgrid of the two axes, sampled by cv::remap's arithmetic.",
                "clamp_last_cell gives Albumentations 1.x's map (a last cell that overruns the image ends at the "
                "edge); 1.x's defaults were normalized false and border reflect101. Pixels past the last whole cell "
                "(when W % num_steps exceeds W // num_steps) map to 0, as in Albumentations.",
                "Labels move through the map (points through its inverse, boxes from the moved outline), masks are "
                "sampled nearest through the same map on the run's device."},
      .params = {kNumSteps, kDistortLimit, kNormalized, kClampLastCell, kInterpolation, kBorder, kFill},
      .default_p = 0.5,
      .tolerance = {.reason = "the maps are built once on the host; integer images: cv::remap's fixed-point "
                              "arithmetic; float images: the same binary32 operations in the same order"},
      .example = {{"stage", "grid_distortion"}, {"num_steps", 5}, {"distort_limit", {-0.3, 0.3}}, {"p", 0.5}},
      .cases = {R"({"num_steps": 5, "distort_limit": [-0.3, 0.3]})",
                R"({"num_steps": 3, "distort_limit": [-0.5, 0.5], "interpolation": "nearest", "border": "reflect101"})",
                R"({"num_steps": 7, "distort_limit": 0.2, "normalized": false, "clamp_last_cell": true, "border": "replicate"})",
                R"({"num_steps": 4, "distort_limit": [-0.4, 0.1], "interpolation": "bicubic", "fill": [255, 128, 0]})",
                R"({"num_steps": 9, "distort_limit": [-0.2, 0.6], "border": "wrap"})"},
      .no_identity = "no steps give the identity: each cell of n pixels maps onto n + 1 source pixels' span "
                     "(Albumentations' linspace includes both ends)",
      .bench = {R"({})", R"({"num_steps": 10, "interpolation": "nearest"})"},
      .arithmetic = R"md(
Albumentations' **GridDistortion**, 2.x by default (`normalized` true, border constant); `p` 0.5.

- **Draws**: `num_steps + 1` values `s_i = 1 + U(distort_limit)` for x, then as many for y.
- **Normalised** (`normalized`): per axis with `step = size // num_steps`,
  `last = min(size, (num_steps + 1) step) - num_steps step`, `s_last *= last / step`, then every
  `s_i *= (size / step) / sum(s)` (numpy's pairwise sum), in double.
- **Per-axis map**: `prev = 0`; cell `i` covers `[i step, min(i step + step, size))` and gets
  `linspace(prev, cur, count)` with `cur = prev + step s_i` (numpy: `k (cur - prev)/(count - 1) + prev`
  in double, the last value `cur` exactly, stored as float32); `prev = cur`. With `clamp_last_cell`
  (1.x) a cell whose end passes `size` ends at `size` with `cur = size`. Pixels after the last cell
  keep 0.
- **Sampling**: `map_x(x, y) = xx[x]`, `map_y(x, y) = yy[y]`, then the
  [warp engine](../arithmetic.md#warp-engine)'s remap: `cv::remap` with two float maps (source
  positions quantised to 1/32 pixel, `R(map * 32)`), so 8-bit outputs equal `cv::remap` with these maps.
- The manifest records the final steps `steps_x`, `steps_y`, and `interpolation`, `border`, `fill`.
)md",
      .imports = {{.name = "GridDistortion",
                   .how = "num_steps, distort_limit d as [-d, d], normalized (1.x default false, 2.x true), "
                          "interpolation (INTER_AREA as bilinear, as cv2.remap samples it), border_mode, value / fill",
                   .convert = [](const TransformReader& t) {
                     // 2.x names its fill `fill`; without one, the pipeline is read as the release it
                     // was written for, 1.x where that is not known (its defaults).
                     const bool v2 = t.release_2() || t.has("fill") || t.has("fill_mask");
                     ojson s{{"stage", "grid_distortion"}};
                     s["num_steps"] = static_cast<std::int64_t>(t.number("num_steps", 5));
                     const auto [lo, hi] = t.limit("distort_limit", {-0.3, 0.3}, true);
                     s["distort_limit"] = ojson::array({lo, hi});
                     s["normalized"] = t.flag("normalized", v2);
                     if (!v2) s["clamp_last_cell"] = true;
                     s["interpolation"] = t.warp_interpolation();
                     s["border"] = t.border(v2 ? 0 : 4);
                     t.fill(s);
                     t.mask_fill();
                     return s;
                   },
                   .python = {
                       {"GridDistortion",
                        "num_steps distort_limit interpolation border_mode value mask_value normalized always_apply "
                        "p",
                        "num_steps distort_limit interpolation normalized mask_interpolation "
                        "keypoint_remapping_method p border_mode fill fill_mask",
                        0.5}}}},
      .counterpart = {.call = "cv::remap",
                      .how = "the maps built from the recorded steps (Albumentations' linspace and meshgrid), "
                             "interpolation, border and fill",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const auto sx = m.at("steps_x").get<std::vector<double>>();
                        const auto sy = m.at("steps_y").get<std::vector<double>>();
                        const bool clamp = m.at("clamp_last_cell").get<bool>();
                        const RemapField settings = recorded_remap_settings(m, src.cols, src.rows);
                        return [&dst, src, sx, sy, clamp, settings] {
                          RemapField r = settings;
                          r.separable = true;
                          r.map_x = axis_map(sx, src.cols, clamp);
                          r.map_y = axis_map(sy, src.rows, clamp);
                          remap_with_opencv(src, dst, r);
                        };
                      }},
  };
  return spec;
}

class GridDistortion final : public Stage {
 public:
  explicit GridDistortion(const StageConfig& c)
      : steps_(static_cast<int>(c.get(kNumSteps).lo)),
        limit_(c.get(kDistortLimit)),
        normalized_(c.get(kNormalized)),
        clamp_(c.get(kClampLastCell)),
        interp_(c.get(kInterpolation)),
        border_(c.get(kBorder)),
        fill_(warp_fill(c.get(kFill))) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    if (in.width < steps_ || in.height < steps_)
      throw InputError("grid_distortion: a " + std::to_string(in.width) + "x" + std::to_string(in.height) +
                       " image is smaller than num_steps " + std::to_string(steps_) + " cells per side");
    std::vector<double> sx(static_cast<std::size_t>(steps_) + 1), sy(sx.size());
    for (double& s : sx) s = 1.0 + limit_.sample(d);
    for (double& s : sy) s = 1.0 + limit_.sample(d);
    if (normalized_) {
      normalize_steps(sx, in.width, steps_);
      normalize_steps(sy, in.height, steps_);
    }
    const RemapField f = remap_settings(in, d, interp_, border_, fill_);
    const bool clamp = clamp_;
    auto maps = std::make_shared<const FieldMaps>([sx, sy, clamp](RemapField& r) {
      r.separable = true;
      r.map_x = axis_map(sx, r.out_width, clamp);
      r.map_y = axis_map(sy, r.out_height, clamp);
    });
    return std::make_unique<RemapOp>(in, f, std::move(maps),
                                     nlohmann::json{{"steps_x", sx}, {"steps_y", sy}, {"clamp_last_cell", clamp}});
  }

 private:
  int steps_;
  NumberParam limit_;
  bool normalized_, clamp_;
  Drawn<Interp> interp_;
  Drawn<Border> border_;
  std::array<double, 4> fill_;
};

}  // namespace
}  // namespace grid_distortion_impl

StageType grid_distortion_stage() {
  return stage_type<grid_distortion_impl::GridDistortion>(&grid_distortion_impl::grid_distortion_spec);
}

}  // namespace aug
