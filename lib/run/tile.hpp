// `augment tile`: large images (aerial, microscopy, scanned documents) cut into overlapping tiles of
// one size, each with its labels and mask, named by its offsets, with a manifest of where each tile
// came from (docs/tiling.md).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lib/io/codec.hpp"

namespace aug {

struct TileOptions {
  std::filesystem::path input, output;
  int width = 0, height = 0;  // the tile's size
  double overlap = 0.2;       // the fraction of the tile's side that neighbouring tiles share, [0, 1)
  std::string labels;         // yolo, voc or coco=FILE (as run)
  std::optional<std::filesystem::path> masks, masks_output;
  std::string mask_suffix = ".png";
  // An object cut by a tile's edge is kept when at least this fraction of its area is in the tile
  // (the labels block's min_visibility); min_area and min_size as there.
  double min_visibility = 0.25, min_area = 0;
  std::string format = "keep";  // the tiles' format (as run's --format)
  int quality = 95;
  std::optional<std::filesystem::path> manifest;  // default OUTPUT/tiles.jsonl
  DecodeOptions decode;
  int threads = 0;  // 0: every core
  bool overwrite = false;
};

struct TileSummary {
  std::size_t inputs = 0, tiles = 0, failed_inputs = 0;
  std::size_t objects = 0;       // objects in the inputs' labels
  std::size_t object_tiles = 0;  // objects written, over every tile (one object may be in several)
  double seconds = 0;
};

// The offsets of the tiles along a side of n pixels: every `size - round(overlap * size)` pixels
// from 0, and a last tile flush with the far edge, so that no tile reaches past the image. A side
// shorter than the tile is one tile from 0 (the tile is then that side long).
std::vector<int> tile_offsets(int n, int size, double overlap);

// Cuts every image under options.input. Throws UsageError for bad options; an input that cannot be
// read or cut is counted in failed_inputs and named in the log, the others go on.
TileSummary tile(const TileOptions& options);

}  // namespace aug
