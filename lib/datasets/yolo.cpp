// YOLO (Ultralytics) text labels: one .txt per image, one row per object, values normalised
// to the image's width and height.
//
//   detection  class cx cy w h
//   segment    class x1 y1 x2 y2 ... xn yn        (n >= 3)
//   pose       class cx cy w h k1x k1y [k1v] ...  (FormatOptions::keypoints rows only)
//
// The label file of an image is found with Ultralytics' img2label_paths rule: the last folder
// named `images` becomes `labels` and the extension becomes .txt; without such a folder the
// .txt lies beside the image. Outputs follow the same rule below the output folder, its own
// name included. Each object remembers its kind and its row's tokens in
// Object::extra, so that an identity pipeline (ImageLabels::moved false) writes the file back
// byte for byte.
#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"
#include "lib/datasets/format.hpp"
#include "lib/datasets/yolo_dataset.hpp"
#include "lib/io/files.hpp"

namespace aug::labels {
namespace {

namespace fs = std::filesystem;

constexpr const char* kKind = "yolo_kind";      // "box", "segment" or "pose"
constexpr const char* kTokens = "yolo_tokens";  // the row's tokens as read
constexpr const char* kEol = "yolo_eol";        // "\n" or "\r\n"
constexpr const char* kFinalEol = "yolo_final_eol";

// `path` with its last folder named `images` replaced by `labels` and its extension by .txt.
// Only folders count: the file name itself is never replaced.
fs::path label_path_for(const fs::path& path) {
  std::vector<fs::path> parts(path.begin(), path.end());
  if (parts.empty()) return path;
  for (std::size_t i = parts.size() - 1; i-- > 0;) {
    if (parts[i] == "images") {
      parts[i] = "labels";
      break;
    }
  }
  fs::path out;
  for (const auto& p : parts) out /= p;
  out.replace_extension(".txt");
  return out;
}

std::vector<std::string_view> split_tokens(std::string_view line) {
  std::vector<std::string_view> tokens;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\v' ||
                               line[i] == '\f'))
      ++i;
    const std::size_t start = i;
    while (i < line.size() && !(line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\v' ||
                                line[i] == '\f'))
      ++i;
    if (i > start) tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

// A normalised value as written: clamped to [0, 1], never "-0.000000".
std::string norm(double v) {
  if (!(v > 0)) v = 0;  // also NaN and -0
  if (v > 1) v = 1;
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", v);
  return buf;
}

Box polygon_bounds(const Polygon& poly) {
  Box b{poly.front().x, poly.front().y, poly.front().x, poly.front().y};
  for (const auto& p : poly) {
    b.x0 = std::min(b.x0, p.x);
    b.y0 = std::min(b.y0, p.y);
    b.x1 = std::max(b.x1, p.x);
    b.y1 = std::max(b.y1, p.y);
  }
  return b;
}

class YoloFormat final : public Format {
 public:
  explicit YoloFormat(const FormatOptions& options) : options_(options) {
    if (options_.keypoints < 0) throw UsageError("yolo: the number of keypoints must not be negative");
    if (options_.keypoints > 0 && options_.keypoint_dims != 2 && options_.keypoint_dims != 3)
      throw UsageError("yolo: keypoints have 2 (x y) or 3 (x y v) values, not " +
                       std::to_string(options_.keypoint_dims));
    if (!options_.input.empty()) dataset_ = find_yolo_dataset(options_.input);
  }

  std::string name() const override { return options_.oriented ? "yolo-obb" : "yolo"; }

  std::optional<ClassNames> class_names() const override {
    if (!dataset_ || dataset_->names.empty()) return std::nullopt;
    ClassNames c{dataset_->file.string(), {}};
    for (const auto& [id, n] : dataset_->names) c.names.emplace(id, n);
    return c;
  }

  ImageLabels read(const fs::path& image, const std::string& /*rel*/, int width, int height) const override {
    ImageLabels labels;
    labels.width = width;
    labels.height = height;
    const fs::path path = label_path_for(image);
    std::error_code ec;
    if (!fs::exists(path, ec)) return labels;  // no label file: an image without objects (background)

    std::vector<std::uint8_t> bytes;
    try {
      bytes = read_file(path);
    } catch (const InputError& e) {
      throw InputError(path.string() + ": " + e.what());
    }
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());

    // The line ending and whether the last line has one, so that the writer gives them back.
    const std::size_t first_nl = text.find('\n');
    const bool crlf = first_nl != std::string_view::npos && first_nl > 0 && text[first_nl - 1] == '\r';
    labels.extra[kEol] = crlf ? "\r\n" : "\n";
    labels.extra[kFinalEol] = text.empty() || text.back() == '\n';

    std::size_t pos = 0;
    int line_no = 0;
    while (pos < text.size()) {
      std::size_t nl = text.find('\n', pos);
      if (nl == std::string_view::npos) nl = text.size();
      const std::string_view line = text.substr(pos, nl - pos);
      pos = nl + 1;
      ++line_no;
      const auto tokens = split_tokens(line);
      if (tokens.empty()) continue;  // blank lines are ignored
      labels.objects.push_back(parse_row(tokens, path, line_no, width, height));
    }
    return labels;
  }

  Source source(const fs::path& image, const std::string& /*rel*/) const override {
    const fs::path path = label_path_for(image);
    std::error_code ec;
    return {path.string(), fs::exists(path, ec)};
  }

  fs::path output_path(const fs::path& output_root, const std::string& out_rel) const override {
    return output_label_path(output_root, out_rel, &label_path_for);
  }

  void write(const fs::path& output_root, const std::string& out_rel, const ImageLabels& labels) override {
    const fs::path path = output_path(output_root, out_rel);
    std::string eol = "\n";
    bool final_eol = true;
    if (auto it = labels.extra.find(kEol); it != labels.extra.end() && it->is_string()) eol = it->get<std::string>();
    if (auto it = labels.extra.find(kFinalEol); it != labels.extra.end() && it->is_boolean())
      final_eol = it->get<bool>();

    {
      std::lock_guard lk(m_);
      for (const auto& object : labels.objects) seen_.insert(object.category);
    }
    std::vector<std::string> rows;
    rows.reserve(labels.objects.size());
    for (const auto& object : labels.objects) {
      std::string row = format_row(object, labels, path);
      if (!row.empty()) rows.push_back(std::move(row));
    }
    std::string out;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      out += rows[i];
      if (i + 1 < rows.size() || final_eol) out += eol;
    }

    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (ec) throw InputError("cannot create " + path.parent_path().string() + ": " + ec.message());
    write_file_atomic(path, out.data(), out.size());
  }

  // The output's data.yaml (a run that knows its input: not preview).
  void finish(const fs::path& output_root) override {
    if (options_.input.empty()) return;
    std::lock_guard lk(m_);
    write_yolo_dataset(output_root, options_.input, dataset_, seen_);
  }

 private:
  [[noreturn]] static void fail(const fs::path& path, int line, const std::string& what) {
    throw InputError(path.string() + ":" + std::to_string(line) + ": " + what);
  }

  Object parse_row(const std::vector<std::string_view>& tokens, const fs::path& path, int line, int width,
                   int height) const {
    const std::size_t n = tokens.size();
    const int k = options_.keypoints, dims = options_.keypoint_dims;
    std::string kind;
    if (k > 0) {
      const std::size_t want = 5 + static_cast<std::size_t>(k) * static_cast<std::size_t>(dims);
      if (n != want)
        fail(path, line,
             "expected " + std::to_string(want) + " values (class cx cy w h and " + std::to_string(k) +
                 " keypoints of " + std::to_string(dims) + " values), found " + std::to_string(n));
      kind = "pose";
    } else if (options_.oriented) {
      if (n != 9)
        fail(path, line, "expected an oriented box (class x1 y1 x2 y2 x3 y3 x4 y4), found " + std::to_string(n) +
                             " values");
      kind = "obb";
    } else if (n == 5) {
      kind = "box";
    } else if (n >= 7 && n % 2 == 1) {
      kind = "segment";
    } else {
      fail(path, line,
           "expected 5 values (class cx cy w h) or a segment (class x1 y1 x2 y2 x3 y3 ...), found " +
               std::to_string(n));
    }

    // The class: a non-negative integer ("3"; "3.0" as some exporters write it is accepted too).
    double cls = 0;
    if (!parse_finite_double(tokens[0], cls) || cls < 0 || cls != std::floor(cls) || cls > 2147483647.0)
      fail(path, line, "the class must be a non-negative integer, found \"" + std::string(tokens[0]) + "\"");
    std::vector<double> v(n - 1);
    for (std::size_t i = 1; i < n; ++i)
      if (!parse_finite_double(tokens[i], v[i - 1]))
        fail(path, line, "value " + std::to_string(i + 1) + " is not a finite number: \"" +
                             std::string(tokens[i]) + "\"");

    // Coordinates are fractions of the width and height: a value above 1 is a pixel coordinate
    // (Ultralytics rejects such a file too). Keypoint visibilities (0, 1, 2) are not coordinates.
    for (std::size_t i = 0; i < v.size(); ++i) {
      const bool visibility = k > 0 && dims == 3 && i >= 4 && (i - 4) % 3 == 2;
      if (!visibility && v[i] > 1 + 1e-6)
        fail(path, line, "value " + std::to_string(i + 2) + " is " + std::string(tokens[i + 1]) +
                             ", above 1: YOLO coordinates are fractions of the image's width and height, not pixels");
    }

    Object object;
    object.category = static_cast<int>(cls);
    const double w = width, h = height;
    if (kind == "segment" || kind == "obb") {
      Polygon poly;
      for (std::size_t i = 0; i + 1 < v.size(); i += 2) poly.push_back({v[i] * w, v[i + 1] * h});
      object.box = polygon_bounds(poly);
      object.polygons.push_back(std::move(poly));
      object.oriented = kind == "obb";
    } else {
      const double cx = v[0], cy = v[1], bw = v[2], bh = v[3];
      if (bw < 0 || bh < 0) fail(path, line, "the box's width and height must not be negative");
      object.box = Box{(cx - bw / 2) * w, (cy - bh / 2) * h, (cx + bw / 2) * w, (cy + bh / 2) * h};
      for (int i = 0; i < k; ++i) {
        const std::size_t at = 4 + static_cast<std::size_t>(i) * static_cast<std::size_t>(dims);
        const double x = v[at], y = v[at + 1];
        Keypoint kp{x * w, y * h, 2};
        if (dims == 3) {
          const double vis = v[at + 2];
          if (vis != 0 && vis != 1 && vis != 2)
            fail(path, line, "keypoint " + std::to_string(i + 1) + "'s visibility must be 0, 1 or 2, found \"" +
                                 std::string(tokens[at + 3]) + "\"");
          kp.v = static_cast<int>(vis);
        } else if (x == 0 && y == 0) {
          kp.v = 0;  // Ultralytics: a keypoint at (0, 0) is missing
        }
        object.keypoints.push_back(kp);
      }
    }
    object.extra[kKind] = kind;
    auto tokens_json = nlohmann::json::array();
    for (const auto& t : tokens) tokens_json.push_back(std::string(t));
    object.extra[kTokens] = std::move(tokens_json);
    return object;
  }

  // One row, or an empty string for an object with nothing to write (no box, no polygon).
  std::string format_row(const Object& object, const ImageLabels& labels, const fs::path& path) const {
    if (!labels.moved) {
      if (auto it = object.extra.find(kTokens); it != object.extra.end() && it->is_array() && !it->empty()) {
        std::string row;
        for (const auto& t : *it) {
          if (!row.empty()) row += ' ';
          row += t.is_string() ? t.get<std::string>() : t.dump();
        }
        return row;
      }
    }
    if (labels.width <= 0 || labels.height <= 0)
      throw InputError(path.string() + ": cannot write normalised labels for an image of size " +
                       std::to_string(labels.width) + "x" + std::to_string(labels.height));
    const double w = labels.width, h = labels.height;

    std::string kind;
    if (auto it = object.extra.find(kKind); it != object.extra.end() && it->is_string()) kind = it->get<std::string>();
    if (kind.empty() || options_.oriented)
      kind = options_.oriented ? "obb" : options_.keypoints > 0 ? "pose" : !object.polygons.empty() ? "segment" : "box";

    std::string row = std::to_string(object.category);
    if (kind == "obb") {
      // Four corners: the moved oriented box, else the corners of the object's box.
      Polygon corners;
      if (object.polygons.size() == 1 && object.polygons[0].size() == 4) corners = object.polygons[0];
      else if (object.box) corners = {{object.box->x0, object.box->y0}, {object.box->x1, object.box->y0},
                                      {object.box->x1, object.box->y1}, {object.box->x0, object.box->y1}};
      if (corners.empty()) return {};
      for (const auto& p : corners) row += ' ' + norm(p.x / w) + ' ' + norm(p.y / h);
      return row;
    }
    if (kind == "segment") {
      const Polygon* best = nullptr;
      for (const auto& p : object.polygons)
        if (!best || p.size() > best->size()) best = &p;
      if (best && best->size() >= 3) {
        for (const auto& p : *best) row += ' ' + norm(p.x / w) + ' ' + norm(p.y / h);
        return row;
      }
      // Fewer than 3 points would read back as a box or not at all: write the box instead.
    }

    std::optional<Box> box = object.box;
    if (!box) {
      const Polygon* best = nullptr;
      for (const auto& p : object.polygons)
        if (!p.empty() && (!best || p.size() > best->size())) best = &p;
      if (best) box = polygon_bounds(*best);
    }
    if (!box) return {};
    const double x0 = std::clamp(box->x0, 0.0, w), x1 = std::clamp(box->x1, 0.0, w);
    const double y0 = std::clamp(box->y0, 0.0, h), y1 = std::clamp(box->y1, 0.0, h);
    row += ' ' + norm((x0 + x1) / 2 / w) + ' ' + norm((y0 + y1) / 2 / h) + ' ' + norm((x1 - x0) / w) + ' ' +
           norm((y1 - y0) / h);

    if (kind == "pose" && options_.keypoints > 0) {
      const int dims = options_.keypoint_dims;
      for (int i = 0; i < options_.keypoints; ++i) {
        // The model never changes the number of keypoints; pad a short list as missing ones.
        const Keypoint kp = i < static_cast<int>(object.keypoints.size()) ? object.keypoints[i] : Keypoint{0, 0, 0};
        if (kp.v == 0) {
          row += dims == 3 ? " 0.000000 0.000000 0.000000" : " 0.000000 0.000000";
        } else {
          row += ' ' + norm(kp.x / w) + ' ' + norm(kp.y / h);
          if (dims == 3) row += ' ' + std::to_string(std::clamp(kp.v, 0, 2)) + ".000000";
        }
      }
    }
    return row;
  }

  FormatOptions options_;
  std::optional<YoloDataset> dataset_;  // the input's data.yaml
  std::mutex m_;
  std::set<int> seen_;  // the class ids written
};

}  // namespace

std::unique_ptr<Format> make_yolo_format(const FormatOptions& options) {
  return std::make_unique<YoloFormat>(options);
}

}  // namespace aug::labels
