// The Python reader of `augment import ... train.py` (lib/pipeline/python_source.hpp): tokenizing
// tricky text, finding the Compose calls through the file's imports, evaluating literals; and the
// positional signatures known for every transform the importer translates.
#include <gtest/gtest.h>

#include <algorithm>

#include "lib/core/error.hpp"
#include "lib/pipeline/python_import.hpp"
#include "lib/pipeline/python_source.hpp"
#include "lib/stages/stage.hpp"

namespace aug::test_python_source {
namespace {

using py::Value;
using Kind = py::Value::Kind;

Value only_pipeline(const std::string& text, const std::string& library, std::vector<std::string>* notes = nullptr) {
  const py::Source src(text, "t.py");
  std::vector<std::string> n;
  const Value v = src.evaluate(src.pick(library, ""), n);
  if (notes) *notes = n;
  return v;
}

const Value& kw(const Value& call, const std::string& key) {
  for (const auto& [k, v] : call.named)
    if (k == key) return v;
  static const Value none;
  ADD_FAILURE() << "no keyword " << key << " in " << call.repr();
  return none;
}

TEST(PythonSource, TokenizerReadsTrickyText) {
  const std::string text = R"PY(#!/usr/bin/env python
"""A docstring with A.Compose([A.Resize(1, 1)]) in it, and ( [ { brackets."""
import albumentations as A  # comment with A.Compose(
import cv2, \
    numpy as np

NOTE = 'a # is not a comment'; OTHER = "brackets ) ] } inside"
PATH = r"C:\data\"quoted"
LABEL = ("implicit "
         'concatenation')
TEMPLATE = f"{NOTE!r:>{10}} {'nested'}"
SMALL = 1e-3
MASK = 0x1F + 0o7 + 0b11
BIG = 1_000
HALF = .5
POWER = -2 ** 2

transform = A.Compose([  # a comment after the bracket
    # a whole line of comment ] ) inside the list
    A.Resize(BIG // 4, 250, \
             interpolation=cv2.INTER_AREA),
    A.Rotate(limit=(-SMALL * 1000, 45 / 9), border_mode=cv2.BORDER_REFLECT101,
             p=HALF),
    A.ToGray(p=MASK / 100),  A.Lambda(name=NOTE + OTHER + LABEL),
    A.Affine(scale={"x": (0.9, 1.1), "y": [1, POWER]}, shear=None, fit_output=False),
], p=1.0)
)PY";
  const py::Source src(text, "t.py");
  const auto found = src.pipelines("albumentations");
  ASSERT_EQ(found.size(), 1u);  // not the one in the docstring, nor the comment's
  EXPECT_EQ(found[0].at.line, 18);
  EXPECT_EQ(found[0].at.col, 13);
  EXPECT_EQ(found[0].label, "transform");
  std::vector<std::string> notes;
  const Value v = src.evaluate(found[0], notes);
  EXPECT_EQ(v.s, "albumentations.Compose");
  const Value& list = v.items.at(0);
  ASSERT_EQ(list.kind, Kind::list);
  ASSERT_EQ(list.items.size(), 5u);
  const Value& resize = list.items[0];
  EXPECT_EQ(resize.written, "A.Resize");
  EXPECT_EQ(resize.at.line, 20);
  EXPECT_EQ(resize.at.col, 5);
  EXPECT_EQ(resize.items.at(0).kind, Kind::integer);
  EXPECT_EQ(resize.items.at(0).i, 250);
  EXPECT_EQ(kw(resize, "interpolation").i, 3);
  const Value& rotate = list.items[1];
  EXPECT_DOUBLE_EQ(kw(rotate, "limit").items.at(0).f, -1.0);
  EXPECT_DOUBLE_EQ(kw(rotate, "limit").items.at(1).f, 5.0);
  EXPECT_EQ(kw(rotate, "border_mode").i, 4);
  EXPECT_DOUBLE_EQ(kw(rotate, "p").f, 0.5);
  EXPECT_DOUBLE_EQ(kw(list.items[2], "p").f, (31 + 7 + 3) / 100.0);
  EXPECT_EQ(kw(list.items[3], "name").s, "a # is not a commentbrackets ) ] } insideimplicit concatenation");
  const Value& scale = kw(list.items[4], "scale");
  ASSERT_EQ(scale.kind, Kind::dict);
  EXPECT_EQ(scale.named.at(1).first, "y");
  EXPECT_EQ(scale.named.at(1).second.items.at(1).i, -4);  // -(2 ** 2)
  EXPECT_EQ(kw(list.items[4], "shear").kind, Kind::none);
  EXPECT_EQ(kw(v, "p").f, 1.0);
}

TEST(PythonSource, AliasesOfBothLibrariesAreResolved) {
  for (const char* text : {"import albumentations\nt = albumentations.Compose([albumentations.Blur()])\n",
                           "from albumentations import Compose as C, Blur\nt = C([Blur()])\n",
                           "import albumentations as A\nt = A.ReplayCompose([A.Blur()])\n",
                           "from albumentations import *\nt = Compose([Blur()])\n"}) {
    SCOPED_TRACE(text);
    const Value v = only_pipeline(text, "albumentations");
    EXPECT_EQ(v.items.at(0).items.at(0).short_name(), "Blur");
  }
  for (const char* text : {"import torchvision.transforms as T\nt = T.Compose([T.ToTensor()])\n",
                           "from torchvision import transforms\nt = transforms.Compose([transforms.ToTensor()])\n",
                           "from torchvision.transforms import v2\nt = v2.Compose([v2.ToTensor()])\n",
                           "import torchvision\nt = torchvision.transforms.Compose([torchvision.transforms.ToTensor()])\n",
                           "import torchvision.transforms.v2 as tv\nt = tv.Compose([tv.ToTensor()])\n"}) {
    SCOPED_TRACE(text);
    const Value v = only_pipeline(text, "torchvision");
    EXPECT_EQ(v.items.at(0).items.at(0).short_name(), "ToTensor");
    EXPECT_EQ(py::Source(text, "t.py").pipelines("albumentations").size(), 0u);
  }
  // Another module's Compose is not a pipeline.
  EXPECT_EQ(py::Source("from mylib import Compose\nt = Compose([])\n", "t.py").pipelines("albumentations").size(), 0u);
}

TEST(PythonSource, NamesResolveByScope) {
  const std::string text =
      "import albumentations as A\n"
      "SIZE = 128\n"
      "class CFG:\n"
      "    size = SIZE * 2\n"
      "H, W = 10, 20\n"
      "def get(p=0.25, *, q=SIZE):\n"
      "    local = 7\n"
      "    return A.Compose([A.Resize(CFG.size, local), A.Blur(p=p), A.Blur(p=q), A.PadIfNeeded(H, W)])\n"
      "SIZE = 999  # later: the function sees the module's last binding\n";
  std::vector<std::string> notes;
  const Value v = only_pipeline(text, "albumentations", &notes);
  const Value& l = v.items.at(0);
  EXPECT_EQ(l.items.at(0).items.at(0).i, 256);  // the class body read SIZE at line 4
  EXPECT_EQ(l.items.at(0).items.at(1).i, 7);
  EXPECT_DOUBLE_EQ(kw(l.items.at(1), "p").f, 0.25);
  EXPECT_EQ(kw(l.items.at(2), "p").i, 128);  // a default is evaluated where the def is
  EXPECT_EQ(l.items.at(3).items.at(1).i, 20);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0], "t.py:6:9: p is a parameter of get(); its default 0.25 is used");
}

TEST(PythonSource, FoundPipelinesAreNamed) {
  const std::string text =
      "import albumentations as A\n"
      "train_tf = A.Compose([])\n"
      "def make():\n"
      "    tf = A.Compose([A.Compose([])])\n"
      "    return tf\n"
      "ds = Dataset(root, transform=A.Compose([]))\n"
      "class M:\n"
      "    def __init__(self):\n"
      "        self.aug = A.Compose([])\n";
  const py::Source src(text, "t.py");
  const auto f = src.pipelines("albumentations");
  ASSERT_EQ(f.size(), 4u);  // the nested Compose belongs to its parent
  EXPECT_EQ(f[0].label, "train_tf");
  EXPECT_EQ(f[1].label, "tf in make()");
  EXPECT_EQ(f[2].label, "ds");
  EXPECT_EQ(f[3].label, "self.aug in __init__()");
  EXPECT_EQ(src.pick("albumentations", "make").at.line, 4);
  EXPECT_EQ(src.pick("albumentations", "transform").at.line, 6);
  EXPECT_EQ(src.pick("albumentations", "aug").at.line, 9);
  EXPECT_THROW(src.pick("albumentations", ""), PipelineError);
}

TEST(PythonSource, TokenizerErrorsHaveTheirPlace) {
  auto error = [](const std::string& text) {
    try {
      py::Source s(text, "t.py");
    } catch (const PipelineError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(error("x = 'abc\ny = 1\n"), "t.py:1:5: unterminated string (end of the line)");
  EXPECT_EQ(error("x = 1\ny = (1,\n  2\n"), "t.py:2:5: '(' is never closed");
  EXPECT_EQ(error("x = 1 $ 2\n"), "t.py:1:7: unexpected character '$'");
}

// Every transform a stage imports declares its positional parameters with its rule (ImportRule::python),
// and a rule declares no others; the compositions and what the importer leaves out have theirs in
// the importer.
TEST(PythonSource, EveryImportedTransformHasASignature) {
  std::vector<std::string> missing, stray;
  for (const StageType& type : stage_types())
    for (const ImportRule& r : type.spec().imports) {
      std::vector<std::string> names = r.aliases;
      names.push_back(r.name);
      for (const std::string& n : names) {
        const bool declared = std::any_of(r.python.begin(), r.python.end(),
                                          [&](const PythonSignature& s) { return n == s.name; });
        if (!declared || !albumentations_signature_known(n)) missing.push_back(type.spec().name + ": " + n);
      }
      for (const PythonSignature& s : r.python)
        if (std::find(names.begin(), names.end(), s.name) == names.end()) stray.push_back(type.spec().name + ": " + s.name);
    }
  EXPECT_TRUE(stray.empty()) << ::testing::PrintToString(stray);
  for (const char* n : {"Compose", "ReplayCompose", "OneOf", "SomeOf", "Sequential", "BboxParams", "KeypointParams",
                        "Normalize", "ToTensorV2", "ToFloat", "FromFloat", "NoOp"})
    if (!albumentations_signature_known(n)) missing.push_back(n);
  EXPECT_TRUE(missing.empty()) << ::testing::PrintToString(missing);
}

}  // namespace
}  // namespace aug::test_python_source
