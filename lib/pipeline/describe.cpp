#include "lib/pipeline/describe.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "lib/core/text.hpp"
#include "lib/pipeline/pipeline.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

// The "labels" block (docs/labels.md).
static nlohmann::json labels_schema() {
  using nlohmann::json;
  const json size{{"type", "number"}, {"minimum", 0}};
  json p = json::object();
  p["min_visibility"] = {{"type", "number"}, {"minimum", 0}, {"maximum", 1},
                         {"description", "drop objects less visible than this fraction after the whole pipeline (default 0)"}};
  p["min_area"] = {{"type", "number"}, {"minimum", 0},
                   {"description", "drop objects whose box is smaller, in output pixels² (default 0)"}};
  p["min_size"] = {{"oneOf", json::array({size, {{"type", "array"}, {"items", size}, {"minItems", 2}, {"maxItems", 2}}})},
                   {"description", "drop objects whose box is narrower or lower: [width, height] in output pixels (default 0)"}};
  p["box_method"] = {{"enum", json::array({"corners", "ellipse"})},
                     {"description", "boxes after rotation: enclosing box of the moved corners (default) or of the inscribed ellipse"}};
  p["flip_index"] = {{"type", "array"}, {"items", {{"type", "integer"}, {"minimum", 0}}},
                     {"description", "keypoint i takes keypoint flip_index[i] after a mirroring stage (YOLO's flip_idx)"}};
  p["kpt_shape"] = {{"type", "array"}, {"items", {{"type", "integer"}}}, {"minItems", 2}, {"maxItems", 2},
                    {"description", "YOLO pose rows: [keypoints, 2 or 3]"}};
  p["mask_fill"] = {{"oneOf", json::array({json{{"type", "number"}, {"minimum", 0}, {"maximum", 65535}}, json{{"const", "ignore"}}})},
                    {"description", "mask value where the image gets its constant border (default 0; \"ignore\": 255)"}};
  return {{"type", "object"},
          {"additionalProperties", false},
          {"description", "how labels (--labels, --masks) are moved and filtered"},
          {"properties", p}};
}

using nlohmann::json;

namespace {

std::string dtype_list(const StageSpec& s) {
  std::vector<std::string> out;
  for (DType t : s.dtypes) out.push_back(t == DType::U8 ? "8-bit" : (t == DType::U16 ? "16-bit" : "float"));
  return join(out, ", ");
}

std::string channel_list(const StageSpec& s) {
  std::vector<std::string> out;
  for (int c : s.channels) out.push_back(std::to_string(c));
  std::string text = out.size() > 1 ? join(std::vector<std::string>(out.begin(), out.end() - 1), ", ") + " or " + out.back()
                                    : out.front();
  return text + " channel" + (s.channels.size() == 1 && s.channels[0] == 1 ? "" : "s");
}

std::string form(const ParamSpec& p) {
  switch (p.type) {
    case ParamType::Number: return p.random ? "number or [lo, hi]" : "number";
    case ParamType::Integer: return p.random ? "integer or [lo, hi]" : "integer";
    case ParamType::Enum: return p.random ? "string or list of strings" : "string";
    case ParamType::IntPair:
      return (p.elements.empty() ? std::string("[a, b]") : p.elements) + " of integers (one integer: both)";
    case ParamType::NumberPair:
      return (p.elements.empty() ? std::string("[a, b]") : p.elements) + " of numbers (one number: both)";
    case ParamType::IntList: return "integer or list of integers";
    case ParamType::NumberList: return "number or list of numbers";
    case ParamType::Bool: return "true or false";
    case ParamType::Stages: return "list of stages";
  }
  return "";
}

std::vector<ParamSpec> all_params(const StageSpec& spec) {
  std::vector<ParamSpec> params = spec.params;
  params.push_back(probability_spec(spec.default_p));
  return params;
}

json bound_schema(json s, const ParamSpec& p) {
  if (p.min) s[p.min->exclusive ? "exclusiveMinimum" : "minimum"] = p.min->value;
  if (p.max) s[p.max->exclusive ? "exclusiveMaximum" : "maximum"] = p.max->value;
  if (p.odd) s["not"] = {{"multipleOf", 2}};
  return s;
}

json pair_of(const json& item) { return {{"type", "array"}, {"items", item}, {"minItems", 2}, {"maxItems", 2}}; }

json param_schema(const ParamSpec& p) {
  json s;
  switch (p.type) {
    case ParamType::Number:
    case ParamType::Integer: {
      const json one = bound_schema({{"type", p.type == ParamType::Number ? "number" : "integer"}}, p);
      s = p.random ? json{{"oneOf", {one, pair_of(one)}}} : one;
      break;
    }
    case ParamType::Enum: {
      const json one{{"enum", p.choices}};
      s = p.random ? json{{"oneOf", {one, {{"type", "array"}, {"items", one}, {"minItems", 1}}}}} : one;
      break;
    }
    case ParamType::IntPair:
    case ParamType::NumberPair: {
      const json one = bound_schema({{"type", p.type == ParamType::IntPair ? "integer" : "number"}}, p);
      s = {{"oneOf", {one, pair_of(one)}}};
      break;
    }
    case ParamType::IntList:
    case ParamType::NumberList: {
      const json one = bound_schema({{"type", p.type == ParamType::IntList ? "integer" : "number"}}, p);
      const json list{{"type", "array"}, {"items", one}, {"minItems", 1}};
      s = {{"oneOf", {one, list}}};
      break;
    }
    case ParamType::Bool: s = {{"type", "boolean"}}; break;
    case ParamType::Stages: s = {{"$ref", "#/$defs/stage_list"}, {"minItems", 1}}; break;
  }
  s["description"] = p.doc + " (" + p.range_text() + ")";
  if (!p.default_value.is_null()) s["default"] = p.default_value;
  return s;
}

json stage_schema(const StageSpec& spec) {
  json props{{"stage", {{"const", spec.name}}}};
  json required = json::array({"stage"});
  for (const auto& p : all_params(spec)) {
    props[p.name] = param_schema(p);
    bool grouped = false;
    for (const auto& g : spec.exactly_one_of)
      for (const auto& n : g) grouped = grouped || n == p.name;
    if (p.required() && !grouped) required.push_back(p.name);
  }
  json s{{"type", "object"},
         {"description", spec.summary},
         {"properties", props},
         {"required", required},
         {"additionalProperties", false}};
  for (const auto& g : spec.exactly_one_of) {
    json alternatives = json::array();
    for (const auto& n : g) alternatives.push_back({{"required", {n}}});
    s["oneOf"] = alternatives;
  }
  return s;
}

// A default for the Markdown table: numbers short (4 significant digits), strings bare.
std::string compact(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number()) {
    const double x = v.get<double>();
    if (x == static_cast<double>(static_cast<long long>(x)) && std::fabs(x) < 1e15) return format_number(x);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", x);
    return buf;
  }
  if (v.is_array()) {
    std::string out = "[";
    for (const auto& item : v) {
      if (out.size() > 1) out += ", ";
      out += compact(item);
    }
    out += ']';
    return out;
  }
  return v.dump();
}

std::string cell(std::string text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out;
}

// `size`; `position` = center; `select_from` (optional); one of `a`, `b`; `p` = 0.5 (when not 1).
std::string param_cell(const StageSpec& spec) {
  std::vector<std::string> items;
  std::vector<const std::vector<std::string>*> groups_done;
  for (const auto& p : spec.params) {
    const std::vector<std::string>* group = nullptr;
    for (const auto& g : spec.exactly_one_of)
      if (std::find(g.begin(), g.end(), p.name) != g.end()) group = &g;
    if (group) {
      if (std::find(groups_done.begin(), groups_done.end(), group) != groups_done.end()) continue;
      groups_done.push_back(group);
      std::vector<std::string> names;
      for (const auto& n : *group) names.push_back("`" + n + "`");
      items.push_back("one of " + join(names, ", "));
      continue;
    }
    std::string item = "`" + p.name + "`";
    if (!p.default_value.is_null()) item += " = " + compact(p.default_value);
    else if (p.optional) item += " (optional)";
    items.push_back(item);
  }
  if (spec.default_p != 1.0) items.push_back("`p` = " + compact(spec.default_p));
  return items.empty() ? "none but `p`" : cell(join(items, "; "));
}

}  // namespace

std::string describe_text(const StageSpec& spec) {
  std::ostringstream o;
  o << spec.name << (spec.composition ? " (composition)" : "") << ": " << spec.summary << "\n";
  for (const auto& n : spec.notes) o << "\n  " << n << "\n";
  o << "\nParameters:\n";
  for (const auto& p : all_params(spec)) {
    o << "  " << p.name << ": " << form(p);
    if (!p.default_value.is_null()) o << ", default " << p.default_value.dump();
    else if (p.optional) o << ", optional";
    else {
      bool grouped = false;
      for (const auto& g : spec.exactly_one_of)
        for (const auto& n : g) grouped = grouped || n == p.name;
      o << (grouped ? "" : ", required");
    }
    const std::string range = p.range_text();
    if (!range.empty() && p.type != ParamType::Stages && p.type != ParamType::Bool)  // form() said "true or false"
      o << ", " << (range[0] == '[' || range[0] == '(' ? "in " : "") << range;
    o << "\n      " << p.doc << "\n";
  }
  for (const auto& g : spec.exactly_one_of) {
    std::vector<std::string> q;
    for (const auto& n : g) q.push_back("\"" + n + "\"");
    o << "  (exactly one of " << join(q, ", ") << ")\n";
  }
  if (!spec.composition) {
    o << "\nImages:    " << dtype_list(spec) << "; " << channel_list(spec) << "\n";
    o << "Backends:  cpu" << (spec.cuda ? ", cuda" : "") << "\n";
    const Tolerance& t = spec.tolerance;
    o << "Parity:    max difference between backends " << format_number(t.u8) << " (8-bit), " << format_number(t.u16)
      << " (16-bit), " << format_number(t.f32) << " (float): " << t.reason << "\n";
  }
  o << "Example:   " << spec.example.dump() << "\n";
  return o.str();
}

json describe_json(const StageSpec& spec) {
  json params = json::array();
  for (const auto& p : all_params(spec)) {
    json j{{"name", p.name}, {"type", type_name(p.type)}, {"random", p.random}, {"doc", p.doc},
           {"range", p.range_text()}, {"required", p.required()}, {"default", p.default_value}};
    if (p.min) j["min"] = {{"value", p.min->value}, {"exclusive", p.min->exclusive}};
    if (p.max) j["max"] = {{"value", p.max->value}, {"exclusive", p.max->exclusive}};
    if (!p.choices.empty()) j["choices"] = p.choices;
    if (p.odd) j["odd"] = true;
    params.push_back(j);
  }
  json j{{"name", spec.name}, {"composition", spec.composition}, {"summary", spec.summary}, {"notes", spec.notes},
         {"params", params},  {"exactly_one_of", spec.exactly_one_of}, {"example", json::parse(spec.example.dump())},
         {"schema", stage_schema(spec)}};
  if (!spec.composition) {
    json dtypes = json::array();
    for (DType t : spec.dtypes) dtypes.push_back(dtype_name(t));
    j["dtypes"] = dtypes;
    j["channels"] = spec.channels;
    j["backends"] = spec.cuda ? json{"cpu", "cuda"} : json{"cpu"};
    j["tolerance"] = {{"u8", spec.tolerance.u8},
                      {"u16", spec.tolerance.u16},
                      {"f32", spec.tolerance.f32},
                      {"reason", spec.tolerance.reason}};
  }
  return j;
}

std::string stages_text() {
  std::ostringstream o;
  std::size_t width = 0;
  for (const auto* s : every_spec()) width = std::max(width, s->name.size());
  o << "Stages:\n";
  for (const auto& t : stage_types())
    o << "  " << t.spec().name << std::string(width - t.spec().name.size() + 2, ' ') << t.spec().summary << "\n";
  o << "Compositions:\n";
  for (const auto* c : composition_specs())
    o << "  " << c->name << std::string(width - c->name.size() + 2, ' ') << c->summary << "\n";
  o << "\n`augment describe STAGE` gives a stage's parameters.\n";
  return o.str();
}

std::string stage_table_markdown() {
  std::ostringstream o;
  o << "| stage | what it does | parameters |\n|---|---|---|\n";
  for (const auto& t : stage_types())
    o << "| `" << t.spec().name << "` | " << cell(t.spec().summary) << " | " << param_cell(t.spec()) << " |\n";
  o << "\n| composition | what it does | parameters |\n|---|---|---|\n";
  for (const auto* c : composition_specs())
    o << "| `" << c->name << "` | " << cell(c->summary) << " | " << param_cell(*c) << " |\n";
  o << "\nA parameter shown with a value has that default; one without is required. Every stage and composition "
       "also takes `p`, the probability that it is applied (default 1 unless shown).\n";
  return o.str();
}

std::vector<std::string> stage_families() {
  std::vector<std::string> out;
  for (const auto& t : stage_types())
    if (std::find(out.begin(), out.end(), t.spec().family) == out.end()) out.push_back(t.spec().family);
  return out;
}

namespace {

std::string family_title(const std::string& family) {
  static const std::vector<std::pair<std::string, std::string>> titles = {
      {"geometry", "Geometry: stages that move pixels (and labels)"},
      {"filter", "Filters: blurs over a window"},
      {"color", "Colour: stages that change values, pixel by pixel"},
      {"codec", "Codec effects"},
      {"noise", "Noise and occlusion"},
      {"weather", "Weather: fog, shadows, sun flare and spatter"},
      {"mix", "Mixing: stages that read other images (mosaic, mixup, cutmix, copy-paste)"},
      {"policy", "Policies: torchvision's automatic augmentation"},
  };
  for (const auto& [f, t] : titles)
    if (f == family) return t;
  return family;
}

std::string anchor(const std::string& name) { return name; }  // stage names are lower case with underscores

void stage_section(std::ostringstream& o, const StageSpec& spec) {
  o << "## " << spec.name << "\n\n" << spec.summary << "\n";
  for (const auto& n : spec.notes) o << "\n" << n << "\n";
  o << "\n| parameter | type | default | range | meaning |\n|---|---|---|---|---|\n";
  for (const auto& p : all_params(spec)) {
    o << "| `" << p.name << "` | " << cell(form(p)) << " | ";
    if (!p.default_value.is_null()) o << "`" << cell(compact(p.default_value)) << "`";
    else o << (p.optional ? "optional" : "required");
    o << " | " << cell(p.range_text()) << " | "
      << cell(p.doc) << " |\n";
  }
  for (const auto& g : spec.exactly_one_of) {
    std::vector<std::string> q;
    for (const auto& n : g) q.push_back("`" + n + "`");
    o << "\nExactly one of " << join(q, ", ") << ".\n";
  }
  o << "\n**Images:** " << dtype_list(spec) << "; " << channel_list(spec) << ". **Backends:** CPU"
    << (spec.cuda ? ", CUDA" : "") << ".\n";
  const Tolerance& t = spec.tolerance;
  o << "\n**Between backends:** at most " << format_number(t.u8) << " (8-bit), " << format_number(t.u16)
    << " (16-bit), " << format_number(t.f32) << " (float): " << t.reason << ".\n";
  o << "\n**Example:** `" << spec.example.dump() << "`\n";
  const auto first = spec.arithmetic.find_first_not_of(" \n"), last = spec.arithmetic.find_last_not_of(" \n");
  if (first != std::string::npos)
    o << "\n### Arithmetic\n\n" << spec.arithmetic.substr(first, last - first + 1) << "\n";
  o << "\n### From other libraries\n\n";
  if (spec.imports.empty()) {
    o << "None: " << spec.no_import << ".\n";
  } else {
    o << "`augment import albumentations` translates:\n\n| " << spec.imports.front().library << " | how |\n|---|---|\n";
    for (const ImportRule& r : spec.imports) {
      std::string name = r.name;
      for (const std::string& a : r.aliases) name += ", " + a;
      o << "| " << name << " | " << cell(r.how) << " |\n";
    }
  }
  o << "\n### Benchmark counterpart\n\n";
  if (spec.counterpart.call.empty()) o << "None: " << spec.counterpart.none << ".\n";
  else o << "`" << spec.counterpart.call << "`: " << spec.counterpart.how << " ([augment_bench_stages](../../bench/README.md)).\n";
}

}  // namespace

std::string family_page_markdown(const std::string& family) {
  std::ostringstream o;
  o << "<!-- Generated from the stages' declarations (lib/stages/" << family
    << "/*.cpp) by augment-docs: edit those, then run `cmake --build build --target docs`. -->\n";
  o << "# " << family_title(family) << "\n\n";
  o << "What each stage computes on every backend, bit for bit, and which library's behaviour it reproduces. "
       "The conventions (rounding, pixel centres, random draws) and the engines the stages share are in "
       "[../arithmetic.md](../arithmetic.md).\n\n";
  o << "| stage | what it does |\n|---|---|\n";
  std::vector<const StageSpec*> specs;
  for (const auto& t : stage_types())
    if (t.spec().family == family) specs.push_back(&t.spec());
  for (const StageSpec* s : specs) o << "| [`" << s->name << "`](#" << anchor(s->name) << ") | " << cell(s->summary) << " |\n";
  for (const StageSpec* s : specs) {
    o << "\n";
    stage_section(o, *s);
  }
  return o.str();
}

json stages_json() {
  json out = json::array();
  for (const auto* s : every_spec())
    out.push_back({{"name", s->name}, {"composition", s->composition}, {"summary", s->summary}});
  return out;
}

json pipeline_schema() {
  json defs;
  json alternatives = json::array();
  for (const auto* s : every_spec()) {
    defs[s->name] = stage_schema(*s);
    alternatives.push_back({{"$ref", "#/$defs/" + s->name}});
  }
  defs["stage"] = {{"oneOf", alternatives}};
  defs["stage_list"] = {{"type", "array"}, {"items", {{"$ref", "#/$defs/stage"}}}};
  return {{"$schema", "https://json-schema.org/draft/2020-12/schema"},
          {"title", "augment pipeline"},
          {"description", "A pipeline for `augment run` (generated by `augment schema`)."},
          {"type", "object"},
          {"required", {"version", "stages"}},
          {"additionalProperties", false},
          {"properties",
           {{"version", {{"const", kPipelineVersion}, {"description", "pipeline format version"}}},
            {"seed", {{"type", "integer"}, {"minimum", 0}, {"description", "default seed (--seed overrides it)"}}},
            {"description", {{"type", "string"}}},
            {"stages", {{"$ref", "#/$defs/stage_list"}}},
            {"labels", labels_schema()},
            {"decode",
             {{"type", "object"},
              {"additionalProperties", false},
              {"properties",
               {{"shrink",
                 {{"type", "boolean"},
                  {"description", "decode JPEGs at 1/2, 1/4 or 1/8 of their size when the pipeline starts by "
                                  "shrinking them at least that much (default false; docs/decoding.md)"}}}}}}}}},
          {"$defs", defs}};
}

}  // namespace aug
