#include "lib/pipeline/python_import.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"
#include "lib/pipeline/compositions.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

using nlohmann::json;
using ojson = nlohmann::ordered_json;
using py::Value;
using Kind = py::Value::Kind;

namespace {

std::vector<std::string> words(const char* s) {
  std::vector<std::string> out;
  if (!s || std::string(s) == "-") return out;
  std::istringstream in(s);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

// ------------------------------------------------------------------------------------------------
// Albumentations: the positional parameters of each class in 1.x (1.3.1) and 2.x (2.0.8), and the
// default p that A.save writes. "-": the class is not in that release. The transforms a stage
// translates declare theirs with their import rule (ImportRule::python); here are the rest:
// compositions, their parameter objects and what the importer leaves out.

using Signature = PythonSignature;  // p < 0: not a transform (BboxParams, KeypointParams)

const std::vector<Signature>& signatures() {
  static const std::vector<Signature> s = {
      // Compositions and their parameters.
      {"Compose", "transforms bbox_params keypoint_params additional_targets p is_check_shapes",
       "transforms bbox_params keypoint_params additional_targets p is_check_shapes strict mask_interpolation seed "
       "save_applied_params",
       1.0},
      {"ReplayCompose", "transforms bbox_params keypoint_params additional_targets p is_check_shapes save_key",
       "transforms bbox_params keypoint_params additional_targets p is_check_shapes save_key", 1.0},
      {"OneOf", "transforms p", "transforms p", 0.5},
      {"SomeOf", "transforms n replace p", "transforms n replace p", 1.0},
      {"RandomOrder", "transforms n replace p", "transforms n replace p", 1.0},
      {"Sequential", "transforms p", "transforms p", 0.5},
      {"BboxParams", "format label_fields min_area min_visibility min_width min_height check_each_transform",
       "format label_fields min_area min_visibility min_width min_height check_each_transform clip "
       "filter_invalid_bboxes max_accept_ratio",
       -1},
      {"KeypointParams", "format label_fields remove_invisible angle_in_degrees check_each_transform",
       "format label_fields remove_invisible angle_in_degrees check_each_transform", -1},
      {"OneOrOther", "first second transforms p", "first second transforms p", 0.5},
      // Left out by the importer (they change what a training loader receives).
      {"NoOp", "always_apply p", "p", 0.5},
      {"Normalize", "mean std max_pixel_value always_apply p", "mean std max_pixel_value normalization p", 1.0},
      {"ToTensorV2", "transpose_mask always_apply p", "transpose_mask p", 1.0},
      {"ToFloat", "max_value always_apply p", "max_value p", 1.0},
      {"FromFloat", "dtype max_value always_apply p", "dtype max_value p", 1.0},
  };
  return s;
}

const Signature* find_signature(const std::string& name) {
  for (const Signature& s : signatures())
    if (name == s.name) return &s;
  for (const StageType& type : stage_types())
    for (const ImportRule& r : type.spec().imports)
      for (const Signature& s : r.python)
        if (name == s.name) return &s;
  return nullptr;
}

// Whether a positional value can be the parameter `param` (what tells 1.x's order from 2.x's).
bool fits(const std::string& param, const Value& v) {
  if (param == "always_apply") return v.kind == Kind::boolean;
  if (param == "p") return v.is_number();
  if (param == "transforms") return v.kind == Kind::list || v.kind == Kind::tuple;
  if (param == "first" || param == "second") return v.kind == Kind::call || v.kind == Kind::none;  // OneOrOther
  if (param == "height" || param == "width" || param == "min_height" || param == "min_width" ||
      param == "interpolation" || param == "border_mode" || param == "mask_interpolation" || param == "n")
    return v.kind == Kind::integer || (v.kind == Kind::none && param.compare(0, 4, "min_") == 0);
  if (param == "size" || param == "max_size") return v.kind == Kind::integer || v.kind == Kind::tuple || v.kind == Kind::list;
  if (param == "format" || param == "position" || param == "pad_position" || param == "rotate_method" ||
      param == "normalization" || param == "method")
    return v.kind == Kind::string;
  if (param == "bbox_params" || param == "keypoint_params") return v.kind == Kind::call || v.kind == Kind::dict || v.kind == Kind::none;
  return v.kind != Kind::call;
}

class AlbumentationsWriter {
 public:
  AlbumentationsWriter(const py::Source& src, std::vector<std::string>& notes, TransformPlaces& places)
      : src_(src), notes_(notes), places_(places) {}

  // 1 or 2 when the file's keywords or transforms belong to one release only; 0 when they do not say.
  void survey(const Value& v) {
    if (v.kind == Kind::call) {
      if (const Signature* s = find_signature(v.short_name())) {
        const auto a = words(s->v1), b = words(s->v2);
        if (b.empty()) ++v1_;
        if (a.empty()) ++v2_;
        for (const auto& [k, _] : v.named) {
          const bool in1 = std::find(a.begin(), a.end(), k) != a.end(), in2 = std::find(b.begin(), b.end(), k) != b.end();
          if (in1 && !in2 && !a.empty() && !b.empty()) ++v1_;
          if (in2 && !in1 && !a.empty() && !b.empty()) ++v2_;
        }
      }
    }
    for (const Value& i : v.items) survey(i);
    for (const auto& [_, i] : v.named) survey(i);
  }

  // What the survey says; the release the pipeline is read as (--release where given).
  int surveyed() const { return v1_ > v2_ ? 1 : v2_ > v1_ ? 2 : 0; }
  int version() const { return forced_ != 0 ? forced_ : surveyed(); }
  void force(int release) { forced_ = release; }

  json transform(const Value& call, const std::string& where) {
    places_[where] = src_.where(call.at);
    const std::string name = call.short_name();
    json t = json::object();
    t["__class_fullname__"] = name;
    const std::vector<std::string> names = positional(call);
    for (std::size_t i = 0; i < call.items.size(); ++i) put(t, name, names[i], call.items[i], where);
    for (const auto& [k, v] : call.named) put(t, name, k, v, where);
    const Signature* s = find_signature(name);
    if (s && s->p >= 0 && !t.contains("p")) t["p"] = s->p;
    return t;
  }

 private:
  [[noreturn]] void fail(const Value& at, const std::string& what) const {
    throw PipelineError(src_.where(at.at) + ": " + what);
  }

  void put(json& t, const std::string& name, const std::string& key, const Value& v, const std::string& where) {
    if (key == "transforms" && is_albumentations_composition(name)) {
      if (v.kind != Kind::list && v.kind != Kind::tuple) fail(v, "transforms must be a list of transforms, not " + v.repr());
      json list = json::array();
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        const Value& c = v.items[i];
        if (c.kind != Kind::call) fail(c, c.repr() + " in " + name + "'s transforms is not a transform");
        list.push_back(transform(c, where + "/transforms/" + std::to_string(i)));
      }
      t[key] = list;
      return;
    }
    if ((key == "first" || key == "second") && name == "OneOrOther") {
      // As A.save writes it: transforms [first, second].
      if (v.kind == Kind::none) return;
      if (v.kind != Kind::call) fail(v, key + " must be a transform, not " + v.repr());
      json& list = t["transforms"];
      if (!list.is_array()) list = json::array();
      const std::size_t i = key == "first" ? 0 : 1;
      while (list.size() <= i) list.push_back(nullptr);
      list[i] = transform(v, where + "/transforms/" + std::to_string(i));
      return;
    }
    t[key] = value(v, where);
  }

  json value(const Value& v, const std::string& where) {
    switch (v.kind) {
      case Kind::none: return nullptr;
      case Kind::boolean: return v.b;
      case Kind::integer: return v.i;
      case Kind::real: return v.f;
      case Kind::string:
      case Kind::symbol: return v.s;
      case Kind::tuple:
      case Kind::list: {
        json a = json::array();
        for (const Value& i : v.items) a.push_back(value(i, where));
        return a;
      }
      case Kind::dict: {
        json o = json::object();
        for (const auto& [k, i] : v.named) o[k] = value(i, where);
        return o;
      }
      case Kind::call: {
        json o = transform(v, where + "/" + v.short_name());
        const Signature* s = find_signature(v.short_name());
        if (s && s->p < 0) o.erase("__class_fullname__");  // BboxParams: saved as its parameters
        return o;
      }
    }
    return nullptr;
  }

  std::string call_text(const Value& call) const { return call.written.empty() ? call.short_name() : call.written; }

  // The parameter names of the call's positional arguments, by the signature of 1.x or 2.x.
  std::vector<std::string> positional(const Value& call) {
    const std::size_t n = call.items.size();
    if (n == 0) return {};
    const Signature* s = find_signature(call.short_name());
    if (!s) {
      // A transform augment does not have: the import lists it; its arguments do not matter.
      std::vector<std::string> names;
      for (std::size_t i = 0; i < n; ++i) names.push_back("__positional_" + std::to_string(i));
      return names;
    }
    const std::vector<std::string> sig[2] = {words(s->v1), words(s->v2)};
    // The index of the first argument that does not fit (n: all fit).
    auto misfit = [&](const std::vector<std::string>& names) -> std::size_t {
      if (names.empty()) return 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (i >= names.size() || !fits(names[i], call.items[i])) return i;
        for (const auto& kv : call.named)
          if (kv.first == names[i]) return i;
      }
      return n;
    };
    const std::size_t m[2] = {misfit(sig[0]), misfit(sig[1])};
    auto prefix = [&](int v) { return std::vector<std::string>(sig[v].begin(), sig[v].begin() + static_cast<long>(n)); };
    auto listed = [&](int v) {
      std::vector<std::string> p(sig[v].begin(), sig[v].begin() + static_cast<long>(std::min(n, sig[v].size())));
      return "(" + join(p, ", ") + ")";
    };
    const std::string what = call_text(call) + "(...)";
    if (m[0] == n && m[1] == n) {
      if (prefix(0) == prefix(1)) return prefix(0);
      // Both read them, differently: the call's own keywords, then the file's, then 1.x.
      int v = 0;
      std::string why;
      int own1 = 0, own2 = 0;
      for (const auto& kv : call.named) {
        const bool in1 = std::find(sig[0].begin(), sig[0].end(), kv.first) != sig[0].end();
        const bool in2 = std::find(sig[1].begin(), sig[1].end(), kv.first) != sig[1].end();
        own1 += in1 && !in2;
        own2 += in2 && !in1;
      }
      if (own1 != own2) {
        v = own1 > own2 ? 0 : 1;
        why = "its keyword arguments are " + std::string(v == 0 ? "1.x's" : "2.x's");
      } else if (version() != 0) {
        v = version() - 1;
        why = "the file's other calls are written for " + std::string(v == 0 ? "1.x" : "2.x");
      } else {
        why = "nothing in the file tells the release; pass them by name to be sure";
      }
      notes_.push_back(src_.where(call.at) + ": " + what + ": positional arguments read as Albumentations " +
                       (v == 0 ? "1.x's " : "2.x's ") + listed(v) + ", not " + (v == 0 ? "2.x's " : "1.x's ") +
                       listed(1 - v) + " (" + why + ")");
      return prefix(v);
    }
    for (int v = 0; v < 2; ++v)
      if (m[v] == n) {
        if (!sig[1 - v].empty() && prefix(v) != std::vector<std::string>(sig[1 - v].begin(), sig[1 - v].begin() + static_cast<long>(std::min(n, sig[1 - v].size()))))
          notes_.push_back(src_.where(call.at) + ": " + what + ": positional arguments read as Albumentations " +
                           (v == 0 ? "1.x's " : "2.x's ") + listed(v) + "; they do not fit " + (v == 0 ? "2.x's " : "1.x's ") +
                           listed(1 - v));
        return prefix(v);
      }
    // Neither release places them: name the first argument that cannot be placed.
    const std::size_t at = std::max(m[0], m[1]);
    auto takes = [&](int v) {
      return sig[v].empty() ? std::string(v == 0 ? "1.x has no " : "2.x has no ") + call.short_name()
                            : std::string(v == 0 ? "1.x takes (" : "2.x takes (") + join(sig[v], ", ") + ")";
    };
    const Value& arg = call.items[std::min(at, n - 1)];
    if ((sig[0].empty() || at >= sig[0].size()) && (sig[1].empty() || at >= sig[1].size()))
      fail(arg, what + ": positional argument " + std::to_string(at + 1) + " (" + arg.repr() +
                    ") is one too many: Albumentations " + takes(0) + "; " + takes(1));
    std::string reason;
    for (int v = 0; v < 2; ++v) {
      std::string r;
      if (sig[v].empty() || m[v] >= sig[v].size()) {
        r = takes(v);
      } else {
        const std::string& param = sig[v][m[v]];
        const bool repeated =
            std::any_of(call.named.begin(), call.named.end(), [&](const auto& kv) { return kv.first == param; });
        r = (v == 0 ? "1.x: " : "2.x: ") + (repeated ? "argument " + std::to_string(m[v] + 1) + " is " + param +
                                                           ", also given by name"
                                                     : "argument " + std::to_string(m[v] + 1) + " (" +
                                                           call.items[m[v]].repr() + ") is not a " + param);
      }
      reason += (reason.empty() ? "" : "; ") + r;
    }
    fail(arg, what + ": positional argument " + std::to_string(at + 1) + " (" + arg.repr() +
                  ") cannot be placed: Albumentations " + reason);
  }

  const py::Source& src_;
  std::vector<std::string>& notes_;
  TransformPlaces& places_;
  int v1_ = 0, v2_ = 0;
  int forced_ = 0;  // --release: 1 or 2
};

// ------------------------------------------------------------------------------------------------
// torchvision: each transform's positional parameters (transforms and transforms.v2 agree) and its
// stage.

class TvArgs;
using TvConvert = ojson (*)(const TvArgs&);

struct TvRule {
  const char* name;
  const char* params;  // positional order
  double p;            // the transform's probability when it has one as a parameter, else 1
  const char* stage;   // for the table
  const char* how;
  TvConvert convert;
};

class TvArgs {
 public:
  TvArgs(const py::Source& src, const Value& call, std::vector<std::string>& notes) : src_(src), call_(call), notes_(notes) {}

  void bind(const std::vector<std::string>& names) {
    for (std::size_t i = 0; i < call_.items.size(); ++i) {
      if (i >= names.size())
        fail(call_.items[i], text() + "(...): positional argument " + std::to_string(i + 1) + " (" + call_.items[i].repr() +
                                 ") is one too many: torchvision's " + call_.short_name() + " takes (" + join(names, ", ") + ")");
      args_[names[i]] = &call_.items[i];
    }
    for (const auto& [k, v] : call_.named) {
      if (args_.count(k)) fail(v, text() + "(...): " + k + " is given twice");
      if (std::find(names.begin(), names.end(), k) == names.end())
        fail(v, text() + "(...): torchvision's " + call_.short_name() + " has no parameter " + k + " (it takes " + join(names, ", ") + ")");
      args_[k] = &v;
    }
  }

  std::string text() const { return call_.written.empty() ? call_.short_name() : call_.written; }
  const Value& call() const { return call_; }
  // A parameter given and not None.
  const Value* get(const std::string& k) const {
    const auto it = args_.find(k);
    return it == args_.end() || it->second->kind == Kind::none ? nullptr : it->second;
  }
  bool has(const std::string& k) const { return get(k) != nullptr; }
  [[noreturn]] void fail(const Value& at, const std::string& what) const { throw PipelineError(src_.where(at.at) + ": " + what); }
  [[noreturn]] void bad(const std::string& k, const std::string& what) const {
    fail(*get(k), text() + "(...): " + k + " " + what + ", not " + get(k)->repr());
  }
  void note(const std::string& what) const { notes_.push_back(src_.where(call_.at) + ": " + text() + ": " + what); }

  double number(const std::string& k, double fallback) const {
    const Value* v = get(k);
    if (!v) return fallback;
    if (!v->is_number()) bad(k, "must be a number");
    return v->number();
  }
  bool flag(const std::string& k, bool fallback) const {
    const Value* v = get(k);
    if (!v) return fallback;
    if (v->kind != Kind::boolean) bad(k, "must be True or False");
    return v->b;
  }
  // A number as itself, a sequence of numbers as a list.
  ojson numbers(const std::string& k) const {
    const Value* v = get(k);
    if (v->is_number()) return num(*v);
    if ((v->kind == Kind::tuple || v->kind == Kind::list) &&
        std::all_of(v->items.begin(), v->items.end(), [](const Value& i) { return i.is_number(); })) {
      ojson a = ojson::array();
      for (const Value& i : v->items) a.push_back(num(i));
      return a;
    }
    bad(k, "must be a number or a sequence of numbers");
  }
  static ojson num(const Value& v) { return v.kind == Kind::integer ? ojson(v.i) : ojson(v.f); }
  // [lo, hi] from a pair.
  ojson pair(const std::string& k) const {
    const ojson a = numbers(k);
    if (!a.is_array() || a.size() != 2) bad(k, "must be a pair (lo, hi)");
    return a;
  }
  // torchvision's size: an int (both sides), (h, w) or [s]; as [width, height].
  ojson size(const std::string& k = "size") const {
    const ojson a = numbers(k);
    if (a.is_number_integer()) return ojson::array({a, a});
    if (a.is_array() && a.size() == 1 && a[0].is_number_integer()) return ojson::array({a[0], a[0]});
    if (a.is_array() && a.size() == 2 && a[0].is_number_integer() && a[1].is_number_integer()) return ojson::array({a[1], a[0]});
    bad(k, "must be an int or (height, width)");
  }
  // torchvision's max_size (the longer side's cap) onto a resize stage.
  void max_size(ojson& s) const {
    const Value* v = get("max_size");
    if (v->kind != Kind::integer || v->i < 1) bad("max_size", "must be a positive int");
    s["max_size"] = v->i;
  }
  // degrees d -> [-d, d]; (lo, hi) as is.
  ojson degrees(const std::string& k) const {
    const ojson a = numbers(k);
    if (a.is_number()) {
      const double d = std::fabs(a.get<double>());
      return d == 0 ? ojson(0) : ojson::array({-d, d});
    }
    if (a.size() != 2) bad(k, "must be a number or (lo, hi)");
    return a;
  }
  std::string interpolation(const std::string& fallback) const {
    const Value* v = get("interpolation");
    if (!v) return fallback;
    if (v->kind == Kind::integer) {  // PIL's codes, which torchvision once took
      if (v->i == 0) return "nearest";
      if (v->i == 2) return "bilinear";
      if (v->i == 3) return "bicubic";
    }
    if (v->kind == Kind::symbol) {
      const std::string s = v->s;
      if (s == "InterpolationMode.NEAREST") return "nearest";
      if (s == "InterpolationMode.BILINEAR") return "bilinear";
      if (s == "InterpolationMode.BICUBIC") return "bicubic";
    }
    bad("interpolation", "has no stage equivalent (NEAREST, BILINEAR or BICUBIC)");
  }
  std::string padding_mode() const {
    const Value* v = get("padding_mode");
    if (!v) return "constant";
    if (v->kind == Kind::string) {
      if (v->s == "constant") return "constant";
      if (v->s == "edge") return "replicate";
      if (v->s == "reflect") return "reflect101";  // torch's reflect does not repeat the edge
      if (v->s == "symmetric") return "reflect";
    }
    bad("padding_mode", "must be constant, edge, reflect or symmetric");
  }
  // fill: a number or one per channel; a dict per type gives its "image" entry (the masks take the
  // labels block's mask_fill).
  void fill(ojson& s) const {
    if (!has("fill")) return;
    const Value& v = *get("fill");
    if (v.kind != Kind::dict) {
      s["fill"] = numbers("fill");
      return;
    }
    // The image's entry: "image" (Albumentations), tv_tensors.Image (torchvision), else torchvision's
    // "others" (what a type the dict does not name gets).
    const Value* image = nullptr;
    for (const auto& [key, value] : v.named) {
      std::string k = key;
      std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      if (k == "image" || k == "tv_tensors.image") image = &value;
    }
    for (const auto& [key, value] : v.named)
      if (!image && key == "others") image = &value;
    if (image) {
      const Value& value = *image;
      if (value.is_number()) s["fill"] = num(value);
      else if ((value.kind == Kind::tuple || value.kind == Kind::list) &&
               std::all_of(value.items.begin(), value.items.end(), [](const Value& i) { return i.is_number(); })) {
        ojson a = ojson::array();
        for (const Value& i : value.items) a.push_back(num(i));
        s["fill"] = a;
      } else {
        bad("fill", "its image entry must be a number or one per channel");
      }
      note("fill per type: the image's is taken; masks get the pipeline's labels block mask_fill");
      return;
    }
    bad("fill", "per type (a dict) without an \"image\", tv_tensors.Image or \"others\" entry has no stage equivalent; give a number or one per channel");
  }
  // center (x, y) with the origin at the top-left corner -> pixel-centre coordinates.
  void center(ojson& s) const {
    if (!has("center")) return;
    const ojson c = numbers("center");
    if (!c.is_array() || c.size() != 2) bad("center", "must be (x, y)");
    s["center"] = ojson::array({c[0].get<double>() - 0.5, c[1].get<double>() - 0.5});
  }

 private:
  const py::Source& src_;
  const Value& call_;
  std::vector<std::string>& notes_;
  std::map<std::string, const Value*> args_;
};

ojson with_stage(const char* name) { return ojson{{"stage", name}}; }

// A batch transform (MixUp, CutMix) as the partner stage `stage` with its alpha: the partner comes
// from the run's inputs, and there is no class target to mix; the manifest records `recorded`.
ojson batch_partner(const TvArgs& a, const char* stage, const char* recorded) {
  ojson s = with_stage(stage);
  s["alpha"] = a.number("alpha", 1.0);
  a.note(std::string("the partner is drawn from the run's inputs instead of the batch, and the class targets are "
                     "not mixed (a file has none); the manifest records each image's partner and ") +
         recorded);
  return s;
}

const char* kAntialias =
    "resize samples without low-pass filtering when shrinking (OpenCV's INTER_LINEAR), where torchvision antialiases "
    "(antialias=True, and always for PIL images); interpolation area is the closest for large reductions";
// Whether torchvision would antialias where resize does not: a shrinking interpolation other than
// nearest with antialias left on.
bool antialiased(const TvArgs& a) { return a.interpolation("bilinear") != "nearest" && a.flag("antialias", true); }

const std::vector<TvRule>& tv_rules() {
  static const std::vector<TvRule> r = {
      {"RandomResizedCrop", "size scale ratio interpolation antialias", 1, "random_resized_crop",
       "size (h, w) becomes [w, h]; scale, ratio, interpolation",
       [](const TvArgs& a) {
         ojson s = with_stage("random_resized_crop");
         s["size"] = a.size();
         if (a.has("scale")) s["scale"] = a.pair("scale");
         if (a.has("ratio")) s["ratio"] = a.pair("ratio");
         s["interpolation"] = a.interpolation("bilinear");
         if (antialiased(a)) a.note(kAntialias);
         return s;
       }},
      {"RandomHorizontalFlip", "p", 0.5, "flip", "direction horizontal",
       [](const TvArgs&) { return ojson{{"stage", "flip"}, {"direction", "horizontal"}}; }},
      {"RandomVerticalFlip", "p", 0.5, "flip", "direction vertical",
       [](const TvArgs&) { return ojson{{"stage", "flip"}, {"direction", "vertical"}}; }},
      {"RandomCrop", "size padding pad_if_needed fill padding_mode", 1, "crop",
       "position random; padding, pad_if_needed, fill, padding_mode (edge: replicate, reflect: reflect101, symmetric: "
       "reflect)",
       [](const TvArgs& a) {
         ojson s = with_stage("crop");
         s["size"] = a.size();
         s["position"] = "random";
         if (a.has("padding")) s["padding"] = a.numbers("padding");
         if (a.flag("pad_if_needed", false)) s["pad_if_needed"] = true;
         if (a.has("padding") || a.flag("pad_if_needed", false)) {
           s["border"] = a.padding_mode();
           a.fill(s);
         }
         return s;
       }},
      {"CenterCrop", "size", 1, "crop", "position center",
       [](const TvArgs& a) {
         ojson s = with_stage("crop");
         s["size"] = a.size();
         s["position"] = "center";
         return s;
       }},
      {"Resize", "size interpolation max_size antialias", 1, "resize",
       "an int is short_side, (h, w) is size [w, h]; interpolation; max_size (with an int size)",
       [](const TvArgs& a) {
         ojson s = with_stage("resize");
         const ojson n = a.numbers("size");
         if (n.is_number_integer()) s["short_side"] = n;
         else if (n.is_array() && n.size() == 1 && n[0].is_number_integer()) s["short_side"] = n[0];
         else s["size"] = a.size();
         if (a.has("max_size") && a.get("max_size")->kind != Kind::none) {
           if (!s.contains("short_side")) a.bad("max_size", "applies only where size is one side (an int)");
           a.max_size(s);
         }
         s["interpolation"] = a.interpolation("bilinear");
         if (antialiased(a)) a.note(kAntialias);
         return s;
       }},
      {"RandomShortestSize", "min_size max_size interpolation antialias", 1, "resize",
       "min_size (an int, or a sequence: one_of resize stages, one per value) is short_side; max_size; interpolation",
       [](const TvArgs& a) {
         const ojson sides = a.numbers("min_size");
         const auto one = [&](const ojson& side) {
           if (!side.is_number_integer()) a.bad("min_size", "must be an int or a sequence of ints");
           ojson s = with_stage("resize");
           s["short_side"] = side;
           if (a.has("max_size") && a.get("max_size")->kind != Kind::none) a.max_size(s);
           s["interpolation"] = a.interpolation("bilinear");
           return s;
         };
         if (antialiased(a)) a.note(kAntialias);
         if (!sides.is_array()) return one(sides);
         if (sides.empty()) a.bad("min_size", "is empty");
         if (sides.size() == 1) return one(sides[0]);
         ojson choice = with_stage("one_of");
         choice["stages"] = ojson::array();
         for (const auto& side : sides) choice["stages"].push_back(one(side));
         return choice;
       }},
      {"RandomResize", "min_size max_size interpolation antialias", 1, "resize",
       "short_side [min_size, max_size - 1] (an integer drawn per image, as torch.randint); interpolation",
       [](const TvArgs& a) {
         const double lo = a.number("min_size", 0), hi = a.number("max_size", 0);
         if (lo < 1 || hi <= lo || lo != std::floor(lo) || hi != std::floor(hi))
           a.fail(a.call(), a.text() + "(...): min_size and max_size must be integers with 1 <= min_size < max_size");
         ojson s = with_stage("resize");
         s["short_side"] = hi - 1 == lo ? ojson(static_cast<std::int64_t>(lo))
                                        : ojson::array({static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi) - 1});
         s["interpolation"] = a.interpolation("bilinear");
         if (antialiased(a)) a.note(kAntialias);
         return s;
       }},
      {"ScaleJitter", "target_size scale_range interpolation antialias", 1, "resize",
       "a square target_size (T, T): long_side [T * lo, T * hi] of scale_range (default (0.1, 2.0)), the same "
       "uniform scale; interpolation",
       [](const TvArgs& a) {
         const ojson t = a.size("target_size");
         if (t[0] != t[1])
           a.bad("target_size", "with height and width different has no stage equivalent (resize sets a long or a "
                                "short side, not a box to fit); give a square size");
         const ojson r = a.has("scale_range") ? a.pair("scale_range") : ojson::array({0.1, 2.0});
         const double T = t[0].get<double>();
         const auto lo = static_cast<std::int64_t>(std::max(1.0, std::floor(T * r[0].get<double>())));
         const auto hi = static_cast<std::int64_t>(std::max(1.0, std::floor(T * r[1].get<double>())));
         ojson s = with_stage("resize");
         s["long_side"] = lo == hi ? ojson(lo) : ojson::array({lo, hi});
         s["interpolation"] = a.interpolation("bilinear");
         if (antialiased(a)) a.note(kAntialias);
         return s;
       }},
      {"FixedSizeCrop", "size fill padding_mode", 1, "sequence",
       "as a sequence: pad (min_size, position top-left, fill, padding_mode) then crop (size, position random): "
       "a random window of at most size, padded at the right and bottom up to it",
       [](const TvArgs& a) {
         const ojson size = a.size();
         ojson pad = with_stage("pad");
         pad["min_size"] = size;
         pad["position"] = "top-left";
         pad["border"] = a.has("padding_mode") ? ojson(a.padding_mode()) : ojson("constant");
         a.fill(pad);
         ojson crop = with_stage("crop");
         crop["size"] = size;
         crop["position"] = "random";
         ojson s = with_stage("sequence");
         s["stages"] = ojson::array({pad, crop});
         return s;
       }},
      {"RandomIoUCrop", "min_scale max_scale min_aspect_ratio max_aspect_ratio sampler_options trials", 1, "iou_crop",
       "the same parameters; boxes whose centre the window leaves out are dropped (torchvision zeroes them for a "
       "later SanitizeBoundingBoxes)",
       [](const TvArgs& a) {
         ojson s = with_stage("iou_crop");
         for (const char* k : {"min_scale", "max_scale", "min_aspect_ratio", "max_aspect_ratio"})
           if (a.has(k)) s[k] = a.number(k, 0);
         if (a.has("trials")) s["trials"] = static_cast<std::int64_t>(std::llround(a.number("trials", 40)));
         if (a.has("sampler_options")) s["sampler_options"] = a.numbers("sampler_options");
         return s;
       }},
      {"RandomZoomOut", "fill side_range p", 0.5, "zoom_out", "side_range; fill (one value or per channel)",
       [](const TvArgs& a) {
         ojson s = with_stage("zoom_out");
         if (a.has("side_range")) s["side_range"] = a.pair("side_range");
         a.fill(s);
         return s;
       }},
      {"Pad", "padding fill padding_mode", 1, "pad", "padding, fill, padding_mode as RandomCrop's",
       [](const TvArgs& a) {
         ojson s = with_stage("pad");
         s["padding"] = a.numbers("padding");
         s["border"] = a.padding_mode();
         a.fill(s);
         return s;
       }},
      {"RandomRotation", "degrees interpolation expand center fill", 1, "rotate",
       "degrees d is angle [-d, d] (counter-clockwise); interpolation (default nearest), expand, center, fill",
       [](const TvArgs& a) {
         ojson s = with_stage("rotate");
         s["angle"] = a.degrees("degrees");
         s["interpolation"] = a.interpolation("nearest");
         if (a.flag("expand", false)) s["expand"] = true;
         a.center(s);
         a.fill(s);
         return s;
       }},
      {"RandomAffine", "degrees translate scale shear interpolation fill center", 1, "affine",
       "degrees is angle [-d, d]; translate, scale, shear (s, (lo, hi) or four values); interpolation (default nearest), "
       "fill, center",
       [](const TvArgs& a) {
         ojson s = with_stage("affine");
         const ojson angle = a.degrees("degrees");
         if (angle != ojson(0)) s["angle"] = angle;
         if (a.has("translate")) s["translate"] = a.pair("translate");
         if (a.has("scale")) s["scale"] = a.pair("scale");
         if (a.has("shear")) s["shear"] = a.numbers("shear");
         s["interpolation"] = a.interpolation("nearest");
         a.fill(s);
         a.center(s);
         return s;
       }},
      {"RandomPerspective", "distortion_scale p interpolation fill", 0.5, "perspective",
       "distortion_scale, interpolation, fill",
       [](const TvArgs& a) {
         ojson s = with_stage("perspective");
         if (a.has("distortion_scale")) s["distortion_scale"] = a.numbers("distortion_scale");
         s["interpolation"] = a.interpolation("bilinear");
         a.fill(s);
         return s;
       }},
      {"RandomPhotometricDistort", "brightness contrast saturation hue p", 1, "sequence",
       "as a sequence: brightness, then contrast, saturation and hue (contrast before or after the other two, "
       "at even odds), then channel_shuffle, each part with probability p (default 0.5); the ranges as they are "
       "(defaults (0.875, 1.125), (0.5, 1.5), (0.5, 1.5), (-0.05, 0.05))",
       [](const TvArgs& a) {
         const double p = a.number("p", 0.5);
         const auto part = [&](const char* k, ojson fallback) {
           ojson s = with_stage("color_jitter");
           s[k] = a.has(k) ? a.numbers(k) : fallback;
           s["p"] = p;
           return s;
         };
         const ojson contrast = part("contrast", {0.5, 1.5}), saturation = part("saturation", {0.5, 1.5}),
                     hue = part("hue", {-0.05, 0.05});
         ojson before = with_stage("sequence"), after = with_stage("sequence");
         before["stages"] = ojson::array({contrast, saturation, hue});
         after["stages"] = ojson::array({saturation, hue, contrast});
         ojson order = with_stage("one_of");
         order["stages"] = ojson::array({before, after});
         ojson shuffle = with_stage("channel_shuffle");
         shuffle["p"] = p;
         ojson s = with_stage("sequence");
         s["stages"] = ojson::array({part("brightness", {0.875, 1.125}), order, shuffle});
         a.note("its parts as a sequence of color_jitter and channel_shuffle stages, with "
                "the same probabilities and order");
         return s;
       }},
      {"ColorJitter", "brightness contrast saturation hue", 1, "color_jitter", "brightness, contrast, saturation, hue as they are",
       [](const TvArgs& a) {
         ojson s = with_stage("color_jitter");
         for (const char* k : {"brightness", "contrast", "saturation", "hue"})
           if (a.has(k)) {
             const ojson v = a.numbers(k);
             if (!(v.is_number() && v.get<double>() == 0)) s[k] = v;
           }
         return s;
       }},
      {"RandomGrayscale", "p", 0.1, "grayscale", "the channel count is kept",
       [](const TvArgs&) { return with_stage("grayscale"); }},
      {"Grayscale", "num_output_channels", 1, "grayscale", "the channel count is kept (num_output_channels 1 gets a note)",
       [](const TvArgs& a) {
         if (a.number("num_output_channels", 1) == 1)
           a.note("num_output_channels 1: grayscale keeps the image's channels (three equal ones), it does not make one");
         return with_stage("grayscale");
       }},
      {"GaussianBlur", "kernel_size sigma", 1, "gaussian_blur",
       "kernel_size (one odd size), sigma (default (0.1, 2.0)); torch's reflect border is reflect101",
       [](const TvArgs& a) {
         ojson s = with_stage("gaussian_blur");
         const ojson k = a.numbers("kernel_size");
         if (k.is_array() && (k.size() != 2 || k[0] != k[1]))
           a.bad("kernel_size", "must be one size (the stage's kernel is square)");
         s["kernel_size"] = k.is_array() ? k[0] : k;
         s["sigma"] = a.has("sigma") ? a.numbers("sigma") : ojson::array({0.1, 2.0});
         if (s["sigma"].is_array() && s["sigma"].size() == 2 && s["sigma"][0] == s["sigma"][1]) s["sigma"] = s["sigma"][0];
         return s;
       }},
      {"RandomInvert", "p", 0.5, "invert", "", [](const TvArgs&) { return with_stage("invert"); }},
      {"RandomPosterize", "bits p", 0.5, "posterize", "bits",
       [](const TvArgs& a) {
         ojson s = with_stage("posterize");
         s["bits"] = a.numbers("bits");
         return s;
       }},
      {"RandomSolarize", "threshold p", 0.5, "solarize",
       "threshold in pixel values (above 1) becomes a fraction of 255; one of at most 1 is taken as a fraction",
       [](const TvArgs& a) {
         ojson s = with_stage("solarize");
         const double t = a.number("threshold", 0);
         if (t > 1) {
           s["threshold"] = t / 255.0;
         } else {
           s["threshold"] = t;
           a.note("threshold " + format_number(t) + " read as a fraction of the range (a float image's threshold)");
         }
         return s;
       }},
      {"RandomAdjustSharpness", "sharpness_factor p", 0.5, "sharpness", "sharpness_factor is factor",
       [](const TvArgs& a) {
         ojson s = with_stage("sharpness");
         s["factor"] = a.numbers("sharpness_factor");
         return s;
       }},
      {"RandomAutocontrast", "p", 0.5, "autocontrast", "", [](const TvArgs&) { return with_stage("autocontrast"); }},
      {"RandomEqualize", "p", 0.5, "equalize", "", [](const TvArgs&) { return with_stage("equalize"); }},
      {"RandAugment", "num_ops magnitude num_magnitude_bins interpolation fill", 1, "rand_augment",
       "num_ops, magnitude, num_magnitude_bins, interpolation, fill",
       [](const TvArgs& a) {
         ojson s = with_stage("rand_augment");
         for (const char* k : {"num_ops", "magnitude", "num_magnitude_bins"})
           if (a.has(k)) s[k] = a.numbers(k);
         if (a.has("interpolation")) s["interpolation"] = a.interpolation("nearest");
         a.fill(s);
         return s;
       }},
      {"TrivialAugmentWide", "num_magnitude_bins interpolation fill", 1, "trivial_augment",
       "num_magnitude_bins, interpolation, fill",
       [](const TvArgs& a) {
         ojson s = with_stage("trivial_augment");
         if (a.has("num_magnitude_bins")) s["num_magnitude_bins"] = a.numbers("num_magnitude_bins");
         if (a.has("interpolation")) s["interpolation"] = a.interpolation("nearest");
         a.fill(s);
         return s;
       }},
      {"AutoAugment", "policy interpolation fill", 1, "auto_augment",
       "policy (AutoAugmentPolicy.IMAGENET, CIFAR10, SVHN), interpolation, fill",
       [](const TvArgs& a) {
         ojson s = with_stage("auto_augment");
         if (const Value* p = a.get("policy")) {
           const std::string word = p->kind == Kind::symbol && p->s.rfind("AutoAugmentPolicy.", 0) == 0 ? p->s.substr(18) : "";
           if (word == "IMAGENET") s["policy"] = "imagenet";
           else if (word == "CIFAR10") s["policy"] = "cifar10";
           else if (word == "SVHN") s["policy"] = "svhn";
           else a.bad("policy", "must be AutoAugmentPolicy.IMAGENET, CIFAR10 or SVHN");
         }
         if (a.has("interpolation")) s["interpolation"] = a.interpolation("nearest");
         a.fill(s);
         return s;
       }},
      {"RandomErasing", "p scale ratio value inplace", 0.5, "random_erasing",
       "scale, ratio, value (fractions of the range; \"random\" is random)",
       [](const TvArgs& a) {
         ojson s = with_stage("random_erasing");
         if (a.has("scale")) s["scale"] = a.pair("scale");
         if (a.has("ratio")) s["ratio"] = a.pair("ratio");
         if (const Value* v = a.get("value")) {
           if (v->kind == Kind::string) {
             if (v->s != "random") a.bad("value", "must be a number, one per channel or \"random\"");
             s["random"] = true;
           } else {
             s["value"] = a.numbers("value");
           }
         }
         return s;
       }},
      {"RandomChannelPermutation", "", 1, "channel_shuffle", "p 1", [](const TvArgs&) { return with_stage("channel_shuffle"); }},
      {"GaussianNoise", "mean sigma clip", 1, "gaussian_noise", "mean, sigma (fractions of the range), clip",
       [](const TvArgs& a) {
         ojson s = with_stage("gaussian_noise");
         if (a.has("mean")) s["mean"] = a.numbers("mean");
         if (a.has("sigma")) s["sigma"] = a.numbers("sigma");
         if (a.has("clip")) s["clip"] = a.flag("clip", true);
         return s;
       }},
      // Batch transforms (applied by a collate function, after Compose): the partner is one of the run's
      // inputs instead of another image of the batch, and a file has no class target to mix.
      {"MixUp", "alpha num_classes labels_getter", 1, "mixup",
       "alpha; the partner is drawn from the run's inputs, not the batch; class targets are not mixed (the manifest "
       "records the partner and ratio)",
       [](const TvArgs& a) { return batch_partner(a, "mixup", "ratio"); }},
      {"CutMix", "alpha num_classes labels_getter", 1, "cutmix",
       "alpha; the partner is drawn from the run's inputs, not the batch; class targets are not mixed (the manifest "
       "records the partner and the share kept)",
       [](const TvArgs& a) { return batch_partner(a, "cutmix", "the share it keeps"); }},
      {"JPEG", "quality", 1, "jpeg", "quality (an int or (lo, hi))",
       [](const TvArgs& a) {
         ojson s = with_stage("jpeg");
         s["quality"] = a.numbers("quality");
         return s;
       }},
  };
  return r;
}

// Compositions and the transforms left out (with their parameters, so that their arguments are
// checked as the others' are).
struct TvOther {
  const char* name;
  const char* params;
};
const std::vector<TvOther>& tv_compositions() {
  static const std::vector<TvOther> c = {
      {"Compose", "transforms"}, {"RandomApply", "transforms p"}, {"RandomChoice", "transforms p"},
      {"RandomOrder", "transforms"}};
  return c;
}
const std::vector<TvOther>& tv_left_out() {
  static const std::vector<TvOther> l = {{"ToTensor", ""},
                                         {"PILToTensor", ""},
                                         {"ToImage", ""},
                                         {"ToPureTensor", ""},
                                         {"ToPILImage", "mode"},
                                         {"ToDtype", "dtype scale"},
                                         {"ConvertImageDtype", "dtype"},
                                         {"Normalize", "mean std inplace"},
                                         {"SanitizeBoundingBoxes", "min_size labels_getter"},
                                         {"ClampBoundingBoxes", ""},
                                         {"ConvertBoundingBoxFormat", "format"}};
  return l;
}

struct TvMissing {
  const char* name;
  const char* closest;
  const char* why;
};
const std::vector<TvMissing>& tv_missing() {
  static const std::vector<TvMissing> m = {
      {"ElasticTransform", "elastic",
       "torchvision's alpha is divided by the image size; elastic takes Kornia's alpha, kernel_size and sigma"},
      {"AugMix", nullptr, "it mixes several augmented chains"},
      {"FiveCrop", "crop", "it returns several images"},
      {"TenCrop", "crop", "it returns several images"},
      {"LinearTransformation", nullptr, "a whitening matrix"},
      {"Lambda", nullptr, "arbitrary Python code"},
  };
  return m;
}

template <typename T>
const T* find_named(const std::vector<T>& v, const std::string& name) {
  for (const T& x : v)
    if (name == x.name) return &x;
  return nullptr;
}

class TvImporter {
 public:
  TvImporter(const py::Source& src, Imported& out) : src_(src), out_(out) {}

  ojson list(const TvArgs& parent, const std::string& pointer) {
    const Value* v = parent.get("transforms");
    if (!v || (v->kind != Kind::list && v->kind != Kind::tuple))
      parent.fail(v ? *v : parent.call(), parent.text() + "(...): transforms must be a list of transforms");
    ojson stages = ojson::array();
    for (const Value& c : v->items) {
      if (c.kind != Kind::call) parent.fail(c, c.repr() + " in " + parent.text() + "'s transforms is not a transform");
      const std::string ptr = pointer + "/" + std::to_string(stages.size());
      ojson s = node(c, ptr);
      if (s.is_null()) continue;
      out_.stage_places.emplace_back(ptr, src_.where(c.at));
      stages.push_back(std::move(s));
    }
    return stages;
  }

  ojson node(const Value& c, const std::string& pointer) {
    const std::string name = c.short_name();
    TvArgs a(src_, c, out_.notes);
    if (c.s.rfind("torchvision.transforms.", 0) != 0)
      a.fail(c, a.text() + "(...) is not a torchvision transform");
    if (const TvOther* comp = find_named(tv_compositions(), name)) {
      a.bind(words(comp->params));
      ojson s;
      if (name == "RandomChoice") {
        s = ojson{{"stage", "one_of"}};
        s["stages"] = list(a, pointer + "/stages");
        if (a.has("p")) {
          const ojson w = a.numbers("p");
          if (!w.is_array() || w.size() != s["stages"].size())
            a.bad("p", "must be one weight per transform");
          s["weights"] = w;
        }
      } else if (name == "RandomOrder") {  // all of them, in an order drawn per image
        s = ojson{{"stage", "some_of"}};
        s["stages"] = list(a, pointer + "/stages");
        s["n"] = s["stages"].size();
        s["random_order"] = true;
      } else {
        s = ojson{{"stage", "sequence"}};
        s["stages"] = list(a, pointer + "/stages");
        const double p = name == "RandomApply" ? a.number("p", 0.5) : 1.0;
        if (p != 1.0) s["p"] = p;
      }
      if (s["stages"].empty()) {
        a.note(name + " left out: none of its transforms remains");
        return nullptr;
      }
      return s;
    }
    if (const TvOther* l = find_named(tv_left_out(), name)) {
      a.bind(words(l->params));
      if (name == "Normalize") normalized_ = normalization(a);
      out_.notes.push_back(src_.where(c.at) + ": " + a.text() + " left out: " +
                           (name == "SanitizeBoundingBoxes"
                                ? "augment drops the boxes that leave the image, and the labels block's min_size, "
                                  "min_area and min_visibility drop small ones (docs/labels.md)"
                                : "augment writes image files; do it in the training loader"));
      return nullptr;
    }
    const TvRule* r = find_named(tv_rules(), name);
    if (!r) {
      const TvMissing* m = find_named(tv_missing(), name);
      std::string what = " (no close stage)";
      if (m && m->closest) what = std::string(" (closest stage: ") + m->closest + (*m->why ? "; " : "") + m->why + ")";
      else if (m) what = std::string(" (no close stage: ") + m->why + ")";
      missing_.push_back(src_.where(c.at) + ": " + name + what);
      return nullptr;
    }
    a.bind(words(r->params));
    ojson s = r->convert(a);
    if (name == "RandomErasing" && normalized_) erase_after_normalize(a, s);
    const std::vector<std::string> params = words(r->params);
    // RandomPhotometricDistort's p is each part's, which its conversion gives them.
    const bool own_p = std::find(params.begin(), params.end(), "p") != params.end() && name != "RandomPhotometricDistort";
    const double p = own_p ? a.number("p", r->p) : r->p;
    const StageSpec* spec = find_spec(s.value("stage", std::string()));
    if (p != 1.0 || (spec && spec->default_p != 1.0)) s["p"] = p;
    return s;
  }

  const std::vector<std::string>& missing() const { return missing_; }

 private:
  // A Normalize's per-channel mean and std where they are literal (empty where they are not).
  struct Normalization {
    std::vector<double> mean, std;
  };
  static Normalization normalization(const TvArgs& a) {
    Normalization n;
    const auto read = [&](const char* k, std::vector<double>& out) {
      const Value* v = a.get(k);
      if (!v || (v->kind != Kind::list && v->kind != Kind::tuple)) return;
      for (const Value& i : v->items) {
        if (!i.is_number()) {
          out.clear();
          return;
        }
        out.push_back(i.number());
      }
    };
    read("mean", n.mean);
    read("std", n.std);
    if (n.mean.size() != n.std.size()) n.mean.clear(), n.std.clear();
    return n;
  }

  // RandomErasing after a Normalize erases in normalized units: its constant value v is the colour
  // mean + std v of the image (a fraction of the range, per channel), 0 the mean colour.
  void erase_after_normalize(const TvArgs& a, ojson& s) const {
    const std::string where = src_.where(a.call().at) + ": " + a.text() + " after Normalize: ";
    if (s.value("random", false)) {
      out_.notes.push_back(where + "torchvision's random fill there is mean + std z per channel; random_erasing "
                                   "draws z itself as a fraction of the range");
      return;
    }
    const Normalization& n = *normalized_;
    if (n.mean.empty()) {
      out_.notes.push_back(where + "its value is in normalized units (0 is the mean colour), but the Normalize's mean "
                                   "and std are not literals: the fill is the value as a fraction of the range");
      return;
    }
    std::vector<double> v;
    if (s.contains("value")) {
      if (s["value"].is_array())
        for (const auto& x : s["value"]) v.push_back(x.get<double>());
      else v.push_back(s["value"].get<double>());
    }
    if (v.empty()) v.push_back(0.0);
    ojson fill = ojson::array();
    for (std::size_t c = 0; c < n.mean.size(); ++c) {
      const double z = v[std::min(c, v.size() - 1)];
      fill.push_back(std::clamp(n.mean[c] + n.std[c] * z, 0.0, 1.0));
    }
    s["value"] = fill;
    out_.notes.push_back(where + "its value is in normalized units: the fill is mean + std value, " + fill.dump());
  }

  const py::Source& src_;
  Imported& out_;
  std::vector<std::string> missing_;
  std::optional<Normalization> normalized_;  // a Normalize came before, in the order the transforms run
};

}  // namespace

bool albumentations_signature_known(const std::string& name) { return find_signature(name) != nullptr; }

namespace {

// The saved transforms (in the order written, once each) that leave out a parameter whose default
// differs between 1.x and 2.x: each such parameter as the names it has in either release.
void release_dependent(const json& t, std::vector<std::string>& out) {
  using Groups = std::vector<std::vector<const char*>>;
  static const std::map<std::string, Groups> params = {
      {"GaussNoise", {{"var_limit", "std_range"}}},
      {"CoarseDropout", {{"max_holes", "num_holes_range"}, {"max_height", "hole_height_range"},
                         {"max_width", "hole_width_range"}}},
      {"Rotate", {{"border_mode"}}},
      {"ShiftScaleRotate", {{"border_mode"}}},
      {"PadIfNeeded", {{"border_mode"}}},
      {"GridDistortion", {{"border_mode"}, {"normalized"}}},
      {"ElasticTransform", {{"border_mode"}, {"noise_distribution"}}},
      {"OpticalDistortion", {{"border_mode"}}},
      {"PiecewiseAffine", {{"border_mode", "mode"}}},
      {"GridDropout", {{"random_offset"}}}};
  if (!t.is_object()) return;
  const std::string name = t.value("__class_fullname__", std::string());
  const auto it = params.find(name);
  if (it != params.end() && std::find(out.begin(), out.end(), name) == out.end())
    for (const auto& names : it->second)
      if (std::none_of(names.begin(), names.end(), [&](const char* k) { return t.contains(k) && !t.at(k).is_null(); })) {
        out.push_back(name);
        break;
      }
  if (t.contains("transforms") && t.at("transforms").is_array())
    for (const json& i : t.at("transforms")) release_dependent(i, out);
}

}  // namespace

json albumentations_saved(const py::Source& source, const Value& compose, std::vector<std::string>& notes,
                          TransformPlaces& places, int release) {
  AlbumentationsWriter w(source, notes, places);
  w.survey(compose);
  if (release != 0 && w.surveyed() != 0 && w.surveyed() != release)
    notes.push_back(source.where(compose.at) + ": read as Albumentations " + std::to_string(release) +
                    ".x (--release), although its keywords are " + std::to_string(w.surveyed()) + ".x's");
  w.force(release);
  const int version = w.version();
  json saved = json::object();
  saved["__version__"] = version == 1 ? "1.x" : version == 2 ? "2.x" : "1.x or 2.x";
  saved["transform"] = w.transform(compose, "transform");
  if (version == 0) {
    std::vector<std::string> dependent;
    release_dependent(saved["transform"], dependent);
    if (!dependent.empty()) {
      std::string list;
      for (const std::string& n : dependent) list += (list.empty() ? "" : ", ") + n;
      notes.push_back(source.where(compose.at) + ": nothing in the script says whether it is written for Albumentations "
                      "1.x or 2.x; the parameters it leaves out of " + list + " take 1.x's defaults, which 2.x "
                      "changed (--release 2 reads them as 2.x's)");
    }
  }
  return saved;
}

namespace {

void dedupe(std::vector<std::string>& notes) {
  std::vector<std::string> out;
  for (const std::string& n : notes)
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  notes = std::move(out);
}

}  // namespace

Imported import_albumentations_python(const std::string& path, const std::string& name, int release) {
  const py::Source src = py::Source::read(path);
  const py::Found found = src.pick("albumentations", name);
  std::vector<std::string> notes;
  const Value compose = src.evaluate(found, notes);
  TransformPlaces places;
  const json saved = albumentations_saved(src, compose, notes, places, release);
  Imported out = import_albumentations(saved, path, &places);
  out.notes.insert(out.notes.begin(), notes.begin(), notes.end());
  dedupe(out.notes);
  out.pipeline["description"] = "Imported from " + path + " (" + found.label + ", line " + std::to_string(found.at.line) +
                                "; Albumentations " + saved["__version__"].get<std::string>() +
                                ") by augment import albumentations.";
  check_imported(out, path);
  return out;
}

Imported torchvision_pipeline(const py::Source& source, const Value& compose) {
  Imported out;
  TvImporter imp(source, out);
  TvArgs top(source, compose, out.notes);
  top.bind({"transforms"});
  const ojson stages = imp.list(top, "/stages");
  if (!imp.missing().empty()) {
    std::string msg = source.path() + ": " + std::to_string(imp.missing().size()) +
                      " transform(s) augment does not have; replace or remove them and import again:";
    for (const std::string& m : imp.missing()) msg += "\n  " + m;
    throw PipelineError(msg);
  }
  out.pipeline["version"] = 1;
  out.pipeline["description"] = "Imported from " + source.path() + " (torchvision) by augment import torchvision.";
  out.pipeline["stages"] = stages;
  return out;
}

Imported import_torchvision_python(const std::string& path, const std::string& name) {
  const py::Source src = py::Source::read(path);
  const py::Found found = src.pick("torchvision", name);
  std::vector<std::string> notes;
  const Value compose = src.evaluate(found, notes);
  Imported out = torchvision_pipeline(src, compose);
  out.notes.insert(out.notes.begin(), notes.begin(), notes.end());
  dedupe(out.notes);
  out.pipeline["description"] = "Imported from " + path + " (" + found.label + ", line " + std::to_string(found.at.line) +
                                "; torchvision) by augment import torchvision.";
  check_imported(out, path);
  return out;
}

std::string torchvision_hint(const std::string& name) {
  if (const TvRule* r = find_named(tv_rules(), name); r && std::string(r->stage) == "sequence")
    return std::string("that is torchvision's name for several stages; `augment import torchvision train.py` writes it ") +
           r->how;
  if (const TvRule* r = find_named(tv_rules(), name))
    return std::string("that is torchvision's name; the stage is \"") + r->stage + "\" (`augment describe " + r->stage +
           "` has its parameters; `augment import torchvision train.py` translates whole pipelines)";
  if (const TvMissing* m = find_named(tv_missing(), name))
    return "that is torchvision's name, and augment has no such stage yet" +
           (m->closest ? std::string(" (the closest: ") + m->closest + (*m->why ? "; " : "") + m->why + ")" : "");
  if (find_named(tv_left_out(), name))
    return "that is torchvision's name for a conversion a training loader does; augment writes image files, so "
           "leave it out";
  return "";
}

std::string torchvision_table_markdown() {
  struct Row {
    std::string name, cell, how;
  };
  std::vector<Row> rows;
  for (const TvRule& r : tv_rules()) {
    std::string how = r.how;
    if (r.p != 1) how += std::string(how.empty() ? "" : "; ") + "p (default " + format_number(r.p) + ")";
    rows.push_back({r.name, std::string("`") + r.stage + "`", how});
  }
  for (const TvMissing& m : tv_missing())
    rows.push_back({m.name, m.closest ? std::string("not available (closest: `") + m.closest + "`)" : "not available", m.why});
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
  std::ostringstream o;
  o << "| torchvision (transforms, transforms.v2) | augment | how |\n|---|---|---|\n";
  for (const Row& r : rows) o << "| " << r.name << " | " << r.cell << " | " << r.how << " |\n";
  o << "| Compose | `sequence` (the top Compose: the pipeline) | |\n"
    << "| RandomApply | `sequence` with p | p (default 0.5) |\n"
    << "| RandomChoice | `one_of` | p becomes `weights` |\n"
    << "| RandomOrder | `some_of` with `random_order` | n: all of them |\n"
    << "| ";
  for (std::size_t i = 0; i < tv_left_out().size(); ++i) o << (i ? ", " : "") << tv_left_out()[i].name;
  o << " | left out, with a note | they change what a training loader receives, not the image file |\n";
  return o.str();
}

}  // namespace aug
