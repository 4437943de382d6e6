#include <cstring>

#include "kernels/geometry.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

StageType resize_stage();
StageType flip_stage();
StageType crop_stage();
StageType random_resized_crop_stage();
StageType gaussian_blur_stage();
StageType channel_gain_stage();
StageType gaussian_illumination_stage();
StageType planckian_jitter_stage();
StageType jpeg_stage();
StageType elastic_stage();

const std::vector<StageType>& stage_types() {
  static const std::vector<StageType> types{
      resize_stage(),
      flip_stage(),
      crop_stage(),
      random_resized_crop_stage(),
      gaussian_blur_stage(),
      channel_gain_stage(),
      gaussian_illumination_stage(),
      planckian_jitter_stage(),
      jpeg_stage(),
      elastic_stage(),
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
  void run_cpu(KernelContext&, const ImageRef& in, const ImageRef& out) const override {
    for (int y = 0; y < in.shape.height; ++y)
      std::memcpy(static_cast<char*>(out.data) + y * out.pitch, static_cast<const char*>(in.data) + y * in.pitch,
                  in.shape.row_bytes());
  }
  void run_kernels(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    copy_image(ctx, in, out);
  }
  nlohmann::json params() const override { return {{"identity", true}}; }
};

}  // namespace

const std::vector<const StageSpec*>& composition_specs() {
  static const std::vector<const StageSpec*> specs{&kSequence, &kOneOf, &kSomeOf};
  return specs;
}

std::unique_ptr<Op> copy_op(const Shape& shape) { return std::make_unique<CopyOp>(shape); }

void copy_image(KernelContext& ctx, const ImageRef& in, const ImageRef& out) {
  with_sample_type(in.shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    k::crop<T>(in.view<const T>(), out.view<T>(), 0, 0, ctx.exec());
  });
}

}  // namespace aug
