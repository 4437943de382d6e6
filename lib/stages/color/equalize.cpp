// equalize: torchvision's equalize (RandomEqualize), PIL's histogram equalisation per channel, or
// cv::equalizeHist's (Albumentations' Equalize).
#include <functional>

#include <opencv2/imgproc.hpp>

#include "kernels/color/equalize.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace equalize_impl {
namespace {

enum class Mode { Pil, Cv };
const Words<Mode> kModes{{{Mode::Pil, "pil"}, {Mode::Cv, "cv"}}};
const Choice<Mode> kMode{kModes,
                         {},
                         Mode::Pil,
                         {.name = "mode",
                          .doc = "pil (torchvision's RandomEqualize, PIL's scheme) or cv (cv::equalizeHist's table, "
                                 "Albumentations' default)"}};

const StageSpec& equalize_spec() {
  static const StageSpec spec{
      .name = "equalize",
      .family = "color",
      .summary = "Equalise the histogram of each colour channel (torchvision / PIL scheme, or cv::equalizeHist's with "
                 "mode cv); alpha is left alone.",
      .notes = {"As torchvision's equalize: per channel, the histogram of the image's values; step = (N - count of "
                "the last nonempty bin) // max; where step is 0 the channel is unchanged, otherwise value v maps to "
                "min(max, (cum(v - 1) + step // 2) // step) with cum the cumulative count (cum(-1) = 0). Integer "
                "arithmetic throughout: 8-bit images equal torchvision's bit for bit.",
                "16-bit images use the same scheme on 65536 bins (max = 65535) at full precision (torchvision "
                "would shift them to 8 bits and back); a 16-bit channel with fewer than 65535 pixels outside its "
                "top bin is left unchanged. Float images are binned as torchvision does: q = (uint8)(clamp(v, 0, 1) "
                "* 255.999f), and written as lut[q] * (float)(1/255), so they come out on 256 levels.",
                "The histogram is an integer count (atomic increments on a GPU), the table is built by one "
                "thread per channel; both are exact on every backend.",
                "Mode cv computes cv::equalizeHist's table instead (Albumentations' Equalize, whose default it "
                "is): 8-bit images equal cv::equalizeHist on each channel to the bit; 16-bit images take the same "
                "formula on 65536 bins, float images on their 256 bins.",
                "torchvision's RandomEqualize defaults to p = 0.5, as here."},
      .params = {kMode},
      .default_p = 0.5,
      .tolerance = {.reason = "integer histogram and table, identical on every backend; float output is a table "
                              "value times one constant"},
      .example = {{"stage", "equalize"}, {"p", 0.5}},
      .cases = {R"({})", R"({"mode": "cv"})"},
      .no_identity = "every image whose histogram can be spread changes",
      .bench = {R"({})", R"({"mode": "cv"})"},
      .arithmetic = R"md(
torchvision v2's colour functionals (`torchvision.transforms.v2.functional`), with torch's float32
arithmetic written out as individually rounded binary32 operations (no FMA). Alpha is copied; the colour channels are channels 0-2 (RGB order) or channel 0 of a gray image.

`kernels/color/equalize.*`: three kernels and torchvision's `apply`:
1. counts: `counts[c][bin]` += 1 for each pixel (`atomicAdd` on a GPU, a plain loop on the host: an
   integer count, the same on every backend). Bins: the value (256 bins for 8 bits, 65536 for 16 bits);
   float images `bin = (int)(clamp(v, 0, 1) * 255.999f)` (torchvision's float-to-uint8 conversion,
   NaN to 0).
2. one thread per channel: `last` = the last nonempty bin, `step = (N - counts[last]) / max` (N the
   pixel count, max = bins - 1, int64); `step == 0`: identity table; otherwise `lut[0] = 0`,
   `lut[b] = min(max, (cum[b-1] + step / 2) / step)`, `cum` the running count. This is PIL's
   `ImageOps.equalize` as torchvision computes it; 8-bit images equal torchvision bit for bit.
   Mode `cv`, cv::equalizeHist's table: `first` = the first nonempty bin; when it holds every pixel,
   every entry is `first`; otherwise `scale = (float)max / (float)(N - counts[first])` (binary32),
   `lut[b] = 0` for `b <= first` and `lut[b] = clamp(rne((float)sum * scale), 0, max)` with `sum` the
   count of bins `first + 1 .. b` (OpenCV's `saturate_cast<uchar>(sum * scale)`). A device builds
   the same entries one thread per bin (the first nonempty bin by an atomic maximum of `bins - 1 - b`).
3. integer images: the [pointwise table](../arithmetic.md#pointwise-tables) with this device-built table; float images:
   `out = (float)lut[bin] * (float)(1.0 / 255)` (256 levels, as torchvision's uint8 round trip).
16-bit images use 65536 bins at full precision rather than torchvision's shift to 8 bits and back;
a channel with fewer than 65535 pixels outside its top bin is therefore unchanged.
)md",
      .imports = {
          {.name = "Equalize",
           .how = "per channel; mode cv (the default) or pil",
           .convert = [](const TransformReader& t) {
            if (t.has("by_channels") && !t.saved().at("by_channels").get<bool>())
              t.fail("by_channels false (equalising luma) has no stage equivalent");
            const bool pil = t.has("mode") && t.saved().at("mode") == "pil";
            return ojson{{"stage", "equalize"}, {"mode", pil ? "pil" : "cv"}};
          },
           .python = {
               {"Equalize",
                "mode by_channels mask mask_params always_apply p",
                "mode by_channels mask mask_params p",
                0.5}}}},
      .counterpart = {.call = "cv::equalizeHist",
                      .how = "on each channel (cv::split, cv::merge)",
                      .make = [](const nlohmann::json&, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        return [&dst, src] {
                          std::vector<cv::Mat> planes;
                          cv::split(src, planes);
                          for (cv::Mat& p : planes) cv::equalizeHist(p, p);
                          cv::merge(planes, dst);
                        };
                      }},
  };
  return spec;
}

class EqualizeOp final : public Op {
 public:
  EqualizeOp(const Shape& s, Mode mode) : Op(s, s), mode_(mode) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const int cc = color_channels(in.shape);
    with_views(in, out, [&](auto src, auto dst) { k::equalize(src, dst, cc, ctx, ctx.exec(), mode_ == Mode::Cv); });
  }
  nlohmann::json params() const override { return {{kMode.name, kModes.name(mode_)}}; }

 private:
  Mode mode_;
};

class Equalize final : public Stage {
 public:
  explicit Equalize(const StageConfig& c) : mode_(c.get(kMode).options[0]) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override {
    return std::make_unique<EqualizeOp>(in, mode_);
  }

 private:
  Mode mode_;
};

}  // namespace
}  // namespace equalize_impl

StageType equalize_stage() { return stage_type<equalize_impl::Equalize>(&equalize_impl::equalize_spec); }

}  // namespace aug
