// rotate90: quarter turns and the transpose, the eight exact symmetries of the square (D4).
#include <array>
#include <functional>

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include "kernels/geometry/rotate90.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace rotate90_impl {
namespace {

const Param<std::vector<std::int64_t>> kK{{.name = "k",
                                           .doc = "quarter turns counter-clockwise; a list draws one per image "
                                                  "uniformly",
                                           .default_value = {0, 1, 2, 3},
                                           .min = Bound{0},
                                           .max = Bound{3}}};
const Param<bool> kTranspose{{.name = "transpose",
                              .doc = "transpose the image (swap x and y) before turning it",
                              .default_value = false}};

const StageSpec& rotate90_spec() {
  static const StageSpec spec{
      .name = "rotate90",
      .family = "geometry",
      .summary = "Turn the image by k quarter turns counter-clockwise, after an optional transpose: the eight "
                 "exact symmetries of the square (D4); pixels are moved, never interpolated.",
      .notes = {"As Albumentations' RandomRotate90 (k drawn from 0-3) and, with transpose, its Transpose and D4: "
                "k 0-3 with transpose false and true give all eight elements. A quarter turn, or the transpose "
                "alone, swaps width and height. k 1 equals OpenCV's ROTATE_90_COUNTERCLOCKWISE, k 2 ROTATE_180, "
                "k 3 ROTATE_90_CLOCKWISE; transpose true with k 1 is a vertical flip, with k 3 a horizontal one.",
                "transpose is fixed per pipeline; to draw all eight elements uniformly, put a stage with transpose "
                "false and one with transpose true in a one_of."},
      .params = {kK, kTranspose},
      .tolerance = {.reason = "pixels are moved, never computed"},
      .example = {{"stage", "rotate90"}, {"k", {0, 1, 2, 3}}},
      .cases = {R"({"k": 1})",
                R"({"k": 2})",
                R"({"k": 3})",
                R"({"k": 0, "transpose": true})",
                R"({"k": 1, "transpose": true})",
                R"({"k": 2, "transpose": true})",
                R"({"k": 3, "transpose": true})",
                R"({"k": [0, 1, 2, 3]})"},
      .identity = R"({"k": 0, "transpose": false})",
      .bench = {R"({"k": 1})", R"({"k": 2, "transpose": true})"},
      .arithmetic = R"md(
The eight elements of D4 as one integer map: transpose (when asked), then `k` quarter turns
counter-clockwise, `B(x, y) = A(wA - 1 - y, x)` for each turn. The host composes them, undoing the
turns last to first, into `out(x, y) = in(ax*x + bx*y + cx, ay*x + by*y + cy)` with coefficients in
`{-1, 0, 1}` (`kernels/geometry/rotate90.cu`); the kernels run that body, the CPU backend calls
`cv::transpose` and `cv::rotate` (the same moves; the catalog and exact tests hold the two equal). k 1/2/3 equal `cv::rotate` with `ROTATE_90_COUNTERCLOCKWISE`/`ROTATE_180`/
`ROTATE_90_CLOCKWISE`, transpose `cv::transpose`; transpose with k 1 is `cv::flip(0)`, with k 3
`cv::flip(1)`. The output is `H x W` when exactly one of "k odd" and "transpose" holds.
)md",
      .imports = {
          {.name = "Transpose",
           .how = "k 0 with transpose",
           .convert = [](const TransformReader&) {
            ojson s{{"stage", "rotate90"}};
            s["k"] = 0;
            s["transpose"] = true;
            return s;
          },
           .python = {{"Transpose", "always_apply p", "p", 0.5}}},
          {.name = "RandomRotate90",
           .how = "k drawn from 0..3 (np.rot90's quarter turns, counter-clockwise)",
           .convert = [](const TransformReader&) {
            ojson s{{"stage", "rotate90"}};
            s["k"] = ojson::array({0, 1, 2, 3});
            return s;
          },
           .python = {{"RandomRotate90", "always_apply p", "p", 0.5}}}},
      .counterpart = {.call = "cv::rotate (after cv::transpose with transpose)",
                      .how = "k quarter turns counter-clockwise as ROTATE_* codes",
                      .make = [](const nlohmann::json& m, const cv::Mat& src, cv::Mat& dst) -> std::function<void()> {
                        const int k = ((m.at("k").get<int>() % 4) + 4) % 4;
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

class Rotate90Op final : public Op {
 public:
  Rotate90Op(const Shape& in, int k, bool transpose)
      : Op(in, (k % 2 == 1) != transpose ? Shape{in.height, in.width, in.channels, in.dtype} : in),
        k_(k),
        transpose_(transpose) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    if (ctx.cpu()) {  // pixels moved, nothing computed: OpenCV's transpose and rotate (the tests hold them equal)
      static constexpr int kTurns[] = {-1, cv::ROTATE_90_COUNTERCLOCKWISE, cv::ROTATE_180, cv::ROTATE_90_CLOCKWISE};
      cv::Mat dst = as_mat(out);
      cv::Mat src = as_mat(in);
      if (transpose_) {
        if (k_ == 0) return cv::transpose(src, dst);
        cv::Mat t;
        cv::transpose(src, t);
        src = t;
      }
      if (k_ == 0) return src.copyTo(dst);
      cv::rotate(src, dst, kTurns[k_]);
      return;
    }
    const k::IntMap m = k::rotate90_map(in.shape.width, in.shape.height, k_, transpose_);
    with_views(in, out, [&](auto src, auto dst) { k::rotate90(src, dst, m, ctx.exec()); });
  }
  nlohmann::json params() const override { return {{kK.name, k_}, {kTranspose.name, transpose_}}; }
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
    M m{1, 0, 0, 0, 1, 0, 0, 0, 1};
    int w = in_shape().width, h = in_shape().height;
    if (transpose_) {
      m = {0, 1, 0, 1, 0, 0, 0, 0, 1};
      std::swap(w, h);
    }
    for (int t = 0; t < k_; ++t) {
      m = mul(M{0, 1, 0, -1, 0, w - 1.0, 0, 0, 1}, m);
      std::swap(w, h);
    }
    return Motion{.matrix = m, .out_width = out_shape().width, .out_height = out_shape().height};
  }
  std::unique_ptr<Op> for_mask(const Shape& mask, double) const override {
    return std::make_unique<Rotate90Op>(mask, k_, transpose_);
  }

 private:
  int k_;
  bool transpose_;
};

class Rotate90 final : public Stage {
 public:
  explicit Rotate90(const StageConfig& c) : k_(c.get(kK)), transpose_(c.get(kTranspose)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const std::int64_t k =
        k_.size() == 1 ? k_[0] : k_[static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(k_.size()) - 1))];
    return std::make_unique<Rotate90Op>(in, static_cast<int>(k), transpose_);
  }

 private:
  std::vector<std::int64_t> k_;
  bool transpose_;
};

}  // namespace
}  // namespace rotate90_impl

StageType rotate90_stage() { return stage_type<rotate90_impl::Rotate90>(&rotate90_impl::rotate90_spec); }

}  // namespace aug
