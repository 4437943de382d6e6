// equalize: torchvision's equalize (RandomEqualize), PIL's histogram equalisation per channel.
#include "kernels/color/equalize.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

const StageSpec& equalize_spec() {
  static const StageSpec spec{
      .name = "equalize",
      .summary = "Equalise the histogram of each colour channel (torchvision / PIL scheme); alpha is left alone.",
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
                "torchvision's RandomEqualize defaults to p = 0.5, as here."},
      .default_p = 0.5,
      .tolerance = {.reason = "integer histogram and table, identical on every backend; float output is a table "
                              "value times one constant"},
      .example = {{"stage", "equalize"}, {"p", 0.5}},
      .cases = {R"({})"},
      .no_identity = "every image whose histogram can be spread changes",
      .bench = {R"({})"},
  };
  return spec;
}

class EqualizeOp final : public Op {
 public:
  explicit EqualizeOp(const Shape& s) : Op(s, s) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const int cc = color_channels(in.shape);
    with_views(in, out, [&](auto src, auto dst) { k::equalize(src, dst, cc, ctx, ctx.exec()); });
  }
  nlohmann::json params() const override { return nlohmann::json::object(); }
};

class Equalize final : public Stage {
 public:
  explicit Equalize(const StageConfig&) {}
  std::unique_ptr<Op> resolve(Draws&, const Shape& in) const override { return std::make_unique<EqualizeOp>(in); }
};

}  // namespace

StageType equalize_stage() { return stage_type<Equalize>(&equalize_spec); }

}  // namespace aug
