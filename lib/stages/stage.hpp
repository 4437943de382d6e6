// What a stage is made of: a spec (declared once), a Stage (its validated, possibly random
// configuration in one pipeline) and an Op (one image's resolved parameters and host tables,
// runnable on every backend). docs/architecture.md has the recipe for adding one.
#pragma once

#include <array>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/image.hpp"
#include "lib/core/rng.hpp"
#include "lib/labels/labels.hpp"
#include "lib/labels/motion.hpp"
#include "lib/stages/partners.hpp"
#include "lib/stages/kernel_context.hpp"
#include "lib/params/config.hpp"
#include "lib/params/spec.hpp"

namespace aug {

class Op {
 public:
  Op(const Shape& in, const Shape& out) : in_(in), out_(out) {}
  virtual ~Op() = default;

  const Shape& in_shape() const { return in_; }
  const Shape& out_shape() const { return out_; }

  // Runs the stage on `ctx`, whichever backend it belongs to: the kernel entry points pick the
  // vectorised host driver (CPU backend), the host loops (emulated device) or a CUDA launch from
  // ctx.exec(). An Op branches on ctx.cpu() only to call a library that computes exactly the same
  // arithmetic (cv::flip, memcpy, the libjpeg codec); the parity tests hold the two equal.
  virtual void run(KernelContext& ctx, const ImageRef& in, const ImageRef& out) const = 0;
  // The resolved parameters, as the manifest records them.
  virtual nlohmann::json params() const = 0;

  // Geometric Ops: how they move pixels; nothing for Ops that leave every pixel where it is
  // (colour, noise, blur), whose labels and masks stay as they are.
  virtual std::optional<Motion> motion() const { return std::nullopt; }
  // Whether motion() is a per-pixel map (Motion::sources), which costs a pass over the image to
  // compute: callers that only use a matrix ask this first.
  virtual bool moves_by_field() const { return false; }
  // Every map the Op applies, in order: its motion() for one Op, one per geometric member for an
  // Op that chains others (the auto-augment policies). This is what labels follow, clipped after
  // each map.
  virtual std::vector<Motion> motions() const {
    std::vector<Motion> all;
    if (auto m = motion()) all.push_back(std::move(*m));
    return all;
  }
  // Geometric Ops: the same geometry for a label map (`mask`: this Op's input size, 1 channel),
  // sampled nearest, with `fill` where the image gets its constant border. Null for the others.
  virtual std::unique_ptr<Op> for_mask(const Shape& mask, double fill) const {
    (void)mask;
    (void)fill;
    return nullptr;
  }
  // Ops that bring other images' pixels in (mosaic, mixup, cutmix, copy_paste): the labels those images bring,
  // each with the maps that take it into this Op's output. The image's own labels follow motions().
  virtual std::vector<PartnerLabels> partner_labels() const { return {}; }

 private:
  Shape in_, out_;
};

// What a stage's draw may read besides its input's shape (StageSpec::reads_labels): the image's
// labels and label map as they stand at the stage's input, i.e. moved through the geometry of the
// steps before it. Null where the run has none (no --labels / --masks, or a report that runs
// without them).
struct DrawInputs {
  const labels::ImageLabels* labels = nullptr;  // boxes and polygons in the input's pixels; no object masks
  const Image* mask = nullptr;                  // the label map (--masks), 1 channel, the input's size
  // Stages that read other images (StageSpec::reads_partners): the run's inputs to draw partners
  // from, and this image's place among them. Null (preview, a single image): the
  // image is its own partner.
  const PartnerSource* partners = nullptr;
  std::string_view self;  // the input's path relative to the input folder
};

class Stage {
 public:
  virtual ~Stage() = default;
  // Draws this image's parameters (the input's dtype and channels are already checked against
  // the spec). Throws InputError when this image cannot take the stage (e.g. smaller than a crop).
  virtual std::unique_ptr<Op> resolve(Draws& draws, const Shape& in) const = 0;
  // The same for a stage whose draw reads the image's labels (StageSpec::reads_labels); the
  // others ignore `seen`. The draw still depends only on the seed, the input's path, the copy and
  // what `seen` holds.
  virtual std::unique_ptr<Op> resolve_seeing(Draws& draws, const Shape& in, const DrawInputs& seen) const {
    (void)seen;
    return resolve(draws, in);
  }
};

struct StageType {
  const StageSpec& (*spec)();
  std::unique_ptr<Stage> (*make)(const StageConfig&);
};

// Every stage, in the order `augment stages` lists them (catalog.inc), and their names.
const std::vector<StageType>& stage_types();
const StageType* find_stage_type(const std::string& name);
std::vector<std::string> stage_names();

// The registration of one stage class S (constructed from its StageConfig) with its spec.
template <class S>
StageType stage_type(const StageSpec& (*spec)()) {
  return {spec, [](const StageConfig& c) -> std::unique_ptr<Stage> { return std::make_unique<S>(c); }};
}

// Calls f(in.view<const T>(), out.view<T>()) with T the images' sample type.
template <class F>
void with_views(const ImageRef& in, const ImageRef& out, F&& f) {
  with_sample_type(in.shape.dtype, [&](auto tag) {
    using T = decltype(tag);
    f(in.view<const T>(), out.view<T>());
  });
}

// Helpers shared by stage implementations.
std::unique_ptr<Op> copy_op(const Shape& shape);  // the identity (e.g. a resize to the same size)
void copy_image(KernelContext& ctx, const ImageRef& in, const ImageRef& out);

}  // namespace aug
