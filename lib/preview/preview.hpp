// `augment preview`: a contact sheet of a pipeline on a few images, to look at before a run. Each
// input is shown next to N augmented variants; variant k is copy k of `augment run` with the same
// seed (the same plan, the same pixels, and in the HTML sheet the very bytes run writes for a JPEG,
// PNG or WebP input), captioned with the stages that fired and their resolved parameters.
// Labels (--labels) are drawn over the tiles and masks (--masks) laid over them, never into them;
// each box is tagged with its class (the format's name, else its id) and each tile's caption counts
// the objects kept and those the label rules dropped.
//   .html  one self-contained page (the tiles embedded; boxes, polygons and keypoints as SVG)
//   .png   one image (tiles scaled to a common height, captions and labels drawn with OpenCV)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "lib/io/codec.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/run/devices.hpp"

namespace aug {

struct PreviewOptions {
  std::filesystem::path input;             // a folder (its first `images` images, sorted) or one file
  std::filesystem::path output = "preview.html";
  std::size_t images = 4;
  std::uint32_t variants = 8;
  std::optional<std::uint64_t> seed;       // overrides the pipeline's, as run's --seed
  DeviceSpec device;
  std::string labels;                      // as run's --labels
  std::optional<std::filesystem::path> masks;
  std::string mask_suffix = ".png";
  int quality = 95;                        // JPEG / WebP tiles, as run's --quality
  DecodeOptions decode;
};

struct PreviewSummary {
  std::size_t images = 0, tiles = 0;
  std::string device;
};

// The short form of a plan's record: one line per stage that fired, "name k=v, k=v".
std::string caption_line(const nlohmann::json& record_entry);

PreviewSummary preview(const Pipeline& pipeline, const PreviewOptions& options);

}  // namespace aug
