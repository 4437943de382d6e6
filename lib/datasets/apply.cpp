#include "lib/datasets/apply.hpp"

#include <cstring>
#include <string>

#include "lib/core/error.hpp"

namespace aug::labels {

Image move_mask(const Plan& plan, const Image& mask, double fill, Backend& backend, int worker) {
  if (mask.shape().width != plan.in.width || mask.shape().height != plan.in.height)
    throw InputError("the mask is " + std::to_string(mask.shape().width) + "x" + std::to_string(mask.shape().height) +
                     " but its image is " + std::to_string(plan.in.width) + "x" + std::to_string(plan.in.height));
  Image cur = mask;
  for (const Step& step : plan.steps) {
    if (!step.op) continue;
    const std::unique_ptr<Op> op = step.op->for_mask(cur.shape(), fill);
    if (!op) continue;
    try {
      cur = backend.run_op(*op, cur, worker);
    } catch (const InputError&) {
      throw;
    } catch (const DeviceError&) {
      throw;
    } catch (const std::exception&) {
      rethrow_stage_error(step, backend.name());
    }
  }
  return cur;
}

LabelCounts move_plan_labels(const Plan& plan, ImageLabels& labels, const LabelRules& rules, Backend& backend,
                             int worker) {
  std::vector<Motion> motions;
  for (const Step& step : plan.steps)
    if (step.op)
      for (Motion& m : step.op->motions()) motions.push_back(std::move(m));
  if (!motions.empty()) {
    for (Object& o : labels.objects) {
      if (!o.mask) continue;
      Image m(Shape{o.mask->width, o.mask->height, 1, DType::U8});
      for (int y = 0; y < o.mask->height; ++y)
        std::memcpy(m.view<std::uint8_t>().row(y), o.mask->data.data() + static_cast<std::size_t>(y) * o.mask->width,
                    static_cast<std::size_t>(o.mask->width));
      const Image moved = move_mask(plan, m, 0, backend, worker);
      BinaryMask b{moved.shape().width, moved.shape().height, {}};
      b.data.resize(static_cast<std::size_t>(b.width) * b.height);
      for (int y = 0; y < b.height; ++y)
        std::memcpy(b.data.data() + static_cast<std::size_t>(y) * b.width, moved.view<std::uint8_t>().row(y),
                    static_cast<std::size_t>(b.width));
      o.mask = std::move(b);
    }
  }
  return move_labels(labels, motions, rules);
}

}  // namespace aug::labels
