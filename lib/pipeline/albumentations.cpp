#include "lib/pipeline/albumentations.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"
#include "lib/pipeline/compositions.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/pipeline/yaml.hpp"

namespace aug {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

namespace {

// Transforms augment has no stage for yet: the closest stage, and how it differs. The transforms
// augment has are declared by their stages (StageSpec::imports).
struct Missing {
  const char* name;
  const char* closest;  // null: none
  const char* why;
};

const std::vector<Missing>& not_available() {
  static const std::vector<Missing> m = {
      // Albumentations 1.x's wrappers of imgaug (removed in 1.4).
      {"IAAAffine", "affine", ""},
      {"IAASuperpixels", nullptr, "superpixel replacement"},
      {"FDA", nullptr, "it needs other images (a reference set)"},
      {"HistogramMatching", nullptr, "it needs other images (a reference set)"},
      {"Lambda", nullptr, "arbitrary Python code"},
      // Albumentations 1.4-2.x transforms without a stage yet.
      {"AdditiveNoise", "gaussian_noise", "AdditiveNoise also draws uniform, Laplace and beta noise, per image or channel"},
      {"AutoContrast", "autocontrast",
       "autocontrast is torchvision's per-channel stretch; AutoContrast's cutoff, ignore and cdf method differ"},
      {"ChromaticAberration", nullptr, "the red and blue channels distorted radially"},
      {"ConstrainedCoarseDropout", "coarse_dropout", "its holes are placed on the objects of the masks or boxes"},
      {"Dithering", "posterize", "error diffusion"},
      {"GridElasticDeform", "elastic", "its displacements are drawn on a coarse grid"},
      {"HEStain", nullptr, "stain augmentation of histology images"},
      {"Illumination", "gaussian_illumination", "Illumination's linear and corner modes and its own parameters"},
      {"MaskDropout", "coarse_dropout", "it removes whole objects of the mask"},
      {"OverlayElements", nullptr, "it needs other images (the overlays)"},
      {"PixelDistributionAdaptation", nullptr, "it needs other images (a reference set)"},
      {"TemplateTransform", nullptr, "it needs other images (the templates)"},
      {"PlasmaBrightnessContrast", "brightness_contrast", "a plasma-fractal field instead of one value per image"},
      {"PlasmaShadow", "shadow", "a plasma-fractal shadow"},
      {"RandomGravel", nullptr, "gravel particles"},
      {"Superpixels", nullptr, "superpixel replacement"},
      {"TextImage", nullptr, "text rendered onto the image"},
      {"FrequencyMasking", nullptr, "for spectrograms"},
      {"TimeMasking", nullptr, "for spectrograms"},
      {"TimeReverse", nullptr, "for spectrograms"},
  };
  return m;
}

bool has(const json& t, const char* key) { return t.contains(key) && !t.at(key).is_null(); }

// Transforms that only change the type or layout a training loader receives.
bool left_out(const std::string& name) {
  return name == "Normalize" || name == "ToTensorV2" || name == "ToTensor" || name == "ToFloat" ||
         name == "FromFloat" || name == "NoOp";
}

std::string short_name(const json& t) {
  const std::string full = t.value("__class_fullname__", std::string());
  const auto dot = full.rfind('.');
  return dot == std::string::npos ? full : full.substr(dot + 1);
}

// The stage rule that translates the transform `name` (its name or one of its aliases).
const ImportRule* find_rule(const std::string& name) {
  for (const StageType& type : stage_types())
    for (const ImportRule& r : type.spec().imports)
      if (r.name == name || std::find(r.aliases.begin(), r.aliases.end(), name) != r.aliases.end()) return &r;
  return nullptr;
}

// The stage whose declaration holds `rule`.
std::string find_stage_of(const ImportRule& rule) {
  for (const StageType& type : stage_types())
    for (const ImportRule& r : type.spec().imports)
      if (&r == &rule) return type.spec().name;
  return "";
}

const Missing* find_missing(const std::string& name) {
  for (const Missing& m : not_available())
    if (name == m.name) return &m;
  return nullptr;
}

class Importer {
 public:
  Importer(std::string source, std::vector<std::string>& notes, const TransformPlaces* places,
           std::vector<std::pair<std::string, std::string>>& stage_places)
      : source_(std::move(source)), notes_(notes), places_(places), stage_places_(stage_places) {}

  // How messages name a place in the saved pipeline: as given, or where `places` puts it.
  std::string shown(const std::string& where) const {
    if (places_) {
      const auto it = places_->find(where);
      if (it != places_->end()) return it->second;
    }
    return where;
  }
  // "file: where: what", or "place: what" when the place names the file.
  std::string message(const std::string& where, const std::string& what) const {
    const std::string w = shown(where);
    return (w == where ? source_ + ": " : "") + w + ": " + what;
  }

  // The children of a composition, translated (or collected into missing_); `pointer` is where
  // they go in the pipeline ("/stages").
  // With `weights` (a OneOf's children), `idle` receives the weight of the children that do nothing
  // (NoOp): drawing one of them leaves the image as it is.
  ojson list(const json& transforms, const std::string& where, ojson* weights, const std::string& pointer,
             double* idle = nullptr) {
    ojson out = ojson::array();
    if (!transforms.is_array()) throw PipelineError(message(where, "\"transforms\" must be a list"));
    for (std::size_t i = 0; i < transforms.size(); ++i) {
      std::optional<double> p;
      const std::string child = where + "/" + std::to_string(i);
      ojson s = node(transforms[i], child, p, pointer + "/" + std::to_string(out.size()));
      if (s.is_null()) {
        if (idle && transforms[i].is_object() && short_name(transforms[i]) == "NoOp") *idle += p.value_or(0.5);
        continue;
      }
      stage_places_.emplace_back(pointer + "/" + std::to_string(out.size()), shown(child));
      if (weights) {
        // OneOf draws its child by the children's p (normalised) and applies it surely: p 1, left out
        // where it is the stage's default.
        weights->push_back(p.value_or(0.5));
        const StageSpec* spec = find_spec(s.value("stage", std::string()));
        if (spec && spec->default_p != 1.0) s["p"] = 1;
        else s.erase("p");
      }
      out.push_back(std::move(s));
    }
    return out;
  }

  // One transform; null when it is left out. `p` receives its probability.
  ojson node(const json& t, const std::string& where, std::optional<double>& p, const std::string& pointer) {
    const std::string w = shown(where);
    const TransformReader c(t, w == where ? source_ : std::string(), w, notes_, mask_fill_, release_);
    if (!t.is_object()) c.fail("a transform is an object with \"__class_fullname__\"");
    const std::string name = short_name(t);
    if (name.empty()) c.fail("missing \"__class_fullname__\"");
    if (c.has("p")) p = c.number("p", 0.5);
    if (c.has("always_apply") && t.at("always_apply").is_boolean() && t.at("always_apply").get<bool>()) p = 1.0;
    ojson s;
    if (name == "OneOrOther") {
      // Its first transform with probability p, else its last, either applied surely; the
      // composition itself always runs.
      json children = c.has("transforms") ? t.at("transforms") : json::array();
      if (children.empty()) {
        if (c.has("first")) children.push_back(t.at("first"));
        if (c.has("second")) children.push_back(t.at("second"));
      }
      if (children.size() < 2) c.fail("OneOrOther needs two transforms (first and second)");
      ojson ignored = ojson::array();
      const json pair = json::array({children.front(), children.back()});
      s = ojson{{"stage", "one_of"}};
      s["stages"] = list(pair, where + "/transforms", &ignored, pointer + "/stages");
      const double first = p.value_or(0.5);
      if (s["stages"].size() == 2) s["weights"] = ojson::array({first, 1 - first});
      else c.note("OneOrOther: one of its two transforms was left out; the other always runs");
      if (s["stages"].empty()) {
        c.note(name + " left out: none of its transforms remains");
        return nullptr;
      }
      p = 1.0;
      return s;
    }
    if (is_albumentations_composition(name)) {
      const bool some = name == "SomeOf" || name == "RandomOrder";
      s = ojson{{"stage", name == "OneOf" ? "one_of" : some ? "some_of" : "sequence"}};
      ojson weights = ojson::array();
      double idle = 0;  // OneOf: the weight of its NoOp children
      s["stages"] = list(c.has("transforms") ? t.at("transforms") : json::array(), where + "/transforms",
                         name == "OneOf" ? &weights : nullptr, pointer + "/stages", &idle);
      if (idle > 0 && !weights.empty()) {
        // Drawing a NoOp does nothing: the one_of runs with the chance of drawing anything else.
        double kept = 0;
        for (const ojson& w : weights) kept += w.get<double>();
        if (kept + idle > 0) {
          p = p.value_or(1.0) * kept / (kept + idle);
          c.note("NoOp in OneOf: its weight " + format_number(idle) + " of " + format_number(kept + idle) +
                 " becomes the one_of's p " + format_number(*p));
        }
      }
      if (name == "OneOf" && !weights.empty() &&
          !std::all_of(weights.begin(), weights.end(), [&](const ojson& w) { return w == weights[0]; }))
        s["weights"] = weights;
      if (name == "RandomOrder") {
        // n drawn alike without repetition and applied in the order drawn, each with its own p.
        s["n"] = c.has("n") ? t.at("n") : json(1);
        s["random_order"] = true;
        if (c.has("replace") && t.at("replace").get<bool>())
          c.note("RandomOrder with replace: some_of draws its stages without repetition");
      } else if (name == "SomeOf") {
        s["n"] = c.has("n") ? t.at("n") : json(1);
        if (c.release().first == 1) {
          // 1.x picks n of its transforms by their p (with replacement by default) and applies each
          // surely; 2.x picks n alike, without replacement, and applies each with its own p.
          for (auto& child : s["stages"]) {
            const StageSpec* spec = find_spec(child.value("stage", std::string()));
            if (spec && spec->default_p != 1.0) child["p"] = 1;
            else child.erase("p");
          }
          c.note("SomeOf (1.x): its picks applied surely; 1.x picks by the transforms' p" +
                 std::string(c.flag("replace", true) ? ", with replacement" : "") +
                 ", some_of picks alike and without repetition");
        } else if (c.has("replace") && t.at("replace").get<bool>()) {
          c.note("SomeOf with replace: some_of draws its stages without repetition");
        }
      }
      if (s["stages"].empty()) {
        c.note(name + " left out: none of its transforms remains");
        return nullptr;
      }
      if (some && s["n"].is_number_integer() && s["n"].get<std::int64_t>() > static_cast<std::int64_t>(s["stages"].size())) {
        // Albumentations applies them all when n exceeds the transforms (without replacement).
        c.note(name + ": n = " + s["n"].dump() + " exceeds its " + std::to_string(s["stages"].size()) +
               " transforms; all of them are applied");
        s["n"] = s["stages"].size();
      }
    } else if (name == "NoOp") {
      c.note("NoOp left out: it changes nothing");
      return nullptr;
    } else if (left_out(name)) {
      c.note(name + " left out: augment writes image files; do it in the training loader");
      return nullptr;
    } else {
      const ImportRule* r = find_rule(name);
      if (!r) {
        const Missing* m = find_missing(name);
        // Neither a stage's nor a known missing one: most often a class of the project's own code.
        std::string what = " (no close stage: not an Albumentations transform augment knows; a class of the "
                           "pipeline's own code cannot be imported)";
        if (m && m->closest) what = std::string(" (closest stage: ") + m->closest + (*m->why ? "; " : "") + m->why + ")";
        else if (m) what = std::string(" (no close stage: ") + m->why + ")";
        missing_.push_back(w + ": " + name + what);
        return nullptr;
      }
      s = r->convert(c);
    }
    // Albumentations' transforms default to p 0.5, compositions to 1.
    // "p" is written unless it is 1 and so is the stage's own default (coarse_dropout's is 0.5).
    const double prob = p.value_or(s.contains("stages") ? 1.0 : 0.5);
    p = prob;
    const StageSpec* spec = find_spec(s.value("stage", std::string()));
    if (prob != 1.0 || (spec && spec->default_p != 1.0)) s["p"] = prob;
    return s;
  }

  const std::vector<std::string>& missing() const { return missing_; }
  // The release that wrote the pipeline (its __version__), for the rules that read differently by release.
  void release(std::string r) { release_ = std::move(r); }
  std::optional<double> mask_fill() const { return mask_fill_; }

 private:
  std::string source_;
  std::vector<std::string>& notes_;
  const TransformPlaces* places_;
  std::vector<std::pair<std::string, std::string>>& stage_places_;
  std::string release_;
  std::vector<std::string> missing_;
  std::optional<double> mask_fill_;
};

}  // namespace

Imported import_albumentations(const json& saved, const std::string& source, const TransformPlaces* places) {
  if (!saved.is_object() || !saved.contains("transform"))
    throw PipelineError(source + ": not a pipeline saved by Albumentations (A.save / to_dict): no \"transform\"");
  const json& top = saved.at("transform");
  if (!top.is_object() || (short_name(top) != "Compose" && short_name(top) != "ReplayCompose"))
    throw PipelineError(source + ": transform: the saved pipeline's top is a Compose, not " +
                        (top.is_object() ? short_name(top) : top.dump()));
  Imported out;
  Importer imp(source, out.notes, places, out.stage_places);
  imp.release(saved.value("__version__", std::string()));
  const ojson stages = imp.list(top.value("transforms", json::array()), "transform/transforms", nullptr, "/stages");
  if (!imp.missing().empty()) {
    std::string msg = source + ": " + std::to_string(imp.missing().size()) +
                      " transform(s) augment does not have; replace or remove them and import again:";
    for (const std::string& m : imp.missing()) msg += "\n  " + m;
    throw PipelineError(msg);
  }
  if (has(top, "p") && top.at("p").get<double>() != 1.0)
    out.notes.push_back(imp.shown("transform") + ": the Compose's p " + top.at("p").dump() +
                        " left out (the pipeline always runs)");
  const std::string version = saved.value("__version__", std::string("unknown"));
  ojson& p = out.pipeline;
  p["version"] = 1;
  p["description"] = "Imported from " + source + " (Albumentations " + version + ") by augment import albumentations.";
  p["stages"] = stages;
  ojson labels = ojson::object();
  if (has(top, "bbox_params") && top.at("bbox_params").is_object()) {
    const json& b = top.at("bbox_params");
    if (has(b, "min_area")) labels["min_area"] = b.at("min_area");
    if (has(b, "min_visibility")) labels["min_visibility"] = b.at("min_visibility");
    if (has(b, "min_width") || has(b, "min_height"))
      labels["min_size"] = ojson::array({b.value("min_width", 0.0), b.value("min_height", 0.0)});
    if (has(b, "format")) {
      const std::string f = b.at("format").get<std::string>();
      const std::string flag = f == "pascal_voc" ? "voc" : f == "coco" ? "coco=FILE" : f == "yolo" ? "yolo" : "";
      out.notes.push_back("bbox_params format \"" + f + "\": " +
                          (flag.empty() ? std::string("no label format of that name; see docs/labels.md")
                                        : "pass --labels " + flag + " to augment run"));
    }
  }
  if (has(top, "keypoint_params") && top.at("keypoint_params").is_object()) {
    const json& k = top.at("keypoint_params");
    const std::string f = k.value("format", std::string("xy"));
    out.notes.push_back("keypoint_params format \"" + f +
                        "\": keypoints move with their objects from COCO files (--labels coco=FILE) and YOLO pose "
                        "rows (--labels yolo with \"kpt_shape\" in the labels block); a keypoint leaving the image "
                        "keeps its slot with visibility 0 rather than being removed");
  }
  if (imp.mask_fill()) labels["mask_fill"] = *imp.mask_fill() == 255 ? ojson("ignore") : ojson(*imp.mask_fill());
  if (!labels.empty()) p["labels"] = labels;
  return out;
}

Imported import_albumentations_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError("cannot read " + path + ": " + std::strerror(errno));
  std::ostringstream text;
  text << f.rdbuf();
  json saved;
  if (is_yaml_path(path)) {
    std::map<std::string, std::pair<int, int>> marks;
    saved = yaml_to_json(text.str(), path, marks);
  } else {
    try {
      saved = json::parse(text.str());
    } catch (const json::exception& e) {
      throw PipelineError(path + ": invalid JSON: " + e.what());
    }
  }
  Imported out = import_albumentations(saved, path);
  check_imported(out, path);
  return out;
}

namespace {

void drop_negative_zeros(ojson& j) {
  if (j.is_number_float() && j.get<double>() == 0.0) j = 0.0;
  if (!j.is_structured()) return;
  for (auto& item : j) drop_negative_zeros(item);
}

}  // namespace

void check_imported(Imported& imported, const std::string& source) {
  drop_negative_zeros(imported.pipeline);
  if (imported.pipeline.contains("stages") && imported.pipeline["stages"].empty())
    imported.notes.push_back(source + ": the imported pipeline has no stage: every transform was left out, so a run "
                                      "copies its inputs unchanged");
  // What it wrote must load as it is: a parameter out of a stage's range (a rotate limit of 400
  // degrees) is reported here, against the imported pipeline, with the place of its transform.
  const std::string name = source + " (imported)";
  try {
    Pipeline::parse(imported.pipeline.dump(), name);
  } catch (const PipelineError& e) {
    const std::string msg = e.what();
    if (msg.compare(0, name.size() + 1, name + ":") != 0) throw;
    const std::string rest = msg.substr(name.size() + 1);
    const std::string* best = nullptr;
    std::size_t best_len = 0;
    for (const auto& [pointer, place] : imported.stage_places)
      if (rest.compare(0, pointer.size(), pointer) == 0 && pointer.size() > best_len &&
          (rest.size() == pointer.size() || rest[pointer.size()] == '/' || rest[pointer.size()] == ':')) {
        best = &place;
        best_len = pointer.size();
      }
    // A saved pipeline's own places ("transform/transforms/0") add nothing to the pointer.
    if (!best || *best == "transform" || best->compare(0, 10, "transform/") == 0) throw;
    throw PipelineError(*best + ": imported as " + rest);
  }
}

namespace {

void stage_lines(std::ostringstream& o, const ojson& s, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (!s.contains("stages")) {
    o << pad << s.dump();
    return;
  }
  ojson head = s;
  head.erase("stages");
  std::string h = head.dump();
  h.pop_back();  // the closing brace
  o << pad << h << (head.size() ? ", " : "") << "\"stages\": [\n";
  for (std::size_t i = 0; i < s["stages"].size(); ++i) {
    stage_lines(o, s["stages"][i], indent + 2);
    o << (i + 1 < s["stages"].size() ? ",\n" : "]}");
  }
}

}  // namespace

std::string pipeline_text(const ojson& pipeline) {
  std::ostringstream o;
  o << "{\n";
  std::size_t k = 0;
  for (auto it = pipeline.begin(); it != pipeline.end(); ++it, ++k) {
    o << "  " << ojson(it.key()).dump() << ": ";
    if (it.key() == "stages") {
      o << "[\n";
      for (std::size_t i = 0; i < it.value().size(); ++i) {
        stage_lines(o, it.value()[i], 4);
        o << (i + 1 < it.value().size() ? ",\n" : "\n");
      }
      o << "  ]";
    } else {
      o << it.value().dump();
    }
    o << (k + 1 < pipeline.size() ? ",\n" : "\n");
  }
  o << "}\n";
  return o.str();
}

std::string other_library_hint(const std::string& name, const json& object) {
  if (const ImportRule* r = find_rule(name)) {
    json saved = object.is_object() ? object : json::object();
    saved.erase("stage");
    const double p = saved.contains("p") && saved["p"].is_number() ? saved["p"].get<double>() : -1;
    saved.erase("p");
    std::vector<std::string> notes;
    std::optional<double> mask_fill;
    std::string written;
    try {
      ojson s = r->convert(TransformReader(saved, "", "", notes, mask_fill));
      if (p >= 0) s["p"] = p;
      written = s.dump();
    } catch (const Error&) {
      written = "{\"stage\": \"" + std::string(find_stage_of(*r)) + "\", ...}";  // its parameters do not translate
    }
    return "that is " + r->library + (r->library.back() == 's' ? "'" : "'s") + " name; write " + written + " (`augment describe " + find_stage_of(*r) +
           "` has its parameters; `augment import albumentations` translates whole pipelines)";
  }
  if (const Missing* m = find_missing(name))
    return "that is Albumentations' name, and augment has no such stage yet" +
           (m->closest ? std::string(" (the closest: ") + m->closest + (*m->why ? "; " : "") + m->why + ")" : "");
  return "";
}

std::string albumentations_table_markdown() {
  struct Row {
    std::string name, cell, how;
  };
  std::vector<Row> rows;
  for (const StageType& type : stage_types()) {
    const StageSpec& spec = type.spec();
    for (const ImportRule& r : spec.imports) {
      std::string name = r.name;
      for (const std::string& a : r.aliases) name += ", " + a;
      rows.push_back({name, "`" + spec.name + "`", r.how});
    }
  }
  for (const Missing& m : not_available())
    rows.push_back({m.name, m.closest ? std::string("not available (closest: `") + m.closest + "`)" : "not available",
                    m.why});
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
  std::ostringstream o;
  o << "| Albumentations | augment | how |\n|---|---|---|\n";
  for (const Row& r : rows) o << "| " << r.name << " | " << r.cell << " | " << r.how << " |\n";
  o << "| Compose, Sequential | `sequence` (the top Compose: the pipeline) | bbox_params become the `labels` block |\n"
    << "| OneOf | `one_of` | the children's p become `weights`, and each runs surely once chosen |\n"
    << "| SomeOf | `some_of` | n; drawn without repetition |\n"
    << "| RandomOrder | `some_of` with `random_order` | n (default 1); drawn without repetition, applied in the "
       "order drawn |\n"
    << "| OneOrOther | `one_of` | its two transforms with weights p and 1 - p, each applied surely |\n"
    << "| Normalize, ToTensorV2, ToFloat, FromFloat, NoOp | left out, with a note | they change what a training "
       "loader receives, not the image file |\n";
  return o.str();
}

// ReplayCompose is a Compose that records its draws (for replaying them on another image): augment
// records every image's parameters in the manifest, so it is a Compose here.
bool is_albumentations_composition(const std::string& name) {
  return name == "Compose" || name == "ReplayCompose" || name == "Sequential" || name == "OneOf" || name == "SomeOf" ||
         name == "RandomOrder";
}

}  // namespace aug
