#include "lib/datasets/apply.hpp"

#include <algorithm>
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

namespace {

// Objects another image brings in (mosaic, mixup, cutmix, copy_paste), with the maps they go through: the
// partner's own into the step's output, then every later step's.
struct Joining {
  ImageLabels labels;
  std::vector<Motion> motions;
};

// A partner's object masks are not moved (they are not label maps of its pixels): each object's box
// stands for its mask, which it loses.
void boxes_for_masks(ImageLabels& l) {
  for (Object& o : l.objects) {
    if (!o.mask) continue;
    if (!o.box) o.box = mask_bounds(*o.mask);
    o.mask.reset();
  }
}

}  // namespace

LabelCounts move_plan_labels(const Plan& plan, ImageLabels& labels, const LabelRules& rules, Backend& backend,
                             int worker) {
  std::vector<Motion> motions;
  std::vector<Joining> joining;
  for (const Step& step : plan.steps) {
    if (!step.op) continue;
    const std::vector<Motion> here = step.op->motions();
    for (Joining& j : joining) j.motions.insert(j.motions.end(), here.begin(), here.end());
    for (const PartnerLabels& p : step.op->partner_labels()) {
      if (p.partner) {
        if (p.partner->labels) joining.push_back(Joining{*p.partner->labels, p.motions});
        continue;
      }
      // The image as its own partner (no other inputs): its labels as they reach this step, again.
      Joining again{labels, motions};
      again.motions.insert(again.motions.end(), p.motions.begin(), p.motions.end());
      joining.push_back(std::move(again));
    }
    motions.insert(motions.end(), here.begin(), here.end());
  }
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
  LabelCounts counts = move_labels(labels, motions, rules);
  for (Joining& j : joining) {
    boxes_for_masks(j.labels);
    const LabelCounts theirs = move_labels(j.labels, j.motions, rules);
    counts.kept += theirs.kept, counts.outside += theirs.outside, counts.visibility += theirs.visibility;
    counts.area += theirs.area, counts.size += theirs.size;
    for (Object& o : j.labels.objects) labels.objects.push_back(std::move(o));
    labels.moved = true;  // the objects brought in are written from their moved numbers
  }
  return counts;
}

}  // namespace aug::labels
