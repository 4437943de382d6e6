// salt_and_pepper: Albumentations' SaltAndPepper (docs/stages/noise.md#salt_and_pepper).
#include <cstdint>
#include <vector>

#include "kernels/noise/salt_and_pepper.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace salt_and_pepper_impl {
namespace {

const Param<NumberParam> kAmount{{.name = "amount",
                                  .doc = "fraction of the pixels changed",
                                  .default_value = {0.01, 0.06},
                                  .random = true,
                                  .min = Bound{0},
                                  .max = Bound{1}}};
const Param<NumberParam> kSaltVsPepper{{.name = "salt_vs_pepper",
                                        .doc = "fraction of the changed pixels that become salt (white); the "
                                               "others become pepper (black)",
                                        .default_value = {0.4, 0.6},
                                        .random = true,
                                        .min = Bound{0},
                                        .max = Bound{1}}};

const StageSpec& salt_and_pepper_spec() {
  static const StageSpec spec{
      .name = "salt_and_pepper",
      .family = "noise",
      .summary = "Set a random fraction of the pixels to white (salt) or black (pepper) (Albumentations "
                 "SaltAndPepper).",
      .notes = {"As Albumentations 2.x's SaltAndPepper (amount (0.01, 0.06), salt_vs_pepper (0.4, 0.6), p 0.5): "
                "n = floor(H W amount) distinct pixels drawn uniformly without replacement, of which a uniformly "
                "chosen floor(n salt_vs_pepper) become the maximum (255, 65535, 1.0) in every colour channel and "
                "the rest 0. The pixels come from the stage's keyed draws (Floyd's sampling), not numpy's "
                "generator. Alpha is left alone (Albumentations sets every channel). The manifest records amount, "
                "salt_vs_pepper and the two counts."},
      .params = {kAmount, kSaltVsPepper},
      .default_p = 0.5,
      .tolerance = {.reason = "values are copied or set to 0 or the maximum at pixels drawn on the host"},
      .example = {{"stage", "salt_and_pepper"}, {"amount", {0.01, 0.06}}, {"salt_vs_pepper", 0.5}},
      .cases = {R"({})", R"({"amount": 0.3, "salt_vs_pepper": 0.2})", R"({"amount": [0.8, 1], "salt_vs_pepper": [0, 1]})"},
      .identity = R"({"amount": 0})",
      .bench = {R"({})", R"({"amount": 0.06})"},
      .arithmetic = R"md(
Albumentations 2.x's **SaltAndPepper** (`amount` [0.01, 0.06], `salt_vs_pepper` [0.4, 0.6], `p`
0.5; 1.x has no such transform). Draws `amount` then `salt_vs_pepper` (each if a range), then the
pixels, all with the stage's parameter draws:

- `n = floor(H * W * amount)` (double), `s = floor(n * salt_vs_pepper)`.
- **Which pixels** (Robert Floyd's sampling without replacement, `N = H * W`): for
  `j = N - n, ..., N - 1`: `t = integer(0, j)`; the list gets `t` unless it already holds it, else
  `j`. This gives every set of `n` distinct pixels the same chance.
- **Which are salt**: a partial Fisher-Yates shuffle of the list: for `i = 0, ..., s - 1`,
  `k = integer(i, n - 1)`, swap entries `i` and `k`. The first `s` entries are salt, the rest pepper:
  every `s`-subset of the `n` pixels is equally likely, as Albumentations' first `s` positions of
  `choice(H W, n, replace=False)`.
- **Values**: salt is the maximum (255, 65535, 1.0) and pepper 0 in every colour channel; alpha and
  the other pixels are copied. The list (pixel indices `y W + x`) goes to the backend as a table; the
  kernel writes one pixel per entry after copying the image. `amount` 0 is the identity.
)md",
      .imports = {{.name = "SaltAndPepper",
                   .how = "amount and salt_vs_pepper as is",
                   .convert = [](const TransformReader& t) {
                     ojson s{{"stage", "salt_and_pepper"}};
                     const auto [a0, a1] = t.limit("amount", {0.01, 0.06}, false);
                     const auto [r0, r1] = t.limit("salt_vs_pepper", {0.4, 0.6}, false);
                     s["amount"] = span(a0, a1);
                     s["salt_vs_pepper"] = span(r0, r1);
                     return s;
                   },
                   .python = {{"SaltAndPepper", "-", "amount salt_vs_pepper p", 0.5}}}},
      .counterpart = {.none = "no OpenCV call draws pixels without replacement; the stage is a copy and a scatter"},
  };
  return spec;
}

class SaltPepperOp final : public Op {
 public:
  SaltPepperOp(const Shape& s, double amount, double ratio, std::vector<std::uint32_t> positions, std::size_t salt)
      : Op(s, s), amount_(amount), ratio_(ratio), positions_(std::move(positions)), salt_(salt) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    copy_image(ctx, in, out);
    if (positions_.empty()) return;
    k::SaltPepperArgs a;
    a.positions = ctx.table(positions_);
    a.count = positions_.size();
    a.salt = salt_;
    a.color_channels = color_channels(in.shape);
    with_sample_type(out.shape.dtype, [&](auto tag) {
      using T = decltype(tag);
      k::salt_and_pepper(out.view<T>(), a, ctx.exec());
    });
  }

  nlohmann::json params() const override {
    return {{kAmount.name, amount_}, {kSaltVsPepper.name, ratio_}, {"salt", salt_},
            {"pepper", positions_.size() - salt_}};
  }

 private:
  double amount_, ratio_;
  std::vector<std::uint32_t> positions_;
  std::size_t salt_;
};

class SaltAndPepper final : public Stage {
 public:
  explicit SaltAndPepper(const StageConfig& c) : amount_(c.get(kAmount)), ratio_(c.get(kSaltVsPepper)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    const double amount = amount_.sample(d), ratio = ratio_.sample(d);
    const std::int64_t N = static_cast<std::int64_t>(in.width) * in.height;
    const auto n = static_cast<std::int64_t>(static_cast<double>(N) * amount);
    const auto s = static_cast<std::int64_t>(static_cast<double>(n) * ratio);
    std::vector<std::uint32_t> list;
    list.reserve(static_cast<std::size_t>(n));
    std::vector<std::uint64_t> taken(static_cast<std::size_t>((N + 63) / 64), 0);
    auto take = [&](std::int64_t p) {
      taken[static_cast<std::size_t>(p >> 6)] |= std::uint64_t{1} << (p & 63);
      list.push_back(static_cast<std::uint32_t>(p));
    };
    for (std::int64_t j = N - n; j < N; ++j) {  // Floyd
      const std::int64_t t = d.integer(0, j);
      take((taken[static_cast<std::size_t>(t >> 6)] >> (t & 63)) & 1 ? j : t);
    }
    for (std::int64_t i = 0; i < s; ++i) std::swap(list[i], list[d.integer(i, n - 1)]);
    return std::make_unique<SaltPepperOp>(in, amount, ratio, std::move(list), static_cast<std::size_t>(s));
  }

 private:
  NumberParam amount_, ratio_;
};

}  // namespace
}  // namespace salt_and_pepper_impl

StageType salt_and_pepper_stage() { return stage_type<salt_and_pepper_impl::SaltAndPepper>(&salt_and_pepper_impl::salt_and_pepper_spec); }

}  // namespace aug
