// Moving labels through the geometry of one output's plan, and the filters of the pipeline's
// "labels" block (docs/labels.md). Host code in double; every backend's labels are these.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/labels/labels.hpp"
#include "lib/labels/motion.hpp"

namespace aug::labels {

enum class BoxMethod {
  Corners,  // the enclosing box of the moved corners (Albumentations' rotate_method "largest_box")
  Ellipse,  // the enclosing box of the moved inscribed ellipse (Albumentations' "ellipse")
};

// The pipeline file's "labels" block.
struct LabelRules {
  double min_visibility = 0;          // visible fraction of the object after the whole pipeline
  double min_area = 0;                // output pixels², of the final box
  std::array<double, 2> min_size{0, 0};  // [width, height] of the final box, output pixels
  BoxMethod box_method = BoxMethod::Corners;
  std::vector<int> flip_index;        // keypoint i takes keypoint flip_index[i] after a mirroring stage
  int keypoints = 0, keypoint_dims = 3;  // YOLO pose rows (Ultralytics' kpt_shape)
  double mask_fill = 0;               // what masks get where the image gets its constant border

  static LabelRules parse(const nlohmann::json& block, const std::string& source);  // throws UsageError
  nlohmann::json to_json() const;
};

// How many objects one output kept and why the others went.
struct LabelCounts {
  std::size_t kept = 0, outside = 0, visibility = 0, area = 0, size = 0;
  std::size_t dropped() const { return outside + visibility + area + size; }
  nlohmann::json to_json() const;
};

// The box around an object mask's set pixels (nothing when none is set).
std::optional<Box> mask_bounds(const BinaryMask& m);

// Maps a point (pixel edges at integers, the labels' frame) through one motion.
Point move_point(const Motion& m, Point p);
// Whether a motion mirrors the image (a flip, a transpose): left and right keypoints swap.
bool mirrors(const Motion& m);

// Moves `labels` through `motions` (the applied steps' geometry, in order) and applies the
// filters; objects that are dropped leave with all of their fields. Object masks must already
// have been moved (they go through the stages themselves, sampled nearest): their boxes are
// taken from them.
LabelCounts move_labels(ImageLabels& labels, const std::vector<Motion>& motions, const LabelRules& rules);

}  // namespace aug::labels
