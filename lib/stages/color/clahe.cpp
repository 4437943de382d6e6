// clahe: Albumentations' CLAHE, OpenCV's contrast-limited adaptive histogram equalisation of the
// lightness (8-bit Lab L) of RGB images, or of gray images (docs/stages/color.md#clahe).
#include <functional>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "kernels/color/clahe.hpp"
#include "lib/stages/color/lab8.hpp"
#include "lib/stages/engines/pointwise.hpp"  // color_channels
#include "lib/stages/stage.hpp"

namespace aug {

namespace clahe_impl {
namespace {

const Param<NumberParam> kClipLimit{{.name = "clip_limit",
                                     .doc = "the contrast limit (OpenCV's clipLimit: a histogram bin holds at most "
                                            "clip_limit times the mean count; 0 does not clip); [lo, hi] draws one "
                                            "per image",
                                     .default_value = {1.0, 4.0},
                                     .random = true,
                                     .min = Bound{0},
                                     .max = Bound{1000}}};
const Param<IntPair> kTileGridSize{{.name = "tile_grid_size",
                                    .doc = "the number of tiles across and down (cv2.createCLAHE's tileGridSize); at most 32 each "
                                           "(a 16-bit gray image holds 65536 counts per tile)",
                                    .default_value = {8, 8},
                                    .min = Bound{1},
                                    .max = Bound{32},
                                    .elements = "[columns, rows]"}};

k::ClaheArgs args_of(const nlohmann::json& m, int color_channels) {
  const auto grid = m.at("tile_grid_size").get<std::vector<int>>();
  return {.tiles_x = grid.at(0),
          .tiles_y = grid.at(1),
          .clip_limit = m.at("clip_limit").get<double>(),
          .color_channels = color_channels};
}

const StageSpec& clahe_spec() {
  static const StageSpec spec{
      .name = "clahe",
      .family = "color",
      .summary = "Contrast-limited adaptive histogram equalisation of the lightness (Albumentations CLAHE); 8-bit "
                 "images equal OpenCV's cvtColor + createCLAHE + cvtColor to the bit.",
      .notes = {"As Albumentations' CLAHE (clip_limit (1, 4), tile_grid_size (8, 8), p 0.5): the clip limit is "
                "drawn uniformly per image; RGB images are converted to 8-bit L*a*b* (cv2.COLOR_RGB2LAB), OpenCV's "
                "CLAHE equalises L, and a and b come back with the new L through cv2.COLOR_LAB2RGB; gray images are "
                "equalised directly. Alpha is copied (Albumentations refuses 4 channels).",
                "16-bit gray images are equalised on 65536 bins, as cv::CLAHE does 16-bit images. 16-bit RGB "
                "images go through the 8-bit path ((v + 128) / 257, then the result times 257), and float images "
                "as Albumentations 2.x treats them: rint(v * 255) clamped to 0..255, equalised as 8 bits, divided "
                "by 255."},
      .params = {kClipLimit, kTileGridSize},
      .default_p = 0.5,
      .tolerance = {.reason = "integer histograms and Lab conversions, the same binary32 table and blend operations "
                              "on every backend; float images are 8-bit values divided by 255"},
      .example = {{"stage", "clahe"}, {"clip_limit", {1.0, 4.0}}, {"tile_grid_size", {8, 8}}, {"p", 0.5}},
      .cases = {R"({})", R"({"clip_limit": 2.5, "tile_grid_size": [3, 5]})",
                R"({"clip_limit": [1, 40], "tile_grid_size": [8, 2]})",
                R"({"clip_limit": 0, "tile_grid_size": [1, 1]})"},
      .no_identity = "equalisation changes every image whose lightness is not already spread as the tables spread it",
      .bench = {R"({"clip_limit": 4})"},
      .arithmetic = R"md(
Albumentations' **CLAHE** (`clip_limit` (1, 4), `tile_grid_size` (8, 8), default `p` 0.5; the same in
1.x and 2.x), which is OpenCV's. 8-bit images equal OpenCV 4.6's `cv::cvtColor(COLOR_RGB2Lab)`,
`cv::createCLAHE(clip, grid)->apply` on L and `cv::cvtColor(COLOR_Lab2RGB)` to the bit.

- **Draw**: `clip = uniform(clip_limit)`.
- **The plane.** Gray: the value. RGB: L of OpenCV's integer 8-bit Lab (`kernels/color/lab8.hpp`):
  `R' = gamma[R]` (the sRGB decoding times 2040, rounded), `X = (R' cx0 + G' cx1 + B' cx2 + 2^11) >> 12`
  with `cx = rne(4096 M / white)` (M the sRGB-to-XYZ matrix, D65 white) and Y, Z likewise, `f = cbrt[X]`
  (the Lab companding function at `X / 2040`, times 2^15, rounded), `L = (296 fY - 1336934 + 2^14) >> 15`,
  `a = (500 (fX - fY) + 2^22 + 2^14) >> 15`, `b = (200 (fY - fZ) + 2^22 + 2^14) >> 15`, saturated. The
  tables are OpenCV's, built on the host in binary32 and binary64 with OpenCV's own `pow` and `cbrt`
  (its binary32 cube root is one unit low at 324/2040, which shows in L).
- **Tiles.** When the width or the height is not a multiple of the grid, the plane is padded on the right
  and at the bottom with REFLECT_101 by `grid - size % grid` on **both** axes (a whole tile on an axis
  that divides), as OpenCV does; tile `w x h` = padded size / grid.
- **Tables**, per tile, integers: a histogram of the tile (256 bins; 65536 for 16-bit gray);
  `limit = max((int)(clip * w * h / bins), 1)` (no clipping when `clip` is 0); counts above it are cut
  to it, the excess `e` adds `e / bins` to every bin and its remainder `r` adds 1 to bins
  `0, s, 2s, ...` (`s = max(bins / r, 1)`) while `r` lasts;
  `lut[i] = sat(rne((float)cum(i) * scale))`, `scale = (float)(bins - 1) / (float)(w h)`.
- **Blend**, per pixel in binary32 without FMA: `t = (float)x * (1.0f / w) - 0.5f`, `tx = floor(t)`,
  `a = t - tx`; tiles `max(tx, 0)` and `min(tx + 1, grid_x - 1)`; rows likewise (`b`);
  `v' = sat(rne((l11 (1 - a) + l12 a) (1 - b) + (l21 (1 - a) + l22 a) b))` with `1 - a` computed once.
- **Back to RGB** (8-bit Lab to RGB, OpenCV's integer path): `y, fy` from a table of L, `x` and `z` from
  a table of `fy + a / 500` and `fy - b / 200` (OpenCV's fixed-point quotients), then
  `R = inv_gamma[clamp((rx0 x + rx1 y + rx2 z + 2^13) >> 14, 0, 4095)]` with `rx = rne(4096 M^-1 white)`.
- **Other types.** 16-bit gray: the same on 65536 bins (OpenCV's 16-bit CLAHE). 16-bit RGB:
  `q = (v + 128) / 257` (the nearest 8-bit value), the 8-bit path, `q' * 257`. Float (Albumentations 2.x's
  `uint8_io`): `q = clamp(rint(v * 255), 0, 255)` (NaN 0), the 8-bit path, `q' / 255.f`. Alpha is copied.
- **Backends.** Histograms are integer counts (atomics on a GPU), the tables one thread per tile, the
  blend and the Lab conversions the same integer and binary32 operations everywhere.
- **Checked** (`tests/stages/test_clahe.cpp`): the Lab conversions against `cv::cvtColor` on all 2^24
  RGB colours and all 2^24 Lab triples; the stage against OpenCV on the sample photographs (RGB and
  gray, several clips and grids, sizes that do not divide) and on random 8-bit and 16-bit gray images;
  the draws of the clip against the uniform distribution.
)md",
      .imports = {{.name = "CLAHE",
                   .how = "clip_limit (a number x: [1, x]) and tile_grid_size as they are",
                   .convert = [](const TransformReader& t) {
                     const auto [lo, hi] = t.limit("clip_limit", {1.0, 4.0}, false, 1.0);
                     ojson s{{"stage", "clahe"}, {"clip_limit", span(lo, hi)}};
                     if (t.has("tile_grid_size")) {
                       const nlohmann::json& g = t.saved().at("tile_grid_size");
                       if (!g.is_array() || g.size() != 2) t.fail("tile_grid_size must be a pair of integers");
                       s["tile_grid_size"] = ojson::array({g.at(0).get<int>(), g.at(1).get<int>()});
                     } else {
                       s["tile_grid_size"] = ojson::array({8, 8});
                     }
                     return s;
                   },
                   .python = {
                       {"CLAHE", "clip_limit tile_grid_size always_apply p", "clip_limit tile_grid_size p", 0.5}}}},
      .counterpart = {.call = "cv::cvtColor + cv::CLAHE::apply + cv::cvtColor",
                      .how = "COLOR_RGB2Lab, createCLAHE(clip, grid) on L, COLOR_Lab2RGB (gray: the CLAHE alone)",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        if (src.channels() != 1 && src.channels() != 3) return {};
                        const k::ClaheArgs a = args_of(m, src.channels());
                        return [&dst, src, a] {
                          cv::Ptr<cv::CLAHE> c = cv::createCLAHE(a.clip_limit, cv::Size(a.tiles_x, a.tiles_y));
                          if (src.channels() == 1) {
                            c->apply(src, dst);
                            return;
                          }
                          cv::Mat lab, l;
                          cv::cvtColor(src, lab, cv::COLOR_RGB2Lab);
                          cv::extractChannel(lab, l, 0);
                          c->apply(l, l);
                          cv::insertChannel(l, lab, 0);
                          cv::cvtColor(lab, dst, cv::COLOR_Lab2RGB);
                        };
                      }},
  };
  return spec;
}

class ClaheOp final : public Op {
 public:
  ClaheOp(const Shape& s, const k::ClaheArgs& a) : Op(s, s), a_(a) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const k::Lab8Tables* lab = nullptr;
    if (a_.color_channels == 3)
      lab = static_cast<const k::Lab8Tables*>(ctx.table(&lab8_tables(), sizeof(k::Lab8Tables)));
    with_views(in, out, [&](auto src, auto dst) { k::clahe(src, dst, a_, lab, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{"clip_limit", a_.clip_limit}, {"tile_grid_size", {a_.tiles_x, a_.tiles_y}}};
  }

 private:
  k::ClaheArgs a_;
};

class Clahe final : public Stage {
 public:
  explicit Clahe(const StageConfig& c) : clip_(c.get(kClipLimit)), grid_(c.get(kTileGridSize)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double clip = clip_.sample(d);
    return std::make_unique<ClaheOp>(in, k::ClaheArgs{.tiles_x = static_cast<int>(grid_[0]),
                                                      .tiles_y = static_cast<int>(grid_[1]),
                                                      .clip_limit = clip,
                                                      .color_channels = color_channels(in)});
  }

 private:
  NumberParam clip_;
  IntPair grid_;
};

}  // namespace
}  // namespace clahe_impl

StageType clahe_stage() { return stage_type<clahe_impl::Clahe>(&clahe_impl::clahe_spec); }

}  // namespace aug
