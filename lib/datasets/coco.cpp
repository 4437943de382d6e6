// COCO: one JSON file for the whole dataset (--labels coco=FILE), docs/labels.md.
//
// Reading indexes the file once and hands each image its annotations. Writing records each
// output image's entry as a small JSON fragment under <output>/.augment-labels/, written
// atomically, so that an interrupted run resumed later, or other shard processes writing into
// the same output folder, leave every entry on disk; finish() gathers all fragments into
// <output>/<name of the input COCO file>.
//
// Object::extra keeps, for each annotation read:
//   "coco"          the annotation without bbox, segmentation, keypoints, area and num_keypoints
//   "coco_original" those fields as read (bbox, area, num_keypoints, an RLE segmentation) and
//                   whether segmentation / keypoints were present, so that an output whose pixels
//                   did not move gets every number back exactly as read
//   "coco_rle"      "compressed" (counts as a string) or "uncompressed" (counts as a list)
// ImageLabels::extra["coco_image"] is the image record as read.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/datasets/format.hpp"
#include "lib/datasets/rle.hpp"
#include "lib/io/files.hpp"

namespace aug::labels {
namespace {

using json = nlohmann::json;

constexpr const char* kFragmentDir = ".augment-labels";

// A problem with one annotation; read() adds the file, the image and the annotation id.
struct BadAnnotation {
  std::string what;
};

[[noreturn]] void bad(std::string what) { throw BadAnnotation{std::move(what)}; }

std::string id_text(const json& id) {
  if (id.is_null()) return "(without id)";
  if (id.is_string()) return id.get<std::string>();
  return id.dump();
}

// Integral values are written as JSON integers, others as the shortest double that reads back.
json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
    return json(static_cast<std::int64_t>(v));
  return json(v);
}

json rounded(double v) { return number(std::round(v * 100.0) / 100.0); }

double get_number(const json& v, const std::string& what) {
  if (!v.is_number()) bad(what + " is not a number");
  const double d = v.get<double>();
  if (!std::isfinite(d)) bad(what + " is not finite");
  return d;
}

bool get_integer(const json& v, std::int64_t& out) {
  if (v.is_number_integer()) {
    out = v.get<std::int64_t>();
    return true;
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9007199254740992.0) {
      out = static_cast<std::int64_t>(d);
      return true;
    }
  }
  return false;
}

std::string basename_of(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string normalised(std::string name) {
  std::replace(name.begin(), name.end(), '\\', '/');
  while (name.rfind("./", 0) == 0) name.erase(0, 2);
  return name;
}


BinaryMask read_rle(const json& seg, int width, int height, std::string& kind) {
  const json* size = seg.contains("size") ? &seg["size"] : nullptr;
  std::int64_t h = 0, w = 0;
  if (size == nullptr || !size->is_array() || size->size() != 2 || !get_integer((*size)[0], h) ||
      !get_integer((*size)[1], w) || h < 0 || w < 0 || h > std::numeric_limits<int>::max() ||
      w > std::numeric_limits<int>::max())
    bad("RLE segmentation needs \"size\": [height, width] of two non-negative integers");
  if (width > 0 && height > 0 && (h != height || w != width))
    bad("RLE size [" + std::to_string(h) + ", " + std::to_string(w) + "] does not match the image's " +
        std::to_string(width) + "x" + std::to_string(height));
  if (!seg.contains("counts")) bad("RLE segmentation has no \"counts\"");
  const json& c = seg["counts"];
  std::vector<std::uint32_t> counts;
  if (c.is_string()) {
    kind = "compressed";
    try {
      counts = rle_counts_from_string(c.get_ref<const std::string&>());
    } catch (const std::invalid_argument& e) {
      bad(std::string("RLE counts: ") + e.what());
    }
  } else if (c.is_array()) {
    kind = "uncompressed";
    counts.reserve(c.size());
    for (const json& v : c) {
      std::int64_t n = 0;
      if (!get_integer(v, n) || n < 0 || n > static_cast<std::int64_t>(UINT32_MAX))
        bad("RLE counts hold a value that is not a non-negative integer");
      counts.push_back(static_cast<std::uint32_t>(n));
    }
  } else {
    bad("RLE counts are neither a string nor a list of integers");
  }
  try {
    return rle_to_mask(counts, static_cast<int>(h), static_cast<int>(w));
  } catch (const std::invalid_argument& e) {
    bad(std::string("RLE counts: ") + e.what());
  }
}

std::optional<Box> mask_box(const BinaryMask& m) {
  int x0 = m.width, y0 = m.height, x1 = -1, y1 = -1;
  for (int y = 0; y < m.height; ++y)
    for (int x = 0; x < m.width; ++x)
      if (m.data[static_cast<std::size_t>(y) * static_cast<std::size_t>(m.width) + static_cast<std::size_t>(x)]) {
        x0 = std::min(x0, x);
        y0 = std::min(y0, y);
        x1 = std::max(x1, x);
        y1 = std::max(y1, y);
      }
  if (x1 < 0) return std::nullopt;
  return Box{double(x0), double(y0), double(x1 + 1), double(y1 + 1)};
}

std::optional<Box> polygons_box(const std::vector<Polygon>& polygons) {
  std::optional<Box> box;
  for (const Polygon& p : polygons)
    for (const Point& q : p) {
      if (!box) box = Box{q.x, q.y, q.x, q.y};
      box->x0 = std::min(box->x0, q.x);
      box->y0 = std::min(box->y0, q.y);
      box->x1 = std::max(box->x1, q.x);
      box->y1 = std::max(box->y1, q.y);
    }
  return box;
}

Object read_annotation(const json& ann, int width, int height) {
  Object obj;
  std::int64_t category = 0;
  if (!ann.contains("category_id")) bad("has no category_id");
  if (!get_integer(ann["category_id"], category) || category < std::numeric_limits<int>::min() ||
      category > std::numeric_limits<int>::max())
    bad("category_id is not an integer");
  obj.category = static_cast<int>(category);

  json original = json::object();
  if (ann.contains("bbox")) {
    const json& b = ann["bbox"];
    if (!b.is_array() || b.size() != 4) bad("bbox is not 4 numbers");
    const double x = get_number(b[0], "bbox"), y = get_number(b[1], "bbox"), w = get_number(b[2], "bbox"),
                 h = get_number(b[3], "bbox");
    if (w < 0 || h < 0) bad("bbox has a negative width or height");
    obj.box = Box{x, y, x + w, y + h};
    original["bbox"] = b;
  }

  if (ann.contains("segmentation")) {
    const json& seg = ann["segmentation"];
    if (!seg.is_null()) original["has_segmentation"] = true;
    if (seg.is_array()) {
      for (const json& poly : seg) {
        if (!poly.is_array()) bad("segmentation polygon is not a list of numbers");
        if (poly.size() % 2 != 0) bad("segmentation polygon has an odd number of values");
        if (poly.size() < 6) bad("segmentation polygon has fewer than 3 points");
        Polygon p;
        p.reserve(poly.size() / 2);
        for (std::size_t i = 0; i < poly.size(); i += 2)
          p.push_back(Point{get_number(poly[i], "segmentation polygon value"),
                            get_number(poly[i + 1], "segmentation polygon value")});
        obj.polygons.push_back(std::move(p));
      }
    } else if (seg.is_object()) {
      std::string kind;
      obj.mask = read_rle(seg, width, height, kind);
      obj.extra["coco_rle"] = kind;
      original["segmentation"] = seg;
    } else if (!seg.is_null()) {
      bad("segmentation is neither a list of polygons nor an RLE object");
    }
  }

  if (ann.contains("keypoints")) {
    const json& k = ann["keypoints"];
    if (!k.is_array() || k.size() % 3 != 0) bad("keypoints are not a list of x, y, v triples");
    original["has_keypoints"] = true;
    obj.keypoints.reserve(k.size() / 3);
    for (std::size_t i = 0; i < k.size(); i += 3) {
      std::int64_t v = 0;
      if (!get_integer(k[i + 2], v) || v < 0 || v > 2) bad("keypoint visibility is not 0, 1 or 2");
      obj.keypoints.push_back(
          Keypoint{get_number(k[i], "keypoint x"), get_number(k[i + 1], "keypoint y"), static_cast<int>(v)});
    }
  }
  if (ann.contains("area")) original["area"] = ann["area"];
  if (ann.contains("num_keypoints")) original["num_keypoints"] = ann["num_keypoints"];

  if (!obj.box) obj.box = obj.mask ? mask_box(*obj.mask) : polygons_box(obj.polygons);

  json kept = ann;
  for (const char* key : {"bbox", "segmentation", "keypoints", "area", "num_keypoints"}) kept.erase(key);
  obj.extra["coco"] = std::move(kept);
  obj.extra["coco_original"] = std::move(original);
  return obj;
}

// The annotation for one object, without id and image_id; `id` gets the id it was read with.
json write_annotation(const Object& obj, bool moved, json& id) {
  json a = obj.extra.contains("coco") && obj.extra["coco"].is_object() ? obj.extra["coco"] : json::object();
  id = a.contains("id") ? a["id"] : json();
  a.erase("id");
  a.erase("image_id");
  a["category_id"] = obj.category;

  const json* orig = obj.extra.contains("coco_original") && obj.extra["coco_original"].is_object()
                         ? &obj.extra["coco_original"]
                         : nullptr;
  const bool as_read = !moved && orig != nullptr;  // every number exactly as read
  auto has = [&](const char* key) { return orig != nullptr && orig->contains(key); };
  auto value = [&](double v) { return moved ? rounded(v) : number(v); };

  if (as_read) {
    if (has("bbox")) a["bbox"] = (*orig)["bbox"];
  } else if (obj.box) {
    a["bbox"] = json::array({value(obj.box->x0), value(obj.box->y0), value(obj.box->width()), value(obj.box->height())});
  }

  if (obj.mask) {
    if (as_read && has("segmentation")) {
      a["segmentation"] = (*orig)["segmentation"];
    } else {
      const std::vector<std::uint32_t> counts = rle_from_mask(*obj.mask);
      const bool list = obj.extra.contains("coco_rle") && obj.extra["coco_rle"] == "uncompressed";
      a["segmentation"] = json{{"size", json::array({obj.mask->height, obj.mask->width})},
                               {"counts", list ? json(counts) : json(rle_counts_to_string(counts))}};
    }
  } else if (!obj.polygons.empty()) {
    json polys = json::array();
    for (const Polygon& p : obj.polygons) {
      json flat = json::array();
      for (const Point& q : p) {
        flat.push_back(value(q.x));
        flat.push_back(value(q.y));
      }
      polys.push_back(std::move(flat));
    }
    a["segmentation"] = std::move(polys);
  } else if (has("has_segmentation")) {
    a["segmentation"] = json::array();
  }

  if (as_read) {
    if (has("area")) a["area"] = (*orig)["area"];
  } else if (obj.mask) {
    a["area"] = rle_area(rle_from_mask(*obj.mask));
  } else if (!obj.polygons.empty()) {
    double area = 0;
    for (const Polygon& p : obj.polygons) area += polygon_area(p);
    a["area"] = rounded(area);
  } else {
    a["area"] = obj.box ? rounded(obj.box->area()) : json(0);
  }

  if (!a.contains("iscrowd") && !as_read) a["iscrowd"] = 0;

  if (!obj.keypoints.empty() || has("has_keypoints")) {
    json k = json::array();
    int visible = 0;
    for (const Keypoint& p : obj.keypoints) {
      k.push_back(value(p.x));
      k.push_back(value(p.y));
      k.push_back(p.v);
      if (p.v > 0) ++visible;
    }
    a["keypoints"] = std::move(k);
    if (as_read) {
      if (has("num_keypoints")) a["num_keypoints"] = (*orig)["num_keypoints"];
    } else {
      a["num_keypoints"] = visible;
    }
  }
  return a;
}

// Kept ids when `keep` and they are unique (missing ones get new ids above the largest), else 1..n.
std::vector<json> assign_ids(const std::vector<json>& original, bool keep) {
  std::vector<json> ids;
  ids.reserve(original.size());
  auto renumber = [&] {
    ids.clear();
    for (std::size_t i = 0; i < original.size(); ++i) ids.emplace_back(static_cast<std::int64_t>(i + 1));
    return ids;
  };
  if (!keep) return renumber();
  std::unordered_set<std::string> seen;
  std::int64_t largest = 0;
  for (const json& id : original) {
    if (id.is_null()) continue;
    if (!seen.insert(id.dump()).second) return renumber();
    std::int64_t n = 0;
    if (get_integer(id, n)) largest = std::max(largest, n);
  }
  std::int64_t next = largest + 1;
  for (const json& id : original) ids.push_back(id.is_null() ? json(next++) : id);
  return ids;
}

void write_json(const fs::path& path, const json& value) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  write_file_atomic(path, text.data(), text.size());
}

class CocoFormat final : public Format {
 public:
  CocoFormat(const fs::path& file, const FormatOptions& options) : file_(file), options_(options) {
    std::vector<std::uint8_t> bytes;
    try {
      bytes = read_file(file);
    } catch (const InputError& e) {
      throw UsageError("COCO file " + file.string() + ": " + e.what());
    }
    try {
      doc_ = json::parse(bytes.begin(), bytes.end());
    } catch (const json::exception& e) {
      throw UsageError("COCO file " + file.string() + " is not valid JSON: " + e.what());
    }
    if (!doc_.is_object()) throw UsageError("COCO file " + file.string() + " is not a JSON object");
    for (const char* key : {"images", "annotations"})
      if (!doc_.contains(key) || !doc_[key].is_array())
        throw UsageError("COCO file " + file.string() + " has no \"" + key + "\" array");

    const json& images = doc_["images"];
    for (std::size_t i = 0; i < images.size(); ++i) {
      const json& im = images[i];
      if (!im.is_object() || !im.contains("file_name") || !im["file_name"].is_string()) continue;
      const std::string name = normalised(im["file_name"].get<std::string>());
      by_name_.emplace(name, i);
      const std::string base = basename_of(name);
      auto [it, inserted] = by_base_.emplace(base, static_cast<std::ptrdiff_t>(i));
      if (!inserted && it->second != static_cast<std::ptrdiff_t>(i)) it->second = -1;  // not unique
    }
    const json& anns = doc_["annotations"];
    for (std::size_t i = 0; i < anns.size(); ++i) {
      const json& a = anns[i];
      if (!a.is_object() || !a.contains("image_id")) continue;
      by_image_[a["image_id"].dump()].push_back(i);
    }
    // The category names, for what shows an object (preview); ids with no name stay unnamed.
    if (doc_.contains("categories") && doc_["categories"].is_array())
      for (const json& c : doc_["categories"]) {
        std::int64_t id = 0;
        if (!c.is_object() || !c.contains("id") || !get_integer(c["id"], id)) continue;
        if (c.contains("name") && c["name"].is_string()) category_names_.emplace(id, c["name"].get<std::string>());
      }
  }

  std::string name() const override { return "coco"; }

  std::optional<ClassNames> class_names() const override {
    if (category_names_.empty()) return std::nullopt;
    ClassNames c{file_.string() + "'s categories", {}};
    for (const auto& [id, n] : category_names_) c.names.emplace(id, n);
    return c;
  }

  Source source(const fs::path& /*image*/, const std::string& rel) const override {
    return {file_.string() + " (an image whose file_name is " + rel + " or ends in /" + basename_of(normalised(rel)) + ")",
            find(rel) != nullptr};
  }

  std::vector<std::string> unmatched(const std::vector<std::string>& rels) const override {
    std::vector<bool> matched(doc_["images"].size(), false);
    for (const std::string& rel : rels)
      if (const json* record = find(rel)) matched[static_cast<std::size_t>(record - &doc_["images"][0])] = true;
    std::vector<std::string> out;
    for (std::size_t i = 0; i < matched.size(); ++i) {
      const json& im = doc_["images"][i];
      if (!matched[i] && im.is_object() && im.contains("file_name") && im["file_name"].is_string())
        out.push_back(im["file_name"].get<std::string>());
    }
    return out;
  }

  ImageLabels read(const fs::path& /*image*/, const std::string& rel, int width, int height) const override {
    ImageLabels labels;
    labels.width = width;
    labels.height = height;
    const json* record = find(rel);
    if (record == nullptr) return labels;
    const std::string file_name = (*record)["file_name"].get<std::string>();
    std::int64_t n = 0;
    if (labels.width <= 0 && record->contains("width") && get_integer((*record)["width"], n)) labels.width = int(n);
    if (labels.height <= 0 && record->contains("height") && get_integer((*record)["height"], n)) labels.height = int(n);
    labels.extra["coco_image"] = *record;
    if (!record->contains("id")) return labels;
    const auto it = by_image_.find((*record)["id"].dump());
    if (it == by_image_.end()) return labels;
    const json& anns = doc_["annotations"];
    labels.objects.reserve(it->second.size());
    for (const std::size_t i : it->second) {
      const json& ann = anns[i];
      try {
        labels.objects.push_back(read_annotation(ann, labels.width, labels.height));
        const auto name = category_names_.find(labels.objects.back().category);
        if (name != category_names_.end()) labels.objects.back().name = name->second;
      } catch (const BadAnnotation& e) {
        throw InputError(file_.string() + ": image " + file_name + ": annotation " +
                         id_text(ann.contains("id") ? ann["id"] : json()) + ": " + e.what);
      }
    }
    return labels;
  }

  fs::path output_path(const fs::path&, const std::string&) const override { return {}; }

  void write(const fs::path& output_root, const std::string& out_rel, const ImageLabels& labels) override {
    json image = json::object();
    json image_id;
    if (labels.extra.contains("coco_image") && labels.extra["coco_image"].is_object()) {
      image = labels.extra["coco_image"];
      if (image.contains("id")) image_id = image["id"];
      for (const char* key : {"id", "file_name", "width", "height"}) image.erase(key);
    }
    json annotations = json::array(), annotation_ids = json::array();
    for (const Object& obj : labels.objects) {
      json id;
      annotations.push_back(write_annotation(obj, labels.moved, id));
      annotation_ids.push_back(std::move(id));
    }
    const json fragment{{"file_name", out_rel},     {"width", labels.width},
                        {"height", labels.height},  {"image", std::move(image)},
                        {"image_id", image_id},     {"annotations", std::move(annotations)},
                        {"annotation_ids", std::move(annotation_ids)}};
    const fs::path path = output_root / kFragmentDir / (out_rel + ".json");
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec && !fs::is_directory(path.parent_path()))
      throw InputError("cannot create " + path.parent_path().string() + ": " + ec.message());
    write_json(path, fragment);
  }

  void finish(const fs::path& output_root) override {
    std::vector<json> fragments;
    const fs::path dir = output_root / kFragmentDir;
    std::error_code ec;
    if (fs::is_directory(dir, ec)) {
      for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const fs::path& p = it->path();
        const std::string leaf = p.filename().string();
        if (!it->is_regular_file(ec) || leaf.rfind(kTempPrefix, 0) == 0 || p.extension() != ".json") continue;
        std::vector<std::uint8_t> bytes;
        try {
          bytes = read_file(p);
        } catch (const InputError& e) {
          throw InputError(p.string() + ": " + e.what());
        }
        json f = json::parse(bytes.begin(), bytes.end(), nullptr, false);
        if (f.is_discarded() || !f.is_object() || !f.contains("file_name") || !f["file_name"].is_string() ||
            !f.contains("annotations") || !f["annotations"].is_array())
          throw InputError(p.string() + ": not a COCO label fragment");
        fragments.push_back(std::move(f));
      }
      if (ec) throw InputError("cannot list " + dir.string() + ": " + ec.message());
    }
    std::sort(fragments.begin(), fragments.end(), [](const json& a, const json& b) {
      return a["file_name"].get_ref<const std::string&>() < b["file_name"].get_ref<const std::string&>();
    });

    const bool keep = options_.copies == 1;
    std::vector<json> image_ids, annotation_ids;
    for (const json& f : fragments) {
      image_ids.push_back(f.value("image_id", json()));
      const json ids = f.value("annotation_ids", json::array());
      for (std::size_t i = 0; i < f["annotations"].size(); ++i)
        annotation_ids.push_back(i < ids.size() ? ids[i] : json());
    }
    image_ids = assign_ids(image_ids, keep);
    annotation_ids = assign_ids(annotation_ids, keep);

    json out = json::object();
    for (const auto& [key, value] : doc_.items())
      if (key != "images" && key != "annotations") out[key] = value;
    json images = json::array(), annotations = json::array();
    std::size_t next_annotation = 0;
    for (std::size_t i = 0; i < fragments.size(); ++i) {
      json& f = fragments[i];
      json image = f.value("image", json::object());
      if (!image.is_object()) image = json::object();
      image["id"] = image_ids[i];
      image["file_name"] = f["file_name"];
      image["width"] = f.value("width", json(0));
      image["height"] = f.value("height", json(0));
      images.push_back(std::move(image));
      for (json& a : f["annotations"]) {
        a["id"] = annotation_ids[next_annotation++];
        a["image_id"] = image_ids[i];
        annotations.push_back(std::move(a));
      }
    }
    out["images"] = std::move(images);
    out["annotations"] = std::move(annotations);
    write_json(output_root / file_.filename(), out);
  }

 private:
  const json* find(const std::string& rel) const {
    const std::string name = normalised(rel);
    const json& images = doc_["images"];
    if (const auto it = by_name_.find(name); it != by_name_.end()) return &images[it->second];
    if (const auto it = by_base_.find(basename_of(name)); it != by_base_.end() && it->second >= 0)
      return &images[static_cast<std::size_t>(it->second)];
    return nullptr;
  }

  fs::path file_;
  FormatOptions options_;
  json doc_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, std::ptrdiff_t> by_base_;  // -1: more than one image has this name
  std::unordered_map<std::string, std::vector<std::size_t>> by_image_;  // image id (as JSON text) -> annotations
  std::unordered_map<std::int64_t, std::string> category_names_;       // category id -> name
};

}  // namespace

std::unique_ptr<Format> make_coco_format(const fs::path& file, const FormatOptions& options) {
  return std::make_unique<CocoFormat>(file, options);
}

}  // namespace aug::labels
