// Pascal VOC XML labels: one annotation file per image.
//
// The annotation of an image is found by replacing the last folder named `JPEGImages` (or, if
// there is none, `images`) with `Annotations` and the extension with .xml; without either
// folder the .xml lies beside the image. Boxes are 1-based inclusive pixel corners:
// <xmin>, <ymin>, <xmax>, <ymax> become the model box (xmin - 1, ymin - 1, xmax, ymax).
//
// The writer edits the document it read instead of generating a new one: everything stays
// byte for byte as it was (declaration, comments, indentation, <source>, <owner>, <part>, the
// objects' <pose>, <truncated>, <difficult> and other children) except the values that change:
// <size>'s <width> and <height>, <filename>, each kept object's <name> and <bndbox> numbers,
// and the <object> elements of dropped objects. The document travels in ImageLabels::extra
// from read() to write(); each object carries the ordinal of its <object> element.
//
// A small XML parser, enough for annotation files: elements, attributes, character data,
// entity and character references, CDATA, comments, processing instructions (the <?xml ...?>
// declaration) and a DOCTYPE; malformed input throws InputError naming the file and line.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"
#include "lib/datasets/format.hpp"
#include "lib/io/files.hpp"

namespace aug::labels {
namespace {

namespace fs = std::filesystem;

constexpr const char* kXml = "voc_xml";        // ImageLabels::extra: the document as read
constexpr const char* kSource = "voc_source";  // ImageLabels::extra: the file it was read from
constexpr const char* kObject = "voc_object";  // Object::extra: ordinal of the <object> element
constexpr const char* kParts = "voc_parts";    // Object::extra: <part> names and boxes (not transformed)

// ---------------------------------------------------------------------------------------------
// XML

struct Node {
  std::string name;
  std::size_t start = 0, end = 0;                      // the whole element: [start, end)
  std::size_t content_begin = 0, content_end = 0;      // between the tags (empty when self-closing)
  bool self_closing = false;
  bool has_markup = false;                             // content holds comments, CDATA or PIs
  std::vector<std::size_t> children;                   // indices into Document::nodes
  std::string text;                                    // decoded character data of direct children
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

bool is_name_start(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || u >= 0x80;
}

bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else out += c;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

class Document {
 public:
  Document(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {
    for (std::size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') newlines_.push_back(i);
    parse();
  }

  const Node& root() const { return nodes_[root_]; }
  const Node& node(std::size_t i) const { return nodes_[i]; }
  std::string_view text() const { return text_; }

  const Node* child(const Node& parent, std::string_view name) const {
    for (std::size_t c : parent.children)
      if (nodes_[c].name == name) return &nodes_[c];
    return nullptr;
  }

  int line_of(std::size_t offset) const {
    // 1 + the newlines before `offset`
    return static_cast<int>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin()) + 1;
  }

  [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
    throw InputError(source_ + ":" + std::to_string(line_of(std::min(offset, text_.size()))) + ": " + what);
  }

 private:
  bool at(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  void skip_space() {
    while (pos_ < text_.size() && is_space(text_[pos_])) ++pos_;
  }

  // Skips past `terminator`, which must follow; returns where it starts.
  std::size_t skip_to(std::string_view terminator, const char* what) {
    const std::size_t found = text_.find(terminator, pos_);
    if (found == std::string_view::npos) fail(pos_, std::string("unterminated ") + what);
    pos_ = found + terminator.size();
    return found;
  }

  std::string read_name() {
    if (pos_ >= text_.size() || !is_name_start(text_[pos_])) fail(pos_, "expected a name");
    const std::size_t b = pos_;
    while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
    return std::string(text_.substr(b, pos_ - b));
  }

  // Decodes an entity or character reference at pos_ ('&') into `out`.
  void reference(std::string& out) {
    const std::size_t amp = pos_;
    const std::size_t semi = text_.find(';', pos_);
    if (semi == std::string_view::npos || semi - pos_ > 12) fail(amp, "'&' that starts no entity (write &amp;)");
    const std::string_view ref = text_.substr(pos_ + 1, semi - pos_ - 1);
    pos_ = semi + 1;
    if (ref == "lt") out += '<';
    else if (ref == "gt") out += '>';
    else if (ref == "amp") out += '&';
    else if (ref == "quot") out += '"';
    else if (ref == "apos") out += '\'';
    else if (ref.size() >= 2 && ref[0] == '#') {
      const bool hex = ref[1] == 'x' || ref[1] == 'X';
      const std::string_view digits = ref.substr(hex ? 2 : 1);
      unsigned long cp = 0;
      const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
      if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || cp == 0 || cp > 0x10FFFF)
        fail(amp, "bad character reference &" + std::string(ref) + ";");
      append_utf8(out, cp);
    } else {
      fail(amp, "unknown entity &" + std::string(ref) + ";");
    }
  }

  void skip_doctype() {
    // <!DOCTYPE name ... [ internal subset ]>
    int depth = 0;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '[') ++depth;
      else if (c == ']') --depth;
      else if (c == '>' && depth <= 0) return;
    }
    fail(pos_, "unterminated <!DOCTYPE");
  }

  // A start tag at pos_ ('<'); returns the new node's index.
  std::size_t start_tag() {
    Node n;
    n.start = pos_;
    ++pos_;
    n.name = read_name();
    std::vector<std::string> attr_names;
    while (true) {
      const std::size_t before = pos_;
      skip_space();
      if (pos_ >= text_.size()) fail(n.start, "unterminated <" + n.name + "> tag");
      if (text_[pos_] == '>') {
        ++pos_;
        break;
      }
      if (at("/>")) {
        pos_ += 2;
        n.self_closing = true;
        break;
      }
      if (pos_ == before) fail(pos_, "expected whitespace before an attribute in <" + n.name + ">");
      const std::string attr = read_name();
      if (std::find(attr_names.begin(), attr_names.end(), attr) != attr_names.end())
        fail(pos_, "attribute " + attr + " repeated in <" + n.name + ">");
      attr_names.push_back(attr);
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '=') fail(pos_, "expected '=' after attribute " + attr);
      ++pos_;
      skip_space();
      if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\''))
        fail(pos_, "expected a quoted value for attribute " + attr);
      const char quote = text_[pos_++];
      std::string value;
      while (true) {
        if (pos_ >= text_.size()) fail(n.start, "unterminated value of attribute " + attr);
        const char c = text_[pos_];
        if (c == quote) {
          ++pos_;
          break;
        }
        if (c == '<') fail(pos_, "'<' in the value of attribute " + attr);
        if (c == '&') reference(value);
        else {
          value += c;
          ++pos_;
        }
      }
    }
    n.content_begin = n.content_end = pos_;
    if (n.self_closing) n.end = pos_;
    nodes_.push_back(std::move(n));
    return nodes_.size() - 1;
  }

  void parse() {
    if (at("\xEF\xBB\xBF")) pos_ += 3;  // UTF-8 byte order mark
    bool have_root = false;
    std::vector<std::size_t> open;  // elements whose end tag is still to come
    while (true) {
      if (open.empty()) {
        skip_space();
        if (pos_ >= text_.size()) break;
        if (text_[pos_] != '<') fail(pos_, have_root ? "text after the root element" : "text before the root element");
      }
      if (pos_ >= text_.size()) fail(pos_, "end of file inside <" + nodes_[open.back()].name + ">");

      if (text_[pos_] != '<') {  // character data
        Node& top = nodes_[open.back()];
        while (pos_ < text_.size() && text_[pos_] != '<') {
          if (text_[pos_] == '&') reference(top.text);
          else top.text += text_[pos_++];
        }
        continue;
      }
      if (at("<?")) {
        pos_ += 2;
        skip_to("?>", "processing instruction");
        if (!open.empty()) nodes_[open.back()].has_markup = true;
        continue;
      }
      if (at("<!--")) {
        pos_ += 4;
        skip_to("-->", "comment");
        if (!open.empty()) nodes_[open.back()].has_markup = true;
        continue;
      }
      if (at("<![CDATA[")) {
        if (open.empty()) fail(pos_, "CDATA outside the root element");
        const std::size_t b = pos_ + 9;
        pos_ = b;
        const std::size_t e = skip_to("]]>", "CDATA section");
        Node& top = nodes_[open.back()];
        top.text.append(text_.substr(b, e - b));
        top.has_markup = true;
        continue;
      }
      if (at("<!DOCTYPE")) {
        if (!open.empty() || have_root) fail(pos_, "<!DOCTYPE> must come before the root element");
        skip_doctype();
        continue;
      }
      if (at("</")) {
        const std::size_t b = pos_;
        if (open.empty()) fail(b, "end tag without a start tag");
        pos_ += 2;
        const std::string name = read_name();
        skip_space();
        if (pos_ >= text_.size() || text_[pos_] != '>') fail(pos_, "expected '>' to end </" + name);
        ++pos_;
        Node& top = nodes_[open.back()];
        if (name != top.name) fail(b, "expected </" + top.name + ">, found </" + name + ">");
        top.content_end = b;
        top.end = pos_;
        open.pop_back();
        continue;
      }
      if (at("<!")) fail(pos_, "unsupported markup declaration");
      if (open.empty() && have_root) fail(pos_, "a second root element");
      const std::size_t idx = start_tag();
      if (open.empty()) {
        have_root = true;
        root_ = idx;
      } else {
        nodes_[open.back()].children.push_back(idx);
      }
      if (!nodes_[idx].self_closing) open.push_back(idx);
    }
    if (!have_root) fail(text_.size(), "no root element");
  }

  std::string_view text_;
  std::string source_;
  std::vector<std::size_t> newlines_;
  std::vector<Node> nodes_;
  std::size_t root_ = 0;
  std::size_t pos_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Paths and values

// `path` with its last folder named JPEGImages (or else images) replaced by Annotations and its
// extension by .xml. Only folders count: the file name itself is never replaced.
fs::path annotation_path_for(const fs::path& path) {
  std::vector<fs::path> parts(path.begin(), path.end());
  if (parts.empty()) return path;
  for (const char* folder : {"JPEGImages", "images"}) {
    bool replaced = false;
    for (std::size_t i = parts.size() - 1; i-- > 0;) {
      if (parts[i] == folder) {
        parts[i] = "Annotations";
        replaced = true;
        break;
      }
    }
    if (replaced) break;
  }
  fs::path out;
  for (const auto& p : parts) out /= p;
  out.replace_extension(".xml");
  return out;
}

bool parse_double(std::string_view token, double& out) { return parse_finite_double(trim(token), out); }

struct Edit {
  std::size_t begin, end;
  std::string text;
};

std::string apply(std::string_view text, std::size_t from, std::size_t to, std::vector<Edit> edits) {
  std::stable_sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  std::size_t at = from;
  for (const auto& e : edits) {
    if (e.begin < at || e.end > to) continue;  // overlapping or outside: never produced
    out.append(text.substr(at, e.begin - at));
    out += e.text;
    at = e.end;
  }
  out.append(text.substr(at, to - at));
  return out;
}

// An edit that makes a leaf element's value `value` (already escaped), keeping the whitespace
// around the old value.
Edit set_value(const Document& doc, const Node& n, const std::string& value) {
  if (n.self_closing) return {n.start, n.end, "<" + n.name + ">" + value + "</" + n.name + ">"};
  if (!n.children.empty() || n.has_markup) return {n.content_begin, n.content_end, value};
  std::size_t b = n.content_begin, e = n.content_end;
  const std::string_view t = doc.text();
  while (b < e && is_space(t[b])) ++b;
  while (e > b && is_space(t[e - 1])) --e;
  return {b, e, value};
}

std::string integer_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string decimal_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

// The new <xmin> <ymin> <xmax> <ymax> texts of a model box; `decimal[i]`: write that value with
// one decimal place (its old text had a decimal point) instead of rounding to whole pixels.
std::array<std::string, 4> bndbox_texts(const Box& box, int width, int height, const std::array<bool, 4>& decimal) {
  auto clamp_to = [](double v, int limit) {
    if (limit > 0) v = std::min(v, static_cast<double>(limit));
    return std::max(v, 1.0);
  };
  std::array<double, 4> v{};
  const double x0 = box.x0, y0 = box.y0, x1 = box.x1, y1 = box.y1;
  v[0] = clamp_to(decimal[0] ? x0 + 1 : std::round(x0) + 1, width);
  v[1] = clamp_to(decimal[1] ? y0 + 1 : std::round(y0) + 1, height);
  v[2] = std::max(clamp_to(decimal[2] ? x1 : std::round(x1), width), v[0]);
  v[3] = std::max(clamp_to(decimal[3] ? y1 : std::round(y1), height), v[1]);
  std::array<std::string, 4> out;
  for (int i = 0; i < 4; ++i) out[i] = decimal[i] ? decimal_text(v[i]) : integer_text(v[i]);
  return out;
}

constexpr std::array<const char*, 4> kCorners{"xmin", "ymin", "xmax", "ymax"};

std::string new_object_xml(const Object& object, int width, int height, const std::string& indent) {
  const std::string in1 = indent + indent, in2 = in1 + indent;
  std::string s = "<object>\n";
  s += in1 + "<name>" + escape(object.name) + "</name>\n";
  s += in1 + "<pose>Unspecified</pose>\n";
  s += in1 + "<truncated>0</truncated>\n";
  s += in1 + "<difficult>0</difficult>\n";
  if (object.box) {
    const auto v = bndbox_texts(*object.box, width, height, {false, false, false, false});
    s += in1 + "<bndbox>\n";
    for (int i = 0; i < 4; ++i) s += in2 + "<" + kCorners[i] + ">" + v[i] + "</" + kCorners[i] + ">\n";
    s += in1 + "</bndbox>\n";
  }
  s += indent + "</object>";
  return s;
}

// ---------------------------------------------------------------------------------------------

class VocFormat final : public Format {
 public:
  explicit VocFormat(const FormatOptions& options) : options_(options) {}

  std::string name() const override { return "voc"; }

  Source source(const fs::path& image, const std::string& /*rel*/) const override {
    const fs::path path = annotation_path_for(image);
    std::error_code ec;
    return {path.string(), fs::exists(path, ec)};
  }

  ImageLabels read(const fs::path& image, const std::string& /*rel*/, int width, int height) const override {
    ImageLabels labels;
    labels.width = width;
    labels.height = height;
    const fs::path path = annotation_path_for(image);
    std::error_code ec;
    if (!fs::exists(path, ec)) return labels;  // no annotation: an image without objects

    std::vector<std::uint8_t> bytes;
    try {
      bytes = read_file(path);
    } catch (const InputError& e) {
      throw InputError(path.string() + ": " + e.what());
    }
    std::string text(bytes.begin(), bytes.end());
    const Document doc(text, path.string());
    const Node& root = doc.root();
    if (root.name != "annotation")
      doc.fail(root.start, "expected an <annotation> root element, found <" + root.name + ">");

    std::size_t ordinal = 0;
    for (std::size_t c : root.children) {
      const Node& n = doc.node(c);
      if (n.name != "object") continue;
      Object object;
      object.extra[kObject] = ordinal++;
      if (const Node* name = doc.child(n, "name")) object.name = std::string(trim(name->text));
      if (const Node* bb = doc.child(n, "bndbox")) object.box = read_box(doc, *bb);
      auto parts = nlohmann::json::array();
      for (std::size_t k : n.children) {
        const Node& field = doc.node(k);
        if (field.name == "part") {
          nlohmann::json part = {{"name", ""}};
          if (const Node* pn = doc.child(field, "name")) part["name"] = std::string(trim(pn->text));
          if (const Node* pb = doc.child(field, "bndbox")) {
            const Box b = read_box(doc, *pb);
            part["box"] = {b.x0, b.y0, b.x1, b.y1};
          }
          parts.push_back(std::move(part));
        } else if (field.name != "name" && field.name != "bndbox" && field.children.empty() &&
                   !object.extra.contains(field.name)) {
          object.extra[field.name] = std::string(trim(field.text));  // pose, truncated, difficult, occluded, ...
        }
      }
      if (!parts.empty()) object.extra[kParts] = std::move(parts);
      labels.objects.push_back(std::move(object));
    }
    labels.extra[kSource] = path.string();
    labels.extra[kXml] = std::move(text);
    return labels;
  }

  fs::path output_path(const fs::path& output_root, const std::string& out_rel) const override {
    return output_label_path(output_root, out_rel, &annotation_path_for);
  }

  void write(const fs::path& output_root, const std::string& out_rel, const ImageLabels& labels) override {
    const fs::path path = output_path(output_root, out_rel);
    const std::string filename = fs::path(out_rel).filename().string();
    std::string out;
    auto xml = labels.extra.find(kXml);
    if (xml != labels.extra.end() && xml->is_string()) {
      std::string source = path.string();
      if (auto s = labels.extra.find(kSource); s != labels.extra.end() && s->is_string()) source = s->get<std::string>();
      out = edit(xml->get_ref<const std::string&>(), source, filename, labels);
    } else {
      out = fresh(filename, labels);
    }
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    if (ec) throw InputError("cannot create " + path.parent_path().string() + ": " + ec.message());
    write_file_atomic(path, out.data(), out.size());
  }

  void finish(const fs::path& /*output_root*/) override {}

 private:
  static Box read_box(const Document& doc, const Node& bndbox) {
    std::array<double, 4> v{};
    for (int i = 0; i < 4; ++i) {
      const Node* c = doc.child(bndbox, kCorners[i]);
      if (!c) doc.fail(bndbox.start, std::string("<bndbox> without <") + kCorners[i] + ">");
      if (!parse_double(c->text, v[i]))
        doc.fail(c->start, std::string("<") + kCorners[i] + "> is not a number: \"" + std::string(trim(c->text)) + "\"");
    }
    const Box box{v[0] - 1, v[1] - 1, v[2], v[3]};
    if (box.x1 < box.x0 || box.y1 < box.y0) doc.fail(bndbox.start, "<bndbox> with xmax < xmin or ymax < ymin");
    return box;
  }

  // The ordinal of the object's <object> element, if it came from one.
  static std::optional<std::size_t> ordinal(const Object& object) {
    auto it = object.extra.find(kObject);
    if (it == object.extra.end() || !it->is_number_integer() || it->get<long long>() < 0) return std::nullopt;
    return static_cast<std::size_t>(it->get<long long>());
  }

  // The edits that give `n` (an <object>) the model object's name and, once pixels moved, box.
  static void object_edits(const Document& doc, const Node& n, const Object& object, const ImageLabels& labels,
                           std::vector<Edit>& edits) {
    const Node* name = doc.child(n, "name");
    if (name && !object.name.empty() && std::string(trim(name->text)) != object.name)
      edits.push_back(set_value(doc, *name, escape(object.name)));
    const Node* bb = doc.child(n, "bndbox");
    if (!labels.moved || !bb || !object.box) return;
    std::array<const Node*, 4> corners{};
    std::array<bool, 4> decimal{};
    for (int i = 0; i < 4; ++i) {
      corners[i] = doc.child(*bb, kCorners[i]);
      if (!corners[i]) return;  // read() rejects this; a document changed in between is left alone
      decimal[i] = corners[i]->text.find('.') != std::string::npos;
    }
    const auto v = bndbox_texts(*object.box, labels.width, labels.height, decimal);
    for (int i = 0; i < 4; ++i) edits.push_back(set_value(doc, *corners[i], v[i]));
  }

  static std::string edit(const std::string& text, const std::string& source, const std::string& filename,
                          const ImageLabels& labels) {
    const Document doc(text, source);
    const Node& root = doc.root();
    std::vector<Edit> edits;

    // <filename> follows the output image's file name when that differs (another extension or
    // name after --format or renaming); otherwise it stays as it was.
    if (const Node* f = doc.child(root, "filename"); f && !filename.empty() && std::string(trim(f->text)) != filename)
      edits.push_back(set_value(doc, *f, escape(filename)));
    if (const Node* size = doc.child(root, "size")) {
      for (const auto& [tag, value] : {std::pair{"width", labels.width}, std::pair{"height", labels.height}}) {
        const Node* n = doc.child(*size, tag);
        double old = 0;
        if (n && value > 0 && !(parse_double(n->text, old) && old == value))
          edits.push_back(set_value(doc, *n, std::to_string(value)));
      }
    }

    std::vector<const Node*> xml_objects;
    for (std::size_t c : root.children)
      if (doc.node(c).name == "object") xml_objects.push_back(&doc.node(c));
    std::vector<const Object*> kept(xml_objects.size(), nullptr);
    std::vector<const Object*> added;
    for (const auto& object : labels.objects) {
      const auto ord = ordinal(object);
      if (ord && *ord < kept.size() && !kept[*ord])
        kept[*ord] = &object;
      else
        added.push_back(&object);  // a new object, or a second copy of one
    }

    std::string indent = "\t";
    for (std::size_t i = 0; i < xml_objects.size(); ++i) {
      const Node& n = *xml_objects[i];
      std::size_t b = n.start;
      while (b > root.content_begin && is_space(text[b - 1])) --b;
      if (i == 0) {
        const std::size_t nl = text.rfind('\n', n.start);
        if (nl != std::string::npos && nl >= b) indent = text.substr(nl + 1, n.start - nl - 1);
      }
      if (!kept[i]) edits.push_back({b, n.end, ""});  // dropped, with the whitespace before it
      else object_edits(doc, n, *kept[i], labels, edits);
    }

    if (!added.empty()) {
      std::size_t at = root.self_closing ? root.end : root.content_end;
      while (!root.self_closing && at > root.content_begin && is_space(text[at - 1])) --at;
      std::string inserted;
      for (const Object* object : added) {
        inserted += "\n" + indent;
        if (const auto ord = ordinal(*object); ord && *ord < xml_objects.size()) {
          // A copy of an object (copy-paste stages): its element again, with its own values.
          const Node& n = *xml_objects[*ord];
          std::vector<Edit> own;
          object_edits(doc, n, *object, labels, own);
          inserted += apply(text, n.start, n.end, own);
        } else {
          inserted += new_object_xml(*object, labels.width, labels.height, indent);
        }
      }
      if (root.self_closing) {
        edits.push_back({root.start, root.end, "<" + root.name + ">" + inserted + "\n</" + root.name + ">"});
      } else {
        edits.push_back({at, at, inserted});
      }
    }
    return apply(text, 0, text.size(), std::move(edits));
  }

  // A minimal annotation for an image that had none.
  static std::string fresh(const std::string& filename, const ImageLabels& labels) {
    std::string s = "<annotation>\n";
    s += "\t<folder></folder>\n";
    s += "\t<filename>" + escape(filename) + "</filename>\n";
    s += "\t<size>\n";
    s += "\t\t<width>" + std::to_string(labels.width) + "</width>\n";
    s += "\t\t<height>" + std::to_string(labels.height) + "</height>\n";
    s += "\t\t<depth>3</depth>\n";
    s += "\t</size>\n";
    s += "\t<segmented>0</segmented>\n";
    for (const auto& object : labels.objects) {
      s += '\t';
      s += new_object_xml(object, labels.width, labels.height, "\t");
      s += '\n';
    }
    s += "</annotation>\n";
    return s;
  }

  FormatOptions options_;
};

}  // namespace

std::unique_ptr<Format> make_voc_format(const FormatOptions& options) {
  return std::make_unique<VocFormat>(options);
}

}  // namespace aug::labels
