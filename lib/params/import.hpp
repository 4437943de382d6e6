// How a transform of another library becomes a stage (`augment import albumentations`): each stage
// declares the rules that translate into it (StageSpec::imports), next to its parameters, and the
// importer (lib/pipeline/albumentations.hpp) reads every stage's rules. A rule reads the saved
// transform through a TransformReader, which knows that library's conventions (how a "limit" is
// read, what a cv2 border code means, the names a parameter had across releases) and says where
// a value is wrong.
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace aug {

using ojson = nlohmann::ordered_json;

// One saved transform being translated: its parameters as the library saved them, where it sits
// ("transform/transforms/2"; with an empty source, a place that names the file: "train.py:31:13"),
// and the notes the translation leaves for the user.
class TransformReader {
 public:
  // `release`: the Albumentations release that wrote the pipeline, as known ("1.3.1", "2.x", "1.x or 2.x", "").
  TransformReader(const nlohmann::json& saved, std::string source, std::string where, std::vector<std::string>& notes,
                  std::optional<double>& mask_fill, std::string release = "")
      : t_(saved),
        source_(std::move(source)),
        where_(std::move(where)),
        notes_(&notes),
        mask_fill_(&mask_fill),
        release_(std::move(release)) {}

  // The release's major and minor numbers where known: (1, 3) for "1.3.1", (2, -1) for "2.x", (0, -1)
  // when unknown ("1.x or 2.x", none).
  std::pair<int, int> release() const;
  // The pipeline is known to be written for Albumentations 2.x (a release 2 or later, or a Python
  // file whose keywords and transforms are 2.x's): parameters it leaves out take 2.x's defaults.
  bool release_2() const { return release().first >= 2; }

  const nlohmann::json& saved() const { return t_; }
  // A parameter given and not null.
  bool has(const char* key) const;
  // The first of several names a parameter had across releases that is given (else the first).
  const char* first_of(std::initializer_list<const char*> keys) const;
  double number(const char* key, double fallback) const;
  bool flag(const char* key, bool fallback) const;
  // A number or a pair, as Albumentations' to_tuple reads its "limit" parameters: a number x is
  // (-|x|, |x|) when `symmetric`, (min(low, x), max(low, x)) otherwise; a pair is itself, ordered.
  std::pair<double, double> limit(const char* key, std::pair<double, double> fallback, bool symmetric,
                                  double low = 0) const;
  // A number or a pair, as to_tuple(x, x) reads a parameter whose single number is a fixed value
  // (Posterize's num_bits, Solarize's threshold, ZoomBlur's step_factor, MultiplicativeNoise's
  // multiplier in 1.x): a number x is (x, x); a pair is itself, ordered.
  std::pair<double, double> value_or_range(const char* key, std::pair<double, double> fallback) const;
  // The same as limit, read from `object` (a per-axis {"x": ..., "y": ...} value).
  std::pair<double, double> limit_in(const nlohmann::json& object, const char* key, std::pair<double, double> fallback,
                                     bool symmetric, double low = 0) const;
  // A cv2.INTER_* code as an interpolation word (0 to 5: nearest, bilinear, bicubic, area, lanczos,
  // bilinear; a stage that lacks the one named refuses it when the imported pipeline is loaded).
  std::string interpolation(const char* key = "interpolation") const;
  // The same for a warp or remap, where OpenCV samples INTER_AREA as INTER_LINEAR (with a note).
  std::string warp_interpolation(const char* key = "interpolation") const;
  // A cv2.BORDER_* code (border_mode, or mode / pad_mode in older releases) as a border word.
  std::string border(int fallback) const;
  // The constant border's fill (fill 2.x, value 1.x, cval Affine) into `stage`, when given.
  void fill(ojson& stage) const;
  // The masks' fill (fill_mask 2.x, mask_value 1.x): one for the whole pipeline, the first given.
  void mask_fill() const;
  // [width, height] from height and width (1.x) or size = (height, width) (2.x).
  ojson size() const;

  // A note for the user where the translation approximates or leaves something out.
  void note(const std::string& what) const;
  // Stops the import: this transform, with these parameters, has no stage equivalent.
  [[noreturn]] void fail(const std::string& what) const;

 private:
  const nlohmann::json& t_;
  std::string source_, where_;
  std::vector<std::string>* notes_;
  std::optional<double>* mask_fill_;
  std::string release_;
};

// How Python code constructs a transform (`augment import albumentations train.py`): the class's
// positional parameters, in the order `A.Name(a, b)` reads them, in Albumentations 1.x (1.3.1) and 2.x
// (2.0.8), space-separated ("-": the class is not in that release), and the p that A.save writes
// when the call gives none.
struct PythonSignature {
  const char* name = "";
  const char* v1 = "-";
  const char* v2 = "-";
  double p = 0.5;
};

struct ImportRule {
  std::string name;                  // the class, e.g. "HorizontalFlip"
  std::vector<std::string> aliases;  // its names in other releases, translated the same way
  std::string how;                   // how it maps, one line (the docs' import table)
  // The stage object (with "stage"; without "p", which the importer sets).
  ojson (*convert)(const TransformReader&) = nullptr;
  std::string library = "Albumentations";
  // The Python signatures of `name` and of each alias (a test holds every one of them declared).
  std::vector<PythonSignature> python;
};

// [lo, hi] as a stage takes a range: one number when both ends are equal.
ojson span(double lo, double hi);
// The same for integers (each end rounded to the nearest).
ojson ispan(double lo, double hi);

}  // namespace aug
