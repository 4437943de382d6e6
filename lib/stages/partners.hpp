// Stages that read other images (mosaic, mixup, cutmix, copy_paste): where their partners come from and how
// they are drawn (docs/labels.md, "Stages that read other images").
//
// A partner is drawn from the keyed generator of the stage's own draw (seed, the input's relative
// path, copy, stage position) among the whole sorted input list of the run, not the shard, so
// --shard, --resume, the thread count and the device change no byte. The run's PartnerSource
// decodes partners as inputs are decoded (full size), with their labels and label maps, through a
// small bounded cache.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/image.hpp"
#include "lib/core/rng.hpp"
#include "lib/labels/labels.hpp"
#include "lib/labels/motion.hpp"

namespace aug {

// One input read as a partner: what a stage's draw reads (its size, labels and label map). Its
// pixels are decoded only when an Op runs (PartnerSource::pixels), one partner at a time, so that
// a worker holds the image and one partner, not every partner at once.
struct Partner {
  std::string rel;                             // its path relative to the input folder
  int width = 0, height = 0;                   // as decoded (EXIF orientation applied)
  std::optional<labels::ImageLabels> labels;   // the run's --labels (none found: no objects)
  std::optional<Image> mask;                   // the run's --masks: its label map
};

class PartnerSource {
 public:
  virtual ~PartnerSource() = default;
  // Inputs of the whole run (every shard), sorted.
  virtual std::size_t size() const = 0;
  // The place of an input in that list (nothing when it is not there).
  virtual std::optional<std::size_t> index_of(std::string_view rel) const = 0;
  // The input at `index`: its header, labels and label map. Throws InputError naming the file when
  // they cannot be read.
  virtual std::shared_ptr<const Partner> get(std::size_t index) const = 0;
  // Its pixels, decoded at full size. Throws InputError naming the file.
  virtual std::shared_ptr<const Image> pixels(std::size_t index) const = 0;
};

// The labels a partner brings into an Op's output: its objects, and the maps that take them there
// (clipped after each, as an image's own labels). A null partner: the image's own labels again
// (the image as its own partner).
struct PartnerLabels {
  std::shared_ptr<const Partner> partner;
  std::vector<Motion> motions;
};

// A partner as a stage uses it. `from` is null where the image is its own partner (it reads the
// image's own pixels); otherwise `load` gives its pixels in the sample type and channel count of the
// image it joins (or its label map, for an Op's for_mask), and is null where there are none (a
// partner without a label map).
struct Taken {
  std::shared_ptr<const Partner> from;
  int width = 0, height = 0;  // the partner's size (the image's own where `from` is null)
  std::function<std::shared_ptr<const Image>()> load;
  std::string rel() const { return from ? from->rel : std::string(); }
};

// `count` partners for the image `seen.self`: distinct inputs other than itself while the list has
// enough (else they repeat), each index drawn uniformly from `d`. Without a source, or when the
// image is the only input, every partner is the image itself.
struct DrawInputs;
std::vector<Taken> draw_partners(Draws& d, const DrawInputs& seen, int count, const Shape& like);

// `in` in the sample type and channel count of `like`: 8/16-bit/float rescaled to the range of the
// type (8 to 16-bit x257, 16 to 8-bit rne(v / 257), float v / max and sat(rne(v max))); gray to
// colour repeated, colour to gray by BT.601 weights (rne), alpha dropped or added opaque.
Image conform_pixels(const Image& in, const Shape& like);
// A label map in the sample type of `like` (values kept, saturated): class indices are not rescaled.
Image conform_mask(const Image& in, const Shape& like);

}  // namespace aug
