// The catalog: every stage, from catalog.inc, and the identity op stages share.
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

std::vector<std::string> stage_names() {
  std::vector<std::string> names;
  for (const auto& t : stage_types()) names.push_back(t.spec().name);
  return names;
}

namespace {

class CopyOp final : public Op {
 public:
  explicit CopyOp(const Shape& s) : Op(s, s) {}
  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override { copy_image(ctx, in, out); }
  nlohmann::json params() const override { return {{"identity", true}}; }
};

}  // namespace

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
