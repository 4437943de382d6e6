#include "lib/stages/geometry/padding.hpp"

#include <algorithm>
#include <cmath>

#include "lib/stages/stage.hpp"

namespace aug {

Param<std::vector<std::int64_t>> padding_param(std::string doc, nlohmann::json default_value) {
  return Param<std::vector<std::int64_t>>({.name = "padding",
                                           .doc = std::move(doc),
                                           .default_value = std::move(default_value),
                                           .min = Bound{0},
                                           .max = Bound{65535},
                                           .elements = "n, [left/right, top/bottom] or [left, top, right, bottom]"});
}

Sides padding_sides(const StageConfig& c, const Param<std::vector<std::int64_t>>& p) {
  const std::vector<std::int64_t>& v = c.get(p);
  const auto i = [&](std::size_t k) { return static_cast<int>(v[k]); };
  switch (v.size()) {
    case 1: return {i(0), i(0), i(0), i(0)};
    case 2: return {i(0), i(1), i(0), i(1)};
    case 4: return {i(0), i(1), i(2), i(3)};
    default:
      c.fail(p, "takes 1, 2 or 4 values (n, [left/right, top/bottom] or [left, top, right, bottom]), not " +
                    std::to_string(v.size()));
  }
}

nlohmann::json sides_json(const Sides& s) { return {s[0], s[1], s[2], s[3]}; }

namespace {

template <class T>
k::WindowFill<T> saturated_fill(const std::vector<double>& fill, int channels) {
  k::WindowFill<T> f{};
  for (int c = 0; c < channels && c < 4; ++c) {
    const double v = fill_for_channel(fill, c);
    if constexpr (std::is_same_v<T, float>) {
      f.value[c] = static_cast<float>(v);
    } else {  // as cv::saturate_cast: rounded half to even, clamped
      const double r = std::nearbyint(v);
      f.value[c] = static_cast<T>(std::clamp(r, 0.0, static_cast<double>(k::SampleTraits<T>::max)));
    }
  }
  return f;
}

}  // namespace

void run_window(KernelContext& ctx, const ImageRef& in, const ImageRef& out, const k::WindowAxis& x,
                const k::WindowAxis& y, Border border, const std::vector<double>& fill) {
  with_views(in, out, [&](auto src, auto dst) {
    using T = std::remove_const_t<std::remove_pointer_t<decltype(src.data)>>;
    k::window(src, dst, x, y, static_cast<int>(border), saturated_fill<T>(fill, in.shape.channels), ctx.exec());
  });
}

}  // namespace aug
