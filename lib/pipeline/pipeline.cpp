#include "lib/pipeline/pipeline.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <optional>
#include <cmath>
#include <cstring>
#include <fstream>
#include <numeric>
#include <functional>
#include <sstream>

#include <spdlog/spdlog.h>

#include "lib/core/error.hpp"
#include "lib/core/text.hpp"
#include "lib/io/codec.hpp"
#include "lib/pipeline/albumentations.hpp"
#include "lib/pipeline/python_import.hpp"
#include "lib/pipeline/yaml.hpp"

namespace aug {

using nlohmann::json;

namespace {

const StageSpec* find_composition(const std::string& name) {
  for (const auto* s : composition_specs())
    if (s->name == name) return s;
  return nullptr;
}

class Loader {
 public:
  explicit Loader(std::string file) : file_(std::move(file)) {}

  // Every error found, at most kMaxErrors of them, one per line (the first is what a single error
  // would have said). Errors are gathered per stage and per top-level key.
  static constexpr std::size_t kMaxErrors = 20;
  void throw_errors() const {
    if (errors_.empty()) return;
    std::string text;
    for (std::size_t i = 0; i < errors_.size() && i < kMaxErrors; ++i) text += (i ? "\n" : "") + errors_[i];
    if (errors_.size() > kMaxErrors)
      text += "\n" + file_ + ": and " + std::to_string(errors_.size() - kMaxErrors) + " more error(s)";
    throw PipelineError(text);
  }

  std::unique_ptr<Node> root(const json& doc, std::optional<std::uint64_t>& seed, labels::LabelRules& rules,
                             DecodeRules& decode) {
    const Location top{file_, ""};
    if (!doc.is_object())
      throw PipelineError(file_ + ": a pipeline is a JSON object: {\"version\": 1, \"stages\": [...]}");
    static const std::vector<std::string> keys{"version", "seed", "stages", "description", "labels", "decode"};
    for (auto it = doc.begin(); it != doc.end(); ++it) {
      if (std::find(keys.begin(), keys.end(), it.key()) != keys.end()) continue;
      const auto near = closest(it.key(), keys, 1);
      errors_.push_back(top.child(it.key()).str() + ": unknown key \"" + it.key() + "\"" +
                        (near.empty() ? "" : " (did you mean \"" + near[0] + "\"?)") +
                        "; a pipeline has \"version\", \"seed\", \"stages\", \"description\", \"labels\" and "
                        "\"decode\"");
    }
    gather([&] {
      if (!doc.contains("version"))
        throw PipelineError(file_ + ": missing \"version\": " + std::to_string(kPipelineVersion));
      const json& version = doc["version"];
      if (!version.is_number_integer() || version.get<std::int64_t>() != kPipelineVersion)
        throw PipelineError(top.child("version").str() + ": unsupported version " + version.dump() +
                            "; this augment reads version " + std::to_string(kPipelineVersion));
    });
    gather([&] {
      if (!doc.contains("seed")) return;
      const json& s = doc["seed"];
      if (!s.is_number_integer() || (s.is_number_integer() && !s.is_number_unsigned() && s.get<std::int64_t>() < 0))
        throw PipelineError(top.child("seed").str() + ": \"seed\" must be a non-negative integer (got " + s.dump() + ")");
      seed = s.get<std::uint64_t>();
    });
    gather([&] {
      if (doc.contains("description") && !doc["description"].is_string())
        throw PipelineError(top.child("description").str() + ": \"description\" must be a string");
    });
    if (!doc.contains("stages")) {
      errors_.push_back(file_ + ": missing \"stages\": [...]");
      throw_errors();
    }
    gather([&] {
      if (doc.contains("labels")) rules = labels::LabelRules::parse(doc["labels"], file_);
    });
    gather([&] {
      if (doc.contains("decode")) decode = decode_rules(doc["decode"], top.child("decode"));
    });

    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::Sequence;
    node->name = "sequence";
    node->position = next_position_++;
    node->children = list(doc["stages"], top.child("stages"), /*allow_empty=*/true);
    throw_errors();
    return node;
  }

  std::size_t stages() const { return stages_; }

 private:
  static DecodeRules decode_rules(const json& v, const Location& where) {
    if (!v.is_object()) throw PipelineError(where.str() + ": \"decode\" is an object, e.g. {\"shrink\": true}");
    DecodeRules rules;
    for (auto it = v.begin(); it != v.end(); ++it) {
      if (it.key() != "shrink")
        throw PipelineError(where.child(it.key()).str() + ": unknown key \"" + it.key() +
                            "\"; \"decode\" has \"shrink\" (true: JPEGs decoded at 1/2, 1/4 or 1/8 when the "
                            "pipeline starts by shrinking them)");
      if (!it.value().is_boolean())
        throw PipelineError(where.child("shrink").str() + ": \"shrink\" must be true or false (got " +
                            it.value().dump() + ")");
      rules.shrink = it.value().get<bool>();
    }
    return rules;
  }

  // Runs `f`, keeping a PipelineError it throws (or a UsageError of the labels block) among the errors.
  template <class F>
  void gather(F&& f) {
    try {
      f();
    } catch (const Error& e) {
      errors_.push_back(e.what());
    }
  }

  std::vector<Node> list(const json& v, const Location& where, bool allow_empty) {
    if (!v.is_array()) throw PipelineError(where.str() + ": \"stages\" must be a list of stage objects");
    if (v.empty() && !allow_empty) throw PipelineError(where.str() + ": a composition needs at least one stage");
    std::vector<Node> out;
    for (std::size_t i = 0; i < v.size(); ++i) gather([&] { out.push_back(node(v[i], where.child(i))); });
    return out;
  }

  Node node(const json& obj, const Location& where) {
    if (!obj.is_object() || !obj.contains("stage"))
      throw PipelineError(where.str() + ": a stage is an object with a \"stage\" key, e.g. {\"stage\": \"flip\"}");
    const json& name_json = obj["stage"];
    if (!name_json.is_string()) throw PipelineError(where.child("stage").str() + ": \"stage\" must be a stage name");
    const std::string name = name_json.get<std::string>();

    Node n;
    n.name = name;
    n.pointer = where.pointer;
    n.position = next_position_++;

    const StageType* type = find_stage_type(name);
    const StageSpec* comp = type ? nullptr : find_composition(name);
    if (!type && !comp) {
      std::string hint = other_library_hint(name, obj);
      if (hint.empty()) hint = torchvision_hint(name);
      const auto near = hint.empty() ? closest(name, every_spec_name()) : std::vector<std::string>{};
      throw PipelineError(where.child("stage").str() + ": unknown stage \"" + name + "\"" +
                          (!hint.empty() ? ": " + hint
                           : near.empty() ? "; `augment stages` lists them all"
                                          : " (did you mean " + quoted_list(near) + "?); `augment stages` lists them all"));
    }
    n.spec = type ? &type->spec() : comp;
    n.p = n.spec->default_p;
    if (obj.contains("p")) {
      const auto v = std::get<NumberParam>(parse_value(*n.spec, probability_spec(), obj["p"], where.child("p")));
      n.p = v.lo;
    }

    if (type) {
      n.kind = Node::Kind::Stage;
      const StageConfig config = parse_params(*n.spec, obj, where, {"stage", "p"});
      n.stage = type->make(config);
      ++stages_;
      return n;
    }

    // A composition: its own keys, then its stages.
    StageSpec keys_only = *comp;
    keys_only.params.erase(std::remove_if(keys_only.params.begin(), keys_only.params.end(),
                                          [](const ParamSpec& p) { return p.type == ParamType::Stages; }),
                           keys_only.params.end());
    const StageConfig config = parse_params(keys_only, obj, where, {"stage", "p", "stages"});
    if (!obj.contains("stages")) throw PipelineError(where.str() + ": " + name + ": missing \"stages\": [...]");
    n.children = list(obj["stages"], where.child("stages"), /*allow_empty=*/false);
    if (name == "sequence") {
      n.kind = Node::Kind::Sequence;
    } else if (name == "one_of") {
      n.kind = Node::Kind::OneOf;
      if (config.has(kWeights)) {
        n.weights = config.get(kWeights);
        if (n.weights.size() != n.children.size())
          config.fail(kWeights, "has " + std::to_string(n.weights.size()) + " weights for " +
                                     std::to_string(n.children.size()) + " stages");
        if (std::accumulate(n.weights.begin(), n.weights.end(), 0.0) <= 0)
          config.fail(kWeights, "must not all be zero");
      }
    } else {
      n.kind = Node::Kind::SomeOf;
      if (!config.has(kCount)) config.fail(kCount, "missing \"n\" (how many of the stages to apply)");
      n.n = config.get(kCount);
      n.random_order = config.get(kRandomOrder);
      if (n.n.hi > static_cast<std::int64_t>(n.children.size()))
        config.fail(kCount, "= " + std::to_string(n.n.hi) + " exceeds the number of stages (" +
                             std::to_string(n.children.size()) + ")");
    }
    return n;
  }

  std::string file_;
  std::uint32_t next_position_ = 0;
  std::size_t stages_ = 0;
  std::vector<std::string> errors_;
};

std::string dtype_words(DType t) {
  return t == DType::U8 ? "8-bit" : (t == DType::U16 ? "16-bit" : "32-bit float");
}

class Planner {
 public:
  Planner(std::uint64_t seed, std::string_view path, std::uint32_t copy, Plan& plan)
      : seed_(seed), path_(path), copy_(copy), plan_(plan) {}

  // For a pipeline with a stage whose draw reads labels: the image's labels and label map, moved
  // through each step's geometry as the plan grows, so that such a stage sees them at its input.
  void track(const DrawInputs& seen) {
    if (seen.labels) {
      labels_ = *seen.labels;
      // Object masks are not moved here: their boxes stand for them (as read, then moved).
      for (labels::Object& o : labels_->objects) o.mask.reset();
    }
    if (seen.mask) mask_ = *seen.mask;
    partners_ = seen.partners;
  }

  Shape visit(const Node& node, const Shape& in) {
    Draws d(keyed_stream(seed_, path_, copy_, node.position));
    const bool root = node.pointer.empty();
    if (!d.bernoulli(node.p)) {
      plan_.record.push_back({{"stage", node.name}, {"at", node.pointer}, {"skipped", true}});
      if (node.kind == Node::Kind::Stage) plan_.steps.push_back(Step{&node, nullptr});
      return in;
    }
    switch (node.kind) {
      case Node::Kind::Stage: return stage(node, d, in);
      case Node::Kind::Sequence: {
        if (!root) plan_.record.push_back({{"stage", node.name}, {"at", node.pointer}});
        Shape s = in;
        for (const auto& child : node.children) s = visit(child, s);
        return s;
      }
      case Node::Kind::OneOf: {
        const std::size_t chosen = choose_one(node, d);
        plan_.record.push_back({{"stage", node.name}, {"at", node.pointer}, {"chose", {chosen}}});
        return visit(node.children[chosen], in);
      }
      case Node::Kind::SomeOf: {
        const auto chosen = choose_some(node, d);
        plan_.record.push_back({{"stage", node.name}, {"at", node.pointer}, {"chose", chosen}});
        Shape s = in;
        for (std::size_t i : chosen) s = visit(node.children[i], s);
        return s;
      }
    }
    return in;
  }

 private:
  Shape stage(const Node& node, Draws& d, const Shape& in) {
    const StageSpec& spec = *node.spec;
    if (!spec.supports(in.dtype))
      throw InputError(node.name + " (" + node.pointer + ") does not take " + dtype_words(in.dtype) + " images");
    if (!spec.supports_channels(in.channels)) {
      std::vector<std::string> counts;
      for (int c : spec.channels) counts.push_back(std::to_string(c));
      throw InputError(node.name + " (" + node.pointer + ") needs " + join(counts, " or ") +
                       " channels; this image has " + std::to_string(in.channels));
    }
    std::unique_ptr<Op> op;
    try {
      if (spec.reads_labels || spec.reads_partners)
        op = node.stage->resolve_seeing(
            d, in, DrawInputs{labels_ ? &*labels_ : nullptr, mask_ ? &*mask_ : nullptr, partners_, path_});
      else
        op = node.stage->resolve(d, in);
    } catch (const InputError& e) {
      throw InputError(std::string(e.what()) + " (" + node.pointer + ")");
    }
    const Shape out = op->out_shape();
    constexpr int kMaxSide = 1 << 20;
    constexpr std::size_t kMaxValues = std::size_t{1} << 31;
    if (out.width > kMaxSide || out.height > kMaxSide || out.values() > kMaxValues)
      throw InputError(node.name + " (" + node.pointer + ") would make a " + std::to_string(out.width) + "x" +
                       std::to_string(out.height) + " image, larger than augment handles");
    plan_.record.push_back({{"stage", node.name}, {"at", node.pointer}, {"params", op->params()}});
    follow(*op);
    plan_.steps.push_back(Step{&node, std::move(op)});
    return out;
  }

  // Moves the tracked labels and label map through `op`'s geometry (none for colour stages); an Op
  // that brings other images in adds their objects.
  void follow(const Op& op) {
    if (labels_) {
      const std::vector<PartnerLabels> partners = op.partner_labels();
      const std::optional<labels::ImageLabels> before = partners.empty() ? std::nullopt : labels_;
      const std::vector<Motion> motions = op.motions();
      if (!motions.empty()) labels::move_labels(*labels_, motions, labels::LabelRules{});
      for (const PartnerLabels& p : partners) {
        if (p.partner && !p.partner->labels) continue;
        labels::ImageLabels theirs = p.partner ? *p.partner->labels : *before;  // null: the image again
        for (labels::Object& o : theirs.objects) o.mask.reset();
        labels::move_labels(theirs, p.motions, labels::LabelRules{});
        for (labels::Object& o : theirs.objects) labels_->objects.push_back(std::move(o));
      }
    }
    if (mask_) {
      if (const std::unique_ptr<Op> m = op.for_mask(mask_->shape(), 0)) {
        Image moved(m->out_shape());
        HostKernelContext ctx;
        m->run(ctx, mask_->ref(), moved.ref());
        mask_ = std::move(moved);
      }
    }
  }

  static std::size_t choose_one(const Node& node, Draws& d) {
    const std::size_t n = node.children.size();
    if (node.weights.empty()) return static_cast<std::size_t>(d.integer(0, static_cast<std::int64_t>(n) - 1));
    const double total = std::accumulate(node.weights.begin(), node.weights.end(), 0.0);
    const double u = d.uniform() * total;
    double acc = 0;
    for (std::size_t i = 0; i < n; ++i) {
      acc += node.weights[i];
      if (u < acc && node.weights[i] > 0) return i;
    }
    for (std::size_t i = n; i-- > 0;)
      if (node.weights[i] > 0) return i;
    return 0;
  }

  static std::vector<std::size_t> choose_some(const Node& node, Draws& d) {
    const std::size_t total = node.children.size();
    const auto count = static_cast<std::size_t>(std::clamp<std::int64_t>(node.n.sample(d), 0, total));
    std::vector<std::size_t> order(total);
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = 0; i < count; ++i) {  // partial Fisher-Yates
      const auto j = static_cast<std::size_t>(d.integer(static_cast<std::int64_t>(i), static_cast<std::int64_t>(total) - 1));
      std::swap(order[i], order[j]);
    }
    order.resize(count);  // a uniformly drawn ordered choice of `count`
    if (!node.random_order) std::sort(order.begin(), order.end());  // applied in the order they are listed
    return order;
  }

  std::uint64_t seed_;
  std::string_view path_;
  std::uint32_t copy_;
  Plan& plan_;
  std::optional<labels::ImageLabels> labels_;
  std::optional<Image> mask_;
  const PartnerSource* partners_ = nullptr;
};

// rotate's angle turns counter-clockwise and affine's clockwise, each as torchvision's: a pipeline
// with both is told once, in case the same angle was meant to turn the same way. Angles drawn from
// a range symmetric about 0 (or 0) turn either way alike, and are not counted.
void warn_opposite_angles(const Node& root, const json& doc, const std::string& source) {
  std::string rotate, affine;
  const auto one_way = [&](const Node& n) {
    const json* stage = nullptr;
    try {
      stage = &doc.at(json::json_pointer(n.pointer));
    } catch (const json::exception&) {
      return true;
    }
    if (!stage->is_object() || !stage->contains("angle")) return false;
    const json& a = stage->at("angle");
    if (a.is_number()) return a.get<double>() != 0;
    return !(a.is_array() && a.size() == 2 && a[0].is_number() && a[1].is_number() &&
             a[0].get<double>() == -a[1].get<double>());
  };
  std::function<void(const Node&)> visit = [&](const Node& n) {
    if (n.name == "rotate" && rotate.empty() && one_way(n)) rotate = n.pointer;
    if (n.name == "affine" && affine.empty() && one_way(n)) affine = n.pointer;
    for (const Node& c : n.children) visit(c);
  };
  visit(root);
  if (!rotate.empty() && !affine.empty())
    spdlog::warn("{}: rotate ({}) turns counter-clockwise for a positive angle and affine ({}) clockwise, each as "
                 "torchvision's: the same angle turns them opposite ways",
                 source, rotate, affine);
}

std::pair<int, int> line_column(const std::string& text, std::size_t byte) {
  int line = 1, column = 1;
  for (std::size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace

Pipeline Pipeline::load_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError("cannot read the pipeline file " + path + ": " + std::strerror(errno));
  std::ostringstream ss;
  ss << f.rdbuf();
  return is_yaml_path(path) ? parse_yaml(ss.str(), path) : parse(ss.str(), path);
}

Pipeline Pipeline::parse(const std::string& text, const std::string& source_name) {
  json doc;
  try {
    doc = json::parse(text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_column(text, e.byte);
    std::string what = e.what();
    const auto at = what.find(": ", what.find("column"));
    if (at != std::string::npos) what = what.substr(at + 2);
    throw PipelineError(source_name + ":" + std::to_string(line) + ":" + std::to_string(column) +
                        ": invalid JSON: " + what);
  } catch (const json::exception& e) {
    // The lexer's other error (out_of_range 406: a number too large for a double, e.g. 1e999)
    // carries no position.
    std::string what = e.what();
    const auto at = what.find("] ");
    if (at != std::string::npos) what = what.substr(at + 2);
    throw PipelineError(source_name + ": invalid JSON: " + what);
  }
  return from_document(doc, source_name);
}

Pipeline Pipeline::parse_yaml(const std::string& text, const std::string& source_name) {
  std::map<std::string, std::pair<int, int>> marks;
  const json doc = yaml_to_json(text, source_name, marks);
  try {
    return from_document(doc, source_name);
  } catch (const PipelineError& e) {
    // Each "file:/stages/2/sigma: ..." line becomes "file:LINE:COLUMN: /stages/2/sigma: ...", the
    // position of the value at that pointer, or of its nearest parent the file has (a missing key).
    const std::string head = source_name + ":/";
    auto place = [&](const std::string& what) {
      if (what.compare(0, head.size(), head) != 0) return what;
      const std::size_t end = what.find(": ", head.size() - 1);
      const std::string pointer =
          what.substr(head.size() - 1, end == std::string::npos ? std::string::npos : end - head.size() + 1);
      for (std::string at = pointer;; at = at.substr(0, at.rfind('/'))) {
        const auto it = marks.find(at == "/" ? "" : at);
        if (it != marks.end())
          return source_name + ":" + std::to_string(it->second.first) + ":" + std::to_string(it->second.second) +
                 ": " + what.substr(source_name.size() + 1);
        if (at.empty()) break;
      }
      return what;
    };
    std::istringstream lines(e.what());
    std::string out, line;
    while (std::getline(lines, line)) out += (out.empty() ? "" : "\n") + place(line);
    throw PipelineError(out);
  }
}

Pipeline Pipeline::from_document(const json& doc, const std::string& source_name) {
  Pipeline p;
  p.source_ = source_name;
  p.document_ = doc;
  Loader loader(source_name);
  p.root_ = loader.root(doc, p.seed_, p.label_rules_, p.decode_rules_);
  p.stage_count_ = loader.stages();
  std::function<bool(const Node&)> reads = [&](const Node& n) {
    if (n.spec && (n.spec->reads_labels || n.spec->reads_partners)) return true;
    return std::any_of(n.children.begin(), n.children.end(), reads);
  };
  p.reads_labels_ = reads(*p.root_);
  std::function<bool(const Node&)> partners = [&](const Node& n) {
    return (n.spec && n.spec->reads_partners) || std::any_of(n.children.begin(), n.children.end(), partners);
  };
  p.reads_partners_ = partners(*p.root_);
  warn_opposite_angles(*p.root_, doc, source_name);
  return p;
}

Plan Pipeline::plan(std::uint64_t seed, std::string_view relative_path, std::uint32_t copy, const Shape& in,
                    const DrawInputs& seen) const {
  Plan plan;
  plan.in = in;
  Planner planner(seed, relative_path, copy, plan);
  if (reads_labels_) {
    if (seen.mask && (seen.mask->width() != in.width || seen.mask->height() != in.height))
      throw InputError("the mask is " + std::to_string(seen.mask->width()) + "x" + std::to_string(seen.mask->height()) +
                       " but its image is " + std::to_string(in.width) + "x" + std::to_string(in.height));
    planner.track(seen);
  }
  plan.out = planner.visit(*root_, in);
  return plan;
}

namespace {

// The matrix of an Op that moves pixels with one affine map; nothing for other Ops (a per-pixel
// field is not even computed).
std::optional<std::array<double, 9>> affine_map(const Op& op) {
  if (op.moves_by_field()) return std::nullopt;
  const std::vector<Motion> maps = op.motions();
  if (maps.size() != 1 || maps[0].sources) return std::nullopt;
  const auto& m = maps[0].matrix;
  if (m[6] != 0 || m[7] != 0 || m[8] != 1) return std::nullopt;
  return m;
}

// The stretch of an Op that resamples with one affine map: the longest image of the input's unit
// steps (below 1: it shrinks). Nothing for other Ops.
std::optional<double> stretch(const Op& op) {
  const auto m = affine_map(op);
  if (!m) return std::nullopt;
  return std::max(std::hypot((*m)[0], (*m)[3]), std::hypot((*m)[1], (*m)[4]));
}

// The first operation that runs, null when none does.
const Op* first_op(const Plan& p) {
  for (const Step& s : p.steps)
    if (s.op) return s.op.get();
  return nullptr;
}

// Whether `small`, planned from the image decoded at 1/n, does what `full` does from the first
// operation on: the same steps fire and each gives the same size; the first one shrinks the full
// image at least n times, so that it still does not enlarge the smaller one.
bool shrinks_alike(const Plan& full, const Plan& small, int n) {
  if (full.steps.size() != small.steps.size() || !(full.out == small.out)) return false;
  constexpr double kSlack = 1e-9;
  bool first = true;
  for (std::size_t i = 0; i < full.steps.size(); ++i) {
    const Op* a = full.steps[i].op.get();
    const Op* b = small.steps[i].op.get();
    if (!a || !b) {
      if (a || b) return false;
      continue;
    }
    if (!(a->out_shape() == b->out_shape())) return false;
    if (first) {
      first = false;
      const auto sa = stretch(*a), sb = stretch(*b);
      if (!sa || !sb || *sa * n > 1 + kSlack || *sb > 1 + kSlack) return false;
    }
  }
  return !first;  // some operation ran
}

}  // namespace

int Pipeline::shrink_for(std::uint64_t seed, std::string_view relative_path, const std::vector<std::uint32_t>& copies,
                         const Shape& full) const {
  if (!decode_rules_.shrink || copies.empty() || reads_labels_) return 1;
  std::vector<Plan> plans;
  try {
    for (std::uint32_t copy : copies) plans.push_back(plan(seed, relative_path, copy, full));
  } catch (const std::exception&) {
    return 1;  // the full image cannot take the pipeline: let the run report it as usual
  }
  for (int n : {8, 4, 2}) {
    const Shape small{shrunk_size(full.width, n), shrunk_size(full.height, n), full.channels, full.dtype};
    bool ok = true;
    try {
      for (std::size_t i = 0; ok && i < copies.size(); ++i)
        ok = shrinks_alike(plans[i], plan(seed, relative_path, copies[i], small), n);
    } catch (const std::exception&) {
      ok = false;
    }
    if (ok) return n;
  }
  return 1;
}

std::optional<PixelRect> Pipeline::footprint(std::uint64_t seed, std::string_view relative_path,
                                             const std::vector<std::uint32_t>& copies, const Shape& in) const {
  // The widest reach of an interpolation past the source position of an output pixel's corner
  // (Lanczos-4 reads 4 pixels on one side), plus one for rounding.
  constexpr int kReach = 5;
  constexpr double kInside = 1e-6;
  PixelRect all{in.width, in.height, 0, 0};
  if (copies.empty() || reads_labels_) return std::nullopt;  // a window drawn from labels is known only with them
  try {
    for (std::uint32_t copy : copies) {
      const Plan p = plan(seed, relative_path, copy, in);
      const Op* first = first_op(p);
      if (!first) return std::nullopt;
      const auto map = affine_map(*first);
      if (!map) return std::nullopt;
      const auto& m = *map;
      const double det = m[0] * m[4] - m[1] * m[3];
      if (std::abs(det) < 1e-12) return std::nullopt;
      // The output's outer corners taken back to the input.
      const double W = first->out_shape().width, H = first->out_shape().height;
      double lo_x = 1e300, lo_y = 1e300, hi_x = -1e300, hi_y = -1e300;
      for (const auto& [u, v] : {std::pair{-0.5, -0.5}, {W - 0.5, -0.5}, {-0.5, H - 0.5}, {W - 0.5, H - 0.5}}) {
        const double du = u - m[2], dv = v - m[5];
        const double x = (m[4] * du - m[1] * dv) / det, y = (-m[3] * du + m[0] * dv) / det;
        lo_x = std::min(lo_x, x), hi_x = std::max(hi_x, x);
        lo_y = std::min(lo_y, y), hi_y = std::max(hi_y, y);
      }
      // A window reaching past the image reads its border, which may be any of its pixels.
      if (lo_x < -0.5 - kInside || lo_y < -0.5 - kInside || hi_x > in.width - 0.5 + kInside ||
          hi_y > in.height - 0.5 + kInside)
        return std::nullopt;
      all.x0 = std::min(all.x0, std::max(0, static_cast<int>(std::floor(lo_x)) - kReach));
      all.y0 = std::min(all.y0, std::max(0, static_cast<int>(std::floor(lo_y)) - kReach));
      all.x1 = std::max(all.x1, std::min(in.width, static_cast<int>(std::ceil(hi_x)) + 1 + kReach));
      all.y1 = std::max(all.y1, std::min(in.height, static_cast<int>(std::ceil(hi_y)) + 1 + kReach));
    }
  } catch (const std::exception&) {
    return std::nullopt;  // the image cannot take the pipeline: the run reports it as usual
  }
  if (all.x0 == 0 && all.y0 == 0 && all.x1 == in.width && all.y1 == in.height) return std::nullopt;
  return all;
}

DecodeOptions Pipeline::decode_options(DecodeOptions base, std::uint64_t seed, const std::string& relative_path,
                                       const std::vector<std::uint32_t>& copies, bool shrink, bool region) const {
  if (shrink && decode_rules_.shrink)
    base.shrink = [=, this](const Shape& full) { return shrink_for(seed, relative_path, copies, full); };
  if (region) base.region = [=, this](const Shape& in) { return footprint(seed, relative_path, copies, in); };
  return base;
}

}  // namespace aug
