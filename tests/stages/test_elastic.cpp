// elastic: Kornia's RandomElasticTransform with the identity-preserving grid (Kornia #4382), re-derived here in
// double (docs/stages/geometry.md): the noise from the keyed Philox stream, the separable smoothing, the axis orders, the
// padding words and PyTorch's bilinear sampling; integer images against the float path.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/core/philox.hpp"
#include "lib/core/error.hpp"
#include "lib/core/rng.hpp"
#include "lib/io/codec.hpp"
#include "tests/stages/stage_runner.hpp"
#include "tests/stages/unit_range_support.hpp"

namespace aug::test_elastic {
namespace {

using testing::compare;
using testing::random_image;
using testing::unit_range::fval;

TEST(Elastic, ZeroDisplacementIsTheIdentity) {
  // The identity-preserving grid (Kornia #4382): alpha 0 changes nothing, whatever the padding,
  // interpolation, type or size (Kornia before it shifted images by up to 11.25 on a 4x4 ramp).
  for (DType t : {DType::U8, DType::U16, DType::F32})
    for (const char* interp : {"bilinear", "nearest"})
      for (const char* pad : {"zeros", "border", "reflection"})
        for (const auto& [w, h] : {std::pair{4, 4}, std::pair{41, 39}, std::pair{1, 1}}) {
          const Image im = random_image({w, h, 3, t}, 3);
          const Image out = testing::run_cpu(
              std::string(R"({"stage": "elastic", "p": 1, "alpha": [0, 0], "kernel_size": 5, "sigma": 2, )") +
                  R"("interpolation": ")" + interp + R"(", "padding": ")" + pad + "\"}",
              im);
          EXPECT_EQ(compare(out, im).count, 0u) << dtype_name(t) << " " << interp << " " << pad << " " << w << "x" << h;
        }
}

TEST(Elastic, AlphaIsInXYOrder) {
  // An image constant along x is unchanged by horizontal displacement (border padding) and
  // changed by vertical displacement; alpha[0] must move along x only.
  Image rows({32, 24, 1, DType::F32});
  for (int y = 0; y < 24; ++y)
    for (int x = 0; x < 32; ++x) reinterpret_cast<float*>(rows.row(y))[x] = y / 23.f;
  const std::string base =
      R"({"stage": "elastic", "p": 1, "kernel_size": 3, "sigma": 1, "padding": "border", "alpha": )";
  EXPECT_LT(compare(testing::run_cpu(base + "[20, 0]}", rows), rows).max, 1e-6);
  EXPECT_GT(compare(testing::run_cpu(base + "[0, 20]}", rows), rows).max, 0.01);
}

TEST(Elastic, PaddingIsKorniasNameForBorder) {
  // Kornia's padding words and the project's border words give the same pixels; both at once is an error.
  const Image im = random_image({23, 17, 3, DType::U8}, 8);
  const std::string base = R"({"stage": "elastic", "p": 1, "kernel_size": 5, "sigma": 1, "alpha": [9, 9], )";
  for (const auto& [kornia, ours] : {std::pair{"zeros", "constant"}, std::pair{"border", "replicate"},
                                     std::pair{"reflection", "reflect"}}) {
    const Image a = testing::run_cpu(base + R"("padding": ")" + kornia + "\"}", im);
    const Image b = testing::run_cpu(base + R"("border": ")" + ours + "\"}", im);
    EXPECT_EQ(compare(a, b).count, 0u) << kornia << " vs " << ours;
  }
  const Image named = testing::run_cpu(base + R"("border": "constant"})", im);
  const Image unnamed = testing::run_cpu(base.substr(0, base.size() - 2) + "}", im);
  EXPECT_EQ(compare(named, unnamed).count, 0u) << "constant is the default";
  try {
    testing::one_stage(base + R"("padding": "zeros", "border": "constant"})");
    ADD_FAILURE() << "padding and border together were accepted";
  } catch (const PipelineError& e) {
    EXPECT_NE(std::string(e.what()).find("padding"), std::string::npos) << e.what();
  }
}

// The whole stage re-derived in double: the noise from the keyed Philox stream, Kornia's zero-padded
// separable smoothing with kernel_size/sigma in (y, x) order and alpha in (x, y) order, the
// identity-preserving grid and PyTorch's bilinear zeros-padded sampling.
TEST(Elastic, FollowsTheFormulasAndAxisOrders) {
  const int W = 13, H = 9;
  const Image im = random_image({W, H, 1, DType::F32}, 17);
  const std::string stage =
      R"({"stage": "elastic", "p": 1, "kernel_size": [3, 7], "sigma": [1.0, 2.5], "alpha": [0.3, 0.1]})";
  const testing::Both b = testing::run_both(testing::one_stage(stage), im, "field.png");
  EXPECT_EQ(compare(b.cpu, b.emulated).count, 0u);

  const k::KeyedStream stream = keyed_stream(11, "field.png", 0, 1);  // seed 11, copy 0, stage at position 1
  std::vector<double> nx(W * H), ny(W * H);
  for (int i = 0; i < W * H; ++i) {
    const auto r =
        k::philox4x32_10({{static_cast<std::uint32_t>(i), 1, stream.stage, stream.copy}}, stream.key0, stream.key1);
    nx[i] = 2.0 * ((r.v[0] >> 8) / 16777216.0) - 1;
    ny[i] = 2.0 * ((r.v[1] >> 8) / 16777216.0) - 1;
  }
  auto gaussian = [](int n, double s) {
    std::vector<double> g(n);
    double sum = 0;
    for (int k = 0; k < n; ++k) sum += g[k] = std::exp(-std::pow(k - n / 2, 2) / (2 * s * s));
    for (auto& v : g) v /= sum;
    return g;
  };
  const auto kx = gaussian(7, 2.5), ky = gaussian(3, 1.0);  // x: kernel_size[1], sigma[1]
  auto smooth = [&](const std::vector<double>& n) {
    std::vector<double> a(n.size()), out(n.size());
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int k = 0; k < 7; ++k)
          if (x + k - 3 >= 0 && x + k - 3 < W) a[y * W + x] += kx[k] * n[y * W + x + k - 3];
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        for (int k = 0; k < 3; ++k)
          if (y + k - 1 >= 0 && y + k - 1 < H) out[y * W + x] += ky[k] * a[(y + k - 1) * W + x];
    return out;
  };
  const auto dx = smooth(nx), dy = smooth(ny);
  double worst = 0;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      const double gx = std::clamp((2.0 * x + 1) / W - 1 + 0.3 * dx[y * W + x], -1.0, 1.0);  // alpha[0] on x
      const double gy = std::clamp((2.0 * y + 1) / H - 1 + 0.1 * dy[y * W + x], -1.0, 1.0);
      const double px = ((gx + 1) * W - 1) / 2, py = ((gy + 1) * H - 1) / 2;
      const int x0 = static_cast<int>(std::floor(px)), y0 = static_cast<int>(std::floor(py));
      const double tx = px - x0, ty = py - y0;
      double v = 0;
      for (int a = 0; a < 2; ++a)
        for (int c = 0; c < 2; ++c) {
          const int xx = x0 + c, yy = y0 + a;
          if (xx >= 0 && xx < W && yy >= 0 && yy < H)
            v += (c ? tx : 1 - tx) * (a ? ty : 1 - ty) * fval(im, xx, yy, 0);
        }
      worst = std::max(worst, std::fabs(v - fval(b.cpu, x, y, 0)));
    }
  EXPECT_LT(worst, 2e-5);
}

TEST(Elastic, IntegerImagesUseFixedPointWeights) {
  const Image u8 = random_image({41, 39, 3, DType::U8}, 5);
  const std::string stage = R"({"stage": "elastic", "p": 1, "kernel_size": 9, "sigma": 2, "alpha": [2, 2]})";
  const Image via_float = testing::run_cpu(stage, to_f32(u8));
  const Image direct = testing::run_cpu(stage, u8);
  // The same field; coordinates in 1/32 pixel move a sample by at most 1/64 pixel, so on this
  // noise (neighbours up to 255 apart) the fixed-point result is within 255/64 + 1 of the float one.
  EXPECT_LE(compare(direct, to_u8(via_float)).max, 5);
}

}  // namespace
}  // namespace aug::test_elastic
