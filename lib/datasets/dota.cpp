// DOTA text labels (aerial images): one .txt per image in `labelTxt/` beside `images/`, optional
// header lines (`imagesource:GoogleEarth`, `gsd:0.146`), then one object per row:
//
//   x1 y1 x2 y2 x3 y3 x4 y4 category difficult
//
// in pixels, the four corners of an oriented box. The corners move exactly (docs/labels.md); the
// header lines, each object's category and difficult flag are written back as read.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"
#include "lib/datasets/format.hpp"
#include "lib/io/files.hpp"

namespace aug::labels {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDotaHeader = "dota_header";        // ImageLabels::extra: the header lines as read
constexpr const char* kDotaDifficult = "dota_difficult";  // Object::extra: the difficult flag as read
constexpr const char* kDotaTokens = "dota_tokens";        // Object::extra: the row's tokens as read

// `path` with its last folder named `images` replaced by `labelTxt` and its extension by .txt.
fs::path dota_path_for(const fs::path& path) {
  std::vector<fs::path> parts(path.begin(), path.end());
  if (parts.empty()) return path;
  for (std::size_t i = parts.size() - 1; i-- > 0;)
    if (parts[i] == "images") {
      parts[i] = "labelTxt";
      break;
    }
  fs::path out;
  for (const auto& p : parts) out /= p;
  out.replace_extension(".txt");
  return out;
}

std::vector<std::string> dota_split(std::string_view line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) out.emplace_back(line.substr(start, i - start));
  }
  return out;
}

// A pixel coordinate as written: one decimal, as DOTA's files have them.
std::string dota_pixel(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v == 0 ? 0.0 : v);
  return buf;
}

class DotaFormat final : public Format {
 public:
  explicit DotaFormat(const FormatOptions& options) : options_(options) {}

  std::string name() const override { return "dota"; }

  Source source(const fs::path& image, const std::string& /*rel*/) const override {
    const fs::path path = dota_path_for(image);
    std::error_code ec;
    return {path.string(), fs::exists(path, ec)};
  }

  ImageLabels read(const fs::path& image, const std::string& /*rel*/, int width, int height) const override {
    ImageLabels labels;
    labels.width = width;
    labels.height = height;
    const fs::path path = dota_path_for(image);
    std::error_code ec;
    if (!fs::exists(path, ec)) return labels;
    std::vector<std::uint8_t> bytes;
    try {
      bytes = read_file(path);
    } catch (const InputError& e) {
      throw InputError(path.string() + ": " + e.what());
    }
    const std::string text(bytes.begin(), bytes.end());
    auto header = nlohmann::json::array();
    std::size_t at = 0;
    for (int line = 1; at < text.size(); ++line) {
      std::size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      std::string_view row(text.data() + at, end - at);
      at = end + 1;
      if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
      const std::vector<std::string> t = dota_split(row);
      if (t.empty()) continue;
      if (labels.objects.empty() && t[0].find(':') != std::string::npos) {  // imagesource:..., gsd:...
        header.push_back(std::string(row));
        continue;
      }
      if (t.size() < 9 || t.size() > 10)
        throw InputError(path.string() + ":" + std::to_string(line) +
                         ": expected x1 y1 x2 y2 x3 y3 x4 y4 category [difficult], found " + std::to_string(t.size()) +
                         " values");
      Object o;
      Polygon corners;
      for (int i = 0; i < 8; i += 2) {
        double x = 0, y = 0;
        if (!parse_finite_double(t[static_cast<std::size_t>(i)], x) ||
            !parse_finite_double(t[static_cast<std::size_t>(i) + 1], y))
          throw InputError(path.string() + ":" + std::to_string(line) + ": corner " + std::to_string(i / 2 + 1) +
                           " is not a pair of numbers");
        corners.push_back({x, y});
      }
      o.name = t[8];
      o.category = category_of(o.name);
      o.extra[kDotaDifficult] = t.size() == 10 ? t[9] : std::string();
      auto tokens = nlohmann::json::array();
      for (const std::string& s : t) tokens.push_back(s);
      o.extra[kDotaTokens] = std::move(tokens);
      Box b{corners[0].x, corners[0].y, corners[0].x, corners[0].y};
      for (const Point& p : corners) {
        b.x0 = std::min(b.x0, p.x), b.y0 = std::min(b.y0, p.y);
        b.x1 = std::max(b.x1, p.x), b.y1 = std::max(b.y1, p.y);
      }
      o.box = b;
      o.polygons.push_back(std::move(corners));
      o.oriented = true;
      labels.objects.push_back(std::move(o));
    }
    labels.extra[kDotaHeader] = std::move(header);
    return labels;
  }

  fs::path output_path(const fs::path& output_root, const std::string& out_rel) const override {
    return output_label_path(output_root, out_rel, &dota_path_for);
  }

  void write(const fs::path& output_root, const std::string& out_rel, const ImageLabels& labels) override {
    const fs::path path = output_path(output_root, out_rel);
    std::string out;
    if (auto h = labels.extra.find(kDotaHeader); h != labels.extra.end() && h->is_array())
      for (const auto& line : *h) out += line.get<std::string>() + "\n";
    for (const Object& o : labels.objects) {
      std::string row;
      const auto tokens = o.extra.find(kDotaTokens);
      if (!labels.moved && tokens != o.extra.end() && tokens->is_array()) {
        for (const auto& t : *tokens) {
          if (!row.empty()) row += ' ';
          row += t.get<std::string>();
        }
      } else {
        Polygon corners;
        if (o.polygons.size() == 1 && o.polygons[0].size() == 4) corners = o.polygons[0];
        else if (o.box) corners = {{o.box->x0, o.box->y0}, {o.box->x1, o.box->y0}, {o.box->x1, o.box->y1}, {o.box->x0, o.box->y1}};
        if (corners.empty()) continue;
        for (const Point& p : corners) {
          if (!row.empty()) row += ' ';
          row += dota_pixel(p.x);
          row += ' ';
          row += dota_pixel(p.y);
        }
        row += ' ';
        row += o.name.empty() ? std::to_string(o.category) : o.name;
        const auto d = o.extra.find(kDotaDifficult);
        const std::string difficult = d != o.extra.end() && d->is_string() ? d->get<std::string>() : "0";
        if (!difficult.empty()) {
          row += ' ';
          row += difficult;
        }
      }
      out += row + "\n";
    }
    write_file_atomic(path, out.data(), out.size());
  }

  void finish(const fs::path& /*output_root*/) override {}

 private:
  // The run's category ids: each name's index in the order names are first met (DOTA names its
  // classes; the ids only key what the run reports).
  int category_of(const std::string& name) const {
    std::lock_guard lk(m_);
    for (std::size_t i = 0; i < names_.size(); ++i)
      if (names_[i] == name) return static_cast<int>(i);
    names_.push_back(name);
    return static_cast<int>(names_.size() - 1);
  }

  FormatOptions options_;
  mutable std::mutex m_;
  mutable std::vector<std::string> names_;
};

}  // namespace

std::unique_ptr<Format> make_dota_format(const FormatOptions& options) { return std::make_unique<DotaFormat>(options); }

}  // namespace aug::labels
