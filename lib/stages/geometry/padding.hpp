// What pad and crop share: the `padding` parameter's forms and the window kernel's host side.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/geometry/window.hpp"
#include "lib/stages/kernel_context.hpp"
#include "lib/params/config.hpp"
#include "lib/stages/engines/vocabulary.hpp"

namespace aug {

// Sides in pixels, in the order left, top, right, bottom.
using Sides = std::array<int, 4>;

// `padding`: one integer (every side), [left/right, top/bottom] or [left, top, right, bottom].
Param<std::vector<std::int64_t>> padding_param(std::string doc, nlohmann::json default_value = nullptr);
// The four sides of a validated `padding`; any other number of values fails naming the parameter.
Sides padding_sides(const StageConfig& c, const Param<std::vector<std::int64_t>>& p);

nlohmann::json sides_json(const Sides& s);

// The window kernel on `ctx` (the per-channel fill saturated to the sample type on the host).
void run_window(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const k::WindowAxis& x,
                const k::WindowAxis& y, Border border, const std::vector<double>& fill);

class Op;
// pad's Op: `in` with the sides added under `border` (cv::copyMakeBorder on the CPU backend, the
// window kernel elsewhere), moving labels and masks as pad does; for stages that draw the sides
// (zoom_out).
std::unique_ptr<Op> pad_op(const Shape& in, const Sides& sides, Border border, std::vector<double> fill);

}  // namespace aug
