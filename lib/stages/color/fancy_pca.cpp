// fancy_pca: Albumentations 2.x's FancyPCA, a per-pixel linear map of the centred colour through the
// principal components of the image's colours (docs/stages/color.md#fancy_pca).
#include <vector>

#include "kernels/color/fancy_pca.hpp"
#include "lib/stages/engines/pointwise.hpp"   // color_channels
#include "lib/stages/noise/normal_table.hpp"  // normal_quantile
#include "lib/stages/stage.hpp"

namespace aug {

namespace fancy_pca_impl {
namespace {

const Param<NumberParam> kAlpha{{.name = "alpha",
                                 .doc = "the standard deviation of the normal draws that scale each principal "
                                        "component",
                                 .default_value = 0.1,
                                 .min = Bound{0},
                                 .max = Bound{10}}};

const StageSpec& fancy_pca_spec() {
  static const StageSpec spec{
      .name = "fancy_pca",
      .family = "color",
      .summary = "Colour augmentation along the image's principal colour components (Albumentations 2.x "
                 "FancyPCA); within 1 of Albumentations' float64 result on 8-bit images.",
      .notes = {"As Albumentations 2.x's FancyPCA (alpha 0.1, p 0.5): a = one N(0, alpha) draw per colour channel; "
                "on the [0, 1] scale, with the image's mean mu, covariance C (ddof 1) and C's eigenvalues l (in "
                "decreasing order) and unit eigenvectors E: out = clip(x + E diag(a l) (x - mu), 0, 1) per pixel (a "
                "linear map of the centred pixel, as 2.x computes it); gray images: out = clip(x + a s (x - mu), 0, "
                "1), s the standard deviation. 8- and 16-bit results are rint(out * max).",
                "The statistics are exact integer sums (double for float images) and the eigen-decomposition a "
                "Jacobi iteration in double, the same on every backend; the map runs in binary32 where "
                "Albumentations runs float64, and LAPACK may give an eigenvector the opposite sign (here each "
                "vector's largest component is positive): 8-bit results are within 1 of a float64 evaluation with "
                "the same vectors. Alpha is copied (Albumentations would treat it as a fourth colour). "
                "Albumentations 1.x instead drew one number and added the same offset E (a l) to every pixel."},
      .params = {kAlpha},
      .default_p = 0.5,
      .tolerance = {.reason = "exact sums, the same double eigen-decomposition and binary32 map on every backend"},
      .example = {{"stage", "fancy_pca"}, {"alpha", 0.1}, {"p", 0.5}},
      .cases = {R"({})", R"({"alpha": 1.5})", R"({"alpha": 0})"},
      .identity = R"({"alpha": 0})",
      .bench = {R"({})"},
      .arithmetic = R"md(
Albumentations 2.x's **FancyPCA** (`alpha` 0.1, default `p` 0.5).

- **Draws**: `a_c = alpha * Phi^-1(u_c)`, one per colour channel in order (normal draws as
  [tone_curve](#tone_curve)'s), rounded to binary32.
- **Statistics** (`kernels/color/fancy_pca.hpp`): per row, left to right, the sums of the colour values
  and of their products (exact int64 for 8- and 16-bit images, double for float images), then the rows in
  order; in double, `mu_c = S_c / n`, `C_cd = (S_cd - S_c mu_d) / (n - 1) / max^2` (max 255, 65535 or 1),
  `mu` on the [0, 1] scale `mu_c / max`.
- **Eigen-decomposition** of C, in double: cyclic Jacobi rotations (`theta = (c_qq - c_pp) / (2 c_pq)`,
  `t = sign(theta) / (|theta| + sqrt(theta^2 + 1))`, `c = 1 / sqrt(t^2 + 1)`, `s = t c`, pairs (0,1), (0,2),
  (1,2)) until every off-diagonal entry is 0 (at most 50 sweeps); eigenvalues sorted decreasing, each
  eigenvector's largest-magnitude component positive. `M = E diag(a l)`, rounded to binary32. Gray
  images: `M = a_0 s`, `s = sqrt((S_2 - S_1 mu) / n) / max` (numpy's std, ddof 0). One thread computes
  this on a GPU, the host on the CPU backend: the same double operations.
- **Per pixel**, binary32, no FMA: `x_c = v_c / max` (float images as they are), `d_c = x_c - mu_c`,
  `n = M_c0 d_0`, `n = n + M_c1 d_1`, `n = n + M_c2 d_2`, `y = clamp01(x_c + n)`; 8/16-bit `rne(y * max)`.
  Alpha is copied.
- **Albumentations** evaluates the map in float64 (LAPACK's `eigh`, whose eigenvector signs are its
  own): 8-bit results are within 1 of a float64 evaluation with the same eigenvectors
  (`tests/stages/test_fancy_pca.cpp`, which also checks the Jacobi solver against `cv::eigen` and the
  draws against the normal distribution).
)md",
      .imports = {{.name = "FancyPCA",
                   .how = "alpha as it is (the 2.x definition)",
                   .convert = [](const TransformReader& t) {
                     t.note("FancyPCA: Albumentations 2.x's per-pixel map; 1.x added one constant offset per image");
                     return ojson{{"stage", "fancy_pca"}, {"alpha", t.number("alpha", 0.1)}};
                   },
                   .python = {{"FancyPCA", "alpha always_apply p", "alpha p", 0.5}}}},
      .counterpart = {.none = "OpenCV has no principal-component colour augmentation"},
  };
  return spec;
}

class FancyPcaOp final : public Op {
 public:
  FancyPcaOp(const Shape& s, const k::PcaAlpha& a, int cc) : Op(s, s), a_(a), cc_(cc) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    with_views(in, out, [&](auto src, auto dst) { k::fancy_pca(src, dst, a_, cc_, ctx, ctx.exec()); });
  }

  nlohmann::json params() const override {
    nlohmann::json a = nlohmann::json::array();
    for (int c = 0; c < cc_; ++c) a.push_back(a_.a[c]);
    return {{"alpha_vector", a}};
  }

 private:
  k::PcaAlpha a_;
  int cc_;
};

class FancyPca final : public Stage {
 public:
  explicit FancyPca(const StageConfig& c) : alpha_(c.get(kAlpha).lo) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const int cc = color_channels(in);
    k::PcaAlpha a{{0.f, 0.f, 0.f}};
    for (int c = 0; c < cc; ++c) {
      double u = d.uniform();
      if (u <= 0.0) u = 0x1p-54;  // Phi^-1(0) is -inf; the smallest draw above it
      a.a[c] = static_cast<float>(alpha_ * normal_quantile(u));
    }
    return std::make_unique<FancyPcaOp>(in, a, cc);
  }

 private:
  double alpha_;
};

}  // namespace
}  // namespace fancy_pca_impl

StageType fancy_pca_stage() { return stage_type<fancy_pca_impl::FancyPca>(&fancy_pca_impl::fancy_pca_spec); }

}  // namespace aug
