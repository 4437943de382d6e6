// The catalog: every stage (from catalog.inc) and the compositions.
#include <cstring>

#include "kernels/geometry/crop.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

#define AUG_STAGE(name) StageType name##_stage();
#include "lib/stages/catalog.inc"
#undef AUG_STAGE

const std::vector<StageType>& stage_types() {
  static const std::vector<StageType> types{
#define AUG_STAGE(name) name##_stage(),
#include "lib/stages/catalog.inc"
#undef AUG_STAGE
  };
  return types;
}

const StageType* find_stage_type(const std::string& name) {
  for (const auto& t : stage_types())
    if (t.spec().name == name) return &t;
  return nullptr;
}

namespace {

ParamSpec stages_param() {
  return {.name = "stages", .type = ParamType::Stages, .doc = "the stages (and compositions) it holds"};
}

const StageSpec kSequence{
    .name = "sequence",
    .summary = "Apply its stages in order.",
    .params = {stages_param()},
    .composition = true,
    .example = {{"stage", "sequence"},
                {"stages", {{{"stage", "flip"}}, {{"stage", "gaussian_blur"}, {"sigma", 1.0}}}},
                {"p", 0.5}},
};

const StageSpec kOneOf{
    .name = "one_of",
    .summary = "Apply exactly one of its stages, drawn per image (uniformly, or by weight).",
    .params = {stages_param(),
               {.name = "weights",
                .type = ParamType::NumberList,
                .doc = "relative weight of each stage (need not sum to 1); uniform when absent",
                .optional = true,
                .min = Bound{0}}},
    .composition = true,
    .example = {{"stage", "one_of"},
                {"stages", {{{"stage", "flip"}}, {{"stage", "gaussian_blur"}, {"sigma", 1.0}}}},
                {"weights", {3, 1}}},
};

const StageSpec kSomeOf{
    .name = "some_of",
    .summary = "Apply n of its stages, drawn per image without repetition, in the order they are listed.",
    .params = {stages_param(),
               {.name = "n",
                .type = ParamType::Integer,
                .doc = "how many; [lo, hi] draws the count per image",
                .random = true,
                .min = Bound{0}}},
    .composition = true,
    .example = {{"stage", "some_of"},
                {"stages", {{{"stage", "flip"}}, {{"stage", "gaussian_blur"}}, {{"stage", "channel_gain"}, {"r", 1.2}}}},
                {"n", {1, 2}}},
};

class CopyOp final : public Op {
 public:
  explicit CopyOp(const Shape& s) : Op(s, s) {}
  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override { copy_image(ctx, in, out); }
  nlohmann::json params() const override { return {{"identity", true}}; }
};

}  // namespace

const std::vector<const StageSpec*>& composition_specs() {
  static const std::vector<const StageSpec*> specs{&kSequence, &kOneOf, &kSomeOf};
  return specs;
}

std::unique_ptr<Op> copy_op(const Shape& shape) { return std::make_unique<CopyOp>(shape); }

void copy_image(KernelContext& ctx, const ImageRef& in, const ImageRef& out) {
  if (ctx.cpu()) {  // one memcpy per row
    for (int y = 0; y < in.shape.height; ++y)
      std::memcpy(static_cast<char*>(out.data) + y * out.pitch, static_cast<const char*>(in.data) + y * in.pitch,
                  in.shape.row_bytes());
    return;
  }
  with_views(in, out, [&](auto src, auto dst) { k::crop(src, dst, 0, 0, ctx.exec()); });
}

}  // namespace aug
