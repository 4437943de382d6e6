// A pipeline file, validated as a whole before any image is touched, and its resolution into a
// per-image Plan: every random choice (probabilities, compositions, parameters) made on the host
// from the keyed generator, so every backend runs the same concrete operations.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "lib/core/image.hpp"
#include "lib/io/codec.hpp"
#include "lib/labels/transform.hpp"
#include "lib/params/config.hpp"
#include "lib/pipeline/compositions.hpp"
#include "lib/stages/stage.hpp"

namespace aug {

constexpr int kPipelineVersion = 1;

struct Node {
  enum class Kind { Stage, Sequence, OneOf, SomeOf };
  Kind kind = Kind::Sequence;
  std::string name;          // stage or composition name
  std::string pointer;       // JSON pointer in the file, e.g. "/stages/2"
  std::uint32_t position = 0;  // pre-order index; keys the generator
  double p = 1.0;
  const StageSpec* spec = nullptr;
  std::unique_ptr<Stage> stage;  // Kind::Stage
  std::vector<Node> children;    // compositions
  std::vector<double> weights;   // one_of (empty: uniform)
  IntegerParam n;                // some_of
  bool random_order = false;     // some_of: the drawn order, not the listed one
};

// One leaf stage on the path an image takes; `op` is null when its `p` skipped it.
struct Step {
  const Node* node = nullptr;
  std::unique_ptr<Op> op;
};

struct Plan {
  Shape in, out;
  std::vector<Step> steps;
  nlohmann::json record = nlohmann::json::array();  // what the manifest stores: one entry per visited node
};

// The "decode" block: how input files become the first stage's image.
struct DecodeRules {
  // Shrink-on-load: JPEGs decoded at 1/2, 1/4 or 1/8 in the DCT domain when the pipeline starts by
  // shrinking them at least that much (Pipeline::shrink_for).
  bool shrink = false;
};

class Pipeline {
 public:
  // A .yaml / .yml file is read as YAML (lib/pipeline/yaml.hpp), anything else as JSON.
  static Pipeline load_file(const std::string& path);
  static Pipeline parse(const std::string& text, const std::string& source_name);
  // The same document in YAML; errors name file:line:column and the JSON pointer.
  static Pipeline parse_yaml(const std::string& text, const std::string& source_name);

  const std::string& source() const { return source_; }
  // The document as read (a YAML file's as its JSON equivalent), for reports that quote it.
  const nlohmann::json& document() const { return document_; }
  std::optional<std::uint64_t> seed() const { return seed_; }
  const Node& root() const { return *root_; }
  std::size_t stage_count() const { return stage_count_; }
  // The "labels" block (defaults when the file has none): how labels are moved and filtered.
  const labels::LabelRules& label_rules() const { return label_rules_; }
  // The "decode" block (defaults when the file has none).
  const DecodeRules& decode_rules() const { return decode_rules_; }

  // The n in {8, 4, 2} (largest first) at which an image of shape `full` may be decoded at 1/n of
  // its size for every one of `copies`: the planned first operation is a resampling that shrinks
  // the full image at least n times (so it still does not enlarge the smaller one) and every step
  // gives the same size as from the full image. 1 when none qualifies (or shrink is off). Plans
  // from the smaller image differ only where a stage's choice depends on its input's size.
  int shrink_for(std::uint64_t seed, std::string_view relative_path, const std::vector<std::uint32_t>& copies,
                 const Shape& full) const;
  // The pixels of an input of shape `in` that `copies` read, when that is less than the whole image:
  // each copy's first operation is one affine map (a crop, random_resized_crop...) whose window
  // lies inside the image; the union of those windows, widened by the reach of the widest
  // interpolation. Nothing when some copy may read anywhere. Decoding only these pixels
  // (DecodeOptions::region) gives the same outputs as decoding the whole image.
  std::optional<PixelRect> footprint(std::uint64_t seed, std::string_view relative_path,
                                     const std::vector<std::uint32_t>& copies, const Shape& in) const;
  // `base` for decoding the input at `relative_path` for `copies`: with shrink_for when the file
  // asks for shrink-on-load and `shrink` allows it, and with footprint when `region`.
  DecodeOptions decode_options(DecodeOptions base, std::uint64_t seed, const std::string& relative_path,
                               const std::vector<std::uint32_t>& copies, bool shrink, bool region) const;

  // Resolves every random choice for one output. Throws InputError when the image cannot take a
  // stage (a dtype or channel count the stage does not support, a crop larger than the image...).
  // `seen`: the image's labels and label map, for a stage whose draw reads them (StageSpec::reads_labels).
  Plan plan(std::uint64_t seed, std::string_view relative_path, std::uint32_t copy, const Shape& in,
            const DrawInputs& seen = {}) const;
  // Whether some stage's draw reads the labels or other images: shrink-on-load and region decoding
  // are off then.
  bool reads_labels() const { return reads_labels_; }
  // Whether some stage reads other images (mosaic, mixup, cutmix, copy_paste): a run gives plan() its inputs
  // as DrawInputs::partners.
  bool reads_partners() const { return reads_partners_; }

 private:
  static Pipeline from_document(const nlohmann::json& doc, const std::string& source_name);

  std::string source_;
  nlohmann::json document_;
  std::optional<std::uint64_t> seed_;
  std::unique_ptr<Node> root_;
  std::size_t stage_count_ = 0;
  bool reads_labels_ = false;
  bool reads_partners_ = false;
  labels::LabelRules label_rules_;
  DecodeRules decode_rules_;
};

}  // namespace aug
