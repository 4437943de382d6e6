// Labels that travel with an image: boxes, polygons, keypoints and per-object masks, in one
// format-neutral model that every reader fills and every writer reads (docs/labels.md).
//
// Coordinates are absolute pixels of the image they belong to, with pixel edges at integers:
// pixel (i, j) covers [i, i + 1) x [j, j + 1), so a box around the whole W x H image is
// (0, 0, W, H). YOLO's normalised values are multiplied by W and H, Pascal VOC's 1-based
// inclusive corners become (xmin - 1, ymin - 1, xmax, ymax), COCO's coordinates are already
// in this frame.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace aug::labels {

struct Point {
  double x = 0, y = 0;
};

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;  // x0 <= x1, y0 <= y1
  double width() const { return x1 - x0; }
  double height() const { return y1 - y0; }
  double area() const { return width() * height(); }
};

// v as COCO: 0 not labelled (or left the image: then x = y = 0), 1 labelled but hidden, 2 visible.
struct Keypoint {
  double x = 0, y = 0;
  int v = 2;
};

// One object's binary mask over the whole image (COCO RLE objects), row-major, 0 or 1.
struct BinaryMask {
  int width = 0, height = 0;
  std::vector<std::uint8_t> data;
};

using Polygon = std::vector<Point>;

// Shoelace area of a polygon (absolute value).
inline double polygon_area(const Polygon& p) {
  double twice = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const Point& a = p[i];
    const Point& b = p[(i + 1) % p.size()];
    twice += a.x * b.y - b.x * a.y;
  }
  return (twice < 0 ? -twice : twice) / 2;
}

struct Object {
  int category = 0;                    // YOLO class, COCO category_id; VOC: index of `name` in the run's names
  std::string name;                    // VOC's <name>; COCO: the category's name (shown, not written)
  std::optional<Box> box;              // every format has one (YOLO segments and COCO without bbox: derived)
  std::vector<Polygon> polygons;       // YOLO segment rows (one), COCO polygons (one or more)
  // An oriented box (YOLO-OBB, DOTA): polygons holds its four corners, which move exactly through
  // matrices; after a field, or cut by the border, the smallest rectangle around the moved outline.
  bool oriented = false;
  std::optional<BinaryMask> mask;      // COCO RLE (iscrowd 1 or RLE segmentation)
  std::vector<Keypoint> keypoints;     // YOLO pose, COCO keypoints; the length never changes
  nlohmann::json extra = nlohmann::json::object();  // the format's other fields, kept as read
};

struct ImageLabels {
  int width = 0, height = 0;
  std::vector<Object> objects;
  // False while no stage has moved the pixels: a writer then writes each kept object's numbers
  // exactly as they were read (an identity pipeline gives the label file back byte for byte).
  bool moved = false;
  nlohmann::json extra = nlohmann::json::object();  // the format's per-image data, kept as read
};

}  // namespace aug::labels
