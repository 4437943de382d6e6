// One output's labels and mask through its plan: the geometric steps move the mask (on the
// run's backend, sampled nearest) and the labels (on the host, in double); the others leave them.
#pragma once

#include "lib/core/image.hpp"
#include "lib/exec/backend.hpp"
#include "lib/labels/labels.hpp"
#include "lib/labels/transform.hpp"
#include "lib/pipeline/pipeline.hpp"

namespace aug::labels {

// The label map of an image through the plan's geometric steps (`fill` where the image gets its
// constant border). Throws InputError when the mask's size is not the image's.
Image move_mask(const Plan& plan, const Image& mask, double fill, Backend& backend, int worker);

// The labels of an image through the plan, filtered by `rules`; object masks are moved as
// label maps (fill 0).
LabelCounts move_plan_labels(const Plan& plan, ImageLabels& labels, const LabelRules& rules, Backend& backend,
                             int worker);

}  // namespace aug::labels
