// How an operation moves pixels: the one coordinate map that moves its labels and masks too
// (docs/labels.md). Stages produce it; lib/labels moves boxes, polygons and keypoints through it.
#pragma once

#include <array>
#include <memory>
#include <vector>

namespace aug {

// How an Op moves pixels, which is how it moves labels (docs/labels.md): the forward map from input
// pixel coordinates to output pixel coordinates, pixel centres at integers, as the Op samples.
struct Motion {
  // A projective map (row-major 3x3; affine when the last row is 0 0 1).
  std::array<double, 9> matrix{1, 0, 0, 0, 1, 0, 0, 0, 1};
  // A map that is no matrix (elastic): for each output pixel, the input position its value is
  // sampled at, (x, y) interleaved, row-major over the output. `matrix` is unused then.
  std::shared_ptr<const std::vector<float>> sources;
  int out_width = 0, out_height = 0;
  // Objects whose box centre this map does not take strictly inside the output are dropped here
  // (counted as outside) instead of being clipped: torchvision RandomIoUCrop's rule (iou_crop).
  // The box is the object's box at the map's input (its tracked outline's bounds).
  bool drops_centres_outside = false;
  // Rectangles of the output (x0, y0, x1, y1, the labels' frame) where other pixels cover what this
  // map brought (cutmix's pasted box): an object keeps the fraction of its area they leave visible,
  // is dropped when nothing is left, and its keypoints under them become hidden (v 1).
  std::vector<std::array<double, 4>> covers;
  // A map that moves rectangles of the image whole (grid_shuffle's cells): each tile of the input,
  // [x0, x1) x [y0, y1) in the labels' frame, moves by (dx, dy); the tiles cover the input. `matrix`
  // and `sources` are unused then. An object cut by the tiles is cut into its pieces, and pieces
  // that no longer touch become objects of their own (Albumentations' RandomGridShuffle).
  struct Tile {
    double x0, y0, x1, y1, dx, dy;
  };
  std::vector<Tile> tiles;
};

}  // namespace aug
