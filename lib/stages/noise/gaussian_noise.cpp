// gaussian_noise: torchvision v2's GaussianNoise for every sample type (docs/arithmetic.md#gaussian_noise).
#include "kernels/noise/gaussian_noise.hpp"
#include "lib/stages/engines/pointwise.hpp"
#include "lib/stages/noise/normal_table.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

namespace {

const Param<NumberParam> kMean{{.name = "mean",
                                .doc = "mean of the noise, a fraction of the sample range",
                                .default_value = 0.0,
                                .random = true,
                                .min = Bound{-1},
                                .max = Bound{1}}};
const Param<NumberParam> kSigma{{.name = "sigma",
                                 .doc = "standard deviation of the noise, a fraction of the sample range",
                                 .default_value = 0.1,
                                 .random = true,
                                 .min = Bound{0},
                                 .max = Bound{10}}};
const Param<bool> kPerChannel{{.name = "per_channel",
                               .doc = "independent noise in each colour channel (false: one value per pixel, the "
                                      "same in every colour channel)",
                               .default_value = true}};
const Param<bool> kClip{{.name = "clip",
                         .doc = "float images: clamp the result to [0, 1] (integer images always saturate)",
                         .default_value = true}};

const StageSpec& gaussian_noise_spec() {
  static const StageSpec spec{
      .name = "gaussian_noise",
      .summary = "Add Gaussian noise N(mean, sigma^2) per pixel (torchvision v2 GaussianNoise); mean and sigma are "
                 "fractions of the sample range.",
      .notes = {"As torchvision v2's GaussianNoise (out = v + mean + sigma z, clamped to [0, 1] when clip), which "
                "takes float images only; integer images here add the same noise scaled to the range: out = "
                "sat(RNE(v + (mean + sigma z) max)), so sigma 0.1 is 25.5 levels on 8-bit images. Alpha is left alone.",
                "z comes from the keyed counter-based generator (one Philox block per pixel, sub-stream 1) through an "
                "inverse-CDF table of the standard normal built on the host in double and interpolated in binary32, "
                "so every backend draws the same noise (docs/arithmetic.md#gaussian_noise). per_channel false draws "
                "one z per pixel for all colour channels. torchvision's default p is 1 (it is no random transform); "
                "so is this stage's."},
      .params = {kMean, kSigma, kPerChannel, kClip},
      .tolerance = {.reason = "the same generator, table and binary32 operations in the same order on every backend"},
      .example = {{"stage", "gaussian_noise"}, {"sigma", 0.05}},
      .cases = {R"({})", R"({"sigma": [0.01, 0.2], "mean": 0.05})", R"({"sigma": 0.3, "per_channel": false})",
                R"({"sigma": 0.5, "mean": -0.2, "clip": false})"},
      .identity = R"({"mean": 0, "sigma": 0})",
      .bench = {R"({})"},
  };
  return spec;
}

class NoiseOp final : public Op {
 public:
  NoiseOp(const Shape& s, const k::NoiseArgs& a) : Op(s, s), args_(a) {}

  void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const override {
    k::NoiseArgs a = args_;
    a.normal = ctx.table(normal_table());
    with_views(in, out, [&](auto src, auto dst) { k::gaussian_noise(src, dst, a, ctx.exec()); });
  }

  nlohmann::json params() const override {
    return {{kMean.name, args_.mean}, {kSigma.name, args_.sigma}, {kPerChannel.name, args_.per_channel},
            {kClip.name, args_.clip}};
  }

 private:
  k::NoiseArgs args_;
};

class GaussianNoise final : public Stage {
 public:
  explicit GaussianNoise(const StageConfig& c)
      : mean_(c.get(kMean)), sigma_(c.get(kSigma)), per_channel_(c.get(kPerChannel)), clip_(c.get(kClip)) {}

  std::unique_ptr<Op> resolve(Draws& d, const Shape& in) const override {
    k::NoiseArgs a;
    a.mean = static_cast<float>(mean_.sample(d));
    a.sigma = static_cast<float>(sigma_.sample(d));
    a.per_channel = per_channel_;
    a.clip = clip_;
    a.color_channels = color_channels(in);
    a.stream = d.stream();  // the per-pixel noise: sub-stream 1 of this stage's stream
    return std::make_unique<NoiseOp>(in, a);
  }

 private:
  NumberParam mean_, sigma_;
  bool per_channel_, clip_;
};

}  // namespace

StageType gaussian_noise_stage() { return stage_type<GaussianNoise>(&gaussian_noise_spec); }

}  // namespace aug
