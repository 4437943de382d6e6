// Reading the transform pipelines of a training script (train.py) without running it: the file is
// tokenized, the Compose(...) calls of Albumentations or torchvision are found (through the file's
// `import ... as ...` and `from ... import ...` lines), and one of them is evaluated from literals
// only: numbers, strings, tuples, lists, dicts, None / True / False, arithmetic of those, cv2's
// BORDER_* and INTER_* constants, names bound to such literals (at module level, in a class body,
// in the function, or a parameter's literal default), and the library's own calls nested inside
// (OneOf, BboxParams, ...). Anything else (a call to another function, an attribute of self, a
// comprehension, an f-string) is refused with "file:line:col: reason".
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace aug::py {

// 1-based line and column (columns count characters).
struct Place {
  int line = 0, col = 0;
};

// A value evaluated from the file's literals.
struct Value {
  enum class Kind { none, boolean, integer, real, string, tuple, list, dict, call, symbol };
  Kind kind = Kind::none;
  bool b = false;
  std::int64_t i = 0;
  double f = 0;
  // string: its text; call: the callee's full name ("albumentations.Resize",
  // "torchvision.transforms.v2.Resize"); symbol: a named constant ("InterpolationMode.BICUBIC",
  // "AutoAugmentPolicy.CIFAR10", "torch.float32").
  std::string s;
  std::vector<Value> items;  // tuple, list; call: positional arguments
  struct Named;
  std::vector<Named> named;  // dict (string keys); call: keyword arguments
  Place at;                  // where it is written
  std::string written;       // call: the callee as written ("A.Resize")
  // A dict entry whose value cannot be read (CFG = {"size": 224, "key": os.environ["K"]}): the
  // refusal, "path:line:col: why", raised only where the entry is used.
  std::string refused;

  bool is_number() const { return kind == Kind::integer || kind == Kind::real; }
  double number() const { return kind == Kind::integer ? static_cast<double>(i) : f; }
  // The last part of a call's name ("Resize").
  std::string short_name() const;
  // Python's repr, roughly: for messages.
  std::string repr() const;
};

// A dict entry or keyword argument, read as a pair is (first the name, second the value). A struct,
// not std::pair: a pair of an incomplete Value inside Value is refused by clang with libstdc++.
struct Value::Named {
  Named(std::string name, Value value) : first(std::move(name)), second(std::move(value)) {}
  std::string first;
  Value second;
};

// One Compose(...) call of a library in the file.
struct Found {
  std::string library;             // "albumentations" or "torchvision"
  Place at;                        // the call
  std::vector<std::string> names;  // what --name accepts: the variable, dict key or keyword, the function
  std::string label;               // how the listing names it: train_transform, get_train_transforms()
};

class Source {
 public:
  // Tokenizes `text` (throws PipelineError "path:line:col: ..." on an unterminated string or the like).
  Source(const std::string& text, std::string path);
  static Source read(const std::string& path);
  ~Source();
  Source(Source&&) noexcept;

  const std::string& path() const;
  // "path:line:col".
  std::string where(Place at) const;

  // The outermost Compose calls of `library` ("albumentations" or "torchvision"), in file order.
  std::vector<Found> pipelines(const std::string& library) const;
  // The pipeline to import: the only one, or the one `name` picks (a name of Found::names, or its
  // line). Throws PipelineError listing them when there are several and no name, or none matches.
  Found pick(const std::string& library, const std::string& name) const;
  // The call evaluated. `notes` receives where a parameter's default was used.
  Value evaluate(const Found& found, std::vector<std::string>& notes) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace aug::py
