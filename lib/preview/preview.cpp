#include "lib/preview/preview.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <numeric>
#include <sstream>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "lib/core/error.hpp"
#include "lib/io/cv_bridge.hpp"
#include "lib/io/probe.hpp"
#include "lib/datasets/apply.hpp"
#include "lib/datasets/format.hpp"
#include "lib/datasets/masks.hpp"
#include "lib/io/files.hpp"
#include "lib/run/jobs.hpp"
#include "lib/run/runner.hpp"

namespace aug {

namespace {

using nlohmann::json;

// ---- captions -----------------------------------------------------------------------------------

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string value_text(const json& v) {
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  if (v.is_number()) return number_text(v.get<double>());
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_array()) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) s += ' ';
      s += value_text(v[i]);
    }
    return s + "]";
  }
  if (v.is_object() && v.contains("op")) {  // a policy's operation: its name and magnitude
    std::string s = v["op"].get<std::string>();
    const json m = v.value("magnitude", json());
    const bool no_magnitude = !v.contains("params") || v["params"].empty();
    if (m.is_number() && !no_magnitude) s += "(" + number_text(m.get<double>()) + ")";
    return s;
  }
  if (v.is_object()) {
    std::string s = "{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.value().is_null()) continue;
      if (!first) s += ' ';
      first = false;
      s += it.key();
      s += '=';
      s += value_text(it.value());
    }
    return s + "}";
  }
  return v.dump();
}

// Where the plan's record says a stage ran.
bool fired(const json& e) { return e.contains("stage") && !e.value("skipped", false) && e.contains("params"); }

// ---- encoding -----------------------------------------------------------------------------------

std::string base64(const std::vector<std::uint8_t>& b) {
  static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s;
  s.reserve((b.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < b.size(); i += 3) {
    const std::uint32_t n = (std::uint32_t{b[i]} << 16) | (i + 1 < b.size() ? std::uint32_t{b[i + 1]} << 8 : 0) |
                            (i + 2 < b.size() ? std::uint32_t{b[i + 2]} : 0);
    s += k[(n >> 18) & 63];
    s += k[(n >> 12) & 63];
    s += i + 1 < b.size() ? k[(n >> 6) & 63] : '=';
    s += i + 2 < b.size() ? k[n & 63] : '=';
  }
  return s;
}

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '&') o += "&amp;";
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else if (c == '"') o += "&quot;";
    else o += c;
  }
  return o;
}

// An 8-bit RGB(A) copy for drawing and display (gray expanded, 16-bit and float converted).
Image display_rgb(const Image& in) {
  const Image u8 = in.dtype() == DType::U8 ? in : to_u8(in);
  if (u8.channels() >= 3) return u8;
  Image out({u8.width(), u8.height(), 3, DType::U8});
  for (int y = 0; y < u8.height(); ++y)
    for (int x = 0; x < u8.width(); ++x)
      for (int c = 0; c < 3; ++c) out.row(y)[x * 3 + c] = u8.row(y)[x * u8.channels()];
  return out;
}

// A label map coloured for an overlay: class 0 transparent, others a fixed colour each; 255 gray.
Image mask_overlay(const Image& mask) {
  Image out({mask.width(), mask.height(), 4, DType::U8});
  for (int y = 0; y < mask.height(); ++y)
    for (int x = 0; x < mask.width(); ++x) {
      const unsigned v = mask.dtype() == DType::U8 ? mask.row(y)[x * mask.channels()]
                                                   : reinterpret_cast<const std::uint16_t*>(mask.row(y))[x * mask.channels()];
      std::uint8_t* d = out.row(y) + x * 4;
      if (v == 0) {
        d[0] = d[1] = d[2] = d[3] = 0;
      } else if (v == 255) {
        d[0] = d[1] = d[2] = 200, d[3] = 140;
      } else {
        d[0] = static_cast<std::uint8_t>((v * 97u) % 256), d[1] = static_cast<std::uint8_t>((v * 57u + 80) % 256);
        d[2] = static_cast<std::uint8_t>((v * 151u + 160) % 256), d[3] = 120;
      }
    }
  return out;
}

// A colour per category, the same in both sheets.
std::array<int, 3> category_colour(int category) {
  static const std::array<int, 3> k[] = {{230, 25, 75},  {60, 180, 75},  {255, 225, 25}, {0, 130, 200},
                                         {245, 130, 48}, {145, 30, 180}, {70, 240, 240}, {240, 50, 230}};
  return k[static_cast<std::size_t>(std::abs(category)) % 8];
}

// Black or white, whichever reads better on a category's colour.
bool dark_text_on(const std::array<int, 3>& c) { return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2] > 150; }

std::string css_colour(const std::array<int, 3>& c) {
  return "rgb(" + std::to_string(c[0]) + "," + std::to_string(c[1]) + "," + std::to_string(c[2]) + ")";
}

// What a drawn object is called: its class name where the format has one (VOC, COCO), else its id.
std::string class_text(const labels::Object& obj) { return obj.name.empty() ? std::to_string(obj.category) : obj.name; }

// A tile's object count: those its labels keep and, when the label rules dropped any, how many.
std::string objects_text(std::size_t kept, std::size_t dropped) {
  std::string s = std::to_string(kept) + (kept == 1 ? " object" : " objects");
  if (dropped) s += ", " + std::to_string(dropped) + " dropped";
  return s;
}

struct Tile {
  std::string title;                     // "original" or "copy k"
  std::vector<std::string> lines;        // the stages that fired
  std::string objects;                   // with labels: objects_text
  Image image;                           // as run produces it
  std::vector<std::uint8_t> bytes;       // as run writes it (HTML)
  std::string mime;
  std::optional<labels::ImageLabels> labels;
  std::optional<Image> mask;
};

struct Row {
  std::string rel;
  std::vector<Tile> tiles;
};

// ---- the two sheets -----------------------------------------------------------------------------

std::string svg_labels(const labels::ImageLabels& l, int w, int h) {
  std::ostringstream o;
  o << "<svg viewBox=\"0 0 " << w << " " << h << "\" preserveAspectRatio=\"none\">";
  for (const auto& obj : l.objects) {
    const std::string colour = css_colour(category_colour(obj.category));
    for (const auto& poly : obj.polygons) {
      o << "<polygon fill=\"" << colour << "\" fill-opacity=\"0.25\" stroke=\"" << colour << "\" points=\"";
      for (const auto& p : poly) o << p.x << "," << p.y << " ";
      o << "\"/>";
    }
    if (obj.box)
      o << "<rect x=\"" << obj.box->x0 << "\" y=\"" << obj.box->y0 << "\" width=\"" << obj.box->width() << "\" height=\""
        << obj.box->height() << "\" fill=\"none\" stroke=\"" << colour << "\"/>";
    for (const auto& k : obj.keypoints)
      if (k.v > 0) o << "<circle cx=\"" << k.x << "\" cy=\"" << k.y << "\" r=\"" << std::max(2, w / 120) << "\" fill=\"" << colour << "\"/>";
  }
  o << "</svg>";
  return o.str();
}

// A class tag at each box's top-left corner, as HTML over the tile so that its text keeps a readable
// size whatever the image's (SVG text would scale with the tile).
std::string html_tags(const labels::ImageLabels& l, int w, int h) {
  std::ostringstream o;
  for (const auto& obj : l.objects) {
    if (!obj.box) continue;
    const auto c = category_colour(obj.category);
    o << "<span class=\"tag\" style=\"left:" << std::clamp(100 * obj.box->x0 / w, 0.0, 100.0)
      << "%;top:" << std::clamp(100 * obj.box->y0 / h, 0.0, 100.0) << "%;background:" << css_colour(c)
      << (dark_text_on(c) ? ";color:#000" : ";color:#fff") << "\">" << html_escape(class_text(obj)) << "</span>";
  }
  return o.str();
}

std::string html_sheet(const std::vector<Row>& rows, const PreviewOptions& o, const std::string& pipeline_name,
                       std::uint64_t seed, const std::string& device) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>augment preview: " << html_escape(pipeline_name)
    << "</title>\n<style>\n"
       "body{font:13px system-ui,sans-serif;margin:16px;background:#fafafa;color:#222}\n"
       "h1{font-size:18px;margin:0 0 4px} .meta{color:#666;margin-bottom:16px}\n"
       ".row{display:flex;flex-wrap:wrap;gap:10px;margin-bottom:22px;align-items:flex-start}\n"
       ".name{width:100%;font-weight:600}\n"
       "figure{margin:0;width:220px;background:#fff;border:1px solid #ddd;border-radius:4px;padding:6px}\n"
       ".pic{position:relative} .pic img{width:100%;height:auto;display:block}\n"
       ".pic svg,.pic .mask{position:absolute;left:0;top:0;width:100%;height:100%}\n"
       ".pic svg{stroke-width:0.6%;vector-effect:non-scaling-stroke} .pic{overflow:hidden}\n"
       ".tag{position:absolute;font:600 10px/1.2 system-ui,sans-serif;padding:0 2px;white-space:nowrap}\n"
       ".objects{font-weight:600}\n"
       "figcaption{font-size:11px;line-height:1.35;margin-top:4px;word-break:break-word}\n"
       "figcaption b{display:block;font-size:12px} .none{color:#999}\n"
       "</style></head><body>\n";
  h << "<h1>" << html_escape(pipeline_name) << "</h1>\n<div class=\"meta\">seed " << seed << ", " << o.variants
    << " variants per image (copy 0.." << (o.variants ? o.variants - 1 : 0) << " of <code>augment run --copies "
    << o.variants << "</code>), device " << html_escape(device) << "</div>\n";
  for (const Row& r : rows) {
    h << "<div class=\"row\"><div class=\"name\">" << html_escape(r.rel) << "</div>\n";
    for (const Tile& t : r.tiles) {
      const int w = t.image.width(), hh = t.image.height();
      h << "<figure><div class=\"pic\"><img alt=\"" << html_escape(t.title) << "\" width=\"" << w << "\" height=\"" << hh
        << "\" src=\"data:" << t.mime << ";base64," << base64(t.bytes) << "\">";
      if (t.mask) {
        const Encoded m = encode_image(mask_overlay(*t.mask), Format::Png, {});
        h << "<img class=\"mask\" alt=\"mask\" src=\"data:image/png;base64," << base64(m.bytes) << "\">";
      }
      if (t.labels) h << svg_labels(*t.labels, w, hh) << html_tags(*t.labels, w, hh);
      h << "</div><figcaption><b>" << html_escape(t.title) << " · " << w << "x" << hh << "</b>";
      if (!t.objects.empty()) h << "<div class=\"objects\">" << t.objects << "</div>";
      if (t.lines.empty()) h << "<span class=\"none\">" << (t.title == "original" ? "input" : "no stage fired") << "</span>";
      for (const auto& l : t.lines) h << html_escape(l) << "<br>";
      h << "</figcaption></figure>\n";
    }
    h << "</div>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

// Word-wrapped lines of at most `width` characters.
std::vector<std::string> wrap(const std::string& s, std::size_t width) {
  std::vector<std::string> out;
  std::string line;
  std::istringstream words(s);
  std::string w;
  while (words >> w) {
    if (!line.empty() && line.size() + 1 + w.size() > width) {
      out.push_back(line);
      line.clear();
    }
    while (w.size() > width) {
      out.emplace_back(w, 0, width);
      w.erase(0, width);
    }
    if (!line.empty()) line += ' ';
    line += w;
  }
  if (!line.empty()) out.push_back(line);
  return out;
}

Image png_sheet(const std::vector<Row>& rows) {
  constexpr int kTile = 200, kPad = 8, kLine = 13, kChars = 30;
  const double font = 0.36;
  std::size_t columns = 0;
  for (const Row& r : rows) columns = std::max(columns, r.tiles.size());
  // Caption heights per row, then the canvas.
  std::vector<int> caption(rows.size(), 0);
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (const Tile& t : rows[i].tiles) {
      int n = t.objects.empty() ? 1 : 2;
      for (const auto& l : t.lines) n += static_cast<int>(wrap(l, kChars).size());
      caption[i] = std::max(caption[i], n * kLine + 4);
    }
  const int width = static_cast<int>(columns) * (kTile + kPad) + kPad;
  int height = kPad;
  for (std::size_t i = 0; i < rows.size(); ++i) height += kLine + 4 + kTile + caption[i] + kPad;
  cv::Mat sheet(height, width, CV_8UC3, cv::Scalar(250, 250, 250));
  int y = kPad;
  const auto text = [&](const std::string& s, int x, int yy, cv::Scalar c) {
    cv::putText(sheet, s, cv::Point(x, yy), cv::FONT_HERSHEY_SIMPLEX, font, c, 1, cv::LINE_AA);
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    text(rows[i].rel, kPad, y + kLine - 2, cv::Scalar(20, 20, 20));
    y += kLine + 4;
    int x = kPad;
    for (const Tile& t : rows[i].tiles) {
      const Image rgb = display_rgb(t.image);
      cv::Mat m = as_mat(rgb.ref()).clone();
      if (m.channels() == 4) cv::cvtColor(m, m, cv::COLOR_RGBA2RGB);
      if (t.mask) {
        const Image ov = mask_overlay(*t.mask);
        const cv::Mat om = as_mat(ov.ref());
        for (int yy = 0; yy < m.rows && yy < om.rows; ++yy)
          for (int xx = 0; xx < m.cols && xx < om.cols; ++xx) {
            const auto* o = om.ptr<std::uint8_t>(yy) + xx * 4;
            auto* p = m.ptr<std::uint8_t>(yy) + xx * 3;
            for (int c = 0; c < 3; ++c) p[c] = static_cast<std::uint8_t>((p[c] * (255 - o[3]) + o[c] * o[3]) / 255);
          }
      }
      const double s = std::min(static_cast<double>(kTile) / m.cols, static_cast<double>(kTile) / m.rows);
      cv::Mat small;
      cv::resize(m, small, cv::Size(std::max(1, static_cast<int>(m.cols * s)), std::max(1, static_cast<int>(m.rows * s))),
                 0, 0, cv::INTER_AREA);
      if (t.labels)
        for (const auto& obj : t.labels->objects) {
          const auto c = category_colour(obj.category);
          const cv::Scalar colour(c[0], c[1], c[2]);  // the sheet is RGB until written
          for (const auto& poly : obj.polygons) {
            std::vector<cv::Point> pts;
            for (const auto& p : poly) pts.emplace_back(static_cast<int>(p.x * s), static_cast<int>(p.y * s));
            cv::polylines(small, pts, true, colour, 1, cv::LINE_AA);
          }
          if (obj.box)
            cv::rectangle(small, cv::Point(static_cast<int>(obj.box->x0 * s), static_cast<int>(obj.box->y0 * s)),
                          cv::Point(static_cast<int>(obj.box->x1 * s), static_cast<int>(obj.box->y1 * s)), colour, 1);
          for (const auto& k : obj.keypoints)
            if (k.v > 0) cv::circle(small, cv::Point(static_cast<int>(k.x * s), static_cast<int>(k.y * s)), 2, colour, -1);
        }
      if (t.labels)  // the class tags after every box, so that no box crosses a tag
        for (const auto& obj : t.labels->objects) {
          if (!obj.box) continue;
          const auto c = category_colour(obj.category);
          const std::string name = class_text(obj);
          int base = 0;
          const cv::Size size = cv::getTextSize(name, cv::FONT_HERSHEY_SIMPLEX, font, 1, &base);
          const int w = size.width + 2, h = size.height + base + 2;
          const int tx = std::clamp(static_cast<int>(obj.box->x0 * s), 0, std::max(0, small.cols - w));
          const int ty = std::clamp(static_cast<int>(obj.box->y0 * s), 0, std::max(0, small.rows - h));
          cv::rectangle(small, cv::Rect(tx, ty, w, h), cv::Scalar(c[0], c[1], c[2]), cv::FILLED);
          const int ink = dark_text_on(c) ? 0 : 255;
          cv::putText(small, name, cv::Point(tx + 1, ty + 1 + size.height), cv::FONT_HERSHEY_SIMPLEX, font,
                      cv::Scalar(ink, ink, ink), 1, cv::LINE_AA);
        }
      cv::cvtColor(small, small, cv::COLOR_RGB2BGR);
      small.copyTo(sheet(cv::Rect(x, y, small.cols, small.rows)));
      int ty = y + kTile + kLine;
      text(t.title + "  " + std::to_string(t.image.width()) + "x" + std::to_string(t.image.height()), x, ty,
           cv::Scalar(0, 0, 0));
      if (!t.objects.empty()) text(t.objects, x, ty += kLine, cv::Scalar(0, 0, 0));
      for (const auto& l : t.lines)
        for (const auto& part : wrap(l, kChars)) text(part, x, ty += kLine, cv::Scalar(70, 70, 70));
      x += kTile + kPad;
    }
    y += kTile + caption[i] + kPad;
  }
  cv::cvtColor(sheet, sheet, cv::COLOR_BGR2RGB);  // back to the tool's RGB order for the encoder
  Image out({sheet.cols, sheet.rows, 3, DType::U8});
  for (int r = 0; r < sheet.rows; ++r) std::copy_n(sheet.ptr<std::uint8_t>(r), sheet.cols * 3, out.row(r));
  return out;
}

}  // namespace

std::string caption_line(const json& e) {
  std::string s = e.value("stage", std::string("?"));
  const json& p = e.contains("params") ? e["params"] : json::object();
  bool first = true;
  for (auto it = p.begin(); it != p.end(); ++it) {
    // Nulls (a factor left out) and long numeric lists (a warp's matrix) say little at a glance.
    if (it.value().is_null() || (it.value().is_array() && it.value().size() > 4 && it.value()[0].is_number())) continue;
    s += first ? " " : ", ";
    s += it.key();
    s += '=';
    s += value_text(it.value());
    first = false;
  }
  return s;
}

PreviewSummary preview(const Pipeline& pipeline, const PreviewOptions& o) {
  const std::string ext = o.output.extension().string();
  const bool html = ext == ".html" || ext == ".htm";
  if (!html && ext != ".png") throw UsageError("preview: -o " + o.output.string() + ": write a .html or a .png sheet");
  if (o.images == 0 || o.variants == 0) throw UsageError("preview: --images and --variants must be at least 1");
  std::vector<InputFile> inputs = list_inputs(o.input);
  if (inputs.empty()) throw UsageError("preview: no images under " + o.input.string());
  if (inputs.size() > o.images) inputs.resize(o.images);

  const std::uint64_t seed = effective_seed(pipeline, o.seed);
  const std::unique_ptr<Backend> backend = open_backend(o.device, 1);
  const labels::LabelRules& rules = pipeline.label_rules();
  const std::unique_ptr<labels::Format> format =
      o.labels.empty() ? nullptr : labels::make_format(o.labels, {o.variants, rules.keypoints, rules.keypoint_dims});
  const std::unique_ptr<labels::MaskFolder> masks =
      o.masks ? std::make_unique<labels::MaskFolder>(*o.masks, o.mask_suffix) : nullptr;

  std::vector<Row> rows;
  PreviewSummary summary;
  summary.device = backend->name();
  for (const InputFile& in : inputs) {
    const std::vector<std::uint8_t> bytes = read_file(in.path());
    const Image image = decode_image(bytes.data(), bytes.size(), o.decode);
    std::optional<labels::ImageLabels> input_labels;
    if (format) input_labels = format->read(in.path(), in.rel, image.width(), image.height());
    std::optional<labels::Mask> input_mask;
    if (masks) {
      const auto file = masks->find(in.rel);
      if (!file) throw InputError(in.path() + ": its mask " + masks->path_for(in.rel).string() + " is missing");
      input_mask = labels::read_mask(*file);
    }
    // The format run writes (the input's; TIFF and BMP, which browsers do not show, as PNG here).
    Format f = format_for_extension(fs::path(in.path()).extension().string()).value_or(Format::Png);
    if (html && (f == Format::Tiff || f == Format::Bmp)) f = Format::Png;
    const std::string mime = f == Format::Jpeg ? "image/jpeg" : f == Format::Webp ? "image/webp" : "image/png";

    Row row{in.rel, {}};
    Tile original{"original", {}, {}, image, bytes, mime, input_labels, {}};
    if (input_labels) original.objects = objects_text(input_labels->objects.size(), 0);
    if (input_mask) original.mask = input_mask->image;
    if (html && (f != format_for_extension(fs::path(in.path()).extension().string()))) original.bytes = encode_image(image, f, {o.quality}).bytes;
    row.tiles.push_back(std::move(original));
    // The copies start from what run decodes: with shrink-on-load (and no labels or masks, which
    // turn it off there too), the image decoded smaller.
    Image source = image;
    if (pipeline.decode_rules().shrink && !format && !masks) {
      std::vector<std::uint32_t> copies(o.variants);
      std::iota(copies.begin(), copies.end(), 0u);
      source = decode_image(bytes.data(), bytes.size(), pipeline.decode_options(o.decode, seed, in.rel, copies, true, false));
    }  // (run's region decode changes no output: the copies here start from the whole image)
    for (std::uint32_t copy = 0; copy < o.variants; ++copy) {
      const Plan plan = pipeline.plan(seed, in.rel, copy, source.shape(),
                                      DrawInputs{input_labels ? &*input_labels : nullptr,
                                                 input_mask ? &input_mask->image : nullptr});
      Tile t{"copy " + std::to_string(copy), {}, {}, backend->run(plan, source, 0), {}, mime, {}, {}};
      for (const json& e : plan.record)
        if (fired(e)) t.lines.push_back(caption_line(e));
      if (html) t.bytes = encode_image(t.image, f, EncodeOptions{o.quality}).bytes;
      if (input_labels) {
        t.labels = *input_labels;
        const labels::LabelCounts n = labels::move_plan_labels(plan, *t.labels, rules, *backend, 0);
        t.objects = objects_text(n.kept, n.dropped());
      }
      if (input_mask) t.mask = labels::move_mask(plan, input_mask->image, rules.mask_fill, *backend, 0);
      row.tiles.push_back(std::move(t));
      ++summary.tiles;
    }
    rows.push_back(std::move(row));
    ++summary.images;
  }
  if (html) {
    const std::string page = html_sheet(rows, o, pipeline.source(), seed, summary.device);
    write_file_atomic(o.output, page.data(), page.size());
  } else {
    const Encoded png = encode_image(png_sheet(rows), Format::Png, {});
    write_file_atomic(o.output, png.bytes.data(), png.bytes.size());
  }
  return summary;
}

}  // namespace aug
