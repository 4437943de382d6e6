// d4: Albumentations' D4 / SquareSymmetry, one of the eight symmetries of the square drawn
// uniformly per image, moved by the rotate90 kernels (pixels moved, never interpolated).
#include <array>
#include <functional>
#include <utility>

#include <opencv2/core.hpp>

#include "kernels/geometry/rotate90.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace d4_impl {
namespace {

// Albumentations' d4_group_elements, in its order, each as rotate90's (transpose first, then k
// quarter turns counter-clockwise).
struct Element {
  const char* name;
  int k;
  bool transpose;
};
constexpr std::array<Element, 8> kElements{{{"e", 0, false},
                                            {"r90", 1, false},
                                            {"r180", 2, false},
                                            {"r270", 3, false},
                                            {"v", 1, true},
                                            {"hvt", 2, true},
                                            {"h", 3, true},
                                            {"t", 0, true}}};

const StageSpec& d4_spec() {
  static const StageSpec spec{
      .name = "d4",
      .family = "geometry",
      .summary = "One of the eight symmetries of the square drawn uniformly per image, as Albumentations' D4 "
                 "(SquareSymmetry); pixels are moved, never interpolated.",
      .notes = {"Draws as Albumentations' D4: one element uniformly among e, r90, r180, r270, v, hvt, h, t (in that "
                "order; one integer draw in [0, 7]). r90, r180, r270 are np.rot90 with k 1, 2, 3 (counter-clockwise; "
                "cv::rotate ROTATE_90_COUNTERCLOCKWISE, ROTATE_180, ROTATE_90_CLOCKWISE), v the vertical flip, h the "
                "horizontal flip, t the transpose and hvt the transpose of the 180-degree turn (the anti-transpose). "
                "r90, r270, t and hvt swap width and height.",
                "The manifest records the `element` and the same move as rotate90 takes it: `k` quarter turns "
                "counter-clockwise after an optional `transpose`. Boxes, points and masks move with the pixels. "
                "Albumentations' default p is 1, as here."},
      .params = {},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "d4"}},
      .cases = {R"({})"},
      .no_identity = "every image gets a drawn element; one in eight draws is the identity",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations' D4 (1.4.4 and later) and SquareSymmetry (its 2.0.6 name): `element =
choice(['e', 'r90', 'r180', 'r270', 'v', 'hvt', 'h', 't'])`, here one integer draw in `[0, 7]`
indexing that list. Each element is one of [rotate90](#rotate90)'s moves (transpose first, then `k`
quarter turns counter-clockwise): e `(0, false)`, r90 `(1, false)`, r180 `(2, false)`, r270
`(3, false)`, v `(1, true)`, hvt `(2, true)`, h `(3, true)`, t `(0, true)`, run by the same kernels
(`kernels/geometry/rotate90.cu`) and, on the CPU backend, by `cv::transpose` and `cv::rotate`.
)md",
      .imports = {{.name = "D4",
                   .aliases = {"SquareSymmetry"},
                   .how = "an element of the square's symmetry group drawn uniformly (default p 1)",
                   .convert = [](const TransformReader&) { return ojson{{"stage", "d4"}}; },
                   .python = {{"D4", "always_apply p", "p", 1.0}, {"SquareSymmetry", "-", "p", 1.0}}}},
      .counterpart = {.call = "cv::rotate (after cv::transpose for the transposing elements)",
                      .how = "the drawn element's k quarter turns counter-clockwise as ROTATE_* codes",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int k = m.at("k").get<int>();
                        const bool transpose = m.at("transpose").get<bool>();
                        static constexpr int kCode[] = {-1, cv::ROTATE_90_COUNTERCLOCKWISE, cv::ROTATE_180,
                                                        cv::ROTATE_90_CLOCKWISE};
                        const int code = kCode[k];
                        return [&dst, src, code, transpose] {
                          if (!transpose) return code < 0 ? src.copyTo(dst) : cv::rotate(src, dst, code);
                          if (code < 0) return cv::transpose(src, dst);
                          cv::Mat t;
                          cv::transpose(src, t);
                          cv::rotate(t, dst, code);
                        };
                      }},
  };
  return spec;
}

class D4Op final : public Op {
 public:
  D4Op(const Shape& in, int element)
      : Op(in, (kElements[element].k % 2 == 1) != kElements[element].transpose
                   ? Shape{in.height, in.width, in.channels, in.dtype}
                   : in),
        element_(element) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    const Element& e = kElements[element_];
    if (ctx.cpu()) {  // pixels moved, nothing computed: OpenCV's transpose and rotate
      static constexpr int kTurns[] = {-1, cv::ROTATE_90_COUNTERCLOCKWISE, cv::ROTATE_180, cv::ROTATE_90_CLOCKWISE};
      cv::Mat dst = as_mat(out);
      cv::Mat src = as_mat(in);
      if (e.transpose) {
        if (e.k == 0) return cv::transpose(src, dst);
        cv::Mat t;
        cv::transpose(src, t);
        src = t;
      }
      if (e.k == 0) return src.copyTo(dst);
      cv::rotate(src, dst, kTurns[e.k]);
      return;
    }
    const k::IntMap m = k::rotate90_map(in.shape.width, in.shape.height, e.k, e.transpose);
    with_views(in, out, [&](auto src, auto dst) { k::rotate90(src, dst, m, ctx.exec()); });
  }
  nlohmann::json params() const override {
    const Element& e = kElements[element_];
    return {{"element", e.name}, {"k", e.k}, {"transpose", e.transpose}};
  }
  std::optional<Motion> motion() const override {
    // The transpose (x, y) -> (y, x) first, then k quarter turns counter-clockwise on screen, each
    // (x, y) -> (y, w - 1 - x) for a w-wide image.
    using M = std::array<double, 9>;
    auto mul = [](const M& a, const M& b) {
      M r{};
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          for (int t = 0; t < 3; ++t) r[i * 3 + j] += a[i * 3 + t] * b[t * 3 + j];
      return r;
    };
    const Element& e = kElements[element_];
    M m{1, 0, 0, 0, 1, 0, 0, 0, 1};
    int w = in_shape().width, h = in_shape().height;
    if (e.transpose) {
      m = {0, 1, 0, 1, 0, 0, 0, 0, 1};
      std::swap(w, h);
    }
    for (int t = 0; t < e.k; ++t) {
      m = mul(M{0, 1, 0, -1, 0, w - 1.0, 0, 0, 1}, m);
      std::swap(w, h);
    }
    return Motion{.matrix = m, .out_width = out_shape().width, .out_height = out_shape().height};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<D4Op>(mask, element_);
  }

 private:
  int element_;
};

class D4 final : public Stage {
 public:
  explicit D4(const StageConfig&) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    return std::make_unique<D4Op>(in, static_cast<int>(d.integer(0, 7)));
  }
};

}  // namespace
}  // namespace d4_impl

StageType d4_stage() { return stage_type<d4_impl::D4>(&d4_impl::d4_spec); }

}  // namespace aug
